"""Thread counts follow the cores a process may run on, not the machine's."""

import os
import subprocess
import sys

import pytest
from helpers import ROOT

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")


def test_a_process_pinned_to_one_core_sizes_its_threads_for_one():
    code = (
        "import os\n"
        "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
        "from workbench.host.cores import usable_cores\n"
        "from workbench.pipeline.doctor import llama_build\n"
        "print(usable_cores(), llama_build()['cpu_threads'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["1", "1"]


def test_an_unpinned_process_counts_the_cores_it_has():
    from workbench.host.cores import usable_cores

    assert usable_cores() == len(os.sched_getaffinity(0)) >= 1
