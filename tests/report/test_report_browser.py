"""The HTML report read in a real browser (the system's Chromium, driven by Selenium) at 800
and 1200 px, as an auditor opens it: nothing wider than the page, no text clipped, no raw
Markdown (`**`, a backtick, a leading "- "), every chart an SVG, no word broken inside
(`runni ng shoes`), the system prompt with its own line breaks and the summary opening with
the audit question. Two reports: a reviewed ChoiceEval study of two served models with
regions, and an imported cold-start study whose lists are mostly out of its catalog (its
warning notes). Skipped, saying why, where no Chromium or Selenium is installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import run_cli
from openai_server import ServerConfig, ServerThread
from test_recipe_replay import review, write_reviewed_study

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no Chromium and chromedriver on PATH (apt-get install chromium chromium-driver)",
)
SYSTEM = "You are a shopping assistant.\n\nAnswer with brand names only."
WIDTHS = (800, 1200)


def _ok(*args) -> None:
    done = run_cli(*map(str, args))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("browser")
    with ServerThread(ServerConfig()) as server:
        study = write_reviewed_study(folder, server.base_url, system=SYSTEM)
        db = folder / "audit.db"
        _ok("run", study, "--db", db, "--quiet")
    _ok("import", "entities", folder / "brands.csv", "--db", db)
    review(db)
    _ok("report", "--db", db, "--study", "shoes", "-o", folder / "choice.html")
    (folder / "cat.csv").write_text("title,origin\nAlpha,Western\nBravo,Japanese\nCharlie,Western\n")
    (folder / "rank.csv").write_text(
        "model,seed,persona_category,persona,rank,item\n"
        "m,0,,neutral,1,Alpha\nm,0,,neutral,2,Bravo\n"
        "m,0,age,a retired teacher,1,Zed\nm,0,age,a retired teacher,2,Yonder\nm,0,age,a retired teacher,3,Xi\n"
        "m,0,age,a retired teacher,4,Alpha\n"
        "m,1,,neutral,1,Quill\nm,1,,neutral,2,Rover\nm,1,age,a retired teacher,1,Charlie\n"
    )
    cold = folder / "cold.db"
    _ok("import", "rankings", folder / "rank.csv", "--db", cold, "--study", "cs", "--catalog", folder / "cat.csv")
    _ok("report", "--db", cold, "--study", "cs", "-o", folder / "coldstart.html")
    (folder / "note.html").write_text(_note_page())
    (folder / "charts.html").write_text(_charts_page())
    pages = ("choice", "coldstart", "note", "charts")
    return {name: folder / f"{name}.html" for name in pages}


def _charts_page() -> str:
    """Charts with the labels real data can give: a served model's long spec, a word of wide
    letters longer than any line, wide (east Asian) letters, markup; seven regions; figures in
    the tens of thousands; an axis caption longer than the chart."""
    from workbench.display.metric_views import Forest
    from workbench.report import html
    from workbench.report.document import BarsBlock, PlotBlock, Report, Section

    labels = [
        "openai:meta-llama/Llama-3.1-70B-Instruct@https://api.example.com/v1 · Performance and Quality",
        "W" * 50,
        "short",
        "Ünïcödé ＷＩＤＥ ｆｕｌｌ ｗｉｄｔｈ ｌａｂｅｌ",
        "<b>[/x]</b> & Co",
    ]
    forest = Forest(
        labels,
        [0.5, -1.2, 3.3, 0.0, 12345.678],
        [0.1, -2.0, None, -0.5, -23456.7],
        [0.9, -0.4, None, 0.5, 34567.8],
        "IOU divergence, mean ± std over seeds (0 = the neutral list, 1 = nothing shared), a caption wider than its chart",
    )
    regions = ["United States", "Europe", "Asia", "Other", "Latin America and the Caribbean", "Africa", "Unknown"]
    bars = BarsBlock("Regions", labels, [(region, [10, 20, 30, 40, 12345]) for region in regions])
    return html.render(Report("Charts", "s", [Section("x", "Charts", [PlotBlock("Forest", forest), bars])]))


def _note_page() -> str:
    """A cold-start method's warning under its table, as a report renders a panel of text alone
    (the one a bundled model's run shows, where its lists are mostly out of the catalog)."""
    from rich.text import Text

    from workbench.display.metric_views import Panel
    from workbench.report import html
    from workbench.report.document import Report, Section
    from workbench.report.sections import panel_blocks

    note = Text(
        "⚠ llama:default: the neutral list names no catalog item in 2 seed(s): those seeds are left out\n"
        "  (a persona's list compared with no neutral item would read as fully divergent; "
        "`workbench review` c corrects catalog matches)"
    )
    blocks = panel_blocks(Panel("coldstart-neutral-note", "", chart=note, export=False))
    return html.render(Report("Audit report: cs", "coldstart study", [Section("findings", "Findings", blocks)]))


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


# Everything measured in the page itself, at its width: what overflows, what is clipped, raw
# Markdown in the text, words split across lines, charts that are not SVG.
PROBE = r"""
const width = document.documentElement.clientWidth;
const out = {width, scrollWidth: document.documentElement.scrollWidth, wide: [], clipped: [], raw: [],
             broken: [], notSvg: [], literalNewline: []};
const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                     (el.className && typeof el.className === 'string' ? '.' + el.className : '');
for (const el of document.body.querySelectorAll('*')) {
  const box = el.getBoundingClientRect();
  if (box.width && box.right > width + 0.5) out.wide.push(name(el) + ' right ' + Math.round(box.right));
  const style = getComputedStyle(el);
  const hides = ['hidden', 'auto', 'scroll', 'clip'];
  if ((hides.includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1) ||
      (hides.includes(style.overflowY) && el.scrollHeight > el.clientHeight + 1))
    out.clipped.push(name(el) + ': ' + el.textContent.slice(0, 60));
}
// A chart's text outside its SVG's box is cut off by the SVG: a label wider than its column.
for (const svg of document.querySelectorAll('svg')) {
  const box = svg.viewBox.baseVal;
  for (const t of svg.querySelectorAll('text')) {
    const b = t.getBBox();
    if (b.x < box.x - 0.5 || b.y < box.y - 0.5 || b.x + b.width > box.x + box.width + 0.5 ||
        b.y + b.height > box.y + box.height + 0.5) out.clipped.push('svg text: ' + t.textContent.slice(0, 60));
  }
}
for (const fig of document.querySelectorAll('figure.forest, figure.bars'))
  if (!fig.querySelector('svg')) out.notSvg.push(fig.textContent.slice(0, 80));
for (const chart of document.querySelectorAll('figure.text-chart, pre:not(.commands)'))
  out.notSvg.push(chart.tagName + ': ' + chart.textContent.slice(0, 80));
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const range = document.createRange();
// Whether the character at `at` is inside a run of 20 or more without a space: the report lets
// such a run (a hash, a URL, a path) break anywhere.
const inToken = (text, at) => {
  let start = at, end = at;
  while (start > 0 && !/\s/.test(text[start - 1])) start--;
  while (end < text.length && !/\s/.test(text[end])) end++;
  return end - start >= 20;
};
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (node.parentElement.closest('svg, pre, code, script, style')) continue;
  const text = node.textContent;
  if (text.includes('**') || text.includes('`') || /^\s*- /.test(text) && !node.previousSibling)
    out.raw.push(text.slice(0, 80));
  if (text.includes('\\n')) out.literalNewline.push(text.slice(0, 80));
  for (const m of text.matchAll(/[^\s-]+/g)) {  // a word: a hyphen may end a line ("log-" "odds")
    if (inToken(text, m.index)) continue;  // a hash, a URL, a path
    range.setStart(node, m.index);
    range.setEnd(node, m.index + m[0].length);
    const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
    if (tops.size > 1) out.broken.push(m[0] + ' in ' + text.slice(0, 60));
  }
}
return out;
"""


@pytest.mark.parametrize("which", ["choice", "coldstart", "note", "charts"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_report_reads_as_a_document_in_a_browser(reports, browser, which, width):
    browser.set_window_size(width, 1000)
    browser.get(reports[which].as_uri())
    found = browser.execute_script(PROBE)
    assert found["scrollWidth"] <= found["width"], f"the page scrolls sideways at {width} px"
    assert found["wide"] == [], "wider than the page"
    assert found["clipped"] == [], "text clipped by its box"
    assert found["raw"] == [], "raw Markdown in the text"
    assert found["broken"] == [], "a word broken across lines"
    assert found["notSvg"] == [], "a chart that is not an SVG"
    assert found["literalNewline"] == [], "a line break written out as \\n"


def test_the_choice_report_opens_with_the_question_lists_limits_and_draws_every_chart(reports, browser):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1200, 1000)
    browser.get(reports["choice"].as_uri())
    first = browser.find_element(By.CSS_SELECTOR, "#summary p").text
    assert first == (
        "The question: Which brands do alpha and beta recommend for headphones and running shoes, "
        "and does it depend on who asks?"
    )
    items = browser.find_elements(By.CSS_SELECTOR, "#limitations ul li")
    assert items and not any(item.text.startswith("- ") for item in items)
    captions = [f.text for f in browser.find_elements(By.CSS_SELECTOR, "figure figcaption")]
    for topic in ("headphones", "running shoes"):  # one chart per topic, never a mix
        assert f"Share of recommendation slots by region, per cluster (%) · topic {topic}" in captions
        assert any(c.startswith("Log-odds ratio per cluster") and c.endswith(f"topic {topic}") for c in captions)
    labels = browser.execute_script(
        "return [...document.querySelectorAll('figure svg text.label')].map(t => t.textContent)"
    )
    assert any("Performance and Quality" in label for label in labels)  # whole, never cut with an ellipsis
    assert not any("…" in label for label in labels)
    zero = browser.execute_script(
        "return [...document.querySelectorAll('text.reference-label')].map(t => t.textContent)"
    )
    assert zero and all(text == "0 (no effect)" for text in zero)
    legend = browser.execute_script("return [...document.querySelectorAll('text.legend')].map(t => t.textContent)")
    assert {"Asia", "Europe", "Other", "United States"} <= set(legend)
    prompt = browser.execute_script("return document.querySelector('td.text').innerText")
    assert prompt == SYSTEM  # its own blank line, not \n\n


def test_a_methods_warning_reads_as_sentences_with_code(reports, browser):
    from selenium.webdriver.common.by import By

    browser.set_window_size(800, 1000)
    browser.get(reports["note"].as_uri())
    notes = [p for p in browser.find_elements(By.CSS_SELECTOR, "p") if p.text.startswith(("⚠", "("))]
    assert notes, "the cold-start warnings are in the report"
    codes = [c.text for note in notes for c in note.find_elements(By.TAG_NAME, "code")]
    assert "workbench review" in codes
