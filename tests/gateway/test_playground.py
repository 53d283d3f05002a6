"""GraphiQL served whole by the gateway: no file from another origin, each one exactly the
pinned file its `integrity` attribute names, and the URLs GraphiQL writes open it again.
Where the files are missing, the server and the page say how to fetch them."""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import pytest

from gateway import playground
from gateway.http.app import create_app
from gateway.playground import PINNED, URL_PREFIX, Playground, missing, page_html, sha384
from gateway.settings import Settings
from tests.client import Api

HTML = {"Accept": "text/html"}
FETCHED = playground.ASSETS


def test_every_pinned_file_is_fetched_and_as_pinned() -> None:
    assert missing() == []
    assert len({a.name for a in PINNED}) == len(PINNED)


def test_the_page_loads_nothing_from_another_origin() -> None:
    html = page_html()
    urls = re.findall(r"https?://[^\s\"'<>)]+", html)
    assert [u for u in urls if not u.startswith("http://www.w3.org/2000/svg")] == []
    assert len(re.findall(r'(?:src|href)="/graphql/assets/', html)) == len(PINNED)


def test_the_page_is_our_template_with_only_the_pinned_tags_filled_in() -> None:
    template = playground.TEMPLATE.read_text()
    html = page_html()
    assert "{{" not in html
    # Outside the tags, the page is the template as written.
    tag = r'<(?:script src|link rel="stylesheet" href)="/graphql/assets/[^"]+" integrity="[^"]+"'
    assert re.sub(tag + r"[^>]*>(?:</script>)?", "", html) == re.sub(
        r"\{\{ [^}]+ \}\}", "", template
    )


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.replace("{{ graphiql@3.8.3/graphiql.min.js }}", ""),
        lambda t: t.replace("graphiql@3.8.3/graphiql.min.js", "graphiql@9.9.9/graphiql.min.js"),
        lambda t: t + "{{ react@18.2.0/umd/react.production.min.js }}",
    ],
)
def test_a_template_not_naming_each_pinned_file_once_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[str], str]
) -> None:
    (tmp_path / "graphiql.html").write_text(change(playground.TEMPLATE.read_text()))
    monkeypatch.setattr(playground, "TEMPLATE", tmp_path / "graphiql.html")
    with pytest.raises(playground.AssetError, match="must name each pinned file once"):
        page_html()


async def test_nothing_from_the_request_is_put_in_the_page(app: Api) -> None:
    hostile = quote('</script><script>alert("x")</script>')
    for url in ("/graphql", f"/graphql?query={hostile}&operationName={hostile}&q={hostile}"):
        page = await app.http.get(url, headers=HTML)
        assert (page.status_code, page.text) == (200, page_html())


async def test_the_page_and_its_files_are_served_as_pinned(app: Api) -> None:
    page = await app.http.get("/graphql", headers=HTML)
    assert page.status_code == 200
    tags = re.findall(
        r'(?:src|href)="(/graphql/assets/[^"]+)"\s+integrity="sha384-([^"]+)"', page.text
    )
    assert len(tags) == len(PINNED)
    for url, digest in tags:
        served = await app.http.get(url)
        assert served.status_code == 200, url
        assert sha384(served.content) == digest, url
        assert "immutable" in served.headers["cache-control"]


async def test_a_url_graphiql_wrote_opens_the_playground(app: Api) -> None:
    query = quote('{ product(id: "p1") { id } }')
    page = await app.http.get(f"/graphql?query={query}&variables=%7B%7D", headers=HTML)
    assert page.status_code == 200
    assert "graphiql" in page.text.lower()
    # A client asking for JSON gets the query's answer.
    answer = await app.http.get(f"/graphql?query={query}", headers={"Accept": "application/json"})
    assert answer.status_code == 200 and answer.json()["data"] == {"product": None}


async def test_unknown_files_and_a_switched_off_playground_are_not_found(app: Api) -> None:
    assert (await app.http.get(URL_PREFIX + "../settings.py")).status_code == 404
    assert (await app.http.get(URL_PREFIX + "evil.js")).status_code == 404
    async with Api.serving(replace(app.settings, graphiql=False)) as off:
        name = PINNED[0].name
        assert (await off.http.get(URL_PREFIX + name)).status_code == 404


def test_without_its_files_the_server_warns_and_the_page_says_how_to_fetch_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(playground, "ASSETS", tmp_path)
    with caplog.at_level(logging.WARNING, logger="dynagate"):
        create_app(Settings(table="t", endpoint="http://127.0.0.1:9", cursor_secret=b"s"))
    assert "GraphiQL's files are missing: run `python -m gateway.playground`" in caplog.text
    shown = Playground()
    status, page = shown.html()
    assert status == 503
    assert "<code>python -m gateway.playground</code>" in page
    assert [a.spec for a in PINNED if a.spec not in page] == []
    # Fetched while the server runs: the next visit gets GraphiQL, no restart needed.
    for asset in PINNED:
        shutil.copy(FETCHED / asset.name, tmp_path / asset.name)
    assert shown.html() == (200, page_html())


async def test_a_browser_is_told_how_to_fetch_missing_files_rather_than_shown_a_blank_page(
    app: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(playground, "ASSETS", tmp_path)
    async with Api.serving(app.settings) as bare:
        page = await bare.http.get("/graphql", headers=HTML)
        assert page.status_code == 503
        assert "text/html" in page.headers["content-type"]
        assert "python -m gateway.playground" in page.text
        assert "/graphql/assets/" not in page.text
        assert (await bare.http.get(URL_PREFIX + PINNED[0].name)).status_code == 404


async def test_the_page_is_never_framed_by_another_site(app: Api) -> None:
    page = await app.http.get("/graphql", headers=HTML)
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["content-security-policy"] == "frame-ancestors 'none'"
