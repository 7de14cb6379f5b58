"""The gazetteer measured against labelled answers: precision and recall of the names found.

tests/data/gazetteer_labelled.jsonl holds answers of the demo's three topics, each with the
brands a careful reader marks in it (of the names tests/data/gazetteer_labelled_brands.csv
holds: the demo's brands, with "On" for On Running and "Nothing" for Nothing Phone). Answers
are tagged by what makes them hard: "common word" (a brand named like an ordinary word, used
as either) and "near spelling" (misspellings, plurals, possessives, case, and near spellings
that are not the brand: Salmon, Phillips screwdrivers). Each answer's names found are compared
with its marked brands as sets: a name found and marked is a true positive, found and not
marked a false positive, marked and not found a false negative.

    python bench/gazetteer_quality.py            # the figures, overall and per case
    python bench/gazetteer_quality.py --show     # and every answer the gazetteer gets wrong
    python bench/gazetteer_quality.py --no-rules # the windows' matches alone (before the rules)
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
CASES = ("all", "common word", "near spelling", "neither")


@dataclass
class Tally:
    answers: int = 0
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    flagged: int = 0  # names found only by near spellings or common words: shown for review
    flagged_false: int = 0  # of which false positives

    @property
    def precision(self) -> float:
        return self.true_positives / (self.true_positives + self.false_positives)

    @property
    def recall(self) -> float:
        return self.true_positives / (self.true_positives + self.false_negatives)

    def line(self, case: str) -> str:
        return (
            f"{case:<14} {self.answers:>3} answers: precision {self.precision:.3f} "
            f"({self.true_positives} of {self.true_positives + self.false_positives} names found), "
            f"recall {self.recall:.3f} ({self.true_positives} of {self.true_positives + self.false_negatives} "
            f"marked), {self.false_positives} false positives, {self.false_negatives} missed; "
            f"{self.flagged} flagged for review, {self.flagged_false} of them false"
        )


def labelled() -> list[dict]:
    lines = (DATA / "gazetteer_labelled.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def measure(rules: bool = True, show: bool = False) -> dict[str, Tally]:
    from workbench.methods.choice.gazetteer import load

    names = load(DATA / "gazetteer_labelled_brands.csv")
    tallies = {case: Tally() for case in CASES}
    for item in labelled():
        matches = names.find(item["answer"], item["topic"], rules=rules)
        found = {f.entity for f in matches}
        # A name is flagged when every match of it is a near spelling or a common word (as the
        # extraction stores it: workbench/methods/choice/extraction.py).
        flagged = found - {f.entity for f in matches if f.kind == "exact"}
        marked = set(item["brands"])
        cases = ["all", *item["cases"]] if item["cases"] else ["all", "neither"]
        for case in cases:
            tally = tallies[case]
            tally.answers += 1
            tally.true_positives += len(found & marked)
            tally.false_positives += len(found - marked)
            tally.false_negatives += len(marked - found)
            tally.flagged += len(flagged)
            tally.flagged_false += len(flagged - marked)
        if show and found != marked:
            print(f"{item['answer']!r}\n    found extra {sorted(found - marked)}, missed {sorted(marked - found)}")
    return tallies


def main(argv: list[str]) -> None:
    tallies = measure(rules="--no-rules" not in argv, show="--show" in argv)
    for case, tally in tallies.items():
        print(tally.line(case))


if __name__ == "__main__":
    main(sys.argv[1:])
