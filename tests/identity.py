"""Tokens for tests: signed for real, with keys the tests make (never a mocked check)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import jwt

from data.callers import Caller
from tests.client import Api

# The shared secret of `SECURED` settings (HS256 needs 32 bytes at least).
SECRET = b"test-auth-secret-of-32-bytes-min"
# Settings overrides that turn identity on with `SECRET`.
SECURED: dict[str, Any] = {"auth_secret": SECRET}


def token(subject: str, *, admin: bool = False, ttl: int = 600, **claims: Any) -> str:
    """An HS256 token for `subject` signed with `SECRET`; `claims` add or replace claims."""
    issued = int(time.time())
    body: dict[str, Any] = {"sub": subject, "iat": issued, "exp": issued + ttl}
    if admin:
        body["groups"] = ["admin"]
    return jwt.encode({**body, **claims}, SECRET, algorithm="HS256")


def caller(username: str, *, admin: bool = False) -> Caller:
    """The caller such a token signs in, for tests of the access patterns."""
    return Caller(username, admin=admin)


def as_user(api: Api, username: str, *, admin: bool = False, **claims: Any) -> Api:
    """`api` signed in as `username` (in the admin group with `admin`)."""
    return api.signed_in(token(username, admin=admin, **claims))


@asynccontextmanager
async def open_mode(api: Api) -> AsyncIterator[Api]:
    """A second gateway on `api`'s table with identity off: it writes what open mode writes."""
    settings = replace(api.settings, auth_secret=None, auth_jwks_url=None)
    async with Api.serving(settings) as opened:
        yield opened
