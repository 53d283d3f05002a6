"""A table dynamodb-onetable writes, served beside it: OneTable itself (`tests/tools/`, run
with Node) makes the table and writes accounts and their users in its own value templates,
`_type` and timestamps; dynagate, given a model of that table
(`tests/model/onetable_accounts.py`), answers as OneTable's own queries do over the same
items, and what each side writes the other reads."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

import pytest

from tests.client import Api
from tests.other_tools import NEEDS_NODE, both_pages, list_query, table_made_by, tool

pytestmark = [pytest.mark.overrides(model="tests.model.onetable_accounts"), NEEDS_NODE]
SHOWN = ("email", "name", "created", "updated")
USERS = list_query('account(id: "acme")', "users", SHOWN)


onetable = partial(tool, "onetable.mjs")
table = table_made_by("onetable.mjs")


def shown(user: dict[str, Any]) -> dict[str, Any]:
    return {k: user[k] for k in SHOWN}


async def test_dynagate_answers_as_onetable_s_own_query(
    api: Api, endpoint: str, table: str
) -> None:
    theirs = await asyncio.to_thread(onetable, endpoint, table, "users", accountId="acme")
    _, account, ours = await both_pages(api, USERS, "account", "users")
    assert account["name"] == "Acme"
    assert ours == [shown(user) for user in theirs]
    assert [user["email"] for user in ours] == ["ada@acme.io", "bob@acme.io", "cy@acme.io"]


async def test_what_each_side_writes_the_other_reads(api: Api, endpoint: str, table: str) -> None:
    added = await api(
        """mutation { addUser(input: {accountId: "acme", email: "eve@acme.io", name: "Eve"})
        { email name created } }"""
    )
    made = added.ok()["addUser"]
    got = await asyncio.to_thread(
        onetable, endpoint, table, "get", accountId="acme", email="eve@acme.io"
    )
    assert shown(got) == {**made, "updated": made["created"]}
    renamed = await api(
        """mutation { renameUser(input: {accountId: "acme", email: "ada@acme.io",
        name: "Ada L."}) { name } }"""
    )
    assert renamed.ok()["renameUser"] == {"name": "Ada L."}
    again = await asyncio.to_thread(
        onetable, endpoint, table, "get", accountId="acme", email="ada@acme.io"
    )
    assert again["name"] == "Ada L."
    await asyncio.to_thread(
        onetable, endpoint, table, "add", accountId="acme", email="abe@acme.io", name="Abe"
    )
    ours = (await api(USERS, first=10)).ok()["account"]["users"]["edges"]
    assert [edge["node"]["email"] for edge in ours] == [
        "abe@acme.io",
        "ada@acme.io",
        "bob@acme.io",
        "cy@acme.io",
        "eve@acme.io",
    ]
