"""Trusted documents (docs/http.md): with DYNAGATE_DOCUMENTS=trusted only documents an
admin registered run for other callers, by id or sent in full; only admins register."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from data.documents import load_document, register_document
from gateway.documents import persisted
from gateway.settings import Settings, SettingsError
from keys.documents import document_key
from keys.table import TABLE
from store.client import Store
from store.requests import to_attributes
from tests.client import Api, settings_for
from tests.gateway.test_cli import on_table, run
from tests.identity import SECURED, as_user, token
from tests.live import connected, served
from tests.subscribing import ISSUES, code_of, until

QUERY = '{ product(id: "none") { name } }'
OTHER = '{ order(id: "none") { id } }'


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def apq(text: str) -> dict[str, Any]:
    return {"persistedQuery": {"version": 1, "sha256Hash": sha(text)}}


async def post(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = (
        await api.http.post("/graphql", json=body, headers=api.headers)
    ).json()
    return answer


def code(body: dict[str, Any]) -> str | None:
    errors = body.get("errors") or [{}]
    return errors[0].get("extensions", {}).get("code")


@pytest.fixture
async def trusted(endpoint: str, table: str) -> AsyncIterator[Api]:
    settings = settings_for(endpoint, table, **SECURED, trusted_documents=True)
    async with Api.serving(settings) as api:
        yield api


async def stored(client: Any, table: str, text: str) -> dict[str, Any] | None:
    found = await client.get_item(
        TableName=table, Key=to_attributes(document_key(TABLE, sha(text)))
    )
    item: dict[str, Any] | None = found.get("Item")
    return item


def test_the_setting_reads_trusted_or_open() -> None:
    assert Settings.from_env({"DYNAGATE_DOCUMENTS": "trusted"}, serving=False).trusted_documents
    assert not Settings.from_env({"DYNAGATE_DOCUMENTS": "open"}, serving=False).trusted_documents
    assert not Settings.from_env({}, serving=False).trusted_documents
    with pytest.raises(SettingsError, match="DYNAGATE_DOCUMENTS='safelist': use open or trusted"):
        Settings.from_env({"DYNAGATE_DOCUMENTS": "safelist"}, serving=False)


async def test_only_what_an_admin_registered_runs_for_others(
    trusted: Api, client: Any, table: str
) -> None:
    ada, admin = as_user(trusted, "ada"), as_user(trusted, "root", admin=True)
    for caller in (trusted, ada):  # anonymous, signed in
        assert code(await post(caller, {"query": QUERY})) == "FORBIDDEN"
        by_id = await post(caller, {"documentId": f"sha256:{sha(QUERY)}"})
        assert code(by_id) == "PERSISTED_QUERY_NOT_FOUND"
        registering = await post(caller, {"query": QUERY, "extensions": apq(QUERY)})
        assert code(registering) == "FORBIDDEN"
        assert "admins" in registering["errors"][0]["message"]
        assert registering.get("data") is None
    assert await stored(client, table, QUERY) is None
    # An admin runs anything; a document it sends with its hash is registered, trusted.
    assert (await post(admin, {"query": OTHER}))["data"] == {"order": None}
    sent = await post(admin, {"query": QUERY, "extensions": apq(QUERY)})
    assert sent["data"] == {"product": None}
    item = await stored(client, table, QUERY)
    assert item is not None and item["trusted"] == {"BOOL": True}
    for caller in (trusted, ada):
        assert (await post(caller, {"query": QUERY}))["data"] == {"product": None}
        assert (await post(caller, {"extensions": apq(QUERY)}))["data"] == {"product": None}
        by_id = await post(caller, {"documentId": f"sha256:{sha(QUERY)}"})
        assert by_id["data"] == {"product": None}
        # What an admin ran in full was not registered by running.
        assert code(await post(caller, {"query": OTHER})) == "FORBIDDEN"
    got = await trusted.http.get(
        "/graphql",
        params={"documentId": f"sha256:{sha(QUERY)}"},
        headers={"Accept": "application/graphql-response+json"},
    )
    assert got.status_code == 200 and got.json()["data"] == {"product": None}
    refused = await trusted.http.get(
        "/graphql", params={"query": OTHER}, headers={"Accept": "application/graphql-response+json"}
    )
    assert refused.status_code == 400 and code(refused.json()) == "FORBIDDEN"


async def test_a_document_persisted_in_open_mode_is_not_trusted(
    trusted: Api, client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(persisted, "RECHECK_SECONDS", 0.0)  # each request reads again
    store = Store(client, table)
    await register_document(store, QUERY, trusted=False)  # as open mode registers it
    ada = as_user(trusted, "ada")
    assert code(await post(ada, {"documentId": f"sha256:{sha(QUERY)}"})) == "FORBIDDEN"
    assert code(await post(ada, {"query": QUERY})) == "FORBIDDEN"
    # Trusted since (by another process): this one, which kept it untrusted, reads again.
    await register_document(store, QUERY, trusted=True)
    assert (await post(ada, {"query": QUERY}))["data"] == {"product": None}
    # A request that registers it again does not take its trust away.
    async with Api.serving(settings_for(trusted.settings.endpoint or "", table)) as open_mode:
        await post(open_mode, {"query": QUERY, "extensions": apq(QUERY)})
    found = await load_document(store, sha(QUERY))
    assert found is not None and found.trusted


async def test_unknown_documents_cost_one_read_a_while(
    trusted: Api, client: Any, table: str
) -> None:
    """Sent over and over, a document the table does not hold is read for once; one
    registered by another process is seen after `RECHECK_SECONDS`."""
    ada = as_user(trusted, "ada")
    costs = []
    for _ in range(3):
        body = await post(ada, {"query": QUERY})
        assert code(body) == "FORBIDDEN"
        costs.append(body["extensions"]["cost"]["requests"])
    assert costs == [1, 0, 0]
    by_id = [await post(ada, {"documentId": f"sha256:{sha(OTHER)}"}) for _ in range(2)]
    assert [b["extensions"]["cost"]["requests"] for b in by_id] == [1, 0]


async def test_open_mode_registers_but_does_not_trust(api: Api, client: Any, table: str) -> None:
    """Open mode's callers are not admins: what they persist must be trusted explicitly."""
    assert (await post(api, {"query": QUERY, "extensions": apq(QUERY)}))["data"]
    found = await load_document(Store(client, table), sha(QUERY))
    assert found is not None and not found.trusted


@pytest.mark.streamed
async def test_a_socket_runs_only_trusted_documents(
    endpoint: str, table: str, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(persisted, "RECHECK_SECONDS", 0.0)
    settings = settings_for(endpoint, table, **SECURED, trusted_documents=True)
    async with served(settings) as gateway:
        async with connected(gateway, token("ada")) as ada:
            refused = await ada.answer(ISSUES)
            assert code_of(refused) == "FORBIDDEN"
            query = await ada.answer(QUERY)
            assert code_of(query) == "FORBIDDEN"
            await register_document(Store(client, table), ISSUES, trusted=True)
            await ada.subscribe(ISSUES)
            await until(lambda: gateway.runtime.feed.active == 1)
        async with connected(gateway, token("root", admin=True)) as admin:
            answer = await admin.answer(QUERY)
            assert answer["type"] == "next" and answer["payload"]["data"] == {"product": None}


def _manifest(path: Path, documents: object) -> Path:
    path.write_text(json.dumps(documents))
    return path


def test_documents_add_checks_all_then_registers_all(
    endpoint: str, table: str, tmp_path: Path
) -> None:
    env = on_table(endpoint, table)
    orders = "query Open { openOrders(first: 5) { edges { node { id status } } } }"
    customer = "query Customer($id: ID!) { customer(id: $id) { name } }"
    good = {f"sha256:{sha(orders)}": orders, sha(customer).upper(): customer}
    bad = {**good, "mine": QUERY, sha("{ nope }"): "{ nope }"}
    refused = run("documents", "add", str(_manifest(tmp_path / "bad.json", bad)), env=env)
    assert refused.returncode == 1, refused.stderr
    assert "refused mine: its id is not the SHA-256 of its text" in refused.stderr
    assert "Cannot query field 'nope' on type 'Query'" in refused.stderr
    assert "2 of 4 documents refused; none registered" in refused.stderr
    listed = run("documents", "list", env=env)
    assert listed.returncode == 0 and listed.stdout.endswith("0 documents\n"), listed.stderr
    added = run("documents", "add", str(_manifest(tmp_path / "good.json", good)), env=env)
    assert added.returncode == 0, added.stderr
    assert f"sha256:{sha(orders)}  Open: requests=1 itemsScanned=7 fields=17" in added.stdout
    assert "Customer: requests=1 itemsScanned=1 fields=2" in added.stdout
    assert "2 documents registered as trusted" in added.stdout
    listed = run("documents", "list", env=env)
    assert f"sha256:{sha(customer)}  trusted" in listed.stdout
    assert "Open: requests=1 itemsScanned=7 fields=17" in listed.stdout
    assert listed.stdout.endswith("2 documents\n")
    apollo = {
        "format": "apollo-persisted-query-manifest",
        "version": 1,
        "operations": [{"id": sha(QUERY), "name": "P", "type": "query", "body": QUERY}],
    }
    again = run("documents", "add", str(_manifest(tmp_path / "apollo.json", apollo)), env=env)
    assert again.returncode == 0 and "1 documents registered" in again.stdout, again.stderr
    unreadable = run("documents", "add", str(tmp_path / "missing.json"), env=env)
    assert unreadable.returncode == 2 and "missing.json" in unreadable.stderr
    over = run(
        "documents",
        "add",
        str(_manifest(tmp_path / "over.json", {sha(orders): orders})),
        env={**env, "DYNAGATE_MAX_FIELDS": "10"},
    )
    assert over.returncode == 1 and "Open could need 17 fields (limit 10)" in over.stderr
