"""`workbench report` on a cold-start and an identity study: each method's section, no external
resource, and the numbers of `workbench metrics --format json`."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from openai_server import ServerConfig

from workbench.cli import main


class Outline(HTMLParser):
    """Headings, external references and scripts of an HTML report."""

    def __init__(self):
        super().__init__()
        self.headings, self.external, self.scripts, self._in_heading = [], [], 0, False

    def handle_starttag(self, tag, attrs):
        self.scripts += tag == "script"
        self.external += [v for k, v in attrs if k in ("src", "href") and v and v.startswith(("http:", "https:"))]
        self._in_heading = tag in ("h2", "h3")

    def handle_endtag(self, tag):
        self._in_heading = False

    def handle_data(self, data):
        if self._in_heading and data.strip():
            self.headings.append(data.strip())


def _report(db, study, tmp_path, capsys):
    out = tmp_path / f"{study}.html"
    assert main(["report", "--db", str(db), "--study", study, "-o", str(out)]) == 0
    outline = Outline()
    outline.feed(out.read_text())
    assert outline.scripts == 0 and outline.external == []
    capsys.readouterr()
    assert main(["metrics", "--db", str(db), "--study", study, "--format", "json"]) == 0
    return outline, out.read_text(), json.loads(capsys.readouterr().out)


def test_a_coldstart_report(tmp_path, capsys):
    rankings = tmp_path / "rankings.csv"
    lines = ["model,seed,persona_category,persona,rank,item"]
    for seed in (0, 1):
        lines += [f"m,{seed},,neutral,{rank},{item}" for rank, item in enumerate("ABC", 1)]
        lines += [f"m,{seed},gender,a girl,{rank},{item}" for rank, item in enumerate("CBX" if seed else "ABC", 1)]
    rankings.write_text("\n".join(lines) + "\n")
    db = tmp_path / "cs.db"
    assert main(["import", "rankings", str(rankings), "--db", str(db), "--study", "cs"]) == 0
    outline, html, records = _report(db, "cs", tmp_path, capsys)
    assert any(h.startswith("coldstart:") for h in outline.headings) and "Reproducing these numbers" in outline.headings
    iou = next(r for r in records if r["metric"] == "iou_divergence" and r["persona"] == "a girl")
    assert f"{iou['mean']:.2f}" in html  # the divergence the metrics give, in the report's table


def test_an_identity_report(tmp_path, fake_server, capsys):
    reply = '[{"university": "Howard University", "explanation": "community"}, {"university": "MIT", "explanation": "STEM"}]'
    server = fake_server(ServerConfig(reply_text=reply))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}"]\n'
        'template = "universities"\nper_group = 3\nseed = 2\n'
    )
    db = tmp_path / "id.db"
    assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0
    outline, html, records = _report(db, "unis", tmp_path, capsys)
    assert any(h.startswith("identity:") for h in outline.headings)
    assert "Requests and answers" in outline.headings and records
    for stage in ("answer", "probe"):  # 12 of each asked, every one answered
        assert re.search(rf'<td>{stage}</td><td class="num">12</td><td class="num">12</td>', html)
