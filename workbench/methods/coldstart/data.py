"""Cold-start rankings in and out: CSV import, the benchmark's raw JSON, metric records."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from workbench.files.csv_input import CHUNK, CsvInputError, ImportError_, read_rows, real, whole
from workbench.methods.coldstart import match_reviews
from workbench.methods.coldstart.catalog import FIRST, NOT_AN_ITEM, REPEAT
from workbench.methods.coldstart.metrics import divergence_records
from workbench.methods.coldstart.records import ColdstartRecord, Fidelity, GroupShare
from workbench.store.current_lists import counts_now
from workbench.store.db import transaction
from workbench.store.requests.staging import SeenKeys
from workbench.store.requests.studies import ensure_study, study_rows

RANKING_COLUMNS = ("model", "seed", "persona_category", "persona", "rank", "item")
RANKING_FIELDS = [
    "study",
    "model",
    "seed",
    "persona_category",
    "persona",
    "rank",
    "item",
    "surface",
    "match_score",
    "duplicate",
]


def import_rankings(conn: sqlite3.Connection, study: str, path: Path, catalog=None, progress=None) -> dict[str, int]:
    """model, seed, persona_category, persona (`neutral` for the baseline), rank, item.

    Each ranking (model x seed x persona_category x persona) in the file replaces the stored
    one whole; rankings the file does not name are kept. The file (and the catalog, when
    given) is stored in one transaction, or not at all. It is read and stored a chunk at a
    time, so a file of any size takes the memory of one chunk."""

    def rows() -> Iterator[tuple]:
        for line, row in read_rows(path, RANKING_COLUMNS, progress):
            seed, rank = whole(path, line, "seed", row["seed"]), whole(path, line, "rank", row["rank"], 0)
            category = "neutral" if row["persona"] == "neutral" else row["persona_category"]
            score = real(path, line, "match_score", row["match_score"]) if row.get("match_score") else None
            unit = (row["model"], seed, category, row["persona"])
            yield line, (*unit, rank, row["item"], row.get("surface") or row["item"], score)

    got = {"rows": 0, "lists": 0}
    with transaction(conn), _Staged(conn, study) as staged:
        for chunk, refused in _chunks(rows()):
            twice = staged.ranks.add([(line, row[:5]) for line, row in chunk])
            if twice:
                line, first, (model, seed, _category, persona, rank) = twice[0]
                raise ImportError_(
                    f"{path}: line {line}: rank {rank} appears twice in the ranking of model {model!r}, "
                    f"seed {seed}, persona {persona!r} (first on line {first}); each rank holds one item"
                )
            if refused is not None:
                raise refused
            staged.store(chunk, got)
        match_reviews.reapply(conn, staged.study_id)  # reviewers' corrections outlive re-parsing
        if catalog is not None:  # mean catalog rank and group shares need it
            store_catalog(conn, study, catalog)
    return got


def _chunks(rows: Iterator[tuple]) -> Iterator[tuple[list[tuple], ImportError_ | None]]:
    """Rows a chunk at a time; a refused row ends the last chunk, given with it, so that what
    the rows before it call for (a rank given twice) is refused first."""
    chunk: list[tuple] = []
    try:
        for row in rows:
            chunk.append(row)
            if len(chunk) >= CHUNK:
                yield chunk, None
                chunk = []
    except CsvInputError as exc:
        yield chunk, ImportError_(str(exc))
        return
    yield chunk, None


class _Staged:
    """The rankings an import stores, a chunk at a time in its transaction: a ranking the file
    names replaces the stored one when the file first names it, never rows of the same file."""

    def __init__(self, conn: sqlite3.Connection, study: str) -> None:
        self.conn, self.study = conn, study

    def __enter__(self) -> _Staged:
        self.study_id = ensure_study(self.conn, self.study, "coldstart")
        self.units, self.ranks = SeenKeys(self.conn, 4), SeenKeys(self.conn, 5)
        return self

    def __exit__(self, *exc) -> None:
        self.units.close()
        self.ranks.close()

    def store(self, chunk: list[tuple], got: dict[str, int]) -> None:
        """(line, (model, seed, category, persona, rank, item, surface, score[, duplicate])) rows."""
        again = {line for line, _first, _key in self.units.add([(line, row[:4]) for line, row in chunk])}
        new = list(dict.fromkeys(row[:4] for line, row in chunk if line not in again))
        self.conn.executemany(
            "DELETE FROM rankings WHERE study_id = ? AND model = ? AND seed = ? AND persona_category = ? "
            "AND persona = ?",
            [(self.study_id, *unit) for unit in new],
        )
        # OR REPLACE: rows given twice for one rank keep the last, as store_rankings does.
        self.conn.executemany(
            "INSERT OR REPLACE INTO rankings (study_id, model, seed, persona_category, persona, rank, item, surface, "
            "match_score, duplicate) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(self.study_id, *row, 0) if len(row) == 8 else (self.study_id, *row) for _line, row in chunk],
        )
        got["rows"] += len(chunk)
        got["lists"] += len(new)


def store_rankings(
    conn: sqlite3.Connection, study: str, rows: list[tuple], keys: dict[tuple, str] | None = None
) -> dict[str, int]:
    """Rows: (model, seed, category, persona, rank, item or None, surface, match_score[, duplicate]).

    A ranking (model x seed x category x persona) is one unit: the rows given for it replace
    every stored row of it, so a shorter list leaves none of the longer one behind. `keys`: the
    request each ranking was read from (by unit), which it counts with (none: imported)."""
    lists = list(dict.fromkeys((r[0], r[1], r[2], r[3]) for r in rows))
    with transaction(conn):
        study_id = ensure_study(conn, study, "coldstart")
        conn.executemany(
            "DELETE FROM rankings WHERE study_id = ? AND model = ? AND seed = ? AND persona_category = ? "
            "AND persona = ?",
            [(study_id, *unit) for unit in lists],
        )
        # OR REPLACE: rows given twice for one rank (a study listing a seed twice) keep the last, as before.
        conn.executemany(
            "INSERT OR REPLACE INTO rankings (study_id, model, seed, persona_category, persona, rank, item, surface, "
            "match_score, duplicate) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(study_id, *row, 0) if len(row) == 8 else (study_id, *row) for row in rows],
        )
        conn.executemany(
            "UPDATE rankings SET request_key = ? WHERE study_id = ? AND model = ? AND seed = ? "
            "AND persona_category = ? AND persona = ?",
            [(key, study_id, *unit) for unit, key in (keys or {}).items()],
        )
        match_reviews.reapply(conn, study_id)  # reviewers' corrections outlive re-parsing
    return {"rows": len(rows), "lists": len(lists)}


# A ranking read from a request no plan asks any more (its model removed from the study file, its
# seed dropped) is kept, not counted; an imported one always counts.
CURRENT = counts_now("rankings", "request_key")

_RAW_NAME = re.compile(r"^(?P<model>.+?)_(?P<dataset>college|movie|music)_(?P<context>.*)_(?P<seed>\d+)$")


def raw_result_rows(path: Path) -> Iterator[tuple]:
    """Rows from one of the cold-start benchmark's raw result files
    (`<model>_<dataset>_<context>_<seed>.json`); the model is `<model>_<dataset>_<context>`."""
    match = _RAW_NAME.match(path.stem)
    if not match:
        raise ImportError_(f"{path}: expected a name like gemma3_1b_movie_action_movie_fan_0.json")
    model = f"{match['model']}_{match['dataset']}_{match['context']}"
    seed = int(match["seed"])
    from workbench.files.json_input import load_json

    data = load_json(path)
    for category, block in data.items():
        entries = (
            [("neutral", "neutral", block)]
            if category == "neutral"
            else [(category, persona, value) for persona, value in block.items()]
        )
        for cat, persona, value in entries:
            for rank, item in enumerate(value.get("recommended_list", []), start=1):
                yield (model, seed, cat, persona, rank, item, item, None)


def ranking_lists(conn: sqlite3.Connection, study_id: int) -> dict[tuple, list[str]]:
    """Recommended catalog items per (model, seed, category, persona), in rank order;
    out-of-catalog items are not part of the list (they count in fidelity metrics)."""
    lists: dict[tuple, list[str]] = {}
    for model, seed, category, persona, item in conn.execute(
        f"SELECT model, seed, persona_category, persona, item FROM rankings WHERE study_id = ? AND {CURRENT} "
        "ORDER BY model, seed, persona_category, persona, rank",
        (study_id,),
    ):
        items = lists.setdefault((model, seed, category, persona), [])
        if item is not None:
            items.append(item)
    return lists


def import_responses(
    conn: sqlite3.Connection, study: str, path: Path, catalog_path: Path, threshold: float | None = None, progress=None
) -> dict[str, int]:
    """Raw texts (model, seed, persona_category, persona, response) parsed against the catalog,
    read, parsed and stored a chunk at a time in one transaction."""
    from workbench.methods.coldstart.catalog import DEFAULT_THRESHOLD, load_catalog, match_items

    try:
        catalog = load_catalog(catalog_path)
    except (OSError, ValueError) as exc:
        raise ImportError_(str(exc)) from None  # names the file

    def responses() -> Iterator[tuple]:
        for line, row in read_rows(path, ("model", "seed", "persona_category", "persona", "response"), progress):
            seed = whole(path, line, "seed", row["seed"])
            category = "neutral" if row["persona"] == "neutral" else row["persona_category"]
            yield line, (row["model"], seed, category, row["persona"], row["response"])

    got = {"rows": 0, "lists": 0, "out_of_catalog": 0, "repeats": 0, "not_items": 0}
    with transaction(conn), _Staged(conn, study) as staged:
        answered = SeenKeys(conn, 4)
        try:
            for chunk, refused in _chunks(responses()):
                twice = answered.add([(line, response[:4]) for line, response in chunk])
                if twice:  # two answers for one ranking: their items would mix
                    line, first, (model, seed, _category, persona) = twice[0]
                    raise ImportError_(
                        f"{path}: line {line}: a second response for model {model!r}, seed {seed}, persona "
                        f"{persona!r} (the first is on line {first}); each ranking has one response"
                    )
                if refused is not None:
                    raise refused
                rows = []
                for line, (model, seed, category, persona, text) in chunk:
                    matches = match_items(text, catalog, threshold or DEFAULT_THRESHOLD)
                    unit = (model, seed, category, persona)
                    rows += [(line, (*unit, m.rank, m.item, m.surface, m.score, m.code)) for m in matches]
                    got["out_of_catalog"] += sum(m.item is None and m.code == FIRST for m in matches)
                    got["repeats"] += sum(m.code == REPEAT for m in matches)
                    got["not_items"] += sum(m.code == NOT_AN_ITEM for m in matches)
                    if not matches:  # an answer with no item at all is an empty list (rank 0 marks it)
                        rows.append((line, (*unit, 0, None, "", 0.0, 0)))
                staged.store(rows, got)
        finally:
            answered.close()
        match_reviews.reapply(conn, staged.study_id)
        store_catalog(conn, study, catalog)
    return got


def store_catalog(conn: sqlite3.Connection, study: str, catalog) -> None:
    with transaction(conn):
        study_id = ensure_study(conn, study, "coldstart")
        conn.execute("DELETE FROM catalog_items WHERE study_id = ?", (study_id,))
        conn.executemany(
            "INSERT INTO catalog_items (study_id, position, item, attributes_json) VALUES (?, ?, ?, ?)",
            [
                (study_id, i, item, json.dumps(catalog.attributes.get(item, {})))
                for i, item in enumerate(catalog.items, start=1)
            ],
        )


def metric_records(
    conn: sqlite3.Connection, study: str | None = None, convention: str = "paper"
) -> list[ColdstartRecord]:
    """Every cold-start number of one study (or all), as typed records (workbench/methods/coldstart/records.py)."""
    records: list[ColdstartRecord] = []
    for row in study_rows(conn, study):
        lists = ranking_lists(conn, row.id)
        if lists:
            records += divergence_records(row.name, lists, convention)
            records += fidelity_records(conn, row.id, row.name, convention)
    return records


def fidelity_records(
    conn: sqlite3.Connection, study_id: int, study: str, convention: str = "paper"
) -> list[Fidelity | GroupShare]:
    """Per model x persona, mean and population std over seeds of: out-of-catalog rate,
    diversity (unique / total items), mean catalog rank and, for each catalog attribute
    value, the share of recommended items carrying it (group_share)."""
    from workbench.methods.coldstart.metrics import spread

    positions, attributes = {}, {}
    for position, item, attrs in conn.execute(
        "SELECT position, item, attributes_json FROM catalog_items WHERE study_id = ?", (study_id,)
    ):
        positions[item], attributes[item] = position, json.loads(attrs)
    per_list: dict[tuple, list[tuple]] = {}
    for model, seed, category, persona, item, code in conn.execute(
        f"SELECT model, seed, persona_category, persona, item, duplicate FROM rankings WHERE study_id = ? AND {CURRENT}",
        (study_id,),
    ):
        per_list.setdefault((model, category, persona, seed), []).append((item, code))
    grouped: dict[tuple, dict[str, list[float]]] = {}
    for (model, category, persona, _seed), rows in per_list.items():
        values = grouped.setdefault((model, category, persona), {})
        # Lines that name nothing are counted on their own, never as items outside the catalog.
        entries = [(item, code) for item, code in rows if code != NOT_AN_ITEM]
        values.setdefault("not_an_item_rate", []).append(1 - len(entries) / len(rows))
        entries = entries or [(None, FIRST)]  # nothing but filler: an answer with no item
        found = [item for item, _ in entries if item is not None]
        outside = [item for item, code in entries if item is None and code == FIRST]
        values.setdefault("repeat_rate", []).append(sum(code == REPEAT for _, code in entries) / len(entries))
        # An answer with no item at all (one rank-0 row) counts as fully out of catalog.
        values.setdefault("out_of_catalog_rate", []).append(len(outside) / len(entries))
        if found:
            values.setdefault("diversity", []).append(len(set(found)) / len(found))
            ranks = [positions[i] for i in dict.fromkeys(found) if i in positions]
            if ranks:
                values.setdefault("mean_catalog_rank", []).append(sum(ranks) / len(ranks))
            unique = list(dict.fromkeys(found))
            for attribute in sorted({k for i in unique for k in attributes.get(i, {})}):
                for value in sorted({str(attributes[i].get(attribute)) for i in unique if i in attributes}):
                    share = sum(1 for i in unique if str(attributes.get(i, {}).get(attribute)) == value) / len(unique)
                    values.setdefault(f"group_share|{attribute}|{value}", []).append(share)
    records: list[Fidelity | GroupShare] = []
    for (model, category, persona), values in sorted(grouped.items()):
        base = {"convention": convention, "study": study, "model": model, "persona_category": category}
        base["persona"] = persona
        for key, series in values.items():
            if key.startswith("group_share|"):
                _, attribute, value = key.split("|", 2)
                records.append(
                    GroupShare(**base, **spread(series), n=len(series), attribute=attribute, value_label=value)
                )
            else:
                records.append(Fidelity(**base, metric=key, **spread(series), n=len(series)))
    return records


def ranking_records(conn: sqlite3.Connection, study: str | None = None):
    """Every stored ranking row (of one study, or all), by study name, model, seed, persona and rank."""
    for found in study_rows(conn, study):
        for row in conn.execute(
            "SELECT model, seed, persona_category, persona, rank, item, surface, match_score, duplicate "
            f"FROM rankings WHERE study_id = ? AND {CURRENT} ORDER BY model, seed, persona_category, persona, rank",
            (found.id,),
        ):
            yield {"study": found.name, **dict(row)}


def held_rankings(conn: sqlite3.Connection, study_id: int | None = None) -> list[tuple[str, str, int]]:
    """(study, "ranking", how many) for each study holding rankings imported with no request
    behind them (`workbench status` of a store where nothing was asked)."""
    from workbench.store.requests.studies import study_names_by_id

    names = study_names_by_id(conn)
    counted = conn.execute(
        "SELECT study_id, count(*) FROM (SELECT DISTINCT study_id, model, seed, persona_category, persona "
        "FROM rankings WHERE request_key IS NULL AND study_id = COALESCE(?, study_id)) GROUP BY study_id",
        (study_id,),
    )
    return sorted((names[sid], "ranking", n) for sid, n in counted if sid in names)
