"""The store: one SQLite file and every read and write of its shared tables, grouped by domain
(docs/architecture.md, "The store"). Its modules' paths before that grouping still import
(`store/moved.py`)."""

from workbench.store import moved as _moved

_moved.install()
