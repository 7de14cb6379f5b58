"""Engines register like methods: specs, identities and engines come from the registry,
and the identities stores already hold stay the same to the byte."""

import hashlib

import pytest

from workbench.engines import registry
from workbench.engines.openai_http import OpenAIEngine
from workbench.engines.openai_model import parse_target as served_target
from workbench.engines.resolve import ModelNotFound, continue_identities, make_engine, resolve
from workbench.engines.specs import ModelSpec, SpecError, parse_spec


def test_the_built_in_engines_are_registered_and_named_in_errors():
    assert registry.names() == ("llama", "openai")
    with pytest.raises(SpecError) as raised:
        parse_spec("gpt-4")
    assert str(raised.value) == (
        "model spec 'gpt-4': expected 'llama:default', 'llama:/path/model.gguf' or "
        "'openai:MODEL@http://host:port/v1' (engine must be one of llama, openai)"
    )
    with pytest.raises(SpecError, match="max_body_mb applies to openai models only"):
        parse_spec("llama:default,max_body_mb=2")
    with pytest.raises(SpecError, match="parallel applies to llama models only"):
        parse_spec("openai:m@http://h/v1,parallel=2")


@pytest.mark.parametrize(
    "spec, identity",
    [
        ("openai:m@http://a:8000/v1", "openai:m@http://a:8000/v1"),
        ("openai:m@http://a:8000/v1/,mode=chat,seed=3,timeout=5", "openai:m@http://a:8000/v1,mode=chat"),
        ("openai:m@http://a/v1|http://b/v1,mode=completion", "openai:m,mode=completion"),
        ("openai:org/m@x@https://h/v1,identity=mine,mode=chat", "openai:org/m@x#mine,mode=chat"),
    ],
)
def test_served_identities_are_the_ones_stores_hold(spec, identity):
    resolved = resolve(parse_spec(spec))
    assert (resolved.identity, resolved.file_path, resolved.file_hash) == (identity, None, None)
    engine = make_engine(resolved)
    assert isinstance(engine, OpenAIEngine) and engine.identity == identity
    assert OpenAIEngine(parse_spec(spec)).identity == identity  # made alone, the same identity


def test_a_gguf_file_is_known_by_its_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("WORKBENCH_CACHE", raising=False)
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF" + bytes(range(256)) * 40)
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    resolved = resolve(parse_spec(f"llama:{model},mode=completion,n_ctx=4096,temperature=0.3,threads=2"))
    assert resolved.identity == f"llama:sha256:{digest},mode=completion,n_ctx=4096"
    assert (resolved.file_path, resolved.file_hash) == (str(model), digest)
    assert (tmp_path / "cache" / "audit-workbench" / "file-hashes.json").exists()  # the hash is remembered there
    (tmp_path / "not.gguf").write_bytes(b"PK\x03\x04")
    with pytest.raises(ModelNotFound, match="is not a GGUF file"):
        resolve(parse_spec(f"llama:{tmp_path / 'not.gguf'}"))
    with pytest.raises(ModelNotFound, match="no GGUF file at"):
        resolve(parse_spec(f"llama:{tmp_path / 'missing.gguf'}"))


def test_replicas_changing_keep_the_stored_identity():
    pool = resolve(parse_spec("openai:m@http://a/v1|http://b/v1"))
    (kept,) = continue_identities([pool], ["openai:m@http://a/v1", "openai:other"])
    assert kept.identity == "openai:m@http://a/v1"
    named = resolve(parse_spec("openai:m@http://a/v1|http://b/v1,identity=x"))
    assert continue_identities([named], ["openai:m@http://a/v1"])[0].identity == "openai:m#x"


def test_a_fifth_engine_is_one_registration():
    """An engine added in one module (here: the HTTP engine under a name of its own, known by
    its served name alone) is parsed, resolved and made with nothing else changed."""
    plugin = registry.EnginePlugin(
        name="served",
        example="'served:MODEL@http://host:port/v1'",
        engine="workbench.engines.openai_http:OpenAIEngine",
        parse_target=served_target,
        locate=lambda spec, notify: registry.Location(f"served:{spec.name}{spec.identity_options()}"),
        options=frozenset({"api_key_env"}),
    )
    registry.register(plugin)
    try:
        spec = parse_spec("served:m@http://h:1/v1,mode=chat,api_key_env=HOME")
        assert spec == ModelSpec("served", "m", "http://h:1/v1", {"mode": "chat", "api_key_env": "HOME"})
        assert "served" in registry.names()
        engine = make_engine(resolve(spec))
        assert isinstance(engine, OpenAIEngine) and engine.identity == "served:m,mode=chat"
        with pytest.raises(SpecError, match="identity applies to openai models only"):
            parse_spec("served:m@http://h:1/v1,identity=x")
    finally:
        registry.unregister("served")
    with pytest.raises(SpecError, match="engine must be one of llama, openai"):
        parse_spec("served:m@http://h:1/v1")
