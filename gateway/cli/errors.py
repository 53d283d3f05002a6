"""What a command's failure is, for every module of the command line to raise."""


class CommandFailed(Exception):
    """A command could not do its work: its message, one line, says why."""
