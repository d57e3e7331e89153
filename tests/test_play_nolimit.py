"""Playing no-limit games: the ACPC server's no-limit rules against OpenSpiel's universal_poker
(which runs the ACPC game code), no-limit match-state lines, the pseudo-harmonic mapping, the
translating agent against a bot betting off-tree sizes through solverkit's dealer, and matches."""

import re

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.api import solve
from solverkit.cli import cli
from solverkit.errors import SolverkitError
from solverkit.poker.acpc_protocol import (NoLimitState, ProtocolMismatch, parse_action, parse_matchstate,
                                           pot_fraction, split_betting)
from solverkit.poker.cards import parse_card
from solverkit.poker.dealer import Deal, NoLimitRules
from solverkit.poker.match import exact_value, mbb, run_match
from solverkit.poker.players import NoLimitBot, NoLimitPlayer, baseline_strategy, load_player
from solverkit.poker.translation import pseudo_harmonic, translate, translation_probabilities

FCPA = {"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": "leduc.nolimit"}}
SIZES = {"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": "leduc.nolimit", "raise_limit": 2,
                                        "sizes": {"round0": {"bet": "50%, a", "raise": "2x, a"},
                                                  "round1": {"bet": "75%, a", "raise": "a"}}}}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Few-iteration solves of no-limit Leduc: fcpa at 40 and 3 iterations, a size-list abstraction."""
    root = tmp_path_factory.mktemp("nolimit")
    out = {}
    for name, config, iters in (("fcpa", FCPA, 40), ("fcpa3", FCPA, 3), ("sizes", SIZES, 40)):
        solve(config, iterations=iters, out=root / name)
        out[name] = root / name
    return out


@pytest.fixture(scope="module")
def game(runs):
    return load_player(str(runs["fcpa"])).game


# --- the ACPC no-limit rules --------------------------------------------------------------------


def _openspiel_acpc(state):
    line = next(x for x in str(state).splitlines() if x.startswith("ACPC State: "))
    return line[len("ACPC State: "):].split(":")


def _top_of_deck(cards, gd):
    """OpenSpiel names a small deck's cards from the bottom (2c..), the ACPC dealer from the top."""
    ranks, suits = "23456789TJQKA", "cdhs"
    dr, ds = 13 - gd.num_ranks, 4 - gd.num_suits
    return re.sub("([2-9TJQKA])([cdhs])", lambda m: ranks[ranks.index(m[1]) + dr] + suits[suits.index(m[2]) + ds],
                  cards)


def _cards(text, gd):
    return tuple(parse_card(text[i:i + 2], gd.num_suits, gd.num_ranks) for i in range(0, len(text), 2))


@pytest.mark.parametrize("stacks", ["20 20", "20 13"])
def test_nolimit_rules_match_openspiel_acpc_code(game, stacks):
    """Random hands of every legal size in OpenSpiel's full no-limit game and in NoLimitState: the
    same betting strings, player to act, legal raise sizes, fold legality and payoffs."""
    pyspiel = pytest.importorskip("pyspiel")
    from dataclasses import replace

    gd = replace(game.gd, stack=tuple(int(s) for s in stacks.split()))
    text = "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 2\nstack = %s\nblind = 2 1\nfirstPlayer = 2 1\n" \
           "numSuits = 2\nnumRanks = 3\nnumHoleCards = 1\nnumBoardCards = 0 1\nEND GAMEDEF\n" % stacks
    params = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text).get_parameters()
    spiel = pyspiel.load_game("universal_poker", {**params, "bettingAbstraction": "fullgame"})
    rules = NoLimitRules(game)
    rng = np.random.default_rng(1)
    showdowns = folds = 0
    for _ in range(300):
        s, st = spiel.new_initial_state(), NoLimitState(gd)
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(int(rng.choice([a for a, _ in s.chance_outcomes()])))
                continue
            assert st.betting() == _openspiel_acpc(s)[2] and st.current_player() == s.current_player()
            legal = s.legal_actions()
            sizes = [a for a in legal if a >= 2]
            assert st.raise_range() == ((min(sizes), max(sizes)) if sizes else None), st.betting()
            assert st.can_fold() == (0 in legal)
            a = int(rng.choice(legal))
            s.apply_action(a)
            st.apply(*(("f", 0) if a == 0 else ("c", 0) if a == 1 else ("r", a)))
        _, _, betting, cards = _openspiel_acpc(s)
        assert st.finished and st.betting() == betting
        assert NoLimitState.from_betting(gd, betting).betting() == betting
        holes, *board = _top_of_deck(cards, gd).split("/")
        deal = Deal(tuple(_cards(h, gd) for h in holes.split("|")), tuple(_cards(b, gd) for b in board))
        if st.showdown:
            loser = rules._loser(Deal(deal.hole, deal.board))
            showdowns += 1
        else:
            loser, folds = None, folds + 1
        assert st.payoffs(loser) == tuple(int(v) for v in s.returns()), betting
    assert showdowns > 30 and folds > 30


def test_nolimit_match_state_lines_round_trip(game):
    gd = game.gd
    for line in ["MATCHSTATE:0:7:r5:Kh|", "MATCHSTATE:1:0:cr6c/r10:|As/Qh", "MATCHSTATE:1:3:r20c/:Kh|As/Qh",
                 "MATCHSTATE:0:2:cr4r9f:Qs|"]:
        state = parse_matchstate(line, gd)
        assert state.line(gd) == line
    assert parse_matchstate("MATCHSTATE:1:0:r20c/:Kh|As/Qh", gd).board == ((parse_card("Qh", 2, 3),),)
    assert [a for a in split_betting("cr6c/r10", True)] == [("c", 0), ("r", 6), ("c", 0), ("/", 0), ("r", 10)]
    assert parse_action("r17", True) == ("r", 17) and parse_action("c", True) == ("c", 0)
    for bad in ("r", "r-3", "r1.5", "x", "rr", "r²", "r" + "9" * 11):
        assert parse_action(bad, True) is None
    for line, why in [("MATCHSTATE:0:0:r3:Kh|", r"a raise to 3 outside the legal 4\.\.20"),
                      ("MATCHSTATE:0:0:r21:Kh|", r"outside the legal 4\.\.20"),
                      ("MATCHSTATE:0:0:r:Kh|", "has no size"),
                      ("MATCHSTATE:0:0:cc:Kh|", r"the dealer writes these actions as 'cc/'"),
                      ("MATCHSTATE:0:0:r20c:Kh|", r"as 'r20c/'"),
                      ("MATCHSTATE:0:0:r05:Kh|", r"as 'r5' \(.*no leading zeros\)"),
                      ("MATCHSTATE:0:0:r20r20:Kh|", "no raise is legal"),
                      ("MATCHSTATE:1:0:cc/f:|As/Qh", "a fold with nothing to call"),
                      ("MATCHSTATE:0:0:ff:Kh|", "after the hand ended"),
                      ("MATCHSTATE:0:0:k:Kh|", "unknown action 'k'")]:
        with pytest.raises(ProtocolMismatch, match=why):
            parse_matchstate(line, gd)


def test_dealer_fixes_illegal_nolimit_replies_as_the_acpc_dealer_does(game):
    """A raise outside the legal sizes moves to the nearest, an impossible fold or raise is a call;
    each is counted as illegal."""
    st = NoLimitState(game.gd)
    assert st.fix("r", 3) == ("r", 4, False) and st.fix("r", 99) == ("r", 20, False)
    assert st.fix("r", 7) == ("r", 7, True)
    st.apply("c")
    assert st.fix("f") == ("c", 0, False)
    st.apply("r", 20)
    assert st.fix("r", 20) == ("c", 0, False) and st.fix("f") == ("f", 0, True)
    assert pot_fraction(6, (2, 1), 1) == 1.0  # the small blind's pot raise: call to 2, then 4 more


# --- the pseudo-harmonic mapping ----------------------------------------------------------------


def test_pseudo_harmonic_formula_and_edges():
    # f(x) = (B - x)(1 + A) / ((B - A)(1 + x)), written as the harmonic interpolation of 1 / (1 + x)
    for a, b, x in [(0.5, 1.0, 0.75), (1.0, 4.5, 2.0), (0.0, 1.0, 0.3), (0.33, 0.66, 0.5)]:
        inv = lambda v: 1.0 / (1.0 + v)  # noqa: E731
        assert pseudo_harmonic(x, a, b) == pytest.approx((inv(x) - inv(b)) / (inv(a) - inv(b)), rel=1e-12)
    assert pseudo_harmonic(0.75, 0.5, 1.0) == pytest.approx(3 / 7)
    assert pseudo_harmonic(0.5, 0.5, 1.0) == 1.0 and pseudo_harmonic(1.0, 0.5, 1.0) == 0.0
    xs = np.linspace(0.5, 1.0, 50)
    assert np.all(np.diff([pseudo_harmonic(x, 0.5, 1.0) for x in xs]) < 0)
    assert list(translation_probabilities(0.1, [0.5, 1.0, 4.5])) == [1, 0, 0]  # below the smallest
    assert list(translation_probabilities(9.0, [0.5, 1.0, 4.5])) == [0, 0, 1]  # above the largest
    assert list(translation_probabilities(1.0, [0.5, 1.0, 4.5])) == [0, 1, 0]  # on a size
    p = translation_probabilities(2.0, [0.5, 1.0, 4.5])
    assert p[0] == 0 and p[1] == pytest.approx(2.5 * 2 / (3.5 * 3)) and p.sum() == pytest.approx(1.0)
    assert list(translation_probabilities(3.0, [2.0])) == [1.0]
    for bad in [(0.8, 1.0, 0.5), (0.2, 0.5, 1.0), (float("nan"), 0.5, 1.0), (0.7, -0.5, 1.0)]:
        with pytest.raises(SolverkitError, match="pseudo-harmonic mapping"):
            pseudo_harmonic(*bad)
    for sizes in ([], [1.0, 0.5], [0.5, 0.5], [float("inf")]):
        with pytest.raises(SolverkitError, match="translation: sizes"):
            translation_probabilities(0.7, sizes)


@pytest.mark.parametrize("x, sizes", [(0.75, [0.5, 1.0]), (2.0, [0.5, 1.0, 4.5]), (0.2, [0.0, 1.0])])
def test_translation_draws_follow_the_mapping(x, sizes):
    """The empirical frequency of the smaller neighbour over many seeded draws is f(x) within 4.5
    standard errors; the same seed draws the same."""
    n = 6000
    rng = np.random.default_rng(5)
    picks = np.array([translate(x, sizes, rng) for _ in range(n)])
    lo = int(np.searchsorted(sizes, x)) - 1  # the neighbours sizes[lo] < x < sizes[lo + 1]
    a, b = sizes[lo], sizes[lo + 1]
    f = (b - x) * (1 + a) / ((b - a) * (1 + x))
    assert set(np.unique(picks)) <= {lo, lo + 1}
    assert abs(np.mean(picks == lo) - f) < 4.5 * np.sqrt(f * (1 - f) / n)
    again = np.random.default_rng(5)
    assert [translate(x, sizes, again) for _ in range(50)] == list(picks[:50])


# --- the agent ----------------------------------------------------------------------------------


def test_agent_maps_an_off_tree_raise_by_the_mapping(game):
    """Position 1 opens to 10 (2x the pot after its call, between fcpa's pot raise to 6 = 1x and
    all-in to 20 = 4.5x): the agent's node is the pot raise's child with probability f(2)."""
    player = NoLimitPlayer(game, baseline_strategy(game, "call"), "call")
    bet = game.tree.bet
    labels = game.action_labels(0)
    pot, allin = (int(bet.children[0, labels.index(t)]) for t in ("r6", "r20"))
    player._rng = np.random.default_rng(3)
    n = 4000
    nodes = [player.node(parse_matchstate(f"MATCHSTATE:0:{h}:r10:Kh|", game.gd)) for h in range(n)]
    f = (4.5 - 2.0) * (1 + 1.0) / ((4.5 - 1.0) * (1 + 2.0))  # Ganzfried and Sandholm's f(x), A = 1, B = 4.5
    assert set(nodes) == {pot, allin}
    assert abs(nodes.count(pot) / n - f) < 4.5 * np.sqrt(f * (1 - f) / n)
    # an all-in maps to the tree's all-in; the same state again is not drawn again
    assert player.node(parse_matchstate("MATCHSTATE:0:9999:r20:Kh|", game.gd)) == allin
    first = player.node(parse_matchstate("MATCHSTATE:0:77777:r10:Kh|", game.gd))
    assert all(player.node(parse_matchstate("MATCHSTATE:0:77777:r10:Kh|", game.gd)) == first for _ in range(20))


def test_agent_bets_the_trees_amounts_clamped_to_the_real_state(game):
    """A strategy that always raises answers with the tree's raise-to amount where it is legal, the
    all-in where the real minimum raise is beyond the tree's amount."""
    player = NoLimitPlayer(game, baseline_strategy(game, "raise"), "raise")
    rng = np.random.default_rng(0)
    # on the tree: the big blind's pot re-raise after a pot raise to 6 is to 18
    assert player.act(parse_matchstate("MATCHSTATE:0:0:r6:Kh|", game.gd), rng) == "r18"
    # 15 maps to the pot raise (p = f(3.25)) or the all-in; after the pot raise the tree's 18 is below the
    # real minimum re-raise (28 > the stack): the agent goes all-in; after the all-in it calls
    tokens = {player.act(parse_matchstate(f"MATCHSTATE:0:{h}:r15:Kh|", game.gd), rng) for h in range(1, 60)}
    assert tokens == {"r20", "c"}
    assert player.stats["clamped"] > 0 and player.stats["translated"] > 0


@pytest.mark.parametrize("bot", ["random", "raise"])
def test_agent_plays_hands_against_an_off_tree_bot_without_illegal_actions(runs, game, bot):
    """A translating agent and a bot betting uniformly drawn legal sizes through solverkit's dealer
    (loopback TCP, both as protocol agents): every hand completes and no action of the agent is
    illegal or needs fixing."""
    a = load_player(str(runs["fcpa"]), game)
    b = load_player(bot, game)
    assert isinstance(a, NoLimitPlayer) and isinstance(b, NoLimitBot)
    report = run_match(game, a, b, hands=200, seed=3)
    assert report.hands == 200 and report.illegal == (0, 0)
    assert report.translation[0]["translated"] > 20
    assert report.exact_mbb is None and "baseline betting any size" in report.no_exact
    assert np.isfinite(report.sampled_mbb) and report.half_width_mbb > 0


def test_sampled_match_agrees_with_the_exact_value_on_one_abstraction(runs, game):
    """Two strategies over the same tree: no translation happens, and the dealer's sampled match
    lands within its 95% interval (widened by 1.5) of the engine's exact value."""
    a, b = load_player(str(runs["fcpa"]), game), load_player(str(runs["fcpa3"]), game)
    exact = exact_value(game, a, b) / mbb(game)
    report = run_match(game, a, b, hands=1000, seed=2)
    assert report.exact_mbb == pytest.approx(exact)
    assert abs(report.sampled_mbb - exact) < 1.5 * report.half_width_mbb
    assert all(s == {"translated": 0, "off_tree_hands": 0, "clamped": 0} for s in report.translation)


def test_match_cli_pits_two_abstractions_and_reports_mbb(runs):
    res = CliRunner().invoke(cli, ["match", str(runs["fcpa"]), str(runs["sizes"]), "--hands", "100", "--seed", "1"])
    assert res.exit_code == 0, res.output
    assert "no exact value: A and B were solved over different abstractions" in res.output
    assert re.search(r"A's winnings over 100 hands \(duplicate\): [+-]\d+\.\d\d mbb/g \+/- \d+\.\d\d mbb/g", res.output)
    assert "B's translation:" in res.output
    res = CliRunner().invoke(cli, ["match", str(runs["fcpa"]), "random"])
    assert res.exit_code != 0 and "no exact value: random is a no-limit baseline" in res.output
    assert "Traceback" not in res.output


def test_play_cli_at_the_dealer_and_a_full_holdem_dealer_without_a_tree(runs, game):
    """`solverkit play` of a no-limit run at solverkit's dealer against a bot, to the end of the
    match; a match of baselines in full no-limit hold'em needs only its game definition."""
    import threading

    from solverkit.poker.dealer import Dealer, play_agent

    dealer = Dealer(game, 40, seed=4, action_timeout=20, connect_timeout=20)
    done = {}
    threads = [threading.Thread(target=lambda: done.setdefault("result", dealer.run()), daemon=True),
               threading.Thread(target=lambda: play_agent(NoLimitBot(game, "random"), "127.0.0.1", dealer.ports[1],
                                                          seed=9, timeout=20), daemon=True)]
    for t in threads:
        t.start()
    res = CliRunner().invoke(cli, ["play", str(runs["fcpa"]), "--connect", f"127.0.0.1:{dealer.ports[0]}"])
    for t in threads:
        t.join(20)
    assert res.exit_code == 0, res.output
    assert "match over: 40 hands" in res.output and re.search(r"translation: [1-9]\d* opponent sizes", res.output)
    assert done["result"].illegal == [0, 0] and len(done["result"].seat_chips) == 40
    res = CliRunner().invoke(cli, ["match", "random", "call", "--game", "acpc", "--set",
                                   "gamedef=holdem.nolimit.2p.reverse_blinds", "--hands", "20"])
    assert res.exit_code == 0, res.output
    assert re.search(r"A's winnings over 20 hands \(duplicate\): [+-]\d+\.\d\d mbb/g", res.output)
