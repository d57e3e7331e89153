"""Rock-paper-scissors where each winning throw has its own payoff.

With payoffs r, p, s for a win with rock, paper and scissors, both players' unique equilibrium
throws rock, paper and scissors with probabilities proportional to (s, r, p), and the game's
value is 0. Equal payoffs give the classic uniform equilibrium.
"""

from __future__ import annotations

import numpy as np

from solverkit.core.game import Game, PassJob
from solverkit.core.layout import Layout, policy
from solverkit.core.params import Param, spec_of

ACTIONS = ("rock", "paper", "scissors")


class RockPaperScissors(Game):
    """Rock-paper-scissors with a payoff per winning throw; one information set per player."""

    name = "rock_paper_scissors"
    description = "rock-paper-scissors; a win pays `rock`, `paper` or `scissors` by the winning throw"
    unit_name = "payoff"
    params = {
        action: Param("float", 1.0, f"what a win with {action} pays", min=0.0, min_exclusive=True, max=1e6)
        for action in ACTIONS
    }

    def __init__(self, **params):
        # The registry passes validated parameters; resolving again fills the defaults and
        # validates when the class is built directly, as in this package's tests.
        super().__init__(**spec_of(type(self)).resolve(params, f"[game] ({self.name})"))
        r, p, s = (self.config[a] for a in ACTIONS)
        # payoff of player 0 (rows) against player 1 (columns), both in the order of ACTIONS
        self.payoff = np.array([[0.0, -p, r], [p, 0.0, -s], [-r, s, 0.0]])
        self._layout = Layout.single(len(ACTIONS))

    def equilibrium(self) -> np.ndarray:
        """The closed-form equilibrium strategy, the same for both players."""
        r, p, s = (self.config[a] for a in ACTIONS)
        weights = np.array([s, r, p])
        return weights / weights.sum()

    # --- the Game interface -----------------------------------------------------------------

    def layout(self, player):
        return self._layout

    def cfr_pass(self, store, job: PassJob, transport=None):
        A = self.payoff
        with store.open("root") as seg:
            x = policy(seg["regret0"], self._layout)  # current strategies from regret matching
            y = policy(seg["regret1"], self._layout)
            if 0 in job.players:
                u0 = A @ y  # player 0's action values against y
                job.update_regret(seg["regret0"], u0 - x @ u0)
                job.accumulate(seg.get("avg1"), y)  # the strategy player 0's update answered
            if 1 in job.players:
                u1 = -(x @ A)  # player 1's action values against x
                job.update_regret(seg["regret1"], u1 - y @ u1)
                job.accumulate(seg.get("avg0"), x)

    def best_response(self, strategy):
        x, y = strategy
        return float(np.max(self.payoff @ y)), float(np.max(-(x @ self.payoff)))

    def infoset_keys(self, player):
        return [f"player{player}"]

    def action_names(self, player):
        return list(ACTIONS)
