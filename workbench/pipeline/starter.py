"""Starter study files: a method's commented example, copied with the files it names.

A user should never start from a blank page: `workbench init METHOD` writes the example a
method ships (`example_study`, an optional method hook) into a folder of the user's, with the
data files beside it that the example names (a catalog, templates, regions), so the copy runs
as it is and can be edited from there.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import StarterError  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.methods import registry


@dataclass(frozen=True)
class Starter:
    method: str
    summary: str
    example: Path | None  # the study file the method ships, None when it has none


def starters() -> list[Starter]:
    """Every registered method with its example (plugins included)."""
    found = []
    for name in registry.names():
        method = registry.get(name)
        example = getattr(method, "example_study", None)
        found.append(Starter(name, getattr(method, "summary", "") or name, Path(example) if example else None))
    return found


def _named_files(study: Path) -> list[Path]:
    """The files beside the example that its text names (quoted file names), in its folder."""
    text = study.read_text("utf-8")
    names = set(re.findall(r"""["']([^"'/\\]+\.(?:csv|json|toml|txt))["']""", text))
    return sorted(p for p in study.parent.iterdir() if p.is_file() and p.name in names and p != study)


def plan_copy(method: str, target: Path) -> list[tuple[Path, Path]]:
    """(source, destination) pairs for `init`: the study file as `target`, its data files beside it."""
    known = {s.method: s for s in starters()}
    if method not in known:
        raise StarterError(f"unknown method {method!r}; known: {', '.join(known)}")
    example = known[method].example
    if example is None or not example.is_file():
        raise StarterError(f"method {method!r} ships no example study")
    pairs = [(example, target)] + [(data, target.parent / data.name) for data in _named_files(example)]
    licence = example.parent / "LICENSE"
    if licence.is_file():  # the data's licence goes with the copies of it, never over a LICENSE of the user's
        pairs.append((licence, target.parent / _licence_name(example)))
    return pairs


def _licence_name(example: Path) -> str:
    return f"{example.stem}.LICENSE"


def _named(study: bytes, name: str) -> bytes:
    """The study file with its top-level `name` (before the first table) set to `name`, and
    the commands its comments give (`--study OLD`) naming the copy's study, not the example's."""
    head, table, rest = study.partition(b"\n[")
    old = re.search(rb'(?m)^name = "([^"]*)"', head)
    head = re.sub(rb'(?m)^name = "[^"]*"', f"name = {json.dumps(name)}".encode(), head, count=1)
    renamed = head + table + rest
    if old is not None:
        renamed = renamed.replace(b"--study " + old.group(1), f"--study {shlex.quote(name)}".encode())
    return renamed


def write_starter(method: str, target: Path, force: bool = False) -> tuple[list[Path], list[Path]]:
    """Copy the example: (written, kept). The study file, when it exists, is refused unless
    `force`; a data file it names that exists is kept as it is, `force` or not (a second study
    beside the first shares its edited brands file: overwriting it lost the edits)."""
    pairs = plan_copy(method, target)
    clash = [source.name for source, dest in pairs[1:] if dest.resolve() == target.resolve()]
    if clash:  # the study would be written, then overwritten by the data file of that name
        raise StarterError(
            f"{target}: the {method} example's data file {clash[0]} goes beside the study under that name; "
            f"name the study file otherwise (e.g. {target.with_name(f'{method}_study.toml')})"
        )
    folders = [str(dest) for _, dest in pairs if dest.is_dir()]
    if folders:  # --force overwrites a file, never a folder
        raise StarterError(
            f"{folders[0]} is a folder: name the study file to write (e.g. {Path(folders[0]) / 'study.toml'})"
        )
    if target.exists() and not force:
        raise StarterError(f"{target} already exists (--force to overwrite it; data files that exist are kept)")
    kept = [dest for _, dest in pairs if dest != target and dest.exists()]
    pairs = [(source, dest) for source, dest in pairs if dest not in kept]
    if not target.parent.is_dir():
        raise StarterError(f"{target.parent}: no such folder")
    written = []
    for source, dest in pairs:
        data = source.read_bytes()
        if dest == target:  # its comments name the example's place in the workbench: name the copy
            data = re.sub(rb"assets/studies/[\w/.-]+\.toml", str(target).encode(), data)
            # and its study is named after the copy, not the example (the demo's own study is "demo")
            data = _named(data, target.stem)
            data = data.replace(b"see LICENSE in this folder", f"see {_licence_name(source)} beside this file".encode())
            # the demo's header tells how to start "my.toml": the copy is that study
            data = data.replace(b"workbench init choice my.toml", f"workbench init choice {target.name}".encode())
            data = data.replace(b"workbench run my.toml", f"workbench run {shlex.quote(str(target))}".encode())
        try:
            dest.write_bytes(data)
        except OSError as exc:
            raise StarterError(f"{dest}: {exc.strerror or exc}") from None
        written.append(dest)
    return written, kept
