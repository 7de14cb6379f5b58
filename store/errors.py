"""The error family is `workbench.errors` (the bottom layer, below the store): these names are
re-exported for the store's modules and for older imports."""

from workbench.errors import InputError, UserFacingError, WorkbenchError  # noqa: F401
