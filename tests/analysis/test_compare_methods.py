"""`workbench compare` for entity and identity studies: paired by template and by prompt."""

from __future__ import annotations

import csv
import json

import numpy as np
from helpers import run_cli
from test_entity import EXAMPLE

from workbench import methods
from workbench.methods.entity.data import import_scores
from workbench.store.db import connect

TASK = EXAMPLE / "urgency.task.json"
LABELS = ("low_urgency", "moderate_urgency", "high_urgency", "critical_urgency")
ENTITIES = ("France", "Chad", "Peru", "Japan", "Kenya", "Chile")
TEMPLATES = 12


def _scores(path, rng: np.random.Generator) -> None:
    """Two models' label log-probabilities for 6 entities x 12 templates, alike but for Chad,
    whose labels model B pushes towards critical urgency on every template."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "entity", "template_id", "label", "logprob"])
        base = rng.normal(0, 1, (len(ENTITIES), TEMPLATES, len(LABELS)))
        for model in ("A", "B"):
            noise = rng.normal(0, 0.3, base.shape)
            for e, entity in enumerate(ENTITIES):
                for t in range(TEMPLATES):
                    shift = np.linspace(-1.5, 1.5, len(LABELS)) if (model == "B" and entity == "Chad") else 0
                    logits = base[e, t] + noise[e, t] + shift
                    logprobs = logits - np.log(np.exp(logits).sum())
                    writer.writerows((model, entity, t, label, lp) for label, lp in zip(LABELS, logprobs))


def test_entity_delta_difference_paired_by_template_is_found(tmp_path):
    """Model B rates Chad more urgent on every template (the task weighs urgency as less
    desirable): its Delta difference is negative with an interval below 0 and a small p; the
    records name the template as their unit."""
    db = tmp_path / "e.db"
    _scores(tmp_path / "scores.csv", np.random.default_rng(5))
    import_scores(connect(db), "urg", tmp_path / "scores.csv", TASK)
    out = run_cli("compare", "--db", str(db), "--study", "urg", "--models", "A", "B", "--format", "json")
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    assert {r["metric"] for r in records} == {"entity_delta"} and len(records) == len(ENTITIES)
    assert all(r["ci_unit"] == "template" and r["n_units"] == TEMPLATES for r in records)
    chad = next(r for r in records if r["entity"] == "Chad")
    assert chad["difference"] < -0.5 and chad["ci_high"] < 0 and chad["p_holm"] < 0.05, chad
    others = [r for r in records if r["entity"] != "Chad"]
    assert all(abs(r["difference"]) < abs(chad["difference"]) for r in others)
    assert chad["difference"] == chad["value_b"] - chad["value_a"]
    table = run_cli("compare", "--db", str(db), "--study", "urg", "--models", "A", "B").stdout
    assert "by template" in table and "templates" in table and "Interval unit: template" in table
    chad_row = next(line for line in table.splitlines() if "Chad" in line)
    assert chad_row.split()[-1] == "12"  # the templates paired


def test_identity_mean_share_compared_by_prompt(tmp_path, fake_server):
    """Two models asked the same sampled prompts: each group x condition's Mean Share, B - A,
    paired by prompt (ci_unit prompt, n_units the prompts both answered); the same answers
    from both give no difference."""
    from conftest import rows
    from openai_server import ServerConfig

    reply = '{"recommendations": [{"university": "Howard University", "explanation": "x"}, {"university": "MIT", "explanation": "y"}]}'
    server = fake_server(ServerConfig(reply_text=reply))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}", "openai:n@{server.base_url}"]\n'
        'template = "universities"\nper_group = 8\nseed = 2\nprobe = ""\n'
    )
    db = tmp_path / "id.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    (tmp_path / "refs.csv").write_text("item,group,share\nHoward University,Black,0.9\nMIT,Black,0.1\n")
    run_cli("import", "references", str(tmp_path / "refs.csv"), "--db", str(db), "--study", "unis")
    models = [m for (m,) in rows(db, "SELECT DISTINCT model FROM identity_outputs ORDER BY model")]
    out = run_cli("compare", "--db", str(db), "--study", "unis", "--models", *models, "--format", "json")
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    assert {r["metric"] for r in records} == {"mean_share"} and all(r["ci_unit"] == "prompt" for r in records)
    black = [r for r in records if r["group"] == "Black"]
    assert len(black) == 4 and all(r["difference"] == 0 and r["n_units"] == 2 for r in black), black
    assert all(r["na_reason"] for r in records if r["group"] != "Black")  # no reference share for them
    # The table at 80 columns: no topic column (identity pairs no topics), every reason under it once.
    table = run_cli("compare", "--db", str(db), "--study", "unis", "--models", *models, env={"COLUMNS": "80"})
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 80
    assert "topic" not in lines[1] + lines[2] and "by prompt" in table.stdout and "(1) n/a: " in table.stdout


def _comparable_methods() -> list[str]:
    from workbench import methods
    from workbench.methods.hooks import part

    return [name for name in methods.names() if part(methods.get(name), "compare") is not None]


def _refusal(out) -> str:
    assert out.returncode == 2, (out.stdout, out.stderr)
    (line,) = out.stderr.strip().splitlines()  # one line, as every refusal
    return line


def test_a_cold_start_study_is_refused_naming_the_methods_compared(tmp_path):
    """A method without a `compare` part (cold-start) is refused in one line that names it and
    the methods that can be compared, not paired as another method's study ("has 0 model(s)")."""
    path, db = tmp_path / "r.csv", tmp_path / "c.db"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "seed", "persona_category", "persona", "rank", "item"])
        for model in ("m", "n"):
            for rank, item in enumerate(["A", "B", "C"], 1):
                writer.writerows([(model, 0, "", "neutral", rank, item), (model, 0, "g", "a girl", rank, item)])
    assert run_cli("import", "rankings", str(path), "--db", str(db), "--study", "cs").returncode == 0
    line = _refusal(run_cli("compare", "--db", str(db), "--study", "cs", "--models", "m", "n"))
    head = "error: study 'cs' (method coldstart) is not paired by `workbench compare`: it compares "
    assert line.startswith(head) and line.endswith(" studies"), line
    named = line[len(head) : -len(" studies")].replace(" or ", ", ").split(", ")
    assert named == _comparable_methods() and "coldstart" not in named and len(named) >= 3
    from workbench.analysis.compare import comparable_models

    assert comparable_models(connect(db)) == {"cs": []}  # the app's picker offers none of its models


class _Unpaired(methods.MethodBase):
    name = "unpaired"
    summary = "a method of its own, with no paired comparison"

    async def after_answers(self, stages):
        pass

    def metric_records(self, conn, study, convention="paper"):
        return []


def test_a_plugin_method_without_a_compare_module_and_one_not_installed_are_refused(tmp_path):
    from workbench.store.requests.studies import ensure_study

    db = tmp_path / "u.db"
    methods.register(_Unpaired)
    try:
        conn = connect(db)
        ensure_study(conn, "mine", "unpaired")
        ensure_study(conn, "old", "uninstalled")
        conn.close()
        line = _refusal(run_cli("compare", "--db", str(db), "--study", "mine", "--models", "a", "b"))
        assert line.startswith("error: study 'mine' (method unpaired) is not paired by `workbench compare`")
        assert "unpaired" not in line.split(": it compares ")[1]
    finally:
        methods.unregister("unpaired")
    line = _refusal(run_cli("compare", "--db", str(db), "--study", "old", "--models", "a", "b"))
    assert line.startswith("error: study 'old' (method uninstalled, not installed here) is not paired"), line


def test_a_store_of_studies_no_method_pairs_says_so(tmp_path):
    """The Metrics screen's c on a store whose studies' methods pair nothing (cold-start's): that
    reason, naming the methods that do, not "no study has a model with answers"."""
    from workbench.analysis.compare import nothing_to_pair
    from workbench.store.db import connect
    from workbench.store.requests.studies import ensure_study

    conn = connect(tmp_path / "a.db")
    assert nothing_to_pair(conn) is None  # an empty store: the screen's own reason
    ensure_study(conn, "cs", "coldstart")
    said = nothing_to_pair(conn)
    assert said.startswith("study 'cs' (method coldstart) is not paired by `workbench compare`: it compares ")
    ensure_study(conn, "cs2", "coldstart")
    assert nothing_to_pair(conn).startswith("no study here is of a method `workbench compare` pairs: it compares ")
    ensure_study(conn, "ch", "choice")
    assert nothing_to_pair(conn) is None  # a ChoiceEval study: its models are offered (or why not)
    conn.close()
