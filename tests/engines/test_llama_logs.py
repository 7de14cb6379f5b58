"""llama.cpp's log on stderr: its errors only. llama-cpp-python's own callback reads an older
ggml's level numbers, so its warnings printed over the progress line with verbose=False."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from workbench.engines.resolve import default_model_path

SCRIPT = textwrap.dedent(
    """
    import sys
    from workbench.engines.llama_cpu import plain_layout_on_amx
    plain_layout_on_amx()
    import llama_cpp
    from workbench.engines.llama_scoring import errors_only_logs
    errors_only_logs()
    try:
        llama_cpp.Llama(model_path=sys.argv[1], n_ctx=1024, verbose=False)
    except ValueError:
        pass
    print("done", file=sys.stderr)
    """
)


def stderr_of(model: str) -> str:
    result = subprocess.run([sys.executable, "-c", SCRIPT, model], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stderr


def test_a_warning_stays_off_the_terminal():
    # gemma 3 at a 1,024-token context: llama.cpp warns of its sliding-window cache layout.
    assert stderr_of(str(default_model_path()[0])) == "done\n"


def test_errors_and_their_continuations_still_reach_the_terminal(capsys):
    from workbench.engines import llama_scoring

    llama_scoring.errors_only_logs()
    log = llama_scoring._errors_only  # the callback llama.cpp calls, called here as it would
    for level, text in [(3, b"a warning\n"), (4, b"an error"), (5, b" continued\n"), (2, b"info"), (5, b" more\n")]:
        log(level, text, None)
    assert capsys.readouterr().err == "an error continued\n"
