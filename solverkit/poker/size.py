"""The size of a limit poker game from its definition alone, without building its public tree.

Counts are exact: boards per round (raw, and up to suit permutations by Burnside's lemma),
information sets (raw: board sequence x non-conflicting hand x decision node; isomorphic:
orbits of (board sequence, hand) under suit permutations x decision node) and stored values.
The memory estimate guards against building a tree that cannot fit (full hold'em), and
``solverkit info`` prints it all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

from ..core.memory import human_bytes, physical_memory
from .gamedef import GameDef


def _cycle_type(perm) -> tuple[int, ...]:
    seen, out = set(), []
    for i in range(len(perm)):
        if i in seen:
            continue
        n, j = 0, i
        while j not in seen:
            seen.add(j)
            j = perm[j]
            n += 1
        out.append(n)
    return tuple(sorted(out))


@lru_cache(maxsize=None)
def _fixed(orbit_sizes: tuple[tuple[int, int], ...], bins: tuple[int, ...]) -> int:
    """Ways to fill disjoint bins of the given sizes with whole card orbits, orbit_sizes =
    ((orbit size, how many), ...); the bins are distinguishable (board rounds, the hand)."""
    if not orbit_sizes:
        return 1 if not any(bins) else 0
    (size, count), rest = orbit_sizes[0], orbit_sizes[1:]
    total = 0

    def place(i, left, remaining, ways):
        nonlocal total
        if i == len(bins):
            total += ways * _fixed(rest, tuple(remaining))
            return
        cap = min(left, remaining[i] // size)
        for c in range(cap + 1):
            nxt = list(remaining)
            nxt[i] -= c * size
            place(i + 1, left - c, nxt, ways * math.comb(left, c))

    place(0, count, list(bins), 1)
    return total


def canonical_pairs(gd: GameDef, rounds: int, with_hand: bool = True) -> int:
    """Orbits of (board cards of rounds 1..rounds-1 as sets, private hand) under the
    permutations of suits (Burnside: the mean number of fixed points); without the hand, the
    canonical board sequences."""
    S, R, k = gd.num_suits, gd.num_ranks, gd.num_hole_cards
    bins = tuple(gd.num_board_cards[r] for r in range(1, rounds) if gd.num_board_cards[r]) + ((k,) if with_hand else ())
    total = 0
    perms = list(permutations(range(S)))
    for perm in perms:
        cycles: dict[int, int] = {}
        for length in _cycle_type(perm):
            cycles[length] = cycles.get(length, 0) + R
        total += _fixed(tuple(sorted(cycles.items())), bins)
    assert total % len(perms) == 0
    return total // len(perms)


def raw_boards(gd: GameDef, r: int) -> int:
    """Board sequences dealt by round r (each round's cards a set)."""
    left, out = gd.deck_size, 1
    for i in range(1, r + 1):
        out *= math.comb(left, gd.num_board_cards[i])
        left -= gd.num_board_cards[i]
    return out


#: bytes per betting-tree node while it is built (Python rows, history strings, then flat
#: arrays): part of the memory a game needs before any value is stored
BETTING_NODE_BYTES = 400


@dataclass
class GameSize:
    """Exact counts of a game and a memory estimate for the engine's float64 store."""

    rounds: int
    hands: int
    decision_nodes: list[int]  # per round, both players
    decision_values: list[int]  # per round: sum of actions over the decision nodes
    boards_raw: list[int]
    pairs_raw: list[int]  # (board sequence, non-conflicting hand) per round
    pairs_iso: list[int]  # their orbits under suit permutations
    sequences_to_round: list[int]  # betting sequences that reach each round
    boards_iso: list[int]  # canonical board sequences per round
    num_nodes: int = 0  # betting tree nodes (the kernels keep two [nodes, 2, hands] buffers per thread)

    @property
    def infosets_raw(self) -> int:
        return sum(d * p for d, p in zip(self.decision_nodes, self.pairs_raw))

    @property
    def infosets_iso(self) -> int:
        return sum(d * p for d, p in zip(self.decision_nodes, self.pairs_iso))

    @property
    def action_values_iso(self) -> int:
        """(information set, action) pairs up to suit symmetry."""
        return sum(a * p for a, p in zip(self.decision_values, self.pairs_iso))

    @property
    def action_values_raw(self) -> int:
        """(information set, action) pairs."""
        return sum(a * p for a, p in zip(self.decision_values, self.pairs_raw))

    def values(self, isomorphic: bool) -> int:
        """(information set, action) values of both players, as the store keeps them (every
        hand on every board, conflicting ones included)."""
        boards = self.boards_iso if isomorphic else self.boards_raw
        return sum(a * b * self.hands for a, b in zip(self.decision_values, boards))

    def tree_bytes(self, isomorphic: bool, fraction=None, threads: int = 2) -> int:
        """The public tree's per-board hand tables and the kernels' per-thread buffers;
        `fraction` scales each round's boards (a restricted deal)."""
        boards = self.boards_iso if isomorphic else self.boards_raw
        f = fraction or [1.0] * self.rounds
        boards = [b * x for b, x in zip(boards, f)]
        tables = sum(boards) * self.hands + boards[-1] * self.hands * 16
        betting = self.num_nodes * BETTING_NODE_BYTES
        return int(tables + betting + threads * self.num_nodes * 2 * self.hands * 8 * 2)

    def store_bytes(self, isomorphic: bool, fraction=None) -> int:
        """Float64 regrets and averages of both players."""
        boards = self.boards_iso if isomorphic else self.boards_raw
        f = fraction or [1.0] * self.rounds
        return int(16 * sum(a * b * x * self.hands for a, b, x in zip(self.decision_values, boards, f)))

    def memory_bytes(self, isomorphic: bool, fraction=None) -> int:
        """The tree and a float64 store."""
        return self.tree_bytes(isomorphic, fraction) + self.store_bytes(isomorphic, fraction)

    def subgames(self, split_round: int, isomorphic: bool) -> int:
        """(betting sequence reaching the cut, board of the round before it) pairs."""
        if not split_round:
            return 0
        boards = self.boards_iso if isomorphic else self.boards_raw
        return self.sequences_to_round[split_round] * boards[split_round - 1]


@dataclass
class BettingCounts:
    """Sizes of a game's betting tree, counted without building it (:func:`betting_counts`)."""

    decision_nodes: list[int]  # per round
    decision_values: list[int]  # per round: actions summed over its decision nodes
    sequences_to_round: list[int]  # betting sequences that reach each round (its roots)
    num_nodes: int  # every node: decisions, folds, showdowns, round ends


def betting_counts(gd: GameDef) -> BettingCounts:
    """The betting tree's sizes by counting states, never nodes: in a round a node's future
    depends only on who acts, the raises so far, whether anyone has acted and whether the actor
    faces a bet (after a raise; or the blinds), so each such state is expanded once with its
    multiplicity (exact integers, the same numbers as
    :func:`~solverkit.poker.betting.build_betting_tree` gives, in time and memory independent of
    the tree's size: a game with 255 raises a round is counted at once)."""
    R = gd.num_rounds
    dn, dv, seq = [0] * R, [0] * R, [0] * R
    entering, nodes = 1, 1  # the root
    for r in range(R):
        seq[r] = entering
        first = gd.first_player[r]
        # blinds: the first actor of round 0 may face the larger blind; later rounds start even
        facing = r == 0 and gd.blind[first] < max(gd.blind)
        states = {(0, 0, first, facing): entering}  # (raises, acted, player, facing) -> sequences
        entering = 0
        while states:
            key = min(states)  # (raises, acted) only grow: every state's parents come first
            raises, acted, player, facing = key
            count = states.pop(key)
            can_raise = raises < gd.max_raises[r]
            dn[r] += count
            dv[r] += count * (1 + facing + can_raise)
            nodes += count * (facing + 1 + can_raise)  # each action's child
            if acted:  # a call ends the round: a showdown, or a round end and the next round's root
                if r + 1 < R:
                    nodes += count
                    entering += count
            else:  # the round's first call: the other player faces a bet only if behind from the blinds
                behind = not facing and r == 0 and gd.blind[1 - player] < max(gd.blind)
                nxt = (raises, 1, 1 - player, behind)
                states[nxt] = states.get(nxt, 0) + count
            if can_raise:
                nxt = (raises + 1, 1, 1 - player, True)
                states[nxt] = states.get(nxt, 0) + count
    return BettingCounts(dn, dv, seq, nodes)


def game_size(gd: GameDef, bet: BettingCounts | None = None) -> GameSize:
    """Exact sizes of `gd`, from its definition alone (nothing of its size is built); `bet`: the
    betting tree's counts when they are not the limit game's (no-limit action trees)."""
    bet = bet or betting_counts(gd)
    R = gd.num_rounds
    dn, dv, seq = bet.decision_nodes, bet.decision_values, bet.sequences_to_round
    k = gd.num_hole_cards
    boards, pairs, iso, iso_boards = [], [], [], []
    on_board = 0
    for r in range(R):
        on_board += gd.num_board_cards[r]
        boards.append(raw_boards(gd, r))
        pairs.append(boards[-1] * math.comb(gd.deck_size - on_board, k))
        iso.append(canonical_pairs(gd, r + 1))
        iso_boards.append(canonical_pairs(gd, r + 1, with_hand=False))
    return GameSize(R, math.comb(gd.deck_size, k), dn, dv, boards, pairs, iso, seq, iso_boards, bet.num_nodes)


def report(gd: GameDef, isomorphic: bool, split_round: int, name: str,
           size: GameSize | None = None, trunk_only: bool = False) -> list[tuple[str, str]]:
    """What `solverkit info` prints for a poker game: exact counts and the memory they need
    (`size`: the game's GameSize, when it is not the limit game's of `gd`; `trunk_only`: the
    machine holds only the values above the cut, as a zmq trunk does)."""
    z = size or game_size(gd)
    float_bytes = z.memory_bytes(isomorphic)
    rows = [
        ("game", f"{name} ({gd.source})"),
        ("rounds", str(gd.num_rounds)),
        ("private hands", f"{z.hands:,}"),
        ("decision nodes per round", ", ".join(f"{d:,}" for d in z.decision_nodes)),
        ("betting sequences reaching each round", ", ".join(f"{d:,}" for d in z.sequences_to_round)),
        ("boards per round", ", ".join(f"{b:,}" for b in z.boards_raw)),
        ("canonical boards per round", ", ".join(f"{b:,}" for b in z.boards_iso)),
        ("information sets", f"{z.infosets_raw:,}"),
        ("information sets up to suit symmetry", f"{z.infosets_iso:,}"),
        ("values (information set x action) up to suit symmetry", f"{z.action_values_iso:,}"),
        ("memory as float32, regrets + averages ([store] precision = \"float32\")",
         human_bytes(8 * z.values(isomorphic))),
        (f"memory compressed at {MEASURED_RATIO}:1 (the ratio measured on Rhode Island)",
         human_bytes(8 * z.values(isomorphic) / MEASURED_RATIO)),
        ("memory of this engine's float64 store and tree, on one machine", human_bytes(float_bytes)),
        ("memory as 16-bit blocks, live hands' regrets + averages ([store] precision = \"block16\")",
         human_bytes(4 * (z.action_values_iso if isomorphic else z.action_values_raw))),
    ]
    if split_round:
        rows.append((f"subgames (cut at round {split_round})", f"{z.subgames(split_round, isomorphic):,}"))
        boards = z.boards_iso if isomorphic else z.boards_raw
        above = sum(a * b * z.hands for a, b in zip(z.decision_values[:split_round], boards[:split_round]))
        rows.append(("values above the cut (the store of a [game] trunk_only = true trunk)",
                     f"{above:,} (both players), {human_bytes(2 * 8 * above)} as float64 regrets and averages"))
    have = physical_memory()
    rows.append(("this machine's memory", human_bytes(have)))
    if have and split_round and trunk_only:  # the subgames live on the workers: the trunk is what must fit
        trunk = 2 * 8 * above
        rows.append(("fits this machine (the trunk: its float64 values; a fixed-point or compressed store less)",
                     "yes" if trunk <= 0.8 * have else
                     f"no: {human_bytes(trunk)}, over 80% of {human_bytes(have)} (a compressed store, or cut later)"))
    elif have:
        fits = float_bytes <= 0.8 * have
        rows.append(("fits this engine on this machine", "yes" if fits else
                     f"no: its tree and a float64 store need {human_bytes(float_bytes)}, over 80% of "
                     f"{human_bytes(have)} (a compressed store, split_round + trunk_only, or a smaller game)"))
    return rows


#: compression ratio against 4-byte floats of the fixed-point store measured on Rhode Island
#: hold'em (bench/results/rhode_island_float_compressed.md); the memory estimate uses it
MEASURED_RATIO = 5.6
