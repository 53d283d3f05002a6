"""A list read from a local secondary index, on a table made from the model's layout
(`tests/model/local_index.py`): the index shares the table's partition, its pages are keyed
by the table's key and its own sort key, and its cursors page through it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from store.tables import create_table
from tests.client import Api
from tests.model.local_index import LAYOUT

pytestmark = pytest.mark.overrides(model="tests.model.local_index")
CARDS = """query ($after: String) { board(id: "b1") { name
  cardsByTitle(first: 2, after: $after) { edges { node { id title } }
  pageInfo { hasNextPage endCursor } } } }"""


@pytest.fixture
async def table(client: Any) -> AsyncIterator[str]:
    name = f"lsi-{uuid.uuid4().hex[:12]}"
    await create_table(client, name, layout=LAYOUT, stream=False)
    yield name
    await client.delete_table(TableName=name)


async def test_a_local_index_lists_a_partition_in_its_own_order(
    api: Api, client: Any, table: str
) -> None:
    described = (await client.describe_table(TableName=table))["Table"]
    (local,) = described["LocalSecondaryIndexes"]
    assert [k["AttributeName"] for k in local["KeySchema"]] == ["pk", "lsi1sk"]
    await api('mutation { addBoard(input: {id: "b1", name: "One"}) { id } }')
    adding = "mutation ($input: AddCardInput!) { addCard(input: $input) { id } }"
    for card, title in (("c1", "zebra"), ("c2", "apple"), ("c3", "mango")):
        (await api(adding, input={"boardId": "b1", "id": card, "title": title})).ok()
    first = (await api(CARDS)).ok()["board"]
    assert first["name"] == "One"
    titles = [edge["node"]["title"] for edge in first["cardsByTitle"]["edges"]]
    after = first["cardsByTitle"]["pageInfo"]["endCursor"]
    rest = (await api(CARDS, after=after)).ok()["board"]["cardsByTitle"]
    titles += [edge["node"]["title"] for edge in rest["edges"]]
    assert titles == ["apple", "mango", "zebra"]
    assert rest["pageInfo"]["hasNextPage"] is False
