"""Make `brand_aliases.csv`: labelled surface forms of company and brand names.

About 20,000 distinct surface strings of about 3,400 names, each labelled with the
name it stands for (`entity`) and the variation that made it (`class`):
`base` (the name itself), `case`, `accent`, `legal` (a legal form added, removed or
written another way: "S.p.A.", "Co.,Ltd.", "GmbH & Co. KG", ...), `qualifier`
("Toyota (Japan)", "Toyota, Japan", "Toyota - Japan"), `article` ("The North Face" /
"North Face"), `spacing` ("Coca Cola" / "CocaCola" / "Coca-Cola", "&" / "and"),
`typo1` and `typo2` (one or two letters deleted, inserted, replaced or swapped),
`combined` (two of the above), and `abbreviation` (initials or the first word only:
a known-hard class, reported separately).

The names are the 1,200 companies of the entity-bias framework's
`companies_entities.csv` (MIT licence; pass its path) and invented brand names,
among them families of different brands one or two letters apart ("Alder",
"Alden", "Alderon") that must stay apart. A surface that two entities could both
produce (the same string, or the same once case and punctuation go) is dropped:
no method can tell them apart.

    python bench/data/make_brand_aliases.py --companies companies_entities.csv
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "to",
    "ra",
    "ne",
    "su",
    "vi",
    "do",
    "pe",
    "ba",
    "zen",
    "tor",
    "lux",
    "ix",
    "on",
    "ar",
    "el",
    "qu",
    "fi",
    "gra",
    "mo",
    "sta",
    "ter",
    "vo",
    "co",
    "ny",
    "pha",
    "bri",
    "dex",
    "al",
    "der",
    "ven",
    "ris",
    "tal",
    "mar",
    "sol",
    "nor",
    "ka",
    "ze",
    "ul",
    "tri",
    "pan",
    "gen",
    "cor",
    "lin",
    "ves",
    "hal",
]
GENERIC = [
    "Air",
    "Foods",
    "Labs",
    "Motors",
    "Bank",
    "Energy",
    "Systems",
    "Pharma",
    "Group",
    "Holdings",
    "Tech",
    "Analytics",
    "Airlines",
    "Media",
    "Retail",
    "Capital",
    "Logistics",
    "Home",
    "Sport",
    "Beverages",
]
LEGAL = [
    "Inc.",
    "Inc",
    ", Inc.",
    "Ltd",
    "Ltd.",
    "Limited",
    "LLC",
    "LLP",
    "Corp.",
    "Corporation",
    "Co.",
    "Co., Ltd.",
    "Co.,Ltd.",
    "PLC",
    "plc",
    "GmbH",
    "GmbH & Co. KG",
    "AG",
    "SE",
    "S.A.",
    "SA",
    "N.V.",
    "B.V.",
    "S.p.A.",
    "S.r.l.",
    "K.K.",
    "Oyj",
    "AB",
    "A/S",
    "ASA",
    "S.L.",
    "Pty Ltd",
    "Pte. Ltd.",
    "Sdn. Bhd.",
    "S.A. de C.V.",
]
LEGAL_WORDS = re.compile(
    r"(,?\s+(Inc\.?|Ltd\.?|Limited|LLC|Corp\.?|Corporation|Co\.|PLC|plc|GmbH|AG|SE|S\.A\.|SA|"
    r"S\.p\.A\.|SpA|N\.V\.|NV|Oyj|AB|ASA|Tbk|Company|S\.A\.B\. de C\.V\.|Bhd|Berhad))+$"
)
PLACES = [
    "Japan",
    "USA",
    "US",
    "UK",
    "Germany",
    "France",
    "India",
    "China",
    "Brazil",
    "Canada",
    "Italy",
    "Spain",
    "South Korea",
    "Mexico",
    "Australia",
    "Netherlands",
    "Sweden",
    "Switzerland",
    "Singapore",
    "Europe",
    "Asia",
    "Global",
    "Nigeria",
    "Kenya",
    "Indonesia",
    "Turkey",
    "Chile",
    "Norway",
    "Finland",
    "Vietnam",
]
ARTICLES = ["The", "The", "The", "The", "La", "Le", "El", "Die"]
ACCENTED = {"a": "á", "e": "é", "o": "ö", "u": "ü", "i": "í", "c": "ç", "n": "ñ"}
ORDER = ["typo1", "spacing", "accent", "legal", "qualifier", "article", "case"]
SIMPLE = ["case", "legal", "qualifier", "article", "accent", "spacing"]
WEIGHTS = {
    "case": 14,
    "legal": 20,
    "qualifier": 10,
    "article": 8,
    "accent": 6,
    "spacing": 8,
    "typo1": 12,
    "typo2": 5,
    "combined": 17,
}


def strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def read_companies(path: Path) -> list[str]:
    with path.open(encoding="utf-8", newline="") as handle:
        names = [row["name"].strip().strip('"').strip() for row in csv.DictReader(handle)]
    return [n for n in dict.fromkeys(names) if n]


def invented(rng: random.Random, count: int) -> list[str]:
    """Brand-like names; about one in eight comes with siblings one or two letters away."""
    names: dict[str, None] = {}
    while len(names) < count:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
        extra = [rng.choice(GENERIC)] if rng.random() < 0.5 else []
        names[" ".join([word, *extra])] = None
        if rng.random() < 0.12:
            for sibling in {
                word[:-1] + rng.choice("nrstl"),
                word + rng.choice(["on", "son", "a", "ix"]),
                word[:-1] + rng.choice("aeiou"),
            } - {word}:
                names[" ".join([sibling, *extra])] = None
    return list(names)[:count]


def typo(rng: random.Random, text: str) -> str:
    letters = [i for i, c in enumerate(text) if c.isalpha() and i > 0]
    i = rng.choice(letters)
    kind = rng.random()
    if kind < 0.3:
        return text[:i] + text[i + 1 :]
    if kind < 0.55:
        return text[:i] + rng.choice("aeiourstln") + text[i:]
    if kind < 0.8:
        return text[:i] + rng.choice([c for c in "aeiourstlnm" if c != text[i].lower()]) + text[i + 1 :]
    if i + 1 < len(text) and text[i + 1].isalpha() and text[i + 1] != text[i]:
        return text[:i] + text[i + 1] + text[i] + text[i + 2 :]
    return text[:i] + text[i + 1 :]


def vary(rng: random.Random, name: str, kind: str) -> str:
    if kind == "case":
        return rng.choice([name.upper(), name.lower(), name.title(), name[:1].lower() + name[1:]])
    if kind == "legal":
        if name.endswith(")"):  # "Eletrobras (Centrais Elétricas Brasileiras S.A.)" takes no second legal form
            return name
        stripped = LEGAL_WORDS.sub("", name)
        if stripped != name and rng.random() < 0.6:
            return stripped
        form = rng.choice(LEGAL)
        return f"{stripped}{form}" if form.startswith(",") else f"{stripped} {form}"
    if kind == "qualifier":
        place = rng.choice(PLACES)
        return rng.choice([f"{name} ({place})", f"{name}, {place}", f"{name} - {place}"])
    if kind == "article":
        if name.startswith("The "):
            return name[4:]
        return f"{rng.choice(ARTICLES)} {name}"
    if kind == "accent":
        if strip_accents(name) != name:
            return strip_accents(name)
        spots = [i for i, c in enumerate(name) if c.lower() in ACCENTED and i > 0]
        if not spots:
            return name
        i = rng.choice(spots)
        return name[:i] + ACCENTED[name[i].lower()] + name[i + 1 :]
    if kind == "spacing":
        if " & " in name:
            return name.replace(" & ", " and ")
        if " " in name:
            return rng.choice([name.replace(" ", ""), name.replace(" ", "-")])
        if "-" in name:
            return rng.choice([name.replace("-", " "), name.replace("-", "")])
        cut = rng.randint(2, max(2, len(name) - 2))
        return name[:cut] + " " + name[cut:]
    if kind == "typo1":
        return typo(rng, name) if sum(c.isalpha() for c in name) >= 5 else name
    if kind == "typo2":
        return typo(rng, typo(rng, name)) if sum(c.isalpha() for c in name) >= 9 else name
    if kind == "combined":
        pair = rng.sample(SIMPLE, 2)
        if rng.random() < 0.3:
            pair[0] = "typo1"
        # In the order a writer would: spelling first, then the words around the name.
        for kind in sorted(pair, key=ORDER.index):
            name = vary(rng, name, kind)
        return name
    raise ValueError(kind)


def abbreviation(rng: random.Random, name: str) -> str | None:
    words = LEGAL_WORDS.sub("", name).replace("-", " ").split()
    if len(words) < 2:
        return None
    if rng.random() < 0.5:
        return "".join(w[0] for w in words if w[0].isalpha()).upper()
    return words[0]


def loose(text: str) -> str:
    """What the store keys a surface by: no case, accents, punctuation or extra spaces."""
    return " ".join(re.sub(r"[^\w\s]", " ", strip_accents(text).casefold()).split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--companies", type=Path, required=True, help="companies_entities.csv (entity-bias framework)")
    parser.add_argument("--names", type=int, default=3400)
    parser.add_argument("--out", type=Path, default=HERE / "brand_aliases.csv")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    real = read_companies(args.companies)
    names = real + invented(rng, args.names - len(real))
    # Two names the store would key alike are one name to any method: keep the first.
    owner: dict[str, str] = {}
    bases = [n for n in names if owner.setdefault(loose(n), n) == n]
    rows: list[tuple[str, str, str]] = []
    seen: dict[str, str] = {}
    kinds, weights = list(WEIGHTS), list(WEIGHTS.values())
    for name in bases:
        rows.append((name, name, "base"))
        seen[name] = name
        wanted, tries = rng.randint(2, 8), 0
        made = 0
        while made < wanted and tries < 40:
            tries += 1
            kind = rng.choices(kinds, weights)[0]
            surface = " ".join(vary(rng, name, kind).split())
            if not surface or surface in seen or owner.get(loose(surface), name) != name:
                continue
            seen[surface] = name
            owner.setdefault(loose(surface), name)
            rows.append((surface, name, kind))
            made += 1
        short = abbreviation(rng, name) if rng.random() < 0.12 else None
        if short and short not in seen and loose(short) not in owner:
            seen[short] = name
            owner[loose(short)] = name
            rows.append((short, name, "abbreviation"))
    with args.out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["surface", "entity", "class"])
        writer.writerows(rows)
    print(f"{args.out.name}: {len(rows)} surfaces of {len(bases)} names")


if __name__ == "__main__":
    main()
