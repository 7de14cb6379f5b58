"""The one error hierarchy: everything a user can fix derives from `UserFacingError`.

It lives at the bottom layer (the store imports nothing above it) so that every
layer can raise it; the CLI catches it once, in `main()`, and prints its message
as one line (exit status 2). Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class UserFacingError(Exception):
    """Something the user can fix; str() is one line naming what and where."""


class InputError(UserFacingError, ValueError):
    """A request the store cannot carry out as asked (an unknown key, a label not in the list, ...)."""
