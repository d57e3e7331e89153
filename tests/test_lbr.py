"""Local best response (solverkit.poker.lbr): its win probability against a brute-force equity
written here, the vectorised range policies against the per-hand lookup, LBR <= the exact best
response (the engine's) on limit Leduc, Kuhn and no-limit Leduc while finding most of a weak
strategy's exploitability, and the command."""

import json
from itertools import combinations

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.api import load_game, solve
from solverkit.cli import cli
from solverkit.core.solver import exploitability
from solverkit.poker.acpc_protocol import MatchState
from solverkit.poker.cards import hand_table
from solverkit.poker.evaluator import acpc_rank
from solverkit.poker.lbr import LocalBestResponse, opponent_for, parse_sizes
from solverkit.poker.lbr_kernels import binomials, strength_table, win_probability
from solverkit.poker.players import NoLimitPlayer, Player, baseline_strategy, load_player
from solverkit.errors import ConfigError

NO_TABLE = np.zeros((0, 0), dtype=np.int64)


def brute_equity(own, board, weights, hands, deck, suits, to_deal, strength=None):
    """Pot share of `own` against hands drawn by weight: every (hand, runout) pair, plainly."""
    rank = strength or (lambda cards: acpc_rank(np.array(cards, dtype=np.int64), suits))
    num = den = 0.0
    for h, w in enumerate(weights):
        theirs = [int(c) for c in hands[h]]
        if w == 0 or set(theirs) & (set(own) | set(board)):
            continue
        rest = [c for c in range(deck) if c not in set(own) | set(board) | set(theirs)]
        for runout in combinations(rest, to_deal):
            full = list(board) + list(runout)
            a, b = rank(list(own) + full), rank(theirs + full)
            den += w
            num += w * (1.0 if a > b else 0.5 if a == b else 0.0)
    return num / den


@pytest.mark.parametrize("suits, ranks, k, board, to_deal", [(2, 3, 1, 0, 1), (4, 6, 2, 3, 1), (4, 6, 2, 3, 2),
                                                             (4, 5, 2, 4, 1), (3, 6, 2, 5, 0)])
def test_win_probability_matches_brute_force(suits, ranks, k, board, to_deal):
    """Exact rollouts equal the brute-force equity with card removal and range weights; sampled
    ones are within 4 standard errors of it."""
    deck = suits * ranks
    hands = hand_table(deck, k)
    rng = np.random.default_rng(board * 10 + to_deal)
    binom = binomials(deck, board + to_deal)
    for trial in range(3):
        cards = rng.permutation(deck)
        own, dealt = [int(c) for c in cards[:k]], [int(c) for c in cards[k:k + board]]
        weights = rng.random(len(hands)) * (rng.random(len(hands)) < 0.7)
        own_index = [tuple(int(c) for c in h) for h in hands].index(tuple(sorted(own)))
        args = (np.array(own), own_index, np.array(dealt, dtype=np.int64), weights, hands, deck, suits, to_deal)
        want = brute_equity(own, dealt, weights, hands, deck, suits, to_deal)
        exact, was_exact = win_probability(*args, 500, 10**9, trial, NO_TABLE, binom)
        assert was_exact and exact == pytest.approx(want, abs=1e-12)
        if to_deal:
            sampled, was_exact = win_probability(*args, 4000, 0, trial, NO_TABLE, binom)
            assert not was_exact and abs(sampled - want) < 4 * 0.5 / np.sqrt(4000)


def test_win_probability_with_a_games_own_evaluator():
    """Rhode Island's evaluator through the strength table (one evaluator call per final board)
    gives the brute-force equity computed with the evaluator directly."""
    game = load_game("rhode_island")
    fn, hands, gd = game.strength_function(), game.tree.hands, game.gd
    binom = binomials(gd.deck_size, 2)
    table = strength_table(fn, hands, gd.deck_size, 2, binom)

    def rank(cards):
        out = np.empty(1, dtype=np.int64)
        fn(np.array([cards[:1]], dtype=np.int64), np.array(cards[1:], dtype=np.int64), out)
        return int(out[0])

    rng = np.random.default_rng(3)
    weights = rng.random(len(hands))
    own, board = [5], [17]
    got, exact = win_probability(np.array(own), 5, np.array(board), weights, hands, gd.deck_size, gd.num_suits, 1,
                                 100, 10**9, 0, table, binom)
    assert exact and got == pytest.approx(brute_equity(own, board, weights, hands, gd.deck_size, gd.num_suits, 1,
                                                       strength=rank), abs=1e-12)


def test_hand_policies_match_the_per_hand_lookup():
    """Player.hand_policies (one gather per public state, suit isomorphism moving every hand at
    once) gives each hand the row Player.probabilities_at looks up for that hand alone."""
    game = load_game("leduc")
    rng = np.random.default_rng(0)
    strategy = [rng.random(game.layout(p).size) for p in (0, 1)]
    player = Player(game, strategy, "x")
    bet = game.tree.bet
    hands = game.tree.hands
    for n in np.flatnonzero(bet.kind == 0):
        n = int(n)
        for board in ([()] if bet.round[n] == 0 else [(c,) for c in range(6)]):
            sets = ((),) + tuple((b,) for b in board)
            got = player.hand_policies(n, sets)
            for h, cards in enumerate(hands):
                if set(int(c) for c in cards) & set(board):
                    continue
                state = MatchState(int(bet.player[n]), 0, bet.history[n], ((int(cards[0]),), (int(cards[0]),)),
                                   tuple((b,) for b in board))
                np.testing.assert_array_equal(got[h], player.probabilities_at(n, state)[0])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("lbr")
    out = {}
    for name, game, iters in (("leduc", {"name": "leduc"}, 3), ("kuhn", {"name": "kuhn"}, 2),
                              ("nolimit", {"name": "acpc", "gamedef": "leduc.nolimit"}, 5)):
        solve({"preset": "cfr_plus", "game": game}, iterations=iters, out=root / name)
        out[name] = root / name
    return out


def _check_below(game, player, hands, share, **kw):
    """LBR's value <= the exact exploitability + its interval, and at least `share` of it."""
    exact = exploitability(game, player.strategy)[0]
    result = LocalBestResponse(game, opponent_for(game, player), **kw).run(hands, seed=1)
    assert result.value <= exact + result.half_width
    assert result.value >= share * exact, (result.value, exact)
    return result.value, exact


@pytest.mark.parametrize("run, share", [("leduc", 0.6), ("kuhn", 0.3)])
def test_lbr_is_below_the_exact_best_response_limit(runs, run, share):
    """Few-iteration CFR+ strategies of Leduc and Kuhn: LBR <= exploitability and a good part of it."""
    player = load_player(str(runs[run]))
    _check_below(player.game, player, 3000, share)


@pytest.mark.parametrize("kind, share", [pytest.param("call", 0.9, marks=pytest.mark.slow), ("random", 0.75)])
def test_lbr_finds_most_of_a_baselines_exploitability(runs, kind, share):
    """Always-call and uniform random in limit Leduc: LBR wins nearly what a best response does
    (always-call: 1.47 chips exact, LBR ~1.44; random: 2.37, LBR ~2.1)."""
    game = load_player(str(runs["leduc"])).game
    _check_below(game, Player(game, baseline_strategy(game, kind), kind), 3000, share)


@pytest.mark.slow  # (CI time: 5 s)
def test_lbr_is_below_the_exact_best_response_nolimit(runs):
    """No-limit Leduc under fcpa: LBR betting the tree's sizes (pot, all-in) stays in the
    abstraction, whose exact exploitability bounds it; the tree's always-call is found out."""
    player = load_player(str(runs["nolimit"]))
    game = player.game
    _check_below(game, player, 1200, -1.0, sizes="1p,a")
    call = NoLimitPlayer(game, baseline_strategy(game, "call"), "call")
    _check_below(game, call, 1200, 0.9, sizes="1p,a")


def test_lbr_of_an_abstracted_run_plays_its_real_policy(tmp_path):
    """A run with [abstraction] (EHS buckets) is played through its real-game policy: LBR stays
    below the real game's exact exploitability (`exploit --real`)."""
    from solverkit.poker.lbr import real_player

    solve({"preset": "cfr_plus", "game": {"name": "leduc"}, "abstraction": {"name": "ehs", "buckets": [2, 3]}},
          iterations=20, out=tmp_path / "ra")
    player = real_player(load_player(str(tmp_path / "ra")))
    assert player.game.layout(0).size == load_game("leduc").layout(0).size
    _check_below(player.game, player, 2000, -1.0)


def test_translation_of_lbr_sizes(runs):
    """LBR's off-tree sizes are translated into the strategy's tree (pseudo-harmonic), counted."""
    player = load_player(str(runs["nolimit"]))
    result = LocalBestResponse(player.game, opponent_for(player.game, player), sizes="1.5p").run(200, seed=0)
    assert result.translation["translated"] > 0


def test_same_seed_same_result(runs):
    """A seed gives one result, whatever the number of threads playing the deals."""
    game = load_game("leduc")
    again = [LocalBestResponse(game, opponent_for(game, "random")).run(100, seed=s) for s in (4, 4, 5)]
    assert again[0].value == again[1].value and again[0].value != again[2].value
    player = load_player(str(runs["nolimit"]))
    lbr = LocalBestResponse(player.game, opponent_for(player.game, player), sizes="1.5p,a")
    one, three = lbr.run(60, seed=2), lbr.run(60, seed=2, jobs=3)
    assert (one.value, one.seat_values) == (three.value, three.seat_values)
    assert one.translation == three.translation and one.translation["translated"] > 0


def test_hunl_always_call_is_hugely_exploitable():
    """Heads-up no-limit hold'em (200 big blinds): LBR wins tens of big blinds a game from an
    always-call player (bench/lbr_hunl.py measures it over many hands)."""
    from solverkit.poker.dealer import NoLimitTable
    from solverkit.poker.gamedef import load_any_gamedef

    game = NoLimitTable(load_any_gamedef("holdem.nolimit.2p.reverse_blinds"))
    result = LocalBestResponse(game, opponent_for(game, "call")).run(40, seed=0)
    assert result.settings["preflop"] == "call"
    assert result.mbb > 10_000


def test_sizes_parse_and_refuse():
    assert parse_sizes("1p, a, 50%") == [1.0, float("inf"), 0.5]
    for bad in ("1x", "", "0p", "-1p"):
        with pytest.raises(ConfigError, match="sizes"):
            parse_sizes(bad)


def test_command(runs, tmp_path):
    runner = CliRunner()
    out = runner.invoke(cli, ["lbr", str(runs["nolimit"]), "--hands", "200", "--sizes", "1p,a"])
    assert out.exit_code == 0, out.output
    assert "mbb/g" in out.output and "lower bound" in out.output
    saved = json.loads((runs["nolimit"] / "lbr.json").read_text())
    assert saved["hands"] == 200 and saved["settings"]["sizes"] == "1p,a"
    out = runner.invoke(cli, ["lbr", "--game", "leduc", "--opponent", "call", "--hands", "100"])
    assert out.exit_code == 0 and "against call" in out.output
    for args, words in ((["--game", "leduc", "--opponent", "call", "--hands", "3"], "odd"),
                        (["--game", "leduc", "--opponent", "call", "--sizes", "1p"], "limit game"),
                        (["--game", "leduc.nolimit", "--opponent", "call", "--sizes", "2y"], "no size"),
                        (["--game", "leduc"], "RUN_DIR"),
                        (["--opponent", "call"], "needs a game"),
                        (["--game", "leduc", "--opponent", "call", "--preflop", "x"], "preflop")):
        out = runner.invoke(cli, ["lbr", *args])
        assert out.exit_code != 0 and words in out.output and len(out.output.strip().splitlines()) == 1, out.output
