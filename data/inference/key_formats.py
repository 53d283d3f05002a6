"""Key templates drafted from the keys a sample's items hold (`dynagate model infer`).

Each key is split at its delimiters (`#`, `/`, `~`); a part every item holds alike is literal
text, and a part that holds an item attribute's value is that attribute's segment
(`ORG#acme` with `orgId` = `acme`: `ORG#${orgId}`), also after a literal inside the part,
as ElectroDB writes `eventid_e1` for `eventId` = `E1`. The casing the keys are stored in
(as given, upper or lower case) is the one under which most parts are attributes. A part
that varies and that no attribute holds gets a made-up name from the literal before it
(`EVENT#x`: `eventId`). Pure: no table is read here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from keys.template import Casing

_PARTS = re.compile(r"([#/~])")
# Inside one part, where a literal may end and a value begin (ElectroDB's `eventid_`).
_JOINS = "_$"


@dataclass(frozen=True)
class Binding:
    """An attribute a key holds: its name, and for a zero-padded number its digits."""

    name: str
    width: int | None = None
    # In a number key (`N`), which holds the attribute's number itself.
    numeric: bool = False


@dataclass(frozen=True)
class DraftedKey:
    """A written template (`"ORG#${orgId}"`), its casing, the attributes it holds in order,
    and the names it made up for parts no attribute holds, with each item's value."""

    text: str
    casing: Casing
    bindings: tuple[Binding, ...]
    made: Mapping[str, tuple[str, ...]]
    # How many of its segments are attributes the items hold (the casing's score).
    held: int = 0


def parts(key: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The key's parts and the delimiters between them."""
    split = _PARTS.split(key)
    return tuple(split[0::2]), tuple(split[1::2])


def head(key: str) -> str:
    """The key's first part that holds text: its label, in a single-table design."""
    return next((part for part in parts(key)[0] if part), "")


def words(text: str) -> list[str]:
    """The words of `text`: runs of letters and digits, camelCase humps split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return re.findall(r"[A-Za-z0-9]+", spaced)


def camel(text: str) -> str:
    """`order_line`, `ORDER-LINE`, `orderLine`: `orderLine`."""
    found = [w.lower() for w in words(text)]
    return "".join(found[:1] + [w[:1].upper() + w[1:] for w in found[1:]])


def drafted_key(
    keys: Sequence[str], pool: Mapping[str, Sequence[Any]], taken: Iterable[str]
) -> DraftedKey:
    """The template of `keys` (one per item, each of the same delimiters), its segments
    named after the attributes of `pool` (each item's value, None where it has none) that
    hold the same values; `taken`: names a made-up one may not take."""
    casings: list[Casing] = ["none"]
    if any(k != k.upper() for k in keys) and all(k == k.lower() for k in keys):
        casings.append("lower")
    if any(k != k.lower() for k in keys) and all(k == k.upper() for k in keys):
        casings.append("upper")
    drafts = [_drafted(keys, pool, set(taken), casing) for casing in casings]
    return max(drafts, key=lambda d: d.held)  # the first of the best: as given, on a tie


def number_key(values: Sequence[Any], pool: Mapping[str, Sequence[Any]]) -> DraftedKey | None:
    """A number key's template (`N`): the attribute holding the same number on every
    item, or None."""
    for name, held in pool.items():
        if all(
            isinstance(h, int | float) and not isinstance(h, bool) and h == v
            for h, v in zip(held, values, strict=True)
        ):
            return DraftedKey("${" + name + "}", "none", (Binding(name, numeric=True),), {}, 1)
    return None


def _drafted(
    keys: Sequence[str], pool: Mapping[str, Sequence[Any]], taken: set[str], casing: Casing
) -> DraftedKey:
    columns = list(zip(*(parts(k)[0] for k in keys), strict=True))
    delimiters = parts(keys[0])[1]
    first = next((i for i, c in enumerate(columns) if any(c)), 0)
    label = first if len(set(columns[first])) == 1 else -1
    pieces: list[str] = []
    bindings: list[Binding] = []
    made: dict[str, tuple[str, ...]] = {}
    held = 0
    before = ""  # the last literal text, which names what follows it
    for at, column in enumerate(columns):
        constant = len(set(column)) == 1
        if constant and (at <= label or not column[0]):
            pieces.append(column[0])
            before = column[0] or before
        else:
            used = {b.name for b in bindings}
            found = _bound(column, pool, used, casing, before)
            if found is not None:
                prefix, binding = found
                pieces += [prefix, "${" + binding.name + "}"]
                bindings.append(binding)
                held += 1
            elif constant:
                pieces.append(column[0])
                before = column[0]
            else:
                prefix = _literal_prefix(column)
                name = made_up(prefix or before, taken | used | set(made) | set(pool))
                made[name] = tuple(value[len(prefix) :] for value in column)
                pieces += [prefix, "${" + name + "}"]
                bindings.append(Binding(name))
        if at < len(delimiters):
            pieces.append(delimiters[at])
    return DraftedKey("".join(pieces), casing, tuple(bindings), made, held)


def _bound(
    column: Sequence[str],
    pool: Mapping[str, Sequence[Any]],
    used: set[str],
    casing: Casing,
    before: str,
) -> tuple[str, Binding] | None:
    """The literal that begins the part and the attribute holding the rest, on every item."""
    for prefix in _prefixes(column):
        rests = [value[len(prefix) :] for value in column]
        if not all(rests):
            continue
        held = [
            name
            for name, values in pool.items()
            if name not in used and _holds(values, rests, casing)
        ]
        if held:
            hint = "".join(words(prefix or before)).lower()
            name = max(held, key=lambda n: _likeness(n, hint))
            numeric = any(isinstance(v, int) for v in pool[name])
            return prefix, Binding(name, len(rests[0]) if numeric else None)
    return None


def _prefixes(column: Sequence[str]) -> list[str]:
    """The literals a part may begin with: none, then each run of the text all its values
    share that ends at a join (`eventid_`)."""
    common = column[0]
    for value in column[1:]:
        while not value.startswith(common):
            common = common[:-1]
    shortest = min(map(len, column))
    return [""] + [
        common[: i + 1] for i, c in enumerate(common) if c in _JOINS and i + 1 < shortest
    ]


def _literal_prefix(column: Sequence[str]) -> str:
    found = _prefixes(column)
    return found[-1]


def _holds(values: Sequence[Any], rests: Sequence[str], casing: Casing) -> bool:
    """Whether each item's value is the rest of its key's part (a number zero-padded to
    one width)."""
    for value, rest in zip(values, rests, strict=True):
        if isinstance(value, str):
            if cased(value, casing) != rest:
                return False
        elif isinstance(value, int) and not isinstance(value, bool):
            digits = rest.isascii() and rest.isdigit() and len(rest) == len(rests[0])
            if not digits or int(rest) != value:
                return False
        else:
            return False
    return True


def cased(value: str, casing: Casing) -> str:
    if casing == "lower":
        return value.lower()
    if casing == "upper":
        return value.upper()
    return value


def _likeness(name: str, hint: str) -> int:
    """How well an attribute's name fits the literal before its value (`ORG#`: `orgId`)."""
    plain = name.lower()
    if hint and plain in (hint, hint + "id"):
        return 3
    if hint and plain.startswith(hint):
        return 2
    return 1 if plain == "id" else 0


def made_up(literal: str, taken: set[str]) -> str:
    """A name for a value no attribute holds, from the literal before it: `EVENT`:
    `eventId`; without one, `part`."""
    base = camel(literal) or "part"
    if base[0].isdigit():
        base = "n" + base
    if not base.lower().endswith("id"):
        base += "Id"
    name, number = base, 2
    while name in taken:
        name, number = f"{base}{number}", number + 1
    return name
