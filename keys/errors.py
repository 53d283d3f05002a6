"""The one error type of `keys`: an input that cannot become part of a key."""


class InvalidInput(ValueError):
    """A value a client sent cannot be used; the message says which and why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
