"""`workbench doctor`: the llama.cpp build, the bundled model, engines that answer."""

from __future__ import annotations

import argparse

from workbench.cli.common import (
    make_console,
)


def cmd_doctor(args: argparse.Namespace) -> int:
    from workbench.pipeline import doctor

    return doctor.run(args.model or [], args.study, make_console())


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "doctor",
        help="check llama.cpp features, the default model and configured engines",
        formatter_class=fmt,
        description="Reports the llama.cpp build (GPU offload or not, threads), where the bundled\n"
        "model is, and whether each configured engine answers.",
        epilog="examples:\n  workbench doctor\n  workbench doctor --model 'openai:m@http://127.0.0.1:8000/v1'\n"
        "  workbench doctor --study study.toml",
    )
    p.add_argument("--model", action="append", metavar="SPEC", help="also check this model spec")
    p.add_argument("--study", help="also check the models of this study")
    p.set_defaults(func=cmd_doctor)
