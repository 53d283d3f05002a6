"""Headless Chromium for the tests that drive a real browser through Playwright: the
machine's own browser (none is downloaded), with no internet and none of its own background
traffic."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from playwright.async_api import Browser, async_playwright

from tests.programs import installed

# Where the browser is looked for when $CHROMIUM names none (`make browser` does the same).
BROWSERS = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    # macOS keeps them in application bundles, off the PATH.
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)
NO_BROWSER = (
    "make test needs Chromium or Google Chrome: install it "
    "(macOS: brew install --cask google-chrome) or set CHROMIUM=/path/to/browser"
)
# Every host name fails to resolve, except this machine: the browser has no internet.
NO_INTERNET = "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"


def chromium() -> str:
    """The browser to drive: $CHROMIUM, else the first of `BROWSERS` on the PATH."""
    return installed("CHROMIUM", BROWSERS, NO_BROWSER)


@asynccontextmanager
async def headless_chromium() -> AsyncIterator[Browser]:
    executable = chromium()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=executable,
            args=[
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--host-resolver-rules={NO_INTERNET}",
            ],
        )
        yield launched
        await launched.close()
