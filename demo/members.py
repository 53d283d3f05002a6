"""Members of an organization: the ADMIN check a write carries, and the demotion that keeps
an organization at least one ADMIN member (docs/design.md), over the declared entities
(`demo/model/organizations.py`).

An organization keeps an ADMIN member: a demotion commits only together with a
ConditionCheck, in its own TransactWriteItems, that another member is ADMIN at that
moment. When an ADMIN member demotes someone else, that other member is the caller, whose
check the write carries anyway; otherwise the admins index proposes one. The index may lag
a write by a moment, so it only proposes: the condition decides. Two demotions at once
each need the other's target to stay ADMIN, and DynamoDB serialises transactions, so they
cannot both commit. Nothing is counted on the organization item: every organization, one
stored before this rule included, holds it from its members' roles alone, and role
changes of different members never contend for one item.
"""

from __future__ import annotations

from typing import Any

from demo.model.organizations import MEMBER, ORGANIZATION, PATTERNS, Role
from dynagate import (
    GSI3,
    TABLE,
    Conflict,
    DynagateError,
    Forbidden,
    Item,
    ItemLoader,
    NotFound,
    PageArgs,
    Record,
    Store,
    TransactionCanceled,
    condition_check,
    expecting,
    list_read,
    record,
    transaction_update,
    update_request,
)
from model import ListOf

# The admins a demotion reads to find one other than the member it demotes.
WITNESS_READ = 2


[ADMINS] = [p for p in PATTERNS if isinstance(p, ListOf) and p.index is GSI3]


def member_key(organization: str, username: str) -> dict[str, str]:
    return MEMBER.primary_key({"organization": organization, "username": username})


def organization_key(organization: str) -> dict[str, str]:
    return ORGANIZATION.primary_key({"name": organization})


def admin_attributes(organization: str, username: str) -> dict[str, str]:
    """What puts a member into the sparse admins index; a non-admin carries none of it."""
    values = {"organization": organization, "username": username}
    return MEMBER.key_values(values, only=GSI3.attributes)


def admin_check(table: str, organization: str, username: str) -> dict[str, Any]:
    """That `username` is an ADMIN member, as an action of the write's own transaction, so
    a demotion committed first always wins. The member item comes back with a refusal."""
    check = condition_check(table, member_key(organization, username), exists=True)
    return expecting(check, {"role": Role.ADMIN}, old_on_failure=True)


def role_update(
    table: str, organization: str, username: str, role: Role, **guard: Any
) -> dict[str, Any]:
    """Set `role`; the same write moves the member into or out of the admins index."""
    admin = role == Role.ADMIN
    return update_request(
        table,
        member_key(organization, username),
        set_values={
            "role": role,
            **(admin_attributes(organization, username) if admin else {}),
        },
        remove=() if admin else GSI3.attributes,
        **guard,
    )


def forbidden(organization: str) -> Forbidden:
    return Forbidden(f"only ADMIN members of {organization!r} may change its members and teams")


def missing(organization: str) -> NotFound:
    return NotFound(f"organization {organization!r} does not exist")


def not_a_member(organization: str, username: str) -> NotFound:
    return NotFound(f"{username!r} is not a member of {organization!r}")


async def not_admin(store: Store, organization: str, member: Item | None) -> DynagateError:
    """Why the caller's ADMIN check failed, given their member item as it was found. With
    none, the organization may be missing (NOT_FOUND comes first): read once refused."""
    if member is not None:
        return forbidden(organization)
    found = await store.get(organization_key(organization), consistent=True)
    return missing(organization) if found is None else forbidden(organization)


async def member_as_set(
    store: Store, items: ItemLoader, organization: str, username: str, role: Role
) -> Record:
    """The member after a transaction set `role` (a transaction answers with nothing).
    Username, name and joinedAt never change, so an eventually consistent read serves (a
    consistent one only for a member added an instant ago); the role is the one set."""
    key = member_key(organization, username)
    stored = await store.get(key) or await store.get(key, consistent=True)
    if stored is None:
        raise not_a_member(organization, username)
    items.forget(key)
    return {**record(MEMBER, stored), "role": role}


# ---- the last ADMIN member stays ------------------------------------------------------------


async def demote(
    store: Store, items: ItemLoader, organization: str, username: str, *, own: bool
) -> Record:
    """MEMBER for `username`, while another member is ADMIN: by anyone no rule holds
    (`own` False: open mode, an admin), or by the member themselves while ADMIN (`own`)."""
    witness = await _other_admin(store, organization, username)
    if witness is None:
        return await _without_witness(store, items, organization, username, own=own)
    guard: dict[str, Any] = {"expect": {"role": Role.ADMIN}} if own else {}
    update = role_update(
        store.table, organization, username, Role.MEMBER, old_on_failure=True, **guard
    )
    actions = [transaction_update(update), admin_check(store.table, organization, witness)]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        if exc.failed(0):  # missing (NOT_FOUND first), or held to being ADMIN and not
            if exc.items[0] is None:
                raise not_a_member(organization, username) from exc
            raise forbidden(organization) from exc
        # The witness is no longer ADMIN: the member is not demoted.
        retry = "the role could not be changed: the ADMIN members changed meanwhile; try again"
        raise exc.as_error(retry) from exc
    return await member_as_set(store, items, organization, username, Role.MEMBER)


async def _other_admin(store: Store, organization: str, username: str) -> str | None:
    """An ADMIN member other than `username` as the admins index lists them, if any."""
    admins = list_read(ADMINS, ORGANIZATION, {"name": organization}, PageArgs(1, False, None))
    found = await store.query(admins.condition, forward=True, limit=WITNESS_READ, max_calls=1)
    demoted = member_key(organization, username)[TABLE.sort_key]
    others = (item["username"] for item in found.items if item[TABLE.sort_key] != demoted)
    return next(others, None)


async def _without_witness(
    store: Store, items: ItemLoader, organization: str, username: str, *, own: bool
) -> Record:
    """No other ADMIN member is listed, so nothing is written: the member as stored when
    already MEMBER, else the refusal. A read decides, since it writes nothing."""
    key = member_key(organization, username)
    stored = await store.get(key, consistent=True)
    if stored is None:
        raise not_a_member(organization, username)
    if stored["role"] == Role.ADMIN:
        raise Conflict(
            f"{username!r} is the only ADMIN member of {organization!r}, which must keep one:"
            " make another member ADMIN first (one made ADMIN an instant ago may take a"
            " moment to count)"
        )
    if own:  # a member who is not ADMIN changes no role, not even their own
        raise forbidden(organization)
    items.refresh(key, stored)
    return record(MEMBER, stored)
