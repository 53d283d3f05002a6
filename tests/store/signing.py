"""What botocore's own signer (`SigV4Auth`) makes of a request, at a given time."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from botocore import auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from store.transport.sigv4 import Credentials as Held


def signed_by_botocore(
    url: str,
    headers: Mapping[str, str | bytes],
    body: bytes,
    held: Held,
    region: str,
    now: datetime,
) -> dict[str, str]:
    """The headers botocore's signer gives a POST of `body` to `url` signed at `now`."""
    request = AWSRequest(method="POST", url=url, headers=dict(headers), data=body)
    signer = auth.SigV4Auth(
        Credentials(held.access_key, held.secret_key, held.token), "dynamodb", region
    )
    original = auth.get_current_datetime
    auth.get_current_datetime = lambda *_: now.replace(tzinfo=None)  # type: ignore[assignment]
    try:
        signer.add_auth(request)
    finally:
        auth.get_current_datetime = original
    return {name: str(value) for name, value in request.headers.items()}
