"""The `openai` engine as the registry knows it: a spec names a served model and the
URL of one server (or of several replicas, `URL1|URL2`), the identity names the
model and where it is served, and the engine (openai_http, which loads aiohttp)
is imported only when one is made.
"""

from __future__ import annotations

from workbench.engines.registry import EnginePlugin, Location, Notify, register
from workbench.engines.specs import MAX_REPLICAS, ModelSpec, SpecError


def parse_target(text: str, target: str) -> tuple[str, str | None]:
    name, at, base_url = target.rpartition("@")
    if not at or not name or not base_url:
        raise SpecError(
            f"model spec {text!r}: an openai model is written MODEL@BASE_URL, "
            "e.g. openai:gpt-4o-mini@https://api.openai.com/v1"
        )
    urls = [url.strip().rstrip("/") for url in base_url.split("|")]
    for url in urls:
        if not url.startswith(("http://", "https://")):
            raise SpecError(f"model spec {text!r}: base URL {url!r} must start with http:// or https://")
    if len(set(urls)) < len(urls):
        raise SpecError(f"model spec {text!r}: a base URL is listed twice")
    if len(urls) > MAX_REPLICAS:
        raise SpecError(f"model spec {text!r}: {len(urls)} base URLs; at most {MAX_REPLICAS} replicas of one model")
    return name, "|".join(urls)


def identity(spec: ModelSpec) -> str:
    """The one place an openai model's identity is made. One model behind several
    replicas is one model: its identity (and so every request key) does not name the
    URLs, so adding a replica asks nothing again; a named one (`identity=`) keeps its
    name whatever the URLs."""
    if spec.options.get("identity"):
        where = f"#{spec.options['identity']}"
    elif "|" in (spec.base_url or ""):
        where = ""
    else:
        where = f"@{spec.base_url}"
    return f"openai:{spec.name}{where}{spec.identity_options()}"


def locate(spec: ModelSpec, notify: Notify = None) -> Location:
    return Location(identity(spec))


def same_model(spec: ModelSpec, stored: str) -> bool:
    """Whether a stored identity names the model `spec` serves on other replicas: the
    same served name and identity options, on one URL or a pool (never a named one)."""
    if spec.options.get("identity"):
        return False
    suffix = spec.identity_options()
    head = f"openai:{spec.name}"
    if not stored.startswith(head) or not stored.endswith(suffix):
        return False
    where = stored[len(head) : len(stored) - len(suffix)] if suffix else stored[len(head) :]
    return where == "" or (where.startswith("@") and "," not in where and "#" not in where)


PLUGIN = register(
    EnginePlugin(
        name="openai",
        example="'openai:MODEL@http://host:port/v1'",
        engine="workbench.engines.openai_http:OpenAIEngine",
        parse_target=parse_target,
        locate=locate,
        options=frozenset({"api_key_env", "max_retry_after", "max_body_mb", "identity"}),
        same_model=same_model,
    )
)
