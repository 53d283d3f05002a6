"""A choice a client may give on create (`Choice(..., settable=True)`,
`tests/model/settable_choices.py`): an optional input field whose default is its initial
value, checked like any choice, changed by updates along the moves declared; and the
declarations refused when the model is built."""

from __future__ import annotations

from typing import Any

import pytest

import model as m
from gateway.schema.build import schema_sdl
from tests.client import Api
from tests.model.settable_choices import TASK, Priority, TaskState

pytestmark = pytest.mark.overrides(model="tests.model.settable_choices")

ADD = "mutation ($input: AddTaskInput!) { addTask(input: $input) { id priority state kind } }"
CHANGE = "mutation ($input: ChangeTaskInput!) { changeTask(input: $input) { priority state } }"


def task(**given: Any) -> dict[str, Any]:
    return {"id": "t1", "title": "write it", **given}


async def test_left_out_it_starts_at_its_initial_value(api: Api) -> None:
    added = await api(ADD, input=task())
    assert added.ok()["addTask"] == {
        "id": "t1",
        "priority": "NORMAL",
        "state": "OPEN",
        "kind": "TASK",
    }


async def test_given_it_is_stored_as_given(api: Api) -> None:
    added = await api(ADD, input=task(priority="HIGH", state="DONE"))
    assert added.ok()["addTask"]["priority"] == "HIGH"
    read = await api('{ task(id: "t1") { priority state kind } }')
    assert read.ok()["task"] == {"priority": "HIGH", "state": "DONE", "kind": "TASK"}


@pytest.mark.parametrize(
    "given",
    [
        {"priority": "URGENT"},  # not one of its values
        {"priority": None},  # its initial value is the default, not null
        {"kind": "CHORE"},  # not settable: the engine's alone
    ],
)
async def test_what_it_cannot_hold_is_bad_user_input(api: Api, given: dict[str, Any]) -> None:
    refused = await api(ADD, input=task(**given))
    assert refused.codes == ["BAD_USER_INPUT"], refused.body
    assert (await api('{ task(id: "t1") { id } }')).ok()["task"] is None


async def test_updates_change_it_along_its_moves(api: Api) -> None:
    await api(ADD, input=task(state="DONE"))
    # Created DONE: the moves start from there.
    archived = await api(CHANGE, input={"id": "t1", "state": "ARCHIVED", "priority": "LOW"})
    assert archived.ok()["changeTask"] == {"priority": "LOW", "state": "ARCHIVED"}
    reopened = await api(CHANGE, input={"id": "t1", "state": "OPEN"})
    assert reopened.codes == ["BAD_USER_INPUT"], reopened.body
    assert "ARCHIVED" in reopened.errors[0]["message"], reopened.errors
    read = await api('{ task(id: "t1") { priority state } }')
    assert read.ok()["task"] == {"priority": "LOW", "state": "ARCHIVED"}


def test_the_input_shows_its_initial_value_as_the_default() -> None:
    sdl = schema_sdl("tests.model.settable_choices")
    add = sdl[sdl.index("input AddTaskInput") :].split("}")[0]
    assert "priority: Priority! = NORMAL" in add
    assert "state: TaskState! = OPEN" in add
    assert "kind" not in add


def test_a_settable_choice_needs_an_initial_value() -> None:
    loose = m.Choice(values=Priority, settable=True)
    with pytest.raises(m.ModelError, match=r"`settable` needs an initial value"):
        m.Entity("Item", {"id": m.Identifier(), "priority": loose}, key=m.same(m.key("ITEM", "id")))


def test_a_settable_choice_only_admins_may_move_to_is_refused() -> None:
    """A client creating it could start it at a value only admins may move it to."""
    refund = m.moves("state", {TaskState.OPEN: [TaskState.DONE]}, admins_only=[TaskState.DONE])
    change = m.Update(TASK, "changeTask", ("state",), access="signed_in", moves=(refund,))
    with pytest.raises(
        m.ModelError, match=r"is settable, so a create could give the values only admins"
    ):
        m.Model((TASK,), (m.Create(TASK, "addTask", access="signed_in"), change))
