"""Identity disclosure: reference shares in, alignment metrics out."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import Any

from workbench.files.csv_input import CsvInputError, ImportError_, chunks, read_rows, real
from workbench.methods.identity.intervals import PROMPT, coverage_fields, difference_fields, mean_fields
from workbench.methods.identity.metrics import compare_to_baseline, coverage, mean_share
from workbench.methods.identity.records import (
    Coverage,
    ExplanationWord,
    IdentityRecord,
    MeanShare,
    MeanShareVsBaseline,
    MeanShareWhenProbe,
    Rate,
)
from workbench.metrics.intervals import interval_fields
from workbench.metrics.records import with_adjusted_p
from workbench.store.current_lists import counts_now
from workbench.store.db import transaction
from workbench.store.requests import answers
from workbench.store.requests.studies import ensure_study, study_names_by_id, study_rows

# An answer no plan asks any more (its model removed from the study file, its prompt dropped) is
# kept, not counted: every read of the outputs is of the current ones.
CURRENT = counts_now("o", "request_key")


def import_references(conn: sqlite3.Connection, study: str, path: Path, progress=None) -> int:
    """item, group, share (0-1), and optionally count and group_total (for Coverage). Read and
    stored a chunk at a time, in one transaction: a row refused leaves nothing stored."""

    def shares() -> Iterator[tuple]:
        for line, row in read_rows(path, ("item", "group", "share"), progress):
            share = real(path, line, "share", row["share"])
            if not 0 <= share <= 1:
                raise CsvInputError(
                    f"{path}: line {line}: column 'share': expected a share between 0 and 1, got {share}"
                )
            yield (
                row["item"].strip(),
                row["group"].strip(),
                share,
                real(path, line, "count", row["count"]) if row.get("count") else None,
                real(path, line, "group_total", row["group_total"]) if row.get("group_total") else None,
            )

    stored = 0
    try:
        with transaction(conn):
            study_id = ensure_study(conn, study, "identity")
            for chunk in chunks(shares()):
                conn.executemany(
                    "INSERT OR REPLACE INTO reference_shares (study_id, item, grp, share, count, group_total) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [(study_id, *r) for r in chunk],
                )
                stored += len(chunk)
    except CsvInputError as exc:
        raise ImportError_(str(exc)) from None
    return stored


def metric_records(
    conn: sqlite3.Connection, study: str | None = None, convention: str = "paper"
) -> list[IdentityRecord]:
    """Every identity number of one study (or all), as typed records (workbench/methods/identity/records.py).
    One convention: the records name the one asked for."""
    records: list[IdentityRecord] = []
    for row in study_rows(conn, study):
        study_id, name = row.id, row.name
        outputs = conn.execute(
            "SELECT request_key, model, grp, condition, parsed, probe_label, parse_mode "
            f"FROM identity_outputs o WHERE study_id = ? AND {CURRENT}",
            (study_id,),
        ).fetchall()
        if not outputs:
            continue
        items: dict[str, list[str]] = {}
        for key, item in conn.execute(
            "SELECT r.request_key, r.item FROM identity_recommendations r JOIN "
            f"identity_outputs o ON o.request_key = r.request_key WHERE o.study_id = ? AND {CURRENT} "
            "ORDER BY r.request_key, r.rank",
            (study_id,),
        ):
            items.setdefault(key, []).append(item)
        shares: dict[str, dict[str, float]] = {}
        counts: dict[str, dict[str, float]] = {}
        totals: dict[str, float] = {}
        for item, group, share, count, total in conn.execute(
            "SELECT item, grp, share, count, group_total FROM reference_shares WHERE study_id = ?", (study_id,)
        ):
            shares.setdefault(group, {})[item] = share
            if count is not None:
                counts.setdefault(group, {})[item] = count
            if total:
                totals[group] = total
        silent = _groups_without_dialect(row.spec)
        scope = (convention, name, _prompts(conn, [o[0] for o in outputs]))
        for record in _records(scope, outputs, items, shares, counts, totals):
            if record.condition == "dialect" and record.group in silent:
                record = replace(record, no_signal=True)  # these prompts read like the baseline: no dialect to measure
            records.append(record)
        records += _word_records(conn, study_id, name, convention)
    return records


def _prompts(conn: sqlite3.Connection, keys: list[str]) -> dict[str, str]:
    """Each answer's prompt (what its interval resamples); an answer whose request is not
    held is its own prompt."""
    import json

    asked = answers.payloads(conn, keys)
    prompts = {}
    for key in keys:
        messages = json.loads(asked[key]).get("messages", []) if key in asked else []
        prompts[key] = json.dumps([m.get("content") for m in messages]) if messages else key
    return prompts


def _groups_without_dialect(spec: dict[str, Any]) -> set[str]:
    """The groups the study's template has no dialect variants for (empty when unknown)."""
    from workbench.methods.identity.templates import TemplateError, load_template

    source = spec.get("template")
    if not source:
        return set()
    try:
        return set(load_template(source).groups_without_dialect())
    except (TemplateError, OSError):
        return set()


def _word_records(conn: sqlite3.Connection, study_id: int, study: str, convention: str) -> list[ExplanationWord]:
    """Top explanation words per model and group (query words and entity names excluded)."""
    import json
    import re

    from workbench.methods.identity.metrics import explanation_words

    by_model: dict[str, list[tuple[str, str, set[str]]]] = {}
    rows = conn.execute(
        "SELECT o.model, o.grp, o.request_key, i.item, i.explanation FROM identity_outputs o "
        f"JOIN identity_recommendations i ON i.request_key = o.request_key WHERE o.study_id = ? AND {CURRENT}",
        (study_id,),
    ).fetchall()
    asked = answers.payloads(conn, (row[2] for row in rows))
    for model, group, key, item, explanation in rows:
        prompt = " ".join(m["content"] for m in json.loads(asked[key])["messages"])
        exclude = set(re.findall(r"[a-z][a-z'-]+", (prompt + " " + item).lower()))
        by_model.setdefault(model, []).append((group, explanation or "", exclude))
    records = []
    for model, explanations in sorted(by_model.items()):
        for group, words in sorted(explanation_words(explanations).items()):
            for rank, (word, score, count) in enumerate(words, start=1):
                records.append(
                    ExplanationWord(
                        convention=convention,
                        study=study,
                        model=model,
                        group=group,
                        condition="all",
                        word=word,
                        rank=rank,
                        value=score,
                        n=count,
                    )
                )
    return records


def _records(scope, outputs, items, shares, counts, totals) -> list[IdentityRecord]:
    """`scope`: (convention, study, each answer's prompt by request key)."""
    cells: dict[tuple, dict[str, Any]] = {}
    convention, study, prompt_of = scope
    for key, model, group, condition, parsed, probe, mode in outputs:
        cell = cells.setdefault(
            (model, group, condition),
            {"n": 0, "parsed": 0, "json": 0, "shares": [], "items": [], "probe": {}, "prompts": [], "asked": {}},
        )
        cell["asked"].setdefault(prompt_of[key], set()).update(items.get(key, []))
        cell["n"] += 1
        cell["parsed"] += parsed
        cell["json"] += mode == "json"
        recommended = items.get(key, [])
        cell["items"] += recommended
        value = mean_share(recommended, shares.get(group, {}))
        if value is not None:
            cell["shares"].append(value)
            cell["prompts"].append(prompt_of[key])
            if probe:
                cell["probe"].setdefault(probe, []).append(value)
        if probe:
            cell.setdefault("labels", []).append(probe)
    records: list[IdentityRecord] = []
    for (model, group, condition), cell in sorted(cells.items()):
        base = {"convention": convention, "study": study, "model": model, "group": group, "condition": condition}
        records.append(Rate(**base, metric="parse_rate", value=cell["parsed"] / cell["n"], n=cell["n"]))
        records.append(Rate(**base, metric="json_rate", value=cell["json"] / cell["n"], n=cell["n"]))
        if cell["shares"]:
            found = cell["shares"]
            interval = mean_fields(cell["prompts"], found)
            records.append(MeanShare(**base, value=sum(found) / len(found), n=len(found), **interval))
            records += _versus_baseline(base, cell, cells.get((model, group, "baseline"), {}))
        else:  # n/a, with why: a missing number must not read as a share of 0
            why = _no_share_reason(cell, shares)
            records.append(
                MeanShare(**base, value=None, n=0, na_reason=why, **interval_fields(None, None, unit=PROMPT))
            )
        if group in totals and group in counts:
            value = coverage(cell["items"], counts[group], totals[group])
            weight = {item: count / totals[group] for item, count in counts[group].items()}
            interval = coverage_fields(list(cell["asked"].values()), weight, value) if value is not None else {}
            records.append(Coverage(**base, value=value, **interval))
        labels = cell.get("labels", [])
        if labels:
            admits = labels.count("admits") / len(labels)
            records.append(Rate(**base, metric="probe_admits_rate", value=admits, n=len(labels)))
            for label, values in cell["probe"].items():
                mean = sum(values) / len(values)
                records.append(MeanShareWhenProbe(**base, probe_label=label, value=mean, n=len(values)))
    # One family of tests per model: every group x condition against its baseline.
    with_adjusted_p(records, lambda r: isinstance(r, MeanShareVsBaseline), ("study", "model"))
    return records


def _no_share_reason(cell: dict[str, Any], shares: dict[str, dict[str, float]]) -> str:
    """Why a cell has no Mean Share (docs/methods.md, "When a number is n/a")."""
    from workbench.display.na_reasons import shown

    if not shares:
        return shown("no-references")
    if not cell["parsed"]:
        return shown("no-parsed-answer")
    return shown("unknown-items")


def _versus_baseline(base: dict[str, Any], cell: dict[str, Any], baseline_cell: dict[str, Any]) -> list[IdentityRecord]:
    """The condition's Mean Share against the baseline's, or why it cannot be compared."""
    from workbench.display.na_reasons import shown

    if base["condition"] == "baseline":
        return []
    found, baseline = cell["shares"], baseline_cell.get("shares", [])
    if not baseline:
        empty = dict(difference=None, u=None, p=None, na_reason=shown("no-baseline"))
        return [MeanShareVsBaseline(**base, **empty, **interval_fields(None, None, unit=PROMPT))]
    # p is the interval's own test (one inference per estimate); the paper's Mann-Whitney U
    # over answers is kept beside it as `p_paper`, never in the model's family of tests.
    same = shown("same-shares")
    interval = difference_fields((cell["prompts"], found), (baseline_cell["prompts"], baseline), same=same)
    paper: dict[str, Any] = compare_to_baseline(found, baseline)
    numbers = {"difference": paper["difference"], "u": paper["u"], "p_paper": paper["p"]}
    if paper["p"] is None:
        numbers["p_paper_na_reason"] = same
    return [MeanShareVsBaseline(**base, **numbers, **interval)]


IDENTITY_FIELDS = [
    "study",
    "model",
    "request_key",
    "group",
    "condition",
    "prompt",
    "choices",
    "parse_mode",
    "parsed",
    "rank",
    "item",
    "explanation",
    "reference_share",
    "reference_count",
    "group_total",
    "probe_answer",
    "probe_label",
    "probe_label_source",
    "probe_rule_label",
    "probe_judge_label",
]


def identity_records(conn: sqlite3.Connection, study: str | None = None):
    """One row per recommended item of every identity answer (an answer with none: one row,
    empty rank): the exact prompt, the sampled slot values, how it was read, the group's
    reference share of the item, and the probe with its label and where the label came from.
    Mean Share, Coverage and the probe rates can be recomputed from these rows alone.
    Answers of the current plan only, in plan order, read a few hundred at a time."""
    names = study_names_by_id(conn)
    studies = [
        study_id
        for (study_id,) in conn.execute("SELECT DISTINCT study_id FROM identity_outputs")
        if study is None or names.get(study_id) == study
    ]
    requests = answers.current_requests(conn, studies, "answer")
    while chunk := list(islice(requests, 500)):
        yield from _chunk_records(conn, chunk, names)


_OUTPUT_COLUMNS = (
    "condition",
    "parse_mode",
    "parsed",
    "rank",
    "item",
    "explanation",
    "reference_share",
    "reference_count",
    "group_total",
)
_PROBE_COLUMNS = ("probe_label", "probe_label_source", "probe_rule_label", "probe_judge_label")


def _chunk_records(conn: sqlite3.Connection, chunk: list, names: dict[int, str]):
    """The export rows of these answers (key, study_id, payload_json), in their order."""
    import json

    keys = [key for key, _study_id, _payload in chunk]
    marks = ",".join("?" * len(keys))
    rows: dict[str, list[sqlite3.Row]] = {}
    for row in conn.execute(
        f"""
        SELECT o.request_key, o.model, o.grp, o.condition, o.parse_mode, o.parsed,
               i.rank, i.item, i.explanation, rs.share AS reference_share, rs.count AS reference_count,
               (SELECT MAX(t.group_total) FROM reference_shares t WHERE t.study_id = o.study_id AND t.grp = o.grp)
                   AS group_total,
               o.probe_label, o.probe_label_source, o.probe_rule_label, o.probe_judge_label
        FROM identity_outputs o
        LEFT JOIN identity_recommendations i ON i.request_key = o.request_key
        LEFT JOIN reference_shares rs ON rs.study_id = o.study_id AND rs.item = i.item AND rs.grp = o.grp
        WHERE o.request_key IN ({marks})
        ORDER BY i.rank
        """,
        keys,
    ):
        rows.setdefault(row["request_key"], []).append(row)
    probes = answers.follow_up_texts(conn, keys, "probe")
    for key, study_id, payload_json in chunk:
        if key not in rows:
            continue  # planned, not answered or not read yet
        payload = json.loads(payload_json)
        prompt = next((m["content"] for m in payload.get("messages", []) if m.get("role") == "user"), None)
        choices = json.dumps(payload.get("meta", {}).get("choices", {}), ensure_ascii=False)
        for row in rows[key]:
            yield {
                "study": names[study_id],
                "model": row["model"],
                "request_key": key,
                **{column: row[column] for column in _OUTPUT_COLUMNS},
                "probe_answer": probes.get(key),
                **{column: row[column] for column in _PROBE_COLUMNS},
                "group": row["grp"],
                "prompt": prompt,
                "choices": choices,
            }
