"""The model the gateway serves: a module that declares `MODEL` (`model.Model`), and may
define `roots(derived)`, the one hook through which hand-written root types join those
derived from the declarations (and set their order in the schema).

The default model is the demo's, reached by its name: the engine never imports it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from gateway.settings import DEFAULT_MODEL, SettingsError
from model import Model
from resolvers.derived_roots import Roots, derived_roots


@cache
def served(name: str = DEFAULT_MODEL) -> Roots:
    """The root types and followed entities of the model module `name`, made once; a module
    that is missing or declares no model is a SettingsError naming it, a declaration the
    engine cannot serve a ModelError naming that."""
    module = model_module(name)
    derived = derived_roots(declared(name))
    hook = getattr(module, "roots", None)
    roots = derived if hook is None else hook(derived)
    if not isinstance(roots, Roots):
        raise SettingsError(f"DYNAGATE_MODEL={name!r}: its roots() returned no Roots")
    return roots


def declared(name: str = DEFAULT_MODEL) -> Model:
    """The model the module `name` declares (SettingsError naming what is missing)."""
    model = getattr(model_module(name), "MODEL", None)
    if not isinstance(model, Model):
        raise SettingsError(
            f"DYNAGATE_MODEL={name!r}: the module declares no MODEL (docs/model.md)"
        )
    return model


def model_module(name: str) -> ModuleType:
    """The module `name` (dotted, or a .py file's path), imported once."""
    try:
        return _from_file(name) if name.endswith(".py") else importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise SettingsError(f"DYNAGATE_MODEL={name!r}: there is no module {exc.name!r}") from None
    except OSError as exc:
        raise SettingsError(f"DYNAGATE_MODEL={name!r}: {exc.strerror or exc}") from None


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
