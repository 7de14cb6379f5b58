"""The wheel holds the whole program: every module and asset of the checkout, under `workbench`.

An editable install reads the checkout, so a package left out of the wheel went unnoticed until
users installed it (`pip install .`, pipx, a release) and every command failed on import.
"""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each folder of the checkout and the name it installs under.
FOLDERS = {"workbench": "workbench", "store": "workbench/store", "screens": "workbench/screens",
           "widgets": "workbench/widgets", "assets": "workbench/assets"}  # fmt: skip


def _shipped_files() -> set[str]:
    """What a wheel must hold: every file of the four folders but caches and compiled files."""
    expected = set()
    for folder, installed in FOLDERS.items():
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                expected.add(f"{installed}/{path.relative_to(ROOT / folder).as_posix()}")
    return expected


@pytest.mark.slow
def test_the_wheel_holds_every_module_and_asset(tmp_path):
    pytest.importorskip("setuptools", minversion="77")
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = tmp_path.glob("audit_workbench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(_shipped_files() - names)
    assert missing == [], f"not in the wheel: {missing[:20]}"
    assert "workbench/report/__init__.py" in names  # the package once left out
    assert not [n for n in names if n.startswith(("tests/", "bench/", "store/", "assets/"))]
