"""Every field that reads DynamoDB, or answers with a list of objects, declares its cost.

A new access pattern whose field forgets its model would be bounded as free: this walks
the schema and names any such field.
"""

from __future__ import annotations

from graphql import (
    GraphQLObjectType,
    get_named_type,
    get_nullable_type,
    is_list_type,
    is_object_type,
)

from gateway.demand.bound import model_of
from gateway.schema.build import build_schema

SCHEMA = build_schema()._schema


def fields_that_need_a_model() -> list[str]:
    needed = []
    for type_name, kind in SCHEMA.type_map.items():
        if type_name.startswith("__") or not isinstance(kind, GraphQLObjectType):
            continue
        for name, field in kind.fields.items():
            definition = field.extensions.get("strawberry-definition")
            resolves = definition is not None and definition.base_resolver is not None
            listed = is_list_type(get_nullable_type(field.type)) and is_object_type(
                get_named_type(field.type)
            )
            if resolves or listed:
                needed.append(f"{type_name}.{name}")
    return needed


def test_every_resolver_and_object_list_declares_its_cost() -> None:
    needed = fields_that_need_a_model()
    # The walk itself finds what it should: root fields, nested reads, lists, flags.
    for known in ("Query.customer", "Customer.orders", "Order.items", "PageInfo.hasNextPage"):
        assert known in needed
    assert "Mutation.openIssue" in needed
    missing = []
    for coordinate in needed:
        type_name, name = coordinate.split(".")
        kind = SCHEMA.type_map[type_name]
        assert isinstance(kind, GraphQLObjectType)
        if model_of(kind.fields[name]) is None:
            missing.append(coordinate)
    assert missing == [], f"declare a cost model (resolvers/field_costs.py) for {missing}"
