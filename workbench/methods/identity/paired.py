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
