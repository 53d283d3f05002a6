"""The one table of settings (`gateway/setting_table.py`) held to what is derived from it:
the `Settings` made by hand, `dynagate check`'s listing and docs/commands.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gateway.cli.check import settings_in_force
from gateway.cli.setting_lists import settings_markdown
from gateway.setting_table import SETTINGS
from gateway.setting_values import Setting
from gateway.settings import Settings

COMMANDS_MD = Path(__file__).parents[2] / "docs" / "commands.md"


def test_a_settings_made_by_hand_has_the_tables_defaults() -> None:
    by_hand = Settings()
    for setting in SETTINGS:
        if setting.field is not None:
            assert getattr(by_hand, setting.field) == setting.default, setting.name


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda setting: setting.name)
def test_the_docs_say_each_settings_default_and_what_it_accepts(setting: Setting[object]) -> None:
    rows = [
        line.strip("| ").split(" | ")
        for line in COMMANDS_MD.read_text().splitlines()
        if line.startswith(f"| `{setting.name}` |")
    ]
    assert rows == [[f"`{setting.name}`", setting.accepts, setting.default_text, setting.help]]


def test_dynagate_check_says_each_default_as_the_docs_do() -> None:
    listed = settings_in_force({})
    for setting in SETTINGS:
        assert f"  {setting.name} = {setting.default_text}  (default)" in listed


def test_the_docs_list_every_setting_as_the_code_reads_it() -> None:
    docs = COMMANDS_MD.read_text()
    assert settings_markdown() in docs, (
        "docs/commands.md's settings table differs from gateway/setting_table.py; put in:\n"
        + settings_markdown()
    )


_BOUNDS = re.compile(r"from (\d+) to (\d+)|above 0 and at most (\d+)")


@pytest.mark.parametrize(
    "setting",
    [s for s in SETTINGS if _BOUNDS.search(s.accepts)],
    ids=lambda setting: setting.name,
)
def test_the_bounds_a_setting_says_are_the_ones_its_parser_holds(setting: Setting[object]) -> None:
    found = _BOUNDS.search(setting.accepts)
    assert found is not None
    low, high, most = found.groups()
    if most is not None:
        assert setting.parse(most) == float(most)
        refused = [str(int(most) + 1), "0"]
    else:
        assert setting.parse(low) == int(low) and setting.parse(high) == int(high)
        refused = [str(int(low) - 1), str(int(high) + 1)]
    for value in refused:
        with pytest.raises(ValueError):
            setting.parse(value)
