"""One long line against many short ones: the CSV reader's time and peak memory on two files
of the same size, one of normal lines and one whose single row holds one huge cell.

The reader once re-split the unfinished line it carried at every block (1 MB) it read, so a
line took time quadratic in its length: a 25 MB line imported in 13 s (453 MB), 50 MB in
34 s (865 MB), 200 MB in 4 min before "field larger than field limit". Now each character
is looked at once, a field grows as slices of the blocks joined once, and one past the
field limit (64 MB) is refused as soon as it passes it. The acceptance: the one-line file
takes at most twice the time of the file of normal lines, and its peak memory above the
floor (a process that only loads the reader) stays under twice the field limit.

Each reading runs in its own process (its peak resident memory is its own); the times are
compared with each other, measured in this run. --old also reads both files the way the
reader did before (lenient `csv.reader` over re-split lines); --import also times
`workbench import responses` on both files made as answers (a model's answer is the long
text a CSV cell holds), the whole command: parsing and storing included.

    .venv/bin/python bench/bench_long_line.py [--mb 50] [--old] [--import]
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEAK = 'int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) * 1024'

# Read every row as the imports do (read_rows: a dict per row), or only load the reader (argv[1] "").
READ = f"""
import re, sys, time
from pathlib import Path
from workbench.files.csv_input import read_rows
started, rows = time.perf_counter(), 0
for _line, row in (read_rows(sys.argv[1]) if sys.argv[1] else ()):
    rows += 1
print(rows, time.perf_counter() - started, {PEAK})
"""

# The reader before: each 1 MB block decoded, the unfinished line carried over and split again
# with the next block; the lines to a lenient csv.reader.
OLD = f"""
import codecs, csv, io, re, sys, time
from pathlib import Path
csv.field_size_limit(64 * 1024 * 1024)
def lines(path):
    with open(path, "rb") as handle:
        carry, data = "", b""
        while True:
            block = handle.read(1 << 20)
            data += block
            text, used = codecs.utf_8_decode(data, "strict", not block)
            data = data[used:]
            found = io.StringIO(carry + text, newline="").readlines()
            carry = found.pop() if block and found and not found[-1].endswith("\\n") else ""
            yield from found
            if not block:
                return
started, rows = time.perf_counter(), 0
reader = csv.reader(lines(sys.argv[1]))
header = next(reader)
for values in reader:
    row, rows = dict(zip(header, values)), rows + 1
print(rows, time.perf_counter() - started, {PEAK})
"""

IMPORT = f"""
import re, sys, time
from pathlib import Path
from workbench.cli import main
started = time.perf_counter()
code = main(sys.argv[1:]) if sys.argv[1:] else 0
print(code, time.perf_counter() - started, {PEAK}, file=sys.stderr)
"""


def run(script: str, *args: object) -> tuple[str, float, int]:
    """(first figure, seconds, peak resident bytes) the script prints on its last line."""
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    last = (done.stderr if script is IMPORT else done.stdout).strip().splitlines()
    if done.returncode != 0 or not last:
        sys.exit(f"failed:\n{done.stdout}{done.stderr}")
    first, seconds, peak = last[-1].split()
    return first, float(seconds), int(peak)


def normal_lines(path: Path, size: int) -> None:
    """A mentions file of short rows, `size` bytes or a little more."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        n = 0
        while handle.tell() < size:
            writer.writerows(
                [
                    f"model-{n % 8}",
                    f"topic-{n % 10:02d}",
                    f"Cluster {n % 9}",
                    f"q{n:06d}",
                    1,
                    r,
                    f"Brand {n * r % 2000:04d}",
                ]
                for r in range(1, 11)
            )
            n += 1


def one_line(path: Path, size: int, header: str, cells: str) -> None:
    """A header and one row whose last cell is `size` bytes of words (no quote, no comma)."""
    words = "lorem ipsum dolor sit amet " * 1000
    with path.open("w", newline="") as handle:
        handle.write(f"{header}\n{cells},")
        for _ in range(size // len(words)):
            handle.write(words)
        handle.write("\n")


def answers(path: Path, size: int) -> None:
    """A responses file of short answers (three numbered lines each), `size` bytes or a little more."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "seed", "persona_category", "persona", "response"])
        n = 0
        while handle.tell() < size:
            writer.writerows(
                [f"m{n % 4}", n // 1000, "age", f"persona {n % 1000}", f"1. The Matrix\n2. Oldboy\n3. Film {n}"]
                for n in range(n, n + 100)
            )
            n += 100


def compare(name: str, script: str, files: dict[str, Path], floor: int, limit: int) -> None:
    figures = {}
    for kind, path in files.items():
        first, seconds, peak = run(script, *([path] if script is not IMPORT else path))
        figures[kind] = seconds
        above = peak - floor
        print(
            f"{name}, {kind}: {'exit ' if script is IMPORT else ''}{first}{'' if script is IMPORT else ' rows'}, "
            f"{seconds:.2f} s, peak {peak / 1e6:.0f} MB, "
            f"{above / 1e6:.0f} MB above the floor = {above / limit:.2f}x the field limit"
        )
    ratio = figures["one line"] / figures["normal lines"]
    print(f"{name}: one line / normal lines = {ratio:.2f}x the time")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=50, help="each file's size in MB (default 50)")
    parser.add_argument("--old", action="store_true", help="also read both files as the reader did before")
    parser.add_argument("--import", dest="full", action="store_true", help="also `workbench import responses`")
    args = parser.parse_args()
    if not Path("/proc/self/status").exists():
        sys.exit("reads each process's peak memory from /proc")
    from workbench.files.csv_records import FIELD_LIMIT

    size = args.mb * 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        files = {"normal lines": Path(tmp) / "normal.csv", "one line": Path(tmp) / "one.csv"}
        normal_lines(files["normal lines"], size)
        one_line(files["one line"], size, "model,topic,cluster,question_id,repetition,rank,entity", "m,t,c,q,1,1")
        print(", ".join(f"{kind}: {path.stat().st_size / 1e6:.1f} MB" for kind, path in files.items()))
        _, _, floor = run(READ, "")
        print(f"a process that only loads the reader: {floor / 1e6:.0f} MB; field limit {FIELD_LIMIT / 1e6:.0f} MB")
        compare("reader", READ, files, floor, FIELD_LIMIT)
        if args.old:
            compare("reader before", OLD, files, floor, FIELD_LIMIT)
        if args.full:
            catalog = Path(tmp) / "catalog.csv"
            catalog.write_text("title\nThe Matrix\nOldboy\n")
            answers(Path(tmp) / "answers.csv", size)
            one_line(Path(tmp) / "answer.csv", size, "model,seed,persona_category,persona,response", "m,0,,neutral")
            commands = {
                kind: ["import", "responses", Path(tmp) / name, "--catalog", catalog]
                + ["--db", Path(tmp) / f"{name}.db", "--study", "s"]
                for kind, name in (("normal lines", "answers.csv"), ("one line", "answer.csv"))
            }
            _, _, floor = run(IMPORT)
            print(f"a process that only loads the workbench: {floor / 1e6:.0f} MB")
            compare("import responses", IMPORT, commands, floor, FIELD_LIMIT)


if __name__ == "__main__":
    main()
