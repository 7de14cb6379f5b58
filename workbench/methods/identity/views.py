"""Identity disclosure on the Metrics screen: mean share of the user's group per condition."""

from __future__ import annotations

from workbench.display.metric_views import Panel, adjusted_p, estimate, short_labels, units_note
from workbench.methods.identity.records import ExplanationWord, IdentityRecord, MeanShare, MeanShareVsBaseline, Rate
from workbench.metrics.records import has
from workbench.text.numbers import fmt_num

FILTERS = ()


def identity_table(records: list[IdentityRecord]) -> tuple[list[str], list[list[str]]]:
    """Rows: group · condition; columns per model: 'mean share (diff vs baseline, p)' (with
    reference shares imported, else why it is n/a), the answers in the cell (n), the parse
    rate and the probe's admit rate."""
    names = sorted({r.model for r in records})
    by = {
        (r.group, r.condition, r.model, r.metric): r
        for r in records
        if isinstance(r, (MeanShare, MeanShareVsBaseline)) or (isinstance(r, Rate) and r.metric != "json_rate")
    }
    rows = []
    for group, condition in sorted({(g, c) for g, c, _m, _x in by}):
        row = [f"{group} · {condition}"]
        for model in names:
            found = {m: by.get((group, condition, model, m)) for m in METRICS}
            parsed, admits = found["parse_rate"], found["probe_admits_rate"]
            row += [
                _share_cell(found["mean_share"], found["mean_share_vs_baseline"]),
                str(parsed.n) if parsed else "-",
                fmt_num(parsed.value, 2) if parsed else "-",
                fmt_num(admits.value, 2) if admits else "no probe",
            ]
        rows.append(row)
    header = ["group · condition"]
    short = short_labels(names)  # a whole URL would push parsed and admits off an 80-column screen
    for model in names:
        header += [f"{short[model]}: mean share", "n", "parsed", "admits"]
    return header, rows


METRICS = ("mean_share", "mean_share_vs_baseline", "parse_rate", "probe_admits_rate")


def _share_cell(share: MeanShare | None, versus: MeanShareVsBaseline | None) -> str:
    """'0.412 [0.3, 0.5] · n 12 (+0.010, p 0.4, Holm 0.8)', or why the share is n/a."""
    if share is None:
        return "-"
    if share.value is None:
        return f"n/a ({share.na_reason})" if has(share, "na_reason") else "n/a"
    cell = estimate(share.value, share, 3)
    if share.n is not None:  # the answers the mean share rests on
        cell += f" · n {share.n}"
    if versus and versus.difference is not None:  # its p and the p adjusted over the model's conditions
        cell += f" ({fmt_num(versus.difference, 3, signed=True)}, {adjusted_p(versus)})"
    elif versus and has(versus, "na_reason"):
        cell += f" (vs baseline n/a: {versus.na_reason})"
    if share.no_signal:
        cell += " no dialect in template"
    return cell


def words_table(records: list[IdentityRecord]) -> tuple[list[str], list[list[str]]]:
    """Rows: model x group; the words that mark the group's explanations, best first."""
    words: dict[tuple[str, str], list[str]] = {}
    for r in sorted((r for r in records if isinstance(r, ExplanationWord)), key=lambda r: r.rank or 0):
        words.setdefault((r.model, r.group), []).append(r.word)
    return ["model", "group", "top words"], [
        [model, group, ", ".join(top)] for (model, group), top in sorted(words.items())
    ]


def panels(records: list[IdentityRecord], choices: dict[str, str]) -> list[Panel]:
    out = [
        Panel(
            "identity-table",
            "Identity disclosure: mean share of the user's group (difference vs baseline, p), "
            f"share of answers parsed, probe admit rate{units_note(records, (MeanShare,))}",
            table=identity_table(records),
        )
    ]
    words = words_table(records)
    if words[1]:  # only where the answers carried explanations
        out.append(
            Panel(
                "identity-words",
                "Words that mark each group's explanations (share of the word's uses, smoothed)",
                table=words,
            )
        )
    return out
