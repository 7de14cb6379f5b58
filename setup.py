"""Where the packages are: every folder under the four roots, found, not listed.

The project's folders install under one import name (`store/` as `workbench.store`, ...), a
mapping pyproject.toml's package finder cannot express. Listing packages by hand once left a
package out of the wheel, so they are discovered here: a new module, method or asset folder
ships without editing anything. Package data likewise: every non-Python file in a package.
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup

HERE = Path(__file__).parent
# The import name each folder of the checkout installs as.
ROOTS = {
    "workbench": "workbench",
    "workbench.store": "store",
    "workbench.screens": "screens",
    "workbench.widgets": "widgets",
    "workbench.assets": "assets",
}
SKIP = ("__pycache__", "*.egg-info")
CODE = {".py", ".pyc", ".pyo"}


def _packages() -> dict[str, Path]:
    found = {}
    for name, folder in ROOTS.items():
        found[name] = HERE / folder
        for sub in find_namespace_packages(str(HERE / folder), exclude=[f"*{s}*" for s in SKIP]):
            found[f"{name}.{sub}"] = HERE / folder / sub.replace(".", "/")
    return found


def _data(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_file() and p.suffix not in CODE)


PACKAGES = _packages()
setup(
    packages=sorted(PACKAGES),
    package_dir=ROOTS,
    package_data={name: files for name, folder in PACKAGES.items() if (files := _data(folder))},
)
