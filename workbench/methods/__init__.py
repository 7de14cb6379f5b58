"""Audit methods as plugins; the protocol and the registry are in `registry`."""

from workbench.methods.registry import (
    BUILTIN,
    CONVENTIONS,
    ENTRY_POINT_GROUP,
    Method,
    MethodBase,
    Stages,
    filters_of,
    get,
    metric_fields,
    metric_records,
    metric_records_by_method,
    names,
    panels_of,
    register,
    unregister,
    warm_metrics,
)

__all__ = [
    "BUILTIN",
    "CONVENTIONS",
    "ENTRY_POINT_GROUP",
    "Method",
    "MethodBase",
    "Stages",
    "filters_of",
    "get",
    "metric_fields",
    "metric_records",
    "metric_records_by_method",
    "names",
    "panels_of",
    "register",
    "unregister",
    "warm_metrics",
]
