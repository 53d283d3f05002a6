"""The model the gateway serves: a module that exports its `FACE` (its `model.Model` and its
hooks), or in short declares `MODEL` and defines its hooks as functions; `roots(derived)`
is the one hook through which hand-written root types join those derived from the
declarations (and set their order in the schema).

The default model is the demo's, reached by its name: the engine never imports it.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from gateway.settings import DEFAULT_MODEL, SettingsError
from model import Model, ModelError
from resolvers.derived_roots import FIELDS, Roots, derived_roots


@dataclass(frozen=True)
class Face:
    """What a model module exports as `FACE` (docs/model.md#the-hook): its declarations and
    its hooks, each optional. `roots` places hand-written root types among the derived ones
    and orders them (a derived field it leaves out is still served, last, unless named in
    `left_out`); `seed` loads the model's demo data and `verify` checks the table, each with
    the options of its command (`seed_options`, `verify_options`)."""

    model: Model
    roots: Callable[[Roots], Roots] | None = None
    seed_options: Callable[[argparse.ArgumentParser], None] | None = None
    seed: Callable[[Any, argparse.Namespace], Awaitable[str]] | None = None
    verify_options: Callable[[argparse.ArgumentParser], None] | None = None
    verify: Callable[[Any, str, argparse.Namespace], Awaitable[tuple[list[str], int]]] | None = None
    # Derived root fields the model does not serve.
    left_out: frozenset[str] = frozenset()


# The hooks of the shorter form, as functions of the model's module.
_HOOKS = ("roots", "add_seed_arguments", "seed", "add_verify_arguments", "verify")


@cache
def face(name: str = DEFAULT_MODEL) -> Face:
    """The face of the model module `name`: its `FACE`, or one made of its `MODEL` and the
    hooks it defines as functions (`roots`, `add_seed_arguments`, `seed`,
    `add_verify_arguments`, `verify`), the shorter form; SettingsError naming what is
    missing."""
    module = model_module(name)
    found = getattr(module, "FACE", None)
    if isinstance(found, Face):
        return found
    model = getattr(module, "MODEL", None)
    if not isinstance(model, Model):
        raise SettingsError(
            f"DYNAGATE_MODEL={name!r}: {module.__file__} declares no FACE or MODEL "
            "(a model.Model: docs/model.md)"
        )
    hook = {name: getattr(module, name, None) for name in _HOOKS}
    return Face(
        model,
        roots=hook["roots"],
        seed_options=hook["add_seed_arguments"],
        seed=hook["seed"],
        verify_options=hook["add_verify_arguments"],
        verify=hook["verify"],
    )


@cache
def served(name: str = DEFAULT_MODEL) -> Roots:
    """The root types and followed entities of the model module `name`, made once; a module
    that is missing or declares no model is a SettingsError naming it, a declaration the
    engine cannot serve a ModelError naming that."""
    shown = face(name)
    derived = derived_roots(declared(name))
    try:
        roots = derived if shown.roots is None else shown.roots(derived)
    except Exception as exc:
        raise SettingsError(failure_in_model(name, exc)) from None
    if not isinstance(roots, Roots):
        raise SettingsError(f"DYNAGATE_MODEL={name!r}: its roots() returned no Roots")
    roots = with_the_rest(roots, derived, shown.left_out)
    # The entities' types, and so the model the schema describes, whatever the hook kept.
    return roots if roots.types is not None else replace(roots, types=derived.types)


def with_the_rest(roots: Roots, derived: Roots, left_out: frozenset[str]) -> Roots:
    """`roots`, and after them every derived root type they left out that the model does
    not leave out: a field is never lost by forgetting it in a hook."""
    placed = {id(kind) for kind in (*roots.query, *roots.mutation, *roots.subscription)}

    def rest(kinds: tuple[type[Any], ...]) -> tuple[type[Any], ...]:
        return tuple(
            kind
            for kind in kinds
            if id(kind) not in placed and not set(getattr(kind, FIELDS, ())) & left_out
        )

    return replace(
        roots,
        query=(*roots.query, *rest(derived.query)),
        mutation=(*roots.mutation, *rest(derived.mutation)),
        subscription=(*roots.subscription, *rest(derived.subscription)),
    )


def declared(name: str = DEFAULT_MODEL) -> Model:
    """The model the module `name` declares (SettingsError naming what is missing)."""
    return face(name).model


def model_module(name: str) -> ModuleType:
    """The module `name` (dotted, or a .py file's path), imported once. A module that is not
    there, or whose own code fails (a syntax error, an exception, an import of its own that
    is missing), is a SettingsError naming the file, the line and the error."""
    try:
        return _from_file(name) if name.endswith(".py") else importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if _is_the_model(name, exc.name):
            raise SettingsError(
                f"DYNAGATE_MODEL={name!r}: there is no module {exc.name!r}"
            ) from None
        raise SettingsError(failure_in_model(name, exc)) from None
    except FileNotFoundError as exc:
        if exc.filename == str(Path(name).resolve()):
            raise SettingsError(f"DYNAGATE_MODEL={name!r}: {exc.strerror}") from None
        raise SettingsError(failure_in_model(name, exc)) from None
    except ModelError:
        raise  # a declaration the engine refuses names what is wrong itself
    except Exception as exc:
        raise SettingsError(failure_in_model(name, exc)) from None


def _is_the_model(name: str, missing: str | None) -> bool:
    """Whether the module found missing is the model itself (or a package on its way), not
    one that the model's own code imports."""
    if missing is None:
        return False
    if name.endswith(".py"):
        return missing == str(Path(name).resolve())
    return name == missing or name.startswith(f"{missing}.")


def _from_file(path: str) -> ModuleType:
    """The model module at `path`, loaded once under a name of its own (its directory is
    searched for what it imports beside it)."""
    file = Path(path).resolve()
    name = f"dynagate_model_{file.stem}_{abs(hash(str(file)))}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(name=str(file))
    if not file.is_file():
        raise FileNotFoundError(2, "no such file", str(file))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(file.parent))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    finally:
        sys.path.remove(str(file.parent))
    return module


def failure_in_model(name: str, exc: BaseException) -> str:
    """What a person needs of a model that failed while it loaded: the file and line of
    their own code where it failed, the error, and the model's own frames of the traceback
    (the engine's and importlib's are noise to them)."""
    own = [frame for frame in traceback.extract_tb(exc.__traceback__) if _is_own(name, frame)]
    error = "".join(traceback.format_exception_only(exc)).strip()
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        # A syntax error has no frame in the file it is in: its place is the error's own.
        own.append(traceback.FrameSummary(exc.filename, exc.lineno, "<module>", line=exc.text))
        error = f"{type(exc).__name__}: {exc.msg}"
    if not own:
        return f"DYNAGATE_MODEL={name!r} failed to load: {error}"
    where = own[-1]
    frames = "".join(traceback.format_list(own)).rstrip()
    return (
        f"DYNAGATE_MODEL={name!r} failed to load: {where.filename}, line {where.lineno}: "
        f"{error}\nTraceback of the model's code (most recent call last):\n{frames}"
    )


def _is_own(name: str, frame: traceback.FrameSummary) -> bool:
    """Whether `frame` runs the model's own code: a file beside the model's file, or in the
    model's top package."""
    if frame.filename.startswith("<"):  # importlib's frozen frames, `<string>`
        return False
    return Path(frame.filename).resolve().is_relative_to(_model_home(name))


def _model_home(name: str) -> Path:
    """The folder of the model's own code."""
    if name.endswith(".py"):
        return Path(name).resolve().parent
    top = importlib.util.find_spec(name.partition(".")[0])
    origin = top.origin if top is not None else None
    if top is None or origin is None:
        return Path(name.replace(".", "/")).resolve()
    folder = Path(origin).resolve().parent
    return folder if top.submodule_search_locations else Path(origin).resolve()
