"""Identity disclosure's evidence (workbench/analysis/evidence.py): behind a group x condition's mean
share, each answer of the cell with the items it recommended that the reference table holds
(counted, each with the group's share) and the answer's own mean, as the metrics read them."""

from __future__ import annotations

import sqlite3

from workbench.display.evidence import Answer, Evidence, EvidenceError, Query, known, model_named
from workbench.methods.identity.data import CURRENT
from workbench.methods.identity.metrics import mean_share
from workbench.store.requests.answer_texts import answer_texts
from workbench.text.literal import visible_line
from workbench.text.numbers import fmt_num
from workbench.text.words import plural_word

OPTIONS: dict[str, tuple[str, ...]] = {"mean_share": ()}  # --topic and --model only
METRICS = {"mean_share": "each answer of a group x condition, the items the reference table holds counted"}
SUFFIX = ": mean share"  # the identity table's first column of a model ("gpt-4o: mean share")


def _cell(conn: sqlite3.Connection, study_id: int, model: str, group: str, condition: str) -> list[tuple]:
    keys = [
        key
        for (key,) in conn.execute(
            "SELECT o.request_key FROM identity_outputs o "
            f"WHERE o.study_id = ? AND o.model = ? AND o.grp = ? AND o.condition = ? AND {CURRENT} ORDER BY o.rowid",
            (study_id, model, group, condition),
        )
    ]
    texts = answer_texts(conn, keys)
    return [(key, texts.get(key)) for key in keys]


def _items(conn: sqlite3.Connection, keys: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for at in range(0, len(keys), 500):
        chunk = keys[at : at + 500]
        for key, item in conn.execute(
            f"SELECT request_key, item FROM identity_recommendations WHERE request_key IN ({','.join('?' * len(chunk))}) "
            "ORDER BY request_key, rank",
            chunk,
        ):
            out.setdefault(key, []).append(item)
    return out


def _asked(conn: sqlite3.Connection, keys: list[str]) -> dict[str, str]:
    """Each answer's question: its prompt's last user message (what a reader recognises it by)."""
    import json

    from workbench.store.requests.answers import payloads

    out = {}
    for key, payload in payloads(conn, keys).items():
        users = [m.get("content") for m in json.loads(payload).get("messages", []) if m.get("role") == "user"]
        out[key] = str(users[-1]) if users else key
    return out


def evidence(conn: sqlite3.Connection, study_id: int, query: Query) -> list[Evidence]:
    cells = conn.execute(
        f"SELECT DISTINCT o.model, o.grp, o.condition FROM identity_outputs o WHERE o.study_id = ? AND {CURRENT}",
        (study_id,),
    ).fetchall()
    labels = sorted({f"{g} · {c}" for _m, g, c in cells})
    if query.topic is None:
        raise EvidenceError(f"name a group · condition with --topic (known: {', '.join(map(repr, labels))})")
    known(query.topic, labels, "group · condition")
    group, condition = query.topic.rsplit(" · ", 1)
    model = model_named(query.model, sorted({m for m, _g, _c in cells}))
    shares = dict(
        conn.execute("SELECT item, share FROM reference_shares WHERE study_id = ? AND grp = ?", (study_id, group))
    )
    out = []
    for name in sorted({m for m, g, c in cells if (g, c) == (group, condition)}):
        if model is not None and name != model:
            continue
        rows = _cell(conn, study_id, name, group, condition)
        items = _items(conn, [key for key, _text in rows])
        prompts = _asked(conn, [key for key, _text in rows])
        answers, values = [], []
        for key, text in rows:
            recommended = items.get(key, [])
            value = mean_share(recommended, shares)
            counted = tuple(i for i in recommended if i in shares)
            if value is not None:
                values.append(value)
                each = ", ".join(f"{i} {fmt_num(shares[i], 2)}" for i in counted)
                note = f"its mean share {fmt_num(value, 3)} ({each})"
            else:
                note = "no recommended item in the reference table: not counted"
            asked = visible_line(prompts.get(key) or key)
            asked = asked if len(asked) <= 100 else asked[:99] + "…"  # a prompt is long: its start names it
            answers.append(Answer(name, query.topic, asked, text, tuple(recommended), counted, key=key, note=note))
        mean = f"mean share {fmt_num(sum(values) / len(values), 3)}" if values else "mean share n/a"
        sentence = (
            f"{mean} of the {group} group over {len(values)} of {len(rows)} answers (those recommending an item "
            "the reference table holds)"
        )
        ordered = [a for a in answers if a.counted] + [a for a in answers if not a.counted]
        base = {"study": query.study, "method": "identity", "metric": "mean_share", "model": name}
        details = (_baseline(conn, study_id, name, group, shares),) if condition != "baseline" else ()
        out.append(
            Evidence(
                **base,
                topic=query.topic,
                sentence=sentence,
                details=tuple(d for d in details if d),
                answers=tuple(ordered),
                counting=len(values),
            )
        )
    return out


def _baseline(conn: sqlite3.Connection, study_id: int, model: str, group: str, shares: dict) -> str:
    """The baseline's mean share, which the difference beside this one is taken from."""
    rows = _cell(conn, study_id, model, group, "baseline")
    items = _items(conn, [key for key, _text in rows])
    values = [v for key, _t in rows if (v := mean_share(items.get(key, []), shares)) is not None]
    if not values:
        return ""
    return f"baseline: mean share {fmt_num(sum(values) / len(values), 3)} over {len(values)} {plural_word(len(values), 'answer')}"


def cell_query(panel_id: str, header: list[str], row: list[str], column: int, choices: dict) -> Query | None:
    """A cell of the identity table: its row's group · condition, the model of its column's group."""
    if panel_id != "identity-table" or column < 1 or column >= len(header) or not row:
        return None
    first = header[1 + (column - 1) // 4 * 4]  # each model has 4 columns: mean share, n, parsed, admits
    return Query("mean_share", row[0], first.removesuffix(SUFFIX))


def record_query(row: dict) -> Query | None:
    if row.get("metric") in ("mean_share", "mean_share_vs_baseline") and row.get("group"):
        return Query("mean_share", f"{row['group']} · {row['condition']}", row["model"])
    return None
