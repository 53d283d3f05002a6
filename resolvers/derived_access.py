"""Who may use a declared model's fields (`model.Access`, docs/identity.md): the rule each
access names, and for `owner` the check on the entity read when no argument names it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data.callers import Caller
from errors.vocabulary import Forbidden
from model import Access, Entity, Group
from resolvers.access import ADMINS, ANYONE, AUTHOR, SIGNED_IN, Members, Rule, Stored, Themselves

RULES: Mapping[str, Rule] = {
    "anyone": ANYONE,
    "signed_in": SIGNED_IN,
    "author": AUTHOR,
    "admins": ADMINS,
}


def rule(
    access: Access, entity: Entity, given: str | None = None, *, parent: Entity | None = None
) -> Rule:
    """The rule of `access` to `entity`; for `owner`, `given` is the path of the argument
    holding the owner (None: the entity read decides); for `writer`, the owner of the
    entity's `parent` may too, when the entity's key names them."""
    if isinstance(access, Group):
        return Members(access.names)
    if access == "owner":
        return _owners(entity, given)
    if access == "parent_owner":
        assert parent is not None and parent.owner is not None  # checked when built
        return Stored(f"the {parent.noun}'s {parent.owner.noun}")
    if access != "writer":
        return RULES[access]
    author = entity.author
    role = "author" if author is None else author[1].role
    writer = f"the {entity.noun}'s {role}"
    if parent is not None and parent.owner is not None and _parent_owner(entity, parent):
        return Stored(f"the {parent.noun}'s {parent.owner.noun} or {writer}")
    return Stored(writer)


def owns_parent(
    entity: Entity, parent: Entity | None, arguments: Mapping[str, Any], caller: Caller
) -> bool:
    """Whether the entity's key `arguments` name `caller` as its parent's owner."""
    mine = None if parent is None else _parent_owner(entity, parent)
    if mine is None or parent is None or parent.owner is None:
        return False
    value = str(arguments[mine])
    if parent.attributes[parent.owner.attribute].folds_case:
        return caller.is_user(value)
    return caller.username is not None and value == caller.username


def _parent_owner(entity: Entity, parent: Entity) -> str | None:
    """The attribute of the entity's key holding its parent's owner, if any."""
    # Only an owner that is part of the parent's key is the one the child's key names.
    if (
        parent.owner is None
        or entity.parent is None
        or parent.owner.attribute not in parent.key_attributes
    ):
        return None
    for mine, theirs in entity.parent.attributes.items():
        if theirs == parent.owner.attribute and mine in entity.key_attributes:
            return mine
    return None


def _owners(entity: Entity, given: str | None) -> Rule:
    owner = entity.owner
    assert owner is not None  # checked when the model is built
    name = owner.attribute
    fold = entity.attributes[name].folds_case
    if given is None:
        return Stored(f"that {owner.noun}")
    if given.startswith("input.") and name in entity.key_attributes:  # a create of the owner
        return Themselves(f"the caller, as `{name}`", given, name, fold_case=fold)
    if given.startswith("input."):
        return Themselves(f"the {owner.noun} of `{name}`", given, name, fold_case=fold)
    return Themselves(f"that {owner.noun} (`{name}` = their username)", given, name, fold_case=fold)


def owned(entity: Entity, found: Mapping[str, Any], caller: Caller, described_as: str) -> None:
    """FORBIDDEN unless `caller` owns the entity read (or no rule applies to them)."""
    owner = entity.owner
    assert owner is not None
    value = str(found[owner.attribute])
    if entity.attributes[owner.attribute].folds_case:
        mine = caller.is_user(value)
    else:
        mine = value == caller.username
    if not (caller.unrestricted or mine):
        raise Forbidden(f"{described_as} is not yours")


def on_token(access: Access) -> Rule:
    """The rule of an access decided on the token alone (a viewport's, a heatmap's)."""
    return Members(access.names) if isinstance(access, Group) else RULES[access]
