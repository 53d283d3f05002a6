"""Lost answers: DynamoDB applied the write, its answer never came, botocore sent it again.

Each create and each status move, called through the fault proxy with the answer of its
first write lost, succeeds, and the table shows it done exactly once. Prerequisites are
written straight to DynamoDB Local (`direct`), so the proxy sees only the call under test.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

import aioboto3
import pytest
from aiobotocore.config import AioConfig

from data.copies.verify import diff, group
from demo.model.comments import COMMENT
from errors.vocabulary import Conflict, Unavailable
from keys.codecs import format_timestamp
from keys.table import TABLE
from store.client import Store
from store.loaders import ItemLoader
from store.requests import WRITE_TOKEN, Item, put_request, update_request
from store.transport.connection import LOCAL_CREDENTIALS
from tests import demo_comments as comments
from tests import demo_comments as products
from tests import demo_map as markers
from tests import demo_orders as orders
from tests import demo_organizations as organizations
from tests import demo_repos as repos
from tests import demo_tickets as tickets
from tests.faults import FaultProxy, without_backoff
from tests.table import scan_all

T = TypeVar("T")
LINES = [orders.OrderLine("BOOK", 2, 1500)]


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    without_backoff(monkeypatch)


@pytest.fixture
def direct(client: Any, table: str) -> Store:
    return Store(client, table)


async def lost_once(proxy: FaultProxy, operation: str, call: Awaitable[T]) -> T:
    """`call`, with the answer of its first `operation` lost after DynamoDB applied it."""
    rule = proxy.inject(operation, "lose", count=1)
    result = await call
    assert rule.hits == 1
    assert proxy.calls[operation] == 2, "the write was not sent again"
    return result


async def of_type(direct: Store, kind: str) -> list[Item]:
    return [i for i in await scan_all(direct.client, direct.table) if i.get("type") == kind]


# ---- the requests (offline) ---------------------------------------------------------------


def test_a_token_rides_on_the_item_and_asks_for_the_stored_one_on_refusal() -> None:
    put = put_request("t", {"PK": "a", "SK": "a"}, new_on=TABLE, token="k1")
    assert put["Item"][WRITE_TOKEN] == {"S": "k1"}
    assert put["ReturnValuesOnConditionCheckFailure"] == "ALL_OLD"
    update = update_request("t", {"PK": "a", "SK": "a"}, set_values={"n": 1}, token="k2")
    assert update["UpdateExpression"] == "SET #n = :v0, #writeToken = :v1"
    assert update["ExpressionAttributeValues"][":v1"] == {"S": "k2"}
    assert update["ReturnValuesOnConditionCheckFailure"] == "ALL_OLD"
    assert "ReturnValuesOnConditionCheckFailure" not in put_request("t", {"PK": "a", "SK": "a"})


# ---- creates by PutItem -----------------------------------------------------------------


async def test_create_customer(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    made = await lost_once(
        proxy, "PutItem", orders.create_customer(faulty, "alice", "Alice", "a@x.io")
    )
    assert (made.id, made.name) == ("alice", "Alice")
    [stored] = await scan_all(direct.client, direct.table)
    assert (stored["id"], stored["createdAt"]) == ("alice", format_timestamp(made.created_at))
    assert len(stored[WRITE_TOKEN]) == 32


async def test_create_product(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    made = await lost_once(proxy, "PutItem", products.create_product(faulty, "p1", "Mug"))
    assert made.id == "p1"
    assert [i["id"] for i in await scan_all(direct.client, direct.table)] == ["p1"]


async def test_create_repo(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    made = await lost_once(proxy, "PutItem", repos.create_repo(faulty, "alice", "tools", None))
    assert (made.owner, made.name, made.star_count) == ("alice", "tools", 0)
    assert [i["name"] for i in await of_type(direct, "REPO")] == ["tools"]


async def test_create_organization(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    made = await lost_once(proxy, "PutItem", organizations.create_organization(faulty, "Acme"))
    assert made.name == "Acme"
    assert [i["name"] for i in await of_type(direct, "ORGANIZATION")] == ["Acme"]


async def test_create_queue(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    made = await lost_once(proxy, "PutItem", tickets.create_queue(faulty, "q1", "Support"))
    assert made["id"] == "q1"
    assert [i["id"] for i in await of_type(direct, "QUEUE")] == ["q1"]


async def test_a_real_duplicate_is_still_conflict(
    proxy: FaultProxy, faulty: Store, direct: Store
) -> None:
    await orders.create_customer(direct, "alice", "Alice", "a@x.io")
    with pytest.raises(Conflict):
        await lost_once(proxy, "PutItem", orders.create_customer(faulty, "alice", "Eve", "e@x.io"))
    assert [i["name"] for i in await scan_all(direct.client, direct.table)] == ["Alice"]


# ---- creates in transactions (the ClientRequestToken is resent with them) -----------------


async def test_place_order(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await orders.create_customer(direct, "alice", "Alice", "a@x.io")
    placed = await lost_once(
        proxy, "TransactWriteItems", orders.place_order(faulty, "alice", LINES, None)
    )
    assert [i["id"] for i in await of_type(direct, "ORDER")] == [placed.id]


async def test_post_comment(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await products.create_product(direct, "p1", "Mug")
    posted = await lost_once(
        proxy, "TransactWriteItems", comments.post_comment(faulty, "p1", "en", 4, "fine", None)
    )
    [partition] = group(COMMENT, await scan_all(direct.client, direct.table)).values()
    assert partition.primary is not None and partition.primary["id"] == posted.id
    assert diff(COMMENT, partition.primary, partition.copies).clean


async def test_open_issue(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await repos.create_repo(direct, "alice", "tools", None)
    issue = await lost_once(
        proxy, "TransactWriteItems", repos.open_issue(faulty, "alice", "tools", "Bug")
    )
    assert issue.number == 1
    assert [i["number"] for i in await of_type(direct, "ISSUE")] == [1]
    assert [r["issueCount"] for r in await of_type(direct, "REPO")] == [1]


async def test_open_ticket(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await tickets.create_queue(direct, "q1", "Support")
    ticket = await lost_once(proxy, "TransactWriteItems", tickets.open_ticket(faulty, "q1", "Help"))
    assert [i["id"] for i in await of_type(direct, "TICKET")] == [ticket["id"]]


async def test_add_member(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await organizations.create_organization(direct, "acme")
    member = await lost_once(
        proxy,
        "TransactWriteItems",
        organizations.add_member(faulty, "acme", "bob", "Bob", organizations.Role.MEMBER),
    )
    assert member.username == "bob"
    assert [i["username"] for i in await of_type(direct, "MEMBER")] == ["bob"]


async def test_a_real_duplicate_member_is_still_conflict(
    proxy: FaultProxy, faulty: Store, direct: Store
) -> None:
    await organizations.create_organization(direct, "acme")
    await organizations.add_member(direct, "acme", "bob", "Bob", organizations.Role.MEMBER)
    with pytest.raises(Conflict):
        await lost_once(
            proxy,
            "TransactWriteItems",
            organizations.add_member(faulty, "acme", "BOB", "Other", organizations.Role.ADMIN),
        )
    assert [i["name"] for i in await of_type(direct, "MEMBER")] == ["Bob"]


async def test_create_team(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await organizations.create_organization(direct, "acme")
    team = await lost_once(
        proxy, "TransactWriteItems", organizations.create_team(faulty, "acme", "core")
    )
    assert team.name == "core"
    assert [i["name"] for i in await of_type(direct, "TEAM")] == ["core"]
    assert [o["teamCount"] for o in await of_type(direct, "ORGANIZATION")] == [1]


async def test_add_marker(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    marker = await lost_once(
        proxy, "TransactWriteItems", markers.add_marker(faulty, 48.8566, 2.3522, "Paris")
    )
    items = await scan_all(direct.client, direct.table)
    assert [i["id"] for i in items if "id" in i] == [marker.id, marker.id]  # id and place items
    counts = [i["count"] for i in items if "count" in i]
    assert counts == [1] * 8  # one per cell length, 1 to 8


async def test_star_repo(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await repos.create_repo(direct, "alice", "tools", None)
    repo = await lost_once(
        proxy,
        "TransactWriteItems",
        repos.star_repo(faulty, ItemLoader(faulty), "alice", "tools", "carol"),
    )
    assert repo.star_count == 1
    assert [i["username"] for i in await of_type(direct, "STAR")] == ["carol"]
    assert [r["starCount"] for r in await of_type(direct, "REPO")] == [1]


# ---- status moves and other conditional writes --------------------------------------------


async def test_set_order_status(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await orders.create_customer(direct, "alice", "Alice", "a@x.io")
    placed = await orders.place_order(direct, "alice", LINES, None)
    moved = await lost_once(
        proxy,
        "UpdateItem",
        orders.set_order_status(faulty, ItemLoader(faulty), placed.id, orders.OrderStatus.SHIPPED),
    )
    assert moved.status == orders.OrderStatus.SHIPPED
    [stored] = await of_type(direct, "ORDER")
    assert stored["status"] == "SHIPPED"
    assert "GSI3PK" not in stored  # out of the open orders
    assert stored["updatedAt"] == format_timestamp(moved.updated_at)


async def test_a_move_lost_to_another_request_is_still_conflict(
    proxy: FaultProxy, faulty: Store, direct: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    await orders.create_customer(direct, "alice", "Alice", "a@x.io")
    placed = await orders.place_order(direct, "alice", LINES, None)
    read = Store.get

    async def read_then_lose_the_race(self: Store, key: Any, *, consistent: bool = False) -> Any:
        found = await read(self, key, consistent=consistent)
        if self is faulty:  # another request ships the order after this one read it
            await orders.set_order_status(
                direct, ItemLoader(direct), placed.id, orders.OrderStatus.SHIPPED
            )
        return found

    monkeypatch.setattr(Store, "get", read_then_lose_the_race)
    with pytest.raises(Conflict):
        await orders.set_order_status(
            faulty, ItemLoader(faulty), placed.id, orders.OrderStatus.CANCELLED
        )
    monkeypatch.undo()
    assert [i["status"] for i in await of_type(direct, "ORDER")] == ["SHIPPED"]


async def test_update_ticket(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await tickets.create_queue(direct, "q1", "Support")
    opened = await tickets.open_ticket(direct, "q1", "Help")
    updated = await lost_once(
        proxy,
        "UpdateItem",
        tickets.update_ticket(
            faulty, ItemLoader(faulty), opened["id"], "Help!", tickets.TicketStatus.CLOSED
        ),
    )
    assert (updated["title"], updated["status"]) == ("Help!", tickets.TicketStatus.CLOSED)
    [stored] = await of_type(direct, "TICKET")
    # Written once: the resend did not move it a millisecond further.
    assert stored["updatedAt"] == format_timestamp(updated["updatedAt"])


async def test_close_issue(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await repos.create_repo(direct, "alice", "tools", None)
    await repos.open_issue(direct, "alice", "tools", "Bug")
    closed = await lost_once(
        proxy, "UpdateItem", repos.close_issue(faulty, ItemLoader(faulty), "alice", "tools", 1)
    )
    assert closed.state == repos.IssueState.CLOSED
    assert [i["state"] for i in await of_type(direct, "ISSUE")] == ["CLOSED"]


async def test_set_member_role(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await organizations.create_organization(direct, "acme")
    await organizations.add_member(direct, "acme", "bob", "Bob", organizations.Role.MEMBER)
    member = await lost_once(
        proxy,
        "UpdateItem",
        organizations.set_member_role(
            faulty, ItemLoader(faulty), "acme", "bob", organizations.Role.ADMIN
        ),
    )
    assert member.role == organizations.Role.ADMIN
    [stored] = await of_type(direct, "MEMBER")
    assert (stored["role"], "GSI3PK" in stored) == ("ADMIN", True)


async def test_edit_comment(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await products.create_product(direct, "p1", "Mug")
    posted = await comments.post_comment(direct, "p1", "en", 4, "fine", None)
    edited = await lost_once(
        proxy,
        "TransactWriteItems",
        comments.edit_comment(
            faulty, ItemLoader(faulty), posted.id, language="de", rating=2, body=None
        ),
    )
    assert (edited.language, edited.rating) == ("de", 2)
    [partition] = group(COMMENT, await scan_all(direct.client, direct.table)).values()
    assert partition.primary is not None and partition.primary["version"] == 2
    assert diff(COMMENT, partition.primary, partition.copies).clean


async def test_delete_comment(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await products.create_product(direct, "p1", "Mug")
    posted = await comments.post_comment(direct, "p1", "en", 4, "fine", None)
    await lost_once(
        proxy, "TransactWriteItems", comments.delete_comment(faulty, ItemLoader(faulty), posted.id)
    )
    assert [i["type"] for i in await scan_all(direct.client, direct.table)] == ["PRODUCT"]


async def test_remove_marker(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    marker = await markers.add_marker(direct, 48.8566, 2.3522, "Paris")
    await lost_once(proxy, "TransactWriteItems", markers.remove_marker(faulty, marker.id))
    items = await scan_all(direct.client, direct.table)
    assert [i for i in items if "id" in i] == []
    assert [i["count"] for i in items] == [0] * 8


async def test_unstar_repo(proxy: FaultProxy, faulty: Store, direct: Store) -> None:
    await repos.create_repo(direct, "alice", "tools", None)
    await repos.star_repo(direct, ItemLoader(direct), "alice", "tools", "carol")
    repo = await lost_once(
        proxy,
        "TransactWriteItems",
        repos.unstar_repo(faulty, ItemLoader(faulty), "alice", "tools", "carol"),
    )
    assert repo.star_count == 0
    assert await of_type(direct, "STAR") == []
    assert [r["starCount"] for r in await of_type(direct, "REPO")] == [0]


# ---- no answer at all ---------------------------------------------------------------------


async def test_a_database_that_never_answers_is_unavailable(proxy: FaultProxy, table: str) -> None:
    """The client here has short timeouts of its own: this holds whatever the gateway's are."""
    proxy.inject("*", "hang")
    config = AioConfig(
        connect_timeout=0.2, read_timeout=0.2, retries={"total_max_attempts": 2, "mode": "standard"}
    )
    session = aioboto3.Session()
    async with session.client(
        "dynamodb",
        endpoint_url=proxy.url,
        region_name="us-east-1",
        config=config,
        aws_access_key_id=LOCAL_CREDENTIALS["aws_access_key_id"],
        aws_secret_access_key=LOCAL_CREDENTIALS["aws_secret_access_key"],
    ) as client:
        with pytest.raises(Unavailable):
            await orders.create_customer(Store(client, table), "alice", "Alice", "a@x.io")
    assert proxy.calls["PutItem"] == 2
