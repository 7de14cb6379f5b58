"""Audit Workbench.

Importing the package connects the store to the methods' own tables: opening a store applies
each registered method's named migrations (`MethodBase.migrations`) after the core schema,
while the store itself imports nothing of the methods (`workbench.store.method_migrations`)."""

from workbench.store import method_migrations as _method_migrations


def _registered_migrations():
    """(method, its migrations) for every registered method, built-ins first."""
    from workbench.methods import registry

    return [(name, getattr(registry.get(name), "migrations", ())) for name in registry.names()]


_method_migrations.set_source(_registered_migrations)
