"""Small builders shared by the tests: study files and CLI runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
