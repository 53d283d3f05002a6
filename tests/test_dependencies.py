"""Every third-party package the code imports is declared in pyproject.toml and pinned in
constraints.txt: the product's own imports in `[project] dependencies`, those of the tests,
the benchmarks and type-checking-only imports in those or in the `dev` extra. A package
that arrives only as another's dependency can vanish with that one's next release."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterator
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("gateway", "resolvers", "data", "store", "keys", "errors")
SUPPORT = ("tests", "bench")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def requirements(entries: list[str]) -> dict[str, Requirement]:
    return {canonicalize_name(r.name): r for r in map(Requirement, entries)}


RUNTIME = requirements(PROJECT["dependencies"])
DEV = requirements(PROJECT["optional-dependencies"]["dev"])
PINS = {
    canonicalize_name(name): version
    for name, version in re.findall(
        r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$",
        (ROOT / "constraints.txt").read_text(),
        re.MULTILINE,
    )
}


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(tree: ast.AST, typing_only: bool = False) -> Iterator[tuple[str, int, bool]]:
    """(top-level name, line, only under `if TYPE_CHECKING:`) of each absolute import."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno, typing_only
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno, typing_only
        elif isinstance(node, ast.If) and _type_checking(node.test):
            for child in node.body:
                yield from imports(ast.Module([child], []), True)
            for child in node.orelse:
                yield from imports(ast.Module([child], []), typing_only)
        else:
            yield from imports(node, typing_only)


def third_party(packages: tuple[str, ...]) -> Iterator[tuple[str, str, bool]]:
    """(where, top-level name, typing only) of each import of something not in this tree
    and not in the standard library."""
    local = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            for name, line, typing_only in imports(ast.parse(path.read_text())):
                if name not in local and name not in sys.stdlib_module_names:
                    yield f"{path.relative_to(ROOT)}:{line}", name, typing_only


def undeclared(packages: tuple[str, ...], declared: set[str]) -> list[str]:
    """One line per imported name no declared distribution provides, with its first place."""
    found = packages_distributions()
    places: dict[str, list[str]] = {}
    for where, name, typing_only in third_party(packages):
        distributions = {canonicalize_name(d) for d in found.get(name, [])}
        allowed = declared | set(DEV) if typing_only else declared
        if not distributions & allowed:
            provider = ", ".join(sorted(distributions)) or "no installed distribution"
            places.setdefault(f"{name} ({provider})", []).append(where)
    return [
        f"{name}: {where[0]}" + (f" and {len(where) - 1} more" if len(where) > 1 else "")
        for name, where in places.items()
    ]


def test_the_product_imports_only_its_declared_dependencies() -> None:
    wrong = undeclared(PRODUCT, set(RUNTIME))
    assert not wrong, (
        "declare in [project] dependencies of pyproject.toml, and pin in constraints.txt:\n"
        + "\n".join(wrong)
    )


def test_tests_and_benchmarks_import_only_declared_packages() -> None:
    wrong = undeclared(SUPPORT, set(RUNTIME) | set(DEV))
    assert not wrong, (
        "declare in the dev extra of pyproject.toml, and pin in constraints.txt:\n"
        + "\n".join(wrong)
    )


@pytest.mark.parametrize("name", sorted(RUNTIME.keys() | DEV.keys()))
def test_every_declared_package_is_pinned_within_its_range(name: str) -> None:
    requirement = RUNTIME.get(name) or DEV[name]
    assert name in PINS, f"{name} is declared but not pinned in constraints.txt"
    assert requirement.specifier.contains(PINS[name], prereleases=True), (
        f"constraints.txt pins {name}=={PINS[name]}, outside {requirement}"
    )


def test_the_walk_finds_imports_however_nested() -> None:
    tree = ast.parse(
        "import a.b\n"
        "from c import d\n"
        "from . import e\n"
        "if TYPE_CHECKING:\n    import f\nelse:\n    import g\n"
        "def h():\n    import i\n"
        "try:\n    import j\nexcept ImportError:\n    pass\n"
    )
    assert [(name, typing_only) for name, _, typing_only in imports(tree)] == [
        ("a", False),
        ("c", False),
        ("f", True),
        ("g", False),
        ("i", False),
        ("j", False),
    ]
