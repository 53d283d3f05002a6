"""A drafted model (`data/inference/drafts.py`) written as the Python of a model file: a comment
saying what was guessed and is to be reviewed, the layout, each entity, and a model of a
lookup per entity and a list per child, importing only `model`.

What it writes is built as the gateway builds a model: a list, or the parents, that the
model refuses are left out, and said so; a draft refused still is written, the refusal on
top, to be edited. Pure.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from data.inference.drafts import Draft, EntityDraft
from data.inference.key_formats import DraftedKey
from keys.table import Index

WIDTH = 100
_INDENT = "    "


def source(draft: Draft) -> str:
    """The draft as a model file, the most of it the model accepts."""
    every = {(e.name, f) for e in draft.entities for _, f in e.lists}
    whole = _written(draft, every, parents=True)
    refusal = refused(whole)
    if refusal is None:
        return whole
    for parents in (True, False):
        if refused(_written(draft, set(), parents=parents)) is not None:
            continue
        kept: set[tuple[str, str]] = set()
        said = (
            [] if parents else [f"the parents are left out: model check refuses them ({refusal})"]
        )
        for entity, field in sorted(every) if parents else ():
            why = refused(_written(draft, {*kept, (entity, field)}, parents=True))
            if why is None:
                kept.add((entity, field))
            else:
                said.append(
                    f"{entity}'s list {field!r} is left out: model check refuses it ({why})"
                )
        return _written(draft, kept, parents=parents, said=said)
    return _written(draft, every, parents=True, said=[f"model check refuses it: {refusal}"])


def refused(text: str) -> str | None:
    """Why the model `text` declares cannot be built, or None."""
    try:
        exec(compile(text, "<drafted model>", "exec"), {})
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _written(
    draft: Draft, lists: set[tuple[str, str]], *, parents: bool, said: Sequence[str] = ()
) -> str:
    """The draft as Python, with the `lists` (entity, field) and, if `parents`, parents."""
    names = _variables(draft)
    lines = _header(draft)
    notes = [*draft.notes, *said]
    if notes:
        lines += _comment("Notes:")
        for note in notes:
            lines += _comment(f"- {note}", follow="  ")
    lines += ["", "import model as m", ""]
    for index in draft.layout.all:
        lines += _lines(_index(index, names), "", f"{names[index]} = ")
    indexes = _Tuple([names[i] for i in draft.layout.indexes])
    lines += _lines(_Call("m.Layout", [names[draft.layout.table], indexes]), "", "LAYOUT = ")
    for entity in draft.entities:
        lines += ["", *_entity(entity, names, parents=parents)]
    lines += ["", "MODEL = m.Model("]
    lines += _lines(_Tuple([names[e.name] for e in draft.entities]), _INDENT, "", ",")
    patterns: list[_Call] = []
    for entity in draft.entities:
        access = 'access="admins"'
        patterns.append(_Call("m.Lookup", [names[entity.name], _q(_field(entity.name)), access]))
        if parents and entity.parent is not None:
            patterns += [
                _Call("m.ListOf", [names[entity.name], names[index], _q(field)])
                for index, field in entity.lists
                if (entity.name, field) in lists
            ]
    one = f"{_INDENT}({_flat(patterns[0])},),"
    if len(patterns) == 1 and len(one) <= WIDTH:
        lines.append(one)  # the formatter's form of a tuple of one
    else:
        lines.append(f"{_INDENT}(")
        for pattern in patterns:
            lines += _lines(pattern, _INDENT * 2, "", ",")
        lines.append(f"{_INDENT}),")
    lines += [f"{_INDENT}LAYOUT,", ")"]
    return "\n".join(lines) + "\n"


def _header(draft: Draft) -> list[str]:
    told = (
        f"by their {draft.told_by!r} attribute (an item without it is of no entity)"
        if draft.told_by
        else "by the shapes of their keys (no attribute told them apart)"
    )
    said = [
        f"A first model of the table {draft.table!r}, drafted by `dynagate model infer` from"
        f" its description and a sample of {draft.scanned} items. Review what it guessed:",
        f"- which entity each item is: {told}, and each entity's name;",
        "- each key's template: the literal text, the attribute each part holds and the"
        " casing; an attribute no item holds is made up, named after the text before it, and"
        " read from the table's key;",
        "- each attribute's kind and bounds, from the values seen (widen a text's length or"
        " a number's bounds for values the sample did not hold), and optional where an item"
        " lacked it;",
        "- parents, from partitions written alike, and their lists;",
        "- access: every lookup is for admins; add the lists and writes the API needs.",
        "Then: `dynagate model check --model FILE` and `dynagate model inspect --model FILE`.",
    ]
    lines: list[str] = []
    for one in said:
        lines += _comment(one, follow="  " if one.startswith("-") else "")
    return lines


def _comment(text: str, follow: str = "", indent: str = "") -> list[str]:
    wrapped = textwrap.wrap(
        _plain(text),
        WIDTH - len(indent) - 2,
        subsequent_indent=follow,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [f"{indent}# {line}".rstrip() for line in wrapped]


def _plain(text: str) -> str:
    """Text for a comment: one line, no control characters."""
    return re.sub(r"[\x00-\x1f\x7f]", "?", text)


def _variables(draft: Draft) -> dict[Any, str]:
    """The module-level name of each index and entity."""
    names: dict[Any, str] = {}
    taken = {"LAYOUT", "MODEL", "m"}
    for index in draft.layout.all:
        names[index] = _free("TABLE" if index.is_table else _upper(index.name or ""), taken)
    for entity in draft.entities:
        names[entity.name] = _free(_upper(entity.name), taken)
    return names


def _upper(name: str) -> str:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    found = "_".join(re.findall(r"[A-Za-z0-9]+", spaced)).upper() or "INDEX"
    return found if not found[0].isdigit() else f"INDEX_{found}"


def _free(name: str, taken: set[str]) -> str:
    found, number = name, 2
    while found in taken:
        found, number = f"{name}_{number}", number + 1
    taken.add(found)
    return found


def _index(index: Index, names: dict[Any, str]) -> _Call:
    options: list[_Node] = []
    if index.projection != "ALL":
        options.append(f"projection={_q(index.projection)}")
    if index.included:
        options.append(f"included={_flat(_Tuple([_q(a) for a in index.included]))}")
    if index.local:
        if index.types[1] != "S":
            options.append(f"sort_type={_q(index.types[1])}")
        table = names[next(i for i in names if isinstance(i, Index) and i.is_table)]
        return _Call("m.local_index", [_q(index.name or ""), table, _q(index.sort_key), *options])
    if index.types != ("S", "S"):
        options.append(f"types={_flat(_Tuple([_q(t) for t in index.types]))}")
    arguments = [_q(index.name) if index.name else "None", *map(_q, index.attributes)]
    return _Call("m.Index", [*arguments, *options])


def _entity(entity: EntityDraft, names: dict[Any, str], *, parents: bool) -> list[str]:
    count = f"{entity.items} item{'' if entity.items == 1 else 's'}"
    lines = _comment(f"{entity.name}: {count} of the sample, told by {entity.told}")
    for note in entity.notes:
        lines += _comment(note)
    if entity.made:
        lines += _comment(f"made up, held by no item attribute: {', '.join(entity.made)}")
    lines += [f"{names[entity.name]} = m.Entity(", f"{_INDENT}{_q(entity.name)},", f"{_INDENT}{{"]
    inner = _INDENT * 2
    for attribute in entity.attributes:
        stored = attribute.options.get("stored", attribute.name)
        if attribute.kind is None:
            lines += _comment(f"{stored}: {attribute.note}", indent=inner)
            continue
        if attribute.note:
            lines += _comment(f"{attribute.name}: {attribute.note}", indent=inner)
        options: list[_Node] = [f"{k}={_value(v)}" for k, v in attribute.options.items()]
        kind = _Call(f"m.{attribute.kind}", options)
        lines += _lines(kind, inner, f"{_q(attribute.name)}: ", ",")
    lines.append(f"{_INDENT}}},")
    table_keys = next(keys for index, keys in entity.keys.items() if index.is_table)
    lines += _lines(_keys(table_keys), _INDENT, "key=", ",")
    indexes = [(names[i], k) for i, k in entity.keys.items() if not i.is_table]
    if indexes:
        lines.append(f"{_INDENT}indexes={{")
        for name, keys in indexes:
            lines += _lines(_keys(keys), inner, f"{name}: ", ",")
        lines.append(f"{_INDENT}}},")
    if parents and entity.parent is not None:
        parent, mapping = entity.parent
        lines += _lines(_Call("m.Parent", [_q(parent), _value(mapping)]), _INDENT, "parent=", ",")
    lines.append(f"{_INDENT}table={names[next(i for i in names if isinstance(i, Index))]},")
    if entity.discriminator is not None:
        told_by, value, more = entity.discriminator
        told: list[_Node] = [_q(told_by), _q(value), *([_value(more)] if more else [])]
        lines += _lines(_Call("m.Discriminator", told), _INDENT, "discriminator=", ",")
    return [*lines, ")"]


def _keys(keys: tuple[DraftedKey, DraftedKey]) -> _Call:
    partition, sort = keys
    if partition.text == sort.text and partition.casing == sort.casing:
        return _Call("m.same", [_template(partition)])
    return _Call("m.Keys", [_template(partition), _template(sort)])


def _template(key: DraftedKey) -> _Call:
    casing = [] if key.casing == "none" else [f"casing={_q(key.casing)}"]
    return _Call("m.template", [_q(key.text), *casing])


_Node: TypeAlias = "str | _Call | _Tuple"


@dataclass(frozen=True)
class _Call:
    """A call to write, on one line if it fits, else split as the formatter splits it."""

    name: str
    arguments: Sequence[str | _Call | _Tuple]


@dataclass(frozen=True)
class _Tuple:
    items: Sequence[str]


def _flat(node: str | _Call | _Tuple) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, _Tuple):
        if len(node.items) == 1:
            return f"({node.items[0]},)"
        return f"({', '.join(node.items)})"
    return f"{node.name}({', '.join(map(_flat, node.arguments))})"


def _lines(node: str | _Call | _Tuple, indent: str, lead: str, trail: str = "") -> list[str]:
    """`node` on a line of `indent` after `lead` and before `trail`: on one line if it
    fits; else its arguments on one line of their own; else one a line."""
    flat = f"{indent}{lead}{_flat(node)}{trail}"
    if len(flat) <= WIDTH or isinstance(node, str):
        return [flat]
    name, arguments = ("", node.items) if isinstance(node, _Tuple) else (node.name, node.arguments)
    inner = indent + _INDENT
    together = inner + ", ".join(map(_flat, arguments))
    if len(together) <= WIDTH and not (isinstance(node, _Tuple) and len(arguments) == 1):
        return [f"{indent}{lead}{name}(", together, f"{indent}){trail}"]
    lines = [f"{indent}{lead}{name}("]
    for argument in arguments:
        lines += _lines(argument, inner, "", ",")
    return [*lines, f"{indent}){trail}"]


def _value(value: Any) -> str:
    if isinstance(value, str):
        return _q(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_q(k)}: {_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _q(text: str) -> str:
    """A Python string literal of `text`, in double quotes."""
    return json.dumps(text)


def _field(name: str) -> str:
    return name[0].lower() + name[1:]
