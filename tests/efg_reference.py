"""Slow, obviously correct references for the generic tree engine: random small games with
private signals and a public action tree, a pure-Python CFR over explicit histories, and a best
response computed over the public tree with vectors over the opponent's signals (a different
algorithm from the engine's information-set ordering)."""

from __future__ import annotations

import numpy as np

from solverkit.efg import TreeGame


def random_spec(seed: int, max_depth: int = 4) -> dict:
    """A random game: chance deals signal s0 to player 0 and s1 to player 1 (joint
    probabilities), then a public tree of decisions (2-3 actions, either player) and public
    chance nodes; utilities depend on (s0, s1, public history)."""
    rng = np.random.default_rng(seed)
    n0, n1 = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    joint = rng.dirichlet(np.ones(n0 * n1)).reshape(n0, n1)

    def gen(depth):
        r = rng.random()
        if depth >= max_depth or (depth > 0 and r < 0.25):
            return {"kind": "terminal", "u": rng.normal(size=(n0, n1)).round(3)}
        if r < 0.4 and depth > 0:
            k = int(rng.integers(2, 4))
            return {"kind": "chance", "p": rng.dirichlet(np.ones(k)), "children": [gen(depth + 1) for _ in range(k)]}
        k = int(rng.integers(2, 4))
        return {"kind": "decision", "player": int(rng.integers(0, 2)), "children": [gen(depth + 1) for _ in range(k)]}

    return {"n0": n0, "n1": n1, "joint": joint, "root": gen(0)}


def _public_node(spec, public):
    node = spec["root"]
    for a in public:
        node = node["children"][a]
    return node


class RandomTreeGame(TreeGame):
    """A :func:`random_spec` game as a TreeGame; state = (s0, s1, public action indices)."""

    name = "random_tree"

    def __init__(self, spec, **params):
        self.spec = spec
        super().__init__(**params)

    def initial_state(self):
        return (None, None, ())

    def is_terminal(self, state):
        return state[0] is not None and _public_node(self.spec, state[2])["kind"] == "terminal"

    def returns(self, state):
        s0, s1, pub = state
        u = float(_public_node(self.spec, pub)["u"][s0, s1])
        return (u, -u)

    def player(self, state):
        if state[0] is None:
            return self.CHANCE
        node = _public_node(self.spec, state[2])
        return self.CHANCE if node["kind"] == "chance" else node["player"]

    def chance_outcomes(self, state):
        if state[0] is None:
            j = self.spec["joint"]
            return [((a, b), float(j[a, b])) for a in range(j.shape[0]) for b in range(j.shape[1])]
        node = _public_node(self.spec, state[2])
        return [(i, float(p)) for i, p in enumerate(node["p"])]

    def legal_actions(self, state):
        return list(range(len(_public_node(self.spec, state[2])["children"])))

    def child(self, state, action):
        if state[0] is None:
            return (action[0], action[1], ())
        return (state[0], state[1], state[2] + (action,))

    def infoset_key(self, state, player):
        return f"{player}:{state[player]}:{'.'.join(map(str, state[2]))}"


# --- reference CFR over explicit histories ------------------------------------------------------


def _rm(x):
    y = np.maximum(x, 0.0)
    s = y.sum()
    return y / s if s > 0 else np.full(x.size, 1.0 / x.size)


def _key(p, s, pub):
    return f"{p}:{s}:{'.'.join(map(str, pub))}"


class ReferenceCFR:
    """Pure-Python CFR over any TreeGame's states (recursion, dicts keyed by information set)
    with the engine's pass semantics: variant "cfr_plus" (RM+, linear averaging, alternating),
    "cfr" (RM, uniform, alternating as the preset; "cfr_simultaneous" both at once), "pcfr_plus" (predictive RM+, quadratic averaging,
    alternating), "dcfr" (alpha 1.5, beta 0, quadratic averaging, alternating)."""

    def __init__(self, game, variant):
        self.game, self.variant = game, variant
        self.reg = {}
        self.pred = {}
        self.avg = {}
        self.t = 0

    def _arr(self, table, key, n):
        if key not in table:
            table[key] = np.zeros(n)
        return table[key]

    def policy(self, key, n):
        r = self._arr(self.reg, key, n)
        if self.variant == "pcfr_plus":
            return _rm(r + self._arr(self.pred, key, n))
        return _rm(r)

    def _walk(self, state, reach, delta, contrib, players, seen):
        """Player 0's value; accumulates regrets of `players` and the others' contributions."""
        g = self.game
        if g.is_terminal(state):
            u = g.returns(state)
            return float(u[0] if np.ndim(u) else u)
        q = g.player(state)
        if q == g.CHANCE:
            return sum(p * self._walk(g.child(state, a), (reach[0], reach[1], reach[2] * p), delta, contrib,
                                      players, seen) for a, p in g.chance_outcomes(state))
        acts = g.legal_actions(state)
        key = (q, g.infoset_key(state, q))
        sig = self.policy(key, len(acts))
        if q not in players and key not in seen:  # the other player's average, once per set
            seen.add(key)
            c = self._arr(contrib, key, len(acts))
            c += reach[q] * sig
        vals = []
        for a, action in enumerate(acts):
            r = list(reach)
            r[q] *= sig[a]
            vals.append(self._walk(g.child(state, action), tuple(r), delta, contrib, players, seen))
        vals = np.array(vals)
        ev = float(sig @ vals)
        if q in players:
            sign = 1.0 if q == 0 else -1.0
            d = self._arr(delta, key, len(acts))
            d += sign * reach[1 - q] * reach[2] * (vals - ev)
        return ev

    def iteration(self):
        self.t += 1
        root = self.game.initial_state()
        groups = [(0,), (1,)] if self.variant != "cfr_simultaneous" else [(0, 1)]
        for players in groups:
            delta, contrib = {}, {}
            self._walk(root, (1.0, 1.0, 1.0), delta, contrib, players, set())
            if len(players) == 2:  # simultaneous: both averages from the same profile
                self._walk(root, (1.0, 1.0, 1.0), {}, contrib, (), set())
            for key, d in delta.items():
                r = self.reg[key]
                if self.variant in ("cfr", "cfr_simultaneous"):
                    self.reg[key] = r + d
                elif self.variant == "dcfr":  # alpha 1.5, beta 0: positive sums x t^1.5/(t^1.5+1), negative x 1/2
                    x = r + d
                    self.reg[key] = np.where(x > 0, x * (self.t ** 1.5 / (self.t ** 1.5 + 1.0)), x * 0.5)
                else:
                    self.reg[key] = np.maximum(r + d, 0.0)
                    if self.variant == "pcfr_plus":
                        self.pred[key] = d.copy()
            w = {"cfr_plus": self.t, "cfr": 1.0, "cfr_simultaneous": 1.0, "pcfr_plus": self.t * self.t, "dcfr": self.t * self.t}[self.variant]
            for key, c in contrib.items():
                self.avg[key] = self._arr(self.avg, key, c.size) + w * c

    def average(self, player):
        """Information-set key of `player` -> normalised average policy."""
        return {k[1]: _rm(v) for k, v in self.avg.items() if k[0] == player}


# --- reference best response over the public tree -----------------------------------------------


def best_response_value(spec, policy, p) -> float:
    """Value for player p of a best response to the opponent's `policy` (key -> probabilities;
    missing keys play uniform): per own signal, max over the public tree of the opponent-signal
    vectors' weighted values."""
    n = (spec["n0"], spec["n1"])
    o = 1 - p
    sign = 1.0 if p == 0 else -1.0

    def g(node, pub, s, w):  # w[x]: joint probability x opponent reach x public chance, opponent signal x
        if node["kind"] == "terminal":
            u = node["u"][s, :] if p == 0 else node["u"][:, s]
            return sign * float(np.dot(w, u))
        kids = node["children"]
        if node["kind"] == "chance":
            return sum(g(kids[i], pub + (i,), s, w * pr) for i, pr in enumerate(node["p"]))
        if node["player"] == p:
            return max(g(kids[a], pub + (a,), s, w) for a in range(len(kids)))
        total = 0.0
        for a in range(len(kids)):
            sig = np.array([policy.get(_key(o, x, pub), np.full(len(kids), 1.0 / len(kids)))[a] for x in range(n[o])])
            total += g(kids[a], pub + (a,), s, w * sig)
        return total

    j = spec["joint"]
    return sum(g(spec["root"], (), s, (j[s, :] if p == 0 else j[:, s]).astype(float)) for s in range(n[p]))
