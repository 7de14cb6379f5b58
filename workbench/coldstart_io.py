"""Cold-start rankings in and out: CSV import, the benchmark's raw JSON, metric records."""

from __future__ import annotations

import csv
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from store.queue import transaction
from workbench.choice_io import ImportError_, ensure_study
from workbench.metrics.coldstart import divergence_records

RANKING_COLUMNS = ("model", "seed", "persona_category", "persona", "rank", "item")
RANKING_FIELDS = ["study", "model", "seed", "persona_category", "persona", "rank", "item", "surface", "match_score"]


def import_rankings(conn: sqlite3.Connection, study: str, path: Path) -> dict[str, int]:
    """model, seed, persona_category, persona (`neutral` for the baseline), rank, item."""
    if not path.exists():
        raise ImportError_(f"{path}: no such file")
    rows = []
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in RANKING_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ImportError_(f"{path}: missing column(s) {', '.join(missing)}; expected a header with "
                               f"{', '.join(RANKING_COLUMNS)}")
        for line, row in enumerate(reader, start=2):
            try:
                seed, rank = int(row["seed"]), int(row["rank"])
            except ValueError:
                raise ImportError_(f"{path}: line {line}: seed and rank must be whole numbers") from None
            category = "neutral" if row["persona"] == "neutral" else row["persona_category"]
            rows.append((row["model"], seed, category, row["persona"], rank, row["item"],
                         row.get("surface") or row["item"], float(row["match_score"]) if row.get("match_score") else None))
    return store_rankings(conn, study, rows)


def store_rankings(conn: sqlite3.Connection, study: str, rows: list[tuple]) -> dict[str, int]:
    study_id = ensure_study(conn, study)
    with transaction(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO rankings (study_id, model, seed, persona_category, persona, rank, item, surface, "
            "match_score) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [(study_id, *row) for row in rows])
    lists = {(r[0], r[1], r[2], r[3]) for r in rows}
    return {"rows": len(rows), "lists": len(lists)}


_RAW_NAME = re.compile(r"^(?P<model>.+?)_(?P<dataset>college|movie|music)_(?P<context>.*)_(?P<seed>\d+)$")


def raw_result_rows(path: Path) -> Iterator[tuple]:
    """Rows from one of the cold-start benchmark's raw result files
    (`<model>_<dataset>_<context>_<seed>.json`); the model is `<model>_<dataset>_<context>`."""
    match = _RAW_NAME.match(path.stem)
    if not match:
        raise ImportError_(f"{path}: expected a name like gemma3_1b_movie_action_movie_fan_0.json")
    model = f"{match['model']}_{match['dataset']}_{match['context']}"
    seed = int(match["seed"])
    data = json.loads(path.read_text("utf-8"))
    for category, block in data.items():
        entries = [("neutral", "neutral", block)] if category == "neutral" else [
            (category, persona, value) for persona, value in block.items()]
        for cat, persona, value in entries:
            for rank, item in enumerate(value.get("recommended_list", []), start=1):
                yield (model, seed, cat, persona, rank, item, item, None)


def ranking_lists(conn: sqlite3.Connection, study_id: int) -> dict[tuple, list[str]]:
    lists: dict[tuple, list[str]] = {}
    for model, seed, category, persona, item in conn.execute(
            "SELECT model, seed, persona_category, persona, item FROM rankings WHERE study_id = ? "
            "ORDER BY model, seed, persona_category, persona, rank", (study_id,)):
        lists.setdefault((model, seed, category, persona), []).append(item)
    return lists


def metric_records(conn: sqlite3.Connection, study: str | None = None) -> list[dict[str, Any]]:
    where, args = ("WHERE name = ?", (study,)) if study else ("", ())
    records: list[dict[str, Any]] = []
    for study_id, name in conn.execute(f"SELECT id, name FROM studies {where} ORDER BY name", args).fetchall():
        lists = ranking_lists(conn, study_id)
        if lists:
            records += divergence_records(name, lists)
    return records


def ranking_records(conn: sqlite3.Connection, study: str | None = None):
    where, args = ("WHERE s.name = ?", (study,)) if study else ("", ())
    for row in conn.execute(
            f"SELECT s.name AS study, r.model, r.seed, r.persona_category, r.persona, r.rank, r.item, r.surface, "
            f"r.match_score FROM rankings r JOIN studies s ON s.id = r.study_id {where} "
            f"ORDER BY s.name, r.model, r.seed, r.persona_category, r.persona, r.rank", args):
        yield dict(row)
