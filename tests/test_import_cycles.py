"""No module of the product imports itself back through others: dependencies point one
way within a floor too, not only between floors (import-linter's layers). Imports inside
functions and under `if TYPE_CHECKING:` count: they hide a cycle, they do not remove it."""

from __future__ import annotations

import grimp

PRODUCT = ("gateway", "resolvers", "data", "store", "keys", "errors")


def cycles(graph: grimp.ImportGraph) -> set[tuple[str, ...]]:
    """Each cycle once, as the shortest chain from its first module (by name) back to it."""
    found = set()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                loop = (importer, *back)[:-1]
                start = loop.index(min(loop))
                found.add((*loop[start:], *loop[:start], loop[start]))
    return found


def test_the_product_has_no_import_cycle() -> None:
    graph = grimp.build_graph(*PRODUCT, cache_dir=None)
    found = sorted(cycles(graph))
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(loop) for loop in found)


def test_a_cycle_is_found_and_named_once() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")]:
        graph.add_import(importer=importer, imported=imported)
    assert cycles(graph) == {("a", "b", "c", "a")}
