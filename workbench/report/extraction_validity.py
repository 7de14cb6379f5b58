"""How far the machine's extraction can be trusted, and which region each counted brand has.

Extraction validity: per topic, over the lists a reviewer settled, the machine's names against
the final ones (two spellings of one entity are one name): precision (the machine's names the
final list keeps), recall (the final names the machine found), each with its n and a Wilson
interval; the share of lists no person reviewed, whose extraction errors stand; and the names
reviewers added (the extraction missed) and removed most. The brands appendix lists every
brand the study's lists count, its region and who set it; the Limitations get the warning that
an entity without a region counts as Unknown."""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Any

from workbench.report.document import Block, Paragraph, Section, TableBlock
from workbench.store.entities.mentions import entities_without_region
from workbench.store.reads import extraction as extraction_reads
from workbench.text.numbers import fmt_num
from workbench.text.words import plural

MOST = 8  # names shown among the most added and the most removed


def _interval(hits: int, n: int) -> str:
    """ "0.81 [0.70, 0.89]" (Wilson's 95% interval over names), "n/a (no names)" without any."""
    if not n:
        return "n/a (no names)"
    from workbench.metrics.paired_boundary import wilson

    low, high = wilson(hits / n, n, 1.959964)
    return f"{fmt_num(hits / n, 2)} [{fmt_num(low, 2)}, {fmt_num(high, 2)}]"


def _tally(conn: sqlite3.Connection, lists: list[dict[str, Any]]) -> dict[str, Any]:
    aliases = extraction_reads.entity_keys(conn)
    kept = machine = final = 0
    added: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    for item in lists:
        ours = {extraction_reads.name_key(aliases, n): n for n in item["machine"]}
        theirs = {extraction_reads.name_key(aliases, n): n for n in item["final"]}
        machine, final = machine + len(ours), final + len(theirs)
        kept += len(ours.keys() & theirs.keys())
        added.update(theirs[k] for k in theirs.keys() - ours.keys())
        removed.update(ours[k] for k in ours.keys() - theirs.keys())
    return {"kept": kept, "machine": machine, "final": final, "added": added, "removed": removed}


def _most(counted: Counter[str]) -> str:
    if not counted:
        return "none"
    ranked = sorted(counted.items(), key=lambda kv: (-kv[1], kv[0].casefold()))
    shown = ", ".join(f"{name} ({n})" for name, n in ranked[:MOST])
    return shown + (f" and {len(ranked) - MOST} more" if len(ranked) > MOST else "")


def validity_section(conn: sqlite3.Connection, study_id: int) -> Section | None:
    """The section, or None for a study with no extracted lists (its method extracts none)."""
    lists = extraction_reads.topic_lists(conn, study_id)
    if not lists:
        return None
    rows, missed = [], []
    for topic in sorted({item["topic"] for item in lists}):
        of_topic = [item for item in lists if item["topic"] == topic]
        reviewed = [item for item in of_topic if item["reviewed"]]
        unreviewed = len(of_topic) - len(reviewed)
        share = f"{fmt_num(unreviewed)} of {fmt_num(len(of_topic))} ({fmt_num(unreviewed / len(of_topic), 2)})"
        if not reviewed:
            rows.append([topic, "0", "n/a (no list reviewed)", "n/a (no list reviewed)", share])
            continue
        t = _tally(conn, reviewed)
        precision = f"{_interval(t['kept'], t['machine'])} · n {fmt_num(t['machine'])}"
        recall = f"{_interval(t['kept'], t['final'])} · n {fmt_num(t['final'])}"
        rows.append([topic, fmt_num(len(reviewed)), precision, recall, share])
        missed.append([topic, _most(t["added"]), _most(t["removed"])])
    header = ["topic", "lists reviewed", "precision (names kept)", "recall (names found)", "unreviewed lists"]
    blocks: list[Block] = [
        Paragraph(
            "How often the machine's list matched the final one, over the lists a person reviewed (a standing "
            "verdict that is not blind): precision is the share of the machine's names the final list keeps, "
            "recall the share of the final list's names the machine found; two spellings of one entity are "
            "one name. Intervals are Wilson's 95% over names, as if independent (names of one answer may not "
            "be). An unreviewed list counts as extracted: its errors stand in every number."
        ),
        TableBlock("Extraction against the reviewed lists, per topic", header, rows),
    ]
    if missed:
        title = "Names reviewers added (the extraction missed) and removed, most often first (lists)"
        blocks.append(TableBlock(title, ["topic", "added by reviewers", "removed by reviewers"], missed))
    return Section("extraction-validity", "Extraction validity", blocks)


def unknown_region_items(conn: sqlite3.Connection, study_id: int) -> list[str]:
    """The Limitations' warning `workbench metrics` prints: entities without a region count as Unknown."""
    missing = entities_without_region(conn, study_id)
    if not missing:
        return []
    named = ", ".join(name for name, _n in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    return [
        f"Regions: {plural(len(missing), 'mentioned entity has', 'mentioned entities have')} no region ({named}); "
        "they count as Unknown in "
        "the region shares and on neither side of a log-odds. The brands appendix lists every region; "
        "`workbench import entities FILE.csv` assigns them."
    ]


def brands_appendix(conn: sqlite3.Connection, study_id: int) -> Section | None:
    """Every brand the study's lists count, its region and who set it (None: no lists)."""
    brands = extraction_reads.counted_brands(conn, study_id)
    if not brands:
        return None
    rows = []
    for b in brands:
        decision = b["decision"]
        if decision is not None:
            why = f" ({decision['why']})" if decision.get("why") else ""
            set_by = f"{decision['who']}, {str(decision['at'])[:16].replace('T', ' ')}{why}"
        else:
            set_by = "an import of entities (no decision logged)" if b["region"] else "nobody: counts as Unknown"
        rows.append([b["name"], b["region"] or "none (Unknown)", fmt_num(b["answers"]), set_by])
    intro = Paragraph(
        "Every brand the study's lists count now (after review and merges), by the answers naming it: its "
        "region as the log-odds and the region shares read it, and the decision that set it (who and when; "
        "`workbench export --what decisions` has each with before and after)."
    )
    table = TableBlock("Counted brands and their regions", ["brand", "region", "answers", "region set by"], rows)
    return Section("brands", "Appendix: counted brands and their regions", [intro, table])
