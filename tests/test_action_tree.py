"""Betting (action) trees as data (solverkit.poker.action_tree, issue 25 step 1).

Limit trees equal build_betting_tree's arrays; fcpa no-limit trees equal OpenSpiel's
universal_poker (histories, who acts, legal actions, chips); size-list trees are checked by hand
on small spots (histories, raise cap, donk sizes, all-in thresholds) and for chip-exactness;
count_nodes equals the built tree's counts; nodes are numbered by round, then preorder.

Over 500 lines on purpose: one data structure checked against three independent
references (the limit builder, OpenSpiel, hand-worked spots); each section is one reference.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from solverkit.errors import BetSizeError, ConfigError, SolverkitError
from solverkit.poker.action_tree import (ALLIN_K, CALL_K, DEAL_K, FOLD_K, RAISE_K, build_action_tree, count_nodes,
                                         limit_rules, nolimit_rules, size_abstraction, spot_rules, to_betting_tree)
from solverkit.poker.betting import DECISION, FOLD, ROUND_END, SHOWDOWN, build_betting_tree
from solverkit.poker.gamedef import GameDef, bundled_names, load_gamedef
from solverkit.poker.gamedef_nolimit import load_nolimit_gamedef, parse_nolimit_gamedef

BETTING_FIELDS = ("round", "kind", "player", "spent", "num_actions", "actions", "children", "parent")


def assert_same_betting_tree(a, b):
    for name in BETTING_FIELDS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.history == b.history


def limit_gamedef(blind, raise_size, first, caps) -> GameDef:
    rounds = len(raise_size)
    return GameDef(num_rounds=rounds, blind=blind, raise_size=raise_size, first_player=first, max_raises=caps,
                   num_suits=2, num_ranks=4, num_hole_cards=1, num_board_cards=(0,) + (1,) * (rounds - 1)).validate()


def nolimit_text(stack, blind, first, board, caps=None, ranks=4, suits=2) -> str:
    text = (f"GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = {len(board.split())}\nstack = {stack}\n"
            f"blind = {blind}\nfirstPlayer = {first}\nnumSuits = {suits}\nnumRanks = {ranks}\nnumHoleCards = 1\n"
            f"numBoardCards = {board}\n")
    return text + (f"maxRaises = {caps}\n" if caps else "") + "END GAMEDEF\n"


def edges(tree, n):
    """[(kind, amount, child)] of node n."""
    lo, hi = int(tree.act_start[n]), int(tree.act_end[n])
    return [(int(k), int(a), int(c)) for k, a, c in zip(tree.act_kind[lo:hi], tree.act_amount[lo:hi],
                                                          tree.act_child[lo:hi])]


def by_history(tree):
    return {h: n for n, h in enumerate(tree.history)}


# --- limit trees ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_limit_trees_equal_build_betting_tree(name):
    gd = load_gamedef(name)
    tree = build_action_tree(limit_rules(gd))
    assert_same_betting_tree(to_betting_tree(tree), build_betting_tree(gd))
    assert tree.counts() == count_nodes(limit_rules(gd))


LIMIT_GRID = [
    (blind, first, caps)
    for blind in ((1, 1), (2, 1), (1, 2), (0, 3), (5, 0))
    for first in ((0, 0), (1, 0), (0, 1), (1, 1))
    for caps in ((0, 0), (1, 3), (2, 1), (3, 2), (0, 3))
]


@pytest.mark.parametrize("blind, first, caps", LIMIT_GRID)
def test_limit_grid_equals_build_betting_tree(blind, first, caps):
    gd = limit_gamedef(blind, (2, 4), first, caps)
    tree = build_action_tree(limit_rules(gd))
    assert_same_betting_tree(to_betting_tree(tree), build_betting_tree(gd))
    one_round = limit_gamedef(blind, (3,), first[:1], caps[:1])
    assert_same_betting_tree(to_betting_tree(build_action_tree(limit_rules(one_round))), build_betting_tree(one_round))


def test_to_betting_tree_of_a_no_limit_tree_keeps_every_action_and_stakes_the_matched_chips():
    tree = build_action_tree(nolimit_rules(parse_nolimit_gamedef(nolimit_text("20 30", "1 2", "2 1", "0 1"))))
    bet = to_betting_tree(tree)
    assert bet.children.shape[1] == max(3, int(tree.num_actions[tree.kind == 0].max()))
    for n in range(tree.num_nodes):
        kids = tree.children(n)
        assert list(bet.children[n, : len(kids)]) == list(kids)
        if tree.kind[n] == 0:
            assert list(bet.actions[n, : len(kids)]) == list(tree.act_kind[tree.act_start[n]: tree.act_end[n]])
            assert list(bet.amounts[n, : len(kids)]) == list(tree.act_amount[tree.act_start[n]: tree.act_end[n]])
    show = tree.kind == 2
    # uneven stacks: some showdown has an unmatched all-in, and pays the matched chips only
    assert np.any(tree.spent[show, 0] != tree.spent[show, 1])
    assert np.all(bet.spent[show, 0] == bet.spent[show, 1])
    assert np.all(bet.spent[show, 0] == tree.spent[show].min(axis=1))


# --- fcpa against OpenSpiel -------------------------------------------------------------------

ACPC_STATE = re.compile(r"ACPC State: STATE:\d+:([^:]*):")
SPENT = re.compile(r"Spent: \[P0: (\d+)\s+P1: (\d+)\s+\]")

FCPA_GAMES = [
    ("20 20", "1 2", "2", "0", None),
    ("20 35", "1 2", "2 1", "0 1", None),  # uneven stacks: pot raise and all-in both above the short stack
    ("20 35", "2 1", "1 2", "0 1", None),
    ("35 20", "1 2", "2 1 1", "0 1 1", None),  # runs out two boards after an early all-in
    ("12 30", "1 1", "1 2", "0 1", None),  # equal blinds
    ("3 5", "0 2", "1 2", "0 1", None),  # a zero blind, tiny stacks
    ("9 7", "2 2", "2 2", "0 1", None),
    ("40 40", "1 2", "2 1", "0 1", "1 0"),  # maxRaises
    ("100 250", "1 2", "2 1 1", "0 1 1", None),
    ("5 5", "1 2", "2 1", "0 1", None),  # the big blind's pot raise (to 5) is all in: no separate all-in
    ("6 9", "1 2", "1 2", "0 1", None),  # the small blind's pot raise (to 6) is all in
]


def openspiel_fcpa(text):
    """{ACPC betting string: (player, legal actions, spent) or ("T", spent)} of universal_poker
    with bettingAbstraction=fcpa, one fixed deal (the first chance outcome each time)."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text)
    params = dict(game.get_parameters())
    params["bettingAbstraction"] = "fcpa"
    game = pyspiel.load_game("universal_poker", params)
    out = {}

    def visit(state):
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        shown = str(state)
        history = ACPC_STATE.search(shown).group(1)
        spent = tuple(int(x) for x in SPENT.search(shown).groups())
        if state.is_terminal():
            out[history] = ("T", spent)
            return
        out[history] = (state.current_player(), tuple(state.legal_actions()), spent)
        for action in state.legal_actions():
            visit(state.child(action))

    visit(game.new_initial_state())
    return out


def solverkit_fcpa(tree):
    """The same map from our tree (fcpa edge kinds are OpenSpiel's action ids)."""
    out = {}
    for n in range(tree.num_nodes):
        spent = tuple(int(x) for x in tree.spent[n])
        if tree.kind[n] == DECISION:
            out[tree.history[n]] = (int(tree.player[n]), tuple(k for k, _, _ in edges(tree, n)), spent)
        elif tree.kind[n] in (FOLD, SHOWDOWN):
            out[tree.history[n]] = ("T", spent)
    return out


@pytest.mark.parametrize("stack, blind, first, board, caps", FCPA_GAMES)
def test_fcpa_trees_equal_openspiel(stack, blind, first, board, caps):
    text = nolimit_text(stack, blind, first, board, caps)
    rules = nolimit_rules(parse_nolimit_gamedef(text))
    tree = build_action_tree(rules)
    theirs = openspiel_fcpa(text)
    assert solverkit_fcpa(tree) == theirs
    assert tree.counts() == count_nodes(rules)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blinds=st.sampled_from([(1, 2), (2, 1), (1, 1), (0, 2), (2, 0), (3, 5)]), stacks=st.tuples(st.integers(0, 150),
                                                                                                 st.integers(0, 150)),
       first=st.lists(st.integers(1, 2), min_size=3, max_size=3), rounds=st.integers(1, 3),
       caps=st.one_of(st.none(), st.lists(st.integers(0, 4), min_size=3, max_size=3)))
def test_fcpa_random_games_equal_openspiel(blinds, stacks, first, rounds, caps):
    stacks = tuple(max(blinds) + 1 + s for s in stacks)
    text = nolimit_text(f"{stacks[0]} {stacks[1]}", f"{blinds[0]} {blinds[1]}", " ".join(map(str, first[:rounds])),
                        " ".join(["0"] + ["1"] * (rounds - 1)), " ".join(map(str, caps[:rounds])) if caps else None)
    rules = nolimit_rules(parse_nolimit_gamedef(text))
    assume(sum(count_nodes(rules)) <= 3000)
    assert solverkit_fcpa(build_action_tree(rules)) == openspiel_fcpa(text)


def test_fcpa_uneven_stacks_offer_pot_raise_and_allin_above_the_short_stack():
    """Player 1 (35 chips, big blind) first with blinds 1 2: pot raise to 5 (3 in the pot + 2 x 2 - 2
    of his own), all-in to 35; after a raise to
    35 the 20-chip player calls for less: spent (20, 35), and the board runs out."""
    tree = build_action_tree(nolimit_rules(parse_nolimit_gamedef(nolimit_text("20 35", "1 2", "2 1 1", "0 1 1"))))
    at = by_history(tree)
    assert [(k, a) for k, a, _ in edges(tree, at[""])] == [(CALL_K, 2), (RAISE_K, 5), (ALLIN_K, 35)]
    call = at["r35c"]
    assert tree.kind[call] == ROUND_END and tree.runout[call] and tree.allin[call]
    assert tuple(tree.spent[call]) == (20, 35)
    assert tree.kind[at["r35c/"]] == ROUND_END and tree.kind[at["r35c//"]] == SHOWDOWN


# --- size lists -------------------------------------------------------------------------------


def river_spot(bet, raise_, pot=100, stack=100, **options):
    sizes = [None, None, None, {"bet": bet, "raise": raise_}]
    return spot_rules(pot, stack, size_abstraction(sizes, 4, **options), start_round=3)


def test_river_spot_histories_by_hand():
    """Pot 100, 100 behind, bet "50%, a", raise "a": a bet of 50 (to 100) or all-in (to 150)."""
    tree = build_action_tree(river_spot("50%, a", "a"))
    expected = {"", "c", "cc", "cr100", "cr100f", "cr100c", "cr100r150", "cr100r150f", "cr100r150c", "cr150",
                "cr150f", "cr150c", "r100", "r100f", "r100c", "r100r150", "r100r150f", "r100r150c", "r150",
                "r150f", "r150c"}
    assert set(tree.history) == expected and tree.num_nodes == len(expected)
    at = by_history(tree)
    assert [(k, a) for k, a, _ in edges(tree, at[""])] == [(CALL_K, 50), (RAISE_K, 100), (ALLIN_K, 150)]
    assert [(k, a) for k, a, _ in edges(tree, at["cr100"])] == [(FOLD_K, 50), (CALL_K, 100), (ALLIN_K, 150)]
    assert tree.kind[at["cr100r150c"]] == SHOWDOWN and tuple(tree.spent[at["cr100r150c"]]) == (150, 150)
    assert tree.kind[at["r150f"]] == FOLD and tree.player[at["r150f"]] == 1
    assert tree.counts() == (0, 0, 0, 21)


@pytest.mark.parametrize("limit", [None, 0, 1, 3])
def test_raise_limit_caps_raises_after_the_opening_bet(limit):
    tree = build_action_tree(river_spot("50%", "100%", stack=1000, raise_limit=limit))
    bets = [h.count("r") for h in tree.history]
    if limit is None:
        assert max(bets) >= 3  # pot raises go on to the all-in
        assert any(tree.act_kind == ALLIN_K)
    else:
        assert max(bets) == limit + 1
    for n in tree.decision_nodes():
        raises = [k for k, _, _ in edges(tree, n) if k in (RAISE_K, ALLIN_K)]
        if limit is not None and tree.history[n].count("r") == limit + 1:
            assert raises == []
    at = by_history(tree)
    if limit != 0:  # pot 100: bet 50 (to 100), then a pot raise: call 50, raise 200 more (to 300)
        assert "r100r300" in at


def test_donk_sizes_only_lead_into_the_last_bettor():
    """Turn and river; river donk "30%" differs from bet "100%". The first actor (player 0)
    donks on the river only after calling player 1's turn bet."""
    sizes = [None, None, {"bet": "50%", "raise": ""}, {"bet": "100%", "raise": "", "donk": "30%"}]
    tree = build_action_tree(spot_rules(100, 1000, size_abstraction(sizes, 4), start_round=2))
    at = by_history(tree)
    amounts = {h: [a for k, a, _ in edges(tree, at[h]) if k == RAISE_K] for h in ("cr100c/", "r100c/", "cc/",
                                                                                   "cr100c/c")}
    assert amounts["cr100c/"] == [100 + 60]  # donk: 30% of 200
    assert amounts["r100c/"] == [100 + 200]  # player 0 bet the turn and was called: bet sizes
    assert amounts["cc/"] == [50 + 100]
    assert amounts["cr100c/c"] == [100 + 200]  # player 1 never donks
    no_donk = [None, None, {"bet": "50%", "raise": ""}, {"bet": "100%", "raise": ""}]
    plain = build_action_tree(spot_rules(100, 1000, size_abstraction(no_donk, 4), start_round=2))
    node = by_history(plain)["cr100c/"]
    assert [a for k, a, _ in edges(plain, node) if k == RAISE_K] == [300]  # no donk sizes: the bet sizes


def test_acpc_preflop_sizes_count_blinds_as_bets():
    """Blinds 1 2, player 0 (small blind) first: a pot raise is to 6, "1c" is raised to the
    minimum (to 4, a big blind more), the big blind's pot bet after a limp is to 6."""
    text = nolimit_text("50 50", "1 2", "1 2", "0 1")
    sizes = [{"bet": "100%", "raise": "100%, 1c"}, {"bet": "50%", "raise": ""}]
    tree = build_action_tree(nolimit_rules(parse_nolimit_gamedef(text), size_abstraction(sizes, 2)))
    at = by_history(tree)
    assert [(k, a) for k, a, _ in edges(tree, at[""])] == [(FOLD_K, 1), (CALL_K, 2), (RAISE_K, 4), (RAISE_K, 6)]
    assert [a for k, a, _ in edges(tree, at["c"]) if k == RAISE_K] == [6]
    assert [a for k, a, _ in edges(tree, at["r6"]) if k == RAISE_K] == [10, 18]  # min raise: 4 more; pot: 12 more


@pytest.mark.parametrize("option, value, expected", [
    ("allin_commit_threshold", None, [100]), ("allin_commit_threshold", 0.67, [150]),
    ("allin_commit_threshold", 1.0, [100]),  # 100 in is not above 1.0 x 100
    ("force_allin_threshold", 0.25, [150]), ("force_allin_threshold", 0.2, [100]),
    ("add_allin_threshold", 1.0, [100, 150]), ("add_allin_threshold", 0.99, [100]),
])
def test_allin_thresholds(option, value, expected):
    """Pot 100, 100 behind, bet "50%" (to 100): TexasSolver's commit rule (100 in > 0.67 x 100),
    postflop-solver's force rule (50 behind <= 0.25 x the 200 pot after a call) and add rule
    (the all-in, 100 more, <= 1.0 x the pot)."""
    tree = build_action_tree(river_spot("50%", "", **{option: value}))
    assert [a for k, a, _ in edges(tree, 0) if k in (RAISE_K, ALLIN_K)] == expected


# --- properties of every tree -----------------------------------------------------------------


def sample_trees():
    hold = build_action_tree(limit_rules(load_gamedef("holdem2r")))
    fcpa = build_action_tree(nolimit_rules(parse_nolimit_gamedef(nolimit_text("35 20", "1 2", "2 1 1", "0 1 1"))))
    sz = {"bet": "33%, 2e, a", "raise": "2.5x, 60%, a", "donk": "20%"}
    spot = build_action_tree(spot_rules(30, 97, size_abstraction([None, sz, sz, sz], 4, raise_limit=2), 1))
    return [hold, fcpa, spot]


def test_numbering_by_round_then_preorder():
    """Rounds ascend; within a round parents precede children; every subtree is one contiguous
    range of node ids in every round (what the kernels' per-round passes rely on)."""
    for tree in sample_trees():
        n = tree.num_nodes
        assert np.all(np.diff(tree.round) >= 0)
        for v in range(1, n):
            p = tree.parent[v]
            assert p >= 0 and (tree.round[p] < tree.round[v] or p < v)
            assert v in set(tree.children(p).tolist())
        # descendants' id ranges per round, bottom-up
        lo = {}
        for v in range(n - 1, -1, -1):
            mine = {int(tree.round[v]): [v]}
            for c in tree.children(v):
                for r, ids in lo.pop(int(c)).items():
                    mine.setdefault(r, []).extend(ids)
            for r, ids in mine.items():
                assert max(ids) - min(ids) + 1 == len(ids), (tree.history[v], r)
            lo[v] = mine


def test_edges_are_chip_exact_and_distinct():
    """Each child's chips follow from its action; bets are above the bet faced, below the stack,
    distinct and ascending; fold and call come first; terminals have no edges."""
    for tree in sample_trees():
        stack = tree.rules.stack
        for n in range(tree.num_nodes):
            es = edges(tree, n)
            spent = tree.spent[n]
            if tree.kind[n] in (FOLD, SHOWDOWN):
                assert es == []
                continue
            if tree.kind[n] == ROUND_END:
                assert [(k, a) for k, a, _ in es] == [(DEAL_K, 0)]
                assert tree.round[es[0][2]] == tree.round[n] + 1 and np.array_equal(tree.spent[es[0][2]], spent)
                continue
            p, top = int(tree.player[n]), int(spent.max())
            kinds = [k for k, _, _ in es]
            assert kinds == sorted(kinds) and kinds.count(CALL_K) == 1
            assert (FOLD_K in kinds) == (spent[p] < top)
            bets = [a for k, a, _ in es if k in (RAISE_K, ALLIN_K)]
            assert bets == sorted(set(bets)) and all(a > top for a in bets)
            if stack is not None:
                assert all(a <= stack[p] for a in bets)
            for kind, amount, child in es:
                new = spent.copy()
                new[p] = amount
                assert np.array_equal(tree.spent[child], new) or kind == FOLD_K
                if kind == FOLD_K:
                    assert tree.kind[child] == FOLD and tree.player[child] == p and amount == spent[p]
                if kind == CALL_K:
                    assert amount == (min(top, stack[p]) if stack is not None else top)


def test_runout_chains_deal_every_remaining_board_without_bets():
    for tree in sample_trees()[1:]:
        last = tree.rules.num_rounds - 1
        for n in np.flatnonzero(tree.runout):
            assert tree.allin[n] and tree.kind[n] in (ROUND_END, SHOWDOWN)
            assert (tree.kind[n] == SHOWDOWN) == (tree.round[n] == last)
            if tree.kind[n] == ROUND_END:
                child = tree.children(n)[0]
                assert tree.runout[child] and tree.history[child] == tree.history[n] + "/"
        # every all-in call before the last round starts a run-out; decisions never see one called
        assert not np.any(tree.allin[tree.kind == DECISION] & (tree.spent[tree.kind == DECISION, 0]
                                                               == tree.spent[tree.kind == DECISION, 1]))


# --- counting without building ----------------------------------------------------------------

SIZE_CHOICES = ["", "a", "50%", "33%, 75%", "100%, a", "2e", "e, 150%", "40c", "25%, 60%, a"]
RAISE_CHOICES = ["", "a", "60%", "2.5x", "100%, a", "3x, a", "20c2r", "e"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pot=st.integers(1, 60), stack=st.integers(1, 400), start=st.integers(1, 3),
       bets=st.lists(st.sampled_from(SIZE_CHOICES), min_size=3, max_size=3),
       raises=st.lists(st.sampled_from(RAISE_CHOICES), min_size=3, max_size=3),
       donk=st.sampled_from([None, "30%", "a"]), limit=st.sampled_from([None, 0, 1, 2]),
       commit=st.sampled_from([None, 0.5, 0.9]), force=st.sampled_from([0.0, 0.15]),
       add=st.sampled_from([0.0, 1.5]))
def test_count_nodes_equals_built_spot_trees(pot, stack, start, bets, raises, donk, limit, commit, force, add):
    sizes = [None] + [{"bet": b, "raise": r, "donk": donk} for b, r in zip(bets, raises)]
    abst = size_abstraction(sizes, 4, raise_limit=limit, allin_commit_threshold=commit, force_allin_threshold=force,
                            add_allin_threshold=add)
    rules = spot_rules(2 * pot, stack, abst, start_round=start)
    counts = count_nodes(rules)
    assume(sum(counts) <= 30_000)  # keep the suite fast
    assert build_action_tree(rules).counts() == counts


@settings(max_examples=25, deadline=None)
@given(stacks=st.tuples(st.integers(3, 120), st.integers(3, 120)), blinds=st.sampled_from([(1, 2), (2, 1), (1, 1),
                                                                                          (0, 2)]),
       first=st.lists(st.integers(1, 2), min_size=3, max_size=3), rounds=st.integers(1, 3),
       caps=st.one_of(st.none(), st.lists(st.integers(0, 3), min_size=3, max_size=3)))
def test_count_nodes_equals_built_fcpa_trees(stacks, blinds, first, rounds, caps):
    if min(stacks) <= max(blinds):
        return
    text = nolimit_text(f"{stacks[0]} {stacks[1]}", f"{blinds[0]} {blinds[1]}", " ".join(map(str, first[:rounds])),
                        " ".join(["0"] + ["1"] * (rounds - 1)), " ".join(map(str, caps[:rounds])) if caps else None)
    rules = nolimit_rules(parse_nolimit_gamedef(text))
    assert build_action_tree(rules).counts() == count_nodes(rules)


def test_too_large_trees_are_refused_before_building():
    rules = river_spot("50%, a", "a")
    with pytest.raises(ConfigError, match=r"21 nodes .*more than the 20 allowed"):
        build_action_tree(rules, max_nodes=20)
    assert build_action_tree(rules, max_nodes=21).num_nodes == 21


# --- bad input --------------------------------------------------------------------------------


def test_an_odd_pot_keeps_its_dead_chip_in_the_sizes():
    """Pot 101: each player has 50 in, the 101st chip is nobody's, and a pot-sized bet is 101."""
    rules = spot_rules(101, 500, size_abstraction([{"bet": "100%, 50%"}], 1), 0, 1)
    assert rules.spent == (50, 50) and rules.dead == 1
    tree = build_action_tree(rules)
    root = tree.act_amount[tree.act_start[0]: tree.act_end[0]]
    assert list(root) == [50, 50 + 51, 50 + 101]  # check, 50% of 101 rounded half away, 100%


@pytest.mark.parametrize("make, error, match", [
    (lambda: spot_rules(100, 0, size_abstraction([{}], 1), 0, 1), ConfigError, "stack = 0"),
    (lambda: spot_rules(100, 10, size_abstraction([{}], 1), "0", 1), ConfigError, "start_round = '0'"),
    (lambda: spot_rules(100, 10, size_abstraction([{}], 1), 1, 1), ConfigError, "start round among them"),
    (lambda: size_abstraction([{"bet": "50%", "rase": "a"}], 1), BetSizeError, "key 'rase'"),
    (lambda: size_abstraction([{"bet": "50"}], 1), BetSizeError, "bet size 1 '50'"),
    (lambda: size_abstraction([{}], 1, raise_limit=-1), ConfigError, "raise_limit = -1"),
    (lambda: size_abstraction([{}], 1, allin_commit_threshold=0), ConfigError, "allin_commit_threshold = 0"),
    (lambda: size_abstraction([{}], 1, force_allin_threshold=float("nan")), ConfigError, "force_allin_threshold = nan"),
    (lambda: size_abstraction([{}, {}], 1), BetSizeError, "one entry per round"),
    (lambda: spot_rules(100, 100, "fcpa", 0, 1), ConfigError, "a spot needs bet-size lists"),
    (lambda: nolimit_rules(parse_nolimit_gamedef(nolimit_text("9 9", "1 2", "1", "0")), "limit"), ConfigError,
     "abstraction 'limit' for a no-limit game: valid: fcpa, or bet-size lists"),
])
def test_bad_rules_are_refused_with_solverkit_errors(make, error, match):
    with pytest.raises(error, match=match) as info:
        make()
    assert isinstance(info.value, SolverkitError) and "\n" not in str(info.value)


@pytest.mark.parametrize("edit, match", [
    (lambda t: t.replace("stack = 20 20\n", ""), "missing field stack"),
    (lambda t: t.replace("nolimit", "limit"), "expected a line 'nolimit'"),
    (lambda t: t.replace("stack = 20 20", "stack = 2 20"), r"stack = \[2, 20\]: each player's stack must exceed"),
    (lambda t: t.replace("numRounds = 2", "numRounds = 2\nraiseSize = 2 4"), "raiseSize applies to limit games"),
    (lambda t: t.replace("blind = 1 2", "blind = 1 x"), "'x' is not one"),
    (lambda t: t.replace("numPlayers = 2", "numPlayers = 3"), "only 2-player games"),
    (lambda t: t.replace("END GAMEDEF\n", ""), "missing END GAMEDEF"),
    (lambda t: t.replace("blind = 1 2", "blind = 0 0"), "at least one positive"),
    (lambda t: t.replace("stack = 20 20", "stack = 20 " + "9" * 5000), "expected integers in 0..2147483647"),
    (lambda t: t.replace("stack = 20 20", "stack = 20 2147483648"), "'2147483648' is out of range"),
])
def test_bad_nolimit_gamedefs_name_the_value(edit, match):
    with pytest.raises(ConfigError, match=match):
        parse_nolimit_gamedef(edit(nolimit_text("20 20", "1 2", "2 1", "0 1")))


def test_nolimit_gamedef_fields(tmp_path):
    path = tmp_path / "g.game"
    path.write_text(nolimit_text("20", "1 2", "2 1 1", "0 1 1", caps="3 2 1"))
    gd = load_nolimit_gamedef(str(path))
    assert (gd.stack, gd.blind, gd.first_player, gd.max_raises, gd.num_rounds) == ((20, 20), (1, 2), (1, 0, 0),
                                                                                 (3, 2, 1), 3)
    with pytest.raises(ConfigError, match="not found"):
        load_nolimit_gamedef(str(tmp_path / "missing.game"))
    with pytest.raises(ConfigError, match="is not a regular file"):  # a directory was 'not found'
        load_nolimit_gamedef(str(tmp_path))


# --- size lists against a port of postflop-solver's tree builder ------------------------------


def postflop_solver_histories(pot, stack, streets, start, add, force):
    """Decision and terminal betting strings of postflop-solver's ActionTree (src/action_tree.rs at
    commit 20d0dc3: push_actions and BuildTreeInfo, ported line by line without bet_sizes.py; no
    merging), for a spot whose ``streets[r]`` give both players' StreetSizes. Chips: ``stk`` is
    what each has behind, ``amount`` the matched chips beyond the pot's half (node.amount)."""
    half, out = pot // 2, set()

    def rnd(x):
        return int(np.floor(x + 0.5))  # f64::round on non-negative values

    def street_end(r, allin, oop_call, stk, amount, hist):
        if r == 3:
            out.add(hist)
        elif allin:
            out.add(hist + "/" * (3 - r))  # the remaining boards run out to a showdown
        else:
            decide(r + 1, 0, "chance", 0, False, oop_call, stk, 0, amount, hist + "/")

    def decide(r, player, prev, num_bets, allin, oop_call, stk, prev_amount, amount, hist):
        out.add(hist)
        opp = 1 - player
        to_call = stk[player] - stk[opp]
        pot_now = pot + 2 * (amount + to_call)
        max_amount = stk[opp] + prev_amount
        min_amount = min(max(prev_amount + to_call, 1), max_amount)
        spr = stk[opp] / pot_now

        def geometric(n, cap):
            return rnd(pot_now * min(((2.0 * spr + 1.0) ** (1.0 / n) - 1.0) / 2.0, cap))

        mine, remaining = streets[r][player], 4 - r
        acts = []
        if streets[r][0].donk is not None and prev == "chance" and oop_call:
            acts.append(("check", 0))
            for size in streets[r][0].donk:
                acts.append(_ps_bet(size, "bet", pot_now, geometric, remaining, max_amount))
            if max_amount <= rnd(pot_now * add):
                acts.append(("allin", max_amount))
        elif prev in ("none", "check", "chance"):
            acts.append(("check", 0))
            for size in mine.bet:
                acts.append(_ps_bet(size, "bet", pot_now, geometric, remaining, max_amount))
            if max_amount <= rnd(pot_now * add):
                acts.append(("allin", max_amount))
        else:
            acts += [("fold", 0), ("call", 0)]
            if not allin:
                for size in mine.raise_:
                    if size.kind == "pot":
                        acts.append(("raise", prev_amount + rnd(pot_now * size.value)))
                    elif size.kind == "prev":
                        acts.append(("raise", rnd(prev_amount * size.value)))
                    elif size.kind == "chips":
                        if size.raise_cap == 0 or num_bets <= size.raise_cap:
                            acts.append(("raise", prev_amount + int(size.value)))
                    elif size.kind == "geometric":
                        n = max((size.streets or remaining) - num_bets + 1, 1)
                        acts.append(("raise", prev_amount + geometric(n, size.value)))
                    else:
                        acts.append(("allin", max_amount))
                if max_amount <= prev_amount + rnd(pot_now * add):
                    acts.append(("allin", max_amount))
        done = set()
        for kind, a in acts:
            if kind in ("bet", "raise"):
                a = min(max(a, min_amount), max_amount)
                if max_amount <= a + rnd((pot_now + 2 * (a - prev_amount)) * force):
                    kind, a = "allin", max_amount
            done.add((kind, a))
        for kind, a in done:
            if kind == "fold":
                out.add(hist + "f")
            elif kind == "check" and player == 0:
                decide(r, 1, "check", num_bets, allin, False, stk, prev_amount, amount, hist + "c")
            elif kind == "check":
                street_end(r, allin, False, stk, amount, hist + "c")
            elif kind == "call":
                street_end(r, allin, player == 0, (stk[opp], stk[opp]), amount + to_call, hist + "c")
            else:
                new = list(stk)
                new[player] -= a - prev_amount + to_call
                decide(r, opp, kind, num_bets + 1, kind == "allin", oop_call, tuple(new), a, amount + to_call,
                       hist + f"r{half + stack - new[player]}")

    decide(start, 0, "none", 0, False, False, (stack, stack), 0, 0, "")
    return out


def _ps_bet(size, kind, pot_now, geometric, remaining, max_amount):
    """One bet (or donk) size as postflop-solver's push_actions computes it, before clamping."""
    if size.kind == "pot":
        return (kind, int(np.floor(pot_now * size.value + 0.5)))
    if size.kind == "chips":
        return (kind, int(size.value))
    if size.kind == "geometric":
        return (kind, geometric(size.streets or remaining, size.value))
    return ("allin", max_amount)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pot=st.integers(1, 60), stack=st.integers(1, 300), start=st.integers(1, 3),
       bets=st.lists(st.sampled_from(SIZE_CHOICES), min_size=3, max_size=3),
       raises=st.lists(st.sampled_from(RAISE_CHOICES), min_size=3, max_size=3),
       donk=st.sampled_from([None, "30%", "a", "2e"]), force=st.sampled_from([0.0, 0.15, 0.3]),
       add=st.sampled_from([0.0, 1.5]))
def test_size_list_spots_equal_postflop_solvers_tree(pot, stack, start, bets, raises, donk, force, add):
    sizes = [None] + [{"bet": b, "raise": r, "donk": donk} for b, r in zip(bets, raises)]
    abst = size_abstraction(sizes, 4, force_allin_threshold=force, add_allin_threshold=add)
    rules = spot_rules(2 * pot, stack, abst, start_round=start)
    assume(sum(count_nodes(rules)) <= 30_000)
    tree = build_action_tree(rules)
    ours = {h for h, k in zip(tree.history, tree.kind) if k != ROUND_END}
    assert ours == postflop_solver_histories(2 * pot, stack, abst.streets, start, add, force)


@pytest.mark.parametrize("rules", [
    lambda: spot_rules(100, 230, size_abstraction([{"bet": "50%, a", "raise": "100%"}] * 3, 3), 0, 3),
    lambda: spot_rules(31, 97, size_abstraction([None, {"bet": "e", "raise": "2.5x"}, {"bet": "75%"}, {}], 4,
                                                raise_limit=2), 1),
    lambda: nolimit_rules(parse_nolimit_gamedef(nolimit_text("20 30", "1 2", "2 1", "0 1"))),
], ids=["spot-flop", "spot-odd-pot", "fcpa-uneven-stacks"])
def test_betting_counts_are_the_built_trees(rules):
    """betting_counts (no tree built) = the built tree's decisions, actions, nodes and round entries
    per round, run-outs after an all-in included."""
    from solverkit.poker.action_tree import betting_counts

    r = rules()
    tree = build_action_tree(r)
    got = betting_counts(r)
    R = r.num_rounds
    dec = tree.kind == 0
    assert got.decision_nodes == [int(np.count_nonzero(dec & (tree.round == i))) for i in range(R)]
    assert got.decision_values == [int(tree.num_actions[dec & (tree.round == i)].sum()) for i in range(R)]
    assert got.num_nodes == tree.num_nodes
    ends = [int(np.count_nonzero((tree.kind == 3) & (tree.round == i - 1))) if i else 0 for i in range(R)]
    ends[r.start_round] += 1
    assert got.sequences_to_round == ends
