"""What a poker game's strategies are worth and what they play: best responses (to a whole-game
strategy or to the stored one, segment by segment), expected values, and the whole-game policy
gathered from the store's segments."""

from __future__ import annotations

import functools

import numpy as np

from ..core.passes import NO_COEFFS, policy_source, rule_of
from .pass_settings import _Job
from .region import SCATTER_PART_VALUES


class GameEvaluation:
    """Best responses, expected values and strategies of a poker game (a mixin of
    :class:`.game.PokerGame`)."""

    def best_response(self, strategy):
        """(br_0, br_1) against a flat per-player strategy over the unsplit layout."""
        self._whole_tree("a best response to a whole-game strategy")
        vals = []
        t = self.tree
        for p in (0, 1):
            job = _Job(0, 0, 1 << p, p, NO_COEFFS)
            out = self._call(self.full, 0, self._root_entry(), t.boards.round_start, strategy, strategy,
                             [np.zeros(1), np.zeros(1)], job)
            vals.append(self._root_value(out, p))
        return vals[0], vals[1]

    def best_response_from_store(self, store, kind, transport=None):
        """(br_0, br_1) of the stored average (or current) strategy, walking the segments as a
        CFR pass does (trunk, subgames through the transport, trunk), max at the responder's
        nodes. Cumulative strategies are used unnormalised: the walk normalises per hand."""
        if kind == "average" and store.specs[next(iter(store.specs))].arrays.get("avg0") is None:
            return None
        source = "avg" if kind == "average" else "regret"
        vals = []
        for p in (0, 1):
            job = _Job(0, 0, 1 << p, p, NO_COEFFS, source=source)
            out = self._pass(store, job, transport)
            vals.append(self._root_value(out, p))
        return vals[0], vals[1]

    def expected_values(self, strategy) -> tuple[float, float]:
        """(v_0, v_1): each player's expected payoff (chips) when both play `strategy`."""
        self._whole_tree("the expected values of a whole-game strategy")
        t = self.tree
        job = _Job(0, 0, 3, -1, NO_COEFFS)
        out = self._call(self.full, 0, self._root_entry(), t.boards.round_start, strategy, strategy,
                         [np.zeros(1), np.zeros(1)], job)
        return self._root_value(out, 0), self._root_value(out, 1)

    def strategy(self, store, which):
        """Flat per-player policies over the unsplit layout, gathered from every segment."""

        return [self.strategy_of(store, which, p) for p in (0, 1)]

    def strategy_of(self, store, which, player, out=None, release=None, parallel=None):
        """One player's flat policy over the unsplit layout, gathered segment by segment: each
        segment is normalised on its own (information sets never straddle segments) and copied
        into `out` (a new array, or for example a memory-mapped file), and `release()` is called
        after each one, so only one segment's values are in memory besides `out`. `parallel`: a
        ``map(fn, items)`` on threads for an unsplit game's parts (:func:`policy_in_parts`)."""
        from ..core.arith import regret_matching
        from ..core.layout import parts, policy, policy_in_parts

        def values(seg_name):
            seg = store.read(seg_name)
            return policy_source(store, seg, seg_name, player) if which == "current" else seg[f"avg{player}"]

        if out is None:
            out = np.zeros(self.layout(player).size)
        if not self.split:  # straight into `out`, part by part, so a memory map's pages can go
            seg = store.read("root")
            rule = rule_of(store)
            name = f"avg{player}" if which != "current" else f"regret{player}"
            if hasattr(seg, "decode_range") and (which != "current" or rule is None or rule.plain_policy):
                # a compact store: decoded part by part too, never resident whole
                src = functools.partial(seg.decode_range, name)
            else:
                src = values("root")
            policy_in_parts(src, self.layout(player), out.view(np.ndarray), release, parallel=parallel)
            return out
        segments = [(self.trunk, None, "trunk")]
        # a trunk-only game decodes a subgame with a game built for its cut board: board by board
        keys = self._keys if self.below is None else sorted(self._keys, key=lambda k: (k[1], k[0], k[2]))
        for key in keys:
            region, first = self._sub_region(*key)
            segments.append((region, first, self._segment_name(key)))
        for region, first, seg_name in segments:
            seg = store.read(seg_name)
            layout = self._layout_of(region, player)
            if hasattr(seg, "decode_range") and (which != "current" or rule_of(store) is None
                                                 or rule_of(store).plain_policy):
                # a compact store: a part decoded at a time, never the segment whole; small parts,
                # since one part's blocks land on every board of the whole-game layout, and a
                # memory-mapped `out` holds a page (a large folio) per board touched until release
                name = f"avg{player}" if which != "current" else f"regret{player}"
                for lo, hi, start, stop in parts(layout, SCATTER_PART_VALUES):
                    pol = np.empty(stop - start)
                    regret_matching(seg.decode_range(name, start, stop), layout.block_start[lo:hi] - start,
                                    layout.block_count[lo:hi], layout.block_actions[lo:hi], pol)
                    self._scatter(out, region, pol, first, player, (lo, hi), start)
                    if release is not None:
                        release()
            else:
                pol = policy(values(seg_name), layout)
                for lo, hi, start, _ in parts(layout, SCATTER_PART_VALUES):
                    self._scatter(out, region, pol[start:], first, player, (lo, hi), start)
                    if release is not None:
                        release()
                del pol
        return out

    def segment_policy(self, store, segment, which, player):
        """`player`'s policy over one segment (the trunk, or a subgame chunk) in the segment's
        own layout, as :meth:`strategy_of` computes it before scattering it."""
        from ..core.layout import policy

        region, _ = self._segment_region(segment)
        seg = store.read(segment)
        values = policy_source(store, seg, segment, player) if which == "current" else seg[f"avg{player}"]
        return policy(values, self._layout_of(region, player))
