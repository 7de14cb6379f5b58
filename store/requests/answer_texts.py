"""The text of answers by their request keys: what the evidence behind a number quotes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

CHUNK = 500  # keys per query: well under SQLite's limit on bound parameters


def answer_texts(conn: sqlite3.Connection, keys: Iterable[str | None]) -> dict[str, str]:
    """Each answered key's text as the model gave it (a key with no stored answer is left out)."""
    wanted = sorted({key for key in keys if key})
    found: dict[str, str] = {}
    for at in range(0, len(wanted), CHUNK):
        chunk = wanted[at : at + CHUNK]
        found.update(
            conn.execute(
                f"SELECT request_key, text FROM responses WHERE request_key IN ({','.join('?' * len(chunk))})", chunk
            )
        )
    return found
