"""Weights in llama.cpp's plain layout on CPUs with AMX, where its AMX kernels crash.

A llama.cpp built for the machine it runs on (`pip install llama-cpp-python` compiles with the
build machine's instruction set) moves a Q4_K model's weights into AMX tiles when the CPU
advertises AMX. On such CPUs under a hypervisor we met a segmentation fault in
`ggml_backend_amx_mul_mat` at the first decode (gemma 3 270M, Xeon with amx_int8, llama-cpp-python
0.3.36): every answer of the local engine was lost with the process. Loading the weights without
llama.cpp's extra buffer types (the same switch as llama.cpp's `--no-repack`) keeps them in the
plain layout its AVX kernels read, which works everywhere, at some speed on AMX machines.

`llama_cpp.Llama` offers no argument for it, so its default model parameters are wrapped once,
before a model loads. `WORKBENCH_LLAMA_REPACK=1` keeps llama.cpp's own choice (a machine where AMX
works). Importing this module changes nothing; `plain_layout_on_amx()` does.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

AMX_FLAGS = ("amx_tile", "amx_int8", "amx_bf16")
_lock = threading.Lock()
_applied = False


def cpu_has_amx(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether the CPU advertises AMX (Linux; elsewhere llama.cpp's choice stands)."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("flags"):
            return any(flag in line.split() for flag in AMX_FLAGS)
    return False


def plain_layout_on_amx() -> bool:
    """Make every later `llama_cpp.Llama(...)` load its weights in the plain layout when the CPU
    has AMX; True when that is in force. Safe to call from any thread, any number of times."""
    global _applied
    with _lock:
        if _applied:
            return True
        if os.environ.get("WORKBENCH_LLAMA_REPACK") == "1" or not cpu_has_amx():
            return False
        import llama_cpp.llama as high_level

        defaults = high_level.llama_cpp.llama_model_default_params

        def plain_defaults():
            params = defaults()
            params.use_extra_bufts = False
            return params

        high_level.llama_cpp.llama_model_default_params = plain_defaults
        _applied = True
        return True


def serve() -> None:
    """`python -m workbench.engines.llama_cpu ARGS`: llama-cpp-python's OpenAI-compatible server
    (its own arguments) with the same guard, for a peer server on such a machine."""
    import runpy

    plain_layout_on_amx()
    import sys

    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    serve()
