"""From a model spec to a model identity and a running engine.

Resolving a spec finds what the model *is* (a GGUF file's SHA-256, or a server's
model name and URL) without loading it, so requests can be planned and keyed
before any weights are read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from workbench.engines import registry
from workbench.engines.gguf_files import DEFAULT_MODEL_NAME as DEFAULT_MODEL_NAME
from workbench.engines.gguf_files import default_model_path as default_model_path
from workbench.engines.registry import ModelNotFound as ModelNotFound
from workbench.engines.specs import ModelSpec


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


def same_served_model(spec: ModelSpec, identity: str) -> bool:
    """Whether a stored identity names the model `spec` serves elsewhere (other
    replicas of it), as its engine tells; an engine without replicas says no."""
    plugin = registry.get(spec.engine)
    return plugin is not None and plugin.same_model is not None and plugin.same_model(spec, identity)


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
    """What the spec's model is, as its engine finds it (nothing loaded)."""
    plugin = registry.get(spec.engine)
    if plugin is None:
        raise ModelNotFound(f"model spec {spec}: no engine named {spec.engine!r}")
    where = plugin.locate(spec, notify)
    return ResolvedModel(spec, where.identity, where.file_path, where.file_hash)


def make_engine(resolved: ResolvedModel):
    """A not-yet-started engine for a resolved model, from the engine registry."""
    return registry.make_engine(resolved.spec, resolved.identity, resolved.file_path)


def generation_params(study_generation: dict[str, Any], spec: ModelSpec) -> dict[str, Any]:
    """Sampling parameters for a model: the study's, overridden by the spec's own."""
    params = {k: v for k, v in study_generation.items() if k != "system"}
    for key in ("temperature", "top_p", "max_tokens", "seed"):
        if key in spec.options:
            params[key] = spec.options[key]
    return params
