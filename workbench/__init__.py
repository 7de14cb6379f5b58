"""Audit Workbench.

Importing the package connects the store to the methods' own tables: opening a store applies
each registered method's named migrations (`MethodBase.migrations`) after the core schema,
while the store itself imports nothing of the methods (`workbench.store.method_migrations`)."""

from workbench.store import method_migrations as _method_migrations
from workbench.store.decisions import method_kinds as _decision_source


def _registered_migrations():
    """(method, its migrations) for every registered method, built-ins first."""
    from workbench.methods import registry

    return [(name, getattr(registry.get(name), "migrations", ())) for name in registry.names()]


_method_migrations.set_source(_registered_migrations)


def _decision_kinds():
    """Every registered method's decision kinds (its review's corrections), built-ins first."""
    from workbench.methods import registry
    from workbench.methods.base import hook

    return [kind for name in registry.names() for kind in hook(registry.get(name), "decision_kinds")]


_decision_source.set_source(_decision_kinds)
