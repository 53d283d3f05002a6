"""The error of a model the engine cannot serve."""


class ModelError(Exception):
    """A declaration the engine cannot serve; the message names it."""
