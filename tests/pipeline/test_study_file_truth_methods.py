"""The study file is the truth for cold-start, identity and entity studies too: a model removed
from the file (or a seed, a group's prompts, a template dropped) no longer counts on any surface,
its answers kept; added back, they count again without asking the server twice. Imported data
(rankings, reference shares, scores) is not a planned request and keeps counting.

Each sequence is compared with a fresh run of the edited file into an empty store on `metrics
--format json`, the method's exports, `status --json` and the report (its store's path and times left out).
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path

import pytest
from helpers import run_cli
from openai_server import ServerConfig

ENTITY = Path(str(files("workbench.assets").joinpath("studies", "entity")))
BRANDS = ("Nike", "Adidas", "Asics", "Brooks", "Hoka", "New Balance", "Saucony", "Puma")  # the server's answers


def coldstart(path: Path, url: str, models, seeds: int = 2) -> Path:
    catalog = path.parent / "brands.csv"
    catalog.write_text("title,origin\n" + "".join(f"{b},{'US' if i % 2 else 'EU'}\n" for i, b in enumerate(BRANDS)))
    path.write_text(
        'name = "s"\nmethod = "coldstart"\n'
        f"models = {json.dumps([f'openai:{m}@{url}' for m in models])}\n"
        f'catalog = "brands.csv"\nk = 3\nseeds = {seeds}\nitem_noun = "brands"\n'
        '[attributes]\ngender = ["a girl", "a boy"]\n[generation]\ntemperature = 0.7\nmax_tokens = 64\n'
    )
    return path


def identity(path: Path, url: str, models, per_group: int = 2) -> Path:
    path.write_text(
        'name = "s"\nmethod = "identity"\n'
        f"models = {json.dumps([f'openai:{m}@{url}' for m in models])}\n"
        f'template = "universities"\nper_group = {per_group}\nseed = 2\nstructured = false\n'
    )
    return path


def entity(path: Path, url: str, models, templates: int = 3) -> Path:
    path.write_text(
        'name = "s"\nmethod = "entity"\n'
        f"models = {json.dumps([f'openai:{m}@{url}' for m in models])}\n"
        f'task = "{ENTITY / "urgency.task.json"}"\ntemplates = "{ENTITY / "urgency_templates.csv"}"\n'
        f'entities = "{ENTITY / "countries.csv"}"\nmax_templates = {templates}\nmax_entities = 3\n'
        'group_by = ["gdp_quantile"]\n'
    )
    return path


# method -> (study writer, its exports, the keyword of the unit an edit drops, and its values before/after)
METHODS = {
    "coldstart": (coldstart, ("rankings",), "seeds", (2, 1)),
    "identity": (identity, ("identity",), "per_group", (2, 1)),
    "entity": (entity, ("scores", "entity_bias"), "templates", (3, 2)),
}
BOOT = "50"
VOLATILE = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+\+?[\d:Z]*|\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?( UTC)?")


def run(study: Path, db: Path) -> None:
    result = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr


def cli_json(*args: str):
    result = run_cli(*args)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def surfaces(db: Path, exports: tuple[str, ...]) -> dict:
    """What a user reads of the study, timestamps left out (the two stores ran at other times)."""
    report = run_cli("report", "--db", str(db), "--study", "s", "--format", "md", "--boot", BOOT)
    assert report.returncode == 0, report.stdout + report.stderr
    found = {
        "metric records": sorted(
            json.dumps(r, sort_keys=True)
            for r in cli_json("metrics", "--db", str(db), "--format", "json", "--boot", BOOT)
        ),
        "status": [
            {k: v for k, v in r.items() if k != "endpoints"} for r in cli_json("status", "--db", str(db), "--json")
        ],
        # the store's name, and the recipe's new database named after it, read alike in both
        "report": VOLATILE.sub("", re.sub(rf"\b{db.stem}(-reproduced)?\.db\b", r"store\1.db", report.stdout)),
    }
    for what in exports:
        rows = cli_json("export", "--db", str(db), "--what", what, "--format", "json")
        found[f"{what} export"] = sorted(json.dumps(r, sort_keys=True) for r in rows)
    return found


def assert_as_fresh(tmp_path: Path, study: Path, db: Path, exports: tuple[str, ...]) -> dict:
    fresh = tmp_path / f"fresh{len(list(tmp_path.glob('fresh*.db')))}.db"
    run(study, fresh)
    mine, theirs = surfaces(db, exports), surfaces(fresh, exports)
    for surface in mine:
        assert mine[surface] == theirs[surface], f"{surface} differs from a fresh run of the edited study"
    return mine


@pytest.mark.parametrize("method", list(METHODS))
def test_a_removed_model_is_superseded_and_comes_back_unasked(tmp_path, fake_server, method):
    write, exports, _unit, _values = METHODS[method]
    server = fake_server(ServerConfig())
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    run(write(study, server.base_url, ("m", "n")), db)
    removed = f"openai:n@{server.base_url}"
    assert removed in json.dumps(surfaces(db, exports)["metric records"])
    write(study, server.base_url, ("m",))
    run(study, db)
    seen = assert_as_fresh(tmp_path, study, db, exports)
    assert removed not in json.dumps(seen), "a surface still shows the removed model"

    asked = server.stats.ok
    write(study, server.base_url, ("m", "n"))
    run(study, db)
    assert server.stats.ok == asked, "the model added back was asked again"
    seen = assert_as_fresh(tmp_path, study, db, exports)
    assert removed in json.dumps(seen["metric records"])


@pytest.mark.parametrize("method", list(METHODS))
def test_a_dropped_unit_no_longer_counts(tmp_path, fake_server, method):
    """A seed (cold-start), a group's prompts (identity) or a template (entity) dropped from the file."""
    write, exports, unit, (before, after) = METHODS[method]
    server = fake_server(ServerConfig())
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    run(write(study, server.base_url, ("m",), **{unit: before}), db)
    write(study, server.base_url, ("m",), **{unit: after})
    run(study, db)
    assert_as_fresh(tmp_path, study, db, exports)
    asked = server.stats.ok
    write(study, server.base_url, ("m",), **{unit: before})
    run(study, db)
    assert server.stats.ok == asked, "the unit put back was asked again"
    assert_as_fresh(tmp_path, study, db, exports)


def metric_lines(db: Path, model: str) -> list[str]:
    records = cli_json("metrics", "--db", str(db), "--format", "json", "--boot", BOOT)
    return sorted(json.dumps(r, sort_keys=True) for r in records if model in json.dumps(r))


def test_imported_rankings_count_whatever_the_study_file_says(tmp_path, fake_server):
    """Rankings imported into a study the workbench runs have no request to supersede."""
    server = fake_server(ServerConfig())
    study, db = coldstart(tmp_path / "s.toml", server.base_url, ("m", "n")), tmp_path / "s.db"
    run(study, db)
    rankings = tmp_path / "rankings.csv"
    lines = ["model,seed,persona_category,persona,rank,item"]
    for seed in (0, 1):
        lines += [f"ext,{seed},,neutral,{rank},{item}" for rank, item in enumerate(BRANDS[:3], 1)]
        lines += [f"ext,{seed},gender,a girl,{rank},{item}" for rank, item in enumerate(BRANDS[seed : seed + 3], 1)]
    rankings.write_text("\n".join(lines) + "\n")
    assert run_cli("import", "rankings", str(rankings), "--db", str(db), "--study", "s").returncode == 0
    imported = metric_lines(db, '"ext"')
    assert any('"iou_divergence"' in line for line in imported)
    for models in (("m",), ("m", "n")):  # a model removed, then added back: the import counts throughout
        run(coldstart(study, server.base_url, models), db)
        assert metric_lines(db, '"ext"') == imported
        exported = cli_json("export", "--db", str(db), "--what", "rankings", "--format", "json")
        assert sum(r["model"] == "ext" for r in exported) == len(lines) - 1


def test_imported_reference_shares_count_after_a_model_is_removed(tmp_path, fake_server):
    """Reference shares belong to the study, not to a request: every surface with them equals a
    fresh run of the edited file given the same import."""
    server = fake_server(ServerConfig())
    study, db = identity(tmp_path / "s.toml", server.base_url, ("m", "n")), tmp_path / "s.db"
    refs = tmp_path / "refs.csv"
    refs.write_text(
        "item,group,share,count,group_total\n"
        + "".join(f"{b},{g},{0.1 + 0.1 * i},{10 + i},100\n" for i, b in enumerate(BRANDS) for g in ("Black", "White"))
    )

    def run_and_import(db: Path) -> None:
        run(study, db)
        assert run_cli("import", "references", str(refs), "--db", str(db), "--study", "s").returncode == 0

    run_and_import(db)
    identity(study, server.base_url, ("m",))
    run_and_import(db)
    fresh = tmp_path / "fresh.db"
    run_and_import(fresh)
    mine = surfaces(db, ("identity",))
    assert mine == surfaces(fresh, ("identity",))
    shares = [json.loads(r) for r in mine["metric records"] if '"mean_share"' in r and '"Black"' in r]
    assert shares and all(r["value"] is not None for r in shares)  # the references are read


def test_imported_scores_are_never_superseded(tmp_path, fake_server):
    """Scores imported as their own study (their requests stored as done, engine `import`)
    count on after the run study loses the model they were scored with."""
    server = fake_server(ServerConfig())
    study, db = entity(tmp_path / "s.toml", server.base_url, ("m", "n")), tmp_path / "s.db"
    run(study, db)
    scores = tmp_path / "scores.csv"
    ran = cli_json("export", "--db", str(db), "--what", "scores", "--format", "json")
    assert run_cli("export", "--db", str(db), "--what", "scores", "--format", "csv", "-o", str(scores)).returncode == 0
    imported = run_cli(
        "import", "scores", str(scores), "--db", str(db), "--study", "elsewhere",
        "--task", str(ENTITY / "urgency.task.json"),
    )  # fmt: skip
    assert imported.returncode == 0, imported.stdout + imported.stderr

    def elsewhere() -> tuple[list, list]:
        records = cli_json("metrics", "--db", str(db), "--study", "elsewhere", "--format", "json", "--boot", BOOT)
        rows = cli_json("export", "--db", str(db), "--what", "scores", "--format", "json")
        return sorted(json.dumps(r, sort_keys=True) for r in records), [r for r in rows if r["study"] == "elsewhere"]

    before = elsewhere()
    removed = f"openai:n@{server.base_url}"
    assert removed in json.dumps(before[0])  # the model the file names, scored elsewhere
    assert len(before[1]) == len(ran)  # every row of the file
    run(entity(study, server.base_url, ("m",)), db)
    assert removed not in json.dumps(cli_json("metrics", "--db", str(db), "--study", "s", "--format", "json"))
    assert elsewhere() == before


def test_rankings_parsed_before_their_keys_get_them_when_the_store_opens(tmp_path, fake_server):
    """A store whose rankings were parsed before they named their answer: opening it gives each
    the key of its study's answer to the same model, seed and persona, so a model removed after
    the upgrade stops counting too."""
    import sqlite3

    from workbench.store.db import connect

    server = fake_server(ServerConfig())
    study, db = coldstart(tmp_path / "s.toml", server.base_url, ("m", "n")), tmp_path / "s.db"
    run(study, db)
    query = "SELECT model, seed, persona_category, persona, rank, request_key FROM rankings ORDER BY 1, 2, 3, 4, 5"
    with sqlite3.connect(db) as old:
        keyed = old.execute(query).fetchall()
        assert all(row[-1] for row in keyed)
        old.execute("ALTER TABLE rankings DROP COLUMN request_key")
        old.execute("DELETE FROM method_migrations WHERE method = 'coldstart' AND name = 'ranking_keys'")
    old.close()
    conn = connect(db)
    assert list(map(tuple, conn.execute(query))) == keyed
    conn.close()
    run(coldstart(study, server.base_url, ("m",)), db)
    assert_as_fresh(tmp_path, study, db, ("rankings",))
