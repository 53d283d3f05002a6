"""Bearer tokens verified for real: HS256 with the shared secret, RS256 and ES256 with the
keys of a provider served over HTTP by the test session, every kind of bad token refused."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from data.callers import ANONYMOUS, Caller
from errors.vocabulary import Unauthenticated, Unavailable
from gateway.identity import MAX_TOKEN_CHARS, TokenVerifier, issue_token
from gateway.settings import Settings, SettingsError
from tests.identity import SECRET, token
from tests.jwks import AUDIENCE, ISSUER, JwksServer, SigningKey

RSA_KEY = SigningKey.generate("rsa-1")
EC_KEY = SigningKey.generate("ec-1", "ES256")


@pytest.fixture
def jwks(provider: JwksServer) -> Iterator[JwksServer]:
    provider.publish(RSA_KEY, EC_KEY)
    provider.down = False
    provider.garbage = None
    yield provider
    provider.garbage = None


def verifier(jwks: JwksServer | None = None, **given: Any) -> TokenVerifier:
    options: dict[str, Any] = {"secret": SECRET}
    if jwks is not None:
        options = {"jwks_url": jwks.url, "issuer": ISSUER, "audience": AUDIENCE}
    return TokenVerifier(**{**options, **given})


async def sign_in(check: TokenVerifier, value: str) -> Caller:
    return await check.caller([f"Bearer {value}"])


async def refused(check: TokenVerifier, value: str) -> str:
    with pytest.raises(Unauthenticated) as raised:
        await sign_in(check, value)
    return str(raised.value)


def unsigned(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    encoded = (json.dumps(header).encode(), json.dumps(claims).encode(), signature)
    return ".".join(part(p) for p in encoded)


def claims(subject: str = "alice", **given: Any) -> dict[str, Any]:
    now = int(time.time())
    body = {"sub": subject, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600}
    return {**body, **given}


# ---- the shared secret -----------------------------------------------------------------------


async def test_a_secret_token_signs_its_subject_in() -> None:
    check = verifier()
    assert await sign_in(check, token("alice")) == Caller("alice")
    assert (await sign_in(check, token("root", admin=True))).admin
    # Without a header, the caller is anonymous: never someone.
    assert await check.caller([]) == ANONYMOUS


async def test_the_admin_group_comes_from_groups_or_cognito_groups() -> None:
    check = verifier(admin_group="ops")
    assert (await sign_in(check, token("a", groups=["dev", "ops"]))).admin
    assert (await sign_in(check, token("a", **{"cognito:groups": ["ops"]}))).admin
    assert (await sign_in(check, token("a", groups="ops"))).admin
    assert not (await sign_in(check, token("a", admin=True))).admin  # "admin" is not "ops"
    assert not (await sign_in(check, token("a", groups=[["ops"]]))).admin


async def test_the_display_name_is_taken_only_when_it_is_text() -> None:
    check = verifier()
    assert (await sign_in(check, token("a", name="Alice A."))).display_name == "Alice A."
    assert (await sign_in(check, token("a", name="bad\x00name"))).display_name is None
    assert (await sign_in(check, token("a", name="x" * 201))).display_name is None


@pytest.mark.parametrize(
    ("made", "reason"),
    [
        (lambda: token("alice", ttl=-120), "expired"),
        (lambda: token("alice", nbf=int(time.time()) + 600), "not valid yet"),
        (lambda: jwt.encode(claims(), b"another-secret-of-32-bytes-000000", "HS256"), "signature"),
        (lambda: token("alice", exp=None), "`exp`"),
        (lambda: token("alice", exp="tomorrow"), "malformed"),
        (lambda: jwt.encode({"sub": "alice"}, SECRET, "HS256"), "`exp`"),
        (lambda: jwt.encode({"exp": int(time.time()) + 60}, SECRET, "HS256"), "`sub`"),
        (lambda: token("al#ice"), "not a username"),
        (lambda: token("x" * 65), "not a username"),
        (lambda: token(""), "not a username"),
        (lambda: unsigned({"alg": "none", "typ": "JWT"}, claims()), "algorithm"),
        (lambda: unsigned({"alg": "HS512"}, claims()), "algorithm"),
        (lambda: "not.a.token", "malformed"),
        (lambda: "abc", "malformed"),
    ],
)
async def test_bad_secret_tokens_are_refused_with_the_reason(made: Any, reason: str) -> None:
    assert reason in await refused(verifier(), made())


async def test_issuer_and_audience_are_checked_when_set() -> None:
    check = verifier(issuer="https://me/", audience="api")
    good = token("alice", iss="https://me/", aud="api")
    assert await sign_in(check, good) == Caller("alice")
    assert "issuer" in await refused(check, token("alice", iss="https://other/", aud="api"))
    assert "audience" in await refused(check, token("alice", iss="https://me/", aud="web"))
    assert "`aud`" in await refused(check, token("alice", iss="https://me/"))


@pytest.mark.parametrize(
    "header",
    [
        "Basic YWxpY2U6c2VjcmV0",
        "Bearer",
        "Bearer ",
        "Token abc",
        "Bearer a b",
        "Bearer abc\u00e9",
    ],
)
async def test_an_authorization_header_that_is_not_a_bearer_token_is_refused(
    header: str,
) -> None:
    with pytest.raises(Unauthenticated, match="Bearer"):
        await verifier().caller([header])


async def test_several_headers_and_huge_tokens_are_refused_unread() -> None:
    with pytest.raises(Unauthenticated, match="one Authorization header"):
        await verifier().caller([f"Bearer {token('a')}", f"Bearer {token('b')}"])
    assert "characters" in await refused(verifier(), "a" * (MAX_TOKEN_CHARS + 1))


# ---- an OpenID Connect provider's keys ----------------------------------------------------


@pytest.mark.parametrize("key", [RSA_KEY, EC_KEY], ids=["RS256", "ES256"])
async def test_provider_tokens_sign_in_with_the_published_keys(
    jwks: JwksServer, key: SigningKey
) -> None:
    check = verifier(jwks)
    assert await sign_in(check, key.sign("alice")) == Caller("alice")
    assert (await sign_in(check, key.sign("bob", **{"cognito:groups": ["admin"]}))).admin


async def test_keys_are_fetched_once_and_cached(jwks: JwksServer) -> None:
    check = verifier(jwks)
    before = jwks.fetches
    for n in range(5):
        await sign_in(check, RSA_KEY.sign(f"user{n}"))
        await sign_in(check, EC_KEY.sign(f"user{n}"))
    assert jwks.fetches - before == 1


async def test_a_rotated_key_is_fetched_when_a_token_names_it(jwks: JwksServer) -> None:
    check = verifier(jwks, jwks_cooldown=0)
    await sign_in(check, RSA_KEY.sign("alice"))
    rotated = SigningKey.generate("rsa-2")
    # Not published yet: refused, never accepted on trust.
    assert "does not publish" in await refused(check, rotated.sign("alice"))
    jwks.publish(RSA_KEY, rotated)
    assert await sign_in(check, rotated.sign("alice")) == Caller("alice")


async def test_a_flood_of_unknown_key_ids_fetches_at_most_once_per_cooldown(
    jwks: JwksServer,
) -> None:
    check = verifier(jwks)  # the default cooldown
    await sign_in(check, RSA_KEY.sign("alice"))
    before = jwks.fetches
    forged = [SigningKey(f"made-up-{n}", "RS256", RSA_KEY.private) for n in range(50)]
    results = await asyncio.gather(
        *(sign_in(check, key.sign("mallory")) for key in forged), return_exceptions=True
    )
    assert all(isinstance(r, Unauthenticated) for r in results)
    assert jwks.fetches - before <= 1


@pytest.mark.parametrize(
    ("made", "reason"),
    [
        (lambda: RSA_KEY.sign("alice", iss="https://evil.example/"), "issuer"),
        (lambda: RSA_KEY.sign("alice", aud="another-app"), "audience"),
        (lambda: RSA_KEY.sign("alice", ttl=-120), "expired"),
        (
            lambda: jwt.encode(
                {"sub": "a", "aud": AUDIENCE, "exp": 2**40},
                RSA_KEY.private,
                "RS256",
                headers={"kid": "rsa-1"},
            ),
            "`iss`",
        ),
        (lambda: RSA_KEY.sign("alice", nbf=int(time.time()) + 600), "not valid yet"),
        (lambda: jwt.encode({"sub": "a", "exp": 2**40}, RSA_KEY.private, "RS256"), "`kid`"),
        (
            lambda: SigningKey("rsa-1", "RS256", SigningKey.generate("x").private).sign("alice"),
            "signature",
        ),
        (lambda: SigningKey("rsa-1", "ES256", EC_KEY.private).sign("alice"), "algorithm"),
        (lambda: unsigned({"alg": "none", "kid": "rsa-1"}, claims()), "algorithm"),
        (lambda: unsigned({"alg": "RS256"}, claims(), b"sig"), "`kid`"),
        (lambda: SigningKey("made-up", "RS256", RSA_KEY.private).sign("alice"), "not publish"),
    ],
)
async def test_bad_provider_tokens_are_refused_with_the_reason(
    jwks: JwksServer, made: Any, reason: str
) -> None:
    assert reason in await refused(verifier(jwks), made())


async def test_hs256_signed_with_the_providers_public_key_is_refused(jwks: JwksServer) -> None:
    public_pem = RSA_KEY.private.public_key().public_bytes(
        Encoding.PEM, PublicFormat.SubjectPublicKeyInfo
    )
    header = {"alg": "HS256", "kid": "rsa-1", "typ": "JWT"}
    signing_input = unsigned(header, claims()).rstrip(".")  # "<header>.<claims>"
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    forged = unsigned(header, claims(), mac)
    # With only the provider configured, HS256 is not an accepted algorithm at all.
    assert "algorithm" in await refused(verifier(jwks), forged)
    # With a secret too, HS256 is checked against the secret alone.
    both = verifier(jwks, secret=SECRET)
    assert "signature" in await refused(both, forged)


async def test_a_provider_that_cannot_be_reached_is_unavailable_not_a_sign_in(
    jwks: JwksServer,
) -> None:
    jwks.down = True
    with pytest.raises(Unavailable, match="identity provider"):
        await sign_in(verifier(jwks), RSA_KEY.sign("alice"))


@pytest.mark.parametrize(
    "garbage", [b"<html>502 Bad Gateway</html>", b"[]", b'{"keys": []}', b'{"keys": [{}]}']
)
async def test_a_provider_answering_garbage_is_unavailable_not_a_crash(
    jwks: JwksServer, garbage: bytes
) -> None:
    jwks.garbage = garbage
    with pytest.raises(Unavailable, match="identity provider"):
        await sign_in(verifier(jwks), RSA_KEY.sign("alice"))


# ---- `dynagate token` ------------------------------------------------------------------------


async def test_issued_tokens_verify_and_expire() -> None:
    settings = Settings(auth_secret=SECRET, auth_issuer="https://me/", auth_audience="api")
    check = verifier(issuer="https://me/", audience="api")
    assert await sign_in(check, issue_token(settings, "alice")) == Caller("alice")
    assert (await sign_in(check, issue_token(settings, "root", admin=True))).admin
    decoded = jwt.decode(issue_token(settings, "alice", ttl=60), SECRET, ["HS256"], audience="api")
    assert decoded["exp"] - decoded["iat"] == 60


async def test_issued_tokens_carry_the_username_in_the_claim_the_gateway_reads() -> None:
    settings = Settings(auth_secret=SECRET, auth_username_claim="username")
    check = verifier(username_claim="username")
    assert await sign_in(check, issue_token(settings, "alice")) == Caller("alice")


@pytest.mark.parametrize(
    ("subject", "ttl", "named"),
    [("a#b", 60, "--sub"), ("alice", 0, "--ttl"), ("alice", 10**9, "--ttl")],
)
def test_token_refuses_bad_arguments(subject: str, ttl: int, named: str) -> None:
    with pytest.raises(SettingsError, match=named):
        issue_token(Settings(auth_secret=SECRET), subject, ttl=ttl)
    with pytest.raises(SettingsError, match="DYNAGATE_AUTH_SECRET"):
        issue_token(Settings(), "alice")
