"""`workbench export --format md`: an export a person can read, headed by what it holds."""

from workbench.cli import main


def _store(tmp_path):
    mentions = tmp_path / "m.csv"
    mentions.write_text(
        "model,topic,cluster,question_id,repetition,rank,entity\n"
        "m,shoes,us,q1,1,1,Nike\nm,shoes,us,q1,1,2,<b>[/x]</b> | Co\nm,shoes,eu,q2,1,1,Adidas\n"
    )
    db = tmp_path / "a.db"
    assert main(["import", "mentions", str(mentions), "--db", str(db), "--study", "s"]) == 0
    return db


def test_records_as_a_table_under_a_header(tmp_path, capsys):
    db = _store(tmp_path)
    capsys.readouterr()
    assert main(["export", "--db", str(db), "--what", "mentions", "--format", "md", "--study", "s"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# mentions: s")
    for fact in ("**Study:** s", "**Models:** m", "**Records:** 3", "**Filters:** study s", "0 of 2 lists reviewed"):
        assert fact in text
    table = [line for line in text.splitlines() if line.startswith("| s | m | shoes")]
    assert len(table) == 3  # one row per record, every cell escaped: the pipe cannot split a row
    assert "\\<b\\>\\[/x\\]\\</b\\> \\| Co" in text


def test_metrics_as_each_methods_sections_written_whole(tmp_path, capsys):
    db = _store(tmp_path)
    out = tmp_path / "metrics.md"
    assert main(["export", "--db", str(db), "--what", "metrics", "--format", "md", "-o", str(out)]) == 0
    text = out.read_text()
    assert "**Convention:** paper" in text and "**Study:** every study in the database" in text
    assert "### choice: ChoiceEval" in text and "Preferred entity (PEIR)" in text
    assert "n/a (no regions imported)" in text
    assert "Wrote" in capsys.readouterr().err
