"""Read-only views of a store for live displays (the TUI's Run and Metrics screens).

Everything here opens its own connection per call, so it can run in any thread
while another process (a headless `workbench run`) writes to the same file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.pipeline import run_records as exports
from workbench.store.db import reading
from workbench.store.reads import shared as reads
from workbench.store.requests import endpoints


def snapshot(db_path: str | Path) -> dict[str, Any]:
    """Request counts per study/model/stage and the latest errors, for polling (as one
    commit left them, while a run writes)."""
    with reading(db_path) as conn:
        replicas = endpoints.endpoint_records(conn)  # read once, for both views
        return {
            "status": exports.status_records(conn, replicas=replicas),
            "errors": reads.recent_errors(conn),
            "endpoints": replicas,
        }
