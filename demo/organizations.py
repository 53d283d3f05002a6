"""What no declaration covers of the demo's organizations, plugged in through the model's
hook (docs/model.md#the-hook): who may change an organization (its ADMIN members, its
creator the first) and the most teams it has, written over the declared entities
(`demo/model/organizations.py`), whose keys and items they render."""

from __future__ import annotations

from datetime import datetime

from demo.counts import counted_put
from demo.members import (
    WITNESS_READ,
    admin_check,
    demote,
    forbidden,
    member_as_set,
    member_key,
    missing,
    not_a_member,
    not_admin,
    organization_key,
    role_update,
)
from demo.model.organizations import MAX_TEAMS, MEMBER, ORGANIZATION, TEAM, Role
from dynagate import (
    OPEN,
    TRANSACT_CALLS,
    Caller,
    ConditionFailed,
    Conflict,
    DynagateError,
    Item,
    ItemLoader,
    Record,
    Store,
    TransactionCanceled,
    checked,
    condition_check,
    new_items,
    new_token,
    now,
    put_new,
    record,
    transaction_put,
    transaction_update,
    validation,
    worst_case,
)


def _organization(name: str) -> str:
    return str(checked(ORGANIZATION.attributes["name"], name, "organization"))


def _member(organization: str, username: str, name: str, role: Role, joined: datetime) -> Item:
    """A member's item as it is written, joined at `joined`."""
    given = {"organization": organization, "username": username, "name": name, "role": role}
    _, item, _ = new_items(MEMBER, given, caller=OPEN, created=joined, current=joined)
    return item


@worst_case(requests=TRANSACT_CALLS)
async def create_organization(store: Store, name: str, *, caller: Caller = OPEN) -> Record:
    """A signed-in caller becomes its first ADMIN member in the same transaction; with no
    caller (open mode) it is one PutItem."""
    current = now()
    given = {"name": checked(ORGANIZATION.attributes["name"], name, "name")}
    _, item, _ = new_items(ORGANIZATION, given, caller=caller, created=current, current=current)
    conflict = f"organization {name!r} already exists"
    if caller.username is None:
        await put_new(store, item, conflict)
        return record(ORGANIZATION, item)
    display = caller.display_name or caller.username
    # Joined as the organization is made, to the millisecond.
    creator = _member(name, caller.username, display, Role.ADMIN, current)
    # A new organization has no members, so only its own item needs a condition.
    actions = [
        transaction_put(store.table, item, new_on=store.layout.table),
        transaction_put(store.table, creator),
    ]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        retry = "the organization could not be created; try again"
        raise exc.explained({0: Conflict(conflict)}, retry) from exc
    return record(ORGANIZATION, item)


# ---- the rule: ADMIN members of the organization (docs/identity.md) ----------------------


def _restricted(caller: Caller) -> str | None:
    """The username that must be an ADMIN member; None when no rule applies."""
    return caller.restriction("sign in to change an organization")


# ---- members ---------------------------------------------------------------------------


@worst_case(requests=TRANSACT_CALLS, items=2)
async def add_member(
    store: Store,
    organization: str,
    username: str,
    name: str,
    role: Role,
    *,
    caller: Caller = OPEN,
) -> Record:
    organization = _organization(organization)
    checked(MEMBER.attributes["username"], username, "username")
    member = _member(organization, username, validation.text(name, "name"), role, now())
    admin = _restricted(caller)
    conflict = Conflict(f"{username!r} is already a member of {organization!r}")
    if admin is not None and caller.is_user(username):
        raise await _self_added(store, organization, admin, conflict)
    actions = [
        condition_check(store.table, organization_key(organization), exists=True),
        transaction_put(store.table, member, new_on=store.layout.table),
    ]
    if admin is not None:
        actions.append(admin_check(store.table, organization, admin))
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        # In the order of precedence: the organization, the caller's role, the member.
        refusals = {0: missing(organization), 2: forbidden(organization), 1: conflict}
        raise exc.explained(refusals, "the member could not be added; try again") from exc
    return record(MEMBER, member)


async def _self_added(
    store: Store, organization: str, username: str, conflict: Conflict
) -> DynagateError:
    """Only an ADMIN member may add one, and an ADMIN member is a member already: adding
    oneself is refused whatever is stored. Nothing is written, so a read tells which."""
    member = await store.get(member_key(organization, username), consistent=True)
    if member is not None and member["role"] == Role.ADMIN:
        return conflict
    return await not_admin(store, organization, member)


# A demotion's read of the admins index, its transaction and its reads of the member.
@worst_case(requests=1 + TRANSACT_CALLS + 2, items=WITNESS_READ + 2)
async def set_member_role(
    store: Store,
    items: ItemLoader,
    organization: str,
    username: str,
    role: Role,
    *,
    caller: Caller = OPEN,
) -> Record:
    """Change a role; the same write moves the member into or out of the admins index.

    Changing another's role, an ADMIN member's transaction holds the caller's ADMIN check,
    which also keeps the organization an ADMIN member; a read of the member follows, since
    a transaction returns nothing. A demotion by anyone else needs another ADMIN member
    (`members.demote`: a read of the admins index, a transaction and a read). Making a
    member ADMIN with no rule to apply is one UpdateItem; so is a caller's own ADMIN role,
    held in that UpdateItem's condition (a transaction may not touch one item twice)."""
    organization = _organization(organization)
    checked(MEMBER.attributes["username"], username, "username")
    key = member_key(organization, username)
    admin = _restricted(caller)
    own = admin is not None and caller.is_user(username)
    if admin is not None and not own:
        return await _update_role_as_admin(store, items, organization, username, role, admin)
    if role == Role.MEMBER:
        return await demote(store, items, organization, username, own=own)
    if own:
        member = await _update_own_role(store, organization, username)
    else:
        member = await _update_role(store, organization, username, role)
    items.refresh(key, member)
    return record(MEMBER, member)


async def _update_role(store: Store, organization: str, username: str, role: Role) -> Item:
    try:
        # The token lets a move whose every answer was lost be found done (`store.witness`).
        request = role_update(store.table, organization, username, role, token=new_token())
        return await store.update(request)
    except ConditionFailed as exc:
        raise not_a_member(organization, username) from exc


async def _update_own_role(store: Store, organization: str, username: str) -> Item:
    """ADMIN, while the caller is ADMIN: nothing changes, but the write's condition decides
    the rule. The token lets a write whose every answer was lost be found done."""
    token = new_token()
    request = role_update(
        store.table, organization, username, Role.ADMIN, expect={"role": Role.ADMIN}, token=token
    )
    try:
        return await store.update(request)
    except ConditionFailed as exc:
        applied = exc.written_by(token)
        if applied is not None:
            return applied
        if exc.item is None:  # the member to change is missing: NOT_FOUND comes first
            raise not_a_member(organization, username) from exc
        raise forbidden(organization) from exc


async def _update_role_as_admin(
    store: Store, items: ItemLoader, organization: str, username: str, role: Role, admin: str
) -> Record:
    update = role_update(store.table, organization, username, role)
    actions = [admin_check(store.table, organization, admin), transaction_update(update)]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        # A missing member (or organization) to change is NOT_FOUND, before FORBIDDEN.
        if exc.failed(1):
            raise not_a_member(organization, username) from exc
        if exc.failed(0):
            raise await not_admin(store, organization, exc.items[0]) from exc
        refusals = {1: not_a_member(organization, username)}
        raise exc.explained(refusals, "the role could not be changed; try again") from exc
    return await member_as_set(store, items, organization, username, role)


# ---- teams -----------------------------------------------------------------------------


@worst_case(requests=TRANSACT_CALLS)
async def create_team(
    store: Store, organization: str, name: str, *, caller: Caller = OPEN
) -> Record:
    """A team, counted on the organization item in the same transaction (at most 100)."""
    organization = _organization(organization)
    current = now()
    given = {"organization": organization, "name": checked(TEAM.attributes["name"], name, "name")}
    _, team, _ = new_items(TEAM, given, caller=caller, created=current, current=current)
    # A refusal with no organization item means there is none.
    actions = counted_put(
        store,
        team,
        organization_key(organization),
        "#teamCount < :most",
        add={"teamCount": 1},
        condition_values={":most": MAX_TEAMS},
    )
    admin = _restricted(caller)
    if admin is not None:
        actions.append(admin_check(store.table, organization, admin))
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        if exc.failed(0) and exc.items[0] is None:
            raise missing(organization) from exc
        # In the order of precedence: the caller's role, then the team, then the count.
        refusals = {
            2: forbidden(organization),
            1: Conflict(f"team {name!r} already exists in {organization!r}"),
            0: Conflict(
                f"organization {organization!r} has {MAX_TEAMS} teams, the most it can have"
            ),
        }
        raise exc.explained(refusals, "the team could not be created; try again") from exc
    return record(TEAM, team)
