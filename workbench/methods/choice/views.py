"""ChoiceEval on the Metrics screen: models side by side per topic, filters, charts."""

from __future__ import annotations

import re

from rich.text import Text

from workbench.display import na_reasons
from workbench.display.metric_views import (
    ALL,
    Filter,
    Forest,
    Panel,
    diverging_bars,
    diverging_chart,
    estimate,
    forest_text,
    legend_symbols,
    models,
    short_labels,
    units_note,
)
from workbench.methods.choice.preferred_view import rival
from workbench.methods.choice.records import (
    LOR,
    ChoiceRecord,
    DirectRecommendationRate,
    KruskalWallis,
    LorCluster,
    LorTopic,
    Peir,
    RegionShare,
    Spearman,
)
from workbench.metrics.records import has, value_of
from workbench.text.literal import visible_line
from workbench.text.numbers import fmt_num
from workbench.text.words import plural


def topics(records: list[ChoiceRecord]) -> list[str]:
    return [ALL] + sorted({r.topic for r in records if r.topic})


def clusters(records: list[ChoiceRecord]) -> list[str]:
    return [ALL] + sorted({r.cluster for r in records if r.cluster})


FILTERS = (
    Filter("topic", "t", "Topic", topics, selects=lambda r, topic: value_of(r, "topic") == topic),
    Filter("cluster", "k", "Cluster", clusters, selects=lambda r, cluster: value_of(r, "cluster") == cluster),
)


def select(records: list[ChoiceRecord], topic: str, cluster: str) -> list[ChoiceRecord]:
    """Records of one topic (or all) at one cluster (or topic level)."""
    wanted_cluster = None if cluster == ALL else cluster
    return [r for r in records if (topic == ALL or r.topic == topic) and r.cluster == wanted_cluster]


def peir_table(records: list[ChoiceRecord]) -> tuple[list[str], list[list[str]]]:
    """Rows: topic; columns: one per model with 'entity PEIR [interval] · runner-up and its
    share · how often e* stays first · n answers · n_eff (the effective n of the interval's
    unit) · direct rate [interval]', models side by side."""
    names = models(records)
    by = {(r.topic, r.model): r for r in records if isinstance(r, Peir)}
    direct = {(r.topic, r.model): r for r in records if isinstance(r, DirectRecommendationRate)}
    rows = []
    for topic in sorted({t for t, _ in by}):
        row = [topic]
        for model in names:
            r, d = by.get((topic, model)), direct.get((topic, model))
            if r is None:  # the model has no list of this topic (yet): said, not left blank
                row.append(f"n/a ({na_reasons.shown('no-lists')})")
                continue
            rate = estimate(d.value, d) if d else "n/a"
            cell = f"{preferred(r)} {estimate(r.value, r, why=True)}{rival(r)} · n {r.n}{effective_n(r)}"
            row.append(f"{cell} · direct {rate}")
        rows.append(row)
    return ["topic"] + names, rows


def preferred(r: Peir) -> str:
    """The preferred entity, or every entity tied for it ("tie: Asics, Nike"): a share one
    entity holds with others must not read as that entity's alone; or why there is none."""
    if r.entity is None:
        return f"n/a ({r.na_reason})" if has(r, "na_reason") else "-"
    if has(r, "tied_with") and r.tied_with:
        return "tie: " + ", ".join(sorted([r.entity, *r.tied_with]))
    return r.entity


def effective_n(record) -> str:
    """ " · n_eff 96": the effective n of an interval over questions (n / the design effect);
    "" where the record has none (the interval is over answers, or n/a). Where the clusters
    differ more than the answers within them, the interval (resampled within each cluster) is
    narrower than n independent answers would give: the design effect is under 1, and an
    n_eff above n would read as a mistake, so the cell gives the design effect instead."""
    n_eff, n = value_of(record, "n_eff"), value_of(record, "n")
    if n_eff is None or value_of(record, "ci_unit") != "question":
        return ""
    if n and n_eff > n:
        return f" · design effect {value_of(record, 'design_effect'):.2f}"
    return f" · n_eff {n_eff:.0f}"


def region_hint(conn, study: str | None) -> str:
    """How to give regions to the mentioned entities that have none ("" when all have one):
    they count as Unknown in the log-odds, which the tables cannot say by themselves."""
    from workbench.store.entities.mentions import entities_without_region
    from workbench.store.requests import studies

    missing = entities_without_region(conn, studies.study_id(conn, study) if study else None)
    if not missing:
        return ""
    return (
        f"{plural(len(missing), 'mentioned entity has', 'mentioned entities have')} no region yet "
        f"(e.g. {', '.join(n for n, _ in missing[:3])}); "
        "they count as Unknown in the log-odds. Assign regions with `workbench import entities FILE.csv`."
    )


def lor_cell(r: LorTopic) -> str:
    """A topic's mean LOR with its test, the clusters that carry it and the slots behind
    it, or why there is none: "0.00 (p n/a)" must not read like "no bias"."""
    if r.mean is None:
        return f"n/a ({r.na_reason or 'no clusters'})"
    carried = f"{r.n_clusters} of {r.n_total} clusters"
    if r.p is None and r.ci_low is None and r.ci_na_reason:  # one reason for both: said once
        test = f"interval and test n/a: {r.ci_na_reason}"
        return f"{fmt_num(r.mean, 2)} ({test}; {carried}, {r.slots_a} vs {r.slots_b} slots)"
    if r.p is None:
        test = f"no test: {r.p_na_reason or 'no interval'}"
    else:
        test = f"p {fmt_num(r.p, 3)}, Holm {fmt_num(value_of(r, 'p_holm'), 3)}"
    return f"{estimate(r.mean, r, why=True)} ({test}; {carried}, {r.slots_a} vs {r.slots_b} slots)"


def lor_cluster_cell(r: LorCluster) -> str:
    """One cluster's LOR and the slots it rests on, or why it is n/a."""
    if r.value is None:
        return f"n/a ({r.na_reason or 'no slots'})"
    return f"{fmt_num(r.value, 2)} ({r.slots_a} vs {r.slots_b} slots)"


def lor_table(records: list[ChoiceRecord]) -> tuple[list[str], list[list[str]]]:
    names = models(records)
    by = {(r.topic, r.region_a, r.region_b, r.model): r for r in records if isinstance(r, LOR)}
    rows = []
    for topic, a, b in sorted({k[:3] for k in by}):
        row = [topic, f"{a} vs {b}"]
        for model in names:
            r = by.get((topic, a, b, model))
            if r is None:
                row.append(f"n/a ({na_reasons.shown('no-lists')})")
            elif isinstance(r, LorTopic):  # topic level: mean over clusters, its interval and test
                row.append(lor_cell(r))
            else:  # one cluster
                row.append(lor_cluster_cell(r))
        rows.append(row)
    return ["topic", "regions"] + names, rows


def region_table(records: list[ChoiceRecord]) -> tuple[list[str], list[list[str]]]:
    """Rows: topic · region; columns: one per model, the region's share of the slots with its
    interval (n/a with why where it has none)."""
    names = models(records)
    by = {(r.topic, r.region, r.model): r for r in records if isinstance(r, RegionShare)}
    rows = []
    for topic, region in sorted({k[:2] for k in by}):
        row = [f"{topic} · {region}"]
        for model in names:
            r = by.get((topic, region, model))
            row.append(estimate(r.value, r, why=True) if r is not None else "")
        rows.append(row)
    return ["topic · region"] + names, rows


def stability_table(records: list[ChoiceRecord]) -> tuple[list[str], list[list[str]]]:
    names = models(records)
    rows = []
    for topic in sorted({r.topic for r in records if isinstance(r, (Spearman, KruskalWallis))}):
        row = [topic]
        for model in names:
            pairs = [r for r in records if isinstance(r, Spearman) and r.topic == topic and r.model == model]
            rhos = [r.value for r in pairs if r.value is not None]
            why = next((r.na_reason for r in pairs if has(r, "na_reason")), None)
            kw = next(
                (r for r in records if isinstance(r, KruskalWallis) and r.topic == topic and r.model == model),
                None,
            )
            rho = _rho_range(rhos) if rhos or not why else f"rho n/a ({why})"
            if kw is None:  # every model x topic with lists has one: this one has no lists
                row.append(f"n/a ({na_reasons.shown('no-lists')})")
            elif has(kw, "na_reason"):
                row.append(f"{rho} · KW n/a ({kw.na_reason})")
            elif has(kw, "p_na_reason") and why:  # both short of support: one reason, the cell fits
                row.append(f"rho, KW p n/a ({why})")
            elif has(kw, "p_na_reason"):
                row.append(f"{rho} · KW p n/a ({kw.p_na_reason})")
            else:
                adjusted = f", Holm {fmt_num(value_of(kw, 'p_holm'), 3)}" if kw.p is not None else ""
                row.append(f"{rho} · KW p {fmt_num(kw.p, 3)}{adjusted} ({kw.n} repetitions)")
        rows.append(row)
    return ["topic"] + names, rows


def _rho_range(rhos: list[float]) -> str:
    """Spearman's rho between pairs of repetitions: its range, or the one value of one pair."""
    if not rhos:
        return "rho n/a"
    low, high = fmt_num(min(rhos), 2), fmt_num(max(rhos), 2)
    return f"rho {low}" if len(rhos) == 1 else f"rho {low}..{high}"


def lor_bars(records: list[ChoiceRecord], width: int = 30) -> list[tuple[str, float, str]]:
    """(label, value, bar) per model x cluster LOR (US vs Europe), bars centred on 0;
    over several topics, the mean of the topics' values (`lor_bars_title` says so)."""
    grouped: dict[tuple[str, str], list[float]] = {}
    for r in records:
        if isinstance(r, LorCluster) and r.cluster and r.value is not None and r.region_b == "Europe":
            grouped.setdefault((r.model, r.cluster), []).append(r.value)
    values = sorted(((model, cluster), sum(v) / len(v)) for (model, cluster), v in grouped.items())
    short = short_labels([model for (model, _), _ in values])
    return diverging_bars([(f"{short[model]} · {cluster}", value) for (model, cluster), value in values], width)


LOR_BARS = 40  # bars the per-cluster chart draws at most


def lor_bars_title(records: list[ChoiceRecord], scope: str) -> str:
    """The per-cluster chart's title: what it covers (the filters), that a bar over several
    topics is their mean, and how many bars are left out past the first 40."""
    europe = [
        r for r in records if isinstance(r, LorCluster) and r.cluster and r.value is not None and r.region_b == "Europe"
    ]
    title = "LOR US vs Europe per cluster (left: Europe, right: US)" + scope
    topics = {r.topic for r in europe}
    if len(topics) > 1:
        title += f" · each bar the mean over the topics that give its cluster a value ({len(topics)} topics)"
    bars = len({(r.model, r.cluster) for r in europe})
    return title + (f" · the first {LOR_BARS} of {bars} bars" if bars > LOR_BARS else "")


def region_share_bars(
    records: list[ChoiceRecord], width: int = 40, cluster: str | None = None
) -> list[tuple[str, list[tuple[str, float]]]]:
    """Per model (pooled over the selected topics, weighted equally): region -> share, for a
    stacked bar; of one cluster's slots, or (None) the topic's."""
    per_model: dict[str, dict[str, list[float]]] = {}
    for r in records:
        if isinstance(r, RegionShare) and r.cluster == cluster:
            per_model.setdefault(r.model, {}).setdefault(r.region, []).append(r.value)
    out = []
    for model, regions in sorted(per_model.items()):
        topics = max(len(v) for v in regions.values())
        out.append((model, [(region, sum(v) / topics) for region, v in sorted(regions.items())]))
    return out


REGION_STYLES = ["cyan", "magenta", "green", "yellow", "blue", "red", "white"]


def region_chart(records: list[ChoiceRecord], width: int = 40, cluster: str | None = None) -> Text:
    """A stacked bar of region shares per model, with letters as well as colours so it
    reads without colour (NO_COLOR), and a legend of distinct symbols."""
    rows = region_share_bars(records, cluster=cluster)
    if not rows:  # no slot at all: lists that name nothing, or no lists
        key = "no-entity-named" if any(isinstance(r, Peir) for r in records) else "no-lists"
        return Text(f"({na_reasons.shown(key)}: {na_reasons.by_key(key).remedy})")
    regions = sorted({region for _, shares in rows for region, _ in shares})
    colour = {region: REGION_STYLES[i % len(REGION_STYLES)] for i, region in enumerate(regions)}
    symbol = legend_symbols(regions)  # unique: "United States" and "Unknown" once shared a U
    chart = Text()
    short = short_labels([model for model, _ in rows])
    for model, shares in rows:
        chart.append(f"{visible_line(short[model])[:28]:<28} ")
        for region, share in shares:
            chart.append(symbol[region] * round(share * width), style=colour[region])
        chart.append("\n")
    chart.append("  ".join(f"{symbol[r]} = {r}" for r in regions), style="dim")
    return chart


def no_lor_text(records: list[ChoiceRecord], kind: type, region_b: str | None = None) -> str:
    """Why a log-odds chart is empty: the reasons its records give (the real cause: no region,
    no cluster with both regions, ...), each with its remedy; never a guess."""
    reasons = sorted(
        {
            r.na_reason
            for r in records
            if isinstance(r, kind) and has(r, "na_reason") and (region_b is None or r.region_b == region_b)
        },
        key=lambda text: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)],  # 2 before 12
    )
    if not reasons:
        pair = f"United States vs {region_b}" if region_b else "region pair"
        return f"(no log-odds: no {pair} among the study's region_pairs)"
    by_reason: dict[object, list[str]] = {}  # one line per cause, its remedy once
    for text in reasons:
        by_reason.setdefault(na_reasons.find(text) or text, []).append(text)
    lines = []
    for texts in by_reason.values():
        said = "; ".join(texts[:3]) + (f" and {len(texts) - 3} more (the table says where)" if len(texts) > 3 else "")
        lines.append(f"{said}: {na_reasons.remedy(texts[0])}" if na_reasons.remedy(texts[0]) else said)
    return "(no log-odds: " + "\n".join(lines) + ")"


def lor_forest(records: list[ChoiceRecord]) -> Forest:
    """Each model x topic x region pair's mean log-odds ratio with its bootstrap interval."""
    rows = sorted(
        (r for r in records if isinstance(r, LorTopic) and r.mean is not None),
        key=lambda r: (r.topic, r.region_a, r.region_b, r.model),
    )
    short = short_labels([r.model for r in rows])
    return Forest(
        labels=[f"{r.topic} · {r.region_b} · {short[r.model]}" for r in rows],
        values=[r.mean for r in rows],
        lows=[r.ci_low for r in rows],
        highs=[r.ci_high for r in rows],
        x_label="log-odds ratio (< 0: the second region, > 0: the first, usually the United States)",
    )


def _scope(topic: str, cluster: str) -> str:
    """What the filters leave on view, for a panel's title: " · topic shoes · cluster Budget only"."""
    parts = ([f"topic {topic}"] if topic != ALL else []) + ([f"cluster {cluster} only"] if cluster != ALL else [])
    return "".join(f" · {part}" for part in parts)


def _lor_title(shown: list[ChoiceRecord], topic: str, cluster: str) -> str:
    """A topic's log-odds is the mean over clusters with its interval and test; one cluster's
    is its slots' log-odds, with neither: the title says which the table holds."""
    units = units_note(shown, (LorTopic,))
    if cluster == ALL:
        return f"Geographic bias: log-odds ratio (mean over clusters, t-test p){_scope(topic, cluster)}{units}"
    return (
        f"Geographic bias: log-odds ratio of cluster {cluster} only, from its slots (no interval or test: "
        f"the mean over clusters has them, cluster all){_scope(topic, ALL)}"
    )


def _region_chart_title(records: list[ChoiceRecord], topic: str, cluster: str) -> str:
    one = None if cluster == ALL else cluster
    topics = {r.topic for r in records if isinstance(r, RegionShare) and r.cluster == one}
    pooled = f" · each bar the mean of the {len(topics)} topics' shares" if len(topics) > 1 else ""
    return f"Share of recommendation slots by region, per model{_scope(topic, cluster)}{pooled}"


def panels(records: list[ChoiceRecord], choices: dict[str, str]) -> list[Panel]:
    topic, cluster = choices.get("topic", ALL), choices.get("cluster", ALL)
    shown = select(records, topic, cluster)
    topic_records = [r for r in records if topic == ALL or r.topic == topic]
    forest = lor_forest(topic_records)
    one = None if cluster == ALL else cluster  # the charts follow the cluster filter where they can
    in_cluster = [r for r in topic_records if one is None or r.cluster in (None, one)]
    scope = _scope(topic, cluster)
    whole = f" · topic level, over every cluster (the table gives {one}'s)" if one else ""
    return [
        Panel(
            "peir-table",
            f"Preferred entity (PEIR) · direct-recommendation rate{scope}{units_note(shown, (Peir,))}",
            table=peir_table(shown),
        ),
        Panel("lor-table", _lor_title(shown, topic, cluster), table=lor_table(shown)),
        Panel(
            "region-table",
            f"Share of recommendation slots by region{scope}{units_note(shown, (RegionShare,))}",
            table=region_table(shown),
        ),
        Panel("stability-table", f"Stability across repetitions{scope}", table=stability_table(shown)),
        Panel(
            "lor-forest",
            "Log-odds ratio with 95% intervals: United States vs each region, per topic and model"
            + _scope(topic, ALL)
            + whole,
            chart=forest_text(forest) if forest.values else Text(no_lor_text(topic_records, LorTopic)),
            plot=forest if forest.values else None,
            export=False,
        ),
        Panel(
            "region-chart",
            _region_chart_title(topic_records, topic, cluster),
            chart=region_chart(topic_records, cluster=one),
            export=False,
        ),
        Panel(
            "lor-chart",
            lor_bars_title(in_cluster, scope),
            chart=diverging_chart(lor_bars(in_cluster)[:LOR_BARS], 28, no_lor_text(in_cluster, LorCluster, "Europe")),
            export=False,
        ),
    ]
