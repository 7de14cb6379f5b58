"""The core never imports the UI: workbench/ (but app.py) and store/ stay free of textual."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UI = ("textual", "workbench.screens", "workbench.widgets")


def test_core_does_not_import_the_ui():
    offenders = []
    for package in ("workbench", "store"):
        for path in (ROOT / package).rglob("*.py"):
            if path.relative_to(ROOT).as_posix() == "workbench/app.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names
                              if n.split(".")[0] in UI or n.startswith(UI)]
    assert offenders == []


def test_one_import_name():
    """Everything installs under `workbench` (store, screens, widgets and assets included):
    no module imports the folders by their own top-level names, which a wheel does not have."""
    folders = ("store", "screens", "widgets", "assets")
    offenders = []
    for package in ("workbench", "store", "screens", "widgets", "tests", "bench"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                else:
                    continue
                offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in folders]
    assert offenders == []
