"""Two reviewers on the demo's validation sample, headless, through the review commands.

Run `workbench demo --no-tui --db DB` first. Two scripted reviewers read each answer of the
validation sample (15 questions per topic) and keep the extracted names that the answer
text really contains: `ana` (first reviewer) keeps a name when the whole name appears in
the answer, `bo` (second reviewer, blind) when its first word does. Their verdicts go
through `workbench review verdict` exactly as a script of a team's would; the agreement is
`workbench review agreement`. The figures are the tool's reading of two rules, not of two
people: what they show is the loop working end to end on real model output.

    python bench/two_reviewers_walkthrough.py --db demo.db --study demo
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.cli import main  # noqa: E402


def cli(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in args])
    if code:
        raise SystemExit(f"workbench {' '.join(args)}: exit {code}")
    return out.getvalue()


def kept(names: list[str], answer: str, whole: bool) -> list[str]:
    text = answer.casefold()
    return [n for n in names if (n if whole else n.split()[0]).casefold() in text]


def main_(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("--study", default="demo")
    args = parser.parse_args(argv)
    from workbench.store.db import connect

    conn = connect(args.db, create=False)
    sample = json.loads(cli("review", "sample", "--db", args.db, "--study", args.study, "--format", "json"))
    lists = {
        r["list_id"]: r
        for r in json.loads(cli("review", "lists", "--db", args.db, "--study", args.study, "--format", "json"))
    }
    decided = {"ana": {"accept": 0, "edit": 0, "reject": 0}, "bo": {"accept": 0, "edit": 0, "reject": 0}}
    for item in sample:
        record = lists[item["id"]]
        answer = conn.execute(
            "SELECT r.text FROM responses r JOIN mention_lists l ON l.response_key = r.request_key WHERE l.id = ?",
            (item["id"],),
        ).fetchone()[0]
        for who, whole, blind in (("ana", True, False), ("bo", False, True)):
            names = record["extracted"]
            keep = kept(names, answer, whole)
            how = (
                ["--accept"]
                if keep == names
                else ["--reject"]
                if not keep
                else [x for n in keep for x in ("--edit", n)]
            )
            decided[who][how[0].lstrip("-")] += 1
            cli(
                "review",
                "verdict",
                "--db",
                args.db,
                "--study",
                args.study,
                "--list",
                item["id"],
                "--who",
                who,
                *(["--blind"] if blind else []),
                *how,
            )
    print(f"validation sample: {len(sample)} lists; verdicts: {decided}")
    print(cli("review", "agreement", "--db", args.db, "--study", args.study, "--first", "ana", "--second", "bo"))
    print(
        cli(
            "review",
            "agreement",
            "--db",
            args.db,
            "--study",
            args.study,
            "--first",
            "ana",
            "--second",
            "bo",
            "--format",
            "json",
        )
    )


if __name__ == "__main__":
    main_()
