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
from ..core.arith import regret_matching
from ..core.game import Game, PassBlock, PassJob
from ..core.params import Param
from . import kernels, nkernels, sampled
from ..errors import ConfigError
from .build import FlatTree
from .tree_cache import cached_tree
from .split import split_tree


def _bits(players) -> int:
    m = 0
    for p in players:
        m |= 1 << p
    return m


def sampled_coefficients(block: PassBlock):
    """A sampled block's per-pass arrays: iterations, rule floors, averaging weights and
    (regret weights, pruning thresholds, pruning probability). A rule that rescales all regrets
    uniformly (Linear CFR) is applied lazily: iteration t's deltas are weighted by its
    ``increment_weight(t)`` instead (regret matching is scale-free), and a pruning threshold,
    given in the rescaled regret's units, is compared to the stored values times that weight."""
    rule, averaging, sampler = block.rule, block.averaging, block.sampler
    ts = range(block.first, block.first + block.count)
    co = np.array([rule.kernel_coefficients(t) for t in ts], dtype=np.float64).reshape(-1, 4)
    lazy = getattr(rule, "increment_weight", None)
    rw = np.array([lazy(t) for t in ts], dtype=np.float64) if lazy else np.ones(block.count)
    if lazy:
        co[:, :3] = 1.0
    if averaging.keeps_average:
        aw = np.array([averaging.coefficients(t) for t in ts], dtype=np.float64).reshape(-1, 2)
    else:
        aw = np.zeros((block.count, 2))
        aw[:, 0] = 1.0
    bad = np.flatnonzero((co[:, :3] != 1.0).any(axis=1) | (aw[:, 0] != 1.0))
    if bad.size:
        sampler.check_coefficients(rule, averaging, block.first + int(bad[0]))
    G = len(block.groups)
    iters = np.repeat(np.arange(block.first, block.first + block.count, dtype=np.int64), G)
    thr = sampler.prune_threshold() if sampler.scheme == "external" else 0.0
    start = sampler.prune_start()
    thresholds = np.where(np.arange(block.first, block.first + block.count) > start, thr * rw, 0.0)
    return (iters, np.repeat(co[:, 3], G), np.repeat(aw[:, 1], G),
            (np.repeat(rw, G), np.repeat(thresholds, G), sampler.prune_probability()))


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
        """(x, y, w): node-sized scratch of a one-player pass (:func:`.nkernels.cfr_pass_one`)."""
        b = self._nbufs()
        return b[6], b[7], b[9]

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

    def _avg_players(self, players) -> list[int]:
        """Whose averages a pass of `players` adds to: with alternating updates the player who
        updated just before (player p - 1; the opponent for two players, as Tammelin et al.
        2015), with simultaneous updates everyone."""
        P = self.num_players
        return [(players[0] - 1) % P] if len(players) == 1 else list(range(P))

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
        nkernels.cfr_block_n(t.node, t.prob, t.utils, self._base, *self._concat_blocks(), np.zeros(sig.size),
                             np.zeros(sig.size), z, z, np.zeros((0, 6)), sig, reach, v, d, ac, *self._node_bufs())
        nkernels.cfr_pass_any(t.node, t.prob, t.utils, self._base, self._profile(ones, sig), 0, 0, reach, v, d, ac,
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

    def _cfr_pass_n(self, store, job: PassJob) -> int:
        """:meth:`cfr_pass` of a game of more than two players: the kernel leaves instantaneous
        regrets and average contributions, folded here by the rule and the averaging scheme."""
        P = self.num_players
        upd = _bits(job.players)
        pre, pos, neg, floor, decay, weight = passes.kernel_coefficients(job)
        rule, averaging = job.rule, job.averaging
        avg_mask = 0
        if averaging.keeps_average and (weight != 0.0 or decay != 1.0 or not averaging.inline):
            avg_mask = _bits(self._avg_players(job.players))
        t = self.tree
        base = self._base
        sig, d, ac, reach, v = self._nbufs()[:5]
        with store.open("root", passes.writes(job, upd, avg_mask)) as seg:
            self._profile([passes.policy_source(store, seg, "root", p, rule) for p in range(P)], sig)
            nkernels.cfr_pass_any(t.node, t.prob, t.utils, base, sig, upd, avg_mask, reach, v, d, ac,
                                  *self._node_bufs())
            self._fold_n(seg, job, base, d, ac, avg_mask)
        return t.num_nodes

    def _pass_masks(self, job: PassJob) -> tuple[int, int]:
        """(players updated, averages added to) of an N-player full pass."""
        upd = _bits(job.players)
        _, _, _, _, decay, weight = passes.kernel_coefficients(job)
        averaging = job.averaging
        avg_mask = 0
        if averaging.keeps_average and (weight != 0.0 or decay != 1.0 or not averaging.inline):
            avg_mask = _bits(self._avg_players(job.players))
        return upd, avg_mask

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

    # --- a tree cut into a trunk and subgames ([game] split_actions) -----------------------------

    def _part_profile(self, part, store, seg, key: str, rule, out) -> np.ndarray:
        """`out` (concatenated over `part`'s layouts) = every player's current policy in segment `key`."""
        for p in range(self.num_players):
            lay = part.layouts[p]
            src = passes.policy_source(store, seg, key, p, rule)
            regret_matching(np.asarray(src, dtype=np.float64), lay.block_start, lay.block_count,
                            lay.block_actions, out[part.base[p]:part.base[p + 1]])
        return out

    @staticmethod
    def _part_bufs(part):
        """Scratch of one part's pass: policy, regret deltas, average contributions, reach, values."""
        S, N, P = int(part.base[-1]), part.num_nodes, len(part.layouts)
        return np.zeros(S), np.zeros(S), np.zeros(S), np.zeros((N, P + 1)), np.zeros((N, P))

    def _cfr_pass_split(self, store, job: PassJob, transport) -> int:
        """A full pass of a split game: the trunk's forward sweep here, each subgame's pass
        through `transport` (reach of its roots in, their values out), the trunk's backward sweep."""
        if job.sampler is not None and job.sampler.sampled:
            raise NotImplementedError("sampled passes of a split tree game")  # check_sampler refuses them first
        sp = self.split
        trunk, P = sp.trunk, self.num_players
        upd, avg_mask = self._pass_masks(job)
        sig, d, ac, reach, v = self._part_bufs(trunk)
        cut_vals = np.zeros((sp.cuts.shape[0], P))
        ones = np.ones((1, P + 1))
        with store.open("root", passes.writes(job, upd, avg_mask)) as seg:
            self._part_profile(trunk, store, seg, "root", job.rule, sig)
            nkernels.cfr_part_n(trunk.node, trunk.prob, trunk.utils, trunk.base, sig, upd, avg_mask, trunk.roots,
                                ones, cut_vals, True, False, reach, v, d, ac)
            inputs = {}
            for s, at in enumerate(sp.cut_nodes):
                x = np.zeros((sp.max_roots, P + 1))
                x[: at.size] = reach[at]
                inputs[(s,)] = x
            if transport is None:
                outs = {k: self.subgame_pass(k, job, x, store) for k, x in inputs.items()}
            else:
                outs = transport.map_subgames(job, inputs)
            for s, at in enumerate(sp.cut_nodes):
                cut_vals[trunk.node[at, 4]] = np.asarray(outs[(s,)])[: at.size]
            nkernels.cfr_part_n(trunk.node, trunk.prob, trunk.utils, trunk.base, sig, upd, avg_mask, trunk.roots,
                                ones, cut_vals, False, True, reach, v, d, ac)
            self._fold_n(seg, job, trunk.base, d, ac, avg_mask)
        return self.tree.num_nodes

    def subgame_pass(self, key, job, inputs, store):
        """The pass of `job` inside subgame `key` = (s,): its roots' reach rows `inputs`
        ([max roots, players + 1]) in, their values ([max roots, players]) out."""
        s = key[0]
        part = self.split.subgames[s]
        name = self.subgame_segment(key)
        upd, avg_mask = self._pass_masks(job)
        sig, d, ac, reach, v = self._part_bufs(part)
        R = part.roots.size
        with store.open(name, passes.writes(job, upd, avg_mask)) as seg:
            self._part_profile(part, store, seg, name, job.rule, sig)
            nkernels.cfr_part_n(part.node, part.prob, part.utils, part.base, sig, upd, avg_mask, part.roots,
                                np.ascontiguousarray(inputs[:R], dtype=np.float64), np.zeros((0, 1)), True, True,
                                reach, v, d, ac)
            self._fold_n(seg, job, part.base, d, ac, avg_mask)
        out = np.zeros((self.split.max_roots, self.num_players))
        out[:R] = v[part.roots]
        return out

    def subgame_keys(self):
        """(s,) per subgame of a split game; none otherwise."""
        return [] if self.split is None else [(s,) for s in range(len(self.split.subgames))]

    def subgame_segment(self, key):
        return f"sub{key[0]}"

    def subgame_shape(self):
        """Reach in: [root, player (and chance last)], padded to the largest subgame's roots."""
        return (self.split.max_roots, self.num_players + 1)

    def subgame_output_shape(self, job):
        """Values out: [root, player]."""
        return (self.split.max_roots, self.num_players)

    def _parts(self):
        """(segment name, part) of every part of a split game, the trunk first."""
        sp = self.split
        return [("root", sp.trunk), *((f"sub{s}", part) for s, part in enumerate(sp.subgames))]

    def segments(self, with_average: bool):
        """One segment per part of a split game (``root``: the trunk, ``sub<s>``: subgame s)."""
        if self.split is None:
            return super().segments(with_average)
        from ..core.store import SegmentSpec

        out = []
        for name, part in self._parts():
            arrays = {f"regret{p}": part.layouts[p].size for p in range(self.num_players)}
            if with_average:
                arrays.update({f"avg{p}": part.layouts[p].size for p in range(self.num_players)})
            out.append(SegmentSpec(name, arrays))
        return out

    def segment_grid(self, key, name):
        if self.split is None:
            return super().segment_grid(key, name)
        from ..core.codec import Grid

        part = dict(self._parts()).get(key)
        if part is not None and name[-1:].isdigit() and int(name[-1]) < self.num_players:
            return Grid.from_layout(part.layouts[int(name[-1])])
        return None

    def _gather(self, store, which: str, raw: bool) -> list[np.ndarray]:
        """Every player's values over the whole tree from a split game's segments: the policy
        ("current" or "average"), or with `raw` the values it is normalised from."""
        from ..core.layout import policy as normalise

        P = self.num_players
        out = [np.zeros(self.layout(p).size) for p in range(P)]
        for name, part in self._parts():
            seg = store.read(name)
            for p in range(P):
                if which == "average":
                    vals = seg[f"avg{p}"]
                else:
                    vals = passes.policy_source(store, seg, name, p)
                vals = np.asarray(vals, dtype=np.float64)
                out[p][part.index[p]] = vals if raw else normalise(vals, part.layouts[p])
        return out

    def strategy(self, store, which):
        if self.split is None:
            return super().strategy(store, which)
        return self._gather(store, which, raw=False)

    def segment_policy(self, store, segment, which, player):
        if self.split is None:
            return super().segment_policy(store, segment, which, player)
        from ..core.layout import policy as normalise

        part = dict(self._parts()).get(segment)
        if part is None:
            raise KeyError(f"game {self.name!r} has no segment {segment!r}")
        seg = store.read(segment)
        vals = seg[f"avg{player}"] if which == "average" else passes.policy_source(store, seg, segment, player)
        return normalise(np.asarray(vals, dtype=np.float64), part.layouts[player])

    def infoset_place(self, key, player=None):
        """As the default, with a split game's segment and the set's offset in that segment."""
        import dataclasses

        place = super().infoset_place(key, player)
        if self.split is None:
            return place
        for name, part in self._parts():
            at = np.flatnonzero(part.index[place.player] == place.offset)
            if at.size:
                return dataclasses.replace(place, segment=name, segment_offset=int(at[0]))
        return place

    def check_sampler(self, sampler, solver):
        if self.split is not None and sampler.sampled:
            raise ConfigError(f"[sampler] name = {sampler.scheme!r} is invalid for game {self.name!r} cut into "
                              "subgames ([game] split_actions): sampled passes run on the whole tree; use "
                              "[sampler] name = \"full\" or split_actions = 0")
        super().check_sampler(sampler, solver)

    def blocks_passes(self, rule, averaging, store) -> bool:
        """True (games of more than two players) when a block of full passes runs in one kernel
        call with the numbers of one call per pass: a rule that updates in the kernel and plays
        its regrets, an averaging scheme in the kernel or none, a store that keeps doubles as
        they are (a lossy store rounds at every encode)."""
        return (self.num_players != 2 and self.split is None and rule.inline and rule.plain_policy and not rule.state
                and (averaging.inline or not averaging.keeps_average) and store.codec.passthrough)

    def _cfr_block_n(self, store, block: PassBlock) -> int:
        """A block of full passes of an N-player game in one kernel call (:meth:`blocks_passes`)."""
        P = self.num_players
        rule, averaging = block.rule, block.averaging
        G = len(block.groups)
        ts = range(block.first, block.first + block.count)
        # an iteration's passes share its coefficients: computed once per iteration
        co = np.array([passes.kernel_coefficients_at(t, rule, averaging) for t in ts], dtype=np.float64).reshape(-1, 6)
        coeffs = np.repeat(co, G, axis=0)
        masks = np.tile(np.array([_bits(g) for g in block.groups], dtype=np.int64), block.count)
        avgs = np.tile(np.array([_bits(self._avg_players(g)) for g in block.groups], dtype=np.int64), block.count)
        keep = (coeffs[:, 5] != 0.0) | (coeffs[:, 4] != 1.0) if averaging.keeps_average else np.zeros(masks.size, bool)
        avgmasks = np.where(keep, avgs, 0).astype(np.int64)
        upd_all, avg_all = int(np.bitwise_or.reduce(masks)), int(np.bitwise_or.reduce(avgmasks))
        job = PassJob(block.first, tuple(range(P)), rule, averaging)
        t = self.tree
        base = self._base
        sig, d, ac, reach, v = self._nbufs()[:5]
        with store.open("root", passes.writes(job, upd_all, avg_all)) as seg:
            reg = np.concatenate([seg[f"regret{p}"] for p in range(P)])
            have_avg = averaging.keeps_average and "avg0" in seg
            avg = np.concatenate([seg[f"avg{p}"] for p in range(P)]) if have_avg else np.zeros(sig.size)
            if not have_avg:
                avgmasks[:] = 0
            nkernels.cfr_block_n(t.node, t.prob, t.utils, base, *self._concat_blocks(), reg, avg, masks, avgmasks,
                                 coeffs, sig, reach, v, d, ac, *self._node_bufs())
            for p in range(P):
                if (upd_all >> p) & 1:
                    seg[f"regret{p}"][:] = reg[base[p]:base[p + 1]]
                if have_avg and (avg_all >> p) & 1:
                    seg[f"avg{p}"][:] = avg[base[p]:base[p + 1]]
        return t.num_nodes * masks.size

    def cfr_block(self, store, block: PassBlock, transport=None) -> int:
        """A block of passes; sampled ones run in one kernel call. Returns the nodes visited."""
        sampler = block.sampler
        if sampler is None or not sampler.sampled:
            if self.blocks_passes(block.rule, block.averaging, store):
                return self._cfr_block_n(store, block)
            return sum(self.cfr_pass(store, job, transport) for job in block.jobs())
        if self.num_players != 2:
            return self._sampled_block_n(store, block)
        rule, averaging = block.rule, block.averaging
        masks = np.array([_bits(g) for g in block.groups], dtype=np.int64)
        others = np.array([_bits([1 - p for p in g]) if len(g) == 1 else 3 for g in block.groups], dtype=np.int64)
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
            return int(sampled.sampled_block(mode, sampler.epsilon(), sampler.seed, 0, iters, np.tile(masks, block.count),
                                             avgmasks.astype(np.int64), floors, weights, *rw, t.node, t.prob, t.util,
                                             t.infoset, src[0], src[1], reg[0], reg[1], avg[0], avg[1], a0, a1,
                                             *self._sampling_bufs()))

    @property
    def _ibase(self) -> np.ndarray:
        """Where each player's information sets start in the concatenated per-set arrays."""
        counts = [self.layout(p).num_infosets for p in range(self.num_players)]
        return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)

    def _sampled_block_n(self, store, block: PassBlock) -> int:
        """:meth:`cfr_block` of sampled passes in a game of more than two players: every player's
        regrets and averages concatenated for one kernel call, written back after it."""
        sampler, rule, averaging = block.sampler, block.rule, block.averaging
        P = self.num_players
        masks = np.array([_bits(g) for g in block.groups], dtype=np.int64)
        avgs = np.array([_bits(self._avg_players(g)) for g in block.groups], dtype=np.int64)
        iters, floors, weights, rw = sampled_coefficients(block)
        keep = averaging.keeps_average
        avgmasks = (np.tile(avgs, block.count) * (weights != 0.0) if keep else np.zeros(iters.size)).astype(np.int64)
        upd_all = int(np.bitwise_or.reduce(masks))
        avg_all = int(np.bitwise_or.reduce(avgmasks)) if avgmasks.size else 0
        job = PassJob(block.first, tuple(range(P)), rule, averaging, sampler)
        t = self.tree
        base = self._base
        with store.open("root", passes.writes(job, upd_all, avg_all)) as seg:
            reg = np.concatenate([seg[f"regret{p}"] for p in range(P)])
            have_avg = keep and "avg0" in seg
            avg = np.concatenate([seg[f"avg{p}"] for p in range(P)]) if have_avg else np.zeros(reg.size)
            if not have_avg:
                avgmasks[:] = 0
            count = int(sampled.sampled_block_n(sampled.MODES[sampler.scheme], sampler.epsilon(), sampler.seed, 0,
                                                iters, np.tile(masks, block.count), avgmasks, floors, weights, *rw, t.node,
                                                t.prob, t.utils, t.infoset, base, self._ibase, reg, avg,
                                                self._avg_scale_n(sampler.scheme), *self._sampling_bufs_n()))
            for p in range(P):
                if (upd_all >> p) & 1:
                    seg[f"regret{p}"][:] = reg[base[p]:base[p + 1]]
                if have_avg and (avg_all >> p) & 1:
                    seg[f"avg{p}"][:] = avg[base[p]:base[p + 1]]
        return count

    def _sampling_bufs_n(self):
        """Per-thread scratch of N-player sampled passes: regret deltas (zero between passes),
        touched marks, touched nodes and their count, node-indexed values, reach r and g, edge
        policy, sampled child, stack, path, path's samples and prefix probabilities."""
        bufs = getattr(self._local, "sbufs_n", None)
        if bufs is None:
            N = self.tree.num_nodes
            bufs = (np.zeros(int(self._base[-1])), np.zeros(int(self._ibase[-1]), dtype=np.int8),
                    np.zeros(int(self._ibase[-1]), dtype=np.int64), np.zeros(1, dtype=np.int64),
                    np.zeros(N), np.zeros(N), np.zeros(N), np.zeros(N), np.zeros(N, dtype=np.int64),
                    np.zeros(2 * N + 2, dtype=np.int64), np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64),
                    np.zeros(N))
            self._local.sbufs_n = bufs
        return bufs

    def _avg_scale_n(self, scheme):
        """:meth:`_avg_scale` of every player's information sets, concatenated."""
        cache = self.__dict__.setdefault("_scales_n", {})
        if scheme not in cache:
            t = self.tree
            c, h = sampled.infoset_mass_n(t.node, t.prob, t.infoset, self._ibase)
            m = h if scheme == "outcome" else c
            cache[scheme] = np.divide(1.0, m, out=np.zeros_like(m), where=m > 0)
        return cache[scheme]

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
