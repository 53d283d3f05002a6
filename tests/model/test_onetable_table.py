"""A table dynamodb-onetable writes, served beside it: OneTable itself (`tests/tools/`, run
with Node) makes the table and writes accounts and their users in its own value templates,
`_type` and timestamps; dynagate, given a model of that table
(`tests/model/onetable_accounts.py`), answers as OneTable's own queries do over the same
items, and what each side writes the other reads."""

from __future__ import annotations

import pytest

from tests.client import Api
from tests.other_tools import NEEDS_NODE, Tool, table_made_by

pytestmark = [pytest.mark.overrides(model="tests.model.onetable_accounts"), NEEDS_NODE]
onetable = Tool("onetable.mjs", ("email", "name", "created", "updated"))
USERS = onetable.list_query('account(id: "acme")', "users")
table = table_made_by(onetable.script)


async def test_dynagate_answers_as_onetable_s_own_query(
    api: Api, endpoint: str, table: str
) -> None:
    theirs = await onetable(endpoint, table, "users", accountId="acme")
    _, account = await onetable.same_list(api, USERS, "account", "users", theirs)
    assert account["name"] == "Acme"
    assert [user["email"] for user in theirs] == ["ada@acme.io", "bob@acme.io", "cy@acme.io"]


async def test_what_each_side_writes_the_other_reads(api: Api, endpoint: str, table: str) -> None:
    added = await api(
        """mutation { addUser(input: {accountId: "acme", email: "eve@acme.io", name: "Eve"})
        { email name created } }"""
    )
    made = added.ok()["addUser"]
    got = await onetable(endpoint, table, "get", accountId="acme", email="eve@acme.io")
    assert onetable.shown(got) == {**made, "updated": made["created"]}
    renamed = await api(
        """mutation { renameUser(input: {accountId: "acme", email: "ada@acme.io",
        name: "Ada L."}) { name } }"""
    )
    assert renamed.ok()["renameUser"] == {"name": "Ada L."}
    again = await onetable(endpoint, table, "get", accountId="acme", email="ada@acme.io")
    assert again["name"] == "Ada L."
    await onetable(endpoint, table, "add", accountId="acme", email="abe@acme.io", name="Abe")
    ours = (await api(USERS, first=10)).ok()["account"]["users"]["edges"]
    assert [edge["node"]["email"] for edge in ours] == [
        "abe@acme.io",
        "ada@acme.io",
        "bob@acme.io",
        "cy@acme.io",
        "eve@acme.io",
    ]
