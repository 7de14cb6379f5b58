"""What llama.cpp's batch-layout rounding does to the conclusions of a label-probability audit.

With the fast default CPU kernels a label's log-probability depends slightly on the
batch layout; with `invariant=true` it does not. This runs the bundled countries x
urgency study (or its first N templates) both ways on the bundled model and reports
how far the entity ranking moves: Spearman's rho of Delta per entity between the two,
the largest change of one entity's Delta, and whether the group tests change verdict.

    .venv/bin/python bench/bench_layout_noise.py [--templates 10] [--db /tmp/noise.db]

Not a test (it takes minutes); bench/README.md quotes its figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from importlib.resources import files
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scipy import stats  # noqa: E402

from workbench.cli import main  # noqa: E402


def study_file(folder: Path, templates: int, invariant: bool) -> Path:
    source = Path(str(files("workbench.assets").joinpath("studies", "entity")))
    model = "llama:default,invariant=true" if invariant else "llama:default"
    path = folder / f"noise_{'invariant' if invariant else 'fast'}.toml"
    path.write_text(
        f'name = "noise-{"invariant" if invariant else "fast"}"\nmethod = "entity"\nmodels = ["{model}"]\n'
        f'task = "{source / "urgency.task.json"}"\ntemplates = "{source / "urgency_templates.csv"}"\n'
        f'entities = "{source / "countries.csv"}"\nmax_templates = {templates}\nvariants = ["zero_shot_text"]\n'
        'scoring = "exact"\ngroup_by = ["region", "gdp_quantile"]\n'
    )
    return path


def main_(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--templates", type=int, default=10)
    parser.add_argument("--db", default=None)
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="noise-"))
    db = args.db or str(folder / "noise.db")
    seconds = {}
    for invariant in (False, True):
        started = time.perf_counter()
        assert main(["run", str(study_file(folder, args.templates, invariant)), "--db", db, "--quiet"]) == 0
        seconds[invariant] = time.perf_counter() - started
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["metrics", "--db", db, "--format", "json"])
    records = json.loads(out.getvalue())
    delta = {
        name: {r["entity"]: r["value"] for r in records if r["metric"] == "entity_delta" and r["study"] == name}
        for name in ("noise-fast", "noise-invariant")
    }
    entities = sorted(set(delta["noise-fast"]) & set(delta["noise-invariant"]))
    fast = [delta["noise-fast"][e] for e in entities]
    invariant = [delta["noise-invariant"][e] for e in entities]
    rho = stats.spearmanr(fast, invariant).statistic
    change = max(abs(a - b) for a, b in zip(fast, invariant))
    spread = max(invariant) - min(invariant)
    groups = {}
    for r in records:
        if r["metric"] == "group_delta":
            groups.setdefault((r["attribute"], r["value_label"]), {})[r["study"]] = r["p"]
    flips = [
        g for g, ps in groups.items() if len(ps) == 2 and (ps["noise-fast"] < 0.05) != (ps["noise-invariant"] < 0.05)
    ]
    print(f"{len(entities)} entities x {args.templates} templates, bundled model, zero_shot_text, exact scoring")
    print(
        f"time: fast kernels {seconds[False]:.0f} s, invariant {seconds[True]:.0f} s "
        f"(ratio {seconds[True] / seconds[False]:.2f})"
    )
    print(f"Spearman rho of Delta (fast vs invariant): {rho:.4f}")
    print(f"largest change of one entity's Delta: {change:.4f} (Delta range {spread:.3f})")
    print(f"group tests changing verdict at p < 0.05: {len(flips)} of {len(groups)} {flips}")


if __name__ == "__main__":
    main_()
