"""`workbench doctor`: what this machine's llama.cpp can do and which engines answer."""

from __future__ import annotations

import asyncio

from rich.console import Console

from workbench.engines.resolve import ModelNotFound, make_engine, resolve
from workbench.engines.specs import ModelSpec, SpecError, parse_spec
from workbench.host.cores import usable_cores
from workbench.host.locations import cache_dir
from workbench.methods.study_files import load_study
from workbench.studies.spec import StudyError
from workbench.text.literal import literal_text


def llama_build() -> dict[str, object]:
    import llama_cpp

    info = llama_cpp.llama_print_system_info()
    return {
        "version": llama_cpp.__version__,
        "gpu_offload": bool(llama_cpp.llama_supports_gpu_offload()),
        "cpu_threads": usable_cores(),
        "system_info": info.decode() if isinstance(info, bytes) else str(info),
    }


async def check_engine(spec: ModelSpec) -> str:
    """Load the model or reach the server, and ask for one token."""
    from workbench.engines.base import EngineError, GenerationRequest

    try:
        engine = make_engine(resolve(spec))
    except (ModelNotFound, EngineError) as exc:
        return f"FAIL {exc}"
    try:
        await engine.start()
        reply = await engine.generate(
            GenerationRequest(messages=[{"role": "user", "content": "Say OK."}], max_tokens=1, temperature=0)
        )
        return f"ok ({reply.latency_s * 1000:.0f} ms for one token)"
    except EngineError as exc:
        return f"FAIL {exc}"
    finally:
        await engine.aclose()


def run(model_specs: list[str], study: str | None, console: Console) -> int:
    build = llama_build()
    console.print(f"llama-cpp-python {build['version']}")
    console.print(f"  GPU offload: {'supported' if build['gpu_offload'] else 'not supported (CPU build)'}")
    console.print(f"  CPU threads available: {build['cpu_threads']}")
    console.print(literal_text(f"  {build['system_info'].strip()}"))
    default_path = cache_dir() / "models" / "gemma-3-270m-q4_k_m.gguf"
    state = "assembled" if default_path.exists() else "not assembled yet (happens on first use)"
    console.print(f"Default model (llama:default): {default_path} — {state}")
    specs: list[ModelSpec] = []
    try:
        specs = [parse_spec(s) for s in model_specs]
        if study:
            specs += load_study(study).models
    except (SpecError, StudyError) as exc:
        console.print(literal_text(f"error: {exc}"), style="red")
        return 2
    failures = 0
    for spec in specs:
        for label, one in endpoints_of(spec):
            result = asyncio.run(check_engine(one))
            failures += result.startswith("FAIL")
            console.print(literal_text(f"Engine {label}: {result}"))
    return 1 if failures else 0


def endpoints_of(spec: ModelSpec) -> list[tuple[str, ModelSpec]]:
    """A pool (`openai:M@URL1|URL2`) is checked replica by replica: one that is down
    would otherwise hide behind the others."""
    urls = (spec.base_url or "").split("|")
    if len(urls) < 2:
        return [(spec.canonical(), spec)]
    return [
        (f"{spec.name}@{url} (replica {n} of {len(urls)})", ModelSpec(spec.engine, spec.name, url, spec.options))
        for n, url in enumerate(urls, start=1)
    ]
