"""Cold-start's evidence (workbench/analysis/evidence.py): behind a persona's divergence, each seed's
answer for the persona beside the neutral list of the same seed, the catalog items both hold
counted (IOU = shared / either), as the metrics read the rankings now (after match corrections)."""

from __future__ import annotations

import sqlite3

from workbench.display.evidence import Answer, Evidence, EvidenceError, Query, known, model_named
from workbench.methods.coldstart.data import CURRENT
from workbench.methods.coldstart.metrics import iou
from workbench.store.requests.answer_texts import answer_texts
from workbench.text.numbers import fmt_num
from workbench.text.words import plural_word

OPTIONS: dict[str, tuple[str, ...]] = {"divergence": ()}  # --topic and --model only
METRICS = {"divergence": "each seed's persona answer against its neutral list, the items both hold counted"}


def _rankings(conn: sqlite3.Connection, study_id: int) -> dict[tuple, list[tuple]]:
    """(model, seed, category, persona) -> [(item, surface), ...] in rank order, and its answer key."""
    out: dict[tuple, list[tuple]] = {}
    for model, seed, category, persona, item, surface, key in conn.execute(
        "SELECT model, seed, persona_category, persona, item, surface, request_key FROM rankings "
        f"WHERE study_id = ? AND {CURRENT} ORDER BY model, seed, persona_category, persona, rank",
        (study_id,),
    ):
        out.setdefault((model, seed, category, persona), []).append((item, surface, key))
    return out


def _persona(value: str | None, personas: list[tuple[str, str]]) -> tuple[str, str]:
    """A persona as the table names it ("gender: a girl") or by itself when only one has the name."""
    labels = {f"{c}: {p}": (c, p) for c, p in personas}
    if value in labels:
        return labels[value]
    alone = [(c, p) for c, p in personas if p == value]
    if len(alone) == 1:
        return alone[0]
    if value is None:
        raise EvidenceError(f"name a persona with --topic (known: {', '.join(repr(k) for k in labels) or 'none'})")
    known(value, list(labels), "persona")
    raise AssertionError  # `known` refused it


def evidence(conn: sqlite3.Connection, study_id: int, query: Query) -> list[Evidence]:
    lists = _rankings(conn, study_id)
    personas = sorted({(c, p) for _m, _s, c, p in lists if c != "neutral"})
    category, persona = _persona(query.topic, personas)
    model = model_named(query.model, sorted({m for m, *_ in lists}))
    texts = answer_texts(conn, (rows[0][2] for rows in lists.values() if rows))
    out = []
    for name in sorted({m for m, _s, c, p in lists if (c, p) == (category, persona)}):
        if model is not None and name != model:
            continue
        answers, parts, values = [], [], []
        for (m, seed, c, p), rows in sorted(lists.items()):
            if (m, c, p) != (name, category, persona):
                continue
            neutral = [item for item, _s, _k in lists.get((m, seed, "neutral", "neutral"), []) if item]
            items = [item for item, _s, _k in rows if item]
            shared = set(items) & set(neutral)
            counted = tuple(dict.fromkeys(s or item for item, s, _k in rows if item in shared))
            names = tuple(s or (item or "") for item, s, _k in rows)
            if not neutral:
                note = "seed left out: its neutral list names no catalog item"
            else:
                values.append(1 - iou(items, neutral))
                union = len(set(items) | set(neutral))
                note = (
                    f"seed {seed}: IOU divergence {fmt_num(values[-1], 2)}, {len(shared)} of {union} items shared "
                    f"with the neutral list"
                    + (f" ({', '.join(dict.fromkeys(i for i in items if i in shared))})" if shared else "")
                )
                parts.append(f"seed {seed}: {len(shared)} of {union} shared")
            key = rows[0][2]
            answers.append(
                Answer(name, f"{c}: {p}", f"seed {seed}", texts.get(key), names, counted, key=key, note=note)
            )
        mean = f"IOU divergence {fmt_num(sum(values) / len(values), 2)}" if values else "IOU divergence n/a"
        sentence = f"{mean}: 1 - the items shared with the neutral list over the items of either, mean of {len(values)} {plural_word(len(values), 'seed')}"
        ordered = [a for a in answers if a.counted] + [a for a in answers if not a.counted]
        base = {"study": query.study, "method": "coldstart", "metric": "divergence", "model": name}
        out.append(
            Evidence(
                **base,
                topic=f"{category}: {persona}",
                sentence=sentence,
                details=tuple(parts),
                answers=tuple(ordered),
                counting=sum(1 for a in answers if a.counted),
            )
        )
    return out


def cell_query(panel_id: str, header: list[str], row: list[str], column: int, choices: dict) -> Query | None:
    """A cell of the divergence table: its row's persona, its column's model (not the baseline row)."""
    if panel_id != "coldstart-table" or column < 1 or column >= len(header) or not row or ": " not in row[0]:
        return None
    return Query("divergence", row[0], header[column])


def record_query(row: dict) -> Query | None:
    if str(row.get("metric", "")).endswith("_divergence") and row.get("persona"):
        return Query("divergence", f"{row['persona_category']}: {row['persona']}", row["model"])
    return None
