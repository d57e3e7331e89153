"""Real-time search for a two-player no-limit blueprint (heads-up no-limit hold'em): at each of
its decisions from round ``[search] round`` on, the agent re-solves the rest of the hand as a
postflop spot (holdem_spot's engine) and plays the re-solve's policy for its cards.

The spot starts where the current betting round started: the pot and stacks of the real hand
there, the board dealt so far, and each player's range from the blueprint by Bayes' rule (every
combo's probability of the actions its player took, under the blueprint's policy for that
combo's bucket at each node the hand mapped to); in a round after an earlier re-solve of the
hand (nested: the river after the turn) the agent's own range is the one it played, the earlier
spot's range times that re-solve's probability of each of its actions there. Its bet sizes are
``SIZES`` of the pot (a turn spot: ``TURN_SIZES``, the blueprint's pot and all-in) plus the real
sizes already bet this round (as chips), so the betting before the agent's first decision of the
round is on the spot's tree whatever the opponent bet: such an off-tree size is re-solved, not
translated. The spot is solved once per round and hand, and again when the opponent raises to an
amount the spot lacks (then with that size); beyond the spot's raises a street the agent plays the
blueprint. The re-solve is unsafe re-solving (both ranges fixed; Libratus's nested safe variants
are not done here), DCFR for ``iterations`` iterations or ``budget`` seconds. Where the hand has
left the blueprint's tree before the round (no ranges) the agent plays as the blueprint player does.
"""

from __future__ import annotations

import time

import numpy as np

from ..blueprint.player import BlueprintPlayer, hand_buckets, policy_rows
from ..errors import SolverkitError
from ..poker.acpc_protocol import MatchState, split_betting
from ..poker.action_tree import ALLIN_K, CALL_K, FOLD_K
from ..poker.cards import card_name
from ..poker.ranges import COMBO_CARDS, combo_index
from ..poker.spot import HoldemSpot

#: bet and raise sizes of a re-solve's first street, as fractions of the pot (the blueprint's fcpa has
#: 1 and all-in), and of its later streets (fewer: a flop re-solve must fit the time budget)
SIZES = "50%, 100%, 200%, a"
RAISES = "100%, a"
LATER_SIZES = "100%, a"
LATER_RAISES = "a"
#: a turn re-solve's first street: the blueprint's sizes (pot, all-in), so that its tree (32 decision nodes
#: against 186 to 230 with SIZES) takes about 100 DCFR iterations in 3 s on 2 cores instead of 12 to 24
#: (bench/results/blueprint_hunl_search.md)
TURN_SIZES = "100%, a"
TURN_RAISES = "a"


class SpotSearchPlayer(BlueprintPlayer):
    """A two-player no-limit blueprint that re-solves each decision from round `first_round` on."""

    def __init__(self, game, strategy, name: str, iterations: int = 300, budget: float = 0.0, first_round: int = 1):
        super().__init__(game, strategy, name)
        gd = self.gd
        if not self.nolimit or (gd.num_hole_cards, gd.num_suits, gd.num_ranks, tuple(gd.num_board_cards)) != (
                2, 4, 13, (0, 3, 1, 1)):
            raise SolverkitError(f"{name}: search re-solves hold'em spots (no-limit, two hole cards, a 52-card deck, "
                                 f"boards of 3, 1 and 1 cards after the first round); {gd.source} is not such a game")
        self.iterations, self.budget, self.first_round = int(iterations), float(budget), int(first_round)
        self.stats.update({"searched": 0, "search_seconds": 0.0, "search_iterations": 0, "search_max_seconds": 0.0})
        self._solved = None  # (hand, round, spot game, strategy)

    def act(self, state: MatchState, rng: np.random.Generator) -> str:
        _, real = self._replay(state)
        if real.round < self.first_round:
            return super().act(state, rng)
        start = self._round_start(state)
        if start is None:  # off the blueprint's tree before the round: no ranges
            return super().act(state, rng)
        token = self._search(state, real, start, rng)
        return token if token is not None else super().act(state, rng)

    # --- the spot -------------------------------------------------------------------------------

    def _round_start(self, state: MatchState):
        """The index of the round's first action among the hand's actions, or None when the hand
        left the blueprint's tree before the round."""
        index, rounds = 0, 0
        for letter, _ in split_betting(state.betting, True):
            if letter == "/":
                rounds += 1
                continue
            if rounds >= len(state.board):
                break
            index += 1
        if any(self._path[i] < 0 for i in range(index)):
            return None
        return index

    def _ranges(self, state: MatchState, upto: int, board: list[int]) -> np.ndarray:
        """float64 [2, 1326]: each player's probability of the blueprint's actions on the hand's
        path before action `upto`, per combo (0 for combos meeting the board)."""
        t = self.tree
        cards = COMBO_CARDS
        live = ~np.isin(cards, board).any(axis=1)
        reach = np.where(live, 1.0, 0.0)[None, :].repeat(2, axis=0)
        buckets = {}  # per round, each combo's (one bucket_of call a round)
        node = 0
        for child in self._path[:upto]:
            q, r = int(t.player[node]), int(t.round[node])
            if r not in buckets:
                buckets[r] = hand_buckets(self.bp, r, [c for b in state.board[:r] for c in b], cards)
            reach[q] *= policy_rows(self, node, buckets[r])[:, child - int(t.first[node])]
            node = child
        return reach

    def _spot(self, state: MatchState, real, start: int):
        """The re-solved spot of this round (cached for the round of this hand): (game, strategy)."""
        key = (state.hand, real.round)
        if self._solved is not None and self._solved[0] == key and _on_tree(self._solved[1], state, start):
            return self._solved[1], self._solved[2]
        from ..core.config import load_config
        from ..core.solver import run_solve

        r = real.round
        board = [c for b in state.board[:r] for c in b]
        pre = self._fresh()
        acts = [a for a in split_betting(state.betting, True) if a[0] != "/"]
        for letter, size in acts[:start]:
            pre.apply(letter, size)
        spent = pre.spent[0]
        if pre.spent[1] != spent:
            return None, None
        stack = int(self.gd.stack[0]) - int(spent)
        reach = self._ranges(state, start, board)
        earlier = self._solved
        oop = int(self.gd.first_player[r])
        if earlier is not None and earlier[0] == key:  # the round again (an off-tree raise): its own range kept
            reach[state.position] = earlier[1].ranges()[0 if state.position == oop else 1]
        elif earlier is not None and earlier[0][0] == state.hand and earlier[0][1] < r:  # (nested) as it played
            played = self._played_range(state, earlier, start, board)
            if played is not None:
                reach[state.position] = played
        weights = np.stack([reach[oop], reach[1 - oop]])
        if not (weights[0].any() and weights[1].any()):
            return None, None
        # the agent's own combo stays in its range even where the blueprint would not have played
        # the hand this way (its searched or translated actions): a small weight, so the spot has it
        mine = 0 if state.position == oop else 1
        own = combo_index(*state.hole[state.position])
        weights[mine, own] = max(weights[mine, own], 1e-6 * weights[mine].max())
        streets = ("flop", "turn", "river")[len(board) - 3:]
        bets, raises = ([TURN_SIZES], [TURN_RAISES]) if streets[0] == "turn" else ([SIZES], [RAISES])
        committed = [0, 0]
        for letter, size in acts[start:]:  # the real sizes of this round, as chips
            p = pre.current_player()
            if letter == "r":
                extra = int(size) - int(spent) - committed[1 - p]
                (raises if committed[1 - p] else bets).append(f"{max(extra, 1)}c")
                committed[p] = int(size) - int(spent)
            elif letter == "c":
                committed[p] = committed[1 - p]
            pre.apply(letter, size)
        names = "".join(card_name(c, 4, 13) for c in board)
        table = {"name": "holdem_spot", "board": names, "pot": 2 * int(spent), "stack": stack,
                 "oop_range": "AA", "ip_range": "AA", "raise_limit": max(3, len(bets) + len(raises) - 2),
                 "sizes": {streets[0]: {"bet": ", ".join(bets), "raise": ", ".join(raises)},
                           **{later: {"bet": LATER_SIZES, "raise": LATER_RAISES} for later in streets[1:]}}}
        solver = {"eval_every": 10**9, **({"time_limit": self.budget} if self.budget else {})}
        # the assembly of a small game, its game then replaced by the spot (whose ranges are arrays)
        assembly = load_config({"preset": "dcfr", "game": "kuhn", "solver": solver})
        game = _with_ranges(weights, table)
        assembly.game = game
        began = time.perf_counter()
        res = run_solve(assembly, iterations=self.iterations, progress=False)
        took = time.perf_counter() - began
        self.stats["searched"] += 1
        self.stats["search_seconds"] += took
        self.stats["search_iterations"] += int(res.iterations)
        self.stats["search_max_seconds"] = max(self.stats["search_max_seconds"], took)
        self._solved = (key, game, res.strategy, start)
        return game, res.strategy

    def _played_range(self, state: MatchState, earlier, start: int, board: list[int]) -> np.ndarray | None:
        """float64 [1326]: the agent's own range at this round's start as it played the hand since the
        earlier round's re-solve (`earlier`: its (key, game, strategy, first action)): that spot's range
        times the re-solve's probability of each action the agent took there, per combo (0 on the
        board's cards). The blueprint's probabilities at the nodes the agent's searched actions map to
        are not what it played, and can be 0 for every combo (the river then fell back to the
        blueprint). None where the betting left that spot."""
        (_, r0), game, strategy, start0 = earlier[0], earlier[1], earlier[2], earlier[3]
        bet = game.tree.bet
        mine = 0 if state.position == int(self.gd.first_player[r0]) else 1
        reach = np.asarray(game.ranges()[mine], dtype=np.float64) * ~np.isin(COMBO_CARDS, board).any(axis=1)
        root = tuple(sorted(c for b in state.board[:r0] for c in b))
        n = 0
        acts = [a for a in split_betting(state.betting, True) if a[0] != "/"]
        for letter, size in acts[start0:start]:
            a = _slot(bet, n, letter, size)
            if a is None:
                return None
            if int(bet.player[n]) == mine:
                probs = spot_policies(game, strategy, n, root)
                total = probs.sum(axis=1)
                reach *= np.divide(probs[:, a], total, out=np.zeros_like(total), where=total > 0)
            n = int(bet.children[n, a])
        return reach if reach.any() else None

    def _search(self, state: MatchState, real, start: int, rng) -> str | None:
        found = self.search_policy(state, real, start)
        if found is None:
            return None
        tokens, probs = found
        total = float(probs.sum())
        if not total > 0:
            return None
        return tokens[int(rng.choice(len(tokens), p=probs / total))]

    def search_policy(self, state: MatchState, real, start: int):
        """(action tokens, their probabilities) the re-solve plays for the agent's cards at the real
        state, or None where the agent plays as the blueprint (no spot, or the betting leaves it)."""
        at = self.spot_node(state, real, start)
        if at is None:
            return None
        game, strategy, n = at
        board = tuple(sorted(c for b in state.board[:real.round] for c in b))
        probs = spot_policy(game, strategy, n, state.hole[state.position], board)
        if probs is None:  # (a hand the spot does not hold: cannot happen with the weight above)
            return None
        return spot_tokens(game, n, real), probs

    def spot_node(self, state: MatchState, real, start: int):
        """(spot game, its strategy, the agent's decision node there) for the round's real betting
        (an opponent's raise to the spot's nearest amount), or None."""
        game, strategy = self._spot(state, real, start)
        if game is None:
            return None
        bet = game.tree.bet
        n = 0
        acts = [a for a in split_betting(state.betting, True) if a[0] != "/"]
        for letter, size in acts[start:]:
            a = _slot(bet, n, letter, size)
            if a is None:
                return None
            n = int(bet.children[n, a])
        if int(bet.kind[n]) != 0 or int(bet.player[n]) != (0 if state.position == int(self.gd.first_player[real.round])
                                                                 else 1):
            return None
        return game, strategy, n


def _on_tree(game, state: MatchState, start: int) -> bool:
    """Whether every raise of the round so far is one of the spot's amounts (to 2%): else the
    round is re-solved with the real sizes (nested re-solving after an off-tree action) instead
    of playing the spot's nearest amount."""
    bet = game.tree.bet
    n = 0
    for letter, size in [a for a in split_betting(state.betting, True) if a[0] != "/"][start:]:
        a = _slot(bet, n, letter, size)
        if a is None:
            return True  # (spot_node says where the betting leaves the spot)
        if letter == "r" and abs(int(bet.amounts[n, a]) - int(size)) > max(2, 0.02 * int(size)):
            return False
        n = int(bet.children[n, a])
    return True


def _slot(bet, n: int, letter: str, size: int) -> int | None:
    """The action slot of the spot's node n for a real action (a raise: the nearest amount), or None
    (a fold, not a decision, no raise there)."""
    A = int(bet.num_actions[n])
    if int(bet.kind[n]) != 0 or letter == "f":
        return None
    codes = [int(c) for c in bet.actions[n, :A]]
    if letter == "c":
        return codes.index(CALL_K) if CALL_K in codes else None
    raises = [i for i in range(A) if codes[i] not in (FOLD_K, CALL_K)]
    if not raises:
        return None
    return min(raises, key=lambda i: abs(int(bet.amounts[n, i]) - int(size)))


def spot_tokens(game, n: int, real) -> list[str]:
    """The real action token of each action at the spot's decision node n: a fold where none is
    possible is a call, a bet its raise-to amount (all-in: the stack) clamped to the legal sizes."""
    bet = game.tree.bet
    span = real.raise_range()
    out = []
    for slot in range(int(bet.num_actions[n])):
        code = int(bet.actions[n, slot])
        if code == FOLD_K:
            out.append("f" if real.can_fold() else "c")
        elif code == CALL_K or span is None:
            out.append("c")
        else:
            lo, hi = span
            amount = hi if code == ALLIN_K else int(bet.amounts[n, slot])
            out.append(f"r{min(max(amount, lo), hi)}")
    return out


def spot_policy(game, strategy, node: int, hole, board) -> np.ndarray | None:
    """float64 [actions]: the spot strategy's policy at decision `node` for the acting player's hole
    cards on the spot's root board (None: a hand its range does not hold). A spot's layout keeps each
    player's own range's hands (``policy_offset`` finds the hand's row among them)."""
    p, A = int(game.tree.bet.player[node]), int(game.tree.bet.num_actions[node])
    try:
        off = game.policy_offset(node, (tuple(sorted(board)),), tuple(sorted(hole)))
    except KeyError:  # neither range holds the hand, or not this player's
        return None
    return np.asarray(strategy[p][off:off + A], dtype=np.float64)


def spot_policies(game, strategy, node: int, board) -> np.ndarray:
    """float64 [1326, actions]: :func:`spot_policy` of every combo at once (rows of 0 for hands the
    acting player's range lacks); each combo's board id and row found once per spot, board and player."""
    p, A = int(game.tree.bet.player[node]), int(game.tree.bet.num_actions[node])
    rows = game.__dict__.setdefault("_combo_rows", {})
    key = (p, tuple(sorted(board)))
    if key not in rows:
        g, row = np.full(len(COMBO_CARDS), -1, dtype=np.int64), np.full(len(COMBO_CARDS), -1, dtype=np.int64)
        for c, hole in enumerate(COMBO_CARDS):
            try:
                gc, h = game.locate((key[1],), tuple(sorted(int(x) for x in hole)))
                row[c] = game.player_row(p, h)
            except KeyError:
                continue
            g[c] = gc
        rows[key] = (g, row)
    g, row = rows[key]
    out = np.zeros((len(COMBO_CARDS), A))
    held = row >= 0
    for gc in np.unique(g[held]):
        sel = held & (g == gc)
        base = game.value_offset(node, int(gc), 0)
        out[sel] = np.asarray(strategy[p], dtype=np.float64)[base + row[sel][:, None] * A + np.arange(A)]
    return out


class _SearchSpot(HoldemSpot):
    """A holdem_spot whose ranges are given as arrays ([oop, ip] x 1326 weights), not strings
    (HoldemSpot.ranges keeps its parsed weights in ``_ranges``: set before the tree is built)."""

    def __init__(self, weights: np.ndarray, **params):
        self._ranges = weights
        super().__init__(**params)


def _with_ranges(weights: np.ndarray, table: dict) -> HoldemSpot:
    """A holdem_spot of `table` whose ranges are the arrays `weights` ([oop, ip] x 1326)."""
    from ..core.params import spec_of

    params = spec_of(HoldemSpot).resolve(table, "[game] (search)")
    return _SearchSpot(weights, **{k: v for k, v in params.items() if k != "name"})
