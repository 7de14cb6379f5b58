"""`workbench ...`: the headless command line, one module per command group.

Each module registers its parsers next to its handlers (`add_parsers`); `main`
parses, dispatches, and turns every user-facing error into one line and exit
status 2.
"""

from __future__ import annotations

import argparse
import codecs
import sqlite3
import sys

from workbench.cli import compare, data, doctor, entities, evidence, init, metrics, plan, report, review, run, tui
from workbench.cli.common import UserError, make_console
from workbench.pipeline.run_records import workbench_version
from workbench.store.db import reason as db_reason
from workbench.store.errors import UserFacingError
from workbench.text.literal import literal_text

MAIN_HELP = """\
Audit which brands, cultures and people language models favour when they recommend.

Quick start:
  workbench demo                         run the bundled demo study on the bundled local model
  workbench init coldstart study.toml    a commented starter study for a method (choice, coldstart, ...)
  workbench run study.toml --db my.db    run your own study (Ctrl-C stops; run again to resume)
  workbench status --db my.db            what is answered, pending, failed, and the errors met
  workbench export --db my.db --what responses --format csv > responses.csv

Methods (a study's `method`): {methods}, e.g.
  workbench init entity entity.toml && workbench run entity.toml --db entity.db

Model specs (in a study's `models` or with --model):
  llama:default                          the bundled Gemma 3 270M GGUF (CPU, or GPU with n_gpu_layers)
  llama:/path/model.gguf,n_ctx=4096      any local GGUF
  openai:MODEL@http://host:port/v1       any OpenAI-compatible server (vLLM, llama-server, Ollama, OpenAI)
  openai:MODEL@http://a/v1|http://b/v1   one model on several replicas (work spread, a dead one routed around)
  options: ,temperature=0.7 ,seed=1 ,max_tokens=256 ,timeout=60 ,concurrency=8 ,retries=4
           ,api_key_env=OPENAI_API_KEY ,n_gpu_layers=-1 ,threads=4 ,mode=chat|completion
           ,parallel=8 (llama: 8 answers decoded in one batch; faster, not bit-reproducible)
           ,precision=f32|f16|native (llama label scores on a dequantized copy; default f32 for a small model)
           ,invariant=false (with precision=native: label scores with the fast kernels)
"""


def main_help_methods() -> str:
    """The registered methods as the help lists them, wrapped to the help's width."""
    import textwrap

    from workbench.methods.hooks import methods_line

    first = len("Methods (a study's `method`): ")
    lines = textwrap.wrap(methods_line() + ",", width=100, initial_indent="x" * first)
    return "\n".join([lines[0][first:], *lines[1:]]).removesuffix(",")


def build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    description = MAIN_HELP.replace("{methods}", main_help_methods())
    parser = argparse.ArgumentParser(prog="workbench", description=description, formatter_class=fmt)
    parser.add_argument("--version", action="version", version=f"workbench {workbench_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (init, run, entities, review, data, metrics, evidence, compare, plan, report, tui, doctor):
        group.add_parsers(sub, fmt)
    return parser


def _printable_output() -> None:
    """On a terminal or pipe that is not Unicode (PYTHONIOENCODING=ascii, a C locale) a
    character it cannot show ('·' in a table's title, 'é' in a name) prints as '?': it
    raised UnicodeEncodeError after the command had done its work."""
    for stream in (sys.stdout, sys.stderr):
        encoding, reconfigure = getattr(stream, "encoding", None), getattr(stream, "reconfigure", None)
        if not encoding or reconfigure is None or getattr(stream, "errors", "strict") != "strict":
            continue
        try:
            if not codecs.lookup(encoding).name.startswith("utf"):
                reconfigure(errors="replace")
        except (LookupError, ValueError, OSError):
            continue


def main(argv: list[str] | None = None) -> int:
    _printable_output()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        with metrics.resampled(args):  # --boot: the resamples of every interval the command computes
            return args.func(args)
    except UserFacingError as exc:  # every error a user can fix; anything else is a bug and says so
        one_line = str(exc).replace("\r", "\\r").replace("\n", "\\n")  # names from files may hold newlines
        make_console(stderr=True).print(literal_text(f"error: {one_line}"), style="red", soft_wrap=True)
        return 2
    except sqlite3.Error as exc:
        # A database that cannot be written (read-only, disk full, locked for longer than
        # the busy timeout): one line; every write is a transaction, so nothing is half-done.
        make_console(stderr=True).print(
            literal_text(f"error: database {args.db if 'db' in args else ''}: {db_reason(exc)}"),
            style="red",
            soft_wrap=True,
        )
        return 2
    except KeyboardInterrupt:
        make_console(stderr=True).print("Interrupted; nothing half-written (run the same command again).")
        return 130
    except BrokenPipeError:
        return 0


__all__ = ["UserError", "build_parser", "main"]
