"""What the GraphQL over HTTP specification asks of a response (docs/http.md).

A client that accepts `application/graphql-response+json` gets that media type, and a
*request error* (a document that does not parse or validate, variables that do not coerce,
an operation refused before it runs) is HTTP 400 with no `data` entry, so that a client or
proxy can tell it from a partial answer by the status alone. A client that asks only for
`application/json` (or says nothing) gets the answers it always got: HTTP 200.
"""

from __future__ import annotations

from typing import Any

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"


def prefers_graphql_response(accept: str) -> bool:
    """Whether an `Accept` header asks for the specification's media type over plain JSON:
    it names it with a quality above zero, at least as high as `application/json`'s."""
    qualities: dict[str, float] = {}
    for part in accept.split(","):
        media, _, parameters = part.strip().partition(";")
        quality = 1.0
        for parameter in parameters.split(";"):
            name, _, value = parameter.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        media = media.strip().lower()
        qualities[media] = max(qualities.get(media, 0.0), quality)
    wanted = qualities.get(GRAPHQL_RESPONSE, 0.0)
    return wanted > 0 and wanted >= qualities.get(JSON, 0.0)


def cors_options(origins: tuple[str, ...]) -> dict[str, Any]:
    """Starlette's `CORSMiddleware` for the browser origins allowed (`*`: any): what a page
    may send and read (docs/http.md#browsers-on-other-origins). Tokens travel in the
    `Authorization` header, never in cookies, so credentials are not allowed."""
    return {
        "allow_origins": list(origins),
        "allow_methods": ["GET", "POST"],
        # W3C trace context: a page traced by OpenTelemetry's web SDK continues its trace.
        "allow_headers": [
            "content-type",
            "authorization",
            "idempotency-key",
            "x-request-id",
            "traceparent",
            "tracestate",
        ],
        "expose_headers": ["x-request-id", "retry-after", "idempotent-replayed"],
        "allow_credentials": False,
        "max_age": 600,
    }
