"""Who may use a declared model's fields (`model.Access`, docs/identity.md): the rule each
access names, and for `owner` the check on the entity read when no argument names it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data.callers import Caller
from keys.errors import Forbidden
from model import Access, Entity
from resolvers.access import ADMINS, ANYONE, AUTHOR, SIGNED_IN, Rule, Stored, Themselves

RULES: Mapping[str, Rule] = {
    "anyone": ANYONE,
    "signed_in": SIGNED_IN,
    "author": AUTHOR,
    "admins": ADMINS,
}


def rule(access: Access, entity: Entity, given: str | None = None) -> Rule:
    """The rule of `access` to `entity`; for `owner`, `given` is the path of the argument
    holding the owner (None: the entity read decides)."""
    if access == "owner":
        return _owners(entity, given)
    if access != "writer":
        return RULES[access]
    author = entity.author
    role = "author" if author is None else author[1].role
    return Stored(f"the {entity.noun}'s {role}")


def _owners(entity: Entity, given: str | None) -> Rule:
    owner = entity.owner
    assert owner is not None  # checked when the model is built
    name = owner.attribute
    if given is None:
        return Stored(f"that {owner.noun}")
    if given.startswith("input.") and name in entity.key_attributes:  # a create of the owner
        return Themselves(
            f"the caller, for `{name}` = their own username", given, name, fold_case=False
        )
    if given.startswith("input."):
        return Themselves(f"the {owner.noun} of `{name}`", given, name, fold_case=False)
    return Themselves(
        f"that {owner.noun} (`{name}` = their username)", given, name, fold_case=False
    )


def owned(entity: Entity, found: Mapping[str, Any], caller: Caller, described_as: str) -> None:
    """FORBIDDEN unless `caller` owns the entity read (or no rule applies to them)."""
    owner = entity.owner
    assert owner is not None
    if not (caller.unrestricted or found[owner.attribute] == caller.username):
        raise Forbidden(f"{described_as} is not yours")
