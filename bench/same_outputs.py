"""Whether a change altered what users read: every method's example store, made once on the
bundled model, then `metrics --format json`, every export and both report formats written from
a fresh copy of each store; run it before and after a change and compare the folders.

    python bench/same_outputs.py make STORES        # the four example stores (about 2 minutes)
    python bench/same_outputs.py write STORES OUT   # the outputs of the code checked out now
    diff -r OUT_BEFORE OUT_AFTER                    # nothing, for a change of shape only

The version string and the report's time of writing are replaced by fixed text (they differ
by design between two commits); everything else is compared byte for byte.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

METHODS = ("choice", "coldstart", "identity", "entity")
EXPORTS = (
    "responses", "mentions", "entities", "rankings", "identity", "scores", "entity_bias", "metrics", "decisions",
    "reviews",
)  # fmt: skip
VOLATILE = [
    (re.compile(r"(?i)(workbench[ _-]?version\W+|audit-workbench )\d+\.\d+\.\d+\S*"), r"\1VERSION"),
    (re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?(\.\d+)?(Z|[+-]\d\d:?\d\d)?"), "TIME"),
]


def _workbench(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, cwd=cwd)


def make(stores: Path) -> None:
    """Each method's example as `workbench init` writes it, run whole, with the imports init names."""
    stores.mkdir(parents=True, exist_ok=True)
    for method in METHODS:
        folder = stores / method
        folder.mkdir(exist_ok=True)
        init = _workbench("init", method, "study.toml", "--force", cwd=folder)
        assert init.returncode == 0, init.stderr
        ran = _workbench("run", "study.toml", "--db", "audit.db", cwd=folder)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        for line in init.stdout.splitlines():
            if "workbench import " in line:
                step = shlex.split(line.split("workbench ", 1)[1])
                done = _workbench(*step, cwd=folder)
                assert done.returncode == 0, done.stderr
        print(method, "made", file=sys.stderr)


def write(stores: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for method in METHODS:
        with tempfile.TemporaryDirectory() as scratch:
            db = Path(scratch) / "audit.db"
            shutil.copy(stores / method / "audit.db", db)
            runs = {"metrics.json": ("metrics", "--format", "json"), "metrics.txt": ("metrics",)}
            for what in EXPORTS:
                for fmt in ("csv", "json", "md"):
                    runs[f"export-{what}.{fmt}"] = ("export", "--what", what, "--format", fmt)
            for fmt in ("html", "md"):
                runs[f"report.{fmt}"] = ("report", "--format", fmt, "-o", str(Path(scratch) / f"r.{fmt}"))
            for name, args in runs.items():
                done = _workbench(*args, "--db", str(db), cwd=Path(scratch))
                text = f"exit {done.returncode}\n{done.stdout}\n--- stderr\n{done.stderr}"
                if name.startswith("report") and (Path(scratch) / name.replace("report", "r")).exists():
                    text += (Path(scratch) / name.replace("report", "r")).read_text("utf-8")
                for pattern, fixed in VOLATILE:
                    text = pattern.sub(fixed, text)
                (out / f"{method}-{name}").write_text(
                    text.replace(scratch, "SCRATCH").replace(scratch.replace("_", "\\_"), "SCRATCH"), "utf-8"
                )
        print(method, "written", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    sub.add_parser("make").add_argument("stores", type=Path)
    written = sub.add_parser("write")
    written.add_argument("stores", type=Path)
    written.add_argument("out", type=Path)
    args = parser.parse_args()
    make(args.stores) if args.step == "make" else write(args.stores, args.out)


if __name__ == "__main__":
    main()
