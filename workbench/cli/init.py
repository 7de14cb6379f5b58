"""`workbench init [METHOD] [FILE]`: a commented starter study file for any method."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from workbench.cli.common import UserError, make_console
from workbench.text.literal import literal_text

EXAMPLES = """\
examples:
  workbench init                          list the methods and their starter files
  workbench init choice                   write choice_study.toml (the demo study) here
  workbench init coldstart movies.toml    a cold-start study with its small catalog beside it
  workbench run movies.toml --db audit.db   then run it (edit it first: models, questions, ...)
"""


def cmd_init(args: argparse.Namespace) -> int:
    from workbench.pipeline import starter

    console = make_console()
    if not args.method:
        console.print("Methods and their starter study files (workbench init METHOD [FILE]):")
        for item in starter.starters():
            where = item.example.name if item.example else "no example"
            console.print(literal_text(f"  {item.method:<10} {item.summary} ({where})"), soft_wrap=True)
        return 0
    if args.file and args.file.endswith(("/", os.sep)):  # a folder meant: sub/ wrote a file named "sub"
        raise UserError(f"{args.file}: name the study file to write, e.g. {Path(args.file) / 'study.toml'}")
    if args.file and Path(args.file).name.startswith("."):
        raise UserError(f"{args.file}: a hidden file's name; name the study file, e.g. study.toml")
    target = Path(args.file or f"{args.method}_study.toml")
    written, kept = starter.write_starter(args.method, target, force=args.force)
    console.print(literal_text(f"Wrote {', '.join(str(p) for p in written)}."), soft_wrap=True)
    if kept:
        names = ", ".join(str(p) for p in kept)
        console.print(literal_text(f"Kept {names} as it is (the study reads it; delete it for the example's)."))
    from workbench.pipeline.init_steps import next_steps

    for step in next_steps(target, [*written, *kept], method=args.method):
        console.print(literal_text(step), soft_wrap=True)
    return 0


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "init",
        help="write a commented starter study file for a method",
        formatter_class=fmt,
        description="Writes the example study a method ships, commented key by key, with the data\n"
        "files it names (catalog, templates, regions) beside it; it runs as written on the\n"
        "bundled model. Without METHOD: the methods and their examples.",
        epilog=EXAMPLES,
    )
    p.add_argument("method", nargs="?", metavar="METHOD", help="choice, coldstart, identity, entity or a plugin's")
    p.add_argument("file", nargs="?", metavar="FILE", help="where to write the study (default: METHOD_study.toml)")
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite the study file FILE if it exists; data files beside it that exist "
        "(catalog, brands, templates) are kept as they are, --force or not",
    )
    p.set_defaults(func=cmd_init)
