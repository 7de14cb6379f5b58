"""Small builders shared by the tests: study files, imported lists, CLI runs, and waits
for the app driven headless (by `App.run_test`'s pilot)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_study(
    path: Path,
    *,
    models: list[str],
    questions: int = 10,
    repetitions: int = 1,
    name: str = "t",
    max_tokens: int = 16,
    temperature: float = 0.7,
    extra_generation: str = "",
) -> Path:
    """A study with one cluster and `questions` distinct questions (questions x repetitions requests)."""
    qs = [f"Which brand of item number {i} would you recommend?" for i in range(questions)]
    path.write_text(
        f'name = "{name}"\nmethod = "choice"\nrepetitions = {repetitions}\nseed = 3\n'
        f"models = {json.dumps(models)}\n"
        f"[generation]\ntemperature = {temperature}\nmax_tokens = {max_tokens}\n{extra_generation}\n"
        '[[clusters]]\nname = "Budget-Conscious"\ndescription = "Wants value."\n'
        '[[topics]]\nname = "gadgets"\n[topics.questions]\n'
        f'"Budget-Conscious" = {json.dumps(qs)}\n'
    )
    return path


def run_cli(
    *args: str, env: dict | None = None, timeout: float = 300, process: bool = False
) -> subprocess.CompletedProcess:
    """Run `workbench ARGS` as a user would and return its exit status and output.

    In this process by default (`main([...])` with standard output and error
    captured: a test then costs no interpreter start-up); `process=True` runs
    `python -m workbench` as a child, where a separate process is the point."""
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
    if process:
        return subprocess.run(
            [sys.executable, "-m", "workbench", *args],
            capture_output=True,
            text=True,
            env=full_env,
            timeout=timeout,
            cwd=ROOT,
        )
    import contextlib
    import io

    from workbench.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    os.environ.update(full_env)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exc:  # argparse refusing the arguments
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return subprocess.CompletedProcess(["workbench", *args], code, out.getvalue(), err.getvalue())


def start_run(study: Path, db: Path) -> subprocess.Popen:
    """`workbench run` in the background, as a user's terminal would hold it."""
    return subprocess.Popen(
        [sys.executable, "-m", "workbench", "run", str(study), "--db", str(db), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "NO_COLOR": "1"},
    )


def kill_run_once(study: Path, db: Path, sql: str, at_least: int, timeout: float = 300) -> None:
    """Start a run and kill -9 it as soon as `sql` (one count) reaches `at_least`."""
    import signal
    import sqlite3
    import time

    proc = start_run(study, db)
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
        if db.exists():
            conn = sqlite3.connect(db)
            try:
                if conn.execute(sql).fetchone()[0] >= at_least:
                    break
            except sqlite3.OperationalError:  # schema not created yet
                pass
            finally:
                conn.close()
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def write_mentions(path: Path) -> Path:
    """Ranked lists of two models (gpt: Nike first, gemini: Adidas), two topics, two clusters,
    two repetitions of three questions, as `workbench import mentions` reads them."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for model, top in (("gpt", "Nike"), ("gemini", "Adidas")):
            for topic in ("shoes", "phones"):
                for cluster in ("Budget-Conscious", "Convenience"):
                    for rep in (1, 2):
                        for q in range(3):
                            entities = [top, "Asics", "Puma"][: 1 + q]
                            for rank, entity in enumerate(entities, 1):
                                writer.writerow([model, topic, cluster, f"{cluster}{q}", rep, rank, entity])
    return path


def mentions_store(tmp_path: Path) -> Path:
    """A database of `write_mentions`' lists, imported as study "s"."""
    db = tmp_path / "a.db"
    done = run_cli("import", "mentions", str(write_mentions(tmp_path / "m.csv")), "--db", str(db), "--study", "s")
    assert done.returncode == 0, done.stderr
    return db


def imported_mentions(tmp_path: Path, counts) -> Path:
    """A database with one-entity answers: `counts` is (entity, how many answers) pairs."""
    path = tmp_path / "m.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        q = 0
        for entity, times in counts:
            for _ in range(times):
                writer.writerow(["gpt", "shoes", "Convenience", f"q{q}", 1, 1, entity])
                q += 1
    db = tmp_path / "audit.db"
    assert run_cli("import", "mentions", str(path), "--db", str(db), "--study", "s").returncode == 0
    return db


# -- the app driven headless ----------------------------------------------------------


async def wait_for(pilot, condition, timeout=30.0):
    """Wait until `condition()` holds (polling between frames), not for a fixed time."""
    from textual.css.query import NoMatches

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return True
        except NoMatches:  # between two screens (a modal closing, the next opening): not yet
            pass
        await pilot.pause(0.05)
    return False


async def on_screen(pilot, name: str, timeout=30.0):
    """Wait until the screen on top is the one called `name` (a modal opening or closing)."""
    return await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == name, timeout)


async def settled(pilot):
    """Wait until every worker of the app is done (stores, loads, recomputes)."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def table_text(app, selector):
    """The cells of a table on the screen on view, as text, row by row."""
    table = app.screen.query_one(selector)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


# The last line of a script `peak_memory` runs: the process's own peak resident memory
# (ru_maxrss would carry its parent's over the exec).
PRINT_PEAK = 'print(int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) * 1024)'


def peak_memory(script: str, *args: object) -> int:
    """The peak resident memory in bytes of `python -c script args` (the script ends with
    PRINT_PEAK), the workbench's loading included."""
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return int(done.stdout)


def shown(widget) -> str:
    """A widget's text as drawn on screen (every line of it, scrolled out of view or not)."""
    from textual.geometry import Region

    height = max(widget.virtual_size.height, widget.size.height)
    return "\n".join(strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, widget.size.width, height)))


async def retype_list(pilot, names: list[str]) -> None:
    """On the list editor (the Review screen's e): every item removed, then `names` added one
    by one, as a reviewer types them; Enter on the empty line then saves."""
    editor = pilot.app.screen
    if editor.names:
        await pilot.press("down")  # into the list
        for _ in range(len(editor.names)):
            await pilot.press("delete")
    for name in names:
        await pilot.press(*name, "enter")


def footer_text(app) -> str:
    """The keys the footer of the screen on view offers, as drawn ("a Accept  e Edit ...")."""
    return "  ".join(shown(key).strip() for key in app.screen.query("FooterKey"))
