"""Sampled CFR passes of a tree game (chance, external, outcome sampling): the per-pass
coefficients, scratch and average factors a block of sampled passes runs on in one kernel call,
and the baselines of variance-reduced outcome sampling."""

from __future__ import annotations

import weakref

import numpy as np

from ..core import passes
from ..core.game import PassBlock, PassJob
from ..core.pass_plan import average_players
from ..core.passes import _bits
from ..core.rule import increment_weights
from . import sampled, sampled_vr


def sampled_coefficients(block: PassBlock):
    """A sampled block's per-pass arrays: iterations, rule floors, averaging weights and
    (regret weights, pruning thresholds, pruning probability). A rule that rescales all regrets
    uniformly (Linear CFR) is applied lazily: iteration t's deltas are weighted by its
    ``increment_weight(t)`` instead (regret matching is scale-free), and a pruning threshold,
    given in the rescaled regret's units, is compared to the stored values times that weight; the
    sampler's ``regret_floor`` likewise floors them at itself times that weight (above the rule's own)."""
    rule, averaging, sampler = block.rule, block.averaging, block.sampler
    ts = np.arange(block.first, block.first + block.count, dtype=np.int64)
    co = np.array(rule.kernel_coefficients_block(block.first, block.count), dtype=np.float64).reshape(-1, 4)
    lazy = getattr(rule, "increment_weight", None) is not None
    rw = increment_weights(rule, ts)
    if lazy:
        co[:, :3] = 1.0
    if averaging.keeps_average:
        aw = np.array(averaging.coefficients_block(block.first, block.count), dtype=np.float64).reshape(-1, 2)
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
    floor = sampler.regret_floor() if sampler.scheme == "external" else 0.0
    floors = np.maximum(co[:, 3], floor * rw) if floor else co[:, 3]
    return (iters, np.repeat(floors, G), np.repeat(aw[:, 1], G),
            (np.repeat(rw, G), np.repeat(thresholds, G), sampler.prune_probability()))


class TreeSampledPasses:
    """The :class:`~solverkit.efg.tree.TreeGame` methods of sampled passes: N-player blocks, and
    the scratch and average scales of both kernels."""

    #: outcome sampling takes [sampler] baseline (VR-MCCFR; :mod:`.sampled_vr`)
    vr_baselines = True

    @staticmethod
    def _baseline_mode(sampler) -> int:
        """The kernel code of an outcome sampler's ``baseline`` (0: none, plain outcome sampling)."""
        if sampler.scheme != "outcome":
            return 0
        return sampled_vr.BASELINES[sampler.config.get("baseline", "none")]

    def _vr_args(self, store, sampler) -> tuple:
        """The trailing arguments of the VR-MCCFR kernels: baseline mode, decay, the run's
        baselines (:meth:`vr_baseline`) and an empty oracle scratch."""
        return (self._baseline_mode(sampler), float(sampler.config.get("baseline_decay", 0.5)),
                self.vr_baseline(store), np.zeros(0))

    def vr_baseline(self, store) -> np.ndarray:
        """The baselines b(h, a) of a run on `store`, one per edge (indexed by the child node; player
        0's utility, or [node, player] in each player's own with more players): engine-side, kept
        as long as the store lives and not checkpointed, so a resumed run starts them again from
        0 (still unbiased, other numbers than one straight run)."""
        table = self.__dict__.setdefault("_vr_tables", weakref.WeakKeyDictionary())
        bl = table.get(store)
        if bl is None:
            N = self.tree.num_nodes
            bl = table[store] = np.zeros(N) if self.num_players == 2 else np.zeros((N, self.num_players))
        return bl

    def _vr_outcome_block(self, store, sampler, plan, src, reg, avg) -> int:
        """A block of variance-reduced outcome-sampled passes (:func:`.sampled_vr.vr_outcome_block`)
        on an open root segment's (src, reg, avg); `plan`: (iters, masks, avgmasks, floors,
        weights, rweights) as :meth:`cfr_block` makes them."""
        t = self.tree
        a0, a1 = self._avg_scale("outcome")
        b = self._sampling_bufs()
        return int(sampled_vr.vr_outcome_block(sampler.epsilon(), sampler.seed, 0, *plan, t.node, t.prob, t.util,
                                               t.infoset, src[0], src[1], reg[0], reg[1], avg[0], avg[1], a0, a1,
                                               *b[:7], b[9], *b[12:15], *self._vr_args(store, sampler)))

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
        avgs = np.array([_bits(average_players(g, P, block.averaging)) for g in block.groups], dtype=np.int64)
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
            if self._baseline_mode(sampler):  # variance-reduced outcome sampling (VR-MCCFR)
                b = self._sampling_bufs_n()
                count = int(sampled_vr.vr_outcome_block_n(
                    sampler.epsilon(), sampler.seed, 0, iters, np.tile(masks, block.count), avgmasks, floors, weights,
                    rw[0], t.node, t.prob, t.utils, t.infoset, base, self._ibase, reg, avg,
                    self._avg_scale_n("outcome"), *b[:4], b[7], *b[10:13], *self._vr_args(store, sampler)))
            else:
                count = int(sampled.sampled_block_n(
                    sampled.MODES[sampler.scheme], sampler.epsilon(), sampler.seed, 0, iters,
                    np.tile(masks, block.count), avgmasks, floors, weights, *rw, t.node, t.prob, t.utils, t.infoset, base, self._ibase, reg, avg,
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
