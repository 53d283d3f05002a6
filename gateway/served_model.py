"""The model the gateway serves: a module that declares `MODEL` (`model.Model`), and may
define `roots(derived)`, the one hook through which hand-written root types join those
derived from the declarations (and set their order in the schema).

The default model is the demo's, reached by its name: the engine never imports it.
"""

from __future__ import annotations

import importlib
from functools import cache

from gateway.settings import DEFAULT_MODEL, SettingsError
from model import Model
from resolvers.derived_roots import Roots, derived_roots


@cache
def served(name: str = DEFAULT_MODEL) -> Roots:
    """The root types and followed entities of the model module `name`, made once; a module
    that is missing or declares no model is a SettingsError naming it, a declaration the
    engine cannot serve a ModelError naming that."""
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise SettingsError(f"DYNAGATE_MODEL={name!r}: there is no module {exc.name!r}") from None
    model = getattr(module, "MODEL", None)
    if not isinstance(model, Model):
        raise SettingsError(
            f"DYNAGATE_MODEL={name!r}: the module declares no MODEL (docs/model.md)"
        )
    derived = derived_roots(model)
    hook = getattr(module, "roots", None)
    roots = derived if hook is None else hook(derived)
    if not isinstance(roots, Roots):
        raise SettingsError(f"DYNAGATE_MODEL={name!r}: its roots() returned no Roots")
    return roots
