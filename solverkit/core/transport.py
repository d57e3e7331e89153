"""Base class of transports: who runs a pass over a game's subgames, and where."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .params import Param


class Transport:
    """Carries out the subgame part of a pass.

    A game's pass runs its trunk in the calling process and hands the subgames to
    :meth:`map_subgames` with one input per subgame (reach vectors, going down); the transport
    returns one output per subgame (counterfactual values, coming up). ``local`` runs them on
    threads of this process; a network transport runs them on workers that own the subgames'
    stored values. Games without a decomposition never call it.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    #: whether the values :meth:`map_subgames` returns are computed by this process's own code.
    #: A transport whose workers may be wrong or hostile says False; the solver then takes its
    #: exact evaluations (the reported result, and any target before it stops) from a walk of
    #: the stored strategy in this process, and stops with a TransportError when the workers'
    #: evaluation disagrees with it
    trusted_values: ClassVar[bool] = True
    #: where part files of a distributed checkpoint go on this machine (OUT/checkpoint.d), set
    #: by the solver before :meth:`start` when the run has an output directory; None otherwise
    parts_dir = None

    def __init__(self, **params):
        self.config = params
        self.game = None
        self.store = None

    def start(self, game, store, assembly=None) -> None:
        """Bind the transport to a game and its value store before the first pass; `assembly`
        (the resolved config it came from) lets a transport build the same game elsewhere."""
        self.game, self.store = game, store

    def store_view(self, store):
        """The store as the solver reads it for checkpoints, the strategy output and the store
        metrics: the store itself here; a transport whose workers own the subgames' values
        returns an object with the same read API that fetches them from their owners."""
        return store

    def report(self) -> dict:
        """Extra fields for result.json (a network transport: its workers' memory); {} here."""
        return {}

    def map_subgames(self, job, inputs: dict) -> dict[object, np.ndarray]:
        """Run ``game.subgame_pass(key, job, value, store)`` for every (key, value) in inputs.
        The caller hands `inputs` over: a transport may take entries out as it sends them, so
        that the buffer they view is freed before the values come back."""
        raise NotImplementedError

    def local_threads(self) -> int:
        """Threads of this process that :meth:`map_local` runs on (a whole game's walk splits its
        boards into chunks for them): 1 here."""
        return 1

    def map_local(self, fn, items: list) -> list:
        """[fn(x) for x in items], in order: on this process's threads where the transport has
        some (local), one after another here."""
        return [fn(x) for x in items]

    def recover(self, lost, attempt: int = 1) -> None:
        """Replace the workers a :class:`~solverkit.errors.WorkerLost` names so that the solver
        can put every segment back from its last checkpoint and go on; `attempt` counts the
        losses in a row that the run has not got past. A transport without workers cannot
        lose any: it raises `lost` again (as does one that cannot or may not recover)."""
        raise lost

    def close(self) -> None:
        """Release threads, sockets and workers."""
