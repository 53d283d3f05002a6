"""An update that reads first what its keys need (`data/writes/entities.py`), against DynamoDB
Local: it tells another's entity apart before saying anything of its state, refuses a move
nothing allows only once the entity is found, and holds its write to what it read."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import pytest

from data.callers import Caller
from data.writes import entities as entity_writes
from data.writes import key_changes as update_keys
from errors.vocabulary import BadUserInput, Conflict, Forbidden, NotFound
from keys.table import GSI1
from model import (
    Author,
    Choice,
    Create,
    Delete,
    Entity,
    Identifier,
    Keys,
    Model,
    Timestamp,
    Update,
    key,
    moves,
    same,
)
from store.client import Store
from store.loaders import ItemLoader
from tests.data.races import interleave
from tests.table import scan_all
from tests.writes import moved


class Phase(StrEnum):
    NEW = "NEW"
    DONE = "DONE"
    GONE = "GONE"


JOB = Entity(
    "Job",
    {
        "id": Identifier(),
        "phase": Choice(values=Phase, initial=Phase.NEW),
        "createdAt": Timestamp(stamped="create"),
        "by": Author(verb="filed", role="filer"),
    },
    key=same(key("JOB", "id")),
    indexes={GSI1: Keys(key("JOBS"), key("JOB", "phase", "createdAt", "id"))},
)
MOVE = Update(JOB, "move", ("phase",), moves=(moves("phase", {Phase.NEW: [Phase.DONE]}),))
MODEL = Model((JOB,), (Create(JOB, "fileJob"), MOVE, Delete(JOB, "dropJob")))
ALICE, BOB = Caller("alice"), Caller("bob")


async def move(store: Store, phase: Phase, caller: Caller, job: str = "j1") -> Any:
    changes = {"phase": phase}
    return await moved(
        store, ItemLoader(store), MOVE, {"id": job}, changes, caller=caller, writer_only=True
    )


async def test_another_writer_hears_forbidden_whatever_the_move(store: Store) -> None:
    assert update_keys.kept_values(JOB, {"phase"}) == {"createdAt"}
    await entity_writes.create(store, MODEL, JOB, {"id": "j1"}, caller=ALICE)
    for phase in (Phase.DONE, Phase.GONE):  # allowed, and allowed from nowhere
        with pytest.raises(Forbidden, match="filed by someone else"):
            await move(store, phase, BOB)
    with pytest.raises(NotFound):
        await move(store, Phase.GONE, ALICE, job="ghost")
    with pytest.raises(BadUserInput, match="cannot move from NEW to GONE"):
        await move(store, Phase.GONE, ALICE)
    moved = await move(store, Phase.DONE, ALICE)
    assert moved["phase"] is Phase.DONE


async def test_an_entity_made_anew_after_the_read_is_not_written_with_what_was_read(
    store: Store, client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await entity_writes.create(store, MODEL, JOB, {"id": "j1"}, caller=ALICE)

    async def remade(other: Store, items: ItemLoader) -> None:
        await entity_writes.delete(other, items, JOB, {"id": "j1"}, caller=ALICE, writer_only=True)
        await entity_writes.create(other, MODEL, JOB, {"id": "j1"}, caller=ALICE)

    interleave(monkeypatch, client, table, remade)
    with pytest.raises(Conflict):
        await move(store, Phase.DONE, ALICE)
    monkeypatch.undo()
    [item] = await scan_all(client, table)
    # The new job's own key: its time, not the one the update read.
    assert item["phase"] == "NEW" and item["GSI1SK"].endswith(f"{item['createdAt']}#j1")
