"""Card abstraction in the exact poker engine: CFR over information sets (betting node, bucket of
the acting player's cards on this round) instead of (betting node, board, hand).

Imperfect recall, as the literature uses it (Waugh et al. 2009; Johanson et al. 2013): an
abstract information set forgets earlier rounds' buckets. A lossless round (``buckets`` entry 0)
keeps the engine's own (board, hand) sets, so an abstraction lossless on every round runs the
unabstracted arithmetic and gives its doubles exactly.

Each pass plays the abstract policy gathered onto the whole game's layout, runs the unchanged
kernels in their delta mode (instantaneous regrets and reach-weighted policies into zero
buffers, :data:`~solverkit.core.passes.DELTA_COEFFS`), sums those per bucket and lets the rule
and the averaging scheme update the abstract arrays, as for any custom rule. Strategies written,
best responses and exploitability are the real game's: the abstract policy played in the
unabstracted game.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from ..core.jit import njit

from ..core.grid import Grid
from ..core.layout import Layout, policy
from ..core.passes import DELTA_COEFFS, policy_source, state_of, writes
from ..core.store import SegmentSpec
from ..errors import ConfigError
from .betting import DECISION

_CLASSES: dict = {}


@njit(cache=True, nogil=True)
def _fill_index(start, nodes, k, rnd, H, num_actions, abs_off, bmap, bmap_start, out):
    """out[full value] = abstract value: block i = (node, k-th board of its round), hands outer,
    actions inner, goes to abs_off[node] + bucket(round, k, hand) x A + action."""
    for i in range(start.size):
        n = nodes[i]
        A = num_actions[n]
        row = bmap_start[rnd[i]] + k[i] * H
        base = start[i]
        for h in range(H):
            dst = abs_off[n] + bmap[row + h] * A
            for a in range(A):
                out[base + h * A + a] = dst + a


@njit(cache=True, nogil=True)
def _fill_weight(start, nodes, k, rnd, H, num_actions, weight, round_start, out):
    """out[full value] = weight[board of its block] (rnd: the block's round, k its board there)."""
    for i in range(start.size):
        w = weight[round_start[rnd[i]] + k[i]]
        base = start[i]
        for j in range(H * num_actions[nodes[i]]):
            out[base + j] = w


def board_weights(boards, lossy) -> np.ndarray:
    """Per global board id, the real (board, hand) information sets each of its (canonical)
    board's sets stands for, relative within its round (1 where the round is lossless, or all of
    its boards stand for equally many): under suit isomorphism a canonical board stands for its
    suit orbit, and its parent's (orbit_size, multiplied down the rounds), while the engine's
    values on it are one real board's."""
    nb = int(boards.round_start[-1])
    total = np.ones(nb)
    for g in range(nb):
        par = int(boards.parent[g])
        total[g] = boards.orbit_size(g) * (total[par] if par >= 0 else 1.0)
    out = np.ones(nb)
    for r in range(len(boards.round_start) - 1):
        lo, hi = int(boards.round_start[r]), int(boards.round_start[r + 1])
        if lossy[r] and hi > lo and total[lo:hi].min() != total[lo:hi].max():
            out[lo:hi] = total[lo:hi] / total[lo:hi].min()
    return out


@njit(cache=True, nogil=True)
def _gather(src, idx, out):
    for i in range(idx.size):
        out[i] = src[idx[i]]


@njit(cache=True, nogil=True)
def _scatter_add(values, idx, out):
    """out[idx[i]] += values[i], in index order (a fixed order: the same sums every run)."""
    for i in range(idx.size):
        out[idx[i]] += values[i]


@njit(cache=True, nogil=True)
def _scatter_add_weighted(values, weight, idx, out):
    """out[idx[i]] += weight[i] x values[i], in index order."""
    for i in range(idx.size):
        out[idx[i]] += weight[i] * values[i]


class AbstractedPoker:
    """Mixin placed before a poker game's class by :func:`abstracted`: the store holds abstract
    arrays; everything else (tree, kernels, presentation) is the game's own over the real game."""

    abstraction_table = None

    # --- building -----------------------------------------------------------------------------

    def _setup_abstraction(self, table, definition: dict):
        if self.split:
            raise ConfigError(
                f"game {self.name!r}: [abstraction] needs the whole game in one segment, and [game] split_round = "
                f"{self.split} cuts it into subgames; set split_round = 0")
        if getattr(self, "trunk_only", False):
            raise ConfigError(f"game {self.name!r}: [abstraction] does not run with [game] trunk_only = true")
        gd = self.gd
        if len(table.buckets) != gd.num_rounds:
            raise ConfigError(
                f"[abstraction]: a table of {len(table.buckets)} rounds for game {self.name!r} of {gd.num_rounds} "
                "betting rounds")
        self.abstraction_table = table
        self.abstraction_definition = definition
        t = self.tree
        bet = t.bet
        nboards = np.diff(self.round_start).astype(np.int64)
        self._abs = []
        weight = board_weights(t.boards, [not table.lossless(r) for r in range(gd.num_rounds)])
        self._abs_weights = []
        for p in (0, 1):
            H = t.hands_of(p)
            hands = t.side(p).hands
            valid = t.side(p).valid
            counts, maps = [], []
            for r in range(gd.num_rounds):
                lo, n_r = int(self.round_start[r]), int(nboards[r])
                if table.lossless(r):
                    counts.append(n_r * H)
                    maps.append(np.arange(n_r * H, dtype=np.int64))
                    continue
                counts.append(int(table.buckets[r]))
                ok = valid[lo:lo + n_r].astype(bool)  # [boards of r, H]
                gi, hi = np.nonzero(ok)
                ncards = int(t.boards.num_cards[lo]) if n_r else 0
                cards = np.concatenate([hands[hi], t.boards.cards[lo + gi, :ncards]], axis=1).astype(np.int64)
                b = np.zeros((n_r, H), dtype=np.int64)
                if gi.size:
                    got = np.asarray(table.bucket_of(r, cards), dtype=np.int64)
                    if got.size and (got.min() < 0 or got.max() >= counts[-1]):
                        raise ConfigError(f"[abstraction]: the table gives buckets {int(got.min())}..{int(got.max())} "
                                          f"on round {r}, which has {counts[-1]} buckets")
                    b[gi, hi] = got
                maps.append(b.ravel())
            dec = np.flatnonzero((bet.kind == DECISION) & (bet.player == p))
            per = np.array([counts[int(bet.round[n])] * int(bet.num_actions[n]) for n in dec], dtype=np.int64)
            abs_off = np.zeros(bet.kind.size, dtype=np.int64)
            starts = np.zeros(dec.size, dtype=np.int64)
            if dec.size:
                starts[1:] = np.cumsum(per)[:-1]
            abs_off[dec] = starts
            size = int(per.sum())
            layout = self.layout(p)
            nodes, k = self.full.units[p]
            bmap_start = np.zeros(gd.num_rounds, dtype=np.int64)
            bmap_start[1:] = np.cumsum([m.size for m in maps])[:-1]
            idx = np.empty(layout.size, dtype=np.int64)
            _fill_index(layout.block_start, nodes.astype(np.int64), k.astype(np.int64),
                        bet.round[nodes].astype(np.int64), H, bet.num_actions.astype(np.int64), abs_off,
                        np.concatenate(maps), bmap_start, idx)
            if np.all(weight == 1.0):
                self._abs_weights.append(None)
            else:  # a lossy round whose canonical boards stand for unequally many real ones
                wv = np.empty(layout.size)
                _fill_weight(layout.block_start, nodes.astype(np.int64), k.astype(np.int64),
                             bet.round[nodes].astype(np.int64), H, bet.num_actions.astype(np.int64), weight,
                             np.asarray(self.round_start, dtype=np.int64), wv)
                self._abs_weights.append(wv)
            block_count = np.array([counts[int(bet.round[n])] for n in dec], dtype=np.int64)
            alayout = Layout(starts, block_count, bet.num_actions[dec].astype(np.int64))
            self._abs.append((size, idx, alayout, bet.round[dec].astype(np.int64)))
        self.store_estimate = 8 * 2 * sum(a[0] for a in self._abs)

    def definition(self) -> dict:
        """The game's definition and the abstraction's (another abstraction is another game)."""
        return {**super().definition(), "abstraction": self.abstraction_definition}

    # --- the store ----------------------------------------------------------------------------

    def abstract_size(self, player: int) -> int:
        """Values of `player`'s abstract regret (or average) array."""
        return self._abs[player][0]

    def abstract_layout(self, player: int) -> Layout:
        """`player`'s abstract information sets: per decision node, buckets x actions."""
        return self._abs[player][2]

    def segments(self, with_average):
        arrays = {f"regret{p}": self.abstract_size(p) for p in (0, 1)}
        if with_average:
            arrays.update({f"avg{p}": self.abstract_size(p) for p in (0, 1)})
        return [SegmentSpec("root", arrays)]

    def segment_grid(self, key, name, board_order: bool = True):
        p = int(name[-1])
        lay = self.abstract_layout(p)
        n = lay.block_start.size
        return Grid(lay.block_start, lay.block_count, lay.block_actions, np.full(n, -1, dtype=np.int64),
                    self._abs[p][3], np.full(n, -1, dtype=np.int64), np.zeros((1, 1), dtype=np.int64))

    def blocks_passes(self, rule, averaging, store) -> bool:
        return False

    def _gathered(self, player: int, values: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Abstract values laid out over the whole game (each hand gets its bucket's row)."""
        idx = self._abs[player][1]
        if out is None:
            out = np.empty(idx.size)
        _gather(np.ascontiguousarray(values, dtype=np.float64), idx, out)
        return out

    def _scratch(self, what: str, player: int, zero: bool) -> np.ndarray:
        """A whole-game buffer kept between passes (allocating and faulting in three arrays of
        the real game's size each pass cost more than the gather)."""
        bufs = self.__dict__.setdefault("_abs_scratch", {})
        buf = bufs.get((what, player))
        if buf is None:
            buf = bufs[(what, player)] = np.zeros(self._abs[player][1].size)
        elif zero:
            buf.fill(0.0)
        return buf

    def _summed(self, player: int, values: np.ndarray) -> np.ndarray:
        """Whole-game values summed per abstract value, each (board, hand) set's weighted by the
        real sets it stands for (:func:`board_weights`; suit isomorphism)."""
        out = np.zeros(self.abstract_size(player))
        w = self._abs_weights[player]
        if w is None:
            _scatter_add(values, self._abs[player][1], out)
        else:
            _scatter_add_weighted(values, w, self._abs[player][1], out)
        return out

    # --- passes -------------------------------------------------------------------------------

    def cfr_pass(self, store, job, transport=None) -> int:
        """One pass: the real game's walk in delta mode, then the abstract update."""
        kjob = self.kernel_job(job)
        rule, averaging = job.rule, job.averaging
        upd, avgm = int(kjob.upd_mask), int(kjob.avg_mask)
        keep = averaging.keeps_average
        t = self.tree
        with store.open("root", writes(job, upd, avgm)) as seg:
            src = [self._gathered(p, policy_source(store, seg, "root", p, rule), self._scratch("src", p, False))
                   for p in (0, 1)]
            reg = [self._scratch("reg", p, True) if (upd >> p) & 1 else np.zeros(1) for p in (0, 1)]
            grows = [bool(keep and (avgm >> q) & 1 and f"avg{q}" in seg) for q in (0, 1)]
            avg = [self._scratch("avg", q, True) if grows[q] else np.zeros(1) for q in (0, 1)]
            dj = replace(kjob, coeffs=(*DELTA_COEFFS, 1.0, 1.0 if keep else 0.0), inline_rule=False,
                         inline_avg=False, prune=bool(self.pruning))
            self._call(self.full, 0, self._root_entry(), t.boards.round_start, src, reg, avg, dj)
            del src
            for p in (0, 1):
                if (upd >> p) & 1:
                    delta = self._summed(p, reg[p])
                    if rule.state:
                        rule.update(seg[f"regret{p}"], delta, job.iteration, state_of(seg, rule, p))
                    else:
                        rule.update(seg[f"regret{p}"], delta, job.iteration)
            for q in (0, 1):
                if grows[q]:
                    averaging.update(seg[f"avg{q}"], self._summed(q, avg[q]), job.iteration)
        return self.pass_nodes(kjob)

    def cfr_block(self, store, block, transport=None) -> int:
        return sum(self.cfr_pass(store, job, transport) for job in block.jobs())

    # --- strategies and evaluation in the real game -------------------------------------------

    def _source(self, store, which: str, player: int):
        seg = store.read("root")
        if which == "current":
            return policy_source(store, seg, "root", player)
        return seg[f"avg{player}"]

    def strategy_of(self, store, which, player, out=None, release=None, parallel=None):
        """`player`'s policy in the real game (each hand plays its bucket's abstract policy)."""
        pol = policy(np.ascontiguousarray(self._source(store, which, player), dtype=np.float64),
                     self.abstract_layout(player))
        full = self._gathered(player, pol)
        if out is None:
            return full
        out[...] = full
        if release is not None:
            release()
        return out

    def segment_policy(self, store, segment, which, player):
        return self.strategy_of(store, which, player)

    def best_response_from_store(self, store, kind, transport=None):
        """(br_0, br_1) in the real game against the abstract strategy."""
        if kind == "average" and "avg0" not in store.specs["root"].arrays:
            return None
        which = "average" if kind == "average" else "current"
        raw = [self._gathered(p, self._source(store, which, p)) for p in (0, 1)]
        return self.best_response(raw)

    def real_policy(self, strategy):
        """The unabstracted game (same tree, plain store) and `strategy`, which is already its."""
        return self._real_game, strategy

    def infoset_place(self, key, player=None):
        place = super().infoset_place(key, player)
        return replace(place, segment="strategy", segment_offset=place.offset)


def abstracted(game, table, definition: dict):
    """`game` (a PokerGame) with card abstraction `table` (a
    :class:`solverkit.abstraction.table.BucketTable`): same object state, abstract store."""
    base = type(game)
    cls = _CLASSES.get(base)
    if cls is None:
        cls = _CLASSES[base] = type(f"Abstracted{base.__name__}", (AbstractedPoker, base), {"__module__": __name__})
    out = object.__new__(cls)
    out.__dict__.update(game.__dict__)
    out._real_game = game
    out._setup_abstraction(table, definition)
    return out
