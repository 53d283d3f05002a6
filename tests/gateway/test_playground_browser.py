"""The playground in a real browser with no internet: headless Chromium, driven by
Playwright, loads GraphiQL from the gateway, opens a shared URL with exactly its document,
variables and operation name in the editors, and runs it against the gateway."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlencode

import httpx
import pytest
import strawberry
from playwright.async_api import Browser, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from gateway.http.app import create_app
from gateway.settings import Settings
from tests import live
from tests.client import settings_for

CDN_PAGE = Path(strawberry.__file__).parent / "static" / "graphiql.html"
# Tokens no page holds unless it came from the URL.
QUERY = "{ uniq_7f3a: __typename }"
OPERATIONS = (
    "query First { first_7f3a: __typename }\n"
    "query Second($on: Boolean!) { second_7f3a: __typename @include(if: $on) }"
)
VARIABLES = '{"on": true}'
# GraphiQL's editors are CodeMirror 5 instances, each reachable from its element.
EDITOR_TEXT = "selector => document.querySelector(selector).CodeMirror.getValue()"
QUERY_EDITOR = ".graphiql-query-editor .CodeMirror"
VARIABLES_EDITOR = ".graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror"
RESULT = ".result-window .CodeMirror"


@pytest.fixture
async def served(endpoint: str, table: str) -> AsyncIterator[str]:
    """The gateway on a real port, as `dynagate serve` runs it."""
    settings = Settings(table=table, endpoint=endpoint, cursor_secret=b"test-secret")
    async with live.serving(create_app(settings)) as url:
        yield url


@dataclass
class Opened:
    page: Page
    requested: list[str] = field(default_factory=list)  # every URL the page asked for
    errors: list[str] = field(default_factory=list)  # every script error it raised


async def opened(browser: Browser, url: str) -> Opened:
    """The page at `url` once GraphiQL has rendered its query editor."""
    shown = Opened(await browser.new_page())
    shown.page.on("request", lambda request: shown.requested.append(request.url))
    shown.page.on("pageerror", lambda error: shown.errors.append(str(error)))
    await shown.page.goto(url)
    await shown.page.wait_for_selector(QUERY_EDITOR, timeout=30_000)
    return shown


async def editor_text(page: Page, selector: str) -> str:
    text: str = await page.evaluate(EDITOR_TEXT, selector)
    return text


async def run(page: Page) -> dict[str, object]:
    """Clicks GraphiQL's run button; the result pane's JSON once it shows one."""
    await page.click(".graphiql-execute-button")
    filled = f"() => ({EDITOR_TEXT})({json.dumps(RESULT)}).trim() !== ''"
    try:
        await page.wait_for_function(filled, timeout=15_000)
        answered = True
    except PlaywrightTimeout:
        answered = False
    assert answered, "the run button showed no result (GraphiQL asked which operation to run?)"
    result: dict[str, object] = json.loads(await editor_text(page, RESULT))
    return result


async def test_a_shared_query_url_opens_with_its_document_and_runs(
    served: str, browser: Browser
) -> None:
    # As a form or Python's urlencode writes it: spaces as `+`.
    shared = await opened(browser, f"{served}/graphql?{urlencode({'query': QUERY})}")
    assert await editor_text(shared.page, QUERY_EDITOR) == QUERY
    # The address bar now holds the link as GraphiQL writes one (encodeURIComponent's form).
    component = quote(QUERY, safe="!*'()")
    assert shared.page.url == f"{served}/graphql?q={component}"
    result = await run(shared.page)
    assert result["data"] == {"uniq_7f3a": "Query"}, result
    assert [url for url in shared.requested if not url.startswith(served + "/")] == []
    assert shared.errors == []


async def test_graphiqls_own_url_opens_with_variables_and_operation_name(
    served: str, browser: Browser
) -> None:
    # As GraphiQL writes it: `q`, percent-encoded.
    shared = f"q={quote(OPERATIONS)}&variables={quote(VARIABLES)}&operationName=Second"
    shown = await opened(browser, f"{served}/graphql?{shared}")
    assert await editor_text(shown.page, QUERY_EDITOR) == OPERATIONS
    assert await editor_text(shown.page, VARIABLES_EDITOR) == VARIABLES
    # Two operations: the one the URL names runs, with the URL's variables.
    result = await run(shown.page)
    assert result["data"] == {"second_7f3a": "Query"}, result
    assert shown.errors == []


async def test_a_link_cannot_set_the_readers_headers(served: str, browser: Browser) -> None:
    """GraphiQL keeps the headers editor's text and sends it with every run: a link that
    set it could make the reader run writes as the link's author."""
    planted = json.dumps({"Authorization": "Bearer planted-7f3a"})
    shown = await opened(
        browser, f"{served}/graphql?{urlencode({'query': QUERY, 'headers': planted})}"
    )
    sent: list[dict[str, str]] = []
    shown.page.on("request", lambda request: sent.append(request.headers))
    result = await run(shown.page)
    assert result["data"] == {"uniq_7f3a": "Query"}, result
    assert sent and not any("planted-7f3a" in json.dumps(headers) for headers in sent)
    assert "headers" not in shown.page.url


async def test_the_cdn_page_stays_blank_without_internet(browser: Browser) -> None:
    """The check that the browser really is offline: Strawberry's own page, whose files
    come from a CDN, never renders GraphiQL."""
    page = await browser.new_page()
    await page.goto(CDN_PAGE.as_uri())
    assert await page.locator(".graphiql-execute-button").count() == 0
    assert "Loading" in await page.inner_text("#graphiql")


SUBSCRIPTION = 'subscription { issueChanges(owner: "ada", name: "live") { kind number } }'


@pytest.mark.streamed
async def test_the_playground_runs_a_subscription(
    endpoint: str, table: str, browser: Browser
) -> None:
    """A subscription run from GraphiQL shows the event a write makes, through the stream."""
    async with live.served(settings_for(endpoint, table)) as gateway:
        shown = await opened(browser, f"{gateway.url}/graphql?{urlencode({'query': SUBSCRIPTION})}")
        await shown.page.click(".graphiql-execute-button")
        deadline = asyncio.get_running_loop().time() + 10
        while gateway.runtime.feed.active == 0:
            assert asyncio.get_running_loop().time() < deadline, "no subscription started"
            await asyncio.sleep(0.05)
        async with httpx.AsyncClient(base_url=gateway.url) as http:
            for query in (
                'mutation { createRepo(input: {owner: "ada", name: "live"}) { name } }',
                'mutation { openIssue(input: {owner: "ada", name: "live", title: "t"})'
                " { number } }",
            ):
                answer = (await http.post("/graphql", json={"query": query})).json()
                assert "errors" not in answer, answer
        filled = f"() => ({EDITOR_TEXT})({json.dumps(RESULT)}).includes('ADDED')"
        await shown.page.wait_for_function(filled, timeout=15_000)
        result = json.loads(await editor_text(shown.page, RESULT))
        assert result["data"] == {"issueChanges": {"kind": "ADDED", "number": 1}}, result
        assert shown.errors == []
