"""The app on a large store: time to first screen and the Metrics screen's refresh.

Builds a database with 1,000,000 mention rows (200,000 ranked lists of 5, as from
3 models x 2 topics x 9 clusters x ~3,700 questions x 1 repetition, plus their
200,000 answered requests), then measures, headless at 80x24:
- time to first screen: from creating the app until the Run screen shows its
  request counts, against the same on an empty database (the baseline);
- the first Metrics refresh: from pressing 2 until every table is filled, pressed at
  once and after the app's start-up loading, against the same on a 10,000-mention
  database;
- refresh after a change made elsewhere (a region assigned, two entities merged, one
  list edited by a reviewer): from pressing 2 again until the new numbers replace the
  dimmed ones;
- live refresh: Metrics, Entities and Review left on view, one list edited from another
  connection, no key pressed: from the commit until the screen shows what it read after it
  (Review twice: the response on view, then every list of its filter with the progress).

    .venv/bin/python bench/bench_tui.py [--mentions 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.asking.extract import normalize_surface
from workbench.store.db import connect, utc_now
from workbench.store.requests import studies


def build(db: Path, mentions: int) -> None:
    conn = connect(db)
    study = studies.upsert_study(conn, "big", "choice", {"name": "big"}, None)
    rng = np.random.default_rng(1)
    names = [f"Brand {i:04d}" for i in range(2000)]
    weights = 1 / np.arange(1, 2001) ** 1.05
    weights /= weights.sum()
    lists = int(mentions * 1.07) // 5  # a few picks repeat within a list and are dropped
    model_ids = [
        studies.upsert_model(
            conn,
            identity=f"m{i}",
            spec=f"openai:model-{i}@http://h/v1",
            engine="openai",
            name=f"model-{i}",
            base_url="http://h/v1",
            file_path=None,
            file_hash=None,
            params={},
        )
        for i in range(3)
    ]
    now = utc_now()
    regions = ["United States", "Europe", "Asia", "Other"]
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO entities (id, name, region, created_at) VALUES (?, ?, ?, ?)",
        [(i + 1, n, regions[i % 4], now) for i, n in enumerate(names)],
    )
    conn.executemany(
        "INSERT INTO aliases (surface_key, entity_id) VALUES (?, ?)",
        [(normalize_surface(n), i + 1) for i, n in enumerate(names)],
    )
    picks = rng.choice(2000, size=(lists, 5), p=weights)
    list_rows, mention_rows, request_rows = [], [], []
    for i in range(lists):
        model = i % 3
        topic = "shoes" if (i // 3) % 2 == 0 else "phones"
        cluster = f"Cluster {(i // 6) % 9}"
        key = f"k{i:07d}"
        request_rows.append((key, study, model_ids[model], "answer", "done", 1, "{}", now, now))
        list_rows.append((i + 1, study, f"openai:model-{model}@http://h/v1", topic, cluster, f"q{i}", 1, "import", key))
        seen = []
        for j in picks[i]:
            if j not in seen:
                seen.append(j)
        for rank, j in enumerate(seen, 1):
            mention_rows.append((i + 1, rank, names[j], normalize_surface(names[j])))
    conn.executemany(
        "INSERT INTO requests (key, study_id, model_id, stage, status, attempts, payload_json, "
        "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        request_rows,
    )
    conn.executemany(
        "INSERT INTO mention_lists (id, study_id, model, topic, cluster, question, repetition, source, "
        "response_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        list_rows,
    )
    conn.executemany("INSERT INTO mentions (list_id, rank, surface, surface_key) VALUES (?, ?, ?, ?)", mention_rows)
    conn.execute("COMMIT")
    conn.close()


async def first_screen(db: Path) -> float:
    from workbench.app import WorkbenchApp

    started = time.perf_counter()
    app = WorkbenchApp(db)
    async with app.run_test(size=(80, 24)) as pilot:
        while app.screen.query_one("#status-table").row_count == 0:
            await pilot.pause(0.01)
        return time.perf_counter() - started


async def metrics_refresh(db: Path, after_warm_up: bool) -> float:
    """From pressing 2 until every table is filled, in a process that has loaded nothing yet:
    pressed at once (the lists the app began loading at start are still loading), or once the
    app's start-up loading is done (a reader who looked at the first screen for a few seconds)."""
    from workbench.app import WorkbenchApp
    from workbench.methods.choice import data

    data._LOADED.clear()  # as a fresh process
    app = WorkbenchApp(db)
    async with app.run_test(size=(80, 24)) as pilot:
        if after_warm_up:
            await app.workers.wait_for_complete()
        started = time.perf_counter()
        await pilot.press("2")
        while not app.screen.query("#peir-table") or app.screen.query_one("#peir-table").row_count == 0:
            await pilot.pause(0.01)
        return time.perf_counter() - started


def assign_region(conn) -> None:
    from workbench.store.entities.mentions import set_entity_attributes

    set_entity_attributes(conn, [{"name": "Brand 0007", "region": "Europe"}])  # it was Other


def merge(conn) -> None:
    """Brand 0009's spellings become Brand 0008's (what `entities merge` does to the aliases)."""
    with conn:
        conn.execute("UPDATE aliases SET entity_id = 9 WHERE entity_id = 10")


def edit_list(conn) -> None:
    """A reviewer's edit of one list: its mentions replaced (see `reviews.review`)."""
    from workbench.store.review import verdicts as reviews

    list_id = conn.execute("SELECT id FROM mention_lists ORDER BY id LIMIT 1 OFFSET 500").fetchone()[0]
    reviews.review(conn, list_id, "bench", "edit", ["Brand 0003", "Brand 0001"])


async def refresh_after(db: Path, change) -> float:
    """The reviewer's loop: Metrics shown, a change made elsewhere (another connection,
    as the Entities or Review screen or a second terminal would), Metrics again; the
    time from pressing 2 until the new numbers replace the dimmed ones."""
    from workbench.app import WorkbenchApp

    app = WorkbenchApp(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        while not app.screen.query("#peir-table") or app.screen.query_one("#peir-table").row_count == 0:
            await pilot.pause(0.01)
        screen = app.screen
        await pilot.press("1")
        writer = connect(db)
        change(writer)
        writer.close()
        computed = screen.computed
        started = time.perf_counter()
        await pilot.press("2")
        while screen.computed == computed:
            await pilot.pause(0.005)
        return time.perf_counter() - started


LIVE = {  # a screen's key, and what counts as its refresh having arrived (what tests wait on too)
    "Metrics": ("2", lambda screen: screen.computed),
    "Entities": ("5", lambda screen: screen.listings),  # the list of every entity
    "Review": ("4", lambda screen: screen.details),  # the response on view
    "Review's pages": ("4", lambda screen: screen.loads),  # every list of the filter, and the progress
}


async def live_refresh(db: Path, change, screen_name: str = "Metrics") -> float:
    """A screen left on view, a change committed from another connection (another process's
    verdict, merge or import), no key pressed: the time from the commit until the screen
    shows what it read after it (its poll of the store's change counter, twice a second,
    included)."""
    from workbench.app import WorkbenchApp

    key, done = LIVE[screen_name]
    app = WorkbenchApp(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(key)
        screen = app.screen
        while done(screen) == 0:
            await pilot.pause(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause(0.1)
        before = done(screen)
        writer = connect(db)
        change(writer)
        writer.close()
        started = time.perf_counter()
        while done(screen) == before:
            await pilot.pause(0.005)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mentions", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big, small, empty = Path(tmp) / "big.db", Path(tmp) / "small.db", Path(tmp) / "empty.db"
        started = time.perf_counter()
        build(big, args.mentions)
        build(small, 10_000)
        connect(empty).close()
        count = sqlite3.connect(big).execute("SELECT COUNT(*) FROM mentions").fetchone()[0]
        print(f"built {count:,} mention rows in {time.perf_counter() - started:.1f} s")
        # An empty database has no status rows: wait for the first poll instead.
        from workbench.pipeline import monitor

        t0 = time.perf_counter()
        monitor.snapshot(empty)
        baseline_poll = time.perf_counter() - t0
        t_big = asyncio.run(first_screen(big))
        t_small = asyncio.run(first_screen(small))
        print(
            f"time to first screen: {t_big:.2f} s on {count:,} mentions vs {t_small:.2f} s on 10,000 "
            f"-> ratio {t_big / t_small:.2f} (target: under 2 s); an empty store's poll takes {baseline_poll:.3f} s"
        )
        for when, warm in (("pressed at once", False), ("after the start-up loading", True)):
            m_big = asyncio.run(metrics_refresh(big, warm))
            m_small = asyncio.run(metrics_refresh(small, warm))
            print(
                f"first metrics refresh, {when}: {m_big:.2f} s on {count:,} mentions vs {m_small:.2f} s on "
                f"10,000 -> ratio {m_big / m_small:.1f}; the UI stays responsive (worker threads)"
            )
        for name in LIVE:
            r_big = asyncio.run(live_refresh(big, edit_list, name))
            r_small = asyncio.run(live_refresh(small, edit_list, name))
            print(
                f"{name} shown, a list edited elsewhere: new numbers {r_big:.2f} s after the commit on {count:,} "
                f"mentions vs {r_small:.2f} s on 10,000 -> ratio {r_big / r_small:.1f} (target: 2 s; polled every 0.5 s)"
            )
        for what, change in (("a region is assigned", assign_region), ("a merge", merge), ("a list edit", edit_list)):
            r_big = asyncio.run(refresh_after(big, change))
            r_small = asyncio.run(refresh_after(small, change))
            print(
                f"refresh after {what}: {r_big:.2f} s on {count:,} mentions vs {r_small:.2f} s on "
                f"10,000 -> ratio {r_big / r_small:.1f} (target: 2 s; only what changed is read again)"
            )


if __name__ == "__main__":
    main()
