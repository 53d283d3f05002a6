"""`dynagate model chart --format html` in a real browser with no internet: headless
Chromium, driven by Playwright, opens the page written for the demo model and for a table
ElectroDB writes, finds the chart visible with a row per entity and a column per index,
the page no wider than the window (a wide chart scrolls within its box), nothing fetched,
and takes a screenshot of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, ViewportSize

from demo.model import MODEL as DEMO
from gateway.cli.model_chart import html_page, written
from model import Model
from tests.model.electrodb_ticketing import MODEL as ELECTRODB

MODELS = {"demo.model": DEMO, "tests/model/electrodb_ticketing.py": ELECTRODB}
# A laptop's window, narrower than the demo's chart.
WINDOW = ViewportSize(width=1024, height=768)
PNG = b"\x89PNG\r\n\x1a\n"
# What the page says of its layout, read through the DOM.
MEASURED = """() => {
  const chart = document.querySelector("table.chart");
  const box = chart.parentElement;
  return {
    page: document.documentElement.scrollWidth,
    window: window.innerWidth,
    box: box.clientWidth,
    table: box.scrollWidth,
    overflow: getComputedStyle(box).overflowX,
  };
}"""


@pytest.mark.parametrize("name", MODELS)
async def test_the_chart_shows_each_entity_and_index_in_a_browser(
    browser: Browser, tmp_path: Path, name: str
) -> None:
    model: Model = MODELS[name]
    chart = tmp_path / "chart.html"
    chart.write_text(html_page(model, name), encoding="utf-8")
    page = await browser.new_page(viewport=WINDOW)
    requested: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(chart.as_uri())

    table = page.locator("table.chart")
    assert await table.is_visible()
    rows = table.locator("tbody tr")
    assert await rows.count() == len(model.entities)
    shown = [await rows.nth(n).locator("th").inner_text() for n in range(len(model.entities))]
    assert shown == [entity.name for entity in model.entities]
    indexes = model.table_layout.all
    heads = await table.locator("thead th.index").all_inner_texts()
    assert heads == [index.name or "table" for index in indexes]
    keys = await table.locator("thead th.key").all_inner_texts()
    assert keys == [attribute for index in indexes for attribute in index.attributes]
    first = model.entities[0]
    cells = await rows.nth(0).locator("td").all_inner_texts()
    partition = first.templates[first.table.partition_key]
    assert cells[0].startswith(written(partition))

    measured = await page.evaluate(MEASURED)
    assert measured["page"] <= measured["window"], measured
    assert measured["table"] <= measured["box"] or measured["overflow"] in ("auto", "scroll")
    if name == "demo.model":  # wider than the window: it scrolls within its box
        assert measured["table"] > measured["box"] and measured["overflow"] == "auto"

    screenshot = tmp_path / "chart.png"
    await page.screenshot(path=screenshot, full_page=True)
    picture = screenshot.read_bytes()
    assert picture.startswith(PNG) and len(picture) > 10_000
    assert requested == [chart.as_uri()] and errors == []
    await page.close()
