"""`dynagate model chart`: a model's single-table design as a page a person reads at a
glance, in Markdown or as a self-contained HTML page (docs/model.md). Entities are rows;
the table and each index are columns holding the entity's key templates there; then an
example item of each entity, keyed as the engine keys it, and each access pattern with the
requests `model check` names and its worst case. Rendering only: every function returns
text."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import escape
from typing import Any

from data.pattern_requests import pattern_field, pattern_requests
from gateway.cli.model_examples import example_item
from keys.table import Index
from keys.template import KeyTemplate
from model import Entity, Model
from model.kinds import copies_made

# What Markdown may read as markup in a table's cell (GitHub's `$` too: its math); a `_`
# within a word (`begins_with`) is no emphasis.
_MARKUP = re.compile(r"[\\`*<\[\]|~&$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def markdown(model: Model, name: str) -> str:
    """The chart as Markdown: three tables (keys, example items, access patterns)."""
    indexes = model.table_layout.all
    keys_head = ["Entity", *(_index_head(i) for i in indexes), "Discriminator", "Notes"]
    keys_rows = [
        [
            _md_text(entity.name),
            *(_md_keys(entity, i) for i in indexes),
            _md_code(_discriminator(entity)),
            _md_parts(_notes(entity)),
        ]
        for entity in model.entities
    ]
    attributes = _key_attributes(indexes)
    items_head = ["Entity", *(f"`{a}`" for a in attributes), "Attributes"]
    items_rows = []
    for entity in model.entities:
        item = example_item(model, entity)
        keys = [_md_code(str(item[a])) if a in item else "" for a in attributes]
        others = "; ".join(
            f"{_md_code(k)}: {_md_text(_shown(v))}" for k, v in item.items() if k not in attributes
        )
        items_rows.append([_md_text(entity.name), *keys, others])
    patterns_head = ["Field", "Entity", "Requests; worst case"]
    patterns_rows = [
        [
            _md_code(pattern_field(model, p)),
            _md_text(p.entity.name),
            _md_text(pattern_requests(model, p)),
        ]
        for p in model.patterns
    ]
    return "\n".join(
        [
            f"# {_md_text(name)}: the single-table design",
            "",
            "Each entity's key templates on the table and on each index.",
            "",
            *_md_table(keys_head, keys_rows),
            "",
            "## Example items",
            "",
            *_md_table(items_head, items_rows),
            "",
            "## Access patterns",
            "",
            *_md_table(patterns_head, patterns_rows),
            "",
        ]
    )


def html_page(model: Model, name: str) -> str:
    """The chart as one HTML page: inline style, no script, nothing fetched."""
    title = escape(f"{name}: the single-table design")
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{title}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
            f"<h1>{title}</h1>",
            "<p>Each entity's key templates on the table and on each index.</p>",
            _scrolled(_html_keys(model), "keys"),
            "<h2>Example items</h2>",
            _scrolled(_html_items(model), "items"),
            "<h2>Access patterns</h2>",
            _scrolled(_html_patterns(model), "patterns"),
            "</body>",
            "</html>",
            "",
        ]
    )


def written(template: KeyTemplate) -> str:
    """A key template as a table's tools write one: `ORG#${orgId}` (its casing aside)."""
    names = [f"${{{s.name}}}" for s in template.segments]
    if template.texts is None:
        return "#".join([template.label, *names])
    return "".join(text + name for text, name in zip(template.texts, [*names, ""], strict=True))


def key_parts(partition: KeyTemplate, sort: KeyTemplate) -> list[tuple[str, bool]]:
    """`partition / sort` as text and code (the flag) in turn, with the case the keys are
    stored in, where they are folded."""
    cased = [t.casing for t in (partition, sort)]
    if cased[0] == cased[1]:
        parts = [(written(partition), True), (" / ", False), (written(sort), True)]
        return parts + ([(f" ({cased[0]} case)", False)] if cased[0] != "none" else [])
    return [
        part
        for n, template in enumerate((partition, sort))
        for part in [(" / ", False)] * bool(n)
        + [(written(template), True)]
        + [(f" ({template.casing} case)", False)] * (template.casing != "none")
    ]


def templates_on(entity: Entity, index: Index) -> tuple[KeyTemplate, KeyTemplate, bool] | None:
    """The entity's partition and sort key templates on `index` (the table or an index),
    and whether they are its copies'; None where it has no keys there."""
    if entity.keys_on(index) is None:
        return None
    found = entity.templates_on(index)
    return found[index.partition_key], found[index.sort_key], entity.copies_on(index) is not None


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _discriminator(entity: Entity) -> str:
    return ", ".join(f"{a} = {v}" for a, v in entity.kind.items())


def _notes(entity: Entity) -> list[tuple[str, bool]]:
    """What the key columns do not say (sparse indexes, copies, places, the parent), as
    text and code (the flag) in turn."""
    notes: list[list[tuple[str, bool]]] = [
        [(f"on {index.name} only while ", False)]
        + [
            part
            for n, value in enumerate(only.values)
            for part in [(" or ", False)] * bool(n) + [(f"{only.attribute} = {value}", True)]
        ]
        for index, only in entity.sparse.items()
    ]
    copies = entity.copies
    if copies is not None:
        partition, sort = (entity.copy_templates[a] for a in entity.table.attributes)
        notes.append(
            [
                (
                    f"{copies_made(entity)} copies of each item on {copies.index.name}, keyed ",
                    False,
                ),
                *key_parts(partition, sort),
                (" on the table", False),
            ]
        )
    if entity.places is not None:
        places = entity.places
        notes.append(
            [
                ("kept by place too (", False),
                (f"{places.places}#…", True),
                ("), and counted by map cell (", False),
                (f"{places.cells}…", True),
                (")", False),
            ]
        )
    if entity.parent is not None:
        notes.append([(f"child of {entity.parent.entity}", False)])
    return [part for n, note in enumerate(notes) for part in ([("; ", False)] if n else []) + note]


def _key_attributes(indexes: tuple[Index, ...]) -> list[str]:
    return list(dict.fromkeys(a for index in indexes for a in index.attributes))


def _index_head(index: Index) -> str:
    partition, sort = (f"`{a}`{_typed(index, a)}" for a in index.attributes)
    return f"{index.name or 'table'}: {partition} / {sort}"


def _typed(index: Index, attribute: str) -> str:
    """A key attribute's type where it is not text: a number key holds a number."""
    kind = index.type_of(attribute)
    return "" if kind == "S" else f" ({kind})"


# ---- Markdown --------------------------------------------------------------------------


def _md_table(head: list[str], rows: list[list[str]]) -> Iterator[str]:
    yield "| " + " | ".join(head) + " |"
    yield "|" + " --- |" * len(head)
    for row in rows:
        yield "| " + " | ".join(row) + " |"


def _md_keys(entity: Entity, index: Index) -> str:
    found = templates_on(entity, index)
    if found is None:
        return ""
    partition, sort, copied = found
    return _md_parts([("copies: ", False)] * copied + key_parts(partition, sort))


def _md_code(text: str) -> str:
    """A code span that holds any text: a fence longer than its longest run of backticks,
    and `|` escaped, which would end a table's cell."""
    fence = "`" * (max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded.replace('|', chr(92) + '|')}{fence}"


def _md_text(text: str) -> str:
    """Plain text, each character Markdown could read as markup escaped (an attribute
    named `__edb_e__`, a key's `<id>`, a `|` that would end the cell)."""
    return _MARKUP.sub(r"\\\g<0>", text.replace("\n", " "))


def _md_parts(parts: list[tuple[str, bool]]) -> str:
    return "".join(_md_code(text) if code else _md_text(text) for text, code in parts)


# ---- HTML ------------------------------------------------------------------------------

# The tables scroll inside their boxes: a wide layout never widens the page.
_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem; color: #1d2330; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.scroll { max-width: 100%; overflow-x: auto; border: 1px solid #d6dae3; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d6dae3; padding: .35rem .6rem; text-align: left;
  vertical-align: top; }
thead th { background: #eef1f7; }
tbody th { background: #f7f8fb; white-space: nowrap; position: sticky; left: 0; }
th.index { text-align: center; border-bottom: 2px solid #8792a8; }
th.key { font-weight: normal; font-family: ui-monospace, monospace; }
td.odd { background: #fbfbf4; }
td.keys { white-space: nowrap; }
code { font-family: ui-monospace, monospace; white-space: nowrap; }
td.requests, td.notes { min-width: 20rem; }
.copies { color: #6a5200; font-size: .85em; }
""".strip()


def _cased(template: KeyTemplate) -> list[tuple[str, bool]]:
    shown = [(written(template), True)]
    return shown + [(f" ({template.casing} case)", False)] * (template.casing != "none")


def _html_parts(parts: list[tuple[str, bool]]) -> str:
    return "".join(f"<code>{escape(text)}</code>" if code else escape(text) for text, code in parts)


def _scrolled(table: str, name: str) -> str:
    return f'<div class="scroll" id="{name}">\n{table}\n</div>'


def _html_keys(model: Model) -> str:
    indexes = model.table_layout.all
    first = "".join(
        f'<th class="index" colspan="2" data-index="{escape(i.name or "")}">'
        f"{escape(i.name or 'table')}</th>"
        for i in indexes
    )
    second = "".join(
        f'<th class="key" scope="col">{escape(a)}{_typed(i, a)}</th>'
        for i in indexes
        for a in i.attributes
    )
    rows = []
    for entity in model.entities:
        cells = []
        for n, index in enumerate(indexes):
            shade = ' class="keys odd"' if n % 2 else ' class="keys"'
            found = templates_on(entity, index)
            if found is None:
                cells.append(f"<td{shade}></td><td{shade}></td>")
                continue
            partition, sort, copied = found
            mark = '<span class="copies">copies</span> ' if copied else ""
            cells.append(
                f"<td{shade}>{mark}{_html_parts(_cased(partition))}</td>"
                f"<td{shade}>{_html_parts(_cased(sort))}</td>"
            )
        rows.append(
            f'<tr data-entity="{escape(entity.name)}"><th scope="row">{escape(entity.name)}</th>'
            f"{''.join(cells)}<td><code>{escape(_discriminator(entity))}</code></td>"
            f'<td class="notes">{_html_parts(_notes(entity))}</td></tr>'
        )
    return (
        '<table class="chart">\n<thead>\n'
        f'<tr><th rowspan="2" scope="col">Entity</th>{first}'
        '<th rowspan="2" scope="col">Discriminator</th><th rowspan="2" scope="col">Notes</th>'
        f"</tr>\n<tr>{second}</tr>\n</thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>"
    )


def _html_items(model: Model) -> str:
    attributes = _key_attributes(model.table_layout.all)
    head = "".join(f'<th class="key" scope="col">{escape(a)}</th>' for a in attributes)
    rows = []
    for entity in model.entities:
        item = example_item(model, entity)
        keys = "".join(f"<td><code>{escape(str(item.get(a, '')))}</code></td>" for a in attributes)
        others = "<br>".join(
            f"<code>{escape(k)}</code>: {escape(_shown(v))}"
            for k, v in item.items()
            if k not in attributes
        )
        rows.append(
            f'<tr data-entity="{escape(entity.name)}"><th scope="row">{escape(entity.name)}</th>'
            f"{keys}<td>{others}</td></tr>"
        )
    return (
        f'<table class="items">\n<thead>\n<tr><th scope="col">Entity</th>{head}'
        '<th scope="col">Attributes</th></tr>\n</thead>\n<tbody>\n'
        + "\n".join(rows)
        + "\n</tbody>\n</table>"
    )


def _html_patterns(model: Model) -> str:
    rows = [
        f'<tr><th scope="row"><code>{escape(pattern_field(model, p))}</code></th>'
        f"<td>{escape(p.entity.name)}</td>"
        f'<td class="requests">{escape(pattern_requests(model, p))}</td></tr>'
        for p in model.patterns
    ]
    return (
        '<table class="patterns">\n<thead>\n<tr><th scope="col">Field</th>'
        '<th scope="col">Entity</th><th scope="col">Requests; worst case</th></tr>\n'
        "</thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>"
    )
