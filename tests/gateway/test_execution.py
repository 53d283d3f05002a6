"""The short path for plain fields answers exactly what graphql-core's own path answers,
errors included, and skips the field machinery for plain leaves (no I/O here)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any, ClassVar

import graphql
import pytest
import strawberry
from graphql.execution.collect_fields import FieldDetails
from graphql.execution.middleware import MiddlewareManager
from strawberry.extensions import FieldExtension, SchemaExtension
from strawberry.permission import BasePermission
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from gateway.schema.execution import OVERRIDDEN, PlainFieldsExecutionContext


@strawberry.enum
class Colour(Enum):
    RED = "red"
    BLUE = "blue"


@strawberry.type
class Thing:
    name: str
    count: int
    colour: Colour
    at: datetime
    note: str | None = None
    tags: list[str] = strawberry.field(default_factory=list)

    @strawberry.field
    def shout(self, times: int = 1) -> str:
        return self.name.upper() * times


@dataclass
class Loose:
    """A source that breaks the schema's promises, as a bug would."""

    name: Any
    count: Any
    colour: Any = Colour.RED
    at: Any = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    note: Any = None
    tags: Any = field(default_factory=list)


GOOD = Thing(name="a", count=1, colour=Colour.BLUE, at=datetime(2024, 5, 6, tzinfo=UTC))
SOURCES: list[Any] = [
    GOOD,
    Thing(name="b", count=-7, colour=Colour.RED, at=GOOD.at, note="n", tags=["x", "y"]),
    Loose(name=None, count=1),  # null in a non-null field
    Loose(name="c", count="three"),  # a value Int refuses
    Loose(name="d", count=2**40),  # out of Int's range
    Loose(name="e", count=1, colour="green"),  # not an enum value
    Loose(name="f", count=1.5),  # a float where an int belongs
]


def schema(
    context: type[StrawberryGraphQLCoreExecutionContext],
    extensions: list[type[SchemaExtension]] | None = None,
) -> strawberry.Schema:
    @strawberry.type
    class Query:
        @strawberry.field
        def things(self) -> list[Thing | None]:
            return SOURCES

        @strawberry.field
        def first(self) -> Thing:
            return SOURCES[0]

    return strawberry.Schema(
        query=Query, execution_context_class=context, extensions=extensions or []
    )


DOCUMENTS = [
    "{ things { name count colour at note tags } }",
    "{ things { n: name name count shout(times: 2) } }",
    "{ things { ... on Thing { count note } colour } }",
    "{ things { name @skip(if: true) count @include(if: false) at } }",
    "{ first { name count colour at note tags shout } }",
    "{ things { __typename name t: __typename } first { __typename count } }",
]


def answer(
    context: type[StrawberryGraphQLCoreExecutionContext], document: str, query: type | None = None
) -> Any:
    """The data, and each error's message and path (sorted), of `document` run on `query`'s
    schema (`schema`'s when None) with `context`."""
    built = (
        schema(context)
        if query is None
        else strawberry.Schema(query=query, execution_context_class=context)
    )
    result = built.execute_sync(document)
    errors = sorted((e.message, tuple(e.path or ())) for e in result.errors or [])
    return result.data, errors


def test_the_loose_sources_do_raise_errors() -> None:
    data, errors = answer(PlainFieldsExecutionContext, DOCUMENTS[0])
    assert sorted(path[1] for _, path in errors) == [2, 3, 4, 5, 6]
    assert data["things"][0] == {
        "name": "a",
        "count": 1,
        "colour": "BLUE",
        "at": "2024-05-06T00:00:00+00:00",
        "note": None,
        "tags": [],
    }
    assert data["things"][2:] == [None] * 5


def fields_executed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fields that go graphql-core's way from now on, in order."""
    executed: list[str] = []
    original = StrawberryGraphQLCoreExecutionContext.execute_field

    def counted(self: Any, parent_type: Any, source: Any, details: Any, *rest: Any) -> Any:
        executed.append(details[0].node.name.value)
        return original(self, parent_type, source, details, *rest)

    monkeypatch.setattr(StrawberryGraphQLCoreExecutionContext, "execute_field", counted)
    return executed


def test_plain_leaves_skip_the_field_machinery(monkeypatch: pytest.MonkeyPatch) -> None:
    executed = fields_executed(monkeypatch)
    assert answer(PlainFieldsExecutionContext, DOCUMENTS[4])[1] == []
    # `first` has a resolver, `tags` is a list and `shout` has one: the rest are plain.
    assert executed == ["first", "tags", "shout"]
    executed.clear()
    assert answer(PlainFieldsExecutionContext, "{ first { __typename name } }")[0] == {
        "first": {"__typename": "Thing", "name": "a"}
    }
    assert executed == ["first"]


@strawberry.type(name="Item")
class NullableItem:
    name: str | None


@strawberry.type(name="Item")
class StrictItem:
    name: str


@strawberry.type(name="Query")
class NullableQuery:
    @strawberry.field
    def item(self) -> NullableItem | None:
        return NullableItem(name=None)


@strawberry.type(name="Query")
class StrictQuery:
    @strawberry.field
    def item(self) -> StrictItem | None:
        return StrictItem(name=None)  # type: ignore[arg-type]


def test_schemas_with_the_same_type_names_keep_their_own_fields() -> None:
    """A type of one schema never answers for its namesake in another."""
    context = PlainFieldsExecutionContext
    first = strawberry.Schema(query=NullableQuery, execution_context_class=context)
    result = first.execute_sync("{ item { name } }")
    assert (result.data, result.errors) == ({"item": {"name": None}}, None)
    second = strawberry.Schema(query=StrictQuery, execution_context_class=context)
    result = second.execute_sync("{ item { name } }")
    assert result.data == {"item": None}
    assert [e.message for e in result.errors or []] == [
        "Cannot return null for non-nullable field Item.name."
    ]


@strawberry.type
class Entry:
    key: str
    size: int


@strawberry.type(name="Query")
class EntriesQuery:
    @strawberry.field
    def entries(self) -> list[Entry]:
        return [{"key": "a", "size": 1}, {"key": "b", "size": 2}]  # type: ignore[list-item]


def test_a_configured_default_resolver_reads_the_plain_fields() -> None:
    config = StrawberryConfig(default_resolver=lambda source, name: source[name])
    results = [
        strawberry.Schema(
            query=EntriesQuery, config=config, execution_context_class=context
        ).execute_sync("{ entries { key size } }")
        for context in (PlainFieldsExecutionContext, StrawberryGraphQLCoreExecutionContext)
    ]
    assert (
        results[0].data
        == results[1].data
        == {"entries": [{"key": "a", "size": 1}, {"key": "b", "size": 2}]}
    )
    assert results[0].errors is None


class Recorder(SchemaExtension):
    """Records every field it resolves, as a tracing or masking extension would see them."""

    seen: ClassVar[list[str]] = []

    def resolve(self, _next: Any, root: Any, info: Any, *args: Any, **kwargs: Any) -> Any:
        Recorder.seen.append(f"{info.parent_type.name}.{info.field_name}")
        return _next(root, info, *args, **kwargs)


def test_an_extension_that_resolves_sees_every_field() -> None:
    Recorder.seen = []
    answers = [
        schema(context, [Recorder]).execute_sync("{ first { name count colour shout } }")
        for context in (PlainFieldsExecutionContext, StrawberryGraphQLCoreExecutionContext)
    ]
    assert answers[0].data == answers[1].data
    fields = ["Query.first", "Thing.name", "Thing.count", "Thing.colour", "Thing.shout"]
    assert Recorder.seen == fields + fields


class Shouted(FieldExtension):
    def resolve(self, next_: Any, source: Any, info: Any, **kwargs: Any) -> Any:
        return str(next_(source, info, **kwargs)).upper()


class Nobody(BasePermission):
    message = "nobody may read this"

    def has_permission(self, source: Any, info: Any, **kwargs: Any) -> bool:
        return False


@strawberry.type
class Guarded:
    name: str = strawberry.field(extensions=[Shouted()])
    secret: str | None = strawberry.field(permission_classes=[Nobody])


@strawberry.type(name="Query")
class GuardedQuery:
    @strawberry.field
    def guarded(self) -> Guarded:
        return Guarded(name="quiet", secret="s")


def test_fields_with_extensions_or_permissions_go_the_usual_way() -> None:
    result = strawberry.Schema(
        query=GuardedQuery, execution_context_class=PlainFieldsExecutionContext
    ).execute_sync("{ guarded { name secret } }")
    assert result.data == {"guarded": {"name": "QUIET", "secret": None}}
    assert [e.message for e in result.errors or []] == ["nobody may read this"]


def test_graphql_core_still_has_what_the_short_path_relies_on() -> None:
    """The executor's private methods keep the parameters `OVERRIDDEN` names (its own
    `execute_fields` calling `execute_field` is checked by the tests above), field details
    keep their `node`, and the middleware stays where the short path looks for it."""
    changed = []
    for name, parameters in OVERRIDDEN.items():
        method = getattr(StrawberryGraphQLCoreExecutionContext, name, None)
        found = None if method is None else tuple(inspect.signature(method).parameters)[1:]
        if found != parameters:
            changed.append(f"{name}{found or '() is gone'}, not {name}{parameters}")
    if "node" not in FieldDetails._fields:
        changed.append(f"field details hold {FieldDetails._fields}, no `node`")
    if "middleware_manager" not in inspect.signature(graphql.Executor).parameters:
        changed.append("the executor takes no `middleware_manager`")
    if "middlewares" not in MiddlewareManager.__slots__:
        changed.append("MiddlewareManager has no `middlewares`")
    assert not changed, (
        f"graphql-core {graphql.__version__} changed what gateway/schema/execution.py relies on; "
        "adapt it (and OVERRIDDEN) or keep graphql-core to the version pinned in "
        "constraints.txt:\n" + "\n".join(changed)
    )


@strawberry.type
class ThingEdge:
    cursor: str
    node: Thing


@strawberry.type
class LooseEdge:
    cursor: str
    node: Thing | None


@strawberry.type
class Shelf:
    label: str
    edges: list[ThingEdge]
    loose: list[LooseEdge | None]
    best: Thing | None
    top: Thing

    @strawberry.field
    def size(self) -> int:
        return len(self.edges)


def _shelf(sources: list[Any]) -> Shelf:
    edges = [ThingEdge(cursor=f"c{n}", node=s) for n, s in enumerate(sources)]
    loose: list[LooseEdge | None] = [LooseEdge(cursor="l", node=s) for s in sources]
    return Shelf(label="s", edges=edges, loose=[*loose, None], best=None, top=sources[0])


@strawberry.type(name="Query")
class ShelfQuery:
    @strawberry.field
    def good(self) -> Shelf:
        return _shelf(SOURCES[:2])

    @strawberry.field
    def mixed(self) -> Shelf | None:
        return _shelf(SOURCES)


SHELF_DOCUMENTS = [
    "{ good { label edges { cursor node { name count colour at note tags } } } }",
    "{ good { size label edges { cursor node { name } } top { name } } }",
    "{ good { edges { node { name } } size best { name } top { ...T } } } fragment T on Thing"
    " { count }",
    "{ mixed { label edges { cursor node { name count colour } } } }",
    "{ mixed { label loose { cursor node { name count } } } }",
    "{ mixed { loose { node { shout } } label } }",
    "{ mixed { edges @skip(if: true) { cursor } loose { c: cursor __typename } } }",
]


def shelf_answer(context: type[StrawberryGraphQLCoreExecutionContext], document: str) -> Any:
    return answer(context, document, ShelfQuery)


@pytest.mark.parametrize(
    ("query", "document"),
    [*((None, d) for d in DOCUMENTS), *((ShelfQuery, d) for d in SHELF_DOCUMENTS)],
)
def test_same_answers_and_errors_as_graphql_core(query: type | None, document: str) -> None:
    """Plain fields, lists of objects and objects of plain fields, with nulls and bad values
    inside."""
    ours = answer(PlainFieldsExecutionContext, document, query)
    assert ours == answer(StrawberryGraphQLCoreExecutionContext, document, query)


def test_the_shelves_hold_what_the_comparison_needs() -> None:
    data, errors = shelf_answer(PlainFieldsExecutionContext, SHELF_DOCUMENTS[4])
    loose = data["mixed"]["loose"]
    # Four bad values null their nullable node (the odd colour is not asked); the last
    # edge is null itself.
    assert loose[-1] is None
    assert [edge["node"] is None for edge in loose[:-1]] == [False] * 2 + [True] * 3 + [
        False,
        True,
    ]
    assert len(errors) == 4
    data, errors = shelf_answer(PlainFieldsExecutionContext, SHELF_DOCUMENTS[3])
    assert data == {"mixed": None}  # a bad node in a non-null list nulls the shelf
    assert errors


def test_plain_objects_skip_the_field_machinery(monkeypatch: pytest.MonkeyPatch) -> None:
    executed = fields_executed(monkeypatch)
    document = "{ good { label edges { cursor node { name count colour at note } } } }"
    assert shelf_answer(PlainFieldsExecutionContext, document)[1] == []
    assert executed == ["good"]
    executed.clear()
    # A list of leaves (`tags`) is not plain: each node goes the usual way.
    assert shelf_answer(PlainFieldsExecutionContext, SHELF_DOCUMENTS[0])[1] == []
    assert executed == ["good", "edges", "node", "tags", "node", "tags"]
    executed.clear()
    # `size` has a resolver: the shelf goes the usual way, its edges answered once, plainly.
    assert shelf_answer(PlainFieldsExecutionContext, SHELF_DOCUMENTS[1])[1] == []
    assert executed == ["good", "size"]
