"""`workbench review VERB`: one parser per verb, each with its own options, help and example.

Options before the verb (`workbench review --db a.db --study s lists`) are --db and --study
only; an option another verb has is refused naming the verbs that take it.
"""

from __future__ import annotations

import argparse

from workbench.cli.common import bounded_int
from workbench.host.locations import DEFAULT_DB
from workbench.store.review.validation import SAMPLE_RATE, SAMPLE_SEED

DESCRIPTION = (
    "Reviewers accept, edit or reject extracted lists in the app (4 = Review) or here. A second\n"
    "reviewer reviews the validation sample blind (a stable share of each study's questions, drawn\n"
    "from the question's keys and a seed: a question in it stays in it as the study grows); the\n"
    "app's Review filter 'validation sample (blind)' shows the same one. `agreement` compares the two\n"
    "reviewers' final lists on it and gives Cohen's kappa; a third reviewer `adjudicate`s the lists\n"
    "they judged differently, which then leave the `reviewer-disagreements` queue.\n\n"
    "Every list has a version (`lists` shows it): `verdict --if-version V` records only while the\n"
    "list still reads as version V, else it is refused saying what the list is now.\n"
    "`workbench review VERB --help` gives each verb's options and an example."
)

VERBS: dict[str, tuple[str, str]] = {
    "lists": (
        "every list: version, answer, experts' lists, vote, current list, verdicts",
        "workbench review lists --db audit.db --study shoes --only unreviewed --format json",
    ),
    "verdict": (
        "accept, edit or reject one list (--blind: a second reviewer's, compared, never applied)",
        "workbench review verdict --db audit.db --study shoes --list 12 --who ana --if-version 3f2a9c01d4e5 "
        "--edit Nike --edit 'Adidas, Inc.'",
    ),
    "undo": (
        "take back your latest verdict (refused while someone's later verdict changed that list)",
        "workbench review undo --db audit.db --study shoes --who ana",
    ),
    "adjudicate": (
        "a third reviewer settles a reviewer disagreement: take one reviewer's list or give your own",
        "workbench review adjudicate --db audit.db --study shoes --list 12 --who carla --take bo",
    ),
    "sample": (
        "the validation sample, with your own verdicts only (blind); the shape of `lists`",
        "workbench review sample --db audit.db --study shoes --who bo",
    ),
    "agreement": (
        "two reviewers' agreement and Cohen's kappa on the validation sample",
        "workbench review agreement --db audit.db --study shoes --first ana --second bo",
    ),
    "probes": (
        "identity studies: transparency-probe labels (rules, LLM judge, human)",
        "workbench review probes --db audit.db --study universities --only disagreements",
    ),
    "label": (
        "identity studies: set a human probe label (wins over rules and judge)",
        "workbench review label --db audit.db --study universities --key 3f2a9c01d4e5 --label denies",
    ),
    "undo-label": (
        "identity studies: take back your latest probe label",
        "workbench review undo-label --db audit.db --study universities --who ana",
    ),
    "matches": (
        "cold-start studies: each answer item and the catalog entry it was matched to",
        "workbench review matches --db audit.db --study movies --only unmatched",
    ),
    "match": (
        "cold-start studies: point an item at another catalog entry (--item) or out of it (--out)",
        "workbench review match --db audit.db --study movies --key 'm/0/gender/a girl/3' --item 'Oldboy'",
    ),
    "undo-match": (
        "cold-start studies: take back your latest match correction",
        "workbench review undo-match --db audit.db --study movies --who ana",
    ),
}
SEARCH_TABLE_PAGE = 50  # lists per table of a search: a page to read, never every match
READ_VERBS = ("lists", "sample", "agreement", "probes", "matches")
LIST_FILTERS = {
    "all": "all",
    "unreviewed": "unreviewed",
    "disagreements": "disagreements",
    "reviewer-disagreements": "reviewer disagreements",
    "resolved": "resolved",
    "sample": "all",  # the validation sample, open: every list of it, verdicts shown (review.py reads its ids)
}


class VerbParser(argparse.ArgumentParser):
    """A verb's parser: an option of another verb is refused naming the verbs that have it
    (every verb once took every option)."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        for extra in extras:
            option = extra.split("=", 1)[0]
            owners = [verb for verb, parser in _VERB_PARSERS.items() if option in parser._option_string_actions]
            if owners:
                self.error(f"{option} is not an option of `{self.prog}`; it is one of: {', '.join(owners)}")
        return namespace, extras


_VERB_PARSERS: dict[str, argparse.ArgumentParser] = {}


def _who(p, what: str) -> None:
    p.add_argument("--who", help=f"{what} (default: $USER)")


def _format(p, choices=("table", "json", "csv")) -> None:
    p.add_argument("--format", choices=list(choices), default="table")


def _verdict_options(p, adjudicating: bool = False) -> None:
    p.add_argument("--list", type=bounded_int(1, 2**63 - 1), required=True, help="the list's id (from `lists`)")
    if not adjudicating:
        p.add_argument("--accept", action="store_true", help="the list shown is right")
    p.add_argument("--reject", action="store_true", help="the answer recommends nothing")
    p.add_argument(
        "--edit",
        action="append",
        metavar="NAME",
        help="the right list, best first: one --edit per name (a name may hold commas; it must hold a letter or digit)",
    )
    p.add_argument(
        "--if-version",
        metavar="V",
        help="the version you were shown (`lists`): refused, nothing recorded, if the list changed since",
    )
    p.add_argument("--why", help="a reason recorded with it")


def _sample_options(p) -> None:
    p.add_argument(
        "--rate",
        type=_rate,
        default=SAMPLE_RATE,
        help=f"share of each study's questions in the sample, every model and repetition of each (default {SAMPLE_RATE})",
    )
    p.add_argument("--seed", type=int, default=SAMPLE_SEED, help=f"the sample's seed (default {SAMPLE_SEED})")
    p.add_argument("--per-topic", help=argparse.SUPPRESS)  # the old sample: refused naming --rate


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share such as 0.25, got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share above 0 and at most 1, got {text}")
    return value


def _options(verb: str, p) -> None:
    """Each verb's own options."""
    if verb == "lists":
        p.add_argument(
            "--only",
            choices=list(LIST_FILTERS),
            default="all",
            help="unreviewed, disagreements (between experts), reviewer-disagreements (two reviewers' final "
            "lists differ and no adjudication settled them), resolved (adjudicated), sample (the validation "
            f"sample `review sample` draws at its default rate, {SAMPLE_RATE}, and seed; not blind: the first "
            "reviewer's way to it), all",
        )
        p.add_argument(
            "--blind", action="store_true", help="as a second reviewer sees them: the extraction, your verdicts only"
        )
        p.add_argument(
            "--search",
            metavar="TEXT",
            help='only the lists whose answer matches TEXT: words (all of them), "a phrase", prefix*, OR, NOT; '
            "in the order the answers were stored",
        )
        p.add_argument(
            "--limit",
            type=bounded_int(1, None),
            metavar="N",
            help=f"at most N lists (default: {SEARCH_TABLE_PAGE} in a table of a --search, else all); "
            "JSON is then an object: lists, offset, limit, more",
        )
        p.add_argument(
            "--offset", type=bounded_int(0, None), default=0, metavar="N", help="skip the first N lists (the next page)"
        )
        _who(p, "the reviewer reading (blind: whose verdicts show)")
        _format(p)
    elif verb == "verdict":
        _verdict_options(p)
        p.add_argument("--blind", action="store_true", help="a second reviewer's verdict: compared, never applied")
        _who(p, "the reviewer")
    elif verb == "adjudicate":
        p.add_argument(
            "--take", metavar="REVIEWER|own", help="take this reviewer's final list; own: yours (--edit/--reject)"
        )
        _verdict_options(p, adjudicating=True)
        _who(p, "the adjudicator (not one of the reviewers who disagree)")
    elif verb == "sample":
        _sample_options(p)
        _who(p, "whose verdicts show (a blind reviewer sees only their own)")
        _format(p)
    elif verb == "agreement":
        _sample_options(p)
        p.add_argument("--first", required=True, help="one reviewer")
        p.add_argument("--second", required=True, help="the other reviewer")
        _format(p, ("table", "json"))
    elif verb == "probes":
        p.add_argument(
            "--only",
            choices=["unreviewed", "disagreements", "all"],
            default="all",
            help="which labels (disagreements: rules and judge differ)",
        )
        _format(p)
    elif verb == "label":
        p.add_argument("--key", required=True, help="the prompt's request key (a unique prefix will do)")
        p.add_argument("--label", choices=["admits", "denies", "unclear"], required=True, help="the right label")
        _who(p, "the reviewer")
    elif verb == "matches":
        p.add_argument(
            "--only",
            choices=["unmatched", "uncertain", "all"],
            default="all",
            help="unmatched (out of catalog) or uncertain (fuzzy score < 95)",
        )
        _format(p)
    elif verb == "match":
        p.add_argument("--key", required=True, help="MODEL/SEED/CATEGORY/PERSONA/RANK (from `matches`)")
        p.add_argument("--item", help="the catalog entry the item means (closest title taken)")
        p.add_argument("--out", action="store_true", help="the item is not in the catalog")
        _who(p, "the reviewer")
    else:  # undo, undo-label, undo-match
        _who(p, "whose latest decision is taken back")


def add_parsers(sub, fmt, handler) -> None:
    p = sub.add_parser(
        "review",
        help="review extracted lists (verdicts, adjudication, a blind validation sample), probe labels, catalog matches",
        formatter_class=fmt,
        description=DESCRIPTION,
        epilog="examples:\n" + "\n".join(f"  {example}" for _, example in VERBS.values()),
    )
    p.add_argument("--db", dest="db_before", help=argparse.SUPPRESS)
    p.add_argument("--study", dest="study_before", help=argparse.SUPPRESS)
    verbs = p.add_subparsers(dest="action", metavar="VERB", required=True, parser_class=VerbParser)
    for verb, (summary, example) in VERBS.items():
        v = verbs.add_parser(
            verb, help=summary, description=summary, epilog=f"example:\n  {example}", formatter_class=fmt
        )
        v.add_argument("--db", help=f"SQLite database (default: ./{DEFAULT_DB})")
        v.add_argument("--study", help="the study (default: the database's only study)")
        _options(verb, v)
        v.set_defaults(func=handler)
        _VERB_PARSERS[verb] = v
