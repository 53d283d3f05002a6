"""The adopted table's model (`tests/model/adopted.py`) with each item telling its entity in
`type`, as many apps write it (`DYNAGATE_MODEL=tests.model.told_apart`): the app keeps
items of kinds the model does not declare beside them, inside the lists' ranges."""

from __future__ import annotations

from dataclasses import replace

import model as m
from tests.model import adopted

ORG = replace(adopted.ORG, discriminator=m.Discriminator("type", "org"))
EVENT = replace(adopted.EVENT, discriminator=m.Discriminator("type", "event"))
MODEL = m.Model(
    (ORG, EVENT),
    tuple(
        replace(p, entity=ORG if p.entity is adopted.ORG else EVENT) for p in adopted.MODEL.patterns
    ),
    adopted.LAYOUT,
)
