"""The booking example's access patterns once more, with the read cache on
(docs/cache.md): every answer as without it, writes followed by the reads they change."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.client import Api
from tests.examples.booking import BOOKING

# Every test of the module, collected again here under this module's settings.
from tests.examples.test_booking_api import *  # noqa: F403

pytestmark = [pytest.mark.overrides(model=BOOKING, cache=True), pytest.mark.streamed]


@pytest.fixture(autouse=True)
def answered_from_the_cache(api: Api) -> Iterator[None]:
    """Each test's reads went through the cache (it was on and answering)."""
    assert api.cache is not None
    yield
    assert api.cache.cache.stats.misses > 0, "no read went through the read cache"
