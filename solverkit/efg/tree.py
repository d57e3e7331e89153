"""TreeGame: describe any finite two-player zero-sum game with perfect recall as a tree; get CFR,
best response and exploitability from the generic engine.

A subclass implements a handful of methods on its own state objects (:meth:`initial_state`,
:meth:`is_terminal`, :meth:`returns`, :meth:`player`, :meth:`legal_actions`,
:meth:`chance_outcomes`, :meth:`child`, :meth:`infoset_key`). The tree is enumerated once, in
Python, into flat arrays (:mod:`solverkit.efg.build`); every pass, best response and evaluation
then runs in numba kernels (:mod:`solverkit.efg.kernels`) with no Python per node.
"""

from __future__ import annotations

import threading

import numpy as np

from ..core import passes
from ..core.game import Game, PassBlock, PassJob
from ..core.params import Param
from . import kernels, sampled
from .build import FlatTree, enumerate_tree


def _bits(players) -> int:
    m = 0
    for p in players:
        m |= 1 << p
    return m


class TreeGame(Game):
    """Base class of games described as a tree (see the module docstring for the contract).

    Utilities are player 0's (``returns`` may give both players' to have zero-sum checked);
    chance outcomes are (action, probability) pairs; an information-set key is any string
    that is equal exactly for the histories the acting player cannot tell apart."""

    #: value of :meth:`player` at a chance node (OpenSpiel's number for it)
    CHANCE = -1
    unit_name = "utility"
    store_walk_is_exact = True
    samplers = ("full", *sampled.MODES)  # the literature's schemes: chance, external, outcome
    engine_params = {
        "max_nodes": Param("int", 5_000_000, "refuse trees with more nodes than this (enumeration is Python, "
                           "about 150 bytes per node)", min=1),
    }
    params = dict(engine_params)  # a subclass with params of its own takes these too (Game.__init_subclass__)

    def __init__(self, **params):
        super().__init__(**params)
        max_nodes = params.get("max_nodes")
        if max_nodes is None:  # built directly, not from a config table
            max_nodes = self.params["max_nodes"].default
        self.tree: FlatTree = enumerate_tree(self, int(max_nodes))
        self._local = threading.local()

    # --- the description (to implement) --------------------------------------------------------

    def initial_state(self):
        """The root state."""
        raise NotImplementedError

    def is_terminal(self, state) -> bool:
        raise NotImplementedError

    def returns(self, state):
        """Player 0's utility at a terminal state, or the pair (u0, u1) (checked to sum to 0)."""
        raise NotImplementedError

    def player(self, state) -> int:
        """0 or 1 for a decision, :attr:`CHANCE` for a chance node (never asked at terminals)."""
        raise NotImplementedError

    def legal_actions(self, state) -> list:
        """The acting player's actions, the same list (same order) in every history of an
        information set."""
        raise NotImplementedError

    def chance_outcomes(self, state) -> list:
        """[(action, probability), ...] at a chance node; probabilities >= 0 summing to 1."""
        raise NotImplementedError

    def child(self, state, action):
        """The state after `action` (a new object: states are not modified in place)."""
        raise NotImplementedError

    def infoset_key(self, state, player: int) -> str:
        """The key of `player`'s information set at a decision state."""
        raise NotImplementedError

    def action_label(self, action, player) -> str:
        """How an action is shown in exports and errors (`player` None: a chance outcome)."""
        return str(action)

    # --- structure -----------------------------------------------------------------------------

    def layout(self, player):
        return self.tree.layouts[player]

    def _bufs(self):
        """Per-thread scratch: policies, regret deltas, reach, values, best-response sums."""
        bufs = getattr(self._local, "bufs", None)
        if bufs is None:
            N = self.tree.num_nodes
            s0, s1 = self.tree.layouts[0].size, self.tree.layouts[1].size
            bufs = (np.zeros(s0), np.zeros(s1), np.zeros(s0), np.zeros(s1), np.zeros((N, 3)), np.zeros(N),
                    np.zeros(max(s0, s1)), np.zeros(max(s0, s1)), np.zeros(N))
            self._local.bufs = bufs
        return bufs

    def _blocks(self, p):
        lay = self.tree.layouts[p]
        return lay.block_start, lay.block_count, lay.block_actions

    def warmup(self):
        """Compile or load the kernels (one tiny pass of each)."""
        self.best_response([np.full(self.layout(p).size, 1.0) for p in (0, 1)])
        self.expected_values([np.full(self.layout(p).size, 1.0) for p in (0, 1)])
        sig0, sig1, d0, d1, reach, v = self._bufs()[:6]
        t = self.tree
        z = [np.zeros(self.layout(p).size) for p in (0, 1)]
        kernels.cfr_pass(t.node, t.prob, t.util, *self._blocks(0), *self._blocks(1), z[0], z[1], z[0], z[1],
                         z[0], z[1], 0, 0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, sig0, sig1, d0, d1, reach, v)
        none = np.zeros(0, dtype=np.int64)
        for mode in sampled.MODES.values():  # no pass (empty block): compiles or loads the kernel
            sampled.sampled_block(mode, 0.5, 0, 0, none, none, none, np.zeros(0), np.zeros(0), t.node, t.prob,
                                  t.util, t.infoset, z[0], z[1], z[0], z[1], z[0], z[1], *self._avg_scale("external"),
                                  *self._sampling_bufs())

    # --- passes --------------------------------------------------------------------------------

    def cfr_pass(self, store, job: PassJob, transport=None) -> int:
        """One pass over the ``root`` segment: regrets of job.players, the others' averages;
        returns the nodes it visited (all of them unless job.sampler samples)."""
        if job.sampler is not None and job.sampler.sampled:
            return self.cfr_block(store, PassBlock(job.iteration, 1, (job.players,), job.rule, job.averaging,
                                                   job.sampler), transport)
        upd = _bits(job.players)
        others = [1 - p for p in job.players] if len(job.players) == 1 else [0, 1]
        pre, pos, neg, floor, decay, weight = passes.kernel_coefficients(job)
        keep = job.averaging.keeps_average
        avg_mask = _bits(others) if keep and (weight != 0.0 or decay != 1.0) else 0
        t = self.tree
        sig0, sig1, d0, d1, reach, v = self._bufs()[:6]
        with store.open("root", passes.writes(job, upd, avg_mask)) as seg:
            src, reg, avg = passes.segment_arrays(store, seg, "root", job, upd, avg_mask)
            kernels.cfr_pass(t.node, t.prob, t.util, *self._blocks(0), *self._blocks(1), src[0], src[1],
                             reg[0], reg[1], avg[0], avg[1], upd, avg_mask, pre, pos, neg, floor, decay, weight,
                             sig0, sig1, d0, d1, reach, v)
            passes.finish_segment(seg, reg, avg, job, upd, avg_mask)
        return t.num_nodes

    def cfr_block(self, store, block: PassBlock, transport=None) -> int:
        """A block of passes; sampled ones run in one kernel call. Returns the nodes visited."""
        sampler = block.sampler
        if sampler is None or not sampler.sampled:
            return sum(self.cfr_pass(store, job, transport) for job in block.jobs())
        rule, averaging = block.rule, block.averaging
        ts = range(block.first, block.first + block.count)
        co = np.array([rule.kernel_coefficients(t) for t in ts], dtype=np.float64).reshape(-1, 4)
        if averaging.keeps_average:
            aw = np.array([averaging.coefficients(t) for t in ts], dtype=np.float64).reshape(-1, 2)
        else:
            aw = np.zeros((block.count, 2))
            aw[:, 0] = 1.0
        bad = np.flatnonzero((co[:, :3] != 1.0).any(axis=1) | (aw[:, 0] != 1.0))
        if bad.size:
            sampler.check_coefficients(rule, averaging, block.first + int(bad[0]))
        G = len(block.groups)
        masks = np.array([_bits(g) for g in block.groups], dtype=np.int64)
        others = np.array([_bits([1 - p for p in g]) if len(g) == 1 else 3 for g in block.groups], dtype=np.int64)
        iters = np.repeat(np.arange(block.first, block.first + block.count, dtype=np.int64), G)
        floors = np.repeat(co[:, 3], G)
        weights = np.repeat(aw[:, 1], G)
        avgmasks = np.tile(others, block.count) * (weights != 0.0) if averaging.keeps_average else np.zeros(iters.size, dtype=np.int64)
        upd_all = int(np.bitwise_or.reduce(masks))
        avg_all = int(np.bitwise_or.reduce(avgmasks)) if avgmasks.size else 0
        job = PassJob(block.first, (0, 1), rule, averaging, sampler)
        t = self.tree
        mode = sampled.MODES[sampler.scheme]
        a0, a1 = self._avg_scale(sampler.scheme)
        with store.open("root", passes.writes(job, upd_all, avg_all)) as seg:
            src, reg, avg = passes.segment_arrays(store, seg, "root", job, upd_all, avg_all)
            return int(sampled.sampled_block(mode, sampler.epsilon(), sampler.seed, 0, iters, np.tile(masks, block.count),
                                             avgmasks.astype(np.int64), floors, weights, t.node, t.prob, t.util,
                                             t.infoset, src[0], src[1], reg[0], reg[1], avg[0], avg[1], a0, a1,
                                             *self._sampling_bufs()))

    def _sampling_bufs(self):
        """Per-thread scratch of sampled passes: regret deltas and touched marks per player
        (zero between passes), node-indexed values, reach, edge policy, sampled child, stack."""
        bufs = getattr(self._local, "sbufs", None)
        if bufs is None:
            t = self.tree
            N = t.num_nodes
            s = [self.layout(p).size for p in (0, 1)]
            m = [self.layout(p).num_infosets for p in (0, 1)]
            bufs = (np.zeros(s[0]), np.zeros(s[1]), np.zeros(m[0], dtype=np.int8), np.zeros(m[1], dtype=np.int8),
                    np.zeros(m[0], dtype=np.int64), np.zeros(m[1], dtype=np.int64), np.zeros(2, dtype=np.int64),
                    np.zeros(N), np.zeros(N), np.zeros(N), np.zeros(N, dtype=np.int64),
                    np.zeros(2 * N + 2, dtype=np.int64), np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64),
                    np.zeros(N))
            self._local.sbufs = bufs
        return bufs

    def _avg_scale(self, scheme):
        """Per player and information set, the factor of a sampled pass's average increments:
        1 / c(I) (chance and external sampling), 1 / n(I) (outcome); see :mod:`.sampled`."""
        cache = self.__dict__.setdefault("_scales", {})
        if scheme not in cache:
            t = self.tree
            c0, c1, h0, h1 = sampled.infoset_mass(t.node, t.prob, t.infoset, self.layout(0).num_infosets,
                                                  self.layout(1).num_infosets)
            mass = (h0, h1) if scheme == "outcome" else (c0, c1)
            cache[scheme] = tuple(np.divide(1.0, m, out=np.zeros_like(m), where=m > 0) for m in mass)
        return cache[scheme]

    # --- evaluation ----------------------------------------------------------------------------

    def _br(self, sources) -> tuple[float, float]:
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

    def best_response(self, strategy):
        """(br_0, br_1) against flat per-player policies (normalised per information set)."""
        return self._br([np.asarray(strategy[p], dtype=np.float64) for p in (0, 1)])

    def best_response_from_store(self, store, kind, transport=None):
        """(br_0, br_1) of the store's average (cumulative strategies, normalised by the kernel)
        or current policy (the rule's policy source)."""
        seg = store.read("root")
        if kind == "average":
            if "avg0" not in seg:
                return None
            return self._br([np.array(seg["avg0"]), np.array(seg["avg1"])])
        return self._br([np.array(passes.policy_source(store, seg, "root", p)) for p in (0, 1)])

    def expected_values(self, strategy) -> tuple[float, float]:
        """(v_0, v_1): each player's expected utility when both play `strategy`."""
        t = self.tree
        sig0, sig1, _, _, _, v = self._bufs()[:6]
        x = float(kernels.expected_value(t.node, t.prob, t.util, *self._blocks(0), *self._blocks(1),
                                         np.asarray(strategy[0], dtype=np.float64),
                                         np.asarray(strategy[1], dtype=np.float64), sig0, sig1, v))
        return x, -x

    # --- presentation ----------------------------------------------------------------------------

    def infoset_keys(self, player):
        """The game's own information-set keys, in layout order."""
        return list(self.tree.keys[player])

    def infoset_actions(self, player) -> list[list[str]]:
        """Action labels of each information set of `player`, in layout order."""
        return [[self.action_label(a, player) for a in acts] for acts in self.tree.actions[player]]

    def action_names(self, player):
        """Labels shared by every information set of `player`, else None."""
        sets = {tuple(x) for x in self.infoset_actions(player)}
        return list(sets.pop()) if len(sets) == 1 else None
