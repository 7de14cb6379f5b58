"""Deprecated since 0.2: `workbench.plugin` holds what a method imports (request_key among it);
this module is `workbench.asking.keys`, kept importable until 0.4 (CHANGELOG.md)."""

import warnings

from workbench.asking.keys import *  # noqa: F403
from workbench.asking.keys import request_key  # noqa: F401

warnings.warn(
    "workbench.keys is deprecated: import request_key from workbench.plugin", DeprecationWarning, stacklevel=2
)
