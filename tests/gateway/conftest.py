"""Fixtures of the subscription tests: the gateway on a real port, open, and secured with
small limits (two operations per socket, two sockets per caller, buffers of three); and of
the browser tests: headless Chromium."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser

from tests.browser import headless_chromium
from tests.client import settings_for
from tests.identity import SECURED
from tests.live import Served, served


@pytest.fixture
async def gateway(endpoint: str, table: str) -> AsyncIterator[Served]:
    async with served(settings_for(endpoint, table)) as running:
        yield running


@pytest.fixture
async def secured(endpoint: str, table: str) -> AsyncIterator[Served]:
    settings = settings_for(
        endpoint, table, **SECURED, max_subscriptions=2, max_connections=2, subscription_buffer=3
    )
    async with served(settings) as running:
        yield running


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with headless_chromium() as launched:
        yield launched
