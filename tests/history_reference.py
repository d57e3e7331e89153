"""An independent oracle for regret rules on small tree games: counterfactual action values of a
behavioural profile by a plain recursion over the game's explicit states (its TreeGame definition,
not the engine's flattened tree), with each player's own-sequence tree for a dilated regulariser
(tests/test_reg_cfr.py, bench/reg_cfr.py)."""

from __future__ import annotations

import itertools

import numpy as np


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


class Histories:
    """Counterfactual values over a TreeGame's explicit states, with each player's own-sequence
    tree (which of its information sets follow which of its actions) for the dilated regulariser."""

    def __init__(self, game):
        self.game = game
        self.sets: dict[tuple[int, str], int] = {}
        self.below: dict[tuple[tuple[int, str], int], set] = {}  # (own set, action) -> own sets next below it
        self.depth: dict[tuple[int, str], int] = {}
        self._collect(game.initial_state(), {0: None, 1: None}, {0: 0, 1: 0})

    def _collect(self, state, last, depth):
        g = self.game
        if g.is_terminal(state):
            return
        q = g.player(state)
        if q == g.CHANCE:
            for a, _ in g.chance_outcomes(state):
                self._collect(g.child(state, a), last, depth)
            return
        key = (q, g.infoset_key(state, q))
        acts = g.legal_actions(state)
        self.sets[key] = len(acts)
        self.depth[key] = depth[q]
        if last[q] is not None:
            self.below.setdefault(last[q], set()).add(key)
        for i, a in enumerate(acts):
            self._collect(g.child(state, a), {**last, q: (key, i)}, {**depth, q: depth[q] + 1})

    def values(self, profile, tau=0.0):
        """(player, key) -> counterfactual action values for that player; tau > 0 adds the
        regularised game's term: -tau times the dilated negative entropy of the player's own sets
        below each action."""
        out = {k: np.zeros(n) for k, n in self.sets.items()}
        self._walk(self.game.initial_state(), 1.0, 1.0, 1.0, profile, out)
        if tau > 0.0:
            psi: dict = {}
            for key in sorted(self.sets, key=lambda k: -self.depth[k]):
                x = profile[key]
                below = np.array([sum(psi[c] for c in self.below.get((key, a), ())) for a in range(x.size)])
                psi[key] = float(x @ np.log(np.maximum(x, 1e-300)) + x @ below)
                out[key] = out[key] - tau * below
        return out

    def _walk(self, state, r0, r1, rc, profile, out):
        g = self.game
        if g.is_terminal(state):
            return float(g.returns(state)[0])
        q = g.player(state)
        if q == g.CHANCE:
            return sum(p * self._walk(g.child(state, a), r0, r1, rc * p, profile, out)
                       for a, p in g.chance_outcomes(state))
        key = (q, g.infoset_key(state, q))
        sig = profile[key]
        vals = np.array([self._walk(g.child(state, a), r0 * sig[i] if q == 0 else r0,
                                    r1 * sig[i] if q == 1 else r1, rc, profile, out)
                         for i, a in enumerate(g.legal_actions(state))])
        if out is not None:
            out[key] += (1.0 if q == 0 else -1.0) * (r1 if q == 0 else r0) * rc * vals
        return float(sig @ vals)

    def value(self, profile) -> float:
        return self._walk(self.game.initial_state(), 1.0, 1.0, 1.0, profile, None)

    def nash_conv(self, profile) -> float:
        """Sum of both players' best-response gains, the best responses by enumeration."""
        total = 0.0
        for p, sign in ((0, 1.0), (1, -1.0)):
            mine = [k for k in self.sets if k[0] == p]
            best = max(sign * self.value({**profile, **{k: np.eye(self.sets[k])[a] for k, a in zip(mine, pure)}})
                       for pure in itertools.product(*(range(self.sets[k]) for k in mine)))
            total += best
        return total

    def fixed_point(self, tau, dilated, eta=1.0, iterations=40000):
        """x = softmax(values(x) / tau) at every set (dilated: the regularised game's values),
        reached by the paper's optimistic step on those values (a damped fixed-point iteration
        cycles at small tau); stops once the residual is below 1e-13. Returns (x, residual)."""
        hat = {k: np.full(n, 1.0 / n) for k, n in self.sets.items()}
        x = dict(hat)
        keep = 1.0 - eta * tau
        residual = np.inf
        for i in range(iterations):
            g = self.values(x, tau if dilated else 0.0)
            if i % 100 == 0:
                residual = max(float(np.abs(x[k] - _softmax(g[k] / tau)).max()) for k in x)
                if residual < 1e-13:
                    break
            for k in x:
                hat[k] = _softmax(keep * np.log(hat[k]) + eta * g[k])
                x[k] = _softmax(keep * np.log(hat[k]) + eta * g[k])
        return x, residual

    def residual(self, x, tau, dilated) -> float:
        g = self.values(x, tau if dilated else 0.0)
        return max(float(np.abs(x[k] - _softmax(g[k] / tau)).max()) for k in x)
