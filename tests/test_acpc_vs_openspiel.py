"""ACPC limit games against OpenSpiel's universal_poker (the ACPC server's own game code).

For a grid of small game definitions (equal, unequal and zero blinds with either player first,
firstPlayer changing per round, maxRaises 0..3 per round, raiseSize per round, one or two hole
cards, rounds without board cards), a fixed pseudo-random policy keyed by what a player sees
(hole cards, board cards, betting) is evaluated by solverkit and by OpenSpiel: both players'
expected values and best-response values must agree to 1e-9. Board cards come in at most one
round, where universal_poker's information states have perfect recall (docs: REFERENCE).
A structural test compares every betting sequence's actions and chips committed directly, on
the grid and the bundled games (hold'em included); showdowns are compared on random deals.
"""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.poker.betting import DECISION, FOLD, SHOWDOWN

pyspiel = pytest.importorskip("pyspiel")

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
INT32_MAX = 2**31 - 1

# (blind, raiseSize, firstPlayer, maxRaises, numSuits, numRanks, numHoleCards, numBoardCards)
GRID = [
    # one round: every blind order with either player first
    ("1 1", "2", "1", "2", 2, 3, 1, "0"),
    ("1 1", "2", "2", "2", 2, 3, 1, "0"),
    ("2 1", "2", "1", "2", 2, 3, 1, "0"),  # the first actor posted the larger blind
    ("2 1", "2", "2", "2", 2, 3, 1, "0"),
    ("1 2", "2", "1", "2", 2, 3, 1, "0"),
    ("1 2", "2", "2", "3", 2, 3, 1, "0"),  # the first actor posted the larger blind
    ("10 5", "10", "1", "0", 2, 3, 1, "0"),  # no raises: check, call or fold
    ("10 5", "10", "1", "1", 2, 3, 1, "0"),
    ("0 3", "2", "2", "2", 2, 3, 1, "0"),
    ("3 0", "1", "1", "3", 2, 3, 1, "0"),
    ("0 1", "1", "2", "2", 2, 3, 1, "0"),  # (OpenSpiel refuses blind = 0 0)
    ("1 2", "2", "2", "2", 2, 4, 2, "0"),  # two hole cards
    # two and three rounds, board cards in one round
    ("2 1", "2 4", "1 2", "2 1", 2, 3, 1, "0 1"),
    ("1 2", "1 3", "2 2", "1 2", 2, 3, 1, "0 1"),
    ("5 5", "2 4", "2 1", "0 2", 2, 3, 1, "0 1"),
    ("3 1", "2 2", "1 1", "3 0", 2, 3, 1, "0 2"),
    ("2 1", "2 4", "1 2", "1 1", 2, 3, 2, "0 1"),
    ("0 2", "1 2", "2 1", "2 2", 1, 4, 1, "0 0"),
    ("4 2", "2 2 4", "1 2 1", "1 1 1", 2, 3, 1, "0 1 0"),
]


def gamedef_text(blind, raise_size, first, caps, suits, ranks, hole, board) -> str:
    """An ACPC game definition with these fields."""
    return (f"GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = {len(raise_size.split())}\nblind = {blind}\n"
            f"raiseSize = {raise_size}\nfirstPlayer = {first}\nmaxRaises = {caps}\nnumSuits = {suits}\n"
            f"numRanks = {ranks}\nnumHoleCards = {hole}\nnumBoardCards = {board}\nEND GAMEDEF\n")


def weights(hole, board, history, codes) -> np.ndarray:
    """The fixed policy: action probabilities (over `codes`, fold 0, call 1, raise 2) from a
    hash of what the acting player sees; the same on both sides, far from uniform."""
    w = np.array([0.05 + zlib.crc32(f"{sorted(hole)}|{sorted(board)}|{history}|{c}".encode()) / 2**32
                  for c in codes])
    return w / w.sum()


def _cards(text: str, suits: int) -> list[int]:
    """Card ids (rank x suits + suit) of OpenSpiel's card string, e.g. '2c3d'."""
    return [RANK_CHARS.index(text[i]) * suits + SUIT_CHARS.index(text[i + 1]) for i in range(0, len(text), 2)]


def _field(info: str, name: str) -> str:
    return re.search(rf"\[{name}: ([^\]]*)\]", info).group(1)


class KeyedPolicy:
    """The fixed policy on OpenSpiel states (read from the information-state string)."""

    def __init__(self, game, suits):
        from open_spiel.python import policy as os_policy

        self.base = os_policy.Policy(game, [0, 1])
        self.suits = suits

    def action_probabilities(self, state, player_id=None):
        info = state.information_state_string(state.current_player())
        hole = _cards(_field(info, "Private"), self.suits)
        board = _cards(_field(info, "Public"), self.suits)
        history = _field(info, "Sequences").replace("|", "/")
        acts = state.legal_actions()
        return dict(zip(acts, weights(hole, board, history, acts)))


def solverkit_game(tmp_path, text):
    path = tmp_path / "g.game"
    path.write_text(text)
    cfg = {"game": {"name": "acpc", "gamedef": str(path), "isomorphism": False}, "preset": "cfr_plus"}
    return load_config(cfg).game


def solverkit_strategy(game):
    """The fixed policy as solverkit's flat per-player strategy."""
    t, bet = game.tree, game.tree.bet
    out = []
    for p in (0, 1):
        lay = game.layout(p)
        flat = np.zeros(int(np.sum(lay.block_count * lay.block_actions)))
        for n, k in zip(*game.full.units[p]):
            g = int(t.boards.round_start[bet.round[n]]) + int(k)
            board = [int(c) for c in t.boards.cards[g, : t.boards.num_cards[g]]]
            A = int(bet.num_actions[n])
            codes = [int(c) for c in bet.actions[n, :A]]
            for h in range(t.num_hands):
                off = game.value_offset(int(n), g, h)
                flat[off : off + A] = weights([int(c) for c in t.hands[h]], board, bet.history[n], codes)
        out.append(flat)
    return out


def openspiel_values(os_game, suits):
    """(ev0, ev1, br0, br1) of the fixed policy by OpenSpiel's own algorithms."""
    from open_spiel.python.algorithms import best_response, expected_game_score

    pol = KeyedPolicy(os_game, suits)
    root = os_game.new_initial_state()
    ev = expected_game_score.policy_value(root, [pol, pol])
    br = [best_response.BestResponsePolicy(os_game, p, pol).value(root) for p in (0, 1)]
    return float(ev[0]), float(ev[1]), float(br[0]), float(br[1])


@pytest.mark.parametrize("fields", GRID, ids=["|".join(str(f) for f in g) for g in GRID])
def test_policy_values_equal_openspiel(tmp_path, fields):
    text = gamedef_text(*fields)
    game = solverkit_game(tmp_path, text)
    strategy = solverkit_strategy(game)
    ours = (*game.expected_values(strategy), *game.best_response(strategy))
    os_game = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text)
    theirs = openspiel_values(os_game, fields[4])
    assert ours == pytest.approx(theirs, abs=1e-9), text


BUNDLED = ["kuhn", "leduc", "rhode", "holdem2r", "holdem.limit.2p.reverse_blinds"]


def _bundled_text(name):
    from importlib import resources

    return resources.files("solverkit.poker").joinpath("gamedefs", name + ".game").read_text()


def _our_betting(bet):
    """{betting string: (action codes, chips committed)} of every decision; terminals: ((), chips
    committed, the folder or -1 at a showdown)."""
    out = {}
    for n in range(bet.num_nodes):
        spent = tuple(int(x) for x in bet.spent[n])
        if bet.kind[n] == DECISION:
            out[bet.history[n]] = (tuple(int(c) for c in bet.actions[n, : int(bet.num_actions[n])]), spent)
        elif bet.kind[n] in (FOLD, SHOWDOWN):
            out[bet.history[n]] = ((), spent, int(bet.player[n]) if bet.kind[n] == FOLD else -1)
    return out


def _their_betting(os_game):
    """The same over OpenSpiel's tree, dealing the first chance outcome everywhere (the betting
    does not depend on the cards); a fold's payoff is checked against the folder's chips."""
    out = {}

    def visit(state, actor):
        while state.is_chance_node():
            state = state.child(state.chance_outcomes()[0][0])
        info = state.information_state_string(0)
        spent = tuple(INT32_MAX - int(m) for m in _field(info, "Money").split())
        hist = _field(info, "Sequences").replace("|", "/")
        if state.is_terminal():
            folder = actor if hist.endswith("f") else -1
            if folder >= 0:
                assert state.returns()[0] == (-spent[0] if folder == 0 else spent[1]), hist
            out[hist] = ((), spent, folder)
            return
        out[hist] = (tuple(state.legal_actions()), spent)
        for a in state.legal_actions():
            visit(state.child(a), state.current_player())

    visit(os_game.new_initial_state(), -1)
    return out


@pytest.mark.parametrize("text", [gamedef_text(*g) for g in GRID] + [_bundled_text(n) for n in BUNDLED],
                         ids=["|".join(str(f) for f in g) for g in GRID] + BUNDLED)
def test_betting_trees_equal_openspiel(text):
    """Every betting sequence (hold'em's 17,221 nodes included): the same actions and chips
    committed at every decision and terminal, the same folder at every fold (who pays exactly
    the chips committed)."""
    from solverkit.poker.betting import build_betting_tree
    from solverkit.poker.gamedef import parse_gamedef

    ours = _our_betting(build_betting_tree(parse_gamedef(text)))
    theirs = _their_betting(pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text))
    assert ours == theirs


@pytest.mark.parametrize("suits, ranks, hole, board", [(2, 5, 2, "0 3"), (4, 13, 2, "0 3 1 1"), (3, 6, 1, "0 2 2")])
def test_showdowns_equal_openspiel_on_random_deals(suits, ranks, hole, board):
    """Who wins a showdown (ACPC ranking: straights, flushes, the A-2-3-4-5 wheel of the full
    deck) on 300 random deals, checked down to the end, by solverkit's evaluator and OpenSpiel."""
    from solverkit.poker.evaluator import acpc_strengths

    rounds = len(board.split())
    text = gamedef_text("1 1", " ".join(["1"] * rounds), " ".join(["1"] * rounds), " ".join(["0"] * rounds),
                        suits, ranks, hole, board)
    os_game = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text)
    rng = np.random.default_rng(ranks)
    need = 2 * hole + sum(int(b) for b in board.split())
    for _ in range(300):
        cards = [int(c) for c in rng.permutation(suits * ranks)[:need]]
        state = os_game.new_initial_state()
        dealt = iter(cards)
        while not state.is_terminal():
            state.apply_action(next(dealt) if state.is_chance_node() else 1)  # deal, or check
        hands = np.array([sorted(cards[:hole]), sorted(cards[hole : 2 * hole])], dtype=np.int64)
        strength = np.zeros(2, dtype=np.int64)
        acpc_strengths(hands, np.array(cards[2 * hole :], dtype=np.int64), suits, strength)
        assert np.sign(state.returns()[0]) == np.sign(strength[0] - strength[1]), cards


def uniform_strategy(game):
    """Every action of every information set equally likely (suit-symmetric: fits either layout)."""
    out = []
    for p in (0, 1):
        lay = game.layout(p)
        out.append(np.concatenate([np.full(int(c) * int(a), 1.0 / int(a))
                                   for c, a in zip(lay.block_count, lay.block_actions)]))
    return out


MULTI_ROUND = [g for g in GRID if len(g[1].split()) > 1]


@pytest.mark.parametrize("fields", MULTI_ROUND, ids=["|".join(str(f) for f in g) for g in MULTI_ROUND])
def test_uniform_values_with_suit_isomorphism_equal_openspiel(tmp_path, fields):
    """The default build (boards merged up to suit permutations) gives OpenSpiel's values too."""
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import best_response, expected_game_score

    text = gamedef_text(*fields)
    path = tmp_path / "g.game"
    path.write_text(text)
    game = load_config({"game": {"name": "acpc", "gamedef": str(path)}, "preset": "cfr_plus"}).game
    assert game.tree_isomorphic
    strategy = uniform_strategy(game)
    ours = (*game.expected_values(strategy), *game.best_response(strategy))
    os_game = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text)
    pol = os_policy.UniformRandomPolicy(os_game)
    root = os_game.new_initial_state()
    ev = expected_game_score.policy_value(root, [pol, pol])
    br = [best_response.BestResponsePolicy(os_game, p, pol).value(root) for p in (0, 1)]
    assert ours == pytest.approx((ev[0], ev[1], br[0], br[1]), abs=1e-9), text


def random_fields(rng):
    """A random small game: blinds 0..3 (not both 0: OpenSpiel refuses that), either player
    first in each round, 0..2 raises of 1..4 chips, 1 or 2 rounds, board cards in round 2 only."""
    rounds = int(rng.integers(1, 3))
    blind = [int(x) for x in rng.integers(0, 4, size=2)]
    if blind == [0, 0]:
        blind[int(rng.integers(2))] = int(rng.integers(1, 4))
    suits, ranks = int(rng.integers(1, 3)), int(rng.integers(3, 5))
    hole = 2 if suits * ranks >= 8 and rng.random() < 0.3 else 1
    board = "0" if rounds == 1 else f"0 {int(rng.integers(0, 3)) if hole == 1 else int(rng.integers(0, 2))}"

    def per_round(lo, hi):
        return " ".join(str(int(x)) for x in rng.integers(lo, hi + 1, size=rounds))

    return (f"{blind[0]} {blind[1]}", per_round(1, 4), per_round(1, 2), per_round(0, 2), suits, ranks, hole, board)


@pytest.mark.parametrize("seed", [*range(4), *(pytest.param(s, marks=pytest.mark.slow) for s in range(4, 8))])
def test_random_small_games_equal_openspiel(tmp_path, seed):
    """Games nobody listed: random fields, the same fixed policy, OpenSpiel's values."""
    fields = random_fields(np.random.default_rng(1000 + seed))
    text = gamedef_text(*fields)
    game = solverkit_game(tmp_path, text)
    strategy = solverkit_strategy(game)
    ours = (*game.expected_values(strategy), *game.best_response(strategy))
    os_game = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text)
    assert ours == pytest.approx(openspiel_values(os_game, fields[4]), abs=1e-9), text
