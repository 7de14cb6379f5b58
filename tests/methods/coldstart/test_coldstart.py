"""Cold-start re-ranking: IOU / SERP-MS / PRAG, imports, and the published aggregates."""

import csv
import json
import math

import pytest
from helpers import run_cli

from workbench.methods.coldstart.metrics import divergence_records, iou, mean_std, prag, serp_ms
from workbench.metrics.records import as_rows


def test_iou():
    assert iou(["a", "b", "c"], ["b", "c", "d"]) == 2 / 4
    assert iou([], []) == 0.0
    assert iou(["a"], ["b"]) == 0.0
    assert iou(["a", "a", "b"], ["a", "b"]) == 1.0  # duplicates count once


def test_serp_ms_hand_computed():
    # k = 3: weights 2*3/12, 2*2/12, 2*1/12 = 0.5, 0.333, 0.167 for ranks 1..3.
    assert serp_ms(["a", "b", "c"], ["c", "a"]) == pytest.approx(0.5 + 1 / 6)
    assert serp_ms(["a", "b", "c"], ["a", "b", "c"]) == pytest.approx(1.0)
    assert serp_ms([], ["a"]) == 0.0
    assert serp_ms(["x", "y"], ["a", "b"]) == 0.0  # disjoint
    assert serp_ms(["a", "a", "b"], ["a", "b"]) == pytest.approx(1.0)  # duplicate ignored: k = 2


def test_prag_edge_cases():
    assert prag([], ["a"]) == 0.0
    assert prag(["a"], ["a"]) == 1.0 and prag(["a"], ["a", "b"]) == 0.0
    assert prag(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert prag(["c", "b", "a"], ["a", "b", "c"]) == 0.0  # every pair reversed
    # pairs (a,x): a in I_n, x not -> 1; (a,b): a before b in I_n -> 1; (x,b): x not in I_n -> 0.
    assert prag(["a", "x", "b"], ["a", "b"]) == pytest.approx(2 / 3)
    assert prag(["x", "y"], ["a", "b"]) == 0.0


def test_divergence_records_mean_and_population_std():
    lists = {
        ("m", 0, "neutral", "neutral"): ["a", "b"],
        ("m", 1, "neutral", "neutral"): ["a", "b"],
        ("m", 0, "religion", "a Buddhist"): ["a", "b"],
        ("m", 1, "religion", "a Buddhist"): ["c", "d"],
    }
    records = {r["metric"]: r for r in as_rows(divergence_records("s", lists))}
    iou_div = records["iou_divergence"]
    assert (iou_div["mean"], iou_div["std"], iou_div["n"]) == (0.5, 0.5, 2)  # divergences 0 and 1
    assert iou_div["persona_category"] == "religion" and iou_div["persona"] == "a Buddhist"
    assert mean_std([1.0, 2.0, 3.0]) == (2.0, pytest.approx(math.sqrt(2 / 3)))


def test_import_rankings_and_metrics_json(tmp_path):
    path = tmp_path / "r.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "seed", "persona_category", "persona", "rank", "item"])
        for seed in (0, 1):
            for rank, item in enumerate(["A", "B", "C"], 1):
                writer.writerow(["m", seed, "", "neutral", rank, item])
            for rank, item in enumerate(["C", "B", "X"] if seed == 0 else ["A", "B", "C"], 1):
                writer.writerow(["m", seed, "gender", "a girl", rank, item])
    db = str(tmp_path / "c.db")
    out = run_cli("import", "rankings", str(path), "--db", db, "--study", "cs")
    assert out.returncode == 0 and "12 ranked items in 4 lists" in out.stdout
    records = json.loads(run_cli("metrics", "--db", db, "--format", "json").stdout)
    iou_div = next(r for r in records if r["metric"] == "iou_divergence")
    assert iou_div == {
        "study": "cs",
        "model": "m",
        "persona_category": "gender",
        "persona": "a girl",
        "n": 2,
        "convention": "paper",
        "metric": "iou_divergence",
        "mean": pytest.approx(0.25),
        "std": pytest.approx(0.25),
        "ci_low": None,
        "ci_high": None,
        "ci_level": 0.95,
        "n_boot": 1000,
        "ci_unit": "seed",
        # two seeds (0 and 0.5): their range [0, 0.5] was the interval (docs/methods.md, "Minimum support")
        "ci_na_reason": "2 seeds, fewer than 3",
    }
    table = run_cli("metrics", "--db", db).stdout
    assert "gender: a girl" in table and "a girl · m" in table and "0.250 ± 0.250" in table
    exported = run_cli("export", "--db", db, "--what", "rankings", "--format", "csv").stdout.splitlines()
    assert exported[0] == "study,model,seed,persona_category,persona,rank,item,surface,match_score,duplicate"
    assert len(exported) == 13


PUBLISHED_NAMES = {
    "iou_divergence": "IOU Divergence",
    "serp_divergence": "SERP MS Divergence",
    "prag_divergence": "Pragmatic Divergence",
}


@pytest.mark.parametrize(
    "convention, reproduced",
    [
        ("paper", {"iou_divergence"}),  # the paper's SERP/PRAG rank by the attribute list: they differ
        ("original", set(PUBLISHED_NAMES)),  # the original code's convention: every number, to 1e-9
    ],
)
def test_published_divergences_reproduce(tmp_path, shared_data, convention, reproduced):
    from workbench.methods.coldstart.data import ranking_lists, raw_result_rows, store_rankings
    from workbench.methods.coldstart.metrics import divergence_records as records_of
    from workbench.store.db import connect

    raw, published = shared_data / "coldstart" / "raw_results", shared_data / "coldstart" / "metric_results"
    conn = connect(tmp_path / "pub.db")
    rows = [row for path in sorted(raw.glob("*.json")) for row in raw_result_rows(path)]
    store_rankings(conn, "published", rows)
    study_id = conn.execute("SELECT id FROM studies WHERE name = 'published'").fetchone()[0]
    ours = as_rows(records_of("published", ranking_lists(conn, study_id), convention))
    assert {r["convention"] for r in ours} == {convention}
    # Their aggregates are keyed by persona only: for a name in two categories ("an American" is
    # a country and a continent) they keep the category that comes last in their files.
    category_order = list(json.loads(next(raw.glob("*.json")).read_text()))
    by_model: dict = {}
    for r in sorted(ours, key=lambda r: category_order.index(r["persona_category"])):
        by_model.setdefault(r["model"], {})[r["persona"], r["metric"]] = r
    compared = {name: [0, 0] for name in PUBLISHED_NAMES}  # [equal, different]
    for path in sorted(published.glob("*.json")):  # no published file is stale against its raw data
        theirs = json.loads(path.read_text())
        for persona, metrics in theirs.items():
            if persona == "neutral":
                continue
            for name, their_name in PUBLISHED_NAMES.items():
                mine = by_model[path.stem][persona, name]
                same = (
                    abs(mine["mean"] - metrics[their_name]["mean"]) <= 1e-9
                    and abs(mine["std"] - metrics[their_name]["std"]) <= 1e-9
                    and mine["n"] == metrics[their_name]["num_values"]
                )
                compared[name][0 if same else 1] += 1
    assert all(sum(counts) == 416 for counts in compared.values()), compared  # 16 files x 26 personas
    for name, (_equal, different) in compared.items():
        if name in reproduced:
            assert different == 0, (name, compared)
        else:
            assert different > 0, (name, compared)


def test_original_convention_by_hand():
    """The original code's orientation on a small case: ranked by the neutral list, the
    attribute list cut to its length, repeats in the neutral list counted at each rank."""
    from workbench.methods.coldstart.metrics import prag_original, serp_ms_original

    neutral, attribute = ["A", "B", "C"], ["C", "A", "D", "B"]
    # k = 3; A (rank 1) and C (rank 3) are among the first 3 attribute items, B is not.
    assert serp_ms_original(attribute, neutral) == pytest.approx((2 * 3 + 2 * 1) / (3 * 4))
    # pairs (A,B): A at 1, B at 3 -> ordered; (A,C): C at 0 < A at 1 -> not; (B,C): B at 3 > C -> not.
    assert prag_original(attribute, neutral) == pytest.approx(1 / 3)
    assert serp_ms_original([], neutral) == 0.0 and prag_original(["A"], ["A"]) == 1.0


def test_metrics_cli_names_the_convention(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(
        "model,seed,persona_category,persona,rank,item\nm,0,,neutral,1,A\nm,0,,neutral,2,B\n"
        "m,0,g,a girl,1,B\nm,0,g,a girl,2,A\n"
    )
    db = tmp_path / "c.db"
    assert run_cli("import", "rankings", str(path), "--db", str(db), "--study", "cs").returncode == 0
    for convention in ("paper", "original"):
        out = run_cli("metrics", "--db", str(db), "--format", "json", "--convention", convention)
        records = [r for r in json.loads(out.stdout) if r["metric"] == "prag_divergence"]
        assert records and all(r["convention"] == convention for r in records)
    paper = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    assert {r["convention"] for r in paper} == {"paper"}


def test_catalog_matching_keeps_out_of_catalog_and_duplicates(tmp_path):
    from workbench.methods.coldstart.catalog import load_catalog, match_items, recommended

    (tmp_path / "cat.csv").write_text(
        "title,origin\nThe Dark Knight,Western\nSeven Samurai,Japanese\nThe Matrix,Western\n"
    )
    catalog = load_catalog(tmp_path / "cat.csv")
    text = (
        "Here you go:\n1. **The Dark Knight** - a classic\n2. The Matrix (1999)\n3. Some Film Nobody Knows\n"
        "4. the dark knight\n5. Seven Samurai"
    )
    matches = match_items(text, catalog)
    assert [(m.surface, m.item, m.duplicate) for m in matches] == [
        ("The Dark Knight", "The Dark Knight", False),
        ("The Matrix", "The Matrix", False),
        ("Some Film Nobody Knows", None, False),
        ("the dark knight", "The Dark Knight", True),
        ("Seven Samurai", "Seven Samurai", False),
    ]
    assert recommended(matches) == ["The Dark Knight", "The Matrix", "Seven Samurai"]


def write_responses(path, rows) -> None:
    """A raw-responses CSV as `workbench import responses` reads it."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "seed", "persona_category", "persona", "response"])
        writer.writerows(rows)


def test_import_responses_and_fidelity_metrics(tmp_path):
    (tmp_path / "cat.csv").write_text(
        "title,origin\nThe Dark Knight,Western\nSeven Samurai,Japanese\nThe Matrix,Western\nOldboy,Korean\n"
    )
    path = tmp_path / "responses.csv"
    write_responses(
        path,
        [
            ["m", 0, "", "neutral", "1. The Dark Knight\n2. The Matrix"],
            ["m", 0, "country", "a Korean", "1. Oldboy\n2. Unknown Film\n3. The Matrix\n4. Oldboy"],
        ],
    )
    db = str(tmp_path / "r.db")
    out = run_cli("import", "responses", str(path), "--catalog", str(tmp_path / "cat.csv"), "--db", db, "--study", "cs")
    assert out.returncode == 0, out.stderr
    assert "into 6 lines: 1 item out of the catalog, 1 repeat and 0 lines naming no item" in out.stdout
    records = json.loads(run_cli("metrics", "--db", db, "--format", "json").stdout)
    korean = {(r["metric"], r.get("value_label")): r for r in records if r.get("persona") == "a Korean"}
    assert korean["out_of_catalog_rate", None]["mean"] == 0.25
    assert korean["diversity", None]["mean"] == pytest.approx(2 / 3)  # Oldboy twice among three found
    assert korean["mean_catalog_rank", None]["mean"] == pytest.approx((4 + 3) / 2)
    assert korean["group_share", "Korean"]["mean"] == 0.5 and korean["group_share", "Western"]["mean"] == 0.5
    assert korean["iou_divergence", None]["mean"] == pytest.approx(1 - 1 / 3)
    exported = run_cli("export", "--db", db, "--what", "rankings", "--format", "json").stdout
    assert '"surface": "Unknown Film"' in exported and '"item": null' in exported


def test_repeats_and_lines_naming_nothing_are_counted_apart_from_unknown_items(tmp_path):
    """A chatty answer (22 lines of "Answer", a name twice) is not 24 items outside the catalog."""
    (tmp_path / "cat.csv").write_text("title\nThe Matrix\nOldboy\n")
    path = tmp_path / "responses.csv"
    chatty = "Here are my picks:\n" + "Answer\n" * 22 + "The Matrix\nUnknown Film\nUnknown Film\nThe Matrix"
    write_responses(path, [["m", 0, "", "neutral", "1. The Matrix\n2. Oldboy"], ["m", 0, "age", "a child", chatty]])
    db = str(tmp_path / "r.db")
    out = run_cli("import", "responses", str(path), "--catalog", str(tmp_path / "cat.csv"), "--db", db, "--study", "cs")
    assert out.returncode == 0, out.stderr
    assert "into 29 lines: 1 item out of the catalog, 2 repeats and 23 lines naming no item" in out.stdout
    records = json.loads(run_cli("metrics", "--db", db, "--format", "json").stdout)
    child = {r["metric"]: r["mean"] for r in records if r.get("persona") == "a child" and "mean" in r}
    assert child["not_an_item_rate"] == pytest.approx(23 / 27)
    assert child["repeat_rate"] == pytest.approx(2 / 4)  # of The Matrix, Unknown Film, Unknown Film, The Matrix
    assert child["out_of_catalog_rate"] == pytest.approx(1 / 4)


def test_reparsing_published_responses_recovers_their_items(shared_data):
    from workbench.methods.coldstart.catalog import load_catalog, match_items, recommended

    base = shared_data / "coldstart"
    catalogs = {name: load_catalog(base / "catalogs" / f"{name}.json") for name in ("college", "movie", "music")}
    total = recovered = 0
    for path in sorted((base / "raw_results").glob("*.json")):
        catalog = next(c for name, c in catalogs.items() if f"_{name}_" in path.name)
        data = json.loads(path.read_text())
        blocks = [data["neutral"]] + [v for c, b in data.items() if c != "neutral" for v in b.values()]
        for block in blocks:
            mine = set(recommended(match_items(block["response"], catalog)))
            total += len(block["recommended_list"])
            recovered += len(set(block["recommended_list"]) & mine)
    assert recovered / total >= 0.97, f"{recovered}/{total}"


MOVIES = [
    "The Dark Knight",
    "Seven Samurai",
    "The Matrix",
    "Oldboy",
    "Amelie",
    "Spirited Away",
    "Pulp Fiction",
    "City of God",
    "Parasite",
    "Titanic",
    "The Godfather",
    "Inception",
    "Roma",
    "Am\u00e9lie Poulain",
    "Toy Story",
    "Casablanca",
    "Rashomon",
    "Jaws",
    "Alien",
    "Up",
]


@pytest.mark.slow
def test_coldstart_study_on_the_bundled_model(tmp_path):
    from conftest import rows
    from helpers import kill_run_once

    (tmp_path / "movies.csv").write_text(
        "title,origin\n"
        + "\n".join(
            f"{m},{'Asian' if m in ('Seven Samurai', 'Oldboy', 'Spirited Away', 'Parasite', 'Rashomon') else 'Western'}"
            for m in MOVIES
        )
        + "\n"
    )
    study = tmp_path / "cs.toml"
    study.write_text(
        'name = "cs"\nmethod = "coldstart"\nmodels = ["llama:default,n_ctx=1024"]\n'
        'catalog = "movies.csv"\nk = 5\nseeds = 2\nitem_noun = "movies"\n'
        '[attributes]\ngender = ["a girl", "a boy"]\n[generation]\ntemperature = 0.7\nmax_tokens = 48\n'
    )
    db = tmp_path / "cs.db"
    kill_run_once(study, db, "SELECT COUNT(*) FROM responses", 1, timeout=120)
    out = run_cli("run", str(study), "--db", str(db), "--quiet", timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "All 6 requests answered" in out.stdout  # 2 seeds x (neutral + 2 personas)
    assert rows(db, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(6, 6)]
    lists = rows(db, "SELECT COUNT(DISTINCT seed || persona) FROM rankings")
    assert lists == [(6,)]
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    girl = {r["metric"]: r for r in records if r.get("persona") == "a girl" and "value_label" not in r}
    assert {"iou_divergence", "serp_divergence", "prag_divergence", "out_of_catalog_rate"} <= set(girl)
    iou = girl["iou_divergence"]
    # Every seed counts, or is left out because its neutral list named no catalog item (the
    # bundled model's answers vary with the CPU's kernels): never silently missing.
    assert iou["n"] + iou.get("seeds_without_neutral", 0) == 2
    if iou["n"]:
        assert 0 <= iou["mean"] <= 1
    else:  # no neutral list named a catalog item on this CPU: n/a with its reason, never a 1.00
        assert iou["mean"] is None and iou["na_reason"] == "the neutral list names no catalog item"


def test_coldstart_table_in_the_app(tmp_path):
    import asyncio

    from helpers import wait_for

    from workbench.app import WorkbenchApp

    path = tmp_path / "r.csv"
    path.write_text(
        "model,seed,persona_category,persona,rank,item\nm,0,,neutral,1,A\nm,0,,neutral,2,B\n"
        "m,0,religion,a Buddhist,1,B\nm,0,religion,a Buddhist,2,C\n"
    )
    db = tmp_path / "c.db"
    assert run_cli("import", "rankings", str(path), "--db", str(db), "--study", "cs").returncode == 0

    async def scenario():
        app = WorkbenchApp(db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#coldstart-table").row_count == 2)
            baseline = [str(c) for c in app.screen.query_one("#coldstart-table").get_row_at(0)]
            assert baseline == ["neutral (baseline)", "baseline · out 0%"]
            row = [str(c) for c in app.screen.query_one("#coldstart-table").get_row_at(1)]
            # IOU 1/3 -> divergence 0.67; SERP: B at rank 1 of 2 -> 2/3, divergence 0.33; PRAG: (B, C): B in
            # I_n, C not -> 1, divergence 0.
            assert row == ["religion: a Buddhist", "0.67 / 0.33 / 0.00 · 1 seed · out 0%"]  # all in the catalog
            chart = str(app.screen.query_one("#coldstart-chart").render())
            assert "a Buddhist · m" in chart and "█" * 20 + "·" * 10 + " 0.667" in chart  # 0.667 of 30 cells
            await pilot.press("m")
            await pilot.pause()
            assert "SERP divergence" in str(app.screen.query_one("#coldstart-chart-title").render())
            assert " 0.333" in str(app.screen.query_one("#coldstart-chart").render())

    asyncio.run(scenario())


def test_an_answer_without_items_is_an_empty_list(tmp_path):
    path = tmp_path / "responses.csv"
    (tmp_path / "cat.csv").write_text("title\nThe Matrix\nOldboy\n")
    write_responses(
        path,
        [
            ["m", 0, "", "neutral", ""],  # the model said nothing
            ["m", 0, "gender", "a girl", "1. The Matrix"],
        ],
    )
    db = str(tmp_path / "e.db")
    assert (
        run_cli(
            "import", "responses", str(path), "--catalog", str(tmp_path / "cat.csv"), "--db", db, "--study", "cs"
        ).returncode
        == 0
    )
    records = json.loads(run_cli("metrics", "--db", db, "--format", "json").stdout)
    girl = next(r for r in records if r["metric"] == "iou_divergence")
    # Nothing to compare with: not a divergence of 1 (which would read as "nothing shared").
    assert girl["n"] == 0 and girl["mean"] is None and girl["na_reason"] == "the neutral list names no catalog item"


def test_reviewers_correct_catalog_matches_and_corrections_outlive_reparsing(tmp_path):
    """A matcher miss ("The Matrix 4" is not in the catalog) corrected from the CLI and in the
    app: metrics follow, a re-import keeps the correction, undo restores the matcher's view."""
    import asyncio

    from helpers import wait_for

    from workbench.app import WorkbenchApp

    (tmp_path / "cat.csv").write_text("title\nThe Matrix\nOldboy\nAmélie\n")
    path = tmp_path / "responses.csv"
    write_responses(
        path,
        [
            ["m", 0, "", "neutral", "1. The Matrix\n2. Oldboy"],
            ["m", 0, "gender", "a girl", "1. Matrix Resurrections Sequel\n2. Oldboy"],
        ],
    )
    db = str(tmp_path / "c.db")

    def load():
        assert (
            run_cli(
                "import", "responses", str(path), "--catalog", str(tmp_path / "cat.csv"), "--db", db, "--study", "cs"
            ).returncode
            == 0
        )

    def iou():
        records = json.loads(run_cli("metrics", "--db", db, "--format", "json").stdout)
        return next(r for r in records if r["metric"] == "iou_divergence")["mean"]

    load()
    listed = json.loads(
        run_cli("review", "matches", "--db", db, "--study", "cs", "--only", "unmatched", "--format", "json").stdout
    )
    assert [r["key"] for r in listed] == ["m/0/gender/a girl/1"]
    assert iou() == pytest.approx(0.5)  # {Oldboy} vs {The Matrix, Oldboy}
    out = run_cli(
        "review",
        "match",
        "--db",
        db,
        "--study",
        "cs",
        "--key",
        "m/0/gender/a girl/1",
        "--item",
        "the matrix",
        "--who",
        "ana",
    )
    assert out.returncode == 0 and "-> The Matrix" in out.stdout, out.stdout + out.stderr
    assert iou() == pytest.approx(0.0)
    load()  # the answers parsed again: the correction stays
    assert iou() == pytest.approx(0.0)
    bad = run_cli(
        "review",
        "match",
        "--db",
        db,
        "--study",
        "cs",
        "--key",
        "m/0/gender/a girl/1",
        "--item",
        "Star Wars",
        "--who",
        "ana",
    )
    assert bad.returncode == 2 and "not in the catalog" in bad.stderr + bad.stdout
    assert (
        "back to not in catalog" in run_cli("review", "undo-match", "--db", db, "--study", "cs", "--who", "ana").stdout
    )
    assert iou() == pytest.approx(0.5)

    async def scenario():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4", "c")
            table = app.screen.query_one("#match-table")
            assert await wait_for(pilot, lambda: table.row_count == 2)
            assert await wait_for(pilot, lambda: "a girl" in str(app.screen.query_one("#match-status").render()))
            assert [str(c) for c in table.get_row_at(0)][1:3] == ["Matrix Resurrections Sequel", "— not in catalog —"]
            await pilot.press("e")
            await pilot.pause()
            app.screen.query_one("Input").value = "Matrix"
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: table.row_count and str(table.get_row_at(0)[2]) == "The Matrix")
            assert str(table.get_row_at(0)[4]) == "bo"
            await pilot.press("down", "x")  # Oldboy marked out of the catalog
            assert await wait_for(pilot, lambda: str(table.get_row_at(1)[2]) == "— not in catalog —")
            await pilot.press("u")
            assert await wait_for(pilot, lambda: str(table.get_row_at(1)[2]) == "Oldboy")
            await pilot.press("escape")
            assert type(app.screen).__name__ == "ReviewScreen"

    asyncio.run(scenario())
    assert iou() == pytest.approx(0.0)  # the app's correction counts in the metrics


def test_imported_rankings_with_their_catalog_get_rank_and_group_shares(tmp_path):
    (tmp_path / "cat.csv").write_text("title,origin\nA,Western\nB,Japanese\nC,Western\n")
    path = tmp_path / "r.csv"
    path.write_text(
        "model,seed,persona_category,persona,rank,item\nm,0,,neutral,1,A\nm,0,,neutral,2,B\n"
        "m,0,g,a girl,1,C\nm,0,g,a girl,2,A\n"
    )
    db = tmp_path / "c.db"
    out = run_cli(
        "import", "rankings", str(path), "--db", str(db), "--study", "cs", "--catalog", str(tmp_path / "cat.csv")
    )
    assert out.returncode == 0 and "with its catalog of 3 items" in out.stdout
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    rank = [r for r in records if r["metric"] == "mean_catalog_rank" and r["persona"] == "a girl"]
    assert rank and rank[0]["mean"] == pytest.approx(2.0)  # C is 3rd, A 1st
    shares = {r["value_label"]: r["mean"] for r in records if r["metric"] == "group_share" and r["persona"] == "a girl"}
    assert shares.get("Western") == pytest.approx(1.0)


def test_divergences_show_the_out_of_catalog_rate_beside_them():
    """An all-out-of-catalog list diverges maximally whatever the persona: the rate says so."""
    from rich.console import Console

    from workbench import methods
    from workbench.methods.coldstart import views
    from workbench.methods.coldstart.records import Divergence, Fidelity

    def record(metric, mean, persona="female"):
        base = {"convention": "paper", "study": "s", "model": "m", "persona_category": "gender", "persona": persona}
        if metric == "out_of_catalog_rate":
            return Fidelity(**base, metric=metric, mean=mean, std=0.0, n=5)
        interval = {"ci_low": None, "ci_high": None, "ci_level": 0.95, "n_boot": 1000}
        return Divergence(**base, metric=metric, mean=mean, std=0.0, n=5, **interval)

    records = [record(f"{m}_divergence", 1.0) for m in ("iou", "serp", "prag")]
    records += [record("out_of_catalog_rate", 0.9)]
    records += [record(f"{m}_divergence", 0.2, "male") for m in ("iou", "serp", "prag")]
    records += [record("out_of_catalog_rate", 0.1, "male")]
    _header, rows = views.coldstart_table(records)
    assert rows == [
        ["gender: female", "1.00 / 1.00 / 1.00 · 5 seeds · out 90% ⚠"],
        ["gender: male", "0.20 / 0.20 / 0.20 · 5 seeds · out 10%"],
    ]
    bars = views.coldstart_bars(records, "iou")
    assert bars[0][0] == "female · m" and bars[0][2].endswith("· out 90% ⚠") and bars[1][2].endswith("· out 10%")
    console = Console(record=True, width=120)
    methods.get("coldstart").print_tables(None, None, records, console)  # `workbench metrics`
    text = console.export_text()
    assert "out 90% ⚠" in text and "most of these items are out of the catalog" in text
    # Every divergence's spread over seeds, not only the first one's (the screen cycles them).
    assert all(f"{m} divergence per attribute" in text for m in ("IOU", "SERP", "PRAG"))
    assert "1.000 ± 0.000 · out 90% ⚠" in text
