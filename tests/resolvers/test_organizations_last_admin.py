"""An organization keeps at least one ADMIN member (docs/design.md), through the GraphQL API
with real tokens against DynamoDB Local: demoting the last one is CONFLICT and writes
nothing, whoever asks; two demotions at once never both pass, since each write's own
transaction holds another member to being ADMIN."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import pytest

from tests.client import Api, Result
from tests.documents import ADD_MEMBER, CREATE_ORGANIZATION, SET_MEMBER_ROLE
from tests.identity import SECURED, as_user, open_mode
from tests.resolvers.org_helpers import refused, snapshot
from tests.table import scan_all

ORG = "Acme"
ROOT = "root"
pytestmark = pytest.mark.overrides(**SECURED)


def demote(api: Api, username: str) -> Awaitable[Result]:
    return api(SET_MEMBER_ROLE, org=ORG, username=username, role="MEMBER")


async def acme(api: Api, admins: tuple[str, ...] = ("carol",)) -> None:
    """Acme, created by alice (its first ADMIN member), with `admins` and bob, a MEMBER."""
    alice = as_user(api, "alice")
    (await alice(CREATE_ORGANIZATION, name=ORG)).ok()
    for username in (*admins, "bob"):
        role = "MEMBER" if username == "bob" else "ADMIN"
        member = {"organization": ORG, "username": username, "name": "N", "role": role}
        (await alice(ADD_MEMBER, input=member)).ok()


async def stored_admins(client: Any, table: str) -> set[str]:
    """The ADMIN members of Acme, read from the table; the admins index agrees with roles."""
    members = [i for i in await scan_all(client, table) if i.get("type") == "MEMBER"]
    for member in members:
        assert ("GSI3PK" in member) == (member["role"] == "ADMIN"), member
    return {m["username"] for m in members if m["role"] == "ADMIN"}


async def test_the_last_admin_member_is_demoted_by_no_one(
    api: Api, client: Any, table: str
) -> None:
    await acme(api, admins=())
    before = await snapshot(client, table)
    for caller in (as_user(api, "alice"), as_user(api, ROOT, admin=True)):
        result = await demote(caller, "alice")
        refused(result, "CONFLICT")
        assert result.errors[0]["message"].startswith(
            "'alice' is the only ADMIN member of 'Acme', which must keep one: make another"
            " member ADMIN first"
        )
    async with open_mode(api) as opened:
        refused(await demote(opened, "alice"), "CONFLICT")
    assert await snapshot(client, table) == before


async def after(pause: float, call: Awaitable[Result]) -> Result:
    await asyncio.sleep(pause)
    return await call


# Two demotions at once, as (caller, member demoted), in an organization whose ADMIN members
# are alice and carol: whichever commits first, the other must not.
PAIRS = {
    "each demotes the other": (("alice", "carol"), ("carol", "alice")),
    "each steps down": (("alice", "alice"), ("carol", "carol")),
    "one steps down as she demotes the other": (("alice", "carol"), ("alice", "alice")),
    "an admin demotes both": ((ROOT, "alice"), (ROOT, "carol")),
}


@pytest.mark.parametrize("pair", PAIRS)
async def test_two_demotions_at_once_leave_an_admin_member(
    api: Api, client: Any, table: str, pair: str
) -> None:
    await acme(api)
    root = as_user(api, ROOT, admin=True)
    for round in range(12):
        for username in ("alice", "carol"):
            (await root(SET_MEMBER_ROLE, org=ORG, username=username, role="ADMIN")).ok()
        ahead = (round % 4) * 0.002
        demotions = PAIRS[pair]
        results = await asyncio.gather(
            *(
                after(pause, demote(as_user(api, caller, admin=caller == ROOT), username))
                for pause, (caller, username) in zip((ahead, 0.004 - ahead), demotions, strict=True)
            )
        )
        admins = await stored_admins(client, table)
        assert admins, (pair, [r.body for r in results])
        # Exactly the demotions that were answered are stored.
        for (_, username), result in zip(demotions, results, strict=True):
            assert result.codes in ([], ["FORBIDDEN"], ["CONFLICT"]), result.body
            assert (username in admins) == (result.codes != []), (pair, result.body, admins)
