"""The error vocabulary: the codes of docs/http.md#errors, spelled once, and the exception
tree that carries them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from errors import vocabulary as errors
from errors.vocabulary import BadUserInput, Code, DynagateError
from tests.client import CONTRACT_CODES

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("gateway", "resolvers", "data", "store", "keys")
CONTRACT = CONTRACT_CODES


def subclasses(kind: type[DynagateError]) -> list[type[DynagateError]]:
    return [s for c in kind.__subclasses__() for s in (c, *subclasses(c))]


def test_the_codes_are_the_contracts() -> None:
    assert {code.value for code in Code} == CONTRACT
    assert all(code.name == code.value for code in Code)


def test_each_error_has_its_own_code_and_is_drawn_in_the_tree() -> None:
    kinds = subclasses(DynagateError)
    assert len({kind.code for kind in kinds}) == len(kinds)
    assert errors.__doc__ is not None
    for kind in kinds:
        assert f"{kind.__name__:<18}{kind.code}" in errors.__doc__, kind


def test_an_error_carries_its_code_for_graphql() -> None:
    error = errors.Conflict("customer 'a' exists already")
    assert (str(error), error.extensions) == ("customer 'a' exists already", {"code": "CONFLICT"})


def test_bad_user_input_names_its_field_and_is_a_value_error() -> None:
    error = BadUserInput("91 is outside -90 to 90", field="lat")
    assert (str(error), error.field, error.code) == (
        "lat: 91 is outside -90 to 90",
        "lat",
        Code.BAD_USER_INPUT,
    )
    assert isinstance(error, ValueError)
    unnamed = BadUserInput("give `first` or `last`, not both")
    assert (str(unnamed), unnamed.field) == ("give `first` or `last`, not both", None)


def code_literals(root: Path) -> list[str]:
    """Every string constant of the product that spells a code, outside the vocabulary."""
    found = []
    for package in PRODUCT:
        for path in sorted((root / package).rglob("*.py")):
            if path == root / "keys" / "errors.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Constant) and node.value in CONTRACT:
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
                elif isinstance(node, ast.Constant) and isinstance(node.value, bytes):
                    found.extend(
                        f"{path.relative_to(root)}:{node.lineno}: {code} in bytes"
                        for code in CONTRACT
                        if code.encode() in node.value
                    )
    return found


def test_codes_are_spelled_only_in_the_vocabulary() -> None:
    found = code_literals(ROOT)
    assert not found, "use errors.vocabulary.Code:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "spelled"),
    [('codes == {"CONFLICT"}', True), ("Code.CONFLICT", False), ('"a CONFLICT"', False)],
)
def test_a_code_spelled_out_is_found(tmp_path: Path, source: str, spelled: bool) -> None:
    (tmp_path / "gateway").mkdir()
    (tmp_path / "gateway" / "m.py").write_text(source + "\n")
    for package in PRODUCT[1:]:
        (tmp_path / package).mkdir()
    assert bool(code_literals(tmp_path)) is spelled
