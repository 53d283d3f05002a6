"""Bearer tokens (docs/identity.md, "Signing in"), verified by PyJWT: HS256 with the shared
secret, or RS256/ES256 with the keys an OpenID Connect provider publishes.

Which algorithms are accepted is fixed here, never read from the token: a token saying
`alg: none`, or HS256 signed with a provider's public key, is refused. The provider's keys
are cached by `gateway.provider_keys`: a token of a key already fetched never waits on the
provider, and a flood of made-up key ids fetches at most once every `JWKS_COOLDOWN` seconds.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import jwt

from data import validation
from data.callers import ANONYMOUS, Caller
from errors.vocabulary import BadUserInput, Unauthenticated, Unavailable
from gateway.provider_keys import KeySetUnavailable, ProviderKeys, UnknownKey
from gateway.settings import Settings, SettingsError
from keys.codecs import IDENTIFIER_PATTERN

if TYPE_CHECKING:
    from jwt.types import Options

SECRET_ALGORITHMS: tuple[str, ...] = ("HS256",)
PROVIDER_ALGORITHMS: tuple[str, ...] = ("RS256", "ES256")
# Longer than any token a provider issues; longer ones are refused before being parsed.
MAX_TOKEN_CHARS = 8 * 1024
# Seconds a token's clock may be off from ours (expiry, not-before, issued-at).
LEEWAY_SECONDS = 30
JWKS_LIFESPAN = 600
JWKS_COOLDOWN = 30.0
JWKS_TIMEOUT = 3.0
_BEARER = re.compile(r"Bearer +([A-Za-z0-9_.~+/=-]+)", re.IGNORECASE)
_FAILURES: Sequence[tuple[type[jwt.InvalidTokenError], str]] = (
    (jwt.ExpiredSignatureError, "the token has expired"),
    (jwt.ImmatureSignatureError, "the token is not valid yet"),
    (jwt.InvalidAudienceError, "the token is for another audience"),
    (jwt.InvalidIssuerError, "the token is from another issuer"),
    (jwt.InvalidSignatureError, "the token's signature does not verify"),
    (jwt.InvalidAlgorithmError, "the token's algorithm is not accepted"),
)


class TokenVerifier:
    """Turns an `Authorization` header into the `Caller` it signs in (or refuses it)."""

    def __init__(
        self,
        *,
        secret: bytes | None = None,
        jwks_url: str | None = None,
        issuer: str | None = None,
        audience: str | None = None,
        admin_group: str = "admin",
        groups_claim: str | None = None,
        username_claim: str = "sub",
        jwks_cooldown: float = JWKS_COOLDOWN,
        jwks_lifespan: float = JWKS_LIFESPAN,
        jwks_timeout: float = JWKS_TIMEOUT,
    ) -> None:
        self.secret = secret
        self.issuer = issuer
        self.audience = audience
        self.admin_group = admin_group
        self.groups_claims = ("groups", "cognito:groups", *([groups_claim] if groups_claim else []))
        self.username_claim = username_claim
        # What every token must carry; the same for every token this verifier checks. The
        # audience is checked by `_check_audience`, which knows Cognito's access tokens.
        required = ["exp", username_claim] + ["iss"] * bool(issuer)
        self._options: Options = {"require": required, "verify_aud": False}
        self.keys = (
            None
            if jwks_url is None
            else ProviderKeys(
                jwks_url,
                algorithms=PROVIDER_ALGORITHMS,
                lifespan=jwks_lifespan,
                cooldown=jwks_cooldown,
                timeout=jwks_timeout,
            )
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenVerifier | None:
        """The verifier `settings` configure; None in open mode."""
        if settings.open_mode:
            return None
        return cls(
            secret=settings.auth_secret,
            jwks_url=settings.auth_jwks_url,
            issuer=settings.auth_issuer,
            audience=settings.auth_audience,
            admin_group=settings.auth_admin_group,
            groups_claim=settings.auth_groups_claim,
            username_claim=settings.auth_username_claim,
        )

    async def caller(self, authorization: Sequence[str]) -> Caller:
        """The caller the request's `Authorization` headers sign in: anonymous without one."""
        return (await self.session(authorization))[0]

    async def session(self, authorization: Sequence[str]) -> tuple[Caller, float | None]:
        """The caller `authorization` signs in, and when the token expires (epoch seconds;
        None without a token): a socket stays signed in until then."""
        if not authorization:
            return ANONYMOUS, None
        if len(authorization) > 1:
            raise Unauthenticated("send one Authorization header, not several")
        token = _bearer(authorization[0])
        try:
            claims = await self._claims(token)
        except jwt.InvalidTokenError as exc:
            raise Unauthenticated(_reason(exc)) from None
        return self._caller(claims), float(claims["exp"])

    async def _claims(self, token: str) -> dict[str, Any]:
        header = jwt.get_unverified_header(token)
        algorithm = header.get("alg")
        key: Any
        if algorithm in SECRET_ALGORITHMS and self.secret is not None:
            key, algorithms = self.secret, SECRET_ALGORITHMS
        elif algorithm in PROVIDER_ALGORITHMS and self.keys is not None:
            key, algorithms = await self._provider_key(header.get("kid")), PROVIDER_ALGORITHMS
        else:
            raise jwt.InvalidAlgorithmError(f"{algorithm!r} is not accepted")
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=list(algorithms),
            issuer=self.issuer,
            leeway=LEEWAY_SECONDS,
            options=self._options,
        )
        self._check_audience(claims)
        return claims

    def _check_audience(self, claims: dict[str, Any]) -> None:
        """The token is for this API: its `aud` holds `audience`, or, for an Amazon Cognito
        access token (`token_use: access`), which carries no `aud`, its `client_id` is it.
        Saying `token_use: access` dodges nothing: the `client_id` must match, and an `aud`
        the token carries as well is checked too."""
        if claims.get("token_use") == "access":
            client_id = claims.get("client_id")
            if not isinstance(client_id, str) or not client_id:
                raise jwt.MissingRequiredClaimError("client_id")
            if self.audience is not None and client_id != self.audience:
                raise jwt.InvalidAudienceError("the client is another")
            if "aud" not in claims:
                return
        elif "aud" not in claims:
            if self.audience is not None:
                raise jwt.MissingRequiredClaimError("aud")
            return
        audiences = claims["aud"]
        if isinstance(audiences, str):
            audiences = [audiences]
        # As PyJWT has it: with no audience configured, a token naming one is refused.
        well_formed = isinstance(audiences, list) and all(isinstance(a, str) for a in audiences)
        if not well_formed or self.audience not in audiences:
            raise jwt.InvalidAudienceError("the audience is another")

    async def _provider_key(self, kid: object) -> jwt.PyJWK:
        assert self.keys is not None
        if not isinstance(kid, str) or not kid:
            raise Unauthenticated("the token names no key (`kid`)")
        try:
            return await self.keys.key(kid)
        except UnknownKey:
            raise Unauthenticated(
                f"the token names key {kid[:64]!r}, which the provider does not publish"
            ) from None
        except KeySetUnavailable:
            # Logged once per fetch by `ProviderKeys`, not once per request.
            raise Unavailable(
                "the identity provider's keys could not be fetched; try again shortly"
            ) from None

    def _caller(self, claims: dict[str, Any]) -> Caller:
        claim = self.username_claim
        username = claims[claim]
        if not isinstance(username, str) or not IDENTIFIER_PATTERN.fullmatch(username):
            raise Unauthenticated(
                f"the token's `{claim}` claim is not a username: use 1 to 64 letters, "
                "digits, '.', '_' or '-', starting with a letter or digit"
            )
        groups: set[str] = set()
        for claim in self.groups_claims:
            value = claims.get(claim)
            if isinstance(value, str):
                groups.add(value)
            elif isinstance(value, list):
                groups.update(g for g in value if isinstance(g, str))
        return Caller(
            username,
            admin=self.admin_group in groups,
            display_name=_display_name(claims),
            groups=frozenset(groups),
        )


# `dynagate token --ttl`: a day by default, a year at most.
TOKEN_TTL = 24 * 3600
MAX_TOKEN_TTL = 365 * 24 * 3600


def issue_token(
    settings: Settings, subject: str, *, admin: bool = False, ttl: int = TOKEN_TTL
) -> str:
    """An HS256 token signed with `DYNAGATE_AUTH_SECRET` that signs `subject` in (in the
    admin group with `admin`), valid for `ttl` seconds: for development and tests."""
    if settings.auth_secret is None:
        raise SettingsError("set DYNAGATE_AUTH_SECRET to the secret the gateway verifies with")
    if not IDENTIFIER_PATTERN.fullmatch(subject):
        raise SettingsError(
            f"--sub {subject!r}: use 1 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    if not 0 < ttl <= MAX_TOKEN_TTL:
        raise SettingsError(f"--ttl {ttl}: use 1 to {MAX_TOKEN_TTL:,} seconds")
    issued = int(time.time())
    claims: dict[str, Any] = {"sub": subject, "iat": issued, "exp": issued + ttl}
    # The username goes where the gateway reads it (`DYNAGATE_AUTH_USERNAME_CLAIM`).
    claims[settings.auth_username_claim] = subject
    if admin:
        claims["groups"] = [settings.auth_admin_group]
    if settings.auth_issuer is not None:
        claims["iss"] = settings.auth_issuer
    if settings.auth_audience is not None:
        claims["aud"] = settings.auth_audience
    return jwt.encode(claims, settings.auth_secret, algorithm="HS256")


def _bearer(header: str) -> str:
    match = _BEARER.fullmatch(header.strip())
    if match is None:
        raise Unauthenticated("use `Authorization: Bearer <token>`")
    token = match.group(1)
    if len(token) > MAX_TOKEN_CHARS:
        raise Unauthenticated(f"the token is over {MAX_TOKEN_CHARS:,} characters")
    return token


def _reason(exc: jwt.InvalidTokenError) -> str:
    for kind, reason in _FAILURES:
        if isinstance(exc, kind):
            return reason
    if isinstance(exc, jwt.MissingRequiredClaimError):
        return f"the token has no `{exc.claim}` claim"
    return "the token is malformed"


def _display_name(claims: dict[str, Any]) -> str | None:
    """The token's `name`, when it is text a member's name may hold."""
    name = claims.get("name")
    if not isinstance(name, str):
        return None
    try:
        return validation.text(name, "name")
    except BadUserInput:
        return None
