"""Errors that reach the user: one line that names the bad value and the valid choices."""


class SolverkitError(Exception):
    """Base class of every error solverkit reports to the user (CLI exit status 2)."""


class SolverkitWarning(UserWarning):
    """Something solverkit could not check but went on with (the CLI prints it as one line
    ``warning: ...`` on stderr)."""


class ConfigError(SolverkitError):
    """A config file, a --set override or a plugin parameter is malformed or out of range."""


class RangeError(ConfigError):
    """A hand range (e.g. "22+,AKs,KQo:0.5") or its board is malformed: the message names the
    token, its position and what was expected (solverkit.poker.ranges)."""


class BetSizeError(ConfigError):
    """A bet-size list (e.g. "52%, 2.5x, a") is malformed or cannot apply to the spot: the message
    names the token and the valid forms (solverkit.poker.bet_sizes)."""


class OutputError(SolverkitError):
    """A file solverkit writes cannot be written (a full disk, a file size limit, a directory in
    its place, no permission): the message names the file and why; what was there stays whole."""


class PluginError(SolverkitError):
    """The plugin registry is inconsistent: duplicate names, bad hooks, unknown plugins."""


def shown(value, limit: int = 60) -> str:
    """repr of a bad value, shortened so that an error stays one readable line (a name or key
    of a megabyte makes a message of a megabyte otherwise)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def choices(names) -> str:
    """Format valid choices the same way everywhere: sorted and comma-separated."""
    names = sorted(str(n) for n in names)
    return ", ".join(names) if names else "(none)"


class TransportError(SolverkitError):
    """A transport lost or could not reach its workers, or a worker failed: the message names
    the worker (host:pid) and what happened."""


class WorkerLost(TransportError):
    """A worker died, hung or lost its connection in the middle of a run. `workers` names them
    (the transport's own handles); the solver can ask the transport to replace them
    (``Transport.recover``) and roll the run back to its last checkpoint."""

    def __init__(self, message: str, workers=(), reason: str = ""):
        super().__init__(message)
        self.workers = tuple(workers)
        #: what happened, without advice on what to do about it
        self.reason = reason or message


class ProtocolError(TransportError):
    """A message on the wire is malformed: the message names the field and the bad value."""
