"""One rendering of the metrics: the numbers read one way, and `workbench metrics` prints
the very panels the Metrics screen shows."""

import pytest
from rich.console import Console
from rich.text import Text

from workbench import methods
from workbench.display.metric_views import Panel, terminal_panels, to_markdown
from workbench.display.rich_tables import print_panels
from workbench.text.literal import literal_line
from workbench.text.numbers import fmt_interval, fmt_num, with_interval


@pytest.mark.parametrize(
    "value, digits, signed, shown",
    [
        (None, 3, False, "n/a"),
        (0.12345, 3, False, "0.123"),
        (0.12345, 2, False, "0.12"),
        (0.0, 3, False, "0.000"),
        (12, 3, False, "12"),  # counts stay counts
        ("first_token", 3, False, "first_token"),
        # Too small for the decimals: significant digits, never a bare 0 for a real p or effect.
        (0.0004, 3, False, "0.0004"),
        (4.2e-05, 3, False, "4.2e-05"),
        (0.004, 2, False, "0.004"),
        (-0.0004, 3, False, "-0.0004"),
        # Rounding noise of a computation is zero, and no "-0.000".
        (1.1e-16, 2, False, "0.00"),
        (-1e-17, 3, True, "+0.000"),
        (0.25, 3, True, "+0.250"),
        (-0.5, 2, True, "-0.50"),
        (3e-05, 3, True, "+3e-05"),
    ],
)
def test_one_rule_for_every_number(value, digits, signed, shown):
    assert fmt_num(value, digits, signed) == shown


def test_intervals_read_like_their_numbers():
    record = {"ci_low": 0.3149, "ci_high": 0.00004}
    # an end nearer 0 than two decimals show, not 0: it read "[4.2e-12, 1.00]", a number of its own
    assert fmt_interval(record) == "[0.31, <0.01]"
    assert fmt_interval({"ci_low": 4.2e-12, "ci_high": 1.0}) == "[<0.01, 1.00]"
    assert fmt_interval({"ci_low": -0.003, "ci_high": 0.5}) == "[>-0.01, 0.50]"
    assert fmt_interval({"ci_low": 0.0, "ci_high": 1e-13}) == "[0.00, 0.00]"  # rounding's, not a value
    assert fmt_interval({"ci_low": 0.1}) == ""  # half an interval is none
    assert with_interval(0.421, {"ci_low": 0.31, "ci_high": 0.55}) == "0.42 [0.31, 0.55]"
    assert with_interval(0.421, {}, 3) == "0.421"
    assert with_interval(None, {"ci_low": 0.31, "ci_high": 0.55}) == "n/a"


def _printed(panels, width=200) -> str:
    console = Console(width=width, record=True, color_system=None)
    print_panels(panels, console)
    return console.export_text()


def test_panels_print_model_text_literally():
    """A model's name or answer with Rich markup (`[/x]` alone would break markup parsing)
    or an escape code prints as written, in titles, headers, cells and charts."""
    nasty = "[bold]Nike[/bold] [/x] \x1b[2J"
    panels = [
        Panel("t", f"Title {nasty}", table=(["model", nasty], [[nasty, "0.500"]])),
        # Charts are built literal (`literal_line`), as the methods build theirs.
        Panel("c", f"Chart {nasty}", chart=literal_line(f"bar {nasty}"), export=False),
    ]
    out = _printed(panels)
    shown = "[bold]Nike[/bold] [/x] \\x1b[2J"
    assert out.count(shown) == 5 and "\x1b" not in out
    assert "Title " + shown in out and "Chart " + shown in out and "bar " + shown in out


def test_a_panel_without_columns_prints_nothing():
    assert _printed([Panel("empty", "Nothing here", table=([], []))]).strip() == ""


def test_a_filter_without_all_is_printed_for_each_option():
    """The terminal cannot cycle a filter: each option's panels, a panel the filter does not
    change only once."""
    from workbench.display.metric_views import Filter

    filters = (Filter("topic", "t", "Topic", lambda r: ["all", "a"]), Filter("m", "m", "M", lambda r: ["x", "y"]))
    seen = []

    def panels(choices):
        seen.append(dict(choices))
        return [Panel("same", "Same", table=(["h"], [["1"]])), Panel("per", f"Per {choices['m']}", chart=Text("."))]

    shown = terminal_panels(filters, [], panels)
    assert seen == [{"topic": "all", "m": "x"}, {"topic": "all", "m": "y"}]
    assert [p.title for p in shown] == ["Same", "Per x", "Per y"]


def _identity_records(p: float):
    from workbench.methods.identity.records import MeanShare, MeanShareVsBaseline

    base = {"convention": "paper", "study": "s", "model": "m", "group": "Black", "condition": "explicit"}
    interval = {"ci_level": 0.95, "n_boot": 1000}
    return [
        MeanShare(**base, value=0.4213, n=None, ci_low=0.3, ci_high=0.5, **interval),
        MeanShareVsBaseline(**base, difference=0.00021, u=None, p=p, ci_low=None, ci_high=None, **interval),
    ]


def test_the_screen_the_markdown_and_the_terminal_print_a_value_one_way():
    """A p of 4e-05 read "0.000" on the screen and "4e-05" in the terminal: now one text."""
    method = methods.get("identity")
    records = _identity_records(4e-05)
    (panel,) = methods.panels_of(method, records, {})
    cell = panel.table[1][0][1]
    assert cell == "0.421 [0.30, 0.50] (+0.00021, p 4e-05)"
    assert cell in to_markdown(panel.title, *panel.table)
    console = Console(width=200, record=True, color_system=None)
    method.print_tables(None, None, records, console)
    assert cell in console.export_text()


def test_the_terminal_prints_every_panel_the_screen_shows(metrics_db):
    """`workbench metrics` draws each method's panels at the screen's first choices, or
    "all" where a filter has it: every topic and model, every cell of every table."""
    from helpers import run_cli

    from workbench.store.db import opened

    out = run_cli("metrics", "--db", str(metrics_db), env={"COLUMNS": "400"}).stdout
    with opened(metrics_db) as conn:
        by_method = methods.metric_records_by_method(conn)
    choices = {"topic": "all", "cluster": "all"}
    panels = [p for name, r in by_method.items() for p in methods.panels_of(methods.get(name), r, choices)]
    tables = [p for p in panels if p.table]
    assert {p.id for p in tables} >= {"peir-table", "lor-table", "stability-table"}
    for panel in panels:
        assert panel.title in out
        for row in panel.table[1] if panel.table else []:
            assert all(cell in out for cell in row), row
    assert all(word in out for word in ("phones", "shoes", "gemini", "gpt", "Nike", "Adidas"))
