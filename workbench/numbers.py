"""Deprecated since 0.2: `workbench.plugin` holds what a method imports (fmt_num among it);
this module is `workbench.text.numbers`, kept importable until 0.4 (CHANGELOG.md)."""

import warnings

from workbench.text.numbers import *  # noqa: F403
from workbench.text.numbers import fmt_num  # noqa: F401

warnings.warn("workbench.numbers is deprecated: import fmt_num from workbench.plugin", DeprecationWarning, stacklevel=2)
