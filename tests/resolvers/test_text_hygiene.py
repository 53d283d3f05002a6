"""Text is valid Unicode and a DateTime is one ISO-8601 value (docs/design.md#validation).

A lone surrogate or a control character (newline and tab aside, in `body` and
`description`) is `BAD_USER_INPUT` in every free-text field, and nothing is written. The
requests are written with JSON escapes, which is how a lone surrogate travels.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.client import Api, Result, assert_well_formed
from tests.documents import (
    CREATE_CUSTOMER,
    CREATE_ORGANIZATION,
    CREATE_PRODUCT,
    CREATE_QUEUE,
    CREATE_REPO,
    OPEN_TICKET,
    POST_COMMENT,
)
from tests.resolvers.bad_input_helpers import snapshot

Setup = Callable[[Api], Awaitable[dict[str, Any]]]


async def send(api: Api, document: str, **variables: Any) -> Result:
    body = json.dumps({"query": document, "variables": variables})  # ASCII, with escapes
    response = await api.http.post(
        "/graphql", content=body.encode(), headers={"Content-Type": "application/json"}
    )
    result = Result(response.status_code, response.json())
    assert_well_formed(result)
    return result


async def ok(api: Api, document: str, **variables: Any) -> Any:
    return (await send(api, document, **variables)).ok()


async def nothing(api: Api) -> dict[str, Any]:
    return {}


def creating(document: str, **variables: Any) -> Setup:
    """A setup that makes one entity the call under test refers to."""

    async def setup(api: Api) -> dict[str, Any]:
        await ok(api, document, **variables)
        return {}

    return setup


customer = creating(CREATE_CUSTOMER, input={"id": "c1", "name": "C", "email": "c@x.io"})
product = creating(CREATE_PRODUCT, input={"id": "p1", "name": "P"})
repo = creating(CREATE_REPO, input={"owner": "alice", "name": "widgets"})
organization = creating(CREATE_ORGANIZATION, name="acme")
queue = creating(CREATE_QUEUE, input={"id": "q1", "name": "Q"})


async def comment(api: Api) -> dict[str, Any]:
    await product(api)
    new = {"productId": "p1", "language": "en", "rating": 3, "body": "b"}
    posted = await ok(api, POST_COMMENT, input=new)
    return {"id": posted["postComment"]["id"]}


async def ticket(api: Api) -> dict[str, Any]:
    await queue(api)
    opened = await ok(api, OPEN_TICKET, input={"queueId": "q1", "title": "t"})
    return {"id": opened["openTicket"]["id"]}


@dataclass(frozen=True)
class TextField:
    """A call whose `$text` lands in one free-text field, which the answer shows at `path`.

    `NEW` in the document stands for an identifier not used before.
    """

    name: str
    document: str
    path: tuple[str | int, ...]
    setup: Setup = nothing
    multiline: bool = False

    def __str__(self) -> str:
        return self.name

    def call(self, n: int) -> str:
        return self.document.replace("NEW", f"new{n}")

    def read(self, data: Any) -> Any:
        for step in self.path:
            data = data[step]
        return data


FIELDS = [
    TextField(
        "customer name",
        'mutation ($text: String!) { createCustomer(input: {id: "NEW", name: $text,'
        ' email: "c2@x.io"}) { name } }',
        ("createCustomer", "name"),
    ),
    TextField(
        "order item sku",
        'mutation ($text: String!) { placeOrder(input: {customerId: "c1", items: [{sku: $text,'
        " quantity: 1, unitPriceCents: 100}]}) { items { sku } } }",
        ("placeOrder", "items", 0, "sku"),
        customer,
    ),
    TextField(
        "product name",
        'mutation ($text: String!) { createProduct(input: {id: "NEW", name: $text}) { name } }',
        ("createProduct", "name"),
    ),
    TextField(
        "comment body",
        'mutation ($text: String!) { postComment(input: {productId: "p1", language: "en",'
        " rating: 3, body: $text}) { body } }",
        ("postComment", "body"),
        product,
        multiline=True,
    ),
    TextField(
        "edited comment body",
        "mutation ($id: ID!, $text: String!) { editComment(input: {id: $id, body: $text})"
        " { body } }",
        ("editComment", "body"),
        comment,
        multiline=True,
    ),
    TextField(
        "repo description",
        'mutation ($text: String!) { createRepo(input: {owner: "alice", name: "NEW",'
        " description: $text}) { description } }",
        ("createRepo", "description"),
        multiline=True,
    ),
    TextField(
        "issue title",
        'mutation ($text: String!) { openIssue(input: {owner: "alice", name: "widgets",'
        " title: $text}) { title } }",
        ("openIssue", "title"),
        repo,
    ),
    TextField(
        "member name",
        'mutation ($text: String!) { addMember(input: {organization: "acme", username: "NEW",'
        " name: $text, role: MEMBER}) { name } }",
        ("addMember", "name"),
        organization,
    ),
    TextField(
        "queue name",
        'mutation ($text: String!) { createQueue(input: {id: "NEW", name: $text}) { name } }',
        ("createQueue", "name"),
    ),
    TextField(
        "ticket title",
        'mutation ($text: String!) { openTicket(input: {queueId: "q1", title: $text}) { title } }',
        ("openTicket", "title"),
        queue,
    ),
    TextField(
        "updated ticket title",
        "mutation ($id: ID!, $text: String!) { updateTicket(input: {id: $id, title: $text})"
        " { title } }",
        ("updateTicket", "title"),
        ticket,
    ),
    TextField(
        "marker label",
        "mutation ($text: String!) { addMarker(input: {lat: 1.5, lon: 2.5, label: $text})"
        " { label } }",
        ("addMarker", "label"),
    ),
]

# Each beside ordinary text, so that only the one character is wrong.
NOT_TEXT = {
    "lone high surrogate": ("a\ud800b", "U+D800"),
    "lone low surrogate": ("\udfffab", "U+DFFF"),
    "surrogates in the wrong order": ("a\ude00\ud83d", "U+DE00"),
    "NUL": ("ab\x00", "U+0000"),
    "escape": ("a\x1b[31mb", "U+001B"),
    "carriage return": ("a\rb", "U+000D"),
    "vertical tab": ("a\x0bb", "U+000B"),
    "DEL": ("a\x7fb", "U+007F"),
    "C1 next line": ("a\x85b", "U+0085"),
}
LINES = {"newline": ("a\nb", "U+000A"), "tab": ("a\tb", "U+0009")}
GOOD_TEXT = ["Zoë \U0001f600 Ωμέγα", "\u05e9\u05dc\u05d5\u05dd", "e\u0301", "\u00a0x\u200b"]


@pytest.mark.parametrize("field", FIELDS, ids=str)
async def test_text_that_is_not_unicode_text_is_refused(
    api: Api, client: Any, table: str, field: TextField
) -> None:
    variables = await field.setup(api)
    before = await snapshot(client, table)
    bad = {**NOT_TEXT, **({} if field.multiline else LINES)}
    for kind, (value, named) in bad.items():
        result = await send(api, field.call(0), text=value, **variables)
        assert result.codes == ["BAD_USER_INPUT"], (kind, result.body)
        assert named in result.errors[0]["message"], (kind, result.errors)
        assert result.cost["requests"] == 0, kind
    assert await snapshot(client, table) == before


@pytest.mark.parametrize("field", FIELDS, ids=str)
async def test_unicode_text_is_stored_as_sent(api: Api, field: TextField) -> None:
    variables = await field.setup(api)
    texts = [*GOOD_TEXT, *(["line one\n\tline two\n"] if field.multiline else [])]
    for n, text in enumerate(texts):
        data = await ok(api, field.call(n), text=text, **variables)
        assert field.read(data) == text


async def test_an_email_must_be_unicode_text(api: Api, client: Any, table: str) -> None:
    for email, named in [("a\ud800@x.io", "U+D800"), ("a@x.io\x00", "U+0000")]:
        result = await send(api, CREATE_CUSTOMER, input={"id": "c3", "name": "C", "email": email})
        assert result.codes == ["BAD_USER_INPUT"], result.body
        assert named in result.errors[0]["message"]
    assert await snapshot(client, table) == []


# ---- DateTime: exactly one ISO-8601 value

NOT_ONE_DATETIME = [
    "2020-11-09T12:00:00Z\x00",
    "2020-11-09T12:00:00Z\x00junk",
    "2020-11-09T12:00:00\x00Z",
    "2020-11-09\x00",
    "2020-11-09T12:00:00Z ",
    "2020-11-09T12:00:00Z\n",
    "2020-11-09T12:00:00+01:00x",
    "\u0662\u0660\u0662\u0660-11-09",  # Arabic-Indic digits
]
PLACE = """mutation ($at: DateTime) {
  placeOrder(input: {customerId: "c1", placedAt: $at,
                     items: [{sku: "s", quantity: 1, unitPriceCents: 1}]}) { placedAt } }"""
ORDERS = """query ($from: DateTime) {
  customer(id: "c1") { orders(placed: {from: $from}) { edges { cursor } } } }"""


@pytest.mark.parametrize("value", NOT_ONE_DATETIME, ids=repr)
async def test_anything_after_a_datetime_is_bad_user_input(
    api: Api, client: Any, table: str, value: str
) -> None:
    await customer(api)
    before = await snapshot(client, table)
    for document in (PLACE, ORDERS):
        result = await send(api, document, at=value, **{"from": value})
        assert result.codes == ["BAD_USER_INPUT"], result.body
        assert result.cost["requests"] == 0
    assert await snapshot(client, table) == before


async def test_a_datetime_literal_with_a_nul_is_bad_user_input(api: Api) -> None:
    await customer(api)
    literal = '{ customer(id: "c1") { orders(placed: {from: "2020-11-09T12:00:00Z\\u0000"})'
    result = await send(api, literal + " { edges { cursor } } } }")
    assert result.codes == ["BAD_USER_INPUT"], result.body


async def test_one_datetime_alone_is_read(api: Api) -> None:
    await customer(api)
    for value, stored in [
        ("2020-11-09T12:00:00Z", "2020-11-09T12:00:00.000Z"),
        ("2020-11-09T13:00:00.5+01:00", "2020-11-09T12:00:00.500Z"),
        ("2020-11-09", "2020-11-09T00:00:00.000Z"),
    ]:
        assert (await ok(api, PLACE, at=value))["placeOrder"]["placedAt"] == stored
