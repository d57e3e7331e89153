"""Best response and expected values of a tree game, two players or N, from flat policies or a
store: what exploitability and NashConv are computed from."""

from __future__ import annotations

import numpy as np

from ..core import passes
from . import kernels, nkernels


class TreeEvaluation:
    """The :class:`~solverkit.efg.tree.TreeGame` methods that evaluate policies."""

    def _br(self, sources) -> tuple[float, ...]:
        if self.num_players != 2:
            return self._br_n(sources)
        t = self.tree
        _, _, _, _, _, v, sig, qb, w = self._bufs()
        out = []
        for p in (0, 1):
            o = 1 - p
            order, bounds = t.br_order[p]
            s = sig[: self.layout(o).size]
            out.append(float(kernels.best_response(t.node, t.prob, t.util, order, bounds, p, sources[o],
                                                   *self._blocks(o), s, qb, w, v)))
        return out[0], out[1]

    def _br_n(self, sources) -> tuple[float, ...]:
        """Every player's best-response value against the others' policies (regret matching of
        `sources`, which normalises policies and cumulative strategies)."""
        t = self.tree
        sig, _, _, _, _, q_buf, w, vn = self._nbufs()[:8]
        self._profile(sources, sig)
        out = []
        for p in range(self.num_players):
            order, bounds = t.br_order[p]
            out.append(float(nkernels.best_response_n(t.node, t.prob, t.utils, order, bounds, p, self._base, sig,
                                                      q_buf[: self.layout(p).size], w, vn)))
        return tuple(out)

    def best_response(self, strategy):
        """(br_0, br_1, ...): each player's best-response value against the others' flat policies
        (normalised per information set)."""
        return self._br([np.asarray(strategy[p], dtype=np.float64) for p in range(self.num_players)])

    def best_response_from_store(self, store, kind, transport=None):
        """(br_0, br_1) of the store's average (cumulative strategies, normalised by the kernel)
        or current policy (the rule's policy source)."""
        if self.split is not None:
            if kind == "average" and "avg0" not in store.read("root"):
                return None
            return self._br(self._gather(store, kind, raw=True))
        seg = store.read("root")
        P = self.num_players
        if kind == "average":
            if "avg0" not in seg:
                return None
            return self._br([np.array(seg[f"avg{p}"]) for p in range(P)])
        return self._br([np.array(passes.policy_source(store, seg, "root", p)) for p in range(P)])

    def expected_values(self, strategy) -> tuple[float, ...]:
        """(v_0, v_1, ...): each player's expected utility when everyone plays `strategy`."""
        if self.num_players != 2:
            t = self.tree
            sig, _, _, _, v = self._nbufs()[:5]
            out = self._nbufs()[8]
            self._profile([np.asarray(x, dtype=np.float64) for x in strategy], sig)
            nkernels.expected_values_n(t.node, t.prob, t.utils, self._base, sig, v, out)
            return tuple(float(x) for x in out)
        t = self.tree
        sig0, sig1, _, _, _, v = self._bufs()[:6]
        x = float(kernels.expected_value(t.node, t.prob, t.util, *self._blocks(0), *self._blocks(1),
                                         np.asarray(strategy[0], dtype=np.float64),
                                         np.asarray(strategy[1], dtype=np.float64), sig0, sig1, v))
        return x, -x
