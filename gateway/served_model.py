"""The model the gateway serves: a module that declares `MODEL` (`model.Model`), and may
define `roots(derived)`, the one hook through which hand-written root types join those
derived from the declarations (and set their order in the schema).

The default model is the demo's, reached by its name: the engine never imports it.
"""

from __future__ import annotations

import importlib
from functools import cache

from model import Model
from resolvers.derived_roots import Roots, derived_roots

DEFAULT_MODEL = "demo.model"


@cache
def served(name: str = DEFAULT_MODEL) -> Roots:
    """The root types and followed entities of the model module `name`, made once."""
    module = importlib.import_module(name)
    model = module.MODEL
    if not isinstance(model, Model):
        raise TypeError(f"{name}.MODEL is not a model.Model")
    derived = derived_roots(model)
    hook = getattr(module, "roots", None)
    roots = derived if hook is None else hook(derived)
    if not isinstance(roots, Roots):
        raise TypeError(f"{name}.roots() did not return Roots")
    return roots
