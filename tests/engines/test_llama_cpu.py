"""The local engine's guard against llama.cpp's AMX kernels (workbench/engines/llama_cpu.py)."""

import pytest

from workbench.engines.llama_cpu import cpu_has_amx, plain_layout_on_amx


def test_amx_is_read_from_the_cpu_flags(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse avx2 avx512f amx_tile amx_int8\n")
    assert cpu_has_amx(info)
    info.write_text("processor\t: 0\nflags\t\t: fpu sse avx2 avx512f\n")  # amx only as part of a word
    assert not cpu_has_amx(info)
    assert not cpu_has_amx(tmp_path / "missing")


@pytest.mark.skipif(not cpu_has_amx(), reason="this CPU has no AMX: llama.cpp's own layout stands")
def test_on_an_amx_cpu_models_load_without_extra_buffer_types():
    import llama_cpp.llama as high_level

    assert plain_layout_on_amx()
    assert high_level.llama_cpp.llama_model_default_params().use_extra_bufts is False
