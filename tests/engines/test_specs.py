import pytest

from workbench.engines.specs import SpecError, parse_spec


def test_llama_specs():
    spec = parse_spec("llama:default")
    assert (spec.engine, spec.name, spec.options) == ("llama", "default", {})
    spec = parse_spec("llama:/models/x.gguf,n_ctx=4096,n_gpu_layers=-1,temperature=0.2,threads=4")
    assert spec.name == "/models/x.gguf"
    assert spec.options == {"n_ctx": 4096, "n_gpu_layers": -1, "temperature": 0.2, "threads": 4}
    # Transport options do not change what the model is asked.
    assert spec.canonical() == "llama:/models/x.gguf,n_ctx=4096,temperature=0.2"


def test_openai_spec_from_the_docs():
    spec = parse_spec("openai:gpt-4o-mini@https://api.openai.com/v1,api_key_env=OPENAI_API_KEY,concurrency=32")
    assert spec.engine == "openai" and spec.name == "gpt-4o-mini"
    assert spec.base_url == "https://api.openai.com/v1"
    assert spec.options == {"api_key_env": "OPENAI_API_KEY", "concurrency": 32}
    assert spec.canonical() == "openai:gpt-4o-mini@https://api.openai.com/v1"
    assert parse_spec("openai:org/model@name@http://h:1/v1/").name == "org/model@name"


@pytest.mark.parametrize(
    "text, message",
    [
        ("gpt-4", "engine must be one of"),
        ("llama:", "give 'default' or a path"),
        ("openai:gpt-4", "MODEL@BASE_URL"),
        ("openai:m@localhost:8000", "must start with http"),
        ("llama:default,colour=red", "unknown option 'colour'"),
        ("llama:default,n_ctx=big", "n_ctx='big'"),
        ("llama:default,concurrency=0", "must be at least 1"),
        ("llama:default,temperature", "key=value"),
        ("openai:m@http://h/v1,n_gpu_layers=3", "llama models only"),
    ],
)
def test_bad_specs_say_what_is_wrong(text, message):
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_spec(text)


def test_parallel_defaults_to_one_unless_layers_go_to_a_gpu_build():
    """`parallel` left out: 1 (reproducible to the bit) on a CPU, and on a CPU-only build
    even when layers are asked onto a GPU; a GPU build that offloads gets the measured
    GPU default. A spec that names `parallel` keeps it."""
    import llama_cpp

    from workbench.engines.llama_local import GPU_DEFAULT_PARALLEL, default_parallel
    from workbench.engines.resolve import make_engine, resolve

    assert default_parallel({}) == 1
    assert default_parallel({"n_gpu_layers": 0}) == 1
    on_gpu = GPU_DEFAULT_PARALLEL if llama_cpp.llama_supports_gpu_offload() else 1
    assert default_parallel({"n_gpu_layers": -1}) == on_gpu
    spec = parse_spec("llama:default,n_gpu_layers=-1")
    assert make_engine(resolve(spec, print)).parallel == on_gpu
    spec = parse_spec("llama:default,n_gpu_layers=-1,parallel=4")
    assert make_engine(resolve(spec, print)).parallel == 4
