"""Bet-size lists in the blueprint's N-player no-limit trees (solverkit.blueprint.sizes). Oracle:
"100%, a" on every street is fcpa's fold, call, pot, all-in, whose tree equals OpenSpiel's
universal_poker fcpa tree (tests/test_blueprint.py); amounts of other sizes computed by hand."""

from __future__ import annotations

import pytest

from solverkit.blueprint.nolimit import load_any_table, nolimit_tree
from solverkit.blueprint.sizes import parse_sizes
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError


def _children(tree, betting):
    n = tree.betting.index(betting)
    first = int(tree.first[n])
    return [tree.labels[first + a] for a in range(int(tree.nact[n]))]


@pytest.mark.parametrize("name, cap", [("leduc.nolimit", 0), ("holdem.nolimit.2p.reverse_blinds", 0),
                                       ("holdem.nolimit.3p", 1)])
def test_pot_and_all_in_lists_are_the_fcpa_tree(name, cap):
    gd = load_any_table(name)
    streets = ["preflop", "flop", "turn", "river"] if gd.num_rounds == 4 else ["round0", "round1"]
    lists = parse_sizes({s: {"bet": "100%, a", "raise": "100%, a"} for s in streets}, gd.num_board_cards)
    fcpa, sizes = nolimit_tree(gd, "fcpa", 5_000_000, cap), nolimit_tree(gd, "sizes", 5_000_000, cap, lists)
    assert sizes.betting == fcpa.betting  # node for node, in the same order
    assert [sizes.labels[i] if sizes.labels[i] in "fca" else "p" for i in range(len(sizes.labels))] == fcpa.labels


def test_amounts_and_raise_depth_by_hand():
    """Heads-up no-limit (blinds 50 / 100, stacks 20,000, the small blind acts first preflop):
    opening raise 2.5x the big blind's 100 -> 250, or 100% of the pot after the call (200) -> 300;
    the second raise of the street all-in only; the flop's 50% bet of a 600 pot -> 300 more."""
    gd = load_any_table("holdem.nolimit.2p.reverse_blinds")
    lists = parse_sizes({"preflop": {"raise": "2.5x, 100%", "raise2": "a"}, "flop": {"bet": "50%"}},
                        gd.num_board_cards)
    tree = nolimit_tree(gd, "sizes", 5_000_000, 0, lists)
    assert _children(tree, "") == ["f", "c", "r250", "r300"]
    assert _children(tree, "r300") == ["f", "c", "a"]  # raise depth 2: all-in only
    assert _children(tree, "r300r20000") == ["f", "c"]
    assert _children(tree, "c") == ["c"]  # the big blind's option: no preflop bet list, so check only
    assert _children(tree, "r300c/") == ["c", "r600"]  # 50% of 600 over the 300 each has in
    assert _children(tree, "r300c/r600") == ["f", "c"]  # no flop raise list
    assert _children(tree, "r300c/c") == ["c", "r600"]


def test_a_blueprint_with_size_lists_solves_and_is_evaluated_exactly(tmp_path):
    cfg = {"game": {"name": "blueprint", "gamedef": "leduc.nolimit", "abstraction": "sizes",
                    "sizes": {"round0": {"bet": "50%, a", "raise": "2x, a"}, "round1": {"bet": "100%, a"}}},
           "rule": {"name": "lcfr"}, "averaging": {"name": "linear"}, "sampler": {"name": "external"},
           "solver": {"iterations": 2000, "seed": 3}}
    res = run_solve(load_config(cfg), out=tmp_path / "run")
    first, last = res.metrics[0]["exploitability"], res.metrics[-1]["exploitability"]
    assert 0 < last < first  # exact (the file's tree game under the same lists), and falling


@pytest.mark.parametrize("game, message", [
    ({"abstraction": "sizes"}, "needs \\[game.sizes\\] tables"),
    ({"abstraction": "sizes", "sizes": {"flop": {"bet": "50%"}}}, "unknown street; valid: round0, round1"),
    ({"abstraction": "sizes", "sizes": {"round0": {"check": "50%"}}}, "unknown key; valid: bet, raise, raise2"),
    ({"abstraction": "sizes", "sizes": {"round0": {"bet": "50"}}}, "round0\\] bet: .*valid forms"),
    ({"abstraction": "sizes", "sizes": {"round0": {"bet": "2x"}}}, "round0\\] bet"),
    ({"sizes": {"round0": {"bet": "50%"}}}, "given with abstraction = 'fcpa'"),
    ({"gamedef": "leduc", "abstraction": "sizes", "sizes": {"round0": {"bet": "50%"}}}, "limit game"),
])
def test_bad_size_lists_are_refused_by_name(game, message):
    table = {"name": "blueprint", "gamedef": "leduc.nolimit", **game}
    with pytest.raises(ConfigError, match=message):
        game = load_config({"game": table, "rule": {"name": "lcfr"}, "averaging": {"name": "linear"},
                            "sampler": {"name": "external"}}).game
        assert game.bp is not None
