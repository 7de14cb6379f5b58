"""Every built-in method's numbers are typed records (frozen dataclasses), made flat only
where a file is written: `as_rows` gives exactly the records of `workbench metrics --format json`."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import pytest
from helpers import run_cli
from openai_server import ServerConfig

from workbench import methods
from workbench.metrics.records import UNSET, as_row, as_rows, has, spliced, value_of, with_adjusted_p
from workbench.store.db import opened


def _csv(path: Path, header: list[str], rows: list[list]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _store(tmp_path: Path, metrics_db: Path, fake_server) -> Path:
    """The ChoiceEval store of `metrics_db`, with a cold-start, a label-probability and an identity study."""
    reply = '[{"university": "Howard University", "explanation": "community"}, {"university": "MIT", "explanation": "STEM"}]'
    server = fake_server(ServerConfig(reply_text=reply))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}"]\n'
        'template = "universities"\nper_group = 2\nseed = 2\n'
    )
    done = run_cli("run", str(study), "--db", str(metrics_db), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = ["model,seed,persona_category,persona,rank,item"]
    for seed in (0, 1):
        lines += [f"m,{seed},,neutral,{rank},{item}" for rank, item in enumerate("ABC", 1)]
        lines += [f"m,{seed},gender,a girl,{rank},{item}" for rank, item in enumerate("CBX" if seed else "ABC", 1)]
    (tmp_path / "rankings.csv").write_text("\n".join(lines) + "\n")
    done = run_cli("import", "rankings", str(tmp_path / "rankings.csv"), "--db", str(metrics_db), "--study", "cs")
    assert done.returncode == 0, done.stderr
    task = Path(__file__).resolve().parents[2] / "assets" / "studies" / "entity" / "urgency.task.json"
    labels = ["low_urgency", "moderate_urgency", "high_urgency", "critical_urgency"]
    entities = ["France", "Japan", "Peru", "Kenya"]
    _csv(tmp_path / "ents.csv", ["name", "gdp"], [[e, "high" if i % 2 else "low"] for i, e in enumerate(entities)])
    rows = [
        [entity, template, label, repr(-0.2 - ((i * 7 + template * 3 + j * 5) % 11) / 3)]
        for template in range(3)
        for i, entity in enumerate(entities)
        for j, label in enumerate(labels)
    ]
    scores = _csv(tmp_path / "scores.csv", ["entity", "template_id", "label", "logprob"], rows)
    done = run_cli(
        "import", "scores", str(scores), "--db", str(metrics_db), "--study", "urgency", "--task", str(task),
        "--entities", str(tmp_path / "ents.csv"), "--group-by", "gdp",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return metrics_db


@pytest.mark.parametrize("convention", ["paper", "original"])
def test_every_builtin_method_gives_dataclasses_that_flatten_to_the_json(tmp_path, metrics_db, fake_server, convention):
    db = _store(tmp_path, metrics_db, fake_server)
    out = run_cli("metrics", "--db", str(db), "--format", "json", "--convention", convention, "--boot", "50")
    assert out.returncode == 0, out.stderr
    written = json.loads(out.stdout)
    from workbench.metrics.intervals import resampling

    with opened(db) as conn, resampling(50):
        by_method = methods.metric_records_by_method(conn, None, convention)
        own = {name: methods.get(name).metric_records(conn, None, convention) for name in ("coldstart", "entity")}
    for name in methods.BUILTIN:
        records = by_method[name]
        assert records, name  # the store has numbers of every built-in method
        assert all(dataclasses.is_dataclass(r) and r.__dataclass_params__.frozen for r in records), name
        assert {r.convention for r in records} == {convention}
    for name, records in own.items():  # the method's own hook, before the registry sees them
        assert all(dataclasses.is_dataclass(r) for r in records), name
    rows = as_rows(r for records in by_method.values() for r in records)
    assert [list(row) for row in rows] == [list(record) for record in written]  # the keys, in their order
    assert rows == written
    entity = by_method["entity"]  # spliced metadata columns (meta_gdp) included
    assert methods.metric_fields(entity) == methods.metric_fields(
        as_rows(entity)
    ) and "meta_gdp" in methods.metric_fields(entity)


def test_a_typed_record_is_immutable_and_reads_like_its_row(tmp_path, metrics_db):
    with opened(metrics_db) as conn:
        records = methods.get("choice").metric_records(conn, None)
    peir = next(r for r in records if r.metric == "peir")
    with pytest.raises(dataclasses.FrozenInstanceError):
        peir.value = 0.0
    row = as_row(peir)
    assert all(value_of(peir, key) == value for key, value in row.items())
    assert not has(peir, "ci_na_reason") and "ci_na_reason" not in row  # unset: absent, not None
    assert value_of(peir, "ci_na_reason", "none") == "none"


def test_dicts_pass_through_unchanged():
    record = {"study": "s", "metric": "echo_count", "value": 3}
    assert as_row(record) is record and as_rows([record]) == [record]
    assert value_of(record, "value") == 3 and has(record, "metric") and not has(record, "p")


def test_spliced_fields_unset_fields_and_adjusted_p():
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Toy:
        study: str
        p: float | None
        reason: str | object = UNSET
        extra: dict = spliced("x_")
        p_holm: float | None | object = UNSET
        p_bh: float | None | object = UNSET

    records = [Toy(study="s", p=0.01, extra={"a": 1}), Toy(study="s", p=0.04, reason="why"), {"study": "s", "p": 0.2}]
    with_adjusted_p(records, lambda r: True, ("study",))
    assert as_rows(records) == [
        {"study": "s", "p": 0.01, "x_a": 1, "p_holm": 0.03, "p_bh": pytest.approx(0.03)},
        {"study": "s", "p": 0.04, "reason": "why", "p_holm": 0.08, "p_bh": pytest.approx(0.06)},
        {"study": "s", "p": 0.2, "p_holm": 0.2, "p_bh": pytest.approx(0.2)},
    ]


def test_entities_tied_on_delta_are_ranked_by_name_whatever_the_hash_seed():
    """The entity table orders tied Deltas by name (a set's order follows the hash seed, so
    two processes drew the same report in two orders); an n/a Delta comes last."""
    import dataclasses

    from workbench.methods.entity.records import EntityDelta
    from workbench.methods.entity.views import entity_table

    base = EntityDelta(
        convention="paper",
        study="s",
        model="m",
        task="t",
        language="english",
        variant="v",
        method="exact",
        entity="",
        value=0.5,
        n=4,
        flat_templates=0,
        mean=0.5,
        ci_low=None,
        ci_high=None,
        ci_level=0.95,
        n_boot=1000,
    )
    values = {"Chad": 0.5, "Austria": 0.5, "Brazil": 0.9, "Denmark": None}
    records = [dataclasses.replace(base, entity=name, value=value) for name, value in values.items()]
    _header, rows = entity_table(records)
    assert [row[1] for row in rows] == ["Brazil", "Austria", "Chad", "Denmark"]
