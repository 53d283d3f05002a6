"""`schema.graphql` is the exported schema, byte for byte."""

from __future__ import annotations

from pathlib import Path

from gateway.schema import schema_sdl

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schema.graphql"


def test_schema_file_matches_the_code() -> None:
    assert SCHEMA_FILE.read_text() == schema_sdl(), (
        "schema.graphql differs from the code: run `make schema` and review the diff"
    )


def test_contract_names_are_exported() -> None:
    sdl = schema_sdl()
    for fragment in [
        "scalar DateTime",
        "enum SortDirection",
        "type PageInfo",
        "input DateTimeRange",
        "enum OrderStatus",
        "type OrderConnection",
        "type OrderEdge",
        "createCustomer(input: CreateCustomerInput!): Customer!",
        "placeOrder(input: PlaceOrderInput!): Order!",
        "setOrderStatus(id: ID!, status: OrderStatus!): Order!",
        "openOrders(",
    ]:
        assert fragment in sdl, fragment
