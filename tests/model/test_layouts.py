"""What a model of a table it did not make may declare, and what it is refused (pure): a
layout every entity and list agrees with, written templates that read back, discriminators
that name no attribute of the entity, and lists that keep their own entity's items where
another's may share their range."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

import model as m
from model import ModelError

PK_SK = m.Index(None, "pk", "sk")
GSI = m.Index("gsi1", "gsi1pk", "gsi1sk")
NUMBERED = m.Index(None, "pk", "sk", types=("S", "N"))
SLIM = m.Index("gsi2", "gsi2pk", "gsi2sk", "INCLUDE", included=("title",))


def thing(name: str = "Thing", **more: object) -> m.Entity:
    options: dict[str, object] = {
        "key": m.same(m.template(f"{name.upper()}#${{id}}")),
        "table": PK_SK,
    }
    options.update(more)
    return m.Entity(name, {"id": m.Identifier(), "title": m.Text()}, **options)  # type: ignore[arg-type]


def child(sort: str, index: m.Index = GSI) -> m.Entity:
    return m.Entity(
        "Part",
        {"thingId": m.Identifier(shown=False), "id": m.Identifier(), "title": m.Text()},
        key=m.same(m.template("PART#${id}")),
        indexes={index: m.Keys(m.template("THING#${thingId}"), m.template(sort))},
        parent=m.Parent("Thing", {"thingId": "id"}),
        table=PK_SK,
    )


@pytest.mark.parametrize(
    ("declare", "said"),
    [
        (lambda: m.Model((thing(),), (), m.Layout(m.TABLE, (GSI,))), "the table (pk, sk) is used"),
        (lambda: m.Model((thing(), child("PART#${id}")), (), m.Layout(PK_SK)), "gsi1 (gsi1pk"),
        (
            lambda: m.Model(
                (thing(), part := child("PART#${id}", SLIM)),
                (m.ListOf(part, SLIM, "parts"),),
                m.Layout(PK_SK, (SLIM,)),
            ),
            "projects INCLUDE without ['id', 'thingId', 'type']",
        ),
        (lambda: thing(key=m.same(m.template("X#${id}${title}"))), "holds no delimiter"),
        (lambda: thing(key=m.same(m.template("MIGRATION#${id}"))), "the engine's own"),
        (lambda: thing(discriminator=m.Discriminator("title")), "its discriminator's"),
        (
            lambda: m.Entity(
                "Thing",
                {"id": m.Identifier(), "title": m.Text(), "note": m.Text(stored="title")},
                key=m.same(m.template("THING#${id}")),
                table=PK_SK,
            ),
            "stored as 'title', which is no name",
        ),
        (
            lambda: m.Entity(
                "Thing",
                {"id": m.Identifier(), "title": m.Text(stored="a-b")},
                key=m.same(m.template("THING#${id}")),
                table=PK_SK,
            ),
            "stored as 'a-b'",
        ),
        (
            lambda: m.Entity(
                "Thing",
                {"id": m.Identifier(), "by": m.Author(verb="made", role="maker", stored="who")},
                key=m.same(m.template("THING#${id}")),
                table=PK_SK,
            ),
            "an author, do not take",
        ),
        (
            lambda: m.Model((thing(table=NUMBERED),), (), m.Layout(NUMBERED)),
            "the table's keys are typed S and N",
        ),
        (
            lambda: m.Model(
                (
                    thing(),
                    child("PART#${id}", m.Index("gsi1", "gsi1pk", "gsi1sk", types=("S", "N"))),
                ),
                (),
                m.Layout(PK_SK, (m.Index("gsi1", "gsi1pk", "gsi1sk", types=("S", "N")),)),
            ),
            "'gsi1sk' is a number (N), which holds one required Number or epoch Timestamp",
        ),
    ],
)
def test_a_declaration_the_table_could_not_serve_is_refused(
    declare: Callable[[], object], said: str
) -> None:
    with pytest.raises(ModelError, match=re.escape(said)):
        if isinstance(made := declare(), m.Entity):
            m.Model((made,), (), m.Layout(PK_SK))


def test_a_list_keeps_its_own_items_only_where_another_entity_s_may_share_its_range() -> None:
    apart = child("PART#${id}")
    together = child("${id}")
    layout = m.Layout(PK_SK, (GSI,))
    sharing = thing(indexes={GSI: m.Keys(m.template("THING#${id}"), m.template("META#${id}"))})
    kept_apart = m.ListOf(apart, GSI, "parts")
    m.Model((sharing, apart), (kept_apart,), layout)
    assert kept_apart.mixed is False
    mixed = m.ListOf(together, GSI, "parts")
    m.Model((sharing, together), (mixed,), layout)
    assert mixed.mixed is True
