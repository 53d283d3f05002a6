"""Who is asking: the caller every rule of access (docs/identity.md) is decided for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from errors.vocabulary import Unauthenticated

# The stored author of what a signed-in caller wrote (`Comment.author`, `Issue.author`,
# `Ticket.openedBy`, `Marker.createdBy`), and its lower-case form, which conditions compare
# with since usernames are case-insensitive and DynamoDB conditions are not.
AUTHOR = "author"
AUTHOR_KEY = "authorKey"


@dataclass(frozen=True)
class Caller:
    """A signed-in subject (`username`), an anonymous caller, or anyone in open mode."""

    username: str | None = None
    admin: bool = False
    # Open mode (no identity configured): every request may do everything.
    open: bool = False
    # The name the token gives, for the member `createOrganization` makes of its caller.
    display_name: str | None = None
    # The groups the token's claims name (`groups`, `cognito:groups`, a configured one).
    groups: frozenset[str] = frozenset()

    @property
    def signed_in(self) -> bool:
        return self.username is not None

    @property
    def unrestricted(self) -> bool:
        """An admin, or anyone in open mode: no rule applies."""
        return self.admin or self.open

    @property
    def key(self) -> str | None:
        """The username as stored-data rules compare it (lower case)."""
        return None if self.username is None else self.username.lower()

    def is_user(self, username: str) -> bool:
        """Whether `username` names this caller (usernames are case-insensitive)."""
        return self.key is not None and self.key == username.lower()

    def restriction(self, refusal: str = "sign in to change what others wrote") -> str | None:
        """The author key a stored-data rule holds this caller to; None when none applies
        (an admin, open mode). An anonymous caller can be held to no key: refused, saying
        `refusal`."""
        if self.unrestricted:
            return None
        if self.key is None:
            raise Unauthenticated(refusal)
        return self.key

    def authored(self) -> dict[str, Any]:
        """The attributes that record this caller as the author of a new item."""
        if self.username is None:
            return {}
        return {AUTHOR: self.username, AUTHOR_KEY: self.username.lower()}


OPEN = Caller(open=True)
ANONYMOUS = Caller()


def author_of(item: dict[str, Any]) -> str | None:
    author: str | None = item.get(AUTHOR)
    return author


def wrote(item: dict[str, Any], caller: Caller) -> bool:
    """Whether `caller` may change `item` as its author (or without any restriction)."""
    restriction = caller.restriction()
    return restriction is None or item.get(AUTHOR_KEY) == restriction
