"""N-player ACPC tables (solverkit.poker.nplayer, .table): the dealer's rules against OpenSpiel's
universal_poker (the ACPC server's game code), the bundled kuhn.limit.3p, duplicate matches over
every seating whose sampled results agree with exact values computed two ways (the tree engine,
and a walk of OpenSpiel's game written here), a solved 3-player Kuhn strategy that loses nothing
measurable against copies of itself and OpenSpiel's CFR, and an always-fold player that does."""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError
from solverkit.poker.acpc_protocol import ProtocolMismatch, parse_matchstate
from solverkit.poker.gamedef import bundled_names, load_gamedef
from solverkit.poker.nplayer import LimitState, TableDeal, load_table, parse_table, strengths, tree_table
from solverkit.poker.table import TablePlayer, baseline_policy, exact_values, load_table_player, run_table_match
from .solved_runs import solved_kuhn3

pyspiel = pytest.importorskip("pyspiel")

KUHN3 = {"numRounds": 1, "blind": "1 1 1", "raiseSize": "1", "firstPlayer": "1", "maxRaises": "1", "numSuits": 1,
         "numRanks": 4, "numHoleCards": 1, "numBoardCards": "0"}
LEDUC3 = {"numRounds": 2, "blind": "1 1 1", "raiseSize": "2 4", "firstPlayer": "1 1", "maxRaises": "2 2",
          "numSuits": 2, "numRanks": 4, "numHoleCards": 1, "numBoardCards": "0 1"}
HOLDEM4 = {"numRounds": 2, "blind": "1 2 0 0", "raiseSize": "2 4", "firstPlayer": "3 1", "maxRaises": "3 2",
           "numSuits": 4, "numRanks": 6, "numHoleCards": 2, "numBoardCards": "0 3"}


def _gamedef(players, fields):
    lines = ["GAMEDEF", "limit", f"numPlayers = {players}"] + [f"{k} = {v}" for k, v in fields.items()]
    return "\n".join(lines + ["END GAMEDEF"])


def _top_of_deck(cards, gd):
    """universal_poker names a small deck from the bottom, the ACPC dealer from the top: renamed."""
    ranks, suits = "23456789TJQKA", "cdhs"
    dr, ds = len(ranks) - gd.num_ranks, len(suits) - gd.num_suits
    return re.sub("([2-9TJQKA])([cdhs])", lambda m: ranks[ranks.index(m[1]) + dr] + suits[suits.index(m[2]) + ds],
                  cards)


@pytest.mark.parametrize("players, fields", [(3, KUHN3), (3, LEDUC3), (4, HOLDEM4)], ids=["kuhn3", "leduc3", "holdem4"])
def test_table_rules_match_openspiel_acpc_code(players, fields):
    """Random hands in universal_poker and in LimitState: the same player to act, legal actions,
    betting strings, card lines and payoffs (folds, showdowns, split pots)."""
    gd = parse_table(_gamedef(players, fields))
    spiel = pyspiel.load_game("universal_poker", {"betting": "limit", "numPlayers": players, **fields})
    rng = np.random.default_rng(0)
    for _ in range(150):
        s = spiel.new_initial_state()
        st = LimitState(gd)
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(int(rng.choice([a for a, _ in s.chance_outcomes()])))
                continue
            assert st.current_player() == s.current_player() and not st.finished
            assert ["fcr"[a] for a in s.legal_actions()] == st.legal()
            action = int(rng.choice(s.legal_actions()))
            s.apply_action(action)
            st.apply("fcr"[action])
        line = next(x for x in str(s).splitlines() if x.startswith("ACPC State: "))
        _, hand, betting, cards = line[len("ACPC State: "):].split(":")
        assert st.finished and st.betting() == betting
        state = parse_matchstate(f"MATCHSTATE:0:{hand}:{betting}:{_top_of_deck(cards, gd)}", gd)
        board = state.board + tuple(() for _ in range(gd.num_rounds - 1 - len(state.board)))
        deal = TableDeal(state.hole, board)
        assert st.payoffs(strengths(gd, deal) if st.showdown else None) == pytest.approx(s.returns(), abs=1e-12)


def test_kuhn_limit_3p_is_bundled_for_tables_and_refused_by_the_two_player_engine():
    gd = load_table("kuhn.limit.3p")
    game = load_config({"preset": "cfr", "game": {"name": "kuhn_tree", "players": 3}}).game
    assert gd == tree_table(game).__class__(**{**tree_table(game).__dict__, "source": "kuhn.limit.3p"})
    assert "kuhn.limit.3p" not in bundled_names() and bundled_names("limit", 3) == ["holdem.limit.3p", "kuhn.limit.3p"]
    with pytest.raises(ConfigError, match="numPlayers = 3: only 2-player games are supported"):
        load_gamedef("kuhn.limit.3p")
    with pytest.raises(ConfigError, match=r"numPlayers = 7 is invalid: expected 2\.\.6"):
        parse_table(_gamedef(7, {**KUHN3, "blind": "1 1 1 1 1 1 1", "numRanks": 8}))
    with pytest.raises(ConfigError, match=r"field blind has 2 values, expected 3"):
        parse_table(_gamedef(3, {**KUHN3, "blind": "1 1"}))
    for line, expected in [("MATCHSTATE:3:0::|Js|", "position '3' in 'MATCHSTATE:3:0::|Js|': expected 0..2 (a game of 3 "
                                                     "players)"),
                           ("MATCHSTATE:0:0::Js|", "expected 3 positions' hole cards"),
                           ("MATCHSTATE:0:0:rr:Js||", "a raise where no raise is legal at 1"),
                           ("MATCHSTATE:0:0:f:Js||", "a fold with nothing to call at 0")]:
        with pytest.raises(ProtocolMismatch, match=re.escape(expected)):
            parse_matchstate(line, gd)


@pytest.fixture(scope="module")
def kuhn3(tmp_path_factory):
    """3-player Kuhn solved by the tree engine (CFR+, NashConv ~1e-3 chips)."""
    return solved_kuhn3(tmp_path_factory, "kuhn_tree", 300, 2e-3)


@pytest.mark.slow  # (CI time: runs with -m slow)
def test_a_solved_kuhn_strategy_loses_nothing_measurable_and_always_fold_does(kuhn3):
    a = load_table_player(str(kuhn3))
    game = a.tree_game
    copies = run_table_match([a, load_table_player(str(kuhn3), game), load_table_player(str(kuhn3), game)],
                             hands=600, seed=5)
    assert copies.exact == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)  # one strategy in every seat: symmetric
    for mean, half in zip(copies.sampled, copies.half_width):
        assert abs(mean) <= half < 0.1, copies.lines()
    fold = run_table_match([a, load_table_player("fold", game), load_table_player(str(kuhn3), game)],
                           hands=600, seed=6)
    assert fold.sampled[1] + fold.half_width[1] < 0 and fold.exact[1] < -0.15, fold.lines()
    # the dealer's chips (its own ACPC rules) agree with the tree engine's expected values
    for mean, half, exact in zip(fold.sampled, fold.half_width, fold.exact):
        assert abs(mean - exact) <= half, fold.lines()
    assert fold.deals == 100 and fold.seatings == 6 and fold.hands == 600 and fold.illegal == [0, 0, 0]


def _walk_value(state, tables):
    """Every player's expected return of an OpenSpiel state when position p plays tables[p]
    (information-state string -> {action: probability}): a plain recursion over pyspiel states."""
    if state.is_terminal():
        return np.array(state.returns())
    if state.is_chance_node():
        return sum(p * _walk_value(state.child(a), tables) for a, p in state.chance_outcomes())
    probs = tables[state.current_player()][state.information_state_string()]
    return sum(probs[a] * _walk_value(state.child(a), tables) for a in state.legal_actions())


def test_against_openspiel_cfr_over_every_seating(tmp_path):
    """A strategy of the OpenSpiel bridge's kuhn_poker(players=3) seated with two copies of
    OpenSpiel's own CFR average policy: exact values from the tree engine equal a walk of
    OpenSpiel's game, the solved player loses nothing measurable, and the sampled match agrees."""
    spec = "kuhn_poker(players=3)"
    run_solve(load_config({"preset": "cfr_plus", "game": {"name": "openspiel", "game": spec},
                           "solver": {"iterations": 300}}), out=tmp_path / "run")
    a = load_table_player(str(tmp_path / "run"))
    game = a.tree_game
    os_game = pyspiel.load_game(spec)
    solver = pyspiel.CFRSolver(os_game)
    for _ in range(300):
        solver.evaluate_and_update_policy()
    avg = solver.average_policy()
    table, stack = {}, [os_game.new_initial_state()]
    while stack:
        s = stack.pop()
        if s.is_terminal():
            continue
        if not s.is_chance_node():
            table[s.information_state_string()] = dict(avg.get_state_policy(s))
        stack.extend(s.child(x) for x in s.legal_actions())
    cfr = [np.zeros(game.layout(p).size) for p in range(3)]
    for p in range(3):
        for key, acts, off in zip(game.infoset_keys(p), game.tree.actions[p], game.tree.offsets[p]):
            cfr[p][off:off + len(acts)] = [table[key][x] for x in acts]
    players = [a, TablePlayer(game, cfr, "openspiel cfr"), TablePlayer(game, cfr, "openspiel cfr")]
    report = run_table_match(players, hands=600, seed=7)
    mine = game.openspiel_table(a.strategy)
    walked = np.zeros(3)
    for where in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]:
        tables = [None] * 3
        for i, pos in enumerate(where):
            tables[pos] = mine if i == 0 else table
        v = _walk_value(os_game.new_initial_state(), tables)
        walked += [v[where[i]] for i in range(3)]
    assert report.exact == pytest.approx(list(walked / 6), abs=1e-9)
    assert report.exact[0] > -0.01, report.lines()  # nothing lost: within a hundredth of a chip a game
    assert report.sampled[0] + report.half_width[0] >= 0, report.lines()
    for mean, half, exact in zip(report.sampled, report.half_width, report.exact):
        assert abs(mean - exact) <= half, report.lines()


def test_match_and_dealer_commands_seat_three_players(kuhn3):
    res = CliRunner().invoke(cli, ["match", str(kuhn3), "fold", str(kuhn3), "--hands", "60", "--seed", "2"])
    assert res.exit_code == 0, res.output
    assert "B = fold" in res.output and "(duplicate: 10 deals x 6 seatings)" in res.output
    assert re.search(r"expected winnings \(exact, every seating\): A \+0\.\d+, B -0\.\d+, C \+0\.\d+", res.output)
    res = CliRunner().invoke(cli, ["match", str(kuhn3), "fold", "--hands", "6"])
    assert res.exit_code != 0 and "2 players for game 'kuhn_tree' of 3 players: expected 3" in res.output
    res = CliRunner().invoke(cli, ["match", str(kuhn3), str(kuhn3), str(kuhn3), "--hands", "8"])
    assert res.exit_code != 0 and "a multiple of 6 (every seating of 3 players once per deal)" in res.output
    # baselines over the tree's layout: each picks its action at every information set
    game = load_table_player(str(kuhn3)).tree_game
    fold = baseline_policy(game, "fold")
    assert all(np.allclose(x.reshape(-1, 2).sum(axis=1), 1.0) for x in fold)
    assert exact_values(game, [load_table_player(k, game) for k in ("call", "call", "call")]) == \
        pytest.approx([0.0, 0.0, 0.0], abs=1e-12)


@pytest.mark.parametrize("players, fields", [(3, KUHN3), (3, LEDUC3), (4, HOLDEM4)], ids=["kuhn3", "leduc3", "holdem4"])
def test_universal_poker_keys_of_match_states_are_openspiels_own(players, fields):
    """A match state (own cards only, the ACPC dealer's names) replayed in universal_poker gives
    the information-state string of the real hand at every decision of random hands."""
    from solverkit.poker.table import UniversalPokerKeys

    gd = parse_table(_gamedef(players, fields))
    spiel = pyspiel.load_game("universal_poker", {"betting": "limit", "numPlayers": players, **fields})
    keys = UniversalPokerKeys(spiel)
    rng = np.random.default_rng(1)
    for _ in range(40):
        s = spiel.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(int(rng.choice([a for a, _ in s.chance_outcomes()])))
                continue
            p = s.current_player()
            line = next(x for x in str(s).splitlines() if x.startswith("ACPC State: "))
            _, hand, betting, cards = line[len("ACPC State: "):].split(":")
            segments = _top_of_deck(cards, gd).split("/")
            mine = "|".join(h if i == p else "" for i, h in enumerate(segments[0].split("|")))
            state = parse_matchstate(f"MATCHSTATE:{p}:{hand}:{betting}:{'/'.join([mine, *segments[1:]])}", gd)
            assert keys.key(state, gd) == s.information_state_string(p)
            s.apply_action(int(rng.choice(s.legal_actions())))


def test_a_universal_poker_strategy_plays_as_the_same_rules_tree_game(kuhn3, tmp_path):
    """3-player Kuhn solved as OpenSpiel's universal_poker (kuhn.limit.3p's fields) and as kuhn_tree:
    the same table, and the same exact values over every seating against an always-fold player."""
    spec = ("universal_poker(betting=limit,numPlayers=3,numRounds=1,blind=1 1 1,raiseSize=1 ,firstPlayer=1 ,"
            "maxRaises=1 ,numSuits=1,numRanks=4,numHoleCards=1,numBoardCards=0 )")  # '1 ': a string to OpenSpiel
    run_solve(load_config({"preset": "cfr_plus", "game": {"name": "openspiel", "game": spec},
                           "solver": {"iterations": 300}}), out=tmp_path / "up")
    up = load_table_player(str(tmp_path / "up"))
    assert up.game.gd.__dict__ == {**load_table("kuhn.limit.3p").__dict__, "source": spec}
    tree = load_table_player(str(kuhn3))
    a = run_table_match([up, load_table_player("fold", up.tree_game), up], hands=120, seed=3)
    b = run_table_match([tree, load_table_player("fold", tree.tree_game), tree], hands=0)
    assert a.exact == pytest.approx(b.exact, abs=1e-9) and a.exact[1] < -0.15
    assert all(abs(m - e) <= h for m, h, e in zip(a.sampled, a.half_width, a.exact)), a.lines()


def test_play_command_takes_a_seat_of_the_three_player_dealer(kuhn3):
    """`solverkit play RUN` of a 3-player run at seat 0 of the N-seat dealer, agents at the others."""
    import threading

    from solverkit.poker.dealer import play_agent
    from solverkit.poker.table import TableDealer

    dealer = TableDealer(load_table("kuhn.limit.3p"), 12, seed=4, action_timeout=20, connect_timeout=20)
    out = {}
    threads = [threading.Thread(target=lambda: out.update(result=dealer.run()), daemon=True)]
    for seat in (1, 2):
        player = load_table_player(str(kuhn3))
        threads.append(threading.Thread(target=play_agent, args=(player, "127.0.0.1", dealer.ports[seat]),
                                        kwargs={"seed": seat, "timeout": 20}, daemon=True))
    for t in threads:
        t.start()
    res = CliRunner().invoke(cli, ["play", str(kuhn3), "--connect", f"127.0.0.1:{dealer.ports[0]}", "--seed", "9"])
    for t in threads:
        t.join(20)
    assert res.exit_code == 0, res.output
    assert "match over: 12 hands" in res.output
    result = out["result"]
    assert len(result.seat_chips) == 12 and result.illegal == [0, 0, 0]
    assert all(abs(sum(c)) < 1e-12 for c in result.seat_chips)  # zero-sum, hand by hand


@pytest.mark.parametrize("cls, players", [("LeducTree", 3), ("LeducTree", 4), ("KuhnTree", 5)])
def test_tree_games_rules_and_keys_are_their_tables(cls, players):
    """kuhn_tree / leduc_tree of N players against their ACPC table on random hands, without
    enumerating the tree (3-player Leduc has 1.8M nodes): the same player to act and legal
    actions, the match state's key is the tree's information-set key, and the same payoffs."""
    import solverkit_efg.games as trees
    from solverkit.poker.cards import card_name
    from solverkit.poker.nplayer import deal_cards
    from solverkit.poker.table import AcpcKeys

    kind = getattr(trees, cls)
    game = kind.__new__(kind)  # the rules only: no tree
    game.config, game.num_players, game.ranks = {}, players, players + 1
    gd = tree_table(game)
    name = lambda c: card_name(c, gd.num_suits, gd.num_ranks)  # noqa: E731
    rng = np.random.default_rng(2)
    for d in range(150):
        deal = deal_cards(gd, 11, d)
        holes = tuple(h[0] for h in deal.hole)
        st, state = LimitState(gd), (holes, ("",))
        while not st.finished:
            board = tuple(c for b in deal.board[:st.round] for c in b)
            state = (holes + board, state[1])
            p = st.current_player()
            assert not game.is_terminal(state) and game.player(state) == p
            assert game.legal_actions(state) == st.legal()
            mine = "|".join(name(holes[q]) if q == p else "" for q in range(players))
            line = f"MATCHSTATE:{p}:{d}:{st.betting()}:{mine}" + "".join(f"/{name(c)}" for c in board)
            assert AcpcKeys().key(parse_matchstate(line, gd), gd) == game.infoset_key(state, p)
            letter = str(rng.choice(st.legal()))
            st.apply(letter)
            state = game.child(state, letter)
        final = (holes + tuple(c for b in deal.board[:st.round] for c in b), state[1])
        assert game.is_terminal(final)
        assert st.payoffs(strengths(gd, deal) if st.showdown else None) == pytest.approx(game.returns(final))
