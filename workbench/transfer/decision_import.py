"""`workbench import decisions FILE`: the decisions `export --what decisions --format json`
wrote in one store, made again in another (store/decisions/replay.py), so that a fresh run of
a reviewed study reproduces its report. The core's import kind, beside the methods' own."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from workbench.files.csv_input import ImportError_, read_text
from workbench.methods.kinds import ImportKind
from workbench.store.errors import InputError
from workbench.text.words import plural

EXPORT = "`workbench export --db DB --what decisions --format json -o decisions.json`"


def read_entries(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(FILE:LINE, record) of each decision in the JSON export, the line its record starts on."""
    if path.suffix.lower() == ".csv":
        raise ImportError_(f"{path}: decisions are imported from the JSON export ({EXPORT})")
    try:
        text = read_text(path)
    except OSError as exc:
        raise ImportError_(f"{path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:  # its message ends "starting at" and wants the place said after it
        at = f"{exc.msg.rstrip(': ')}{'' if exc.msg.endswith(' at') else ' at'} line {exc.lineno} column {exc.colno}"
        raise ImportError_(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({at}); decisions come from {EXPORT}") from None
    if not isinstance(data, list):
        raise ImportError_(f"{path}:1: expected the array of decisions {EXPORT} writes")
    decoder, at, out = json.JSONDecoder(), text.index("[") + 1, []
    for record in data:
        while text[at] in " \t\r\n,":
            at += 1
        where = f"{path}:{text.count(chr(10), 0, at) + 1}"
        _, at = decoder.raw_decode(text, at)
        if not isinstance(record, dict) or not {"kind", "who", "at"} <= record.keys():
            raise ImportError_(f"{where}: not a decision (a record with kind, who, at, ...) as {EXPORT} writes")
        _check_time(where, record["at"])
        out.append((where, record))
    return out


def _check_time(where: str, at: Any) -> None:
    """`at` orders the log and tells one decision from another: an ISO time, as the export writes it."""
    try:
        datetime.fromisoformat(at)
    except (TypeError, ValueError):
        raise ImportError_(
            f"{where}: `at` takes the ISO time the decision was made (2026-01-31T09:30:00.000+00:00), not {at!r}"
        ) from None


def _run(conn, path: Path, options: dict[str, Any]) -> list[str]:
    from workbench.store.decisions.replay import replay_decisions

    if options.get("study") is not None:
        raise ImportError_(
            f"{path}: import decisions takes no --study: each decision names its own study, found here by name"
        )
    entries = read_entries(path)
    try:
        done = replay_decisions(conn, entries)
    except InputError as exc:
        raise ImportError_(str(exc)) from None
    c = done.counts
    made = c["verdict"] + c["entity decision"] + c["correction"]
    if made:
        kinds = [plural(c[k], k) for k in ("verdict", "entity decision", "correction") if c[k]]
        listed = kinds[0] if len(kinds) == 1 else f"{', '.join(kinds[:-1])} and {kinds[-1]}"
        lines = [
            f"Recorded {plural(made, 'decision')} from {path.name}: {listed}, "
            "each with its who, when and why (undo takes one back as if made here)."
        ]
    elif c["kept undone"] or done.refused:
        lines = [f"Nothing new from {path.name}."]
    else:
        lines = [f"Nothing new from {path.name}: every decision in it is already in this database."]
    notes = [
        (c["present"], "already in this database, not recorded again"),
        (c["in effect"], "already in effect here (this database already reads as each left the other), not recorded"),
        (c["kept undone"], "taken back here since: kept undone (undo here is a decision of this database)"),
        (c["undone"], "taken back in the other database, not made again"),
        (c["lapse"], "adjudication lapse(s) that follow from the verdicts"),
        (c["other"], "record(s) of a kind this version does not know, not replayed"),
    ]
    lines += [f"{n} {what}." for n, what in notes if n]
    lines += done.refused
    return lines


IMPORTS = (
    ImportKind(
        "decisions",
        "every human decision of another database (`export --what decisions --format json`):\n"
        "verdicts, adjudications, merges, splits, renames, forbids, regions, catalog-match and\n"
        "probe corrections, made again with their who, when and why; found by study, model,\n"
        "question and answer, never by row ids. Twice records nothing new, nor brings back what was\n"
        "undone here since; a verdict whose answer reads otherwise here, or an entity decision whose\n"
        "entities stand otherwise here, is refused alone. No --study: each decision names its own",
        _run,
        needs_study=False,
        creates_store=False,
    ),
)
