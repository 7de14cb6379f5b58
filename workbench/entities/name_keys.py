"""What a name means for de-duplication: its words without the parts that name no brand.

"The Acme S.p.A. (Italy)", "Acme SpA", "acme" and "ACME, Italy" are one brand to a
reviewer. `core_words` drops, in this order:
1. a trailing aside in parentheses (unless it holds a digit: "Halloween (1978)" and
   "Halloween (2018)" are two films) and a trailing place after a comma or a dash
   ("Toyota, Japan", "Toyota - Japan"; places are countries and world regions only,
   so "University of California, Berkeley" keeps its campus);
2. legal forms, written dotted or not ("S.A.", "N.V.", "Co.,Ltd.", "GmbH & Co. KG",
   "Pty Ltd", "Oyj", "A/S", "株式会社"), at the end (and "PT" at the start);
3. one leading article ("The North Face", "La Roche-Posay", "L'Oréal").
Case, accents and punctuation never count. A name made only of such parts keeps
them (a brand called "The Company" stays "the company"). Display names are never
changed: these are keys.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Legal forms as single words once dots and slashes inside abbreviations are gone
# ("S.p.A." -> "spa", "A/S" -> "as"). Only ever removed at the end of a name.
LEGAL_FORMS = frozenset(
    """
    inc incorporated ltd ltda limited llc llp lp lllp pllc co corp corporation company gmbh mbh ag kg kgaa
    ohg ug ev se sa sas sasu sarl sca spa srl sapa snc nv bv vof cv plc pte pty pvt bhd sdn tbk oy oyj ab
    as asa aps hf kk gk yk sl slu sau sab sro doo dd ad ead ood ooo oao pao zao
    jsc ojsc pjsc cjsc lda ehf
    """.split()
)
# Multi-word legal forms are removed as a whole (the words on their own may be a name's).
LEGAL_PHRASES = (
    ("kabushiki", "kaisha"),
    ("sp", "z", "o", "o"),
    ("s", "de", "rl"),
    ("de", "cv"),
    ("sa", "de", "cv"),
    ("public", "limited", "company"),
    ("limited", "liability", "company"),
    ("co", "ltd"),
    ("pty", "ltd"),
    ("pvt", "ltd"),
    ("private", "limited"),
    ("gmbh", "co", "kg"),
    ("ag", "co", "kg"),
    ("and", "co"),
    ("co", "kg"),
)
LEADING_LEGAL = frozenset({"pt", "cv", "ooo", "oao", "pao", "zao"})
CJK_LEGAL = ("株式会社", "有限会社", "合同会社", "(株)", "（株）", "有限公司", "股份有限公司", "集团")
ARTICLES = frozenset(
    {"the", "le", "la", "les", "l", "der", "die", "das", "el", "los", "las", "il", "lo", "gli", "de", "het", "een"}
)

# Places a trailing qualifier may name ("Toyota, Japan"): countries and world regions,
# never states or cities (a campus like "Berkeley" is part of the name).
COUNTRIES = """
afghanistan, albania, algeria, america, andorra, angola, antigua, argentina, armenia, australia, austria,
azerbaijan, bahamas, bahrain, bangladesh, barbados, belarus, belgium, belize, benin, bhutan, bolivia, bosnia,
botswana, brazil, britain, brunei, bulgaria, burkina faso, burma, burundi, cambodia, cameroon, canada, cape verde,
chad, chile, china, colombia, comoros, congo, costa rica, croatia, cuba, cyprus, czech republic, czechia, denmark,
djibouti, dominica, dominican republic, ecuador, egypt, el salvador, england, eritrea, estonia, eswatini, ethiopia,
fiji, finland, france, gabon, gambia, georgia, germany, ghana, great britain, greece, greenland, grenada, guatemala,
guinea, guyana, haiti, holland, honduras, hong kong, hungary, iceland, india, indonesia, iran, iraq, ireland,
israel, italy, ivory coast, jamaica, japan, jordan, kazakhstan, kenya, kiribati, korea, kosovo, kuwait, kyrgyzstan,
laos, latvia, lebanon, lesotho, liberia, libya, liechtenstein, lithuania, luxembourg, macao, macau, macedonia,
madagascar, malawi, malaysia, maldives, mali, malta, mauritania, mauritius, mexico, micronesia, moldova, monaco,
mongolia, montenegro, morocco, mozambique, myanmar, namibia, nauru, nepal, netherlands, new zealand, nicaragua,
niger, nigeria, north korea, north macedonia, northern ireland, norway, oman, pakistan, palau, palestine, panama,
papua new guinea, paraguay, peru, philippines, poland, portugal, puerto rico, qatar, romania, russia, rwanda, samoa,
san marino, saudi arabia, scotland, senegal, serbia, seychelles, sierra leone, singapore, slovakia, slovenia,
somalia, south africa, south korea, south sudan, spain, sri lanka, sudan, suriname, sweden, switzerland, syria,
taiwan, tajikistan, tanzania, thailand, togo, tonga, trinidad, tunisia, turkey, turkiye, turkmenistan, tuvalu, uae,
uganda, uk, ukraine, united arab emirates, united kingdom, united states, united states of america, uruguay, us,
usa, uzbekistan, vanuatu, venezuela, viet nam, vietnam, wales, yemen, zambia, zimbabwe
"""
REGIONS = """
africa, americas, apac, asia, asia pacific, benelux, caribbean, central america, east asia, eastern europe, emea,
europe, global, gulf, international, latin america, mena, middle east, nordics, north america, oceania, scandinavia,
south america, south asia, southeast asia, western europe, worldwide
"""
PLACES = frozenset(" ".join(p.split()) for p in f"{COUNTRIES},{REGIONS}".split(",") if p.strip())

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'", "\u201c": '"', "\u201d": '"'})
# A dot after a one- or two-letter word ("S.p.A.", "Co.", "N.V.") and a slash between
# single letters ("A/S") join the abbreviation instead of splitting it into letters.
_DOTTED = re.compile(r"(?<![^\W\d_])([^\W\d_]{1,2})\.")
_SLASHED = re.compile(r"(?<![^\W_])([^\W\d_])/([^\W\d_])(?![^\W_])")
_PAREN_TAIL = re.compile(r"\s*[(\[]([^()\[\]]*)[)\]]\s*$")
_PLACE_TAIL = re.compile(r"^(?P<head>.+)(?:,|\s[-\u2013\u2014|])\s*(?P<tail>[^,\-\u2013\u2014|]+?)\s*$")


def _fold(text: str) -> str:
    if text.isascii():  # most names: nothing to decompose
        return text.translate(_APOSTROPHES).lower()
    text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    for mark in CJK_LEGAL:
        text = text.replace(mark, " ")
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _words(text: str) -> list[str]:
    text = _SLASHED.sub(r"\1\2", _DOTTED.sub(r"\1", text))
    return re.sub(r"[^\w]+|_", " ", text).split()


def _is_place(text: str) -> bool:
    return " ".join(_words(text)) in PLACES


def _drop_qualifiers(text: str) -> str:
    """Trailing asides in parentheses and trailing places, as often as they repeat
    ("Nanyang Technological University, Singapore (NTU)")."""
    while True:
        paren = _PAREN_TAIL.search(text)
        if paren and paren.start() > 0 and not re.search(r"\d", paren.group(1)):
            text = text[: paren.start()]
            continue
        place = _PLACE_TAIL.match(text)
        if place and _is_place(place.group("tail")) and _words(place.group("head")):
            text = place.group("head")
            continue
        return text


def _drop_legal(words: list[str]) -> list[str]:
    words = list(words)
    changed = True
    while changed and len(words) > 1:
        changed = False
        for phrase in LEGAL_PHRASES:
            if len(words) > len(phrase) and tuple(words[-len(phrase) :]) == phrase:
                del words[-len(phrase) :]
                changed = True
                break
        else:
            if words[-1] in LEGAL_FORMS:
                words.pop()
                changed = True
    if len(words) > 1 and words[0] in LEADING_LEGAL:
        words.pop(0)
    return words


def core_words(name: str, strip: bool = True) -> tuple[str, ...]:
    """The words that name the brand, folded (see the module docstring); with
    `strip=False`, all the name's words, folded."""
    return _analysed(name)[0 if strip else 1]


@lru_cache(maxsize=200_000)
def _analysed(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    folded = _fold(name).strip()
    every = tuple(_words(folded)) or (folded,)
    kept = _drop_qualifiers(folded)
    words = _drop_legal(_words(kept))
    if all(w in ARTICLES for w in words):  # "The Company" is a name, not an article
        words = _words(kept)
    elif len(words) > 1 and words[0] in ARTICLES:  # "L'Oréal" has split into "l", "oreal"
        words = words[1:]
    return tuple(words) or every, every


def core(name: str) -> str:
    """`core_words` as one string, in the name's own word order."""
    return " ".join(core_words(name))
