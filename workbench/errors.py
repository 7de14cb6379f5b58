"""The workbench's one family of errors, for every layer (the store included) and for plugins.

Everything raised on purpose derives from `WorkbenchError`. What a user can fix derives from
`UserFacingError`: its str() is one line naming what and where, the CLI prints it (exit status
2) and the app shows it; anything else keeps its traceback, as a bug should. `InputError` is a
request the workbench cannot carry out as asked. Engine errors are not the user's to fix: a
request that got no answer is retried, counted and recorded (`code` says why).

A module raising one of these imports it from here; the names are re-exported where they were
raised before, so older imports keep working.
"""

from __future__ import annotations


class WorkbenchError(Exception):
    """An error the workbench raises on purpose (anything else is a bug)."""


class UserFacingError(WorkbenchError):
    """Something the user can fix; str() is one line naming what and where."""


class InputError(UserFacingError, ValueError):
    """A request the workbench cannot carry out as asked (an unknown key, a label not in the list, ...)."""


# A near-synonym once raised by the command line: the same error.
UserError = UserFacingError


# The store.


class StoreError(UserFacingError):
    """The database cannot be used as it is (newer schema, not a workbench file, ...)."""


class MethodTablesError(UserFacingError):
    """A method's tables cannot be brought up to date (read-only store, newer store, bad list)."""


class DecisionError(InputError):
    """A decision that cannot be made as asked; the message says why and what to do."""


class RegionError(UserFacingError, ValueError):
    """A region that is not in the vocabulary (and was not meant to be added)."""

    def __init__(self, message: str, value: str, suggestion: str | None = None):
        super().__init__(message)
        self.value, self.suggestion = value, suggestion


class ReviewRefused(InputError):
    """A verdict or an undo that cannot be carried out as asked; the message says why."""


class AlreadyRecorded(ReviewRefused):
    """The verdict asked for is the reviewer's standing one on this version: nothing recorded.
    Not a failure: the CLI says so and exits 0, the app notes it."""

    def __init__(self, message: str, verdict_id: int) -> None:
        super().__init__(message)
        self.verdict_id = verdict_id


class StaleVersion(ReviewRefused):
    """The list changed since the reviewer was shown it: `list_id`, the version now and the
    list now say what to show instead."""

    def __init__(self, message: str, list_id: int, version: str, names: list[str]) -> None:
        super().__init__(message)
        self.list_id, self.version, self.names = list_id, version, names


class SearchError(InputError):
    """A search query the index cannot read; the message says what to write instead."""


class ReplayRefused(InputError):
    """A decisions file that cannot be replayed here; nothing was recorded."""


# Users' files.


class FileInputError(UserFacingError, ValueError):
    """A file that cannot be imported; the message names the file, line and column."""


# Its name until API 2 (it shadowed a builtin but for the underscore).
ImportError_ = FileInputError


class CsvInputError(FileInputError):
    """A CSV file that cannot be imported as it is; the message says where and why."""


class CsvSyntaxError(WorkbenchError, ValueError):
    """Text that is not CSV as `csv.reader(strict=True)` reads it; `line` is where to look."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


class JsonInputError(UserFacingError, ValueError):
    """A JSON file that cannot be read as it is; the message names the file and why."""


class OutputRefused(UserFacingError):
    """The output path would destroy data or cannot be written; the message says why."""


# Study files and model specs.


class StudyError(UserFacingError, ValueError):
    """A study file that cannot be used; str() is a one-line explanation for the user."""


class SpecError(UserFacingError, ValueError):
    """A model spec that cannot be understood; the message says which part and why."""


class ModelNotFound(UserFacingError):
    """A spec whose model cannot be found (no such file, not a GGUF, a missing package)."""


class PlanTooLarge(UserFacingError, ValueError):
    """The plan would create more requests than allowed; nothing was stored."""


class StarterError(UserFacingError):
    pass


# Engines: a request that got no answer (retried, counted, recorded; not the user's to fix).


class EngineError(WorkbenchError):
    """A request that did not produce a completion.

    `code` is a short stable label (http_429, http_500, timeout, connection,
    bad_response, context_overflow, ...) used for counting in `status`.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        stops_model: bool = False,
    ):
        super().__init__(message)
        self.code = code
        self.retryable = retryable
        self.retry_after = retry_after
        # No server will answer this model (every replica refused it): stop the model and
        # leave its requests pending, none failed.
        self.stops_model = stops_model

    def __str__(self) -> str:
        return f"{self.code}: {self.args[0]}"


class NotExact(EngineError):
    """No endpoint can score this prompt exactly. `stops_model`: none can score any
    prompt (no endpoint returns echoed log-probs at all)."""

    def __init__(self, message: str, prompt: str, *, stops_model: bool = False):
        super().__init__("not_exact", message, retryable=False, stops_model=stops_model)
        self.prompt = prompt


class Refusal(EngineError):
    """A server refused the model (see `refusal`): its endpoint is down for it."""


class NoneLeft(WorkbenchError):
    """No endpoint is left that this request may be sent to."""


class AllRefused(NoneLeft):
    """Every endpoint of the pool refused the model: none is left to send a request to."""


class DamagedCopy(WorkbenchError, OSError):
    """A cached copy that is not what was recorded, and cannot be made again here."""


# Methods.


class MethodConflict(WorkbenchError, ValueError):
    """A method refused at registration: its name or one of its keys is another's."""


class GazetteerError(UserFacingError, ValueError):
    """A gazetteer file that cannot be read; the message names the file and line."""


class TemplateError(UserFacingError, ValueError):
    """A template that cannot be rendered; the message names the template and the placeholder."""


# Reading results.


class EvidenceError(UserFacingError):
    """A query that names no number: an unknown metric, topic, model or target (one line)."""


class CompareError(UserFacingError):
    """Models that cannot be compared: one line, exit status 2."""


class PlanError(UserFacingError):
    """A plan that cannot be made from what was given: one line, exit status 2."""


class TransferError(UserFacingError):
    """An import or export refused before or while it ran; nothing was changed."""


class NoSuchStudy(WorkbenchError, LookupError):
    pass
