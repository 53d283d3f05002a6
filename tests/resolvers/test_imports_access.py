"""Times of creation set by the client (`placedAt`, `createdAt`) are for imports of older data:
admins only (docs/identity.md). Anyone else giving one is FORBIDDEN from the token alone,
before any DynamoDB call, and nothing is written; open mode may do everything."""

from __future__ import annotations

from typing import Any

import pytest

from tests.client import Api, Result
from tests.documents import CREATE_CUSTOMER, CREATE_PRODUCT, PLACE_ORDER, POST_COMMENT
from tests.identity import SECURED, as_user
from tests.table import scan_all

pytestmark = pytest.mark.overrides(**SECURED)

EARLIER = "2021-03-04T05:06:07.089Z"
ORDER = {"customerId": "alice", "items": [{"sku": "A", "quantity": 1, "unitPriceCents": 100}]}
COMMENT = {"productId": "p1", "language": "en", "rating": 4, "body": "fine"}
# The field, its input and the input's time of creation, and the time the answer shows.
IMPORTS = [
    ("placeOrder", PLACE_ORDER, ORDER, "placedAt"),
    ("postComment", POST_COMMENT, COMMENT, "createdAt"),
]


async def world(api: Api) -> None:
    """Customer alice (her own) and product p1 (an admin's)."""
    customer = {"id": "alice", "name": "Alice", "email": "a@x.io"}
    (await as_user(api, "alice")(CREATE_CUSTOMER, input=customer)).ok()
    (await as_user(api, "root", admin=True)(CREATE_PRODUCT, input={"id": "p1", "name": "Mug"})).ok()


async def stored(client: Any, table: str) -> list[tuple[str, str]]:
    return sorted((i["PK"], i["SK"]) for i in await scan_all(client, table))


def forbidden(result: Result, field: str) -> None:
    assert result.codes == ["FORBIDDEN"], result.body
    assert result.data is None or result.data.get(field) is None
    assert result.cost["requests"] == 0  # decided from the token alone


@pytest.mark.parametrize(("field", "document", "new", "name"), IMPORTS)
async def test_only_admins_set_a_time_of_creation(
    api: Api, client: Any, table: str, field: str, document: str, new: dict[str, Any], name: str
) -> None:
    await world(api)
    before = await stored(client, table)
    imported = {**new, name: EARLIER}
    # The customer herself, who may otherwise do what she asks, and anyone else signed in.
    alice = await as_user(api, "alice")(document, input=imported)
    forbidden(alice, field)
    assert f"only admins may give `{name}`" in alice.errors[0]["message"]
    forbidden(await as_user(api, "bob")(document, input=imported), field)
    anonymous = await api(document, input=imported)
    assert anonymous.codes == ["UNAUTHENTICATED"] and anonymous.cost["requests"] == 0
    assert await stored(client, table) == before
    # Left out, or null, the time is now's: the call is the caller's as ever.
    for unset in ({}, {name: None}):
        made = (await as_user(api, "alice")(document, input={**new, **unset})).ok()[field]
        assert made[name] != EARLIER
    admin = (await as_user(api, "root", admin=True)(document, input=imported)).ok()[field]
    assert admin[name] == EARLIER


@pytest.mark.parametrize(("field", "document", "new", "name"), IMPORTS)
async def test_open_mode_imports(
    api: Api, opened: Api, field: str, document: str, new: dict[str, Any], name: str
) -> None:
    await world(api)
    made = (await opened(document, input={**new, name: EARLIER})).ok()[field]
    assert made[name] == EARLIER
