"""CSV meant for a spreadsheet keeps its accents: `--excel` starts it with a UTF-8 byte-order mark."""

from workbench.cli import main


def _store(tmp_path):
    mentions = tmp_path / "m.csv"
    mentions.write_text(
        "model,topic,cluster,question_id,repetition,rank,entity\nm,cafés,us,q1,1,1,María\n", encoding="utf-8"
    )
    db = tmp_path / "a.db"
    assert main(["import", "mentions", str(mentions), "--db", str(db), "--study", "s"]) == 0
    return db


def test_excel_csv_has_a_byte_order_mark_and_plain_csv_none(tmp_path, capsys):
    db = _store(tmp_path)
    for excel, name in ((True, "excel.csv"), (False, "plain.csv")):
        out = tmp_path / name
        args = ["export", "--db", str(db), "--what", "mentions", "-o", str(out)] + (["--excel"] if excel else [])
        assert main(args) == 0
        raw = out.read_bytes()
        assert raw.startswith(b"\xef\xbb\xbf") is excel
        assert "María" in raw.decode("utf-8-sig") and "cafés" in raw.decode("utf-8-sig")
    capsys.readouterr()
    assert main(["export", "--db", str(db), "--what", "mentions", "--excel"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("\ufeff") and "María" in printed


def test_json_never_gets_the_mark(tmp_path):
    db = _store(tmp_path)
    out = tmp_path / "m.json"
    assert main(["export", "--db", str(db), "--what", "mentions", "--format", "json", "--excel", "-o", str(out)]) == 0
    assert out.read_bytes().startswith(b"[")
