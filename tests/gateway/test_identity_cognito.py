"""Amazon Cognito's tokens, signed for real by a provider on a loopback port: access tokens
checked on `client_id` (they carry no `aud`), ID tokens on `aud`, the username taken from the
claim `DYNAGATE_AUTH_USERNAME_CLAIM` names, and no token dodging the audience check."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from data.callers import Caller
from gateway.identity import TokenVerifier
from gateway.settings import Settings
from tests.gateway.test_identity import refused, sign_in
from tests.jwks import AUDIENCE, ISSUER, JwksServer, SigningKey

POOL_KEY = SigningKey.generate("cognito-1")
# Cognito's app client id: what DYNAGATE_AUTH_AUDIENCE holds for its pool.
CLIENT_ID = AUDIENCE
SUB = str(uuid.UUID(int=7))


@pytest.fixture
def pool(provider: JwksServer) -> Iterator[JwksServer]:
    provider.publish(POOL_KEY)
    provider.down = False
    provider.garbage = None
    yield provider


def cognito(pool: JwksServer, username_claim: str = "username") -> TokenVerifier:
    """The verifier the settings of a Cognito pool make (`TokenVerifier.from_settings`)."""
    settings = Settings(
        auth_jwks_url=pool.url,
        auth_issuer=ISSUER,
        auth_audience=CLIENT_ID,
        auth_username_claim=username_claim,
    )
    check = TokenVerifier.from_settings(settings)
    assert check is not None
    return check


# The groups of the access tokens below.
READERS = frozenset({"readers"})


def access_token(**given: Any) -> str:
    """A Cognito access token: `client_id` and `username`, no `aud`."""
    claims = {
        "aud": None,
        "token_use": "access",
        "client_id": CLIENT_ID,
        "username": "ada",
        "scope": "aws.cognito.signin.user.admin",
        "cognito:groups": ["readers"],
    }
    return POOL_KEY.sign(SUB, **{**claims, **given})


def id_token(**given: Any) -> str:
    """A Cognito ID token: `aud` and `cognito:username`."""
    claims = {"token_use": "id", "cognito:username": "ada", "email": "ada@example.com"}
    return POOL_KEY.sign(SUB, **{**claims, **given})


async def test_an_access_token_of_the_app_client_signs_its_username_in(pool: JwksServer) -> None:
    check = cognito(pool)
    # Its groups are the caller's, which readers name; in the admin group, an admin.
    assert await sign_in(check, access_token()) == Caller("ada", groups=READERS)
    admin = await sign_in(check, access_token(username="root", **{"cognito:groups": ["admin"]}))
    assert admin == Caller("root", admin=True, groups=frozenset({"admin"}))


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        (lambda: access_token(client_id="another-app-client"), "another audience"),
        (lambda: access_token(client_id=None), "`client_id`"),
        (lambda: access_token(client_id=""), "`client_id`"),
        (lambda: access_token(client_id=[CLIENT_ID]), "`client_id`"),
        # Claiming to be an access token dodges nothing: an `aud` it carries is checked too.
        (lambda: access_token(aud="another-app-client"), "another audience"),
        # Only an access token is checked on `client_id`; any other needs the `aud`.
        (lambda: id_token(aud=None, client_id=CLIENT_ID), "`aud`"),
        (lambda: access_token(token_use="Access"), "`aud`"),
        (lambda: access_token(token_use=["access"]), "`aud`"),
        (lambda: access_token(token_use=None), "`aud`"),
        (lambda: id_token(aud="another-app-client"), "another audience"),
        (lambda: id_token(aud=[]), "another audience"),
        (lambda: id_token(aud=[CLIENT_ID, 7]), "another audience"),
    ],
)
async def test_a_token_for_another_client_is_refused(
    pool: JwksServer, token: Any, reason: str
) -> None:
    assert reason in await refused(cognito(pool, "sub"), token())


async def test_an_id_token_is_checked_on_its_audience(pool: JwksServer) -> None:
    check = cognito(pool, "cognito:username")
    assert await sign_in(check, id_token()) == Caller("ada")
    assert await sign_in(check, id_token(aud=[CLIENT_ID, "other"])) == Caller("ada")


async def test_the_username_claim_is_the_one_the_settings_name(pool: JwksServer) -> None:
    # By default the `sub` (a Cognito sub is a UUID: an identifier).
    assert await sign_in(cognito(pool, "sub"), access_token()) == Caller(SUB, groups=READERS)
    assert await sign_in(cognito(pool), access_token()) == Caller("ada", groups=READERS)


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ({"username": None}, "no `username` claim"),
        ({"username": "ada@example.com"}, "`username` claim is not a username"),
        ({"username": "x" * 65}, "`username` claim is not a username"),
        ({"username": ["ada"]}, "`username` claim is not a username"),
        ({"username": 7}, "`username` claim is not a username"),
    ],
)
async def test_a_username_claim_missing_or_not_an_identifier_is_refused_by_name(
    pool: JwksServer, given: dict[str, Any], reason: str
) -> None:
    assert reason in await refused(cognito(pool), access_token(**given))
