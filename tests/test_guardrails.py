"""Numbers that cannot be computed read `n/a` with their reason, never as a 0 or a 1 that
looks like a finding; every finding shows what it rests on (n, slots) and its adjusted p.

Each case is a tiny store built through the command line, read back as records
(`workbench metrics --format json`) and as the table a user reads (`workbench metrics`)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from helpers import run_cli

# -- helpers -------------------------------------------------------------------


def write_csv(path: Path, header: list[str], rows: list[list]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def records_of(db: Path, *extra: str) -> list[dict]:
    out = run_cli("metrics", "--db", str(db), "--format", "json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def table_of(db: Path, *extra: str) -> str:
    """`workbench metrics` as a user reads it, runs of spaces (table padding) made one."""
    out = run_cli("metrics", "--db", str(db), *extra)
    assert out.returncode == 0, out.stderr
    return "\n".join(" ".join(line.split()) for line in out.stdout.splitlines())


def one(records: list[dict], **fields) -> dict:
    found = [r for r in records if all(r.get(k) == v for k, v in fields.items())]
    assert len(found) == 1, (fields, found)
    return found[0]


def import_mentions(tmp_path: Path, db: Path, lists: list[tuple[str, str, list[str]]], name: str = "m.csv") -> None:
    """ChoiceEval lists: (cluster, question id, ranked entities), model m, topic shoes."""
    rows = []
    for cluster, question, entities in lists:
        if not entities:
            rows.append(["m", "shoes", cluster, question, 1, "", ""])
        rows += [["m", "shoes", cluster, question, 1, rank, e] for rank, e in enumerate(entities, start=1)]
    path = write_csv(
        tmp_path / name, ["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"], rows
    )
    done = run_cli("import", "mentions", str(path), "--db", str(db), "--study", "shoes")
    assert done.returncode == 0, done.stderr


def import_regions(tmp_path: Path, db: Path, regions: dict[str, str]) -> None:
    path = write_csv(tmp_path / "regions.csv", ["name", "region"], [[n, r] for n, r in regions.items()])
    done = run_cli("import", "entities", str(path), "--db", str(db))
    assert done.returncode == 0, done.stderr


# -- 1. cold-start: a neutral list with no catalog item -------------------------


def coldstart_store(tmp_path: Path, neutral: list[str]) -> Path:
    """Two seeds; the neutral answers are `neutral` (one per seed), a woman's name catalog films."""
    write_csv(tmp_path / "cat.csv", ["title"], [["The Matrix"], ["Oldboy"], ["Amelie"]])
    rows = []
    for seed, answer in enumerate(neutral):
        rows.append(["m", seed, "", "neutral", answer])
        rows.append(["m", seed, "gender", "a woman", "1. The Matrix\n2. Amelie"])
        rows.append(["m", seed, "gender", "a man", "1. Oldboy\n2. The Matrix"])
    path = write_csv(tmp_path / "responses.csv", ["model", "seed", "persona_category", "persona", "response"], rows)
    db = tmp_path / "cs.db"
    done = run_cli(
        "import", "responses", str(path), "--catalog", str(tmp_path / "cat.csv"), "--db", str(db), "--study", "cs"
    )
    assert done.returncode == 0, done.stderr
    return db


def test_divergence_from_a_neutral_list_without_catalog_items_is_na(tmp_path):
    db = coldstart_store(tmp_path, ["1. Some Film Nobody Catalogued\n2. Another One", "I cannot recommend films."])
    for convention in ("paper", "original"):
        records = records_of(db, "--convention", convention)
        for metric in ("iou", "serp", "prag"):
            for persona in ("a woman", "a man"):
                r = one(records, metric=f"{metric}_divergence", persona=persona)
                assert (r["mean"], r["std"], r["ci_low"], r["ci_high"]) == (None, None, None, None)
                assert r["n"] == 0 and r["seeds_without_neutral"] == 2
                assert r["na_reason"] == "the neutral list names no catalog item"
    neutral = one(records_of(db), metric="out_of_catalog_rate", persona="neutral")
    assert neutral["mean"] == 1.0
    table = table_of(db)
    assert "gender: a woman n/a (no neutral items) · out 0%" in table
    assert "1.00 / 1.00 / 1.00" not in table
    assert "neutral (baseline) baseline · out 100% ⚠" in table
    assert "m: the neutral list names no catalog item in every seed: its divergences are n/a" in table
    assert "most of these items are out of the catalog" not in table  # the personas' items are in it
    assert "(every divergence is n/a: see the table)" in table


def test_seeds_whose_neutral_list_names_nothing_are_left_out(tmp_path):
    db = coldstart_store(tmp_path, ["1. The Matrix\n2. Amelie", "Nothing from your list, sorry."])
    r = one(records_of(db), metric="iou_divergence", persona="a woman")
    # seed 0 alone: the woman's list equals the neutral one (divergence 0); seed 1 is left out
    assert (r["mean"], r["n"], r["seeds_without_neutral"]) == (0.0, 1, 1)
    assert r["ci_low"] is None and r["ci_na_reason"] == "1 seed"
    table = table_of(db)
    assert "gender: a woman 0.00 / 0.00 / 0.00 · 1 seed · out 0%" in table
    assert "m: the neutral list names no catalog item in 1 seed(s): those seeds are left out" in table
