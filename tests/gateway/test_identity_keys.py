"""The provider's keys against a provider that hangs, fails, drips or sends too much: a token
of a key already fetched never waits, made-up key ids fetch at most once a cooldown, and a
request whose key cannot be had in time is UNAVAILABLE."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Iterator
from typing import Any

import pytest

from data.callers import Caller
from errors.vocabulary import Unauthenticated, Unavailable
from gateway.identity import JWKS_TIMEOUT, PROVIDER_ALGORITHMS
from gateway.provider_keys import (
    MAX_KEY_SET_BYTES,
    MAX_KEYS,
    MAX_KID_CHARS,
    download_keys,
    key_set,
)
from tests.client import Api, settings_for
from tests.gateway.test_identity import refused, sign_in, verifier
from tests.jwks import AUDIENCE, ISSUER, JwksServer, SigningKey

KNOWN = SigningKey.generate("known-1")
# Well under the fetch timeout, however loaded the machine: what answering at once means.
AT_ONCE = JWKS_TIMEOUT / 2
# A wait bounded by the fetch timeout, with room for a loaded machine.
BOUNDED = JWKS_TIMEOUT * 1.6


@pytest.fixture
def own() -> Iterator[JwksServer]:
    """A provider of the test's own: hanging it holds up no other test."""
    with JwksServer() as running:
        running.publish(KNOWN)
        yield running


def made_up(n: int) -> SigningKey:
    """A key the provider does not publish, under a key id of its own."""
    return SigningKey(f"made-up-{n}", "RS256", KNOWN.private)


async def timed(call: Awaitable[Caller]) -> tuple[float, Caller | Exception]:
    """How long `call` took, and the caller it signed in or the refusal."""
    start = time.monotonic()
    try:
        outcome: Caller | Exception = await call
    except (Unauthenticated, Unavailable) as exc:
        outcome = exc
    return time.monotonic() - start, outcome


async def until(condition: Any, within: float = BOUNDED) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.02)


async def test_a_known_key_answers_at_once_while_made_up_ids_wait_on_a_hanging_provider(
    own: JwksServer,
) -> None:
    check = verifier(own, jwks_cooldown=0.5)
    await sign_in(check, KNOWN.sign("alice"))
    await asyncio.sleep(0.6)  # past the cooldown: a made-up key id may fetch again
    with own.hanging():
        before = own.fetches
        waiting = [
            asyncio.create_task(timed(sign_in(check, made_up(n).sign("mallory")))) for n in range(4)
        ]
        await asyncio.sleep(0.2)  # their fetch is in flight
        took, signed = await timed(sign_in(check, KNOWN.sign("alice")))
        assert signed == Caller("alice")
        assert took < AT_ONCE
        outcomes = await asyncio.gather(*waiting)
    # One fetch shared by the four, each waiting at most the timeout: then UNAVAILABLE.
    assert own.fetches - before == 1
    for took, outcome in outcomes:
        assert isinstance(outcome, Unavailable), outcome
        assert took < BOUNDED


async def test_made_up_ids_fetch_once_a_cooldown_when_the_fetch_fails_too(
    own: JwksServer,
) -> None:
    check = verifier(own)  # the default cooldown, 30 s
    with own.hanging():
        first = await asyncio.gather(
            *(timed(sign_in(check, made_up(n).sign("mallory"))) for n in range(5))
        )
        assert own.fetches == 1
        assert all(isinstance(o, Unavailable) and took < BOUNDED for took, o in first), first
        # The cooldown runs from the start of the failed fetch: no key set, answered at once.
        more = await asyncio.gather(
            *(timed(sign_in(check, made_up(n).sign("mallory"))) for n in range(5, 10))
        )
        assert all(isinstance(o, Unavailable) and took < AT_ONCE for took, o in more), more
    # The provider answers again, but within the cooldown nothing is fetched.
    took, outcome = await timed(sign_in(check, KNOWN.sign("alice")))
    assert isinstance(outcome, Unavailable) and took < AT_ONCE
    assert own.fetches == 1


async def test_concurrent_made_up_ids_share_one_fetch(own: JwksServer) -> None:
    check = verifier(own, jwks_cooldown=0)  # no cooldown: only sharing keeps it to one
    await sign_in(check, KNOWN.sign("alice"))
    results = await asyncio.gather(
        *(timed(sign_in(check, made_up(n).sign("mallory"))) for n in range(20))
    )
    assert all(isinstance(o, Unauthenticated) for _, o in results), results
    assert own.fetches == 2


async def test_a_waiter_that_leaves_stops_no_one_elses_fetch(own: JwksServer) -> None:
    check = verifier(own, jwks_cooldown=0)
    with own.hanging():
        leaving = asyncio.create_task(sign_in(check, made_up(1).sign("mallory")))
        await until(lambda: own.fetches == 1)
        leaving.cancel()  # its client went away
        took, outcome = await timed(sign_in(check, made_up(2).sign("mallory")))
        with pytest.raises(asyncio.CancelledError):
            await leaving
    assert isinstance(outcome, Unavailable) and took < BOUNDED
    assert own.fetches == 1  # the second joined the first's fetch, not cancelled with it


async def test_an_unknown_key_that_cannot_be_had_in_time_is_503_through_the_api(
    endpoint: str, shared_table: str, own: JwksServer
) -> None:
    settings = settings_for(
        endpoint, shared_table, auth_jwks_url=own.url, auth_issuer=ISSUER, auth_audience=AUDIENCE
    )
    headers = {"Authorization": f"Bearer {KNOWN.sign('alice')}"}

    async def post(api: Api) -> tuple[float, Any]:
        start = time.monotonic()
        response = await api.http.post(
            "/graphql", json={"query": '{ product(id: "p1") { id } }'}, headers=headers
        )
        return time.monotonic() - start, response

    async with Api.serving(settings) as api:
        with own.hanging():
            answers = await asyncio.gather(*(post(api) for _ in range(3)))
    for took, response in answers:
        assert response.status_code == 503
        assert response.headers["Retry-After"]
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
        assert took < BOUNDED
    assert own.fetches == 1


async def test_an_expired_key_set_is_fetched_again_in_the_background(own: JwksServer) -> None:
    check = verifier(own, jwks_lifespan=0.3, jwks_cooldown=0)
    await sign_in(check, KNOWN.sign("alice"))
    await asyncio.sleep(0.4)
    with own.hanging():
        for _ in range(3):  # the first starts the refresh; none waits for it
            took, signed = await timed(sign_in(check, KNOWN.sign("alice")))
            assert signed == Caller("alice") and took < AT_ONCE
        await until(lambda: own.fetches == 2)
    assert own.fetches == 2  # one refresh in flight at a time


async def test_a_key_the_provider_withdraws_is_refused_after_the_refresh(
    own: JwksServer,
) -> None:
    check = verifier(own, jwks_lifespan=0.3, jwks_cooldown=0)
    await sign_in(check, KNOWN.sign("alice"))
    own.publish(SigningKey.generate("known-2", "ES256"))
    await asyncio.sleep(0.4)
    # Served from the expired set while it is fetched again; refused once it has been.
    assert await sign_in(check, KNOWN.sign("alice")) == Caller("alice")
    deadline = time.monotonic() + BOUNDED
    while (outcome := (await timed(sign_in(check, KNOWN.sign("alice"))))[1]) == Caller("alice"):
        assert time.monotonic() < deadline, "the withdrawn key is still accepted"
        await asyncio.sleep(0.05)
    assert isinstance(outcome, Unauthenticated) and "does not publish" in str(outcome)


async def test_a_key_id_too_long_is_refused_without_a_fetch(own: JwksServer) -> None:
    check = verifier(own)
    long_id = SigningKey("k" * (MAX_KID_CHARS + 1), "RS256", KNOWN.private)
    assert "does not publish" in await refused(check, long_id.sign("mallory"))
    assert own.fetches == 0


@pytest.mark.parametrize(
    "served",
    [
        # More keys than any provider publishes (the same key under many ids: cheap to make).
        lambda: {"keys": [made_up(n).public_jwk for n in range(MAX_KEYS + 1)]},
        # A usable key set, but a body over the bound.
        lambda: {"keys": [KNOWN.public_jwk], "padding": "x" * MAX_KEY_SET_BYTES},
    ],
    ids=["too-many-keys", "too-large"],
)
async def test_a_key_set_over_the_bounds_is_unavailable(own: JwksServer, served: Any) -> None:
    own.garbage = json.dumps(served()).encode()
    with pytest.raises(Unavailable, match="identity provider"):
        await sign_in(verifier(own), KNOWN.sign("alice"))


async def test_a_provider_dripping_its_answer_is_given_up_at_the_deadline(
    own: JwksServer,
) -> None:
    own.drip = 0.05  # a byte every 50 ms: each socket wait is short, the whole is not
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        await asyncio.to_thread(download_keys, own.url, 0.5, {"RS256"})
    assert time.monotonic() - start < 0.5 + AT_ONCE


# ---- reading a key set (pure) -------------------------------------------------------------


def test_only_signing_keys_of_the_accepted_algorithms_are_kept() -> None:
    rsa, ec = KNOWN.public_jwk, SigningKey.generate("ec", "ES256").public_jwk
    document = {
        "keys": [
            "not a key",
            {},
            {**rsa, "kid": 7},
            {**rsa, "kid": ""},
            {**rsa, "kid": "k" * (MAX_KID_CHARS + 1)},
            {**rsa, "kid": "encryption", "use": "enc"},
            {"kty": "oct", "k": "c2VjcmV0LXNoYXJlZC13aXRoLW5vLW9uZQ", "kid": "shared-secret"},
            {**rsa, "kid": "rs512", "alg": "RS512"},
            {**rsa, "kid": "broken", "n": "!!"},
            {**rsa, "kid": "twice"},
            {**ec, "kid": "twice"},  # the first of a key id is kept
            {**ec, "kid": "no-use", "use": None},
            ec,
        ]
    }
    keys = key_set(document, PROVIDER_ALGORITHMS)
    assert sorted(keys) == ["ec", "no-use", "twice"]
    assert keys["twice"].algorithm_name == "RS256"


@pytest.mark.parametrize(
    "document",
    [[], "keys", {"keys": {}}, {"keys": []}, {"keys": [{}]}, {"keys": [{"kty": "oct", "k": "c2"}]}],
)
def test_a_document_without_a_usable_key_is_no_key_set(document: object) -> None:
    with pytest.raises(ValueError, match="key set"):
        key_set(document, PROVIDER_ALGORITHMS)
