"""``[solver] average_pass``: under alternating updates, whose pass adds a player's strategy to
its average. "own" (the strategy it played, in its own pass) is the convention of OpenSpiel and
of the DCFR / DDCFR / PDCFR+ code; checked here against the DDCFR authors' published curves
(their repository's results/*/data.csv, digits as printed there), an independent implementation."""

from pathlib import Path

import pytest

from solverkit.core.checkpoint import CheckpointError, check_resume
from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.errors import ConfigError

SMALL_MATRIX = Path(__file__).resolve().parents[1] / "configs" / "ddcfr_paper" / "small_matrix.csv"

#: (game, preset) -> {iteration: exploitability} from the DDCFR authors' results (NashConv / 2)
DDCFR_CURVES = {
    ("kuhn_tree", "cfr"): {1: 0.45833333333333326, 10: 0.0686987938171576, 100: 0.008225977315915622},
    ("kuhn_tree", "cfr_plus"): {10: 0.032687090668344715, 100: 0.0011944041011116013},
    ("kuhn_tree", "dcfr"): {10: 0.022778783925763657, 100: 0.0016663419703409899},
    ("leduc_tree", "cfr_plus"): {1: 2.373611111111111, 10: 0.6104389015904067},
    ("matrix", "cfr"): {1: 3000.2666666666664, 10: 300.59287499970566, 100: 30.653053518302944},
    ("matrix", "dcfr"): {10: 8.454427256560308, 100: 0.6155461682856631},
}


def _solver(game, preset, average_pass="own", **solver):
    table = {"name": "matrix_file", "path": str(SMALL_MATRIX)} if game == "matrix" else game
    return Solver(load_config({"preset": preset, "game": table,
                               "solver": {"eval_every": 0, "average_pass": average_pass, **solver}}))


def _curve(s, iterations):
    out = {}
    for t in sorted(iterations):
        s.step(t - s.iteration)
        out[t] = s.evaluate()["exploitability"]
    return out


@pytest.mark.parametrize("game, preset", list(DDCFR_CURVES))
def test_own_pass_reproduces_the_ddcfr_authors_curves(game, preset):
    want = DDCFR_CURVES[(game, preset)]
    got = _curve(_solver(game, preset), want)
    assert got == pytest.approx(want, rel=1e-9, abs=0)  # 10 digits (float sums in another order)


def test_the_default_pass_is_the_opponents_and_differs():
    """Tammelin et al.'s convention (the default) adds the strategy after the update: after one
    iteration the first player's average is no longer uniform."""
    assert _curve(_solver("kuhn_tree", "cfr_plus", "opponent"), [1])[1] < 0.45
    assert _curve(_solver("kuhn_tree", "cfr_plus"), [1])[1] == pytest.approx(0.45833333333333326, rel=1e-14)


@pytest.mark.parametrize("poker, tree, preset", [("kuhn", "kuhn_tree", "cfr_plus"), ("kuhn", "kuhn_tree", "dcfr"),
                                                 ("leduc", "leduc_tree", "cfr_plus")])
def test_the_poker_engine_takes_the_own_pass_as_the_tree_engine(poker, tree, preset):
    its = [1, 2, 7, 30]
    assert _curve(_solver(poker, preset), its) == pytest.approx(_curve(_solver(tree, preset), its), rel=1e-9)


def test_simultaneous_updates_are_the_same_either_way():
    a = _curve(_solver("kuhn_tree", "cfr_plus", "own", update="simultaneous"), [5, 20])
    b = _curve(_solver("kuhn_tree", "cfr_plus", "opponent", update="simultaneous"), [5, 20])
    assert a == b


def test_own_pass_is_refused_with_a_sampler_and_a_misspelling():
    with pytest.raises(ConfigError, match="average_pass = \"own\" applies to full passes.*'external'"):
        load_config({"preset": "cfr", "game": "leduc_tree", "sampler": {"name": "external"},
                     "solver": {"average_pass": "own"}})
    with pytest.raises(ConfigError, match="average_pass.*'owner'.*opponent, own"):
        load_config({"preset": "cfr", "game": "kuhn", "solver": {"average_pass": "owner"}})


def test_a_checkpoint_from_before_the_setting_resumes_only_as_the_opponents_pass():
    old = load_config({"preset": "cfr_plus", "game": "kuhn"}).resolved
    footer = {"assembly": {k: ({kk: vv for kk, vv in v.items() if kk != "average_pass"} if k == "solver" else v)
                           for k, v in old.items()}}
    check_resume("ck", footer, old)  # an older checkpoint (no average_pass) ran the opponent's pass
    own = load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"average_pass": "own"}}).resolved
    with pytest.raises(CheckpointError, match="average_pass is \"own\".*written with \"opponent\""):
        check_resume("ck", footer, own)


def test_own_pass_is_openspiels_cfr_plus_with_three_players():
    """OpenSpiel's own C++ CFR+ (alternating, each average in its player's own pass) as the oracle."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("kuhn_poker(players=3)")
    oracle = pyspiel.CFRPlusSolver(game)
    s = Solver(load_config({"preset": "cfr_plus", "game": {"name": "openspiel", "game": "kuhn_poker(players=3)"},
                            "solver": {"eval_every": 0, "average_pass": "own"}}))
    for t in range(1, 31):
        oracle.evaluate_and_update_policy()
        s.step(1)
        if t in (1, 2, 5, 30):
            assert s.evaluate()["nash_conv"] == pytest.approx(pyspiel.nash_conv(game, oracle.average_policy()),
                                                              rel=1e-9), t


SPOT = {"name": "holdem_spot", "board": "Ks9d7h", "pot": 20, "stack": 40, "oop_range": "AA,KQs,T9s,98s,K7s",
        "ip_range": "QQ,T8s:0.5,AK,97s",
        "sizes": {"flop": {"bet": "50%"}, "turn": {"bet": "50%, a"}, "river": {"bet": "75%", "raise": "a"}}}


def _spot_run(game, iterations=6, **cfg):
    s = Solver(load_config({"preset": "dcfr", "game": game, "solver": {"eval_every": 0, "average_pass": "own"}, **cfg}))
    try:
        s.step(iterations)
        return s.evaluate()["exploitability"]
    finally:
        s.close()


@pytest.mark.parametrize("variant, cfg", [
    ("split at the turn", {"game": {**SPOT, "split_round": 2}}),
    ("split at the flop", {"game": {**SPOT, "split_round": 1}}),
    ("parallel deals", {"game": {**SPOT, "parallel_deals": True}, "transport": {"name": "local", "threads": 2}}),
    ("float32", {"game": SPOT, "store": {"precision": "float32"}}),
    ("block16", {"game": SPOT, "store": {"precision": "block16"}}),
])
def test_the_own_pass_takes_every_way_the_poker_engine_walks(variant, cfg):
    """A split game's trunk hands its subgames the updating player's own reach too (it used to
    hand only the opponent's, which the default pass needs: the subgames' averages stayed 0).
    The 16- and 32-bit stores are compared early, before their rounding moves the sequence."""
    rounded = variant in ("float32", "block16")
    iterations = 2 if rounded else 6
    base = _spot_run(SPOT, iterations)
    game = cfg.pop("game")
    assert _spot_run(game, iterations, **cfg) == pytest.approx(base, rel=1e-5 if rounded else 1e-10), variant


def test_a_split_leduc_takes_the_own_pass():
    assert _spot_run({"name": "leduc", "split_round": 1}, 20) == pytest.approx(_spot_run("leduc", 20), rel=1e-12)
