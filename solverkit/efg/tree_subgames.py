"""A tree game cut into a trunk and subgames ([game] split_actions): the trunk's sweeps here, each
subgame's pass where a transport sends it, one store segment per part, so that workers may own them."""

from __future__ import annotations

import numpy as np

from ..core import passes
from ..core.arith import regret_matching
from ..core.capabilities import Decomposition
from ..core.game import PassJob
from ..errors import ConfigError
from . import nkernels


class TreeSubgames(Decomposition):
    """The :class:`~solverkit.efg.tree.TreeGame` methods of a game cut into parts (``self.split``);
    each falls back to the whole-tree behaviour when the game is not cut."""

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
        from ..core.grid import Grid

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
