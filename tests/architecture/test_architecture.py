"""The core never imports the UI: workbench/ (but app.py) and store/ stay free of textual."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
                offenders += [
                    f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in UI or n.startswith(UI)
                ]
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


def _installed_layout(tmp_path: Path) -> Path:
    """The package as a wheel lays it out (store/, screens/, ... under workbench/), made
    of symbolic links, so import tools that walk folders see the real structure."""
    package = tmp_path / "workbench"
    package.mkdir()
    for entry in (ROOT / "workbench").iterdir():
        (package / entry.name).symlink_to(entry)
    for folder in ("store", "screens", "widgets", "assets"):
        (package / folder).symlink_to(ROOT / folder)
    return tmp_path


def _independence_contract() -> str:
    """ "Methods never import each other", over every method package the registry finds."""
    import json

    from workbench import methods

    packages = [f"workbench.methods.{name}" for name in methods.BUILTIN]
    assert {type(methods.get(n)).__module__ for n in methods.names() if n in methods.BUILTIN} == set(packages)
    return (
        '\n[[tool.importlinter.contracts]]\nname = "Methods never import each other"\n'
        f'type = "independence"\nmodules = {json.dumps(packages)}\n'
    )


def test_import_contracts_hold(tmp_path):
    """The layer contracts in pyproject.toml ([tool.importlinter]): the core never imports
    Textual, the store nothing above it, methods never each other, screens never the CLI."""
    import os
    import subprocess
    import sys

    layout = _installed_layout(tmp_path)
    config = tmp_path / "contracts.toml"
    config.write_text((ROOT / "pyproject.toml").read_text("utf-8") + _independence_contract(), "utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--config",
            str(config),
            "--no-cache",
        ],
        cwd=layout,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(layout)},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout
    assert "Methods never import each other KEPT" in result.stdout, result.stdout[-2000:]


CYCLES = """
import grimp
graph = grimp.build_graph("workbench", cache_dir=None, exclude_type_checking_imports=False)
assert "workbench.store.requests.queue" in graph.modules  # the whole package, not only workbench/
edges = {m: {i for i in graph.find_modules_directly_imported_by(m) if i in graph.modules} for m in graph.modules}

def reaches(start, goal):
    seen, todo = set(), list(edges[start])
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(edges[node])
    return False

print(len(graph.modules), sorted(m for m in edges if reaches(m, m)))
"""


def test_no_import_cycles(tmp_path):
    import os
    import subprocess
    import sys

    layout = _installed_layout(tmp_path)
    result = subprocess.run(
        [sys.executable, "-c", CYCLES],
        cwd=layout,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(layout)},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    modules, in_cycles = result.stdout.split(" ", 1)
    assert int(modules) > 80 and in_cycles.strip() == "[]", result.stdout


def test_no_engine_is_chosen_by_name():
    """Engines are looked up in their registry (workbench/engines/registry.py): outside
    workbench/engines no code compares a spec's engine with an engine's name."""
    import re

    by_name = re.compile(r"""engine\s*(==|!=|not in|in)\s*[("']""")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in ("workbench", "store", "screens", "widgets")
        for path in (ROOT / package).rglob("*.py")
        if path.relative_to(ROOT).parts[:2] != ("workbench", "engines")
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if by_name.search(line)
    ]
    assert offenders == []


SQL = ("SELECT ", "INSERT INTO", "INSERT OR ", "UPDATE ", "DELETE FROM", "PRAGMA ", "CREATE TABLE")


def _code_strings(path: Path):
    """The string literals of a module's code (docstrings and comments left out)."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_sql_lives_in_the_store_and_the_methods():
    """The store owns the shared tables' SQL and each method its own tables'; the
    command line, screens, widgets and the rest of the core hold none."""
    offenders = []
    for package in ("workbench", "screens", "widgets"):
        for path in (ROOT / package).rglob("*.py"):
            if path.relative_to(ROOT).parts[:2] == ("workbench", "methods"):
                continue
            offenders += [
                f"{path.relative_to(ROOT)}:{line}"
                for line, text in _code_strings(path)
                if any(word in text.upper() for word in SQL) and " " in text.strip()
            ]
    assert offenders == []


def test_methods_reach_the_shared_tables_through_the_store():
    """A method queries its own tables only: the study, model, request and response rows
    (and which requests are current) come from store functions, so a new method needs
    no SQL of the queue's and a change to the queue's tables touches the store alone."""
    import re

    shared = re.compile(r"\b(FROM|JOIN|INTO|UPDATE)\s+(requests|responses|studies|models)\b|\bsuperseded\b")
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {text.strip()[:60]}"
        for path in (ROOT / "workbench" / "methods").rglob("*.py")
        for line, text in _code_strings(path)
        if any(word in text for word in SQL + (" WHERE ", " JOIN ")) and shared.search(text)
    ]
    assert offenders == []


def test_the_store_holds_no_sql_of_a_method_s_tables():
    """The other direction of `test_methods_reach_the_shared_tables_through_the_store`: a
    method's tables (its migrations' CREATE TABLEs) are queried in its own package, never in the
    store (the migrations that made them before methods owned their tables aside). The core
    reaches a method's review corrections through the method's hooks (`decision_kinds`, `parts`,
    `held_lists`)."""
    import re

    from workbench import methods

    made = {
        name
        for method in methods.names()
        for _key, sql in getattr(methods.get(method), "migrations", ())
        for name in re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", sql)
    }
    assert {"rankings", "identity_outputs", "probe_reviews", "label_scores"} <= made
    used = re.compile(r"\b(FROM|JOIN|INTO|UPDATE)\s+(" + "|".join(sorted(made)) + r")\b")
    holders = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "store").rglob("*.py")
        if path.name not in ("schema.py", "method_migrations.py")  # the migrations that made them
        for _line, text in _code_strings(path)
        if used.search(text)
    }
    assert sorted(holders) == []


def test_no_method_is_chosen_by_name():
    """Modules are judged by cohesion, not by length (a length cap split modules that belong
    together); what is held here: no code outside a method's package picks it by name."""
    from workbench import methods

    by_name = []
    for package in ("workbench", "store", "screens", "widgets"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text()
            if path.relative_to(ROOT).parts[:2] != ("workbench", "methods"):
                for name in methods.names():
                    if f'method == "{name}"' in text or f"method == '{name}'" in text:
                        by_name.append(f"{path.relative_to(ROOT)}: {name}")
    assert by_name == []


def test_the_tree_is_formatted_and_linted():
    """`ruff format` and `ruff check` as configured in pyproject.toml: run them to fix."""
    import subprocess
    import sys

    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        import shutil

        ruff = shutil.which("ruff")
    assert ruff, "ruff is in the test extra: pip install -e '.[test]'"
    folders = ["workbench", "store", "screens", "widgets", "tests", "bench"]
    for command in (["format", "--check"], ["check"]):
        done = subprocess.run([str(ruff), *command, *folders], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_one_number_formatter():
    """A metric's number reads one way on the screen, in the Markdown export and in the
    terminal: `workbench.text.numbers.fmt_num` is the only function that formats one (no `fmt`,
    `fmt_num` or `fmt_ci` of a module's own), and whoever needs it imports it from there."""
    import re

    formatter = re.compile(r"^(fmt|format)(_(num|number|float|value|ci|p))?$")
    defined, imported_elsewhere = [], []
    for package in ("workbench", "store", "screens", "widgets"):
        for path in (ROOT / package).rglob("*.py"):
            where = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and formatter.match(node.name):
                    defined.append(f"{where}: {node.name}")
                if isinstance(node, ast.ImportFrom) and any(a.name == "fmt_num" for a in node.names):
                    if node.module != "workbench.text.numbers":
                        imported_elsewhere.append(f"{where}: from {node.module}")
    assert defined == ["workbench/text/numbers.py: fmt_num"] and imported_elsewhere == []


def test_no_function_over_80_lines():
    """A function a reader takes in at once: none in the shipped code passes 80 lines."""
    offenders = []
    for package in ("workbench", "store", "screens", "widgets"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = node.end_lineno - node.lineno + 1
                    if length > 80:
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    assert offenders == []


def test_workers_post_messages_and_keys_are_declared():
    """The app's worker threads hand their results to the UI thread as messages, never through
    `call_from_thread` (it holds the worker until the UI has run the callback), and screens
    declare their keys in BINDINGS rather than rewrite Textual's private bindings map."""
    offenders = []
    paths = [ROOT / "workbench" / "app.py", *(ROOT / "screens").rglob("*.py"), *(ROOT / "widgets").rglob("*.py")]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr in ("call_from_thread", "_bindings"):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.attr}")
    assert offenders == []


def test_no_method_is_chosen_by_name_outside_its_package():
    """Screens, commands, the store and the pipeline reach a method through the registry's
    hooks: no comparison of a method's name with anything that holds a method outside
    workbench/methods/ (`method == "identity"`, `study_method(p) in ("choice", ...)`)."""
    from workbench import methods

    names = set(methods.names())
    offenders = []
    for package in ("workbench", "store", "screens", "widgets"):
        for path in (ROOT / package).rglob("*.py"):
            if path.relative_to(ROOT).parts[:2] == ("workbench", "methods"):
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.Compare):
                    continue
                text = ast.unparse(node)
                named = any(isinstance(c, ast.Constant) and c.value in names for c in ast.walk(node))
                if named and "method" in text:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {text}")
    assert offenders == []


def _method_imports(text: str, module: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, method) for every import of a method's package in a module's source, at any depth:
    `import`, `from ... import` (relative ones resolved against `module`, its dotted name as
    installed) and `import_module("workbench.methods.x...")` with a literal name."""
    package, found = module.rpartition(".")[0], []
    for node in ast.walk(ast.parse(text)):
        imported: list[str] = []
        if isinstance(node, ast.Import):
            imported = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, *([base] if base else [])])
            imported = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                imported = [node.args[0].value]
        for name in imported:
            parts = name.split(".")
            if parts[:2] == ["workbench", "methods"] and len(parts) > 2 and parts[2] in names:
                found.append((node.lineno, parts[2]))
    return sorted(set(found))


def _installed_name(path: Path) -> str:
    """A file's dotted module name as the wheel installs it (store/x.py: workbench.store.x)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts[-1] = "_"  # a package's own relative imports start from the package itself
    return ".".join(parts if parts[0] == "workbench" else ["workbench", *parts])


SCREEN_HOOKS = ("design_screen", "template_editing", "review_views")


def _screens_a_method_names() -> set[tuple[str, str]]:
    """(module, method): the screen modules a method's `design_screen`, `template_editing` or
    `review_views` hook names, the only screens that may import that method (its Design tab and
    its Review views are its own)."""
    from workbench import methods
    from workbench.methods.hooks import hook

    hooks = [(name, hook(methods.get(name), which)) for name in methods.names() for which in SCREEN_HOOKS]
    # a Review view names its screen as `ReviewView.screen`; the other hooks are the screen
    named = [(name, view.screen) for name, v in hooks if isinstance(v, tuple) for view in v]
    named += [(name, v) for name, v in hooks if v is not None and not isinstance(v, tuple)]
    return {(v.partition(":")[0] if isinstance(v, str) else v.__module__, name) for name, v in named}


def test_the_core_imports_no_method():
    """The core (workbench/ outside workbench/methods/, the store, widgets) reaches a method only
    through the registry's hooks: no import of a discovered method's package, in any form. A
    screen may import a method only where that method's own hook names the screen."""
    from workbench import methods

    names = set(methods.names()) | set(methods.BUILTIN)
    allowed = _screens_a_method_names()
    assert any(module.startswith("workbench.screens.") for module, _name in allowed)  # derived, not listed
    offenders = []
    for package in ("workbench", "store", "screens", "widgets"):
        for path in (ROOT / package).rglob("*.py"):
            if path.relative_to(ROOT).parts[:2] == ("workbench", "methods"):
                continue
            module = _installed_name(path)
            for line, method in _method_imports(path.read_text(), module, names):
                if (module, method) not in allowed:
                    offenders.append(f"{path.relative_to(ROOT)}:{line} imports method {method!r}")
    assert offenders == []


def test_the_method_import_check_sees_every_form():
    """The check above finds a method's import written in any of these ways, and nothing else."""
    names = {"choice", "identity"}
    forms = [
        "import workbench.methods.choice",
        "import workbench.methods.choice.counts as c",
        "from workbench.methods.choice.counts import ResponseList",
        "from workbench.methods import registry, identity",
        "def f():\n    from workbench.methods.choice import paired",
        "from ..methods.identity import paired",
        "from importlib import import_module\nimport_module('workbench.methods.choice.paired')",
        "import importlib\nimportlib.import_module('workbench.methods.identity')",
    ]
    for form in forms:
        assert _method_imports(form, "workbench.report.x", names), form
    harmless = "from workbench.methods import registry\nfrom workbench import methods\nimport workbench.metrics"
    assert _method_imports(harmless, "workbench.report.x", names) == []
    assert _method_imports("from . import choice", "workbench.methods.x", names)  # relative, resolved


def test_no_loose_modules():
    """workbench/ holds packages by concept; at its top only the app, the entry point, the
    plugin API and the error family (docs/architecture.md says where a new module goes)."""
    loose = sorted(p.name for p in (ROOT / "workbench").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "app.py", "errors.py", "plugin.py"]


def test_every_path_of_0_1_still_imports():
    """A plugin written against 0.1 imports modules by their old paths: each resolves to the
    module it became (store/moved.py), with a DeprecationWarning."""
    import importlib
    import warnings

    from workbench.store.moved import OLD_PATHS

    for old, new in OLD_PATHS.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert importlib.import_module(old) is importlib.import_module(new), old
        assert not caught or issubclass(caught[0].category, DeprecationWarning)
