"""A report as plain data: sections of blocks, which `html` and `markdown` each render whole.

Everything a block holds is already text as it will read (numbers through `fmt_num`), except
a plot's and a bar chart's values, which the SVG needs as numbers. Text is stored as the store
and the models gave it; escaping is the renderer's (HTML and Markdown escape differently)."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.display.metric_views import Forest


@dataclass
class Paragraph:
    """The report's own sentences (`code` marked with backticks), never text from the store:
    Markdown writes them as they are. A name or a path goes in `Facts` or a table."""

    text: str
    anchor: str = ""  # a section's id it links to ("evidence-1"): the headline's evidence


@dataclass
class Facts:
    """Label and value pairs (a definition list): the study's name, its SHA-256, ..."""

    rows: list[tuple[str, str]]


@dataclass
class TableBlock:
    title: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class PlotBlock:
    """A forest plot: each row's estimate, its interval and the no-effect line."""

    title: str
    forest: Forest


@dataclass
class BarsBlock:
    """Stacked horizontal bars: one bar per label, one segment per part (answered, failed, ...)."""

    title: str
    labels: list[str]
    parts: list[tuple[str, list[float]]]  # (part name, one value per label)


@dataclass
class Preformatted:
    """A chart as the terminal draws it (characters), for the charts with no numbers to plot."""

    title: str
    text: str


@dataclass
class Commands:
    """Shell commands to type, one a line."""

    lines: list[str]


Block = Paragraph | Facts | TableBlock | PlotBlock | BarsBlock | Preformatted | Commands


@dataclass
class Section:
    id: str  # an HTML anchor: stable, made of [a-z0-9-]
    title: str
    blocks: list[Block] = field(default_factory=list)
    level: int = 2  # 2: a part of the report; 3: a method's section within "Findings"
    anchored: bool = False  # Markdown writes its id as an anchor (a link in the report points at it)


@dataclass
class Report:
    title: str
    subtitle: str
    sections: list[Section]
