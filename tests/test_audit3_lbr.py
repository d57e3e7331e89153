"""Audit of local best response (solverkit/poker/lbr.py) against its exact expectation, computed
here: on Leduc and Kuhn every LBR decision is deterministic (exact rollouts), so LBR is a pure
strategy whose expected winnings are enumerated over every deal and every action of the
evaluated strategy, with the range (each opponent hand's reach, card removal) computed here
from the strategy's flat arrays. Then, for several strategies and both seats: LBR's exact value
is at most the exact best response's (a strategy never beats a best response), and the sampled
run's 95% interval covers its exact expectation."""

import numpy as np
import pytest

from solverkit.api import solve
from solverkit.core.config import load_config
from solverkit.poker.betting import FOLD, ROUND_END, SHOWDOWN
from solverkit.poker.evaluator import acpc_rank
from solverkit.poker.lbr import LocalBestResponse, opponent_for
from solverkit.poker.lbr_policy import _CODES, LimitState
from solverkit.poker.players import Player

from . import poker_reference as ref


def exact_lbr_value(game, strategy, lbr, seat):
    """LBR's expected chips in `seat` against `strategy` (every deal, every action of it)."""
    gd, bet, hands = game.gd, game.tree.bet, game.tree.hands
    pol = ref.policy_from_flat(game, strategy)
    rng = np.random.default_rng(0)  # unused by exact rollouts

    def rank(cards):
        return acpc_rank(np.array(cards, dtype=np.int64), gd.num_suits)

    def walk(n, deal, seen):  # seen: the evaluated player's (node, action, board) so far
        own, boards = deal[seat], deal[2]
        kind = bet.kind[n]
        if kind in (FOLD, SHOWDOWN):
            v = ref.payoff(gd, bet, n, deal, rank)
            return v if seat == 0 else -v
        if kind == ROUND_END:
            return walk(bet.children[n, 0], deal, seen)
        r = int(bet.round[n])
        board = tuple(c for b in boards[: r + 1] for c in b)
        if bet.player[n] == seat:
            w = np.zeros(len(hands))
            for h, cards in enumerate(hands):
                cs = tuple(int(c) for c in cards)
                if not set(cs) & (set(own) | set(board)):
                    w[h] = np.prod([pol(1 - seat, (cs, bd, bet.history[m]), m)[a] for m, a, bd in seen])
            sets = tuple(tuple(sorted(b)) for b in boards[: r + 1])
            token = lbr._act(LimitState(lbr.lists, int(n)), seat, list(own), list(board), sets, w / w.sum(), rng,
                             lbr.opp)
            return walk(bet.children[n, lbr.lists.codes[int(n)].index(_CODES[token[0]])], deal, seen)
        probs = pol(1 - seat, (deal[1 - seat], board, bet.history[n]), n)
        return sum(probs[a] * walk(bet.children[n, a], deal, seen + [(n, a, board)])
                   for a in range(bet.num_actions[n]) if probs[a] > 0)

    return sum(pr * walk(0, deal, []) for deal, pr in ref.deals(gd))


@pytest.mark.parametrize("gamedef, iterations", [("leduc", 1), ("leduc", 3), ("leduc", 30), ("kuhn", 2)])
def test_lbr_exact_value_is_below_the_best_response_and_its_interval_covers_it(tmp_path, gamedef, iterations):
    game_cfg = {"name": "acpc", "gamedef": gamedef, "isomorphism": False}
    strategy = solve({"preset": "cfr_plus", "game": game_cfg}, iterations=iterations, out=tmp_path / "run").strategy
    game = load_config({"preset": "cfr_plus", "game": game_cfg}).game
    lbr = LocalBestResponse(game, opponent_for(game, Player(game, strategy, "x")))
    assert lbr.preflop == "lbr"
    br = game.best_response(strategy)
    exact = [exact_lbr_value(game, strategy, lbr, seat) for seat in (0, 1)]
    for seat in (0, 1):
        assert exact[seat] <= br[seat] + 1e-12
    sampled = lbr.run(4000, seed=1)
    # two half-widths (about 4 standard errors): the test does not fail by chance
    assert abs(sampled.value - sum(exact) / 2) <= 2 * sampled.half_width
    assert sampled.mbb == pytest.approx(sampled.value * 1000 / game.gd.big_blind)
