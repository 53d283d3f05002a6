"""The User-Agent header made once per set of features is the one botocore builds."""

from __future__ import annotations

from typing import Any

from botocore.context import start_as_current_context
from botocore.useragent import register_feature_id

from store.transport.connection import open_client

UNUSED = "http://127.0.0.1:9"  # no call is made


def built_by_botocore(creator: Any) -> str:
    header: str = type(creator).to_string(creator)
    return header


async def test_the_header_is_botocores_for_each_set_of_features() -> None:
    async with open_client(UNUSED, "us-east-1", local=True, env={}) as client:
        creator: Any = client._user_agent_creator  # type: ignore[attr-defined]
        assert creator.to_string() == built_by_botocore(creator)
        with start_as_current_context():
            register_feature_id("RETRY_MODE_STANDARD")
            standard = creator.to_string()
            assert standard == built_by_botocore(creator) and "m/" in standard
            register_feature_id("PAGINATOR")
            both = creator.to_string()
            assert both == built_by_botocore(creator) and both != standard
        assert creator.to_string() == built_by_botocore(creator)


async def test_it_is_built_once_per_set_of_features(monkeypatch: Any) -> None:
    async with open_client(UNUSED, "us-east-1", local=True, env={}) as client:
        creator: Any = client._user_agent_creator  # type: ignore[attr-defined]
        first = creator.to_string()
        builds: list[str] = []
        monkeypatch.setattr(
            type(creator), "to_string", lambda self: builds.append("built") or "changed"
        )
        assert [creator.to_string() for _ in range(3)] == [first] * 3
        assert builds == []


async def test_the_plain_client_is_left_as_botocore_makes_it() -> None:
    async with open_client(UNUSED, "us-east-1", local=True, env={}, lean=False) as client:
        creator: Any = client._user_agent_creator  # type: ignore[attr-defined]
        assert "to_string" not in vars(creator)
