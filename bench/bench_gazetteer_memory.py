"""Peak memory of gazetteer extraction on long answers and large gazetteers, and what a study
with a 5 MB system prompt costs.

Each figure is the peak resident memory of a child process (/proc/self/status VmHWM) over a
floor, the same child without the step measured:

1. `find` on a 4.5 MB answer (1,000,000 words: common words, one in 40 a brand of the demo's
   gazetteer, assets/studies/demo_brands.csv, 98 brands, some written one edit away);
2. `find` on a 3,000-word answer against 100,000 generated names (1 to 3 words, 4 to 20 letters);
3. `workbench run` of a gazetteer study whose one question is answered by an OpenAI-compatible
   server (tests/openai_server.py) with that 4.5 MB answer: the whole run, storing included, over
   a process that only loads the workbench;
4. `workbench run` of a study whose system prompt is 5 MB: refused at load (its time and peak).

With --all-at-once, 1 and 2 are also measured matching as before, every window of the answer
against every spelling in one distance matrix (tests/methods/choice/test_gazetteer_blocks.py keeps that
matching as the specification of the result; it takes some 4 GB for 1).

    .venv/bin/python bench/bench_gazetteer_memory.py [--words 1000000] [--names 100000] [--all-at-once]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

CHILD = r"""
import random, re, sys
from pathlib import Path
sys.path.insert(0, "tests")
from workbench.methods.choice import gazetteer
from workbench.methods.choice.gazetteer import Gazetteer, spelling

case, mode, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(40)
WORDS = ("the a of and to in is for it on with as this by best pick shoe run light value "
         "balance comfort price daily long road trail fit").split()

def misspelt(name):
    at = rng.randrange(len(name))
    return name[:at] + rng.choice("aeiou") + name[at + 1:]

if case == "long":  # the demo's gazetteer, a `size`-word answer
    names = gazetteer.load(Path("assets/studies/demo_brands.csv"))
    brands = names.names
    pick = lambda: (misspelt(b) if rng.random() < 0.2 else b) if rng.random() < 0.025 and (b := rng.choice(brands)) else rng.choice(WORDS)
    text = " ".join(pick() for _ in range(size))
else:  # `size` generated names, a 3,000-word answer
    syllables = "ka lo mi ra sen tor vi na do be lu gan fer zo qui pa hel mar tis ob".split()
    seen, spellings = set(), []
    while len(spellings) < size:
        name = " ".join(
            "".join(rng.choice(syllables) for _ in range(rng.randint(2, 5))).capitalize()
            for _ in range(rng.choice((1, 1, 2, 3)))
        )
        if name.casefold().replace(" ", "") not in seen:
            seen.add(name.casefold().replace(" ", ""))
            spellings.append(spelling(name, name))
    names = Gazetteer(spellings)
    chosen = [s.text for s in rng.sample(spellings, 100)]
    text = " ".join(rng.choice(chosen) if rng.random() < 0.03 else rng.choice(WORDS) for _ in range(3000))
found = None
if mode == "blocked":
    found = names.find(text)
elif mode == "all_at_once":
    from test_gazetteer_blocks import reference_find
    found = reference_find(names._index(None).spellings, text, True)
print(len(text.encode()), -1 if found is None else len(found),
      int(re.search(r"VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text()).group(1)) * 1024)
"""


def child(case: str, mode: str, size: int) -> tuple[int, int, int, float]:
    """(answer bytes, names found, peak bytes, seconds) of the child script."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, case, mode, str(size)], capture_output=True, text=True, cwd=ROOT
    )
    if done.returncode != 0:
        sys.exit(done.stderr)
    size_bytes, found, peak = map(int, done.stdout.split())
    return size_bytes, found, peak, time.perf_counter() - started


def peak_rss(*command: str) -> tuple[int, float, subprocess.CompletedProcess]:
    """(maximum resident set size in bytes, seconds, the process) of one command under /usr/bin/time -v."""
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - started
    kilobytes = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    return kilobytes * 1024, elapsed, done


def extraction(case: str, size: int, modes: list[str]) -> None:
    _, _, floor, floor_s = child(case, "floor", size)
    for mode in modes:
        answer, found, peak, seconds = child(case, mode, size)
        what = f"{size:,}-word answer, demo's 98 brands" if case == "long" else f"{size:,} names, 3,000-word answer"
        print(
            f"{what} ({answer / 1e3:,.0f} kB), {mode.replace('_', ' ')}: {found:,} names found, "
            f"peak {(peak - floor) / 1e6:.0f} MB over the floor ({floor / 1e6:.0f} MB), {seconds - floor_s:.1f} s"
        )


def whole_run(words: int) -> None:
    """A gazetteer study run against a server answering the 4.5 MB answer, and a 5 MB system prompt."""
    from openai_server import ServerConfig, ServerThread

    floor, _, _ = peak_rss(sys.executable, "-c", "import workbench.cli, workbench.methods.choice.data")
    text = subprocess.run(
        [sys.executable, "-c", CHILD.replace("found = None", "print(text); sys.exit()"), "long", "floor", str(words)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    with tempfile.TemporaryDirectory() as tmp, ServerThread(ServerConfig(reply_text=text)) as server:
        shutil.copy(ROOT / "assets" / "studies" / "demo_brands.csv", Path(tmp) / "brands.csv")
        study = Path(tmp) / "s.toml"
        body = (
            f'name = "t"\nmethod = "choice"\nmodels = ["openai:m@{server.base_url},retries=0"]\n'
            '[extraction]\nmethod = "gazetteer"\nentities = "brands.csv"\n'
            "[generation]\nmax_tokens = 16\n{system}\n"
            '[[clusters]]\nname = "B"\n[[topics]]\nname = "shoes"\n[topics.questions]\n"B" = ["Which shoe?"]\n'
        )
        study.write_text(body.format(system=""))
        command = (sys.executable, "-m", "workbench", "run", str(study), "--db", str(Path(tmp) / "a.db"), "--quiet")
        peak, seconds, done = peak_rss(*command)
        said = done.stdout.strip().splitlines()[-2:]
        print(
            f"workbench run, one {len(text.encode()) / 1e6:.1f} MB answer, gazetteer extraction: peak "
            f"{(peak - floor) / 1e6:.0f} MB over the floor ({floor / 1e6:.0f} MB), {seconds:.1f} s; {' / '.join(said)}"
        )
        study.write_text(body.format(system=f'system = "{"x" * 5_000_000}"'))
        peak, seconds, done = peak_rss(*command[:-2], str(Path(tmp) / "b.db"), "--quiet")
        said = next(line for line in done.stderr.splitlines() if line.startswith("error:"))
        print(
            f"workbench run, a 5 MB system prompt: exit {done.returncode} in {seconds:.1f} s, peak "
            f"{peak / 1e6:.0f} MB (the floor: {floor / 1e6:.0f} MB); {said[-110:]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=1_000_000, help="words of the long answer (default 1,000,000)")
    parser.add_argument("--names", type=int, default=100_000, help="names of the large gazetteer (default 100,000)")
    parser.add_argument("--all-at-once", action="store_true", help="also match as before (some 4 GB)")
    args = parser.parse_args()
    if not Path("/proc/self/status").exists() or not Path("/usr/bin/time").exists():
        sys.exit("needs /proc/self/status and /usr/bin/time (GNU time) for the peak resident memory")
    modes = ["blocked"] + (["all_at_once"] if args.all_at_once else [])
    extraction("long", args.words, modes)
    extraction("many", args.names, modes)
    whole_run(args.words)


if __name__ == "__main__":
    main()
