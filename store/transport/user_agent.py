"""The User-Agent header of a client's calls, made once per set of features.

botocore builds the header twice for every call (when the request is made, and again when
it is created, to add the features the call used), walking its components each time: about
4 % of the gateway's CPU under load. Everything in the header is fixed for a client except
the features (`m/…`: the client's own and those its call registered), so the header is kept
per set of features and is byte for byte the one botocore would build.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from botocore.context import get_context

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


class UserAgentChanged(Exception):
    """botocore no longer builds the header the way this module relies on."""


def remember_user_agent(client: DynamoDBClient) -> None:
    """Make `client`'s User-Agent header once per set of features."""
    creator: Any = getattr(client, "_user_agent_creator", None)
    if creator is None or not callable(getattr(creator, "to_string", None)):
        raise UserAgentChanged("botocore clients no longer hold `_user_agent_creator`")
    build = creator.to_string
    made: dict[tuple[frozenset[str], frozenset[str]], str] = {}

    def to_string() -> str:
        context = get_context()
        key = (
            frozenset(getattr(creator, "_client_features", None) or ()),
            frozenset(() if context is None else context.features),
        )
        header = made.get(key)
        if header is None:
            header = made[key] = build()
        return header

    # Both of botocore's callers look the method up on the instance at each call.
    creator.to_string = to_string
