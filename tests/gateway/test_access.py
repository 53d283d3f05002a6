"""Identity at the door: tokens refused for the whole request, the rate limit per signed-in
subject, the production defaults, and a rule declared for every root field."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphql import GraphQLNamedType, GraphQLObjectType, get_named_type

from gateway.http.app import create_app
from gateway.schema.build import build_schema
from gateway.settings import Settings
from resolvers.access import RULE, Anyone, Rule, SignedIn
from tests.client import COST_KEYS, Api
from tests.identity import SECURED, token
from tests.jwks import AUDIENCE, ISSUER, JwksServer, SigningKey

PRODUCT = 'query { product(id: "p1") { id } }'
IDENTITY = Path(__file__).parents[2] / "docs" / "identity.md"


@pytest.fixture(scope="module")
def overrides() -> dict[str, Any]:
    return SECURED


async def post(api: Api, headers: dict[str, str]) -> httpx.Response:
    return await api.http.post("/graphql", json={"query": PRODUCT}, headers=headers)


@pytest.mark.parametrize(
    "authorization",
    [
        f"Bearer {token('alice', ttl=-120)}",
        f"Bearer {token('alice')}x",
        "Bearer not-a-token",
        "Basic YWxpY2U6c2VjcmV0",
    ],
)
async def test_a_bad_token_is_401_for_the_whole_request_with_no_call(
    app: Api, authorization: str
) -> None:
    response = await post(app, {"Authorization": authorization})
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    body = response.json()
    assert [e["extensions"]["code"] for e in body["errors"]] == ["UNAUTHENTICATED"]
    assert "data" not in body
    assert set(body["extensions"]["cost"]) == COST_KEYS
    assert body["extensions"]["cost"]["requests"] == 0


async def test_no_token_is_anonymous_and_a_good_one_signs_in(app: Api) -> None:
    assert (await post(app, {})).status_code == 200
    signed = await post(app, {"Authorization": f"Bearer {token('alice')}"})
    assert signed.status_code == 200
    anonymous = await app('{ queue(id: "q1") { id } }')
    assert anonymous.codes == ["UNAUTHENTICATED"]
    assert anonymous.cost["requests"] == 0


async def test_a_browser_gets_the_playground_without_a_token(app: Api) -> None:
    response = await app.http.get("/graphql", headers={"Accept": "text/html"})
    assert response.status_code == 200


async def test_an_unreachable_provider_is_503_unavailable(
    endpoint: str, shared_table: str, provider: JwksServer
) -> None:
    key = SigningKey.generate("down-1")
    provider.publish(key)
    provider.down = True
    settings = replace(
        _settings(endpoint, shared_table),
        auth_secret=None,
        auth_jwks_url=provider.url,
        auth_issuer=ISSUER,
        auth_audience=AUDIENCE,
    )
    try:
        async with Api.serving(settings) as api:
            response = await post(api, {"Authorization": f"Bearer {key.sign('alice')}"})
    finally:
        provider.down = False
    assert response.status_code == 503
    assert response.json()["errors"][0]["extensions"]["code"] == "UNAVAILABLE"


def _settings(endpoint: str, table: str) -> Settings:
    return Settings(table=table, endpoint=endpoint, cursor_secret=b"test-secret", **SECURED)


async def test_the_rate_limit_bucket_is_the_signed_in_subjects(
    endpoint: str, shared_table: str
) -> None:
    settings = replace(_settings(endpoint, shared_table), rate_limit=0.5)
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app, client=("10.0.0.1", 40_000))
    create = """mutation ($id: ID!) {
      createCustomer(input: {id: $id, name: "N", email: "n@x.io"}) { id } }"""
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://test") as http,
    ):
        api = Api(http, settings)
        alice, bob = api.signed_in(token("alice")), api.signed_in(token("bob"))
        assert (await alice(create, id="alice")).ok()  # 1 write unit: alice's bucket below 0
        again = await http.post(
            "/graphql",
            json={"query": PRODUCT},
            headers={"Authorization": f"Bearer {token('ALICE')}"},
        )
        assert again.status_code == 429  # the same subject, whatever its case
        # Same address, another subject: another bucket; anonymous is the address's own.
        assert (await bob(create, id="bob")).ok()
        assert (await api(PRODUCT)).status == 200


async def test_introspection_and_the_playground_can_be_off(
    endpoint: str, shared_table: str
) -> None:
    settings = replace(_settings(endpoint, shared_table), introspection=False, graphiql=False)
    async with Api.serving(settings) as api:
        refused = await api("{ __schema { types { name } } }")
        assert set(refused.codes) == {"BAD_USER_INPUT"}
        assert "introspection" in refused.errors[0]["message"].lower()
        assert (await api("{ __typename }")).ok() == {"__typename": "Query"}
        page = await api.http.get("/graphql", headers={"Accept": "text/html"})
        assert "graphiql" not in page.text.lower()


# ---- the rules, declared once -----------------------------------------------------------


def root_fields() -> dict[str, Any]:
    schema = build_schema()
    fields: dict[str, Any] = {}
    for kind in (schema.query, schema.mutation):
        definition = schema.get_type_by_name(kind.__name__)  # type: ignore[union-attr]
        for field in definition.fields:  # type: ignore[union-attr]
            name = schema.config.name_converter.from_field(field)
            fields[f"{kind.__name__}.{name}"] = field
    return fields


def test_every_query_and_mutation_field_declares_its_rule() -> None:
    fields = root_fields()
    assert len(fields) == 32
    undeclared = [name for name, field in fields.items() if RULE not in field.metadata]
    assert undeclared == []
    assert all(isinstance(field.metadata[RULE], Rule) for field in fields.values())


def test_what_anyone_may_read_reaches_no_private_type() -> None:
    """Fields below a root field have no rule of their own: a root field open to anyone must
    not lead to a type that only a stricter rule shows (customers, orders, tickets)."""
    schema = build_schema()._schema
    private = {"Customer", "Order", "Queue", "Ticket"}
    query = schema.query_type
    assert query is not None
    for name, field in root_fields().items():
        rule = field.metadata[RULE]
        if not name.startswith("Query.") or not isinstance(rule, Anyone):
            continue
        graphql_field = query.fields[name.removeprefix("Query.")]
        reached = _reachable(get_named_type(graphql_field.type))
        assert not reached & private, (name, reached & private)


def _reachable(start: GraphQLNamedType) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        named = todo.pop()
        if named.name in seen:
            continue
        seen.add(named.name)
        if isinstance(named, GraphQLObjectType):
            todo.extend(get_named_type(f.type) for f in named.fields.values())
    return seen


def test_the_readme_states_every_rule_as_declared() -> None:
    """The identity doc's table: one row per rule, naming exactly the fields that declare it."""
    table = IDENTITY.read_text().split("<!-- rules -->")[1]
    rows = dict(re.findall(r"^\| (.+?) \| (.+?) \|$", table, re.MULTILINE))
    declared: dict[str, set[str]] = {}
    for name, field in root_fields().items():
        declared.setdefault(field.metadata[RULE].description, set()).add(name.split(".")[1])
    stated = {
        rule: set(re.findall(r"`(\w+)`", fields)) for fields, rule in rows.items() if "`" in fields
    }
    assert stated == declared


def test_signed_in_rules_are_not_open_to_anonymous_callers() -> None:
    fields = root_fields()
    anyone = {n for n, f in fields.items() if isinstance(f.metadata[RULE], Anyone)}
    assert {n for n in anyone if n.startswith("Mutation.")} == set()
    assert all(isinstance(f.metadata[RULE], SignedIn) for n, f in fields.items() if n not in anyone)
