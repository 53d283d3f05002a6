"""What the declaration tests share: a list of declarations, each refused by name; and a
drafted declaration (`dynagate model infer`) holding the lines it should."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest

import model as m


def refused_by_name(cases: Sequence[tuple[Callable[[], Any], str]]) -> Callable[..., None]:
    """A test that each declaration of `cases` raises the ModelError that says its refusal,
    to the letter: one body for every area's list of what the engine cannot serve."""

    @pytest.mark.parametrize(("declare", "refusal"), cases)
    def test(declare: Callable[[], Any], refusal: str) -> None:
        with pytest.raises(m.ModelError, match=re.escape(refusal)):
            declare()

    return test


def assert_drafted(text: str, *lines: str) -> None:
    """Each of `lines` stands in the draft `text`: a draft's expected lines listed as lines,
    and the one missing said with the draft."""
    for line in lines:
        assert line in text, f"{line!r} is not in the draft:\n{text}"
