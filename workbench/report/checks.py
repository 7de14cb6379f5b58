"""Checks on what was stored that a reader of findings should see beside the counts: voted
entities the answers do not contain (grounding), and replies that named another model than
the one asked for (a pool replica serving something else)."""

from __future__ import annotations

import sqlite3

from workbench.report.document import Block, TableBlock
from workbench.store.entities import grounding
from workbench.store.requests import served
from workbench.text.numbers import fmt_num


def check_blocks(conn: sqlite3.Connection, study_id: int) -> list[Block]:
    blocks: list[Block] = []
    counts = [c for c in grounding.ungrounded_counts(conn, study_id) if c["lists"]]
    if counts:
        blocks.append(
            TableBlock(
                "Voted entities not found in the answer's text (dropped, or kept and flagged, as the study says)",
                ["model", "voted lists", "lists with some", "names"],
                [[c["model"], fmt_num(c["lists"]), fmt_num(c["lists_with"]), fmt_num(c["names"])] for c in counts],
            )
        )
    others = [n for n in served.served_names(conn, study_id) if n["differs"]]
    if others:
        blocks.append(
            TableBlock(
                "Replies naming another model than the one asked",
                ["model", "replica", "asked", "served as", "replies"],
                [
                    [n["model"], n["endpoint"] or "", n["asked"] or "", n["served"], fmt_num(n["replies"])]
                    for n in others
                ],
            )
        )
    return blocks
