"""The blueprint's exact NashConv on ACPC files the tree engine can enumerate (no-limit under
fcpa, several hole and board cards, 2 and 3 players, lossless and lossy buckets), against
pyspiel.nash_conv of the blueprint's policy written straight onto OpenSpiel's universal_poker
(walked here beside the blueprint's betting tree, bucketing each player's cards: no code of
the tree-engine game or of the blueprint's tree map); games too big to enumerate give NaN at once."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve

pyspiel = pytest.importorskip("pyspiel")

#: the bundled leduc.nolimit's fields
LEDUC_NL = {"numPlayers": 2, "numRounds": 2, "stack": "20 20", "blind": "2 1", "firstPlayer": "2 1", "numSuits": 2,
            "numRanks": 3, "numHoleCards": 1, "numBoardCards": "0 1"}
#: three players, one hole card, one board card (4 cards: every card is dealt)
THREE = {"numPlayers": 3, "numRounds": 2, "stack": "12 12 12", "blind": "1 2 0", "firstPlayer": "3 1", "numSuits": 1,
         "numRanks": 4, "numHoleCards": 1, "numBoardCards": "0 1"}
#: two hole cards each and a two-card board (6 cards)
PAIRS = {"numPlayers": 2, "numRounds": 2, "stack": "12 12", "blind": "2 1", "firstPlayer": "2 1", "numSuits": 2,
         "numRanks": 3, "numHoleCards": 2, "numBoardCards": "0 2"}


def _file(tmp_path, fields, betting="nolimit") -> str:
    path = tmp_path / "g.game"
    path.write_text("\n".join(["GAMEDEF", betting, *(f"{k} = {v}" for k, v in fields.items()), "END GAMEDEF", ""]))
    return str(path)


def _solve(gamedef, iterations, eval_every=10**6, buckets=None, **game):
    cfg = {"game": {"name": "blueprint", "gamedef": gamedef, **game}, "rule": {"name": "rm"},
           "averaging": {"name": "uniform"}, "sampler": {"name": "external"},
           "solver": {"seed": 1, "eval_every": eval_every}}
    if buckets:
        cfg["abstraction"] = buckets
    a = load_config(cfg)
    return a, run_solve(a, iterations=iterations)


def _nash_conv(row, players) -> float:
    """NashConv of a metrics row (two players: the sum of the best responses, exploitability x 2)."""
    return row["nash_conv"] if players > 2 else 2.0 * row["exploitability"]


def _openspiel_nash_conv(game, strategy, fields, abstraction="fcpa", max_raises=0, betting="nolimit") -> float:
    """pyspiel.nash_conv of `strategy` (the blueprint's layout) on universal_poker: each decision
    takes the blueprint's set (the betting node reached beside it, the bucket of the acting
    player's hole cards and the board dealt so far)."""
    params = {"betting": betting, **fields, **({"bettingAbstraction": abstraction} if betting == "nolimit" else {})}
    if max_raises:
        params["maxRaises"] = " ".join([str(max_raises)] * fields["numRounds"])
    os_game = pyspiel.load_game("universal_poker", params)
    bp, pol = game.bp, np.concatenate(strategy)
    t, P, k = bp.tree, fields["numPlayers"], fields["numHoleCards"]
    through = np.cumsum([int(x) for x in fields["numBoardCards"].split()])
    table, stack = {}, [(os_game.new_initial_state(), 0, ())]
    while stack:
        s, n, cards = stack.pop()
        if s.is_terminal():
            assert t.kind[n] == 2, s.history_str()
            continue
        if s.is_chance_node():
            stack.extend((s.child(c), n, cards + (c,)) for c, _ in s.chance_outcomes())
            continue
        p, r, A, acts = int(t.player[n]), int(t.round[n]), int(t.nact[n]), s.legal_actions()
        assert s.current_player() == p and len(acts) == A, s.history_str()
        hand = cards[p * k:(p + 1) * k] + cards[P * k:P * k + int(through[r])]
        b = int(bp.table.bucket_of(r, np.array([hand], dtype=np.int64))[0])
        entry = list(zip(acts, pol[bp.off[n] + b * A:bp.off[n] + (b + 1) * A].tolist()))
        assert table.setdefault(s.information_state_string(), entry) == entry
        stack.extend((s.child(x), int(t.first[n]) + i, cards) for i, x in enumerate(acts))
    return pyspiel.nash_conv(os_game, pyspiel.TabularPolicy(table))


@pytest.mark.parametrize("gamedef, fields, buckets, extra", [
    ("leduc.nolimit", LEDUC_NL, None, {}),
    ("leduc.nolimit", LEDUC_NL, {"name": "ehs", "buckets": [2, 3]}, {}),
    ("file", PAIRS, None, {"max_raises": 1}),
    ("file", THREE, None, {}),
    ("file", THREE, None, {"max_raises": 1}),
    ("file", THREE, None, {"abstraction": "fc"}),
], ids=["leduc-nolimit", "leduc-nolimit-ehs", "two-hole-cards-capped", "three-players", "three-players-capped",
        "three-players-fc"])
def test_nash_conv_is_openspiels(tmp_path, gamedef, fields, buckets, extra):
    """The blueprint's NashConv (the tree engine's, on the file's own tree game) equals
    OpenSpiel's for the same policy to 1e-9, in the solver's metrics."""
    path = _file(tmp_path, fields) if gamedef == "file" else gamedef
    a, r = _solve(path, 300, eval_every=300, buckets=buckets, **extra)
    got = _nash_conv(r.metrics[-1], fields["numPlayers"])
    assert got > 0.01
    want = _openspiel_nash_conv(a.game, r.strategy, fields, extra.get("abstraction", "fcpa"), extra.get("max_raises", 0))
    assert got == pytest.approx(want, rel=1e-9)




def test_a_limit_file_no_named_tree_game_plays_is_exact(tmp_path):
    """A two-player limit file of neither kuhn_tree's nor leduc_tree's rules (blinds, 4 ranks)."""
    fields = {"numPlayers": 2, "numRounds": 2, "blind": "2 1", "raiseSize": "2 4", "firstPlayer": "2 1",
              "maxRaises": "2 2", "numSuits": 2, "numRanks": 4, "numHoleCards": 1, "numBoardCards": "0 1"}
    a, r = _solve(_file(tmp_path, fields, "limit"), 300, eval_every=300)
    assert type(a.game._tree_game()).__name__ == "AcpcTreeGame"
    got = _nash_conv(r.metrics[-1], 2)
    assert got > 0.01
    assert got == pytest.approx(_openspiel_nash_conv(a.game, r.strategy, fields, betting="limit"), rel=1e-9)


def test_lossless_nash_conv_falls_with_iterations(tmp_path):
    a, r = _solve(_file(tmp_path, THREE), 4000, eval_every=200)
    first, last = r.metrics[0]["nash_conv"], r.metrics[-1]["nash_conv"]
    assert math.isfinite(first) and last < 0.3 * first


@pytest.mark.parametrize("gamedef, extra", [
    ({"numPlayers": 2, "numRounds": 1, "blind": "1 2", "raiseSize": "2", "firstPlayer": "1", "maxRaises": "1",
      "numSuits": 4, "numRanks": 13, "numHoleCards": 2, "numBoardCards": "0"}, {}),
    ("leduc13", {"exact_nodes": 100_000}),
    ("leduc.nolimit", {"exact_nodes": 0}),
    # leduc_tree plays these rules (3-player Leduc): "0: never" held only for the file's own tree
    ({"numPlayers": 3, "numRounds": 2, "blind": "1 1 1", "raiseSize": "2 4", "firstPlayer": "1 1",
      "maxRaises": "2 2", "numSuits": 2, "numRanks": 4, "numHoleCards": 1, "numBoardCards": "0 1"},
     {"exact_nodes": 0}),
], ids=["holdem-preflop", "leduc13-over-exact-nodes", "exact-nodes-0", "exact-nodes-0-named-tree"])
def test_games_too_big_to_enumerate_give_nan_at_once(tmp_path, gamedef, extra):
    """Hold'em's deal (over 6 million hole-card deals for two players) is refused on its count,
    a game over [game] exact_nodes on its tree's count, before anything is enumerated."""
    path = _file(tmp_path, gamedef, "limit") if isinstance(gamedef, dict) else gamedef
    a, r = _solve(path, 50, eval_every=50, **extra)
    assert math.isnan(r.metrics[-1]["exploitability"])
    a.game.__dict__.pop("_tree")  # decided again, timed
    start = time.perf_counter()
    assert all(math.isnan(x) for x in a.game.best_response(r.strategy))
    assert time.perf_counter() - start < 1.0
