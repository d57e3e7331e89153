"""What one CFR pass does (PassJob: iteration, players, rule, averaging) and a block of them run in one call."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ProtocolError
from .layout import Layout, policy
from .passes import policy_source, state_of
from .wire import check_keys, field


@dataclass
class PassJob:
    """One CFR pass: iteration t (1-based) updating the regrets of `players`.

    The pass folds the players' instantaneous regrets into their stored regrets with
    :meth:`update_regret`, and adds to the *other* player's cumulative strategy the
    reach-weighted strategy that this update was computed against (:meth:`accumulate`),
    so that with alternating updates each average pairs with the opponent's regrets
    (Tammelin et al. 2015). With simultaneous updates, ``players == (0, 1)``: both regrets and
    both averages are updated from the same profile.
    """

    iteration: int
    players: tuple[int, ...]
    rule: object
    averaging: object
    #: the [sampler] (None: full passes); engines that run sampled schemes read it
    sampler: object = None

    def update_regret(self, regret: np.ndarray, delta: np.ndarray, state: dict | None = None) -> None:
        """Fold instantaneous regrets `delta` into `regret` (and the rule's `state` arrays)."""
        if self.rule.state:
            self.rule.update(regret, delta, self.iteration, state)
        else:
            self.rule.update(regret, delta, self.iteration)

    def update(self, seg, player: int, delta: np.ndarray) -> None:
        """Fold `player`'s instantaneous regrets `delta` into an open segment's ``regret<player>``
        (with the rule's state arrays of that segment): what a hand-written pass calls."""
        self.update_regret(seg[f"regret{player}"], delta, state_of(seg, self.rule, player))

    def current_policy(self, store, seg, player: int, layout: Layout, key: str = "root") -> np.ndarray:
        """`player`'s current policy in an open segment: regret matching of the rule's policy
        source (the regrets, regret + prediction, or a softmax transform)."""
        return policy(policy_source(store, seg, key, player, self.rule), layout)

    def accumulate(self, total: np.ndarray | None, contrib: np.ndarray) -> None:
        if total is not None:
            self.averaging.update(total, contrib, self.iteration)

    def to_wire(self) -> dict:
        """The job as a msgpack-able map: iteration and players (the rule and averaging are
        rebuilt on the receiving side from the same config)."""
        return {"iteration": int(self.iteration), "players": [int(p) for p in self.players]}

    @classmethod
    def from_wire(cls, data, rule, averaging, where: str = "pass job", num_players: int = 2) -> "PassJob":
        """A job from :meth:`to_wire` data, with the receiver's own rule and averaging
        instances; a ProtocolError names a bad field. `players` must be one player of
        0 .. num_players - 1 (alternating updates) or all of them in order (simultaneous)."""
        if not isinstance(data, dict):
            raise ProtocolError(f"{where}: {type(data).__name__} {data!r:.60}, expected a map")
        check_keys(data, ("iteration", "players"), where)
        iteration = field(data, "iteration", where, "int", lo=1)
        players = field(data, "players", where, "int_list")
        every = list(range(num_players))
        if not (players == every or (len(players) == 1 and 0 <= players[0] < num_players)):
            if num_players == 2:
                expect = "[0], [1] or [0, 1]"
            else:
                expect = f"one player [p] with p in 0 .. {num_players - 1} (a game of {num_players} players) or {every}"
            raise ProtocolError(f"{where}: field 'players' = {players!r} is invalid: expected {expect}")
        return cls(iteration, tuple(players), rule, averaging)


@dataclass
class PassBlock:
    """Iterations ``first .. first + count - 1``, each one pass per group of `groups` (``((0,),
    (1,))``: alternating; ``((0, 1),)``: simultaneous), in order: what :meth:`Game.cfr_block`
    runs in one call, so that cheap sampled passes do not pay Python's overhead one by one."""

    first: int
    count: int
    groups: tuple
    rule: object
    averaging: object
    sampler: object = None

    def jobs(self):
        """The block as PassJobs, in order."""
        for t in range(self.first, self.first + self.count):
            for players in self.groups:
                yield PassJob(t, tuple(players), self.rule, self.averaging, self.sampler)
