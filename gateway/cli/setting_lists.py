"""The settings table (`gateway/setting_table.py`) as people read it: `dynagate --help`'s
epilog, and the settings tables of `docs/commands.md`, which a test holds to it."""

from __future__ import annotations

import textwrap

from gateway.setting_table import SETTINGS
from gateway.setting_values import Section


def environment_help(width: int = 30, columns: int = 100) -> str:
    """The settings for `dynagate --help`, by section, each with its default."""
    lines = ["environment (each with its default):"]
    indent = " " * (4 + width + 1)
    for section in _sections():
        lines.append(f"  {section.title}:")
        for setting in SETTINGS:
            if setting.section == section:
                text = f"{setting.help} (default: {setting.default_text})"
                first = f"    {setting.name:<{width}} "
                lines += textwrap.wrap(
                    text, columns, initial_indent=first, subsequent_indent=indent
                )
    return "\n".join(lines) + "\n"


def settings_markdown() -> str:
    """The settings tables of `docs/commands.md`, a table a section."""
    parts: list[str] = []
    for section in _sections():
        parts += [f"### {section.title}", "", f"More in {section.page}.", ""]
        parts += ["| variable | accepts | default | meaning |", "| --- | --- | --- | --- |"]
        parts += [
            f"| `{setting.name}` | {setting.accepts} | {setting.default_text} | {setting.help} |"
            for setting in SETTINGS
            if setting.section == section
        ]
        parts.append("")
    return "\n".join(parts)


def _sections() -> list[Section]:
    """The sections in the table's order."""
    return list(dict.fromkeys(setting.section for setting in SETTINGS))
