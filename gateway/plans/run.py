"""A plan run for one request: each root field's rule and read, then its answer written
straight from the records read (no typed objects, no executor, no cursor no field selected).
Anything unusual raises `GiveWay`, or the error itself, and the executor answers instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import Any

from graphql.execution.values import VariableValues, get_argument_values

from data.collections import PageRead, Prefetched
from data.entities import Record
from gateway.plans.compiler import Plan
from gateway.plans.shapes import (
    Arguments,
    Connection,
    Entity,
    GiveWay,
    Leaf,
    Objects,
    Root,
    Typename,
)
from resolvers import lookahead
from resolvers.context import Context
from resolvers.planned import CountsRead, ItemRead, SearchRead
from resolvers.relay import NOT_GIVEN, PageArguments, given
from store.pagination import Page, PageArgs

# GraphQL's Int: 32 bits, signed.
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


async def run(plan: Plan, context: Context, variables: VariableValues | None) -> dict[str, Any]:
    """The `data` of the answer."""
    runner = _Run(context, variables)
    roots = [runner.root(root) for root in plan.roots if isinstance(root, Root)]
    answers = iter(await _all(roots))
    return {
        root.key: root.name if isinstance(root, Typename) else next(answers) for root in plan.roots
    }


async def _all(reads: list[Coroutine[Any, Any, Any]]) -> list[Any]:
    """Each read's answer, read at once; on a failure the others are stopped before it is
    raised, so that nothing read after it is counted against the executor's answer."""
    if len(reads) == 1:
        return [await reads[0]]
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(read) for read in reads]
    return [task.result() for task in tasks]


class _Run:
    def __init__(self, context: Context, variables: VariableValues | None) -> None:
        self.context = context
        self.variables = variables

    def raw(self, arguments: Arguments) -> Mapping[str, Any]:
        if arguments.fixed_raw is not None:
            return arguments.fixed_raw
        return get_argument_values(arguments.field, arguments.node, self.variables)

    def python(self, arguments: Arguments) -> dict[str, Any]:
        if arguments.fixed is not None:
            return dict(arguments.fixed)
        return arguments.convert(self.raw(arguments))

    async def root(self, root: Root) -> Any:
        kwargs = self.python(root.arguments)
        caller = self.context.caller
        if root.rule is not None and not caller.open:
            root.rule.check(caller, kwargs, root.name)
        read = root.read
        if isinstance(read, ItemRead):
            assert root.entity is not None
            reads = self.child_reads(root.entity, read.builders(self.context, kwargs))
            found = await read.read(self.context, kwargs, reads)
            if found is None:
                return None
            return await self.entity(root.entity, *found)
        if isinstance(read, SearchRead):
            records, truncated = await read.read(self.context, kwargs)
            source = {"truncated": truncated}
            answer = _leaves(root.leaves, source)
            for key in root.found:
                assert root.entity is not None
                answer[key] = [self.plain_entity(root.entity, record) for record in records]
            return _ordered(root, answer)
        assert isinstance(read, CountsRead)
        precision, counts = await read.read(self.context, kwargs, root.key)
        answer = _leaves(root.leaves, {"precision": precision})
        if root.cells is not None:
            cells = [{"geohash": geohash, "count": count} for geohash, count in counts]
            answer[root.cells.key] = _objects(root.cells, cells)
        return _ordered(root, answer)

    def child_reads(self, entity: Entity, builders: Mapping[str, Any]) -> dict[str, PageRead[Any]]:
        """The pages read with the item, as the executor's look-ahead picks them."""
        lists = [field for field in entity.fields if isinstance(field, Connection)]
        fields = {field.arguments.node.name.value: field.arguments.field for field in lists}
        nodes = [field.arguments.node for field in lists]
        return lookahead.read_ahead(fields, nodes, self.variables, builders)

    async def entity(self, shape: Entity, record: Record, prefetched: Prefetched) -> Any:
        if not shape.lists:
            return self.plain_entity(shape, record)
        answer: dict[str, Any] = {}
        pending: dict[str, Any] = {}
        for field in shape.fields:
            if isinstance(field, Connection):
                pending[field.key] = self.connection(field, record, prefetched)
            else:
                answer[field.key] = _value(field, record)
        pages = await _all(list(pending.values()))
        answer.update(zip(pending, pages, strict=True))
        return {field.key: answer[field.key] for field in shape.fields}

    def plain_entity(self, shape: Entity, record: Record) -> dict[str, Any]:
        return {field.key: _value(field, record) for field in shape.fields}

    async def connection(self, shape: Connection, record: Record, prefetched: Prefetched) -> Any:
        kwargs = self.python(shape.arguments)
        page_arguments = {name: given(kwargs.pop(name, NOT_GIVEN)) for name in PageArguments.NAMES}
        page_args = PageArgs.from_arguments(page_arguments)
        found: Page[Record] = await shape.read.read(
            self.context, kwargs, page_args, record, prefetched, shape.key
        )
        check = shape.read.check
        for edge in found.edges:
            check(self.context, edge.item, record)
        answer: dict[str, Any] = {key: name for key, name in shape.typename}
        if shape.edges is not None:
            edges = shape.edges
            node = shape.node
            nodes: list[Any] = []
            if node is not None and edges.node:
                if node.lists:
                    nodes = await _all([self.entity(node, e.item, {}) for e in found.edges])
                else:
                    nodes = [self.plain_entity(node, e.item) for e in found.edges]
            written = []
            for index, edge in enumerate(found.edges):
                one: dict[str, Any] = {key: name for key, name in edges.typename}
                for key in edges.cursor:
                    one[key] = edge.cursor
                for key in edges.node:
                    one[key] = nodes[index]
                written.append(one)
            answer[edges.key] = written
        if shape.page_info is not None:
            answer[shape.page_info.key] = await _page_info(shape.page_info.fields, found)
        return answer


async def _page_info(fields: tuple[tuple[str, str], ...], page: Page[Record]) -> dict[str, Any]:
    answer: dict[str, Any] = {}
    for key, name in fields:
        if name == "hasNextPage":
            answer[key] = await page.has_next_page()
        elif name == "hasPreviousPage":
            answer[key] = await page.has_previous_page()
        elif name == "startCursor":
            answer[key] = page.start_cursor
        elif name == "endCursor":
            answer[key] = page.end_cursor
        else:
            answer[key] = "PageInfo"
    return answer


def _value(field: Any, source: Mapping[str, Any]) -> Any:
    if isinstance(field, Leaf):
        return _leaf(field, source)
    if isinstance(field, Typename):
        return field.name
    assert isinstance(field, Objects)
    return _objects(field, source[field.name])


def _leaf(field: Leaf, source: Mapping[str, Any]) -> Any:
    value = source[field.name]
    if value is None:
        if field.nullable:
            return None
        raise GiveWay(f"`{field.key}` is null")
    if type(value) is field.kept and (field.kept is not int or _within_int(value)):
        return value
    coerced = field.coerce(value)
    if coerced is None:
        raise GiveWay(f"`{field.key}` has no value of its type")
    return coerced


def _within_int(value: Any) -> bool:
    return bool(_INT_MIN <= value <= _INT_MAX)


def _objects(field: Objects, values: Any) -> Any:
    if values is None:
        if field.nullable:
            return None
        raise GiveWay(f"`{field.key}` is null")
    # Written field by field here, a leaf already of its scalar's type without a call: a
    # heatmap's cells are hundreds a request.
    rows = []
    for value in values:
        row: dict[str, Any] = {}
        for each in field.fields:
            if isinstance(each, Typename):
                row[each.key] = each.name
                continue
            read = value[each.name]
            kept = each.kept
            if read is not None and type(read) is kept and (kept is not int or _within_int(read)):
                row[each.key] = read
            else:
                row[each.key] = _leaf(each, value)
        rows.append(row)
    return rows


def _leaves(fields: tuple[Leaf | Typename, ...], source: Mapping[str, Any]) -> dict[str, Any]:
    return {f.key: f.name if isinstance(f, Typename) else _leaf(f, source) for f in fields}


def _ordered(root: Root, answer: Mapping[str, Any]) -> dict[str, Any]:
    """The answer's keys in the order the document selects them."""
    return {key: answer[key] for key in root.order}
