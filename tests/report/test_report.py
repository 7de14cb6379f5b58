"""`workbench report`: the HTML and Markdown an auditor hands over, read back as a reader would
(the HTML through `html.parser`: no browser), from stores built with the command line."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import run_cli
from openai_server import ServerConfig

from workbench.text.numbers import fmt_num

HOSTILE = "<b>[/x]</b> & Co"  # markup for HTML, Rich and Markdown at once, and an ampersand
PARTS = [
    "Summary",
    "The study",
    "What was asked",
    "Requests and answers",
    "Findings",
    "Limitations",
    "Review",
    "Reproducing these numbers",
    "Conventions",
]
APPENDIX = "Appendix: the questions"  # a study with questions (ChoiceEval) ends with them
# A study with extracted lists: how far the extraction holds after the review, then the brands it
# counts and each headline's answers after the questions.
VALIDITY, BRANDS = "Extraction validity", "Appendix: counted brands and their regions"
EVIDENCE = "Appendix: evidence behind the headlines"


class Page(HTMLParser):
    """What a reader of the HTML sees: headings, tables (caption and cells), figures, links."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.headings: list[tuple[str, str]] = []
        self.tables: list[dict] = []
        self.figures: list[dict] = []
        self.text: list[str] = []
        self._open: list[str] = []
        self._heading: str | None = None
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag not in ("meta", "circle", "line", "rect"):
            self._open.append(tag)
        if tag in ("h1", "h2", "h3"):
            self._heading = ""
        elif tag == "table":
            self.tables.append({"caption": "", "rows": [], "class": attributes.get("class")})
        elif tag == "tr":
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "caption":
            self._caption = []
        elif tag == "figure":
            self.figures.append({"class": attributes.get("class"), "tags": []})
        if self.figures and "figure" in self._open:
            self.figures[-1]["tags"].append((tag, attributes))

    def handle_startendtag(self, tag, attrs):  # `<line ... />`: opens nothing that would need closing
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append((tag, self._heading.strip()))
            self._heading = None
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1]["rows"][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "caption" and self._caption is not None:
            self.tables[-1]["caption"] = "".join(self._caption).strip()
            self._caption = None
        while self._open and self._open.pop() != tag:
            pass

    def handle_data(self, data):
        self.text.append(data)
        if self._heading is not None:
            self._heading += data
        if self._cell is not None:
            self._cell.append(data)
        if self._caption is not None:
            self._caption.append(data)

    def table(self, caption_start: str) -> list[list[str]]:
        found = [t["rows"] for t in self.tables if t["caption"].startswith(caption_start)]
        assert found, f"no table captioned {caption_start!r}: {[t['caption'] for t in self.tables]}"
        return found[0]

    def facts(self) -> dict[str, str]:
        return {row[0]: row[1] for t in self.tables if t["class"] == "facts" for row in t["rows"]}


def markdown_headings(text: str) -> list[tuple[str, str]]:
    """(h2 or h3, title) of a Markdown file, its backslash escapes read back."""
    return [
        (f"h{len(m.group(1))}", re.sub(r"\\(.)", r"\1", m.group(2)))
        for m in re.finditer(r"^(##|###) (.+)$", text, re.MULTILINE)
    ]


@pytest.fixture
def choice_db(tmp_path) -> Path:
    """Imported ChoiceEval lists of two models, one of whose favourite holds markup, with
    regions; two reviewers: alice reviews two lists openly, bob the same two blind (and
    disagrees on the second)."""
    path = tmp_path / "mentions.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for model, top in (("gpt", "Nike"), ("gemini", HOSTILE)):
            for topic in ("shoes", "phones"):
                for cluster in ("Budget-Conscious", "Convenience"):
                    for rep in (1, 2):
                        for q in range(3):
                            for rank, entity in enumerate([top, "Asics", "Puma"][: 1 + q], 1):
                                writer.writerow([model, topic, cluster, f"{cluster}{q}", rep, rank, entity])
    db = tmp_path / "audit.db"
    assert run_cli("import", "mentions", str(path), "--db", str(db), "--study", "ext").returncode == 0
    regions = tmp_path / "regions.csv"
    regions.write_text(f'name,region\nNike,United States\n"{HOSTILE}",Europe\nAsics,Asia\nPuma,Europe\n')
    assert run_cli("import", "entities", str(regions), "--db", str(db)).returncode == 0
    lists = json.loads(run_cli("review", "lists", "--db", str(db), "--study", "ext", "--format", "json").stdout)
    first, second = lists[0]["list_id"], lists[1]["list_id"]
    base = ("review", "verdict", "--db", str(db), "--study", "ext")
    for args in (
        ("--list", first, "--accept", "--who", "alice"),
        ("--list", second, "--accept", "--who", "alice"),
        ("--list", first, "--accept", "--who", "bob", "--blind"),
        ("--list", second, "--edit", "Puma", "--who", "bob", "--blind"),
    ):
        done = run_cli(*base, *map(str, args))
        assert done.returncode == 0, done.stderr
    return db


def test_the_html_report_of_a_choice_study_is_self_contained_and_escaped(choice_db, tmp_path):
    out = tmp_path / "report.html"
    done = run_cli("report", "--db", str(choice_db), "--study", "ext", "-o", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    page = Page(text)
    # Nothing fetched, nothing run: no script, no link or source outside the file.
    assert "http://" not in text and "https://" not in text
    assert not [tag for tag, _ in page.tags if tag in ("script", "iframe", "img", "link", "object")]
    assert all((attrs.get("href") or "#").startswith("#") for _, attrs in page.tags)
    assert not any(name.startswith("on") for _, attrs in page.tags for name in attrs)
    review = PARTS.index("Review") + 1
    parts = [*PARTS[:review], VALIDITY, *PARTS[review:], APPENDIX, BRANDS, EVIDENCE]
    assert [title for level, title in page.headings if level == "h2"] == parts
    assert any(level == "h3" and title.startswith("choice: ChoiceEval") for level, title in page.headings)
    assert page.facts()["Study"] == "ext"
    # The preferred entity per topic and model, as `workbench metrics` finds it.
    peir = page.table("Preferred entity")
    assert peir[0][1:] == ["gemini", "gpt"]
    shoes = next(row for row in peir if row[0] == "shoes")
    assert shoes[1].startswith(HOSTILE + " ") and shoes[2].startswith("Nike ")
    # The log-odds ratios have a forest plot: a dot and a whisker per row, a no-effect line.
    forests = [f for f in page.figures if f["class"] == "forest"]
    assert forests
    marks = [attrs.get("class") for tag, attrs in forests[0]["tags"]]
    assert "svg" in [tag for tag, _ in forests[0]["tags"]] and "reference" in marks
    assert marks.count("estimate") == marks.count("whisker") > 0
    # Markup in an entity name reads as its characters, never as a tag.
    assert "b" not in [tag for tag, _ in page.tags]
    assert HOSTILE in "".join(page.text) and "&lt;b&gt;[/x]&lt;/b&gt; &amp; Co" in text


def test_the_review_part_counts_reviewed_lists_agreement_and_decisions(choice_db, tmp_path):
    out = tmp_path / "report.html"
    assert run_cli("report", "--db", str(choice_db), "--study", "ext", "-o", str(out)).returncode == 0
    page = Page(out.read_text())
    # Only alice's open verdicts govern the lists; bob's are blind, a validation.
    assert page.facts()["Reviewed (a standing verdict the metrics follow)"] == "2 of 48 (0.042)"
    agreement = json.loads(
        run_cli(
            "review",
            "agreement",
            "--db",
            str(choice_db),
            "--study",
            "ext",
            "--first",
            "alice",
            "--second",
            "bob",
            "--format",
            "json",
            "--rate",
            "1",  # every list: the report compares the reviewers on all of them
        ).stdout
    )
    rows = page.table("Two-reviewer agreement")
    assert rows[1] == ["alice", "bob", "2", "1", fmt_num(agreement["agreement"]), fmt_num(agreement["kappa"])]
    people = page.table("Standing decisions by person")
    assert ["alice", "verdict", "2"] in people and ["bob", "verdict", "2"] in people


def test_the_markdown_report_has_the_same_parts_and_escapes_markup(choice_db, tmp_path):
    html_file, md_file = tmp_path / "r.html", tmp_path / "r.md"
    assert run_cli("report", "--db", str(choice_db), "--study", "ext", "-o", str(html_file)).returncode == 0
    assert run_cli("report", "--db", str(choice_db), "--study", "ext", "-o", str(md_file)).returncode == 0
    markdown = md_file.read_text()
    html_headings = [h for h in Page(html_file.read_text()).headings if h[0] != "h1"]
    assert markdown_headings(markdown) == html_headings
    # Escaped for Markdown: no renderer would make it bold or a tag.
    assert "\\<b\\>\\[/x\\]\\</b\\> \\& Co" in markdown and "<b>" not in markdown
    # Without -o the same Markdown goes to standard output (only the time it was written differs).
    printed = run_cli("report", "--db", str(choice_db), "--study", "ext")
    assert markdown_headings(printed.stdout) == html_headings


def entity_study(tmp_path: Path, base_url: str, templates: int, entities: int) -> Path:
    """A label-probability study of the bundled example (urgency over countries), small."""
    from importlib.resources import files

    example = Path(str(files("workbench.assets").joinpath("studies", "entity")))
    study = tmp_path / "urgency.toml"
    study.write_text(
        f'name = "urgency"\nmethod = "entity"\nmodels = ["openai:m@{base_url}"]\n'
        f'task = "{example / "urgency.task.json"}"\ntemplates = "{example / "urgency_templates.csv"}"\n'
        f'entities = "{example / "countries.csv"}"\nmax_templates = {templates}\nmax_entities = {entities}\n'
        'group_by = ["gdp_quantile"]\n'
    )
    return study


def entity_run(tmp_path: Path, fake_server) -> tuple[Path, Path]:
    server = fake_server(ServerConfig())
    study = entity_study(tmp_path, server.base_url, templates=4, entities=6)
    db = tmp_path / "entity.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    return study, db


def test_an_entity_run_reports_its_provenance_counts_and_forest(tmp_path, fake_server):
    study, db = entity_run(tmp_path, fake_server)
    out = tmp_path / "entity.html"
    assert run_cli("report", "--db", str(db), "--study", "urgency", "-o", str(out)).returncode == 0
    page = Page(out.read_text())
    facts = page.facts()
    responses = json.loads(run_cli("export", "--db", str(db), "--what", "responses", "--format", "json").stdout)
    assert facts["Stored study SHA-256"] == responses[0]["study_sha256"]
    assert facts["Study file SHA-256 (on disk now)"] == hashlib.sha256(study.read_bytes()).hexdigest()
    assert facts["Study file"] == str(study)
    assert facts["First answer"] <= facts["Last answer"] and facts["Last answer"].startswith("20")
    model = responses[0]["model"]
    assert page.table("Models")[1][:3] == [model, "openai", "m"]
    assert page.table("Requests per model and stage")[1] == [model, "score", "24", "24", "0", "0", "0", "0"]
    # Delta per entity: the table and a forest plot of six entities, as `workbench metrics` gives them.
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    deltas = {r["entity"]: r["value"] for r in records if r["metric"] == "entity_delta"}
    top = max(deltas, key=deltas.get)
    table = page.table("Label probabilities: entities ranked by Delta")
    assert table[1][1] == top and table[1][2].startswith(fmt_num(deltas[top], 3, signed=True))
    forest = next(f for f in page.figures if f["class"] == "forest")
    assert [attrs.get("class") for _, attrs in forest["tags"]].count("estimate") == len(deltas) == 6
    # The recipe: the exact command that re-runs it, and the convention named.
    commands = next(pre for pre in re.findall(r'<pre class="commands"><code>(.*?)</code>', out.read_text(), re.S))
    # on a new database beside this one: the same database would only resume, asking nothing
    assert f"workbench run {study} --db {db.with_name('entity-reproduced.db')}" in commands
    assert "workbench report --db" in commands
    assert "'paper' convention" in "".join(page.text)


def test_a_study_with_no_answers_yet_gets_a_report_that_says_so(tmp_path, fake_server):
    server = fake_server(ServerConfig(refuse=404))  # the model is not served: nothing is answered
    study = entity_study(tmp_path, server.base_url, templates=2, entities=2)
    db = tmp_path / "none.db"
    run_cli("run", str(study), "--db", str(db), "--quiet")
    done = run_cli("report", "--db", str(db), "--study", "urgency", "--format", "html")
    assert done.returncode == 0, done.stderr
    page = Page(done.stdout)
    text = " ".join(page.text)
    assert "No answers yet" in text and "No findings yet" in text
    assert page.facts()["First answer"] == "none yet"
    assert [title for level, title in page.headings if level == "h2"] == PARTS


def test_what_the_report_refuses(choice_db, tmp_path):
    def contents():
        return run_cli("review", "lists", "--db", str(choice_db), "--study", "ext", "--format", "json").stdout

    before = contents()
    onto_db = run_cli("report", "--db", str(choice_db), "--study", "ext", "-o", str(choice_db))
    assert onto_db.returncode == 2 and "database" in onto_db.stderr
    assert choice_db.read_bytes().startswith(b"SQLite format 3") and contents() == before
    missing = run_cli("report", "--db", str(choice_db), "--study", "nope", "-o", str(tmp_path / "r.html"))
    assert missing.returncode == 2
    assert missing.stderr.strip().count("\n") == 0 and "'nope'" in missing.stderr and "known: ext" in missing.stderr
    assert not (tmp_path / "r.html").exists()
    unknown = run_cli("report", "--db", str(choice_db), "--study", "ext", "-o", str(tmp_path / "r.pdf"))
    assert unknown.returncode == 2 and "--format" in unknown.stderr


def test_report_help_teaches():
    text = run_cli("report", "--help").stdout
    assert "self-contained HTML" in text or "single HTML file" in text
    assert "examples:" in text and "-o shoes-report.html" in text and "--convention" in text


def test_a_method_gives_its_own_report_sections_or_gets_its_terminal_panels(tmp_path, fake_server):
    """A plugin's findings: without `report_sections` its Metrics panels; with it, what it returns
    (here a table and a forest plot that only the report has)."""
    from test_methods import EchoMethod

    from workbench import methods
    from workbench.display.metric_views import Forest

    class ReportingEcho(EchoMethod):
        def report_sections(self, conn, study, records):
            forest = Forest(["alpha", "beta"], [0.5, -0.25], [0.1, -0.5], [0.9, 0.0], x_label="echo effect")
            table = (["word", "echoed"], [["alpha", fmt_num(0.5)], ["beta", fmt_num(-0.25)]])
            return [methods.Panel("echo-words", "Echo by word", table=table, plot=forest)]

    server = fake_server(ServerConfig(reply_text="hello"))
    study = tmp_path / "echo.toml"
    study.write_text(
        f'name = "e"\nmethod = "echo"\nmodels = ["openai:m@{server.base_url}"]\nwords = ["alpha", "beta"]\n'
    )
    db, out = tmp_path / "e.db", tmp_path / "e.html"
    methods.register(EchoMethod)
    try:
        assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
        assert run_cli("report", "--db", str(db), "--study", "e", "-o", str(out)).returncode == 0
        default = Page(out.read_text())
        methods.register(ReportingEcho)  # the same name: replaces the plain one
        assert run_cli("report", "--db", str(db), "--study", "e", "-o", str(out)).returncode == 0
        own = Page(out.read_text())
    finally:
        methods.unregister("echo")
    assert ("h3", "echo: a toy: repeat each word") in default.headings
    assert default.table("Words echoed back")[1] == ["e", "2"]
    captions = [t["caption"] for t in own.tables]
    assert "Echo by word" in captions and "Words echoed back" not in captions
    assert own.table("Echo by word")[1:] == [["alpha", "0.500"], ["beta", "-0.250"]]
    forest = next(f for f in own.figures if f["class"] == "forest")
    assert [attrs.get("class") for _, attrs in forest["tags"]].count("estimate") == 2


def test_control_characters_in_names_are_written_out(tmp_path):
    """A terminal escape in a model's name and a bell in an entity's read as `\\x1b` and `\\x07`
    in both formats: a report opened in a terminal or pasted anywhere cannot act on them."""
    path = tmp_path / "m.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for rep in (1, 2):
            for q in range(3):
                writer.writerow(["evil\x1b[31m", "shoes", "c", f"q{q}", rep, 1, "Nike\x07"])
    db = tmp_path / "c.db"
    assert run_cli("import", "mentions", str(path), "--db", str(db), "--study", "s").returncode == 0
    for fmt in ("html", "md"):
        text = run_cli("report", "--db", str(db), "--study", "s", "--format", fmt).stdout
        assert "\x1b" not in text and "\x07" not in text
        slash = "\\" if fmt == "html" else "\\\\"  # Markdown escapes the backslash itself
        assert f"evil{slash}x1b" in text and f"Nike{slash}x07" in text


def test_html_remedies_set_commands_as_code_and_model_text_keeps_its_backticks(tmp_path):
    """The n/a table's remedies are the report's own words: their `commands` read as code, as in
    the Markdown report. A cell of a model's text keeps every character, backticks included."""
    from helpers import write_mentions

    from workbench.report import html
    from workbench.report.document import Report, Section, TableBlock

    db = tmp_path / "a.db"
    assert (
        run_cli(
            "import", "mentions", str(write_mentions(tmp_path / "m.csv")), "--db", str(db), "--study", "s"
        ).returncode
        == 0
    )
    out = tmp_path / "r.html"
    assert run_cli("report", "--db", str(db), "-o", str(out)).returncode == 0
    text = out.read_text()
    assert re.search(r"<td>give entities regions: <code>workbench import entities FILE.csv</code>", text)
    assert not re.search(r"<td>[^<]*`workbench", text)
    table = TableBlock("t", ["entity", "what to do"], [["`rm -rf` Co", "run `workbench review`"]])
    page = html.render(Report("r", "s", [Section("x", "X", [table])]))
    assert "<td>`rm -rf` Co</td>" in page and "<td>run <code>workbench review</code></td>" in page


def test_markdown_sentences_escape_names_and_keep_code_and_lists():
    """The summary's sentences carry names from the store (a tie's entities): a `<script>` or
    `[/x]` there reads as its characters in the Markdown report, as in its tables."""
    from workbench.report import markdown
    from workbench.report.document import Paragraph, Report, Section

    said = "m · shoes: a tie, no preferred entity: <script>alert(1)</script>, [/x], **Bold** (run `workbench review`)."
    page = markdown.render(Report("r", "s", [Section("x", "X", [Paragraph(said), Paragraph("- a limit\n- another")])]))
    assert "\\<script\\>alert(1)\\</script\\>, \\[/x\\], \\*\\*Bold\\*\\*" in page
    assert "(run `workbench review`)." in page and "\n- a limit\n- another" in page
