"""The gateway as real clients call it: Apollo Client, urql and graphql-ws (pinned in
tests/clients/package.json, installed by `make test`), set up as their documentation sets
them up, run with Node against the gateway on a real port. Each case is named in the
failure: HttpLink, persisted queries over POST and over hash-only GET, BatchHttpLink, a
token in a header, urql's persistedExchange, and subscriptions over graphql-transport-ws."""

from __future__ import annotations

import pytest

from tests.client import settings_for
from tests.client_libraries import client_cases
from tests.identity import SECURED, token
from tests.live import served

pytestmark = pytest.mark.streamed
# BatchHttpLink sends up to 10 operations in one request by default.
MAX_BATCH = 10
RUN_SECONDS = 240


async def test_apollo_urql_and_graphql_ws_work_as_set_up(endpoint: str, table: str) -> None:
    # The shipped defaults, but batches on; a second gateway on the same table checks tokens.
    batching = settings_for(endpoint, table, max_batch=MAX_BATCH)
    secured = settings_for(endpoint, table, **SECURED)
    async with served(batching) as gateway, served(secured) as signing:
        results, returncode, err = await client_cases(
            "clients.mjs",
            gateway.url + "/graphql",
            signing.url + "/graphql",
            token("Ada", ttl=RUN_SECONDS * 2),
            seconds=RUN_SECONDS,
        )
    failed = [f"{r['name']}: {r['detail']}" for r in results if not r["ok"]]
    assert failed == [], "\n".join(failed)
    assert returncode == 0 and len(results) >= 25, err
