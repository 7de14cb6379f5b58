"""The precision label scores are computed at: the GGUF's own weights, or a dequantized copy.

A 4-bit GGUF's CPU kernels quantize activations to 8 bits and sum in an order that depends
on the batch layout, so a label's log-probability drifts from what the weights themselves
say by tenths of a nat (docs/methods.md §4). Dequantizing the weights to F16 or F32 once,
with llama.cpp's own quantize, and scoring on that copy is both closer to the truth and
faster than the batch-invariant native set-up:

- `f32`: every tensor F32, the cache F32: the weights' own numbers, evaluated in float32;
- `f16`: the weights in F16 (half the memory and disk of F32), activations rounded to F16
  in the matrix products;
- `native`: the GGUF as it is (then `invariant` picks batch-invariant or fast kernels).

The default is `f32` for a small model (its copy at most `SMALL_F32_BYTES`), `f16` for a
larger one, and `native` when even the F16 copy would take more than half of this machine's
memory. The copy is made on the first score, once per GGUF: it is named after the source's
SHA-256, written under a temporary name, recorded (size and SHA-256) and renamed only when
whole, and checked against its record before each use (model_cache).
"""

from __future__ import annotations

import os
import struct
import threading
from pathlib import Path
from typing import Any

from workbench.host.cores import usable_cores

BYTES_PER_WEIGHT = {"f32": 4, "f16": 2}
# A 1B-parameter model's F32 copy; the bundled 270M model's is 1.08 GB.
SMALL_F32_BYTES = 4 * 1024**3

_making = threading.Lock()  # two instances of one engine make a copy once, not twice


# GGUF metadata value types with a fixed size, by type id (the GGUF specification).
_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9


def parameter_count(path: str | Path) -> int:
    """The number of weights in a GGUF, read from its tensor table (nothing loaded)."""
    with open(path, "rb") as handle:

        def unpack(fmt: str) -> Any:
            size = struct.calcsize(fmt)
            data = handle.read(size)
            if len(data) != size:
                raise ValueError(f"{path}: truncated GGUF header")
            return struct.unpack(fmt, data)[0]

        def skip_string() -> None:
            handle.seek(unpack("<Q"), os.SEEK_CUR)

        def skip_value(kind: int) -> None:
            if kind in _FIXED:
                handle.seek(_FIXED[kind], os.SEEK_CUR)
            elif kind == _STRING:
                skip_string()
            elif kind == _ARRAY:
                item, count = unpack("<I"), unpack("<Q")
                if item in _FIXED:
                    handle.seek(_FIXED[item] * count, os.SEEK_CUR)
                else:
                    for _ in range(count):
                        skip_value(item)
            else:
                raise ValueError(f"{path}: unknown GGUF value type {kind}")

        if handle.read(4) != b"GGUF":
            raise ValueError(f"{path} is not a GGUF file")
        unpack("<I")  # version
        tensors, keys = unpack("<Q"), unpack("<Q")
        for _ in range(keys):
            skip_string()
            skip_value(unpack("<I"))
        total = 0
        for _ in range(tensors):
            skip_string()
            count = 1
            for _dim in range(unpack("<I")):
                count *= unpack("<Q")
            handle.seek(4 + 8, os.SEEK_CUR)  # type, offset
            total += count
        return total


def physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): not known
        return None


def default_precision(path: str | Path, memory: int | None = None) -> str:
    """f32 for a small model, f16 where the machine has the memory, native otherwise."""
    weights = parameter_count(path)
    memory = physical_memory() if memory is None else memory
    room = None if memory is None else memory // 2  # the native model and the rest of the machine keep the other half

    def fits(precision: str) -> bool:
        return room is None or weights * BYTES_PER_WEIGHT[precision] <= room

    if weights * BYTES_PER_WEIGHT["f32"] <= SMALL_F32_BYTES and fits("f32"):
        return "f32"
    return "f16" if fits("f16") else "native"


def chosen_precision(options: dict[str, Any], path: str | Path) -> str:
    """The spec's precision; without one, `native` when it names `invariant` (the kernels of
    the native weights, as before precisions existed), else the default for this model."""
    if options.get("precision"):
        return options["precision"]
    return "native" if "invariant" in options else default_precision(path)


def copy_path(digest: str, precision: str) -> Path:
    """Where the dequantized copy of a GGUF lives: in the workbench's model cache, by hash."""
    from workbench.host.locations import cache_dir

    return cache_dir() / "models" / "dequantized" / f"{digest}.{precision}.gguf"


def dequantized_copy(source: str | Path, digest: str, precision: str) -> Path:
    """The copy of `source` at `precision`, made with llama.cpp's quantize on first use and
    checked against its record at every use (model_cache): a damaged copy is made again,
    or refused in one line naming it where this user may not replace it."""
    from workbench.engines import model_cache

    target = copy_path(digest, precision)
    with _making:
        if not target.parent.is_dir():
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OSError(_unwritable(source, precision, target, exc.strerror or str(exc))) from None
        with model_cache.making(target):
            model_cache.clean_stale_partials(target.parent)  # before the free-space check: their space is free
            if target.is_file():
                problem = model_cache.problem(target)
                if problem is None:
                    return target
                try:
                    model_cache.discard(target)
                except OSError as exc:
                    raise model_cache.DamagedCopy(
                        f"the cached {precision} copy {target} {problem}, and this user may not replace it "
                        f"({exc.strerror or exc}): delete it (the next run makes it again) "
                        "or set WORKBENCH_CACHE to a folder you may write"
                    ) from None
            _make_copy(source, precision, target)
    return target


def _make_copy(source: str | Path, precision: str, target: Path) -> None:
    """Write the copy under a name of this thread's own, record it, and rename it whole."""
    import llama_cpp

    from workbench.engines import model_cache
    from workbench.engines.llama_scoring import quiet_llama

    if not os.access(target.parent, os.W_OK):
        raise OSError(_unwritable(source, precision, target, "this user may not write there"))
    need = parameter_count(source) * BYTES_PER_WEIGHT[precision]
    free = _free_disk(target.parent)
    if free is not None and free < need:
        raise OSError(
            f"a {precision} copy of {source} needs {need / 1e9:.1f} GB in {target.parent}, "
            f"{free / 1e9:.1f} GB are free; free space or use precision=native"
        )
    partial = model_cache.partial_path(target)
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_ALL_F32 if precision == "f32" else llama_cpp.LLAMA_FTYPE_MOSTLY_F16
    params.allow_requantize = True  # from 4-bit blocks: dequantized, then stored wider
    params.nthread = usable_cores()
    try:
        try:
            with quiet_llama():
                code = llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), params)
            if code != 0:
                raise OSError(f"llama.cpp could not make a {precision} copy of {source} (code {code})")
            model_cache.record(partial, target)
        except PermissionError as exc:
            raise OSError(_unwritable(source, precision, target, exc.strerror or str(exc))) from None
        os.replace(partial, target)  # another process finds the whole copy or none
        model_cache.mark_verified(target)
    finally:
        partial.unlink(missing_ok=True)


def _unwritable(source: str | Path, precision: str, target: Path, why: str) -> str:
    return (
        f"cannot make the {precision} copy of {source} in {target.parent} ({why}): "
        "set WORKBENCH_CACHE to a folder you may write, or use precision=native"
    )


def _free_disk(folder: Path) -> int | None:
    import shutil

    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None
