"""Make `coldstart_aliases.csv`: real surface forms of catalog items, labelled by the
authors of the cold-start benchmark (github.com/GauthierRoy/biais_llm_rec).

Their raw results hold each model answer (`response`) and the catalog items they
matched in it (`recommended_list`). Where an answer lists exactly as many items as
they matched, the n-th listed item is their n-th match; that pairing uses neither
our parser's matching nor our similarity, so the labels are theirs. Answers with a
different count are skipped (pairing them would need a matcher). Each catalog item
is also a row (class `catalog`); answers are classed by how they differ from the
item (see `kind`). So names that must stay apart ("University of
California, Davis" / "..., Berkeley") are in the set.

A few of their matches are not the same item (a model wrote "University of Munich"
and the match was "University of Zurich"); `coldstart_rejected.csv` lists the pairs a
reviewer rejected, and those surfaces are left out.

    python bench/data/make_coldstart_aliases.py --raw DIR/raw_results --catalogs DIR/catalogs
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from workbench.methods.coldstart.catalog import split_items  # noqa: E402  (the listed items, as the workbench splits an answer)


def _words(text: str) -> list[str]:
    return re.sub(r"[^\w]+", " ", text.casefold()).split()


def kind(surface: str, item: str) -> str:
    """How an answer's surface differs from the item, for reporting only:
    `abbreviation` (one word, in capitals or in the item's parentheses: "MIT",
    "Caltech"), `short` (a part of the name: "Midnight City" for "Midnight City by
    M83", "ETH Zurich" for "ETH Zurich - Swiss Federal ..."; both known-hard), or
    `variant` (spelling, case, articles, word order, typos)."""
    said, full = _words(surface), _words(item)
    said, full = said[said[:1] == ["the"] :], full[full[:1] == ["the"] :]
    if len(said) == 1 and len(full) > 1 and (surface.isupper() or f"({surface.casefold()}" in item.casefold()):
        return "abbreviation"
    shorter, longer = sorted((said, full), key=len)
    if shorter != longer and (longer[: len(shorter)] == shorter or longer[-len(shorter) :] == shorter):
        return "short"
    return "variant"


def answers(node):
    if isinstance(node, dict) and "response" in node:
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from answers(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw", type=Path, required=True, help="the benchmark's raw_results folder")
    parser.add_argument("--catalogs", type=Path, required=True, help="the benchmark's catalogs folder")
    parser.add_argument("--out", type=Path, default=HERE / "coldstart_aliases.csv")
    args = parser.parse_args()
    with (HERE / "coldstart_rejected.csv").open(encoding="utf-8", newline="") as handle:
        rejected = {(r["surface"], r["entity"]) for r in csv.DictReader(handle)}
    rows: dict[tuple[str, str], str] = {}
    for catalog in sorted(args.catalogs.glob("*.json")):
        for item in json.loads(catalog.read_text(encoding="utf-8")):
            rows.setdefault((item.strip(), f"{catalog.stem}: {item.strip()}"), "catalog")
    paired = skipped = 0
    for path in sorted(args.raw.glob("*.json")):
        dataset = path.stem.split("_")[2]
        for answer in answers(json.loads(path.read_text(encoding="utf-8"))):
            listed, matched = split_items(answer["response"]), answer["recommended_list"]
            if len(listed) != len(matched):
                skipped += 1
                continue
            paired += 1
            for surface, item in zip(listed, matched):
                key = (surface.strip(), f"{dataset}: {item.strip()}")
                if key not in rejected:
                    rows.setdefault(key, kind(surface, item.strip()))
    # A surface the authors matched to two items is ambiguous: keep neither.
    owners: dict[str, set[str]] = {}
    for surface, entity in rows:
        owners.setdefault(surface, set()).add(entity)
    kept = [(s, e, c) for (s, e), c in rows.items() if len(owners[s]) == 1]
    with args.out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["surface", "entity", "class"])
        writer.writerows(sorted(kept, key=lambda r: (r[1], r[2] != "catalog", r[0])))
    print(f"{args.out.name}: {len(kept)} surfaces ({paired} answers paired, {skipped} skipped)")


if __name__ == "__main__":
    main()
