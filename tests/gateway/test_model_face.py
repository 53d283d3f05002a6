"""A model module's face (`FACE`, `gateway/served_model.py`): its hooks read from one
object, the shorter form of a `MODEL` and functions read alike, and a derived field that a
`roots` hook forgets still served, unless the face leaves it out."""

from __future__ import annotations

from pathlib import Path

from gateway.served_model import face, served
from resolvers.derived_roots import FIELDS, Roots

LIBRARY = "from tests.model.library import MODEL\n"
ONLY_THE_SHELF = """
from dynagate import Face, Roots

def roots(derived: Roots) -> Roots:
    return Roots(query=derived.part("shelf"), followed=derived.followed)
"""


def fields(roots: Roots) -> list[str]:
    return [n for kind in (*roots.query, *roots.mutation) for n in getattr(kind, FIELDS, ())]


def written(folder: Path, name: str, text: str) -> str:
    file = folder / f"{name}.py"
    file.write_text(text)
    return str(file)


def test_a_field_a_hook_forgets_is_still_served_after_those_it_places(tmp_path: Path) -> None:
    forgetting = written(tmp_path, "forgetting", LIBRARY + ONLY_THE_SHELF)
    everything = written(tmp_path, "everything", LIBRARY)
    served_fields = fields(served(forgetting))
    assert served_fields[0] == "shelf"
    assert sorted(served_fields) == sorted(fields(served(everything)))
    assert "removeShelf" in served_fields and "branchesNearby" in served_fields


def test_a_face_says_which_derived_fields_it_leaves_out(tmp_path: Path) -> None:
    module = written(
        tmp_path,
        "leaving",
        LIBRARY
        + ONLY_THE_SHELF
        + 'FACE = Face(MODEL, roots=roots, left_out=frozenset({"removeShelf", "onLoan"}))\n',
    )
    served_fields = fields(served(module))
    assert "removeShelf" not in served_fields and "onLoan" not in served_fields
    assert served_fields[0] == "shelf" and "addBook" in served_fields


def test_the_shorter_form_is_read_as_a_face(tmp_path: Path) -> None:
    module = written(tmp_path, "short", LIBRARY + ONLY_THE_SHELF)
    found = face(module)
    assert found.roots is not None and found.roots.__name__ == "roots"
    assert (found.seed, found.verify, found.left_out) == (None, None, frozenset())
    assert face("demo.model").seed is not None  # the demo exports its FACE
