"""A page on another origin calling the API from a real browser (docs/http.md, "Browsers on
other origins"): headless Chromium loads a page from a second loopback port, whose script
POSTs JSON with a token and its own X-Request-ID, so the browser preflights first. A listed
origin's page reads the answer and the id; any other page's fetch fails, and nothing runs."""

from __future__ import annotations

import json
import uuid

import pytest
from playwright.async_api import Browser
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.cli.dynamodb_local import free_port
from gateway.http.app import create_app
from gateway.settings import Settings
from tests import live
from tests.client import settings_for
from tests.identity import SECURED, token

# The page's script: what a single-page app does, its outcome left in `window.pageOutcome`
# (not `window.outcome`: that names the element of id "outcome").
SCRIPT = """
const {gateway, token, requestId, query} = JSON.parse(
  document.getElementById("call").textContent);
try {
  const response = await fetch(gateway, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "authorization": `Bearer ${token}`,
      "x-request-id": requestId,
    },
    body: JSON.stringify({query}),
  });
  const answer = await response.json();
  window.pageOutcome = {status: response.status, answer,
                    requestId: response.headers.get("x-request-id")};
} catch (error) {
  window.pageOutcome = {error: `${error.name}: ${error.message}`};
}
document.getElementById("outcome").textContent = JSON.stringify(window.pageOutcome);
"""
PAGE = """<!doctype html><meta charset="utf-8"><title>app</title>
<script type="application/json" id="call">{call}</script>
<pre id="outcome"></pre>
<script type="module">{script}</script>"""
CREATE_REPO = 'mutation {{ createRepo(input: {{owner: "Ada", name: "{name}"}}) {{ owner name }} }}'


class Seen:
    """Every HTTP request that reached the gateway: method, Origin, and the request headers a
    preflight asks for."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.requests: list[tuple[str, str, str]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            self.requests.append(
                (
                    scope["method"],
                    headers.get(b"origin", b"").decode(),
                    headers.get(b"access-control-request-headers", b"").decode(),
                )
            )
        await self.app(scope, receive, send)

    def methods(self) -> list[str]:
        return [method for method, _, _ in self.requests]


def page_app(call: dict[str, str]) -> Starlette:
    """The app's page, calling the gateway as `call` says."""
    # `</` would end the script element early; JSON lets it be written `<\\/`.
    data = json.dumps(call).replace("</", "<\\/")

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE.format(call=data, script=SCRIPT))

    return Starlette(routes=[Route("/", page)])


async def call_from_page(
    browser: Browser, settings: Settings, page_port: int, repo: str
) -> tuple[dict[str, object], Seen, str]:
    """What the page on `page_port` got from the gateway served with `settings`, what
    reached the gateway, and the X-Request-ID the page sent."""
    seen = Seen(create_app(settings))
    request_id = f"page-{uuid.uuid4().hex}"
    async with live.serving(seen) as gateway:
        call = {
            "gateway": f"{gateway}/graphql",
            "token": token("Ada"),
            "requestId": request_id,
            "query": CREATE_REPO.format(name=repo),
        }
        async with live.serving(page_app(call), page_port) as origin:
            page = await browser.new_page()
            await page.goto(f"{origin}/")
            await page.wait_for_function("() => window.pageOutcome !== undefined", timeout=15_000)
            outcome: dict[str, object] = await page.evaluate("() => window.pageOutcome")
            shown = await page.inner_text("#outcome")
            assert json.loads(shown) == outcome
    return outcome, seen, request_id


@pytest.mark.parametrize("listed", ["exactly", "as *"])
async def test_a_listed_origins_page_reads_the_answer_and_its_request_id(
    endpoint: str, table: str, browser: Browser, listed: str
) -> None:
    page_port = free_port()
    origin = f"http://127.0.0.1:{page_port}"
    allowed = (origin,) if listed == "exactly" else ("*",)
    settings = settings_for(endpoint, table, cors_origins=allowed, **SECURED)
    outcome, seen, request_id = await call_from_page(browser, settings, page_port, "cors")
    assert "error" not in outcome, outcome
    answer = outcome["answer"]
    assert isinstance(answer, dict) and outcome["status"] == 200, outcome
    # Created as the token's subject: the Authorization header crossed over too.
    assert answer["data"] == {"createRepo": {"owner": "Ada", "name": "cors"}}, answer
    assert "cost" in answer["extensions"]
    # Read through `Access-Control-Expose-Headers`: hidden from the page otherwise.
    assert outcome["requestId"] == request_id
    # The browser asked first, for the token's and the id's headers, then sent the POST.
    assert len(seen.requests) == 2, seen.requests
    (preflight, post) = seen.requests
    assert preflight[0] == "OPTIONS" and preflight[1] == origin, seen.requests
    assert {"authorization", "content-type", "x-request-id"} <= set(preflight[2].split(","))
    assert post[:2] == ("POST", origin)


async def test_an_origin_not_listed_fails_to_fetch_and_runs_nothing(
    endpoint: str, table: str, browser: Browser
) -> None:
    listed = f"http://127.0.0.1:{free_port()}"  # another port: another origin
    settings = settings_for(endpoint, table, cors_origins=(listed,), **SECURED)
    outcome, seen, _ = await call_from_page(browser, settings, free_port(), "refused")
    assert outcome == {"error": "TypeError: Failed to fetch"}
    # The preflight was refused: the mutation never reached the gateway.
    assert seen.methods() == ["OPTIONS"]


async def test_with_no_origin_listed_a_page_elsewhere_fails_to_fetch(
    endpoint: str, table: str, browser: Browser
) -> None:
    """The shipped default: no CORS header at all, so no other origin's page reads."""
    settings = settings_for(endpoint, table, **SECURED)
    outcome, seen, _ = await call_from_page(browser, settings, free_port(), "default")
    assert outcome == {"error": "TypeError: Failed to fetch"}
    assert seen.methods() == ["OPTIONS"]
