"""What a game can do beyond :class:`~.game.Game`: small protocols that the engines, transports and
commands ask for with ``isinstance`` (structural: a plugin's game needs only the methods, no base
class), and :class:`Decomposition`, the defaults of a game that cuts into subgames.

- :class:`Decomposes`: a trunk and subgames that a transport's threads or workers run
  (poker ``split_round``, tree games ``split_actions``); the zmq and Dask transports need it.
- :class:`ExportsOpenSpiel`: ``solverkit export --format openspiel`` (a game with an OpenSpiel
  counterpart). A subclass of such a game that has none sets ``openspiel_table = None``.
- :class:`TakesAbstraction`: an ``[abstraction]`` table (card abstraction of poker games).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .pass_job import PassJob


@runtime_checkable
class Decomposes(Protocol):
    """A game cut into a trunk and subgames: the keys, one subgame's part of a pass, the shapes of
    what travels, each subgame's store segment, and how a worker's (smaller) game finds it."""

    def subgame_keys(self) -> list: ...

    def subgame_pass(self, key, job, inputs, store): ...

    def subgame_shape(self) -> tuple[int, ...]: ...

    def subgame_output_shape(self, job) -> tuple[int, ...]: ...

    def subgame_segment(self, key) -> str: ...

    def subgame_config(self, keys) -> dict: ...

    def subgame_address(self, key) -> list: ...

    def subgame_key_at(self, address: list): ...

    def job_to_wire(self, job) -> dict: ...

    def job_from_wire(self, data, rule, averaging): ...


@runtime_checkable
class ExportsOpenSpiel(Protocol):
    """OpenSpiel information-state string -> {action id: probability} of a strategy."""

    def openspiel_table(self, strategy) -> dict: ...


@runtime_checkable
class TakesAbstraction(Protocol):
    """The same game played over a card abstraction (``[abstraction]``)."""

    def with_abstraction(self, abstraction, definition: dict): ...


def subgame_keys(game) -> list:
    """The subgames of `game` ([] for a game that does not decompose, or is not cut)."""
    return game.subgame_keys() if isinstance(game, Decomposes) else []


def holds_subgames(game) -> bool:
    """False for a game built without its subgames (a trunk that a network transport's workers
    complete): it can run the trunk's part of a pass, never a subgame's."""
    return getattr(game, "holds_subgames", True)


class Decomposition:
    """Defaults of a :class:`Decomposes` game (poker's and the tree engine's subgame mixins):
    a subgame's output is its input's shape, its segment is its key, a worker builds the whole
    game, a key is its own address, and jobs travel as plain :class:`PassJob` maps."""

    #: False for a game built without its subgames (``trunk_only``): see :func:`holds_subgames`
    holds_subgames: bool = True
    #: the game's (:class:`~.game.Game`'s)
    name: str
    num_players: int

    def subgame_keys(self) -> list:
        """Keys of the subgames :meth:`subgame_pass` runs (tuples of ints, or strings, so that
        they can travel to workers); [] for an instance that is not cut."""
        raise NotImplementedError

    def subgame_pass(self, key, job, inputs, store):
        """Run the part of a pass inside subgame `key`."""
        raise NotImplementedError

    def subgame_shape(self) -> tuple[int, ...]:
        """Shape of one subgame's float64 input, which a network transport checks every array
        against."""
        raise NotImplementedError

    def subgame_output_shape(self, job) -> tuple[int, ...]:
        """Shape of what :meth:`subgame_pass` returns for `job` (the same job on the trunk and on
        a worker): by default the input's; a game whose pass needs only part of the values says
        so, and only that part travels back."""
        return self.subgame_shape()

    def subgame_segment(self, key) -> str:
        """Name of the store segment that subgame `key` owns (a worker holds it)."""
        return str(key)

    def parts_refusal(self) -> str | None:
        """Why this game's strategy cannot be written by the workers as parts of a distributed
        strategy (``checkpoint = "distributed"``), or None: it can (the default)."""
        return None

    def subgame_config(self, keys) -> dict:
        """Game parameters for a process that holds only subgames `keys` (a worker): overrides
        of this game's own that build a smaller game in which those subgames are the same
        (HULHE: only their flops are dealt). Default {}: the whole game."""
        return {}

    def subgame_address(self, key) -> list:
        """Subgame `key` named independently of how much of the game a process built (a list
        of ints), so that a worker's smaller game (:meth:`subgame_config`) finds it with
        :meth:`subgame_key_at`. Default: the key itself."""
        return list(key) if isinstance(key, tuple) else [key]

    def subgame_key_at(self, address: list):
        """This game's key of the subgame at `address` (from :meth:`subgame_address`);
        KeyError if this game does not hold it."""
        index = self.__dict__.get("_address_index")
        if index is None:
            index = self._address_index = {tuple(self.subgame_address(k)): k for k in self.subgame_keys()}
        try:
            return index[tuple(address)]
        except (KeyError, TypeError):  # TypeError: an address holding something unhashable
            raise KeyError(f"no subgame at {address!r} in game {self.name!r}") from None

    def job_to_wire(self, job) -> dict:
        """The job that a pass hands the transport, as a msgpack-able map, so that a worker
        process can rebuild it (nothing is pickled: network input is untrusted). Default: a
        plain :class:`PassJob`."""
        if not isinstance(job, PassJob):
            raise NotImplementedError(f"game {self.name!r} cannot send its subgame jobs to workers")
        return job.to_wire()

    def job_from_wire(self, data, rule, averaging):
        """The job from :meth:`job_to_wire` data, with the worker's own `rule` and `averaging`
        instances built from the same config; a ProtocolError names a bad field."""
        return PassJob.from_wire(data, rule, averaging, num_players=self.num_players)
