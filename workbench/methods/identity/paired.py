"""Identity's numbers per prompt, for a paired comparison of two models (`workbench compare`):
both models are asked the same sampled prompts, so a prompt is the unit they are paired by."""

from __future__ import annotations

import sqlite3


def prompt_sums(conn: sqlite3.Connection, study_id: int, model: str) -> dict[tuple[str, str], dict[str, tuple]]:
    """Per group x condition, per prompt: (answers with a Mean Share, their shares summed)."""
    from workbench.methods.identity.data import CURRENT, _prompts
    from workbench.methods.identity.metrics import mean_share

    outputs = conn.execute(
        f"SELECT o.request_key, o.grp, o.condition FROM identity_outputs o WHERE o.study_id = ? AND o.model = ? "
        f"AND {CURRENT}",
        (study_id, model),
    ).fetchall()
    items: dict[str, list[str]] = {}
    for key, item in conn.execute(
        "SELECT r.request_key, r.item FROM identity_recommendations r JOIN identity_outputs o "
        f"ON o.request_key = r.request_key WHERE o.study_id = ? AND o.model = ? AND {CURRENT} "
        "ORDER BY r.request_key, r.rank",
        (study_id, model),
    ):
        items.setdefault(key, []).append(item)
    shares: dict[str, dict[str, float]] = {}
    for item, group, share in conn.execute(
        "SELECT item, grp, share FROM reference_shares WHERE study_id = ?", (study_id,)
    ):
        shares.setdefault(group, {})[item] = share
    prompts = _prompts(conn, [key for key, _g, _c in outputs])
    out: dict[tuple[str, str], dict[str, tuple]] = {}
    for key, group, condition in outputs:
        value = mean_share(items.get(key, []), shares.get(group, {}))
        held = out.setdefault((group, condition), {}).get(prompts[key], (0, 0.0))
        if value is not None:
            held = (held[0] + 1, held[1] + value)
        out[group, condition][prompts[key]] = held
    return out


def models(conn: sqlite3.Connection, study_id: int) -> list[str]:
    """The models with answers that count in the study, by name."""
    from workbench.methods.identity.data import CURRENT

    rows = conn.execute(
        f"SELECT DISTINCT o.model FROM identity_outputs o WHERE o.study_id = ? AND {CURRENT} ORDER BY o.model",
        (study_id,),
    )
    return [row[0] for row in rows]


def paired_records(conn: sqlite3.Connection, study_id: int, pairing) -> list[dict]:
    """Each group x condition's Mean Share, B's minus A's, over the prompts both answered."""
    import numpy as np

    pairing.check(models(conn, study_id))
    a, b = (prompt_sums(conn, study_id, m) for m in (pairing.model_a, pairing.model_b))
    records = []
    for group, condition in sorted(set(a) | set(b)):
        base = {"study": pairing.study, "metric": "mean_share", "topic": None, "entity": None}
        base.update(model_a=pairing.model_a, model_b=pairing.model_b, group=group, condition=condition)
        held_a, held_b = a.get((group, condition), {}), b.get((group, condition), {})
        common = sorted(set(held_a) & set(held_b))
        rows_a = np.asarray([held_a[p] for p in common], dtype=float).reshape(-1, 2)
        rows_b = np.asarray([held_b[p] for p in common], dtype=float).reshape(-1, 2)
        records.append(pairing.paired(base, rows_a, rows_b, "prompt"))
    return records
