"""Engines as plugins: one registry, the way audit methods have theirs.

An `EnginePlugin` tells the workbench everything it needs about an engine without
loading it: how the part of a model spec after `engine:` reads (`parse_target`),
which spec options only this engine takes (`options`), what a spec's model *is*
(`locate`: its identity, which keys every request, so it must stay the same for
a model a store already knows), and which factory makes the engine (`engine`,
written "module:attribute" and imported only when an engine is made, so that
parsing a spec never loads aiohttp or llama.cpp).

The built-in engines register themselves from their modules below; a package adds
one through the entry-point group `workbench.engines`, whose value is an
`EnginePlugin`:

    [project.entry-points."workbench.engines"]
    myengine = "my_package.engine:PLUGIN"

This module imports nothing of the workbench but the store's error type: specs
and models look engines up here, and the engines import specs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbench.errors import ModelNotFound  # noqa: F401  (raised here; the family is workbench.errors)

ENTRY_POINT_GROUP = "workbench.engines"
# By module name, like plugins: the registry depends on no engine.
BUILTIN = ("workbench.engines.llama_model", "workbench.engines.openai_model")

Notify = Callable[[str], None] | None


@dataclass(frozen=True)
class Location:
    """What a spec's model is, found without loading it."""

    identity: str  # stable across machines: same identity, comparable answers
    file_path: str | None = None  # a local model's file
    file_hash: str | None = None  # its SHA-256


@dataclass(frozen=True)
class EnginePlugin:
    name: str  # the spec's `engine:` prefix
    example: str  # one spec of this engine, for error messages
    # "module:attribute" of a factory (spec, identity, file_path) -> engine.
    engine: str
    # (the whole spec text, the target after `engine:`) -> (model name, base URL or None);
    # raises SpecError saying what is wrong.
    parse_target: Callable[[str, str], tuple[str, str | None]]
    # (spec, notify) -> Location; raises ModelNotFound.
    locate: Callable[[Any, Notify], Location]
    options: frozenset[str] = frozenset()  # spec options only this engine takes
    # (spec, stored identity) -> whether that identity names this spec's model served
    # elsewhere (other replicas); engines without replicas leave it out.
    same_model: Callable[[Any, str], bool] | None = None


# The earlier name, kept so that engine packages written against it still register.
EngineKind = EnginePlugin

_REGISTRY: dict[str, EnginePlugin] = {}
_loaded = False


def register(plugin: EnginePlugin) -> EnginePlugin:
    if not isinstance(plugin, EnginePlugin):
        raise TypeError(f"{plugin!r} is not an EnginePlugin")
    _REGISTRY[plugin.name] = plugin
    return plugin


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from importlib import import_module
    from importlib.metadata import entry_points

    for module in BUILTIN:
        import_module(module)
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            register(point.load())
        except Exception as exc:  # a broken plugin must not break the built-in engines
            import warnings

            warnings.warn(f"engine plugin {point.name!r} could not be loaded: {exc}", stacklevel=2)


def get(name: str) -> EnginePlugin | None:
    _load()
    return _REGISTRY.get(name)


def plugins() -> tuple[EnginePlugin, ...]:
    """Every registered engine, by name (so messages read the same whatever loaded first)."""
    _load()
    return tuple(sorted(_REGISTRY.values(), key=lambda plugin: plugin.name))


def names() -> tuple[str, ...]:
    return tuple(plugin.name for plugin in plugins())


def takes(engine: str, option: str) -> bool:
    """Whether an engine takes an option that only some engines take (llama: `invariant`)."""
    plugin = get(engine)
    return plugin is not None and option in plugin.options


def make_engine(spec: Any, identity: str, file_path: str | None = None) -> Any:
    """A not-yet-started engine for a located model (its identity from `locate`)."""
    from importlib import import_module

    plugin = get(spec.engine)
    if plugin is None:
        raise ModelNotFound(f"model spec {spec}: no engine named {spec.engine!r}")
    module, _, attribute = plugin.engine.partition(":")
    factory = getattr(import_module(module), attribute)
    return factory(spec, identity, file_path)
