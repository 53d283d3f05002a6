"""An OpenID Connect provider's key endpoint for tests: a real HTTP server on a loopback
port, serving the JWKS the test publishes, with keys the test generates."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

ISSUER = "https://id.test.example/"
AUDIENCE = "dynagate-tests"


@dataclass
class SigningKey:
    kid: str
    algorithm: str  # RS256 or ES256
    private: Any

    @classmethod
    def generate(cls, kid: str, algorithm: str = "RS256") -> SigningKey:
        if algorithm == "ES256":
            return cls(kid, algorithm, ec.generate_private_key(ec.SECP256R1()))
        return cls(kid, algorithm, rsa.generate_private_key(public_exponent=65537, key_size=2048))

    @property
    def public_jwk(self) -> dict[str, Any]:
        to_jwk = ECAlgorithm.to_jwk if self.algorithm == "ES256" else RSAAlgorithm.to_jwk
        jwk: dict[str, Any] = to_jwk(self.private.public_key(), as_dict=True)
        return {**jwk, "kid": self.kid, "use": "sig", "alg": self.algorithm}

    def sign(self, subject: str, *, ttl: int = 600, **claims: Any) -> str:
        """A token of the provider for `subject`; `claims` add or replace claims, and those
        given as None are left out."""
        now = int(time.time())
        body = {"sub": subject, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + ttl}
        payload = {name: value for name, value in {**body, **claims}.items() if value is not None}
        return jwt.encode(
            payload, self.private, algorithm=self.algorithm, headers={"kid": self.kid}
        )


@dataclass
class JwksServer:
    """Serves `keys` at `url`; `fetches` counts the requests, `down` answers 503, and while
    `hanging()` runs, requests are accepted and never answered."""

    keys: list[SigningKey] = field(default_factory=list)
    fetches: int = 0
    down: bool = False
    # Served instead of the key set when set (a provider answering garbage).
    garbage: bytes | None = None
    # Seconds between the bytes of the body when set (a provider dripping its answer).
    drip: float | None = None
    # Set while requests hang; a hanging request waits for it to be released, then drops the
    # connection without a word.
    _hang: threading.Event | None = None
    # Requests run on threads of their own: a count that loses none.
    _counting: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/.well-known/jwks.json"

    def publish(self, *keys: SigningKey) -> None:
        self.keys = list(keys)

    @contextmanager
    def hanging(self) -> Iterator[None]:
        """While the block runs, the provider accepts each request and never answers it."""
        release = self._hang = threading.Event()
        try:
            yield
        finally:
            self._hang = None
            release.set()

    def __enter__(self) -> Self:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with provider._counting:
                    provider.fetches += 1
                hang = provider._hang
                if hang is not None:
                    hang.wait()
                    self.close_connection = True
                    return
                if provider.down:
                    self.send_error(503)
                    return
                keys = {"keys": [k.public_jwk for k in provider.keys]}
                body = provider.garbage or json.dumps(keys).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if provider.drip is None:
                    self.wfile.write(body)
                    return
                for at in range(len(body)):
                    try:
                        self.wfile.write(body[at : at + 1])
                        self.wfile.flush()
                    except OSError:
                        return  # the client gave up
                    time.sleep(provider.drip)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A short poll: tests with a provider of their own stop it without waiting long.
        serve = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        serve.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._server is not None
        if self._hang is not None:
            self._hang.set()
        self._server.shutdown()
        self._server.server_close()
