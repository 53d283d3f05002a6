"""`dynagate model chart` (`gateway/cli/model_chart.py`): the single-table chart of the
demo, the booking example and the adopted tables' models, in Markdown and HTML: every key
template, discriminator and stored name in it, example items whose keys parse back through
their entity's templates, markup escaped, the command's two formats, and the docs' example
kept true."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from demo.model import MODEL as DEMO
from examples.booking.model import MODEL as BOOKING
from gateway.cli.main import main
from gateway.cli.model_chart import html_page, markdown, templates_on, written
from gateway.cli.model_examples import example_item, example_values
from gateway.served_model import declared
from keys.table import TABLE, Layout
from model import Entity, Identifier, Lookup, Model, Text, same, template
from tests.docs.test_model_guide import GUIDE, model_files
from tests.gateway.test_model_check import colliding_model
from tests.model.electrodb_ticketing import MODEL as ELECTRODB
from tests.model.number_keys import MODEL as NUMBER_KEYS
from tests.model.onetable_accounts import MODEL as ONETABLE
from tests.model.stored_kinds import MODEL as STORED_KINDS

MODELS = {
    "demo": DEMO,
    "booking": BOOKING,
    "electrodb": ELECTRODB,
    "onetable": ONETABLE,
    "stored kinds": STORED_KINDS,
    "number keys": NUMBER_KEYS,
}
# A cell boundary of a Markdown table: a `|` not escaped.
CELL = re.compile(r"(?<!\\)\|")
DOCS_CHART = re.compile(r"<!-- chart: clinic.py step 3 -->\n```markdown\n(?P<body>.*?)\n```", re.S)


@pytest.fixture(autouse=True)
def restored_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DYNAGATE_MODEL", "demo.model")


class Cells(HTMLParser):
    """Each table row of a page, as the text of its cells."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.tables: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append(dict(attrs).get("class") or "")
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def cells_of(page: str) -> Cells:
    parsed = Cells()
    parsed.feed(page)
    parsed.close()
    return parsed


def shown_keys(entity: Entity, model: Model) -> list[str]:
    """Each key template of the entity as the chart writes it."""
    found = [templates_on(entity, index) for index in model.table_layout.all]
    return [written(t) for f in found if f is not None for t in f[:2]]


@pytest.mark.parametrize("name", MODELS)
def test_every_key_template_and_discriminator_is_charted(name: str) -> None:
    model = MODELS[name]
    text, page = markdown(model, name), html_page(model, name)
    rows = cells_of(page).rows
    for entity in model.entities:
        for key in shown_keys(entity, model):
            assert f"`{key}`" in text, (entity.name, key)
            assert f"<code>{key}</code>" in page, (entity.name, key)
        for attribute, value in entity.kind.items():
            assert f"{attribute} = {value}" in text
        charted = next(r for r in rows if r[0] == entity.name)
        assert ", ".join(f"{a} = {v}" for a, v in entity.kind.items()) in charted
    # A column per index, each headed with its key attributes.
    for index in model.table_layout.all:
        head = f"{index.name or 'table'}: `{index.partition_key}` / `{index.sort_key}`"
        assert head in text.splitlines()[4]
        assert f'data-index="{index.name or ""}"' in page


def test_the_demos_chart_holds_its_keys_where_the_indexes_have_them() -> None:
    text = markdown(DEMO, "demo.model")
    order = next(line for line in text.splitlines() if line.startswith("| Order |"))
    cells = [c.strip() for c in CELL.split(order)[1:-1]]
    assert cells[:5] == [
        "Order",
        "`ORDER#${id}` / `ORDER#${id}`",
        "`CUSTOMER#${customerId}` / `ORDER#${placedAt}#${id}`",
        "`CUSTOMER#${customerId}` / `ORDER#${status}#${placedAt}#${id}`",
        "`ORDERS#${status}` / `ORDER#${placedAt}#${id}`",
    ]
    assert cells[5] == "`type = ORDER`"
    assert "on GSI3 only while `status = PLACED`" in cells[6]
    comment = next(line for line in text.splitlines() if line.startswith("| Comment |"))
    assert "copies: `PRODUCT#${productId}#${language}#${rating}`" in comment
    assert "32 copies of each item on GSI1" in comment


def test_electrodbs_keys_are_charted_in_lower_case_with_its_stored_names() -> None:
    text = markdown(ELECTRODB, "electrodb")
    assert (
        "`$ticketing#venueid_${venueId}` / `$event_1#day_${day}#eventid_${eventId}` (lower case)"
    ) in text
    assert "`__edb_e__ = event, __edb_v__ = 1`" in text
    event = next(e for e in ELECTRODB.entities if e.name == "Event")
    item = example_item(ELECTRODB, event)
    assert item["eventTitle"] == "Event title" and "title" not in item
    assert "`eventTitle`: Event title" in text
    assert "<code>eventTitle</code>: Event title" in html_page(ELECTRODB, "electrodb")


def test_onetables_keys_and_type_are_charted() -> None:
    text = markdown(ONETABLE, "onetable")
    user = next(line for line in text.splitlines() if line.startswith("| User |"))
    assert "`account#${accountId}` / `user#${email}`" in user
    assert "`user#${email}` / `user#`" in user and "`_type = User`" in user


@pytest.mark.parametrize("name", MODELS)
def test_example_items_keys_parse_back_through_their_templates(name: str) -> None:
    model = MODELS[name]
    for entity in model.entities:
        values, item = example_values(model, entity), example_item(model, entity)
        table = entity.table
        assert entity.owns(item[table.partition_key], item[table.sort_key]), entity.name
        assert entity.is_kind_of(item)
        # On every index it has keys on: sparse ones' predicates hold in the example.
        assert set(entity.templates) <= set(item), entity.name
        for attribute, key in entity.templates.items():
            expected = {s.name: values[s.name] for s in key.segments}
            assert key.parse(item[attribute]) == expected, (entity.name, attribute)
        for attribute_name in entity.attributes:
            assert entity.stored_name(attribute_name) in item
        parent = model.parent_of(entity)
        if parent is not None and entity.parent is not None:
            theirs = example_values(model, parent)
            for mine, other in entity.parent.attributes.items():
                assert values[mine] == theirs[other]


@pytest.mark.parametrize("name", MODELS)
def test_each_table_row_has_a_cell_per_column(name: str) -> None:
    model = MODELS[name]
    text = markdown(model, name)
    tables = [block for block in text.split("\n\n") if block.startswith("| ")]
    assert len(tables) == 3
    for block in tables:
        widths = {len(CELL.split(line)) for line in block.splitlines()}
        assert len(widths) == 1, block
    keys, items, patterns = (block.splitlines()[2:] for block in tables)
    assert len(keys) == len(items) == len(model.entities)
    assert len(patterns) == len(model.patterns)
    parsed = cells_of(html_page(model, name))
    assert parsed.tables == ["chart", "items", "patterns"]
    indexes = model.table_layout.all
    chart_rows = parsed.rows[2 : 2 + len(model.entities)]
    assert [len(row) for row in chart_rows] == [1 + 2 * len(indexes) + 2] * len(model.entities)
    typed = [(a, i.type_of(a)) for i in indexes for a in i.attributes]
    assert parsed.rows[1] == [a if t == "S" else f"{a} ({t})" for a, t in typed]


STRANGE = Entity(
    "Strange",
    {"id": Identifier(), "label": Text(stored="a_b")},
    key=same(template("<T&|`>#${id}")),
)
STRANGE_MODEL = Model((STRANGE,), (Lookup(STRANGE, "strange", access="anyone"),), Layout(TABLE))


def test_markup_in_a_templates_text_is_escaped() -> None:
    page = html_page(STRANGE_MODEL, "<model & co>")
    assert "&lt;T&amp;|`&gt;#${id}" in page
    assert "<T&" not in page and "<model" not in page
    assert "&lt;model &amp; co&gt;" in page
    chart = cells_of(page).rows[2]
    assert chart[1:3] == ["<T&|`>#${id}", "<T&|`>#${id}"]
    assert cells_of(page).rows[-1][2].startswith("GetItem <T&|`>#<id>")
    text = markdown(STRANGE_MODEL, "<model & co>")
    # A code span's fence is longer than the backticks it holds; a `|` never ends a cell.
    assert "``<T&\\|`>#${id}`` / ``<T&\\|`>#${id}``" in text
    assert "# \\<model \\& co>: the single-table design" in text
    assert "GetItem \\<T\\&\\|\\`>#\\<id>" in text


def test_the_command_prints_markdown_and_writes_html(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["model", "chart"]) == 0
    assert capsys.readouterr().out == markdown(DEMO, "demo.model")
    assert main(["model", "chart", "--format", "html"]) == 0
    assert capsys.readouterr().out == html_page(DEMO, "demo.model")
    page = tmp_path / "chart.html"
    assert main(["model", "chart", "--format", "html", "--output", str(page)]) == 0
    assert capsys.readouterr().out == ""
    assert page.read_text(encoding="utf-8") == html_page(DEMO, "demo.model")


def test_the_command_charts_an_adopted_model_by_its_path(
    capsys: pytest.CaptureFixture[str],
) -> None:
    adopted = "tests/model/onetable_accounts.py"
    assert main(["model", "chart", "--model", adopted]) == 0
    assert capsys.readouterr().out == markdown(declared(adopted), adopted)


def test_the_command_refuses_a_model_the_engine_cannot_serve(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["model", "chart", "--model", colliding_model(tmp_path)]) == 2
    assert "Beta and Alpha keys on the table can collide" in capsys.readouterr().err


def test_the_command_refuses_a_model_whose_schema_fails_as_serve_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The declarations build, but not the schema `serve` makes of them (its hook fails)."""
    model = tmp_path / "hooked.py"
    model.write_text(
        "from demo.model import MODEL\n\n\ndef roots(derived):\n"
        "    raise RuntimeError('no roots here')\n"
    )
    assert main(["model", "chart", "--model", str(model)]) == 2
    assert "RuntimeError: no roots here" in capsys.readouterr().err


def test_the_guides_chart_is_the_commands_output(tmp_path: Path) -> None:
    shown = DOCS_CHART.search(GUIDE.read_text(encoding="utf-8"))
    assert shown is not None, "docs/model.md lost its chart of clinic.py at step 3"
    clinic = tmp_path / "clinic.py"
    clinic.write_text(model_files()["step 3"], encoding="utf-8")
    assert markdown(declared(str(clinic)), "clinic.py") == shown["body"] + "\n"


def test_example_items_hold_values_as_the_table_stores_them() -> None:
    (device,) = STORED_KINDS.entities
    item = example_item(STORED_KINDS, device)
    assert item["_version"] == 1 and item["active"] is True
    assert item["tags"] == ["tags-a", "tags-b"]  # a set, shown in order
    assert isinstance(item["seen_at"], int) and isinstance(item["madeAt"], int)
    (score,) = NUMBER_KEYS.entities
    keyed = example_item(NUMBER_KEYS, score)
    assert keyed["gsi1sk"] == keyed["points"] and isinstance(keyed["gsi1sk"], int)
    assert keyed["lsi1sk"] == keyed["playedAt"]
    charted = markdown(NUMBER_KEYS, "number keys")
    assert "gsi1: `gsi1pk` / `gsi1sk` (N)" in charted and "/ `${points}` |" in charted
