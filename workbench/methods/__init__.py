"""Audit methods as plugins; the protocol and the registry are in `registry`."""

from workbench.methods.registry import (
    BUILTIN,
    CONVENTIONS,
    ENTRY_POINT_GROUP,
    Method,
    MethodBase,
    Stages,
    get,
    metric_records,
    names,
    register,
    unregister,
)

__all__ = [
    "BUILTIN",
    "CONVENTIONS",
    "ENTRY_POINT_GROUP",
    "Method",
    "MethodBase",
    "Stages",
    "get",
    "metric_records",
    "names",
    "register",
    "unregister",
]
