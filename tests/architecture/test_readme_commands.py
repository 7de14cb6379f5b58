"""The README's commands, run as a reader types them: every `workbench` command of the sh blocks
under "Quick start" and "A short tour", read from README.md itself, so an edited README is what
is tested.

What differs from a reader's machine, and only that:
- the set-up before `&&` (`python3 -m venv`, `pip install`) is skipped: this environment is it;
- the test command (`python -m pytest`) is this suite: it must be there, it is not run again;
- every model is the test server (tests/openai_server.py, a real OpenAI-compatible server on
  127.0.0.1): a study file a command runs gets its `models` pointed there (a copy, when the file
  is one of the repository's), and so does any `--model`;
- `workbench demo` cannot be pointed at another model (it runs assets/studies/demo.toml on the
  bundled one), so its steps are run instead on a copy of the demo study with the model
  replaced: the brands' regions imported, the study run, its metrics printed; `demo --help`
  shows the command is there;
- `workbench tui` runs headless (Textual's own headless mode): it opens, `2` shows Metrics with
  numbers, and it quits.

The tour's commands run in order in an empty folder, each as written (no placeholders: the
files they name are the ones the earlier commands write)."""

from __future__ import annotations

import re
import shlex
import shutil
from importlib.resources import files
from pathlib import Path

import pytest
from helpers import run_cli, wait_for
from textual.app import App

APP_RUN = App.run  # Textual's own, before a test makes it headless

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

# The quick start's two lines, byte for byte: CI reads the test command from the README.
QUICK_START = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/workbench demo",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
)
# The first table `workbench metrics` prints for a study of each method.
FIRST_TABLES = (
    "Preferred entity (PEIR)",
    "Cold-start: divergence from the neutral list",
    "Identity disclosure: mean share of the user's group",
    "Label probabilities: entities ranked by Delta",
)


def section(heading: str) -> str:
    """The README's text under `## heading`, up to the next heading of that level."""
    text = README.read_text("utf-8")
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"README.md has no section '## {heading}'"
    return match.group(1)


def sh_lines(text: str) -> list[str]:
    """The command lines of the sh blocks in `text` (continuations joined, comment lines out)."""
    lines: list[str] = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append(line.rstrip())
    return lines


def steps(line: str) -> list[list[str]]:
    """The commands of one line, each as its words: `a && b` is two (comments dropped)."""
    commands: list[list[str]] = [[]]
    for word in shlex.split(line, comments=True):
        if word == "&&":
            commands.append([])
        else:
            commands[-1].append(word)
    return [command for command in commands if command]


def kind(command: list[str]) -> str:
    """setup (a venv, pip), suite (the tests) or workbench; anything else is not known here."""
    program = Path(command[0]).name
    if program == "workbench":
        return "workbench"
    if (program.startswith("python") and command[1:3] == ["-m", "venv"]) or program == "pip":
        return "setup"
    if program.startswith("python") and command[1:3] == ["-m", "pytest"]:
        return "suite"
    return "unknown"


def workbench_commands(heading: str) -> list[list[str]]:
    """The arguments of each `workbench` command in the section's sh blocks, in order."""
    found = []
    for line in sh_lines(section(heading)):
        for command in steps(line):
            assert kind(command) != "unknown", f"README, {heading}: a command this test cannot run: {line}"
            if kind(command) == "workbench":
                found.append(command[1:])
    return found


def test_the_quick_start_and_tour_are_commands_a_reader_can_run():
    quick = sh_lines(section("Quick start"))
    for line in QUICK_START:
        assert line in quick, f"the quick start must keep this line as it is: {line}"
    assert ["suite"] == [kind(c) for line in quick for c in steps(line) if kind(c) == "suite"]
    assert [c[0] for c in workbench_commands("Quick start")] == ["demo"]
    tour = workbench_commands("A short tour")
    assert tour, "the tour shows no workbench command"
    for command in tour:  # nothing for a reader to fill in
        assert not any(mark in word for word in command for mark in ("<", ">", "...", "DIR")), command


def point_at(study: Path, model: str) -> None:
    """The study file's models replaced by `model` (its comments and other keys kept)."""
    import tomlkit

    document = tomlkit.parse(study.read_text("utf-8"))
    document["models"] = [model]
    study.write_text(tomlkit.dumps(document), "utf-8")


def local_study(command: list[str], here: Path, model: str) -> list[str]:
    """`command` with its study file (the first argument ending in .toml) a file of this folder
    whose models are `model`: a study of the repository is copied here with the files beside it.
    A study file neither here nor in the repository is one the command writes (`init`)."""
    command = list(command)
    for i, word in enumerate(command[1:], 1):
        if word.endswith(".toml") and command[i - 1] != "--model":
            study = here / word
            if not study.exists():
                source = ROOT / word
                if not source.is_file():
                    break
                copy = here / "copied" / source.parent.name
                shutil.copytree(source.parent, copy, dirs_exist_ok=True)
                study = copy / source.name
                command[i] = str(study)
            point_at(study, model)
            break
    return [model if i and command[i - 1] == "--model" else word for i, word in enumerate(command)]


def demo_steps(here: Path, model: str) -> None:
    """What `workbench demo` does, on a copy of its study with the model replaced."""
    studies = Path(str(files("workbench.assets").joinpath("studies")))
    folder = here / "demo"
    folder.mkdir()
    for name in ("demo.toml", "demo_brands.csv"):
        shutil.copy(studies / name, folder / name)
    point_at(folder / "demo.toml", model)
    db = str(folder / "demo.db")
    regions = run_cli("import", "entities", str(folder / "demo_brands.csv"), "--db", db)
    assert regions.returncode == 0, regions.stderr
    ran = run_cli("run", str(folder / "demo.toml"), "--db", db, "--quiet")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "All 108 requests answered" in ran.stdout, ran.stdout
    metrics = run_cli("metrics", "--db", db)
    assert metrics.returncode == 0, metrics.stderr
    assert metrics.stdout.startswith("Preferred entity (PEIR)"), metrics.stdout[:500]
    assert "Geographic bias: log-odds ratio" in metrics.stdout
    assert run_cli("demo", "--help").returncode == 0


def open_app(command: list[str], monkeypatch) -> None:
    """`workbench tui ...` headless: it opens, `2` shows the Metrics screen with numbers, `q`."""
    from textual.widgets import DataTable

    seen: list[bool] = []

    async def drive(pilot) -> None:
        await pilot.press("2")
        app = pilot.app
        seen.append(
            await wait_for(
                pilot,
                lambda: app.current_mode == "metrics" and any(t.row_count for t in app.screen.query(DataTable)),
            )
        )
        await pilot.press("q")

    monkeypatch.setattr(App, "run", lambda self, **_: APP_RUN(self, headless=True, size=(120, 40), auto_pilot=drive))
    monkeypatch.setattr("workbench.cli.tui.in_a_terminal", lambda: True)  # the app headless stands for one
    done = run_cli(*command)
    assert done.returncode == 0, done.stdout + done.stderr
    assert seen == [True], "the app did not show the metrics"


def check(command: list[str], done, here: Path) -> None:
    """What a reader checks after each command: it succeeded, and it did what it says."""
    assert done.returncode == 0, f"workbench {shlex.join(command)}:\n{done.stdout}\n{done.stderr}"
    name, rest = command[0], command[1:]
    output = next((rest[i + 1] for i, w in enumerate(rest[:-1]) if w in ("-o", "--output")), None)
    if name == "init" and len(rest) > 1:
        assert (here / rest[1]).exists() and done.stdout.startswith("Wrote")
    elif name == "run":
        assert re.search(r"All \d+ requests answered", done.stdout), done.stdout
    elif name == "status":
        assert "pending" in done.stdout and "failed" in done.stdout
    elif name == "metrics":
        assert done.stdout.startswith(FIRST_TABLES), done.stdout[:500]
    elif name == "review":
        assert done.stdout.strip()
    elif name in ("export", "report") and output:
        written = here / output
        assert written.exists() and written.stat().st_size > 100, output
        if output.endswith(".html"):
            assert written.read_text("utf-8").lstrip().lower().startswith("<!doctype html")


@pytest.mark.slow
def test_the_readme_commands_run(tmp_path, fake_server, monkeypatch):
    server = fake_server()
    model = f"openai:test-model@{server.base_url}"
    monkeypatch.chdir(tmp_path)
    for command in workbench_commands("Quick start"):
        assert command[0] == "demo", command
        demo_steps(tmp_path, model)
    for command in workbench_commands("A short tour"):
        command = local_study(command, tmp_path, model)
        if command[0] == "tui":
            open_app(command, monkeypatch)
            continue
        check(command, run_cli(*command), tmp_path)
    assert server.stats.ok > 0
