"""The `llama` engine as the registry knows it: a spec names a GGUF file (or `default`,
the bundled model), the file's SHA-256 is the model's identity, and the engine
(llama_local, which loads llama.cpp) is imported only when one is made.
"""

from __future__ import annotations

from pathlib import Path

from workbench.engines.gguf_files import default_model_path, file_sha256
from workbench.engines.registry import EnginePlugin, Location, ModelNotFound, Notify, register
from workbench.engines.specs import ModelSpec, SpecError


def parse_target(text: str, target: str) -> tuple[str, str | None]:
    if not target:
        raise SpecError(f"model spec {text!r}: give 'default' or a path to a .gguf file")
    return target, None


def locate(spec: ModelSpec, notify: Notify = None) -> Location:
    if "invariant" in spec.options and spec.options.get("precision", "native") != "native":
        raise SpecError(
            f"model spec {spec}: invariant applies to precision=native only "
            f"(a {spec.options['precision']} copy is scored with normal batching)"
        )
    if spec.name == "default":
        path, digest = default_model_path(notify)
    else:
        path = Path(spec.name).expanduser()
        if not path.is_file():
            raise ModelNotFound(f"model spec {spec}: no GGUF file at {path}")
        with path.open("rb") as handle:
            if handle.read(4) != b"GGUF":
                raise ModelNotFound(f"model spec {spec}: {path} is not a GGUF file")
        digest = file_sha256(path)
    return Location(f"llama:sha256:{digest}{spec.identity_options()}", str(path), digest)


PLUGIN = register(
    EnginePlugin(
        name="llama",
        example="'llama:default', 'llama:/path/model.gguf'",
        engine="workbench.engines.llama_local:LlamaEngine",
        parse_target=parse_target,
        locate=locate,
        options=frozenset({"n_ctx", "threads", "n_gpu_layers", "n_batch", "invariant", "precision", "parallel"}),
    )
)


def score_precision(spec: ModelSpec) -> str:
    """The precision this spec's label scores are computed at (llama_precision): the spec's,
    or this model's default on this machine. Planning records it on every score request."""
    from workbench.engines.llama_precision import chosen_precision

    path = default_model_path()[0] if spec.name == "default" else Path(spec.name).expanduser()
    return chosen_precision(spec.options, path)
