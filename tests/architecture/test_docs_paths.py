"""Every path the documentation names exists: a relative link in README.md, CONTRIBUTING.md,
CHANGELOG.md, bench/README.md or docs/**/*.md, and every repository path written in backticks
or in a code block there (`store/requests/queue.py`, `assets/studies/demo.toml`, `bench/`).

A file moved or deleted without its documentation fails here, naming the page, the line and
the path. No process is started: the pages are read and the paths looked up."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PAGES = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "bench/README.md")
# The repository's top-level folders: a backticked path is checked when it starts with one.
FOLDERS = ("workbench", "store", "screens", "widgets", "assets", "tests", "bench", "docs", "examples")
# Files at the root a page may name on their own (no folder).
ROOT_FILES = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "pyproject.toml", "setup.py")
EXTENSIONS = (".py", ".md", ".toml", ".csv", ".jsonl", ".json", ".txt", ".sql", ".tcss")
# Folders that install under the workbench import name: `workbench/store/x.py` is store/x.py.
INSTALLED = ("store", "screens", "widgets", "assets")
PLACEHOLDERS = ("<", "*", "{", "...", "DIR")

LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# What may stand around a path in running text or a command: quotes, brackets, punctuation.
STRIP = "\"'()[],;:!?"


def pages() -> list[Path]:
    return [ROOT / page for page in PAGES] + sorted((ROOT / "docs").rglob("*.md"))


def repo_path(word: str) -> str | None:
    """The repository path `word` names, relative to the root, or None if it names none.

    >>> repo_path("workbench/store/errors.py")
    'store/errors.py'
    """
    word = word.lstrip(STRIP).rstrip(STRIP + ".")
    if word.startswith("./"):
        word = word[2:]
    if not word or word.startswith("~") or any(mark in word for mark in PLACEHOLDERS):
        return None
    if word in ROOT_FILES:
        return word
    if "/" not in word or not (word.endswith("/") or word.endswith(EXTENSIONS)):
        return None
    parts = word.split("/")
    if parts[0] not in FOLDERS:
        return None
    if parts[0] == "workbench" and len(parts) > 2 and parts[1] in INSTALLED:
        parts = parts[1:]
    return "/".join(parts)


def named_paths(text: str) -> list[tuple[int, str, Path | None]]:
    """(line number, path as written, where it should be) for each path a page names.

    The place is absolute: a link resolves from the page's folder (the caller joins it), a
    backticked or code-block path from the root. A link's place is None until joined."""
    found: list[tuple[int, str, Path | None]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            spans = [line]
        else:
            spans = [match.group(2) for match in CODE_SPAN.finditer(line)]
            for match in LINK.finditer(CODE_SPAN.sub("", line)):
                target = match.group(1).split("#", 1)[0]
                if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, mailto:
                    found.append((number, target, None))
        for span in spans:
            for word in span.split():
                path = repo_path(word)
                if path is not None:
                    found.append((number, word, ROOT / path))
    return found


def missing_paths() -> list[str]:
    missing = []
    for page in pages():
        shown = page.relative_to(ROOT)
        if not page.exists():
            missing.append(f"{shown}: the page itself is missing")
            continue
        for number, written, place in named_paths(page.read_text("utf-8")):
            if place is None:
                place = page.parent / written
            if not place.exists():
                missing.append(f"{shown}:{number}: {written}")
    return missing


def test_every_path_the_docs_name_exists():
    missing = missing_paths()
    assert not missing, "paths named in the docs that do not exist:\n" + "\n".join(missing)


def test_what_counts_as_a_path():
    assert repo_path("workbench/store/errors.py") == "store/errors.py"  # installed as workbench.store
    assert repo_path("workbench/assets/studies/demo.toml") == "assets/studies/demo.toml"
    assert repo_path("bench/") == "bench/"
    assert repo_path("(docs/methods.md).") == "docs/methods.md"
    assert repo_path("pyproject.toml") == "pyproject.toml"
    for placeholder in ("workbench/methods/<name>/", "bench/data/*.csv", "~/.cache/x.json", "tests/{a}.py"):
        assert repo_path(placeholder) is None
    for other in ("/path/model.gguf", "a/b.py", "workbench/methods/choice", "e.g./x", "study.toml"):
        assert repo_path(other) is None
    text = "See [the methods](../methods.md#minimum-support), `store/requests/queue.py --x` and\n```sh\npython bench/x.py\n```\n"
    assert [(n, w) for n, w, _ in named_paths(text)] == [
        (1, "../methods.md"),
        (1, "store/requests/queue.py"),
        (3, "bench/x.py"),
    ]


def test_the_pages_name_paths_at_all():
    """A pattern that matched nothing would pass the first test on any page."""
    readme = named_paths((ROOT / "README.md").read_text("utf-8"))
    assert len(readme) >= 10
    assert any(place is None for _, _, place in readme)  # links
    assert any(place is not None for _, _, place in readme)  # backticked paths
