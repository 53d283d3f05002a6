"""A model of tasks whose priority and state a client may give on create
(`DYNAGATE_MODEL=tests.model.settable_choices`): left out, each starts at its initial
value; an update changes them, the state only along its moves. Their kind is left to the
engine, as a choice with an initial value is unless settable.
    task  PK = SK = TASK#<id>
"""

from __future__ import annotations

from enum import StrEnum

import model as m


class Priority(StrEnum):
    LOW = "LOW"
    NORMAL = "NORMAL"
    HIGH = "HIGH"


class TaskState(StrEnum):
    OPEN = "OPEN"
    DONE = "DONE"
    ARCHIVED = "ARCHIVED"


class TaskKind(StrEnum):
    TASK = "TASK"
    CHORE = "CHORE"


TASK = m.Entity(
    "Task",
    {
        "id": m.Identifier(),
        "title": m.Text(max_length=80),
        "priority": m.Choice(values=Priority, initial=Priority.NORMAL, settable=True),
        "state": m.Choice(values=TaskState, initial=TaskState.OPEN, settable=True),
        "kind": m.Choice(values=TaskKind, initial=TaskKind.TASK),
    },
    key=m.same(m.key("TASK", "id")),
)
MODEL = m.Model(
    (TASK,),
    (
        m.Lookup(TASK, "task", access="anyone"),
        m.Create(TASK, "addTask", access="signed_in"),
        m.Update(
            TASK,
            "changeTask",
            ("title", "priority", "state"),
            access="signed_in",
            moves=(
                m.moves(
                    "state",
                    {
                        TaskState.OPEN: [TaskState.DONE],
                        TaskState.DONE: [TaskState.OPEN, TaskState.ARCHIVED],
                    },
                ),
            ),
        ),
    ),
)
