"""ChoiceEval's numbers at scale: the fast paths give the numbers of their definitions.

Spearman's rho between repetitions, Kruskal-Wallis and the PEIR interval are computed
without a scipy call per scope; the definitions they are held to here are scipy's own
functions, called once per pair as before, and the interval of the mean of the n ones and
zeros. Nothing here is timed (bench/bench_scale.py measures).
"""

from __future__ import annotations

import json
import math
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from workbench.methods.choice import metrics
from workbench.methods.choice import stability as choice_stability
from workbench.metrics import intervals


def _spearman_by_pair(samples: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """The definition: `scipy.stats.spearmanr` for each pair, nan where it is undefined."""
    k = len(samples)
    rho, p = np.full((k, k), np.nan), np.full((k, k), np.nan)
    for i, j in combinations(range(k), 2):
        x, y = samples[j], samples[i]
        if len(x) >= 3 and len(set(x)) > 1 and len(set(y)) > 1:
            result = stats.spearmanr(x, y)
            rho[j, i], p[j, i] = result.statistic, result.pvalue
    return rho, p


def _kruskal_by_scipy(samples: list[list[int]]) -> tuple[float | None, float | None]:
    usable = [s for s in samples if s]
    if len(usable) < 2 or len({v for s in usable for v in s}) < 2:
        return None, None
    result = stats.kruskal(*usable)
    return metrics._finite(result.statistic), metrics._finite(result.pvalue)


def _proportion_by_values(hits: int, n: int) -> tuple[float | None, float | None]:
    return intervals.mean_ci(np.repeat([1.0, 0.0], [hits, n - hits]))


def test_spearman_pairs_and_kruskal_equal_scipy():
    rng = np.random.default_rng(5)
    for trial in range(400):
        k, n = int(rng.integers(2, 7)), int(rng.integers(3, 12))
        samples = rng.integers(0, rng.integers(1, 30), size=(k, n))
        if trial % 5 == 0:
            samples[1] = samples[0]  # rho 1, p 0
        if trial % 7 == 0:
            samples[0] = 4  # a constant sample: undefined
        rho, p = choice_stability.spearman_matrix(samples.tolist())
        want_rho, want_p = _spearman_by_pair(samples.tolist())
        for i, j in combinations(range(k), 2):
            if not math.isnan(want_rho[j, i]):
                assert rho[j, i] == pytest.approx(want_rho[j, i], abs=1e-12)
                assert p[j, i] == pytest.approx(want_p[j, i], abs=1e-12)
        ragged = [s[: int(rng.integers(0, n + 1))] for s in samples.tolist()]
        got, want = choice_stability.kruskal(ragged), _kruskal_by_scipy(ragged)
        assert (got[0] is None) == (want[0] is None)
        if want[0] is not None:
            assert got == pytest.approx(want, abs=1e-12)


def test_proportion_interval_is_the_interval_of_its_ones_and_zeros():
    """The same draws, so the same interval, for every count (and a large n)."""
    for n in range(0, 40):
        for hits in range(n + 1):
            assert intervals.proportion_ci(hits, n) == _proportion_by_values(hits, n)
    assert intervals.proportion_ci(4000, 27000) == _proportion_by_values(4000, 27000)


def _big_store(path, rows: int = 50_000):
    """About `rows` mention rows: 2 models x 3 topics x 4 clusters x questions x 5
    repetitions of top-5 lists from a Zipf-like popularity, a few US spellings, regions."""
    from workbench.asking.extract import normalize_surface
    from workbench.store.db import connect
    from workbench.store.entities import mentions
    from workbench.store.requests.studies import ensure_study

    rng = np.random.default_rng(11)
    names = [f"Brand {i:02d}" for i in range(60)] + ["USA", "United States"]
    weights = 1 / np.arange(1, len(names) + 1) ** 1.1
    weights /= weights.sum()
    conn = connect(path)
    study = ensure_study(conn, "scale", "choice")
    questions = rows // (2 * 3 * 4 * 5 * 5)
    lists = []
    for model in ("m1", "m2"):
        for topic in ("shoes", "phones", "countries"):
            for cluster in ("Price", "Quality", "Ethics", "Style"):
                for q in range(questions):
                    for rep in range(1, 6):
                        picks = rng.choice(len(names), size=5, replace=False, p=weights)
                        surfaces = [(names[i], normalize_surface(names[i]), 1) for i in picks]
                        lists.append(
                            mentions.MentionList(model, topic, cluster, f"{cluster}-{q}", rep, "import", surfaces)
                        )
    mentions.store_lists(conn, study, lists)
    regions = ["United States", "Europe", "Asia", "Other"]
    mentions.set_entity_attributes(conn, [{"name": n, "region": regions[i % 4]} for i, n in enumerate(names[:-2])])
    return conn


def _close(got: list, want: list) -> None:
    """Two lists of records alike: the same keys, the floats equal up to rounding."""
    from workbench.metrics.records import as_rows

    got, want = as_rows(got), as_rows(want)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.keys() == b.keys(), (a, b)
        for key, value in b.items():
            if isinstance(value, float) and isinstance(a[key], float):
                assert a[key] == pytest.approx(value, rel=0, abs=1e-12), (key, a, b)
            else:
                assert a[key] == value, (key, a, b)


def test_fifty_thousand_rows_give_the_numbers_of_the_definitions(tmp_path, monkeypatch):
    """Counted from arrays, the log-odds kept between refreshes and the tests computed in
    one pass per scope, the records equal those of the plain definitions: counts from
    response lists (`counts.scope_counts`, per question `counts.questions_of`), scipy called
    per pair and per test, and under `--ci-unit answer` intervals of the n values; after a
    region assigned, too."""
    from test_metrics_choice import records_by_definition

    from workbench.methods.choice import data
    from workbench.metrics import clustered
    from workbench.store.entities.mentions import set_entity_attributes

    conn = _big_store(tmp_path / "s.db")
    assert conn.execute("SELECT COUNT(*) FROM mentions").fetchone()[0] >= 48_000

    def definition() -> list[dict]:
        with monkeypatch.context() as patched:
            patched.setattr(choice_stability, "spearman_matrix", _spearman_by_pair)
            patched.setattr(choice_stability, "kruskal", _kruskal_by_scipy)
            return records_by_definition(conn)

    data._LOADED.clear()
    _close(data.choice_metric_records_of(conn), definition())
    with clustered.resampling_unit("answer"):
        answers = data.choice_metric_records_of(conn)
        assert {r.ci_unit for r in answers if hasattr(r, "ci_unit")} == {"answer"}
        _close(answers, definition())
    set_entity_attributes(conn, [{"name": "Brand 05", "region": "Asia"}])  # was Europe
    _close(data.choice_metric_records_of(conn), definition())


def test_a_region_assigned_recomputes_only_the_pairs_it_moves(tmp_path, monkeypatch, metrics_db):
    """Brand regions from Europe to Asia: "United States vs non-US" counts both alike, so its
    log-odds (and their bootstrap) are kept; the other two pairs are computed again."""
    from workbench.methods.choice import data, logodds
    from workbench.store.db import connect
    from workbench.store.entities.mentions import set_entity_attributes

    conn = connect(metrics_db)
    data._LOADED.clear()
    data.choice_metric_records_of(conn)
    computed = []
    real = logodds.geographic_lor

    def counted(lists, region_of, region_a, region_b, *args, **kwargs):
        computed.append(region_b)
        return real(lists, region_of, region_a, region_b, *args, **kwargs)

    monkeypatch.setattr(metrics, "geographic_lor", counted)
    again = data.choice_metric_records_of(conn)
    assert computed == []  # nothing changed: nothing computed again
    set_entity_attributes(conn, [{"name": "Puma", "region": "Asia"}])
    moved = data.choice_metric_records_of(conn)
    assert computed and set(computed) == {"Europe", "Asia"}
    data._LOADED.clear()
    assert moved == data.choice_metric_records_of(conn) != again


def test_boot_sets_the_resamples_and_every_record_says_how_many(tmp_path, metrics_db):
    from helpers import run_cli

    from workbench.methods.choice import data
    from workbench.store.db import connect

    def intervals_of(*extra: str) -> list[dict]:
        out = run_cli("metrics", "--db", str(metrics_db), "--format", "json", *extra)
        assert out.returncode == 0, out.stderr
        return [r for r in json.loads(out.stdout) if "n_boot" in r]

    default, fewer = intervals_of(), intervals_of("--boot", "50")
    assert default and {r["n_boot"] for r in default} == {intervals.N_BOOT}
    assert {r["n_boot"] for r in fewer} == {50}
    # over answers a share's interval is Clopper-Pearson's and the log-odds' linearised: they
    # do not move with the resamples (a region share's spread is read from them, but its
    # effective n is the slots' own here)
    per_answer = intervals_of("--ci-unit", "answer")
    assert [r["ci_low"] for r in per_answer] == [
        r["ci_low"] for r in intervals_of("--ci-unit", "answer", "--boot", "50")
    ]
    assert intervals_of("--boot", str(intervals.N_BOOT)) == default
    refused = run_cli("metrics", "--db", str(metrics_db), "--format", "json", "--boot", "0")
    assert refused.returncode == 2 and "at least 10" in refused.stderr
    huge = run_cli("metrics", "--db", str(metrics_db), "--format", "json", "--boot", "99999999999999")
    assert huge.returncode == 2 and "at most 1,000,000" in huge.stderr
    # kept numbers are never handed out for another number of resamples
    conn = connect(metrics_db)
    data.choice_metric_records_of(conn)
    with intervals.resampling(50):
        assert {r.n_boot for r in data.choice_metric_records_of(conn) if hasattr(r, "n_boot")} == {50}
    assert {r.n_boot for r in data.choice_metric_records_of(conn) if hasattr(r, "n_boot")} == {intervals.N_BOOT}


@pytest.fixture
def warm_counting(monkeypatch):
    """A connection to a store whose numbers are computed (warm), and the list of model x
    topics whose list-only numbers are computed again from then on."""

    def warm(db):
        from workbench.methods.choice import data
        from workbench.store.db import connect

        conn = connect(db)
        data._LOADED.clear()
        data.choice_metric_records_of(conn)
        computed = []
        real = metrics._list_records

        def counted(study, model, topic, *args):
            computed.append((model, topic))
            return real(study, model, topic, *args)

        monkeypatch.setattr(metrics, "_list_records", counted)
        return conn, computed

    return warm


def test_a_list_edited_recomputes_only_its_model_and_topic(tmp_path, warm_counting, metrics_db, monkeypatch):
    """A reviewer's edit of one list: only its model x topic's lists are counted again and
    its numbers computed again, the others are kept, and every number still equals a
    computation from scratch."""
    from workbench.methods.choice import data
    from workbench.store.review import verdicts as reviews

    conn, computed = warm_counting(metrics_db)
    counted_groups = []
    real_counts = data.topic_counts

    def counting(arrays, *args):
        counted_groups.append({arrays.groups[g] for g in set(arrays.group.tolist())})
        return real_counts(arrays, *args)

    monkeypatch.setattr(data, "topic_counts", counting)
    list_id, model, topic = conn.execute("SELECT id, model, topic FROM mention_lists ORDER BY id LIMIT 1").fetchone()
    assert len({(r.model, r.topic) for r in data.choice_metric_records_of(conn)}) > 1
    reviews.review(conn, list_id, "r", "edit", ["Puma", "Nike"])
    edited = data.choice_metric_records_of(conn)
    assert computed == [(model, topic)] and counted_groups == [{(model, topic)}]
    data._LOADED.clear()
    assert edited == data.choice_metric_records_of(conn)


def test_the_lean_tests_give_what_scipy_stats_gives():
    """Ranks and the one-sample t-test computed without importing scipy.stats (it costs
    about a second at start-up) equal scipy.stats's: ranks exactly, t and p to 1e-12."""
    import numpy as np
    from scipy import stats

    from workbench.metrics.lean_tests import average_ranks, ttest_1samp

    rng = np.random.default_rng(5)
    for _ in range(500):
        rows = rng.integers(0, rng.integers(1, 8), size=(rng.integers(1, 6), rng.integers(1, 12))).astype(float)
        assert np.array_equal(average_ranks(rows), stats.rankdata(rows, axis=1))
        values = rng.normal(rng.normal(), rng.uniform(0.01, 3), size=rng.integers(2, 12))
        t, p = ttest_1samp(values, 0.0)
        expected = stats.ttest_1samp(values, 0.0)
        assert abs(t - expected.statistic) <= 1e-12 * max(1.0, abs(t)) and abs(p - expected.pvalue) <= 1e-12


def test_metrics_do_not_import_scipy_stats(metrics_db):
    """ChoiceEval's metrics (Spearman pairs, log-odds t-tests) stay clear of scipy.stats's import."""
    import subprocess
    import sys

    from helpers import ROOT

    db = metrics_db
    code = (
        "import sys\n"
        "from workbench.cli import main\n"
        f"main(['metrics', '--db', {str(db)!r}, '--format', 'json'])\n"
        "print('scipy.stats' in sys.modules, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    tested = [r for r in json.loads(out.stdout) if r.get("p") is not None]
    assert tested and out.stderr.strip() == "False"


def test_a_merge_or_rename_recomputes_only_the_model_and_topics_it_reaches(warm_counting, metrics_db):
    """Only gpt names Nike: renaming it, merging Puma into it and undoing both recompute gpt's
    two topics and keep gemini's numbers; every number still equals a computation from
    scratch."""
    from workbench.methods.choice import data
    from workbench.methods.choice.records import Peir
    from workbench.store.entities import decisions as entities

    conn, computed = warm_counting(metrics_db)

    def recomputed_after(change) -> set[tuple[str, str]]:
        """The model x topics a warm refresh computes again after `change`; checks that the
        refresh gives what a cold start computes."""
        computed.clear()
        change()
        kept = data.choice_metric_records_of(conn)
        reached = set(computed)
        data._LOADED.clear()
        assert kept == data.choice_metric_records_of(conn)
        return reached

    gpt = {("gpt", "shoes"), ("gpt", "phones")}
    assert recomputed_after(lambda: entities.rename(conn, "Nike", "Nike Inc", who="r")) == gpt
    assert any(r.entity == "Nike Inc" for r in data.choice_metric_records_of(conn) if isinstance(r, Peir))
    computed.clear()
    data.choice_metric_records_of(conn)  # nothing moved since: nothing computed
    assert computed == []
    # Puma is in every model's lists: everything moves
    merge = lambda: entities.merge(conn, ["Puma", "Asics"], into="Asics", who="r")  # noqa: E731
    assert recomputed_after(merge) == gpt | {("gemini", "shoes"), ("gemini", "phones")}
    assert recomputed_after(lambda: entities.undo(conn, "r", ("rename",))) == gpt


def test_work_in_threads_keeps_order_and_context_and_stops_at_an_error(monkeypatch):
    """The bootstraps' thread pool: results in the items' order, the number of resamples
    `--boot` set seen in every task, and an error (as Ctrl-C) drops the tasks not started."""
    import threading

    from workbench.metrics import threads

    monkeypatch.setattr(threads, "usable_cores", lambda: 2)
    with intervals.resampling(77):
        assert threads.map_in_threads(lambda i: (i, intervals.resamples()), range(20)) == [(i, 77) for i in range(20)]
    started, never = [], threading.Event()

    def work(i):
        started.append(i)
        if i == 0:
            raise KeyboardInterrupt
        never.wait(0.2)  # each other task takes a while: 50 of them would take 5 s
        return i

    with pytest.raises(KeyboardInterrupt):
        threads.map_in_threads(work, range(50))
    assert len(started) < 50
