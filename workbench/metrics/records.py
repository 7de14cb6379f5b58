"""Metric records as typed values, flat rows only where a file is written.

Each method describes its numbers as frozen dataclasses (`workbench/methods/<m>/records.py`):
its views read their attributes, and `as_row` turns one into the flat record of
`workbench metrics --format json` (and the CSV, the exports) at the edge. A dataclass's fields
are the row's keys in their order; a field left at `UNSET` is a key the row does not have
(a reason given only where a number is missing, an adjusted p only where a family was
adjusted), so the rows read exactly as the plain dicts did. A mapping field declared with
`spliced(prefix)` becomes keys of its own (an entity's metadata as `meta_<column>`).

Plain dicts pass through unchanged: a plugin's method may go on returning them, and the
helpers here (`value_of`, `has`) read either kind.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter
from typing import Any, Final


class Unset:
    """The value of a field whose key the flat record leaves out."""

    _instance: Unset | None = None

    def __new__(cls) -> Unset:  # one of it, so `is UNSET` holds after a copy or a pickle too
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNSET"


UNSET: Final = Unset()

_SPLICE = "workbench.splice"  # field metadata: the prefix a mapping's keys take in the row


def spliced(prefix: str) -> Any:
    """A mapping field whose items are keys of the row, each as `prefix + key`."""
    return dataclasses.field(default_factory=dict, metadata={_SPLICE: prefix})


def nested(**kwargs: Any) -> Any:
    """A field holding an `Interval` or a `Test`: its keys are the row's (`ci_low`, ..., `p`),
    at the field's place, so that a record declares an interval without naming its keys and the
    core can add one without breaking it. `default=` as `dataclasses.field` takes it."""
    return dataclasses.field(metadata={_SPLICE: ""}, **kwargs)


class _Flat(Mapping):
    """A value the row spreads into keys of its own (`nested`): a read-only mapping of them."""

    __slots__ = ()

    def _items(self) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self._items()[key]

    def __iter__(self):
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())


@dataclasses.dataclass(frozen=True, slots=True, eq=True)
class Interval(_Flat):
    """An interval as every record writes it: `ci_low`, `ci_high` (None where there is none),
    `ci_level`, `n_boot` (resamples, where a bootstrap drew it), `ci_unit` (what was resampled
    or counted: "question", "answer", "seed", ...) and `ci_na_reason` where the ends are None."""

    low: float | None
    high: float | None
    level: float = 0.95
    n_boot: int | None = None
    unit: str = "unit"
    na_reason: str | None = None

    def __post_init__(self) -> None:
        ends = [end for end in (self.low, self.high) if end is not None]
        if any(not isinstance(end, numbers.Real) or math.isnan(end) for end in ends):
            raise ValueError(f"an interval's ends are numbers or None, not {self.low!r} and {self.high!r}")
        if len(ends) == 2 and self.low > self.high:
            raise ValueError(f"an interval's low end {self.low!r} is above its high end {self.high!r}")

    def _items(self) -> dict[str, Any]:
        items = {"ci_low": self.low, "ci_high": self.high, "ci_level": self.level, "n_boot": self.n_boot}
        items["ci_unit"] = self.unit
        if self.na_reason is not None:
            items["ci_na_reason"] = self.na_reason
        return items

    @classmethod
    def of_fields(cls, fields: Mapping[str, Any]) -> Interval:
        """The interval of a record's flat fields (`intervals.interval_fields` and the like)."""
        return cls(
            fields.get("ci_low"),
            fields.get("ci_high"),
            fields.get("ci_level", 0.95),
            fields.get("n_boot"),
            fields.get("ci_unit", "unit"),
            fields.get("ci_na_reason"),
        )


@dataclasses.dataclass(frozen=True, slots=True, eq=True)
class Test(_Flat):
    """A test's p-value with, once its family is adjusted (`with_adjusted_p`), Holm's and
    Benjamini-Hochberg's: `p`, `p_holm`, `p_bh` (the adjusted ones only where adjusted)."""

    p: float | None
    p_holm: float | None | Unset = UNSET
    p_bh: float | None | Unset = UNSET

    def _items(self) -> dict[str, Any]:
        return {k: v for k, v in (("p", self.p), ("p_holm", self.p_holm), ("p_bh", self.p_bh)) if v is not UNSET}


# Per record class, worked out once (rows are made by the thousand, and `dataclasses.fields`
# per record would cost more than the row itself): a function from a record to its row.
_ROWS: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _row_maker(cls: type) -> Callable[[Any], dict[str, Any]]:
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    getter = attrgetter(*names)
    values = getter if len(names) > 1 else (lambda record: (getter(record),))
    splices = {i: f.metadata[_SPLICE] for i, f in enumerate(fields) if _SPLICE in f.metadata}
    if not splices:  # the usual case: one comprehension
        return lambda record: {k: v for k, v in zip(names, values(record)) if v is not UNSET}

    def row(record: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for i, (name, value) in enumerate(zip(names, values(record))):
            if i in splices:
                if value is not None:  # a nested value a record may lack (an interval of a count)
                    out.update((splices[i] + key, item) for key, item in value.items())
            elif value is not UNSET:
                out[name] = value
        return out

    return row


def as_row(record: Any) -> dict[str, Any]:
    """The flat record of a dataclass record (its fields in order, UNSET ones left out,
    spliced mappings spread); a dict as it is."""
    if isinstance(record, dict):
        return record
    maker = _ROWS.get(type(record))
    if maker is None:
        if not dataclasses.is_dataclass(record):
            return dict(record)  # another mapping
        maker = _ROWS[type(record)] = _row_maker(type(record))
    return maker(record)


def as_rows(records: Iterable[Any]) -> list[dict[str, Any]]:
    """`as_row` of each record: what JSON and CSV are written from."""
    return [as_row(record) for record in records]


def value_of(record: Any, key: str, default: Any = None) -> Any:
    """A record's value for `key`, a dict's or a dataclass's (`default` where it has none);
    a key of a nested `Interval` or `Test` too."""
    if isinstance(record, Mapping):
        return record.get(key, default)
    value = getattr(record, key, _ABSENT)
    if value is _ABSENT:
        value = _nested_value(record, key)
    return default if value is UNSET or value is _ABSENT else value


def has(record: Any, key: str) -> bool:
    """Whether the record's flat row has `key` (a dataclass field left UNSET is absent)."""
    if isinstance(record, Mapping):
        return key in record
    value = getattr(record, key, _ABSENT)
    if value is _ABSENT:
        value = _nested_value(record, key)
    return value is not UNSET and value is not _ABSENT


# Per record class, its fields declared with `nested()` (most classes: none, and the lookup of a
# key a record lacks stays one getattr).
_NESTED: dict[type, tuple[str, ...]] = {}


def _nested_value(record: Any, key: str) -> Any:
    """`key` in the record's nested values (`nested()` fields), or _ABSENT."""
    kind = type(record)
    names = _NESTED.get(kind)
    if names is None:
        fields = dataclasses.fields(record) if dataclasses.is_dataclass(record) else ()
        names = _NESTED[kind] = tuple(f.name for f in fields if f.metadata.get(_SPLICE) == "")
    for name in names:
        nested_value = getattr(record, name)
        if nested_value is not None and key in nested_value:
            return nested_value[key]
    return _ABSENT


_ABSENT = object()


def with_adjusted_p(records: list[Any], chosen: Callable[[Any], bool], key: tuple[str, ...]) -> None:
    """Holm and Benjamini-Hochberg adjusted p-values (`p_holm`, `p_bh`) for the chosen records
    that have a `p`, adjusting within each family that shares the values of `key`; the records
    are replaced in `records` by copies that carry them (records are immutable: a kept one
    may be shared with an earlier computation)."""
    from workbench.metrics.intervals import benjamini_hochberg, holm

    families: dict[tuple, list[int]] = {}
    for i, record in enumerate(records):
        if chosen(record) and has(record, "p"):
            families.setdefault(tuple(value_of(record, k) for k in key), []).append(i)
    for family in families.values():
        ps = [value_of(records[i], "p") for i in family]
        for i, by_holm, by_bh in zip(family, holm(ps), benjamini_hochberg(ps)):
            record = records[i]
            if isinstance(record, dict):
                record["p_holm"], record["p_bh"] = by_holm, by_bh
            else:
                records[i] = _adjusted(record, by_holm, by_bh)


def _adjusted(record: Any, by_holm: float | None, by_bh: float | None) -> Any:
    """A copy of a dataclass record with its adjusted p-values: in its fields, or in its `Test`."""
    if hasattr(record, "p_holm"):
        return dataclasses.replace(record, p_holm=by_holm, p_bh=by_bh)
    name = next(f.name for f in dataclasses.fields(record) if isinstance(getattr(record, f.name), Test))
    test = dataclasses.replace(getattr(record, name), p_holm=by_holm, p_bh=by_bh)
    return dataclasses.replace(record, **{name: test})


def with_convention(record: Any, convention: str) -> Any:
    """The record naming `convention`: a dict gets it as its first key (as records always
    had it); a dataclass with a `convention` field a copy where it differs."""
    if isinstance(record, dict):
        return {"convention": convention, **record}
    if getattr(record, "convention", convention) == convention:
        return record
    return dataclasses.replace(record, convention=convention)
