"""Who may use each Query and Mutation field (docs/identity.md), declared next to it.

Every root field names one `Rule`; a test fails when one does not. Fields below the root
are reached only through it, so they need none. A rule that depends only on the token is
decided here, before the resolver runs and so before any read. A rule that depends on
stored data (`Stored`) needs a signed-in caller here; the access pattern then makes the
decision part of its write's own condition, so no concurrent change slips past it.
In open mode (no identity configured) every rule lets everyone in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from strawberry import UNSET
from strawberry.permission import BasePermission

from data.callers import Caller
from errors.vocabulary import Forbidden, Unauthenticated
from resolvers.context import Context

# The key of a field's rule in Strawberry's field metadata.
RULE: Final = "dynagate.rule"


class Rule(BasePermission):
    """A rule of access; `description` is how the table of docs/identity.md states it."""

    def __init__(self, description: str) -> None:
        self.description = description

    def has_permission(self, source: Any, info: Any, **kwargs: Any) -> bool:
        context: Context = info.context
        caller = context.caller
        if not caller.open:
            self.check(caller, kwargs, info.field_name)
        return True

    def check(self, caller: Caller, args: Mapping[str, Any], field: str) -> None:
        """Raise `Unauthenticated` or `Forbidden` unless `caller` may use `field`."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.description!r})"


class Anyone(Rule):
    """Signed in or not."""


class SignedIn(Rule):
    """Any signed-in caller."""

    def check(self, caller: Caller, args: Mapping[str, Any], field: str) -> None:
        if not caller.signed_in:
            raise Unauthenticated(f"sign in to use `{field}`")


class Admins(SignedIn):
    """Callers in the admin group."""

    def check(self, caller: Caller, args: Mapping[str, Any], field: str) -> None:
        super().check(caller, args, field)
        if not caller.admin:
            raise Forbidden(f"only admins may use `{field}`")


class Members(SignedIn):
    """Members of any of `groups` (the token's groups claims), and admins."""

    def __init__(self, groups: tuple[str, ...]) -> None:
        super().__init__("members of " + " or ".join(repr(g) for g in groups))
        self.groups = frozenset(groups)

    def check(self, caller: Caller, args: Mapping[str, Any], field: str) -> None:
        super().check(caller, args, field)
        if not caller.admin and caller.groups.isdisjoint(self.groups):
            raise Forbidden(f"only {self.description} may use `{field}`")


class Themselves(SignedIn):
    """The caller acting as themselves: the argument at `path` (attribute names, dotted,
    as the resolver receives them) must be their username (the claim
    `DYNAGATE_AUTH_USERNAME_CLAIM` names). Ids compare exactly; usernames and owners
    ignore case (`fold_case`)."""

    def __init__(self, description: str, path: str, name: str, *, fold_case: bool) -> None:
        super().__init__(description)
        self.path = path.split(".")
        self.name = name
        self.fold_case = fold_case

    def check(self, caller: Caller, args: Mapping[str, Any], field: str) -> None:
        super().check(caller, args, field)
        if caller.admin:
            return
        value = _argument(args, self.path)
        same = caller.is_user(value) if self.fold_case else value == caller.username
        if not same:
            raise Forbidden(f"`{field}`: {self.name} must be your own username, {caller.username}")


class Stored(SignedIn):
    """A rule on stored data: the access pattern decides it in its write (or its read)."""


class AdminsGive(SignedIn):
    """`rule`, and the argument at `path` (as `Themselves` reads it; `name` as the schema
    spells it) is for admins only: anyone else giving it a value is refused, whatever the
    rest of the call. Set times of creation are for imports of older data."""

    def __init__(self, rule: SignedIn, path: str, name: str) -> None:
        super().__init__(f"{rule.description}; `{name}` for admins only")
        self.rule = rule
        self.path = path.split(".")
        self.name = name

    def check(self, caller: Caller, args: Mapping[str, Any], field: str) -> None:
        self.rule.check(caller, args, field)
        value = _argument(args, self.path)
        if not caller.admin and value is not None and value is not UNSET:
            raise Forbidden(
                f"`{field}`: only admins may give `{self.name}`, which is for imports of older"
                " data; leave it out"
            )


def _argument(args: Mapping[str, Any], path: list[str]) -> Any:
    """The value at `path` (attribute names below the first) of a resolver's arguments."""
    value: Any = args[path[0]]
    for attribute in path[1:]:
        value = getattr(value, attribute)
    return value


ANYONE = Anyone("anyone, signed in or not")
SIGNED_IN = SignedIn("any signed-in caller")
AUTHOR = SignedIn("any signed-in caller, recorded as the author")
ADMINS = Admins("admins")
