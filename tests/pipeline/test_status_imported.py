"""`workbench status` on a store holding only imported lists said "No requests in this
database yet", as if it were empty: it says what it holds, and that nothing was asked here."""

from __future__ import annotations

from helpers import run_cli, write_mentions


def test_status_names_the_imported_lists(tmp_path):
    db = tmp_path / "a.db"
    assert (
        run_cli("import", "mentions", write_mentions(tmp_path / "m.csv"), "--db", db, "--study", "ext").returncode == 0
    )
    out = run_cli("status", "--db", db)
    assert out.returncode == 0
    # write_mentions: 2 models x 2 topics x 2 clusters x 2 repetitions x 3 questions
    assert out.stdout.strip() == (
        "Imported data only: 48 lists in study 'ext'; nothing was asked here (`workbench run STUDY.toml --db DB` asks)."
    )
    assert "No requests in this database yet" not in out.stdout
    assert "48 lists in study 'ext'" in run_cli("status", "--db", db, "--study", "ext").stdout


def test_status_names_imported_rankings(tmp_path):
    db = tmp_path / "a.db"
    (tmp_path / "r.csv").write_text(
        "model,seed,persona_category,persona,rank,item\nm,0,movie,fan,1,A\nm,0,movie,fan,2,B\n"
    )
    assert run_cli("import", "rankings", tmp_path / "r.csv", "--db", db, "--study", "cs").returncode == 0
    assert "Imported data only: 1 ranking in study 'cs'" in run_cli("status", "--db", db).stdout


def test_status_of_an_empty_store_still_says_how_to_start(tmp_path):
    db = tmp_path / "a.db"
    (tmp_path / "e.csv").write_text("name,region\nNike,United States\n")
    assert run_cli("import", "entities", tmp_path / "e.csv", "--db", db).returncode == 0
    out = run_cli("status", "--db", db)
    assert out.stdout.startswith("No requests in this database yet. Start with `workbench run STUDY.toml --db DB`.")
