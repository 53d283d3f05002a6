"""The build's one addition to setuptools: GraphiQL's pinned files go into the package.

They are not in the repository (`gateway/graphiql/` is ignored), so a wheel built from a
clean clone, or from an sdist, would serve a playground whose files all answer 404. The
build fetches them from the npm registry, or from the cache of an earlier build, and
checks each against its digest (`gateway/playground.py`). Everything else about the
package is declared in `pyproject.toml`.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def playground() -> ModuleType:
    """`gateway/playground.py`, loaded by its path: the package cannot be imported while
    it is being built (its dependencies need not be installed), but that module needs
    only the standard library."""
    spec = importlib.util.spec_from_file_location(
        "_dynagate_build_playground", HERE / "gateway" / "playground.py"
    )
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {HERE / 'gateway' / 'playground.py'}")
    module = importlib.util.module_from_spec(spec)
    # Registered first: its dataclasses look their module up while being defined.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class BuildPyWithGraphiQL(build_py):
    """Builds the package as usual, then fetches whichever pinned GraphiQL files it lacks."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            # An editable install imports the source tree itself.
            target = HERE / "gateway" / "graphiql"
        else:
            target = Path(self.build_lib) / "gateway" / "graphiql"
        playground().fetch_or_explain(target)


setup(cmdclass={"build_py": BuildPyWithGraphiQL})
