"""Fixtures of the access pattern tests, which call the patterns straight, with no gateway."""

from __future__ import annotations

from typing import Any

import pytest

from store.client import Store


@pytest.fixture
def store(client: Any, table: str) -> Store:
    """A store over the test's own table, its cost report starting at zero."""
    return Store(client, table)
