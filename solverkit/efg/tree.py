"""TreeGame: describe any finite two-player zero-sum game with perfect recall as a tree; get CFR,
best response and exploitability from the generic engine.

A subclass implements a handful of methods on its own state objects (:meth:`initial_state`,
:meth:`is_terminal`, :meth:`returns`, :meth:`player`, :meth:`legal_actions`,
:meth:`chance_outcomes`, :meth:`child`, :meth:`infoset_key`). The tree is enumerated once, in
Python, into flat arrays (:mod:`solverkit.efg.build`); every pass, best response and evaluation
then runs in numba kernels (:mod:`solverkit.efg.kernels`) with no Python per node.

The class is assembled from its ideas: full passes here, :mod:`.tree_subgames` (a tree cut into
a trunk and subgames), :mod:`.sampled_passes` and :mod:`.evaluation` (best response, values).
"""

from __future__ import annotations

import threading

import numpy as np

from ..core import passes
from ..core.arith import regret_matching
from ..core.game import Game, PassBlock, PassJob
from ..core.params import Param
from ..core.pass_plan import average_mask, average_players, block_plan, block_predictions
from ..core.passes import _bits
from . import kernels, nkernels, npasses, sampled
from ..errors import ConfigError
from .build import FlatTree
from .evaluation import TreeEvaluation
from .sampled_passes import TreeSampledPasses, sampled_coefficients
from .tree_cache import cached_tree
from .tree_subgames import TreeSubgames
from .split import split_tree


class TreeGame(TreeSubgames, TreeSampledPasses, TreeEvaluation, Game):
    """Base class of games described as a tree (see the module docstring for the contract).

    Utilities are player 0's (``returns`` may give both players' to have zero-sum checked);
    chance outcomes are (action, probability) pairs; an information-set key is any string
    that is equal exactly for the histories the acting player cannot tell apart."""

    #: value of :meth:`player` at a chance node (OpenSpiel's number for it)
    CHANCE = -1
    unit_name = "utility"
    store_walk_is_exact = True
    samplers = ("full", *sampled.MODES)  # the literature's schemes: chance, external, outcome
    #: external sampling prunes ([sampler] prune_threshold); lcfr is applied as weighted deltas
    prunes = lazy_rule_weights = True
    engine_params = {
        "max_nodes": Param("int", 5_000_000, "refuse trees with more nodes than this (enumeration is Python, "
                           "about 150 bytes per node)", min=1),
        "split_actions": Param("int", 0, "cut the tree below this many decisions into a trunk and subgames "
                               "(subtrees sharing an information set are one subgame) that a zmq or dask "
                               "transport's workers own; games of 3 or more players; 0: no cut", min=0, max=1000),
    }
    params = dict(engine_params)  # a subclass with params of its own takes these too (Game.__init_subclass__)

    def __init__(self, **params):
        super().__init__(**params)
        max_nodes = params.get("max_nodes")
        if max_nodes is None:  # built directly, not from a config table
            max_nodes = self.params["max_nodes"].default
        self.tree: FlatTree = cached_tree(self, int(max_nodes))
        self._local = threading.local()
        cut = int(params.get("split_actions") or 0)
        self.split = None
        if cut:
            if self.num_players == 2:
                raise ConfigError(f"[game] split_actions = {cut} is invalid for game {self.name!r} of 2 players: "
                                  "a tree game is cut into subgames only with 3 or more players ([game] players); "
                                  "use split_actions = 0")
            self.split = split_tree(self.tree, cut, self.name or type(self).__name__)

    def tree_cache_key(self) -> str | None:
        """A string naming this game's tree exactly (rules and the version of whatever computes
        them), under which the enumerated tree is cached on disk (solverkit.efg.tree_cache);
        None: enumerated every time (the default: a Python description may change between runs)."""
        return None

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

    @property
    def _base(self) -> np.ndarray:
        """Where each player's values start in the concatenated arrays of the N-player kernels
        (players + 1 entries, the last one the total size)."""
        base = self.__dict__.get("_base_cache")
        if base is None:
            sizes = [self.layout(p).size for p in range(self.num_players)]
            base = self._base_cache = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        return base

    def _nbufs(self):
        """Per-thread scratch of the N-player kernels: concatenated policy, regret deltas and average
        contributions, reach [N, players + 1], values [N, players], best-response sums, three node-sized
        scratch arrays (reach and values of one player's pass, best response) and the players' values."""
        bufs = getattr(self._local, "nbufs", None)
        if bufs is None:
            N, P, S = self.tree.num_nodes, self.num_players, int(self._base[-1])
            m = max(self.layout(p).size for p in range(P))
            bufs = (np.zeros(S), np.zeros(S), np.zeros(S), np.zeros((N, P + 1)), np.zeros((N, P)), np.zeros(m),
                    np.zeros(N), np.zeros(N), np.zeros(P), np.zeros(N))
            self._local.nbufs = bufs
        return bufs

    def _node_bufs(self):
        """(x, y, w): node-sized scratch of a one-player pass (:func:`.npasses.pass_one`)."""
        b = self._nbufs()
        return b[6], b[7], b[9]

    def _compact(self):
        """(cn, ut): the compact node table of the N-player full passes (:func:`.npasses.compact_nodes`),
        built once."""
        cache = self.__dict__.get("_compact_cache")
        if cache is None:
            cache = self._compact_cache = npasses.compact_nodes(self.tree.node, self.tree.utils, self._base)
        return cache

    def _concat_blocks(self):
        """(block_start, block_count, block_actions) of every player's layout, concatenated."""
        cache = self.__dict__.get("_cat_blocks")
        if cache is None:
            lays = [self.layout(p) for p in range(self.num_players)]
            cache = self._cat_blocks = (
                np.concatenate([lay.block_start + b for lay, b in zip(lays, self._base)]).astype(np.int64),
                np.concatenate([lay.block_count for lay in lays]).astype(np.int64),
                np.concatenate([lay.block_actions for lay in lays]).astype(np.int64))
        return cache

    def _profile(self, sources, out):
        """`out` (concatenated) = regret matching of each player's source (policies normalise)."""
        base = self._base
        for p in range(self.num_players):
            regret_matching(np.asarray(sources[p], dtype=np.float64), *self._blocks(p), out[base[p]:base[p + 1]])
        return out

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
        if self.num_players != 2:
            return self._warmup_n()
        self.best_response([np.full(self.layout(p).size, 1.0) for p in (0, 1)])
        self.expected_values([np.full(self.layout(p).size, 1.0) for p in (0, 1)])
        sig0, sig1, d0, d1, reach, v = self._bufs()[:6]
        t = self.tree
        z = [np.zeros(self.layout(p).size) for p in (0, 1)]
        kernels.cfr_pass(t.node, t.prob, t.util, *self._blocks(0), *self._blocks(1), z[0], z[1], z[0], z[1],
                         z[0], z[1], 0, 0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, sig0, sig1, d0, d1, reach, v)
        none = np.zeros(0, dtype=np.int64)
        for mode in sampled.MODES.values():  # no pass (empty block): compiles or loads the kernel
            sampled.sampled_block(mode, 0.5, 0, 0, none, none, none, np.zeros(0), np.zeros(0), np.zeros(0),
                                  np.zeros(0), 0.0, t.node, t.prob,
                                  t.util, t.infoset, z[0], z[1], z[0], z[1], z[0], z[1], *self._avg_scale("external"),
                                  *self._sampling_bufs())

    def _warmup_n(self):
        """:meth:`warmup` of a game of more than two players: every N-player kernel once, on
        empty blocks where a pass would change values."""
        P = self.num_players
        ones = [np.full(self.layout(p).size, 1.0) for p in range(P)]
        self.best_response(ones)
        self.expected_values(ones)
        t = self.tree
        sig, d, ac, reach, v = self._nbufs()[:5]
        z = np.zeros(0, dtype=np.int64)
        cn, ut = self._compact()
        npasses.block(cn, t.prob, ut, t.utils, self._base, *self._concat_blocks(), np.zeros(sig.size),
                      np.zeros(sig.size), z, z, np.zeros((0, 6)), sig, reach, v, d, ac, *self._node_bufs())
        npasses.pass_any(cn, t.prob, ut, t.utils, self._base, self._profile(ones, sig), 0, 0, reach, v, d, ac,
                         *self._node_bufs())
        nkernels.fold(self._base, 0, np.zeros(0), d, 1.0, 1.0, 1.0, 0.0)
        nkernels.fold_average(self._base, 0, np.zeros(0), ac, 1.0, 0.0)
        none = np.zeros(0, dtype=np.int64)
        S = sig.size
        for mode in sampled.MODES.values():  # no pass (empty block): compiles or loads the kernel
            sampled.sampled_block_n(mode, 0.5, 0, 0, none, none, none, np.zeros(0), np.zeros(0), np.zeros(0),
                                    np.zeros(0), 0.0, t.node, t.prob,
                                    t.utils, t.infoset, self._base, self._ibase, np.zeros(S), np.zeros(S),
                                    self._avg_scale_n("external"), *self._sampling_bufs_n())

    # --- passes --------------------------------------------------------------------------------

    def cfr_pass(self, store, job: PassJob, transport=None) -> int:
        """One pass over the ``root`` segment: regrets of job.players, the others' averages;
        returns the nodes it visited (all of them unless job.sampler samples)."""
        if job.sampler is not None and job.sampler.sampled:
            return self.cfr_block(store, PassBlock(job.iteration, 1, (job.players,), job.rule, job.averaging,
                                                   job.sampler), transport)
        if self.split is not None:
            return self._cfr_pass_split(store, job, transport)
        if self.num_players != 2:
            return self._cfr_pass_n(store, job)
        upd = _bits(job.players)
        pre, pos, neg, floor, decay, weight = passes.kernel_coefficients(job)
        avg_mask = average_mask(job.players, 2, job.averaging, decay, weight)
        t = self.tree
        sig0, sig1, d0, d1, reach, v = self._bufs()[:6]
        with store.open("root", passes.writes(job, upd, avg_mask)) as seg:
            src, reg, avg = passes.segment_arrays(store, seg, "root", job, upd, avg_mask)
            kernels.cfr_pass(t.node, t.prob, t.util, *self._blocks(0), *self._blocks(1), src[0], src[1],
                             reg[0], reg[1], avg[0], avg[1], upd, avg_mask, pre, pos, neg, floor, decay, weight,
                             sig0, sig1, d0, d1, reach, v)
            passes.finish_segment(seg, reg, avg, job, upd, avg_mask)
        return t.num_nodes

    def _cfr_pass_n(self, store, job: PassJob) -> int:
        """:meth:`cfr_pass` of a game of more than two players: the kernel leaves instantaneous
        regrets and average contributions, folded here by the rule and the averaging scheme."""
        P = self.num_players
        upd = _bits(job.players)
        pre, pos, neg, floor, decay, weight = passes.kernel_coefficients(job)
        rule, averaging = job.rule, job.averaging
        avg_mask = average_mask(job.players, P, averaging, decay, weight)
        t = self.tree
        base = self._base
        cn, ut = self._compact()
        sig, d, ac, reach, v = self._nbufs()[:5]
        with store.open("root", passes.writes(job, upd, avg_mask)) as seg:
            self._profile([passes.policy_source(store, seg, "root", p, rule) for p in range(P)], sig)
            npasses.pass_any(cn, t.prob, ut, t.utils, base, sig, upd, avg_mask, reach, v, d, ac, *self._node_bufs())
            self._fold_n(seg, job, base, d, ac, avg_mask)
        return t.num_nodes

    def _pass_masks(self, job: PassJob) -> tuple[int, int]:
        """(players updated, averages added to) of an N-player full pass."""
        upd = _bits(job.players)
        _, _, _, _, decay, weight = passes.kernel_coefficients(job)
        return upd, average_mask(job.players, self.num_players, job.averaging, decay, weight)

    def _fold_n(self, seg, job: PassJob, base, d, ac, avg_mask: int) -> None:
        """Fold a pass's instantaneous regrets `d` and average contributions `ac` (concatenated
        at `base`) into an open segment with the rule and the averaging scheme."""
        pre, pos, neg, floor, decay, weight = passes.kernel_coefficients(job)
        rule, averaging = job.rule, job.averaging
        for p in job.players:
            if rule.inline:
                nkernels.fold(base, p, seg[f"regret{p}"], d, pre, pos, neg, floor)
            else:
                job.update_regret(seg[f"regret{p}"], d[base[p]:base[p + 1]].copy(), passes.state_of(seg, rule, p))
        for q in range(self.num_players):
            if (avg_mask >> q) & 1 and f"avg{q}" in seg:
                if averaging.inline:
                    nkernels.fold_average(base, q, seg[f"avg{q}"], ac, decay, weight)
                else:
                    averaging.update(seg[f"avg{q}"], ac[base[q]:base[q + 1]].copy(), job.iteration)

    def blocks_passes(self, rule, averaging, store) -> bool:
        """True when a block of full passes runs in one kernel call with the numbers of one call
        per pass: a whole (unsplit) game, a rule that updates in the kernel and plays its regrets,
        an averaging scheme in the kernel or none, a store that keeps doubles as they are (a lossy
        store rounds at every encode)."""
        if self.split is not None or not store.codec.passthrough or not (averaging.inline or not averaging.keeps_average):
            return False
        return (rule.inline and rule.plain_policy and not rule.state) or self._kernel_predictive(rule)

    def _kernel_predictive(self, rule) -> bool:
        """A predictive rule whose update a block applies between its passes
        (:meth:`~solverkit.core.rule.RegretRule.kernel_prediction`: its update is exactly
        predictive_update with those coefficients)."""
        return rule.predictive and rule.policy == "regret_matching" and rule.kernel_prediction(1) is not None

    def _cfr_block_2(self, store, block: PassBlock) -> int:
        """A block of full passes of a two-player game in one kernel call (:meth:`blocks_passes`):
        :func:`.kernels.cfr_block`, the passes of :meth:`cfr_pass` one after another."""
        masks, avgmasks, coeffs = block_plan(block, 2)
        job = PassJob(block.first, (0, 1), block.rule, block.averaging)
        upd_all, avg_all = int(np.bitwise_or.reduce(masks)), int(np.bitwise_or.reduce(avgmasks))
        t = self.tree
        sig0, sig1, d0, d1, reach, v = self._bufs()[:6]
        with store.open("root", passes.writes(job, upd_all, avg_all)) as seg:
            src, reg, avg = passes.segment_arrays(store, seg, "root", job, upd_all, avg_all)
            held = _bits([q for q in (0, 1) if f"avg{q}" in seg])
            if block.rule.predictive:
                preds = block_predictions(block)
                kernels.cfr_block_predictive(t.node, t.prob, t.util, *self._blocks(0), *self._blocks(1),
                                             seg["regret0"], seg["regret1"], seg["pred0"], seg["pred1"], src[0],
                                             src[1], reg[0], reg[1], avg[0], avg[1], masks, avgmasks & held, coeffs,
                                             preds, sig0, sig1, d0, d1, reach, v)
            else:
                kernels.cfr_block(t.node, t.prob, t.util, *self._blocks(0), *self._blocks(1), reg[0], reg[1], avg[0],
                                  avg[1], masks, avgmasks & held, coeffs, sig0, sig1, d0, d1, reach, v)
        return t.num_nodes * masks.size

    def _cfr_block_n(self, store, block: PassBlock) -> int:
        """A block of full passes of an N-player game in one kernel call (:meth:`blocks_passes`)."""
        P = self.num_players
        rule, averaging = block.rule, block.averaging
        masks, avgmasks, coeffs = block_plan(block, P)
        upd_all, avg_all = int(np.bitwise_or.reduce(masks)), int(np.bitwise_or.reduce(avgmasks))
        job = PassJob(block.first, tuple(range(P)), rule, averaging)
        t = self.tree
        base = self._base
        cn, ut = self._compact()
        sig, d, ac, reach, v = self._nbufs()[:5]
        with store.open("root", passes.writes(job, upd_all, avg_all)) as seg:
            reg = np.concatenate([seg[f"regret{p}"] for p in range(P)])
            have_avg = averaging.keeps_average and "avg0" in seg
            avg = np.concatenate([seg[f"avg{p}"] for p in range(P)]) if have_avg else np.zeros(sig.size)
            if not have_avg:
                avgmasks[:] = 0
            if rule.predictive:
                pred = np.concatenate([seg[f"pred{p}"] for p in range(P)])
                npasses.block_predictive(cn, t.prob, ut, t.utils, base, *self._concat_blocks(), reg, pred,
                                         np.empty_like(reg), avg, masks, avgmasks, coeffs, block_predictions(block),
                                         sig, reach, v, d, ac, *self._node_bufs())
            else:
                npasses.block(cn, t.prob, ut, t.utils, base, *self._concat_blocks(), reg, avg, masks, avgmasks,
                              coeffs, sig, reach, v, d, ac, *self._node_bufs())
            for p in range(P):
                if (upd_all >> p) & 1:
                    seg[f"regret{p}"][:] = reg[base[p]:base[p + 1]]
                    if rule.predictive:
                        seg[f"pred{p}"][:] = pred[base[p]:base[p + 1]]
                if have_avg and (avg_all >> p) & 1:
                    seg[f"avg{p}"][:] = avg[base[p]:base[p + 1]]
        return t.num_nodes * masks.size

    def cfr_block(self, store, block: PassBlock, transport=None) -> int:
        """A block of passes; sampled ones run in one kernel call. Returns the nodes visited."""
        sampler = block.sampler
        if sampler is None or not sampler.sampled:
            if self.blocks_passes(block.rule, block.averaging, store):
                return self._cfr_block_2(store, block) if self.num_players == 2 else self._cfr_block_n(store, block)
            return sum(self.cfr_pass(store, job, transport) for job in block.jobs())
        if self.num_players != 2:
            return self._sampled_block_n(store, block)
        rule, averaging = block.rule, block.averaging
        masks = np.array([_bits(g) for g in block.groups], dtype=np.int64)
        others = np.array([_bits(average_players(g, 2, block.averaging)) for g in block.groups], dtype=np.int64)
        iters, floors, weights, rw = sampled_coefficients(block)
        avgmasks = np.tile(others, block.count) * (weights != 0.0) if averaging.keeps_average else np.zeros(iters.size, dtype=np.int64)
        upd_all = int(np.bitwise_or.reduce(masks))
        avg_all = int(np.bitwise_or.reduce(avgmasks)) if avgmasks.size else 0
        job = PassJob(block.first, (0, 1), rule, averaging, sampler)
        t = self.tree
        mode = sampled.MODES[sampler.scheme]
        a0, a1 = self._avg_scale(sampler.scheme)
        with store.open("root", passes.writes(job, upd_all, avg_all)) as seg:
            src, reg, avg = passes.segment_arrays(store, seg, "root", job, upd_all, avg_all)
            if self._baseline_mode(sampler):  # variance-reduced outcome sampling (VR-MCCFR)
                return self._vr_outcome_block(store, sampler, (iters, np.tile(masks, block.count),
                                              avgmasks.astype(np.int64), floors, weights, rw[0]), src, reg, avg)
            return int(sampled.sampled_block(mode, sampler.epsilon(), sampler.seed, 0, iters, np.tile(masks, block.count),
                                             avgmasks.astype(np.int64), floors, weights, *rw, t.node, t.prob, t.util,
                                             t.infoset, src[0], src[1], reg[0], reg[1], avg[0], avg[1], a0, a1,
                                             *self._sampling_bufs()))

    # --- presentation ----------------------------------------------------------------------------

    @classmethod
    def size_report(cls, params: dict) -> list[tuple[str, str]]:
        """``solverkit info`` lines: the game built (its tree enumerated), its players and nodes."""
        return cls(**params).tree_size_rows()

    def tree_size_rows(self) -> list[tuple[str, str]]:
        """The :meth:`size_report` lines of this built game: name, players, tree nodes, and each
        player's information sets and values."""
        rows = [("game", f"{self.name} ({self.num_players} players, tree engine)"),
                ("tree nodes", f"{self.tree.num_nodes:,}")]
        return rows + [(f"player {p} information sets / values",
                        f"{self.layout(p).num_infosets:,} / {self.layout(p).size:,}") for p in range(self.num_players)]

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
