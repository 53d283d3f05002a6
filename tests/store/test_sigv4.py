"""`store.transport.sigv4` signs as botocore's own signer does, header for header (no I/O)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from store.transport.sigv4 import Credentials, Signer, canonical_host
from tests.store.signing import signed_by_botocore

FIXED = {
    "X-Amz-Target": "DynamoDB_20120810.Query",
    "Content-Type": "application/x-amz-json-1.0",
    "User-Agent": "aiobotocore/2.25.1 md/Botocore#1.40.61 ua/2.1 m/N,Z,b",
}
NOW = datetime(2026, 11, 27, 16, 52, 57, tzinfo=UTC)


def botocores(
    url: str, fixed: dict[str, str], body: bytes, credentials: Credentials, now: datetime
) -> dict[str, str]:
    return signed_by_botocore(url, fixed, body, credentials, "eu-west-1", now)


@pytest.mark.parametrize(
    "url",
    [
        "https://dynamodb.eu-west-1.amazonaws.com/",
        "https://dynamodb.eu-west-1.amazonaws.com:443/",
        "http://127.0.0.1:8000/",
        "http://localhost/",
        "http://[::1]:8000/",
    ],
)
@pytest.mark.parametrize("token", [None, "FwoGZXIvYXdzE//token/with+signs=="])
def test_the_headers_are_botocores(url: str, token: str | None) -> None:
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token)
    body = b'{"TableName": "t", "Limit": 20}'
    signer = Signer(canonical_host(url), "eu-west-1", "dynamodb")
    assert signer.headers(FIXED, body, credentials, NOW) == botocores(
        url, FIXED, body, credentials, NOW
    )


def test_the_key_kept_for_a_day_signs_the_next_day_anew() -> None:
    credentials = Credentials("AK", "secret")
    url = "http://127.0.0.1:8000/"
    signer = Signer(canonical_host(url), "eu-west-1", "dynamodb")
    for day in (27, 28, 27):
        now = NOW.replace(day=day)
        assert signer.headers(FIXED, b"{}", credentials, now) == botocores(
            url, FIXED, b"{}", credentials, now
        )
    rotated = Credentials("AK", "another secret")
    assert signer.headers(FIXED, b"{}", rotated, NOW) == botocores(url, FIXED, b"{}", rotated, NOW)


@given(
    body=st.binary(max_size=200),
    target=st.text(min_size=1, max_size=30).filter(lambda t: t.strip() == t and "\n" not in t),
    spaces=st.sampled_from(["", " ", "  "]),
)
def test_any_body_and_header_value_sign_alike(body: bytes, target: str, spaces: str) -> None:
    # botocore folds the spaces of a header value before signing it: so does the signer.
    fixed = {**FIXED, "X-Amz-Target": f"DynamoDB_20120810.{spaces}{target}"}
    credentials = Credentials("AK", "secret", None)
    url = "http://127.0.0.1:8000/"
    signer = Signer(canonical_host(url), "eu-west-1", "dynamodb")
    assert signer.headers(fixed, body, credentials, NOW) == botocores(
        url, fixed, body, credentials, NOW
    )
