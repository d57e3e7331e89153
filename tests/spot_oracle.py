"""A brute-force evaluator of ``holdem_spot`` games, sharing no code with the kernels.

It enumerates every weighted pair of combos that share no card, every runout card by card, and
walks the betting tree history by history with a policy keyed by (combo, board so far, betting
history). Hand strength is this module's own seven-card ranking; the betting tree is
solverkit.poker.action_tree's (the tree is data both sides read); ranges are parse_range's.
Values are in the spot's native unit, % of the starting pot, net of each player's chips put in
(pot // 2 each at the root), after rake: a player's EV in chips is value x pot / 100 + pot // 2
(an odd pot's last chip is dead money: the winner takes it, a tie splits it).

Rake (postflop-solver's rule, and the table's): the winner pays min(rake x pot, rake_cap) of the
pot actually contested, 2 x min(spent): an uncalled bet goes back to the bettor unraked. A tie
splits the rake. ``rake_cap = 0`` means no cap (solverkit's documented choice).

Over 500 lines on purpose: one independent evaluator (its own hand ranking, runouts, rake and
betting walk); split, its parts would only be read together.
"""

from __future__ import annotations

import zlib
import itertools
from functools import lru_cache

import numpy as np

from solverkit.poker.action_tree import build_action_tree, spot_rules
from solverkit.poker.betting import DECISION, FOLD, ROUND_END, SHOWDOWN
from solverkit.poker.ranges import parse_board, parse_range
from solverkit.poker.size_tables import parse_size_tables

RANKS = "23456789TJQKA"
SUITS = "cdhs"


# --- cards and hands (own code) ---------------------------------------------------------------


def card_text(card: int) -> str:
    return RANKS[card // 4] + SUITS[card % 4]


#: combo index -> (low card, high card), the 1326 pairs c1 < c2 in lexicographic order
COMBOS = tuple(itertools.combinations(range(52), 2))


def combo_text(index: int) -> str:
    """The higher card first, as solverkit names combos ("AsKh")."""
    low, high = COMBOS[index]
    return card_text(high) + card_text(low)


def _rank5(cards) -> tuple:
    """Class and tie-breakers of a five-card hand (higher is better)."""
    ranks = sorted((c // 4 for c in cards), reverse=True)
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [c for _, c in groups]
    order = [r for r, _ in groups]
    flush = len({c % 4 for c in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight = distinct[0]
        elif distinct == [12, 3, 2, 1, 0]:  # the wheel, five high
            straight = 3
    if straight is not None and flush:
        return (8, straight)
    if shape == [4, 1]:
        return (7, *order)
    if shape == [3, 2]:
        return (6, *order)
    if flush:
        return (5, *ranks)
    if straight is not None:
        return (4, straight)
    if shape == [3, 1, 1]:
        return (3, *order)
    if shape == [2, 2, 1]:
        return (2, *order)
    if shape == [2, 1, 1, 1]:
        return (1, *order)
    return (0, *ranks)


def _top_straight(ranks: set) -> int | None:
    """The highest card of the best straight among distinct ranks, None without one."""
    for top in range(12, 3, -1):
        if all(r in ranks for r in range(top - 4, top + 1)):
            return top
    if {12, 0, 1, 2, 3} <= ranks:  # the wheel
        return 3
    return None


@lru_cache(maxsize=1 << 20)
def strength(cards: frozenset) -> tuple:
    """The best five-card hand among five to seven cards, as a comparable tuple (class first)."""
    by_suit: dict[int, list[int]] = {}
    counts: dict[int, int] = {}
    for c in cards:
        by_suit.setdefault(c % 4, []).append(c // 4)
        counts[c // 4] = counts.get(c // 4, 0) + 1
    flush = next((sorted(rs, reverse=True) for rs in by_suit.values() if len(rs) >= 5), None)
    if flush is not None:
        top = _top_straight(set(flush))
        if top is not None:
            return (8, top)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)  # by count, then rank
    if groups[0][1] == 4:
        return (7, groups[0][0], max(r for r in counts if r != groups[0][0]))
    if groups[0][1] == 3 and len(groups) > 1 and groups[1][1] >= 2:
        return (6, groups[0][0], groups[1][0])
    if flush is not None:
        return (5, *flush[:5])
    top = _top_straight(set(counts))
    if top is not None:
        return (4, top)
    singles = sorted((r for r, n in counts.items() if n == 1), reverse=True)
    if groups[0][1] == 3:
        return (3, groups[0][0], *singles[:2])
    if groups[0][1] == 2 and groups[1][1] == 2:
        kicker = max(r for r in counts if r not in (groups[0][0], groups[1][0]))
        return (2, groups[0][0], groups[1][0], kicker)
    if groups[0][1] == 2:
        return (1, groups[0][0], *singles[:3])
    return (0, *singles[:5])


def strength_by_fives(cards) -> tuple:
    """The same ranking as :func:`strength`, the slow way: the best of every five cards."""
    return max(_rank5(five) for five in itertools.combinations(sorted(cards), 5))


# --- the oracle -------------------------------------------------------------------------------


def _suit_map(perm, card: int) -> int:
    return card - card % 4 + perm[card % 4]


_COMBO_INDEX = {pair: i for i, pair in enumerate(COMBOS)}


def _combo_of(cards) -> int:
    low, high = sorted(cards)
    return _COMBO_INDEX[(low, high)]


class SpotOracle:
    """Expected values, best responses and equities of a spot by enumeration.

    ``params``: the [game] table of a holdem_spot (board, pot, stack, oop_range, ip_range,
    sizes, raise_limit, thresholds, rake, rake_cap)."""

    def __init__(self, params: dict):
        self.params = dict(params)
        self.board = tuple(sorted(parse_board(params["board"])))
        self.pot = int(params["pot"])
        self.dead = self.pot % 2  # each player has pot // 2 in; an odd pot's last chip is nobody's
        self.stack = int(params["stack"])
        self.rake = float(params.get("rake", 0.0))
        self.rake_cap = float(params.get("rake_cap", 0.0))
        self.w = np.stack([parse_range(params["oop_range"], self.board), parse_range(params["ip_range"], self.board)])
        self.members = [[int(c) for c in np.flatnonzero(self.w[p] > 0)] for p in (0, 1)]
        streets = ["flop", "turn", "river"][len(self.board) - 3:]
        limit = int(params.get("raise_limit", -1))
        commit = float(params.get("allin_commit_threshold", 0.0))
        abst = parse_size_tables(params.get("sizes") or {}, streets, ("oop", "ip"),
                                 raise_limit=None if limit < 0 else limit, allin_commit_threshold=commit or None,
                                 add_allin_threshold=float(params.get("add_allin_threshold", 0.0)),
                                 force_allin_threshold=float(params.get("force_allin_threshold", 0.0)))
        self.tree = build_action_tree(spot_rules(self.pot, self.stack, abst, 0, len(streets)))
        self.symmetries = self._symmetries()

    # --- deals ---------------------------------------------------------------------------------

    def pairs(self):
        """(c0, c1, weight) of every pair of combos in the ranges that share no card."""
        for c0 in self.members[0]:
            a = set(COMBOS[c0])
            for c1 in self.members[1]:
                if not a & set(COMBOS[c1]):
                    yield c0, c1, float(self.w[0, c0] * self.w[1, c1])

    def pair_mass(self) -> float:
        return sum(x for _, _, x in self.pairs())

    def left(self, board, *combos):
        """Cards not on `board` nor in `combos`."""
        used = set(board)
        for c in combos:
            used.update(COMBOS[c])
        return [c for c in range(52) if c not in used]

    def runouts(self, c0, c1):
        """Every completion of the board to five cards (in dealing order), each equally likely."""
        need = 5 - len(self.board)
        rest = self.left(self.board, c0, c1)
        return [self.board + extra for extra in itertools.permutations(rest, need)]

    # --- symmetries --------------------------------------------------------------------------

    def _symmetries(self):
        """Suit permutations that keep the board (as a set) and both ranges' weights."""
        out = []
        for perm in itertools.permutations(range(4)):
            if {_suit_map(perm, c) for c in self.board} != set(self.board):
                continue
            image = [_combo_of([_suit_map(perm, c) for c in COMBOS[i]]) for i in range(1326)]
            if all(self.w[p, image[i]] == self.w[p, i] for p in (0, 1) for i in range(1326)):
                out.append(perm)
        return out

    def canonical(self, combo: int, dealt: tuple) -> tuple:
        """The least image of (combo, cards dealt after the root) under the spot's symmetries."""
        best = None
        for perm in self.symmetries:
            img = (tuple(sorted(_suit_map(perm, c) for c in COMBOS[combo])), tuple(_suit_map(perm, c) for c in dealt))
            if best is None or img < best:
                best = img
        return best

    def board_key(self, board) -> str:
        """The board of an information-set key: the root board sorted, then each dealt card."""
        return "".join(card_text(c) for c in board)

    def key(self, combo: int, board, history: str) -> str:
        return f"{combo_text(combo)}|{self.board_key(board)}|{history}"

    # --- payoffs --------------------------------------------------------------------------------

    def _rake_of(self, spent) -> float:
        """The rake of the pot actually contested: both matched stakes and an odd pot's dead chip."""
        if self.rake <= 0:
            return 0.0
        r = self.rake * (2 * min(spent) + self.dead)
        return min(r, self.rake_cap) if self.rake_cap > 0 else r

    def payoff(self, node: int, board, c0: int, c1: int) -> tuple[float, float]:
        """Net chips of each player at a terminal node (the root's halves of the pot counted; the
        winner takes an odd pot's dead chip, a tie splits it)."""
        t = self.tree
        spent = (int(t.spent[node, 0]), int(t.spent[node, 1]))
        rake = self._rake_of(spent)
        if t.kind[node] == FOLD:
            folder = int(t.player[node])
            won = spent[folder] + self.dead - rake
            return (-spent[0], won) if folder == 0 else (won, -spent[1])
        m = min(spent)
        s0 = strength(frozenset(board) | frozenset(COMBOS[c0]))
        s1 = strength(frozenset(board) | frozenset(COMBOS[c1]))
        if s0 > s1:
            return (m + self.dead - rake, -m)
        if s1 > s0:
            return (-m, m + self.dead - rake)
        return ((self.dead - rake) / 2, (self.dead - rake) / 2)

    def actions(self, node: int):
        t = self.tree
        return [int(x) for x in t.act_child[t.act_start[node]: t.act_end[node]]]

    # --- expected values: every pair, every runout, every history ------------------------------

    def expected_values(self, policy) -> tuple[float, float]:
        """(v0, v1) in % of the pot when both players follow ``policy(player, combo, board,
        history) -> probabilities`` (an array over the node's actions)."""
        total = np.zeros(2)
        mass = 0.0
        for c0, c1, w in self.pairs():
            total += w * np.array(self._walk(0, self.board, c0, c1, policy))
            mass += w
        return tuple(float(x) for x in total / mass * 100.0 / self.pot)

    def _walk(self, node, board, c0, c1, policy):
        t = self.tree
        kind = t.kind[node]
        if kind == FOLD or kind == SHOWDOWN:
            return self.payoff(node, board, c0, c1)
        kids = self.actions(node)
        a0 = a1 = 0.0
        if kind == ROUND_END:
            cards = self.left(board, c0, c1)
            for card in cards:
                v0, v1 = self._walk(kids[0], board + (card,), c0, c1, policy)
                a0 += v0
                a1 += v1
            return a0 / len(cards), a1 / len(cards)
        p = int(t.player[node])
        probs = policy(p, (c0, c1)[p], board, t.history[node])
        for a, child in enumerate(kids):
            if probs[a]:
                v0, v1 = self._walk(child, board, c0, c1, policy)
                a0 += probs[a] * v0
                a1 += probs[a] * v1
        return a0, a1

    # --- best responses: a max per information set (own combo, board, history) ----------------

    def best_response(self, policy, player: int) -> float:
        """The value in % pot of a best response of ``player`` to the other's ``policy``."""
        return self._per_infoset(policy, player, best=True)

    def infoset_values(self, policy, player: int) -> float:
        """``player``'s expected value by the information-set walk (a check on the pair walk)."""
        return self._per_infoset(policy, player, best=False)

    def hand_values(self, policy, player: int) -> dict:
        """{combo: expected chips at the end of the hand, pot share after rake, net of the chips
        put in after the root} of ``player``'s combos, each against the opponent's range."""
        opp = 1 - player
        out = {}
        for c in self.members[player]:
            mine = set(COMBOS[c])
            dist = {o: float(self.w[opp, o]) for o in self.members[opp] if not mine & set(COMBOS[o])}
            if dist:
                net = self._cf(0, self.board, c, dist, player, policy, False) / sum(dist.values())
                out[c] = net + self.pot // 2
        return out

    def _per_infoset(self, policy, player, best):
        opp = 1 - player
        total = 0.0
        for c in self.members[player]:
            mine = set(COMBOS[c])
            dist = {o: float(self.w[opp, o]) for o in self.members[opp] if not mine & set(COMBOS[o])}
            if dist:
                total += float(self.w[player, c]) * self._cf(0, self.board, c, dist, player, policy, best)
        return total / self.pair_mass() * 100.0 / self.pot

    def _cf(self, node, board, c, dist, player, policy, best):
        """Sum over opponent combos o of dist[o] x (player's expected payoff from `node` on)."""
        t = self.tree
        kind = t.kind[node]
        if kind in (FOLD, SHOWDOWN):
            acc = 0.0
            for o, m in dist.items():
                pay = self.payoff(node, board, c, o) if player == 0 else self.payoff(node, board, o, c)
                acc += m * pay[player]
            return acc
        kids = self.actions(node)
        if kind == ROUND_END:
            n = 52 - len(board) - 4
            acc = 0.0
            for card in self.left(board, c):
                sub = {o: m for o, m in dist.items() if card not in COMBOS[o]}
                if sub:
                    acc += self._cf(kids[0], board + (card,), c, sub, player, policy, best) / n
            return acc
        p = int(t.player[node])
        hist = t.history[node]
        if p == player:
            vals = [self._cf(child, board, c, dist, player, policy, best) for child in kids]
            if best:
                return max(vals)
            probs = policy(p, c, board, hist)
            return float(sum(pr * v for pr, v in zip(probs, vals)))
        acc = 0.0
        per = {o: policy(p, o, board, hist) for o in dist}
        for a, child in enumerate(kids):
            sub = {o: m * per[o][a] for o, m in dist.items() if per[o][a] > 0}
            if sub:
                acc += self._cf(child, board, c, sub, player, policy, best)
        return acc

    # --- equity ---------------------------------------------------------------------------------

    def showdown_share(self, c0, c1) -> float:
        """Player 0's share of the pot over every runout (win 1, tie 1/2)."""
        acc = 0.0
        runs = self.runouts(c0, c1)
        for full in runs:
            s0 = strength(frozenset(full) | frozenset(COMBOS[c0]))
            s1 = strength(frozenset(full) | frozenset(COMBOS[c1]))
            acc += 1.0 if s0 > s1 else 0.5 if s0 == s1 else 0.0
        return acc / len(runs)

    def equity(self):
        """(range equity [oop, ip], {combo: equity} per player) against the opponent's range."""
        share = {}
        tot = 0.0
        mass = 0.0
        per = [dict(), dict()]
        for c0, c1, w in self.pairs():
            s = share[(c0, c1)] = self.showdown_share(c0, c1)
            tot += w * s
            mass += w
            for p, me, other, x in ((0, c0, c1, s), (1, c1, c0, 1.0 - s)):
                num, den = per[p].get(me, (0.0, 0.0))
                per[p][me] = (num + self.w[1 - p, other] * x, den + self.w[1 - p, other])
        eq0 = tot / mass
        hands = [{c: num / den for c, (num, den) in per[p].items()} for p in (0, 1)]
        return (eq0, 1.0 - eq0), hands

    # --- one node: the players' weights reaching it, EV from it on, equity against the reach -----

    def node_at(self, history: str) -> int:
        """The node of the betting tree whose history is `history`."""
        t = self.tree
        return next(n for n in range(len(t.kind)) if t.history[n] == history)

    def node_reach(self, policy, node: int, board) -> list[dict]:
        """Per player {combo: weight at `node` on `board` (the root board, then the cards dealt)}:
        its range weight times its own probabilities of the line's actions, 0 for a combo that
        meets the board."""
        t = self.tree
        line = []
        n = node
        while t.parent[n] >= 0:
            up = int(t.parent[n])
            if t.kind[up] == DECISION:
                line.append((up, self.actions(up).index(n)))
            n = up
        out: list[dict] = [{}, {}]
        for p in (0, 1):
            for c in self.members[p]:
                r = 0.0 if set(COMBOS[c]) & set(board) else float(self.w[p, c])
                for up, a in line:
                    if r and int(t.player[up]) == p:
                        r *= float(policy(p, c, tuple(board[: len(self.board) + int(t.round[up])]), t.history[up])[a])
                out[p][c] = r
        return out

    def _facing(self, reach, p: int, c: int) -> dict:
        """The opponent's combos with weight at the node that share no card with `c`."""
        mine = set(COMBOS[c])
        return {o: x for o, x in reach[1 - p].items() if x > 0 and not mine & set(COMBOS[o])}

    def node_equity(self, reach, board) -> list[dict]:
        """Per player {combo: showdown share against the opponent's weights `reach` (node_reach),
        every completion of `board` to five cards equally likely (none on the river), win 1, tie
        1/2} for combos free of the board that face some weight."""
        out: list[dict] = [{}, {}]
        need = 5 - len(board)
        for p in (0, 1):
            for c in self.members[p]:
                if set(COMBOS[c]) & set(board):
                    continue
                dist = self._facing(reach, p, c)
                if not dist:
                    continue
                num = 0.0
                for o, x in dist.items():
                    rest = self.left(tuple(board), c, o)
                    runs = list(itertools.combinations(rest, need))
                    acc = 0.0
                    for extra in runs:
                        full = frozenset(board) | frozenset(extra)
                        s = strength(full | frozenset(COMBOS[c]))
                        t = strength(full | frozenset(COMBOS[o]))
                        acc += 1.0 if s > t else 0.5 if s == t else 0.0
                    num += x * acc / len(runs)
                out[p][c] = num / sum(dist.values())
        return out

    def node_values(self, policy, reach, node: int, board) -> list[dict]:
        """Per player {combo: EV in chips from `node` on (what it wins less what it puts in after
        the node)} for combos that reach it, against the opponent's weights `reach`."""
        t = self.tree
        out: list[dict] = [{}, {}]
        for p in (0, 1):
            for c, x in reach[p].items():
                dist = self._facing(reach, p, c)
                if x > 0 and dist:
                    v = self._cf(node, tuple(board), c, dist, p, policy, False) / sum(dist.values())
                    out[p][c] = v + int(t.spent[node, p])
        return out

    # --- policies --------------------------------------------------------------------------------

    def _widths(self) -> dict:
        """Actions per decision, by betting history."""
        t = self.tree
        return {t.history[n]: int(t.act_end[n] - t.act_start[n]) for n in range(len(t.kind)) if t.kind[n] == DECISION}

    def uniform_policy(self):
        """Every action equally likely everywhere."""
        width = self._widths()
        return lambda p, combo, board, history: np.full(width[history], 1.0 / width[history])

    def random_policy(self, seed: int = 0):
        """A fixed random policy of (combo, board, history), the same on suit-symmetric
        information sets (those the spot's symmetries map onto each other)."""
        cache = {}
        width = self._widths()
        one = np.ones(1)

        def policy(p, combo, board, history):
            if width[history] == 1:
                return one
            direct = (p, combo, tuple(board), history)
            probs = cache.get(direct)
            if probs is None:
                canon = (p, self.canonical(combo, tuple(board[len(self.board):])), history)
                probs = cache.get(canon)
                if probs is None:
                    u = _uniforms(repr((seed, canon)), 8)
                    n = width[history]
                    assert n <= 6, "the digest gives 6 probabilities and 2 choices"
                    x = u[:n] ** 2 + 0.02
                    if u[7] < 0.3:  # some pure choices, as solved strategies have
                        x = np.zeros(n)
                        x[int(u[6] * n)] = 1.0
                    probs = cache[canon] = x / x.sum()
                cache[direct] = probs
            return probs

        return policy

    def flat_strategy(self, game, policy):
        """The game's flat per-player strategy (game.layout, game.infoset_keys) holding ``policy``
        (uniform where no deal reaches: a combo outside the player's range or meeting the board)."""
        out = []
        combos, boards = {}, {}
        for p in (0, 1):
            lay = game.layout(p)
            x = np.zeros(lay.size)
            for key, (start, n) in zip(game.infoset_keys(p), lay.infoset_slices()):
                combo_text_, board_text, history = key.split("|")
                c = combos.get(combo_text_)
                if c is None:
                    c = combos[combo_text_] = _combo_of(_parse_cards(combo_text_))
                b = boards.get(board_text)
                if b is None:
                    b = boards[board_text] = self._board_cards(board_text)
                if n == 1 or self.w[p, c] == 0 or set(COMBOS[c]) & set(b):
                    x[start: start + n] = 1.0 / n
                    continue
                probs = policy(p, c, b, history)
                assert len(probs) == n, (key, probs, n)
                x[start: start + n] = probs
            out.append(x)
        return out

    def _board_cards(self, text):
        cards = _parse_cards(text)
        root = tuple(sorted(cards[: len(self.board)]))
        assert root == self.board, (text, self.board)
        return root + tuple(cards[len(self.board):])

    def policy_from_flat(self, game, strategy):
        """The policy a solver's flat strategy plays: the probabilities of the key's own slot,
        or, for an information set the layout merged with a suit-symmetric one, those of its
        image under one of the spot's symmetries (the same key up to suits)."""
        table = [dict(), dict()]
        for p in (0, 1):
            for key, (start, n) in zip(game.infoset_keys(p), game.layout(p).infoset_slices()):
                table[p][key] = np.asarray(strategy[p][start: start + n], dtype=np.float64)

        seen: dict = {}

        def policy(p, combo, board, history):
            memo = (p, combo, tuple(board), history)
            got = seen.get(memo)
            if got is None:
                got = seen[memo] = lookup(p, combo, board, history)
            return got

        def lookup(p, combo, board, history):
            got = table[p].get(self.key(combo, board, history))
            if got is not None:
                return got
            dealt = tuple(board[len(self.board):])
            for perm in self.symmetries:
                img = _combo_of([_suit_map(perm, c) for c in COMBOS[combo]])
                b = self.board + tuple(_suit_map(perm, c) for c in dealt)
                got = table[p].get(self.key(img, b, history))
                if got is not None:
                    return got
            raise KeyError(f"no information set of player {p} for {self.key(combo, board, history)}")

        return policy


def _uniforms(text: str, n: int) -> np.ndarray:
    """`n` numbers in [0, 1) fixed by `text` (crc32, then splitmix64): the same in every run."""
    state = zlib.crc32(text.encode())
    out = np.empty(n)
    mask = (1 << 64) - 1
    for i in range(n):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out[i] = ((z ^ (z >> 31)) >> 11) / float(1 << 53)
    return out


def _parse_cards(text: str):
    return [RANKS.index(text[i]) * 4 + SUITS.index(text[i + 1]) for i in range(0, len(text), 2)]
