"""The generic extensive-form engine against independent oracles: the poker engine (Kuhn and
Leduc written as trees), Kuhn's closed-form equilibria, and a pure-Python CFR and best response
on random small games; plus the checks that refuse bad trees, and the compressed store."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solverkit.core.config import load_config
from solverkit.core.solver import Solver, run_solve
from solverkit.efg import TreeGame
from solverkit.errors import ConfigError

from .efg_reference import RandomTreeGame, ReferenceCFR, best_response_value, random_spec


def _solver(game, preset, **extra):
    a = load_config({"game": game, "preset": preset, **extra})
    return a, Solver(a)


def _run(game, preset, iterations, **extra):
    a, s = _solver(game, preset, **extra)
    for _ in range(iterations):
        s.step()
    return a, s


# --- the poker engine as oracle ------------------------------------------------------------------


@pytest.mark.parametrize("poker, tree, iterations", [("kuhn", "kuhn_tree", 60), ("leduc", "leduc_tree", 25)])
@pytest.mark.parametrize("preset, extra", [("cfr_plus", {}), ("cfr", {"solver": {"update": "simultaneous"}}),
                                           ("dcfr", {}), ("pcfr_plus", {}), ("cfr_plus", {"averaging": "quadratic"})])
def test_same_numbers_as_the_poker_engine(poker, tree, iterations, preset, extra):
    # (beyond ~75 iterations on Leduc the CFR+ dynamics amplify the engines' last-bit rounding
    # differences: bench/results/efg_vs_poker.md). Plain CFR runs simultaneous updates here: with
    # alternating ones Kuhn has exact ties (player 1's K after a check, where Q always folds to a
    # bet: betting and checking are worth the same), whose regrets are +-1e-17 in one summation
    # order and 0 in the other, and regret matching turns that into a pure or a uniform policy.
    _, ps = _run({"name": poker, "isomorphism": False}, preset, iterations, **extra)
    _, ts = _run({"name": tree}, preset, iterations, **extra)
    pr, tr = ps.evaluate(exact=True), ts.evaluate(exact=True)
    assert tr["exploitability"] > 1e-6  # not converged: the comparison sees the iterates
    for col in ("exploitability", "br_0", "br_1"):
        assert tr[col] == pytest.approx(pr[col], abs=1e-12)
    # the same policies information set by information set (keys in the same format)
    for p in (0, 1):
        a = dict(zip(ps.game.infoset_keys(p), np.split(ps.strategy()[p], np.cumsum(
            [n for _, n in ps.game.layout(p).infoset_slices()])[:-1])))
        b = dict(zip(ts.game.infoset_keys(p), np.split(ts.strategy()[p], np.cumsum(
            [n for _, n in ts.game.layout(p).infoset_slices()])[:-1])))
        assert set(b) <= set(a)  # the poker layout also holds hands that clash with the board
        assert max(np.abs(a[k] - b[k]).max() for k in b) < 1e-9


def test_kuhn_value_and_closed_form_equilibria():
    """Every member alpha of Kuhn's equilibrium family has exploitability 0 and value -1/18."""
    import solverkit

    game = solverkit.load_game("kuhn_tree")
    J, Q, K = "Qs", "Ks", "As"  # Kuhn's three cards, named as the ACPC dealer deals them (the top of the deck)
    for alpha in (0.0, 0.2, 1.0 / 3.0):
        pol = {
            f"{J}||": {"c": 1 - alpha, "r": alpha}, f"{Q}||": {"c": 1.0, "r": 0.0},
            f"{K}||": {"c": 1 - 3 * alpha, "r": 3 * alpha},
            f"{J}||cr": {"f": 1.0, "c": 0.0}, f"{Q}||cr": {"f": 2 / 3 - alpha, "c": alpha + 1 / 3},
            f"{K}||cr": {"f": 0.0, "c": 1.0},
            f"{J}||r": {"f": 1.0, "c": 0.0}, f"{Q}||r": {"f": 2 / 3, "c": 1 / 3}, f"{K}||r": {"f": 0.0, "c": 1.0},
            f"{J}||c": {"c": 2 / 3, "r": 1 / 3}, f"{Q}||c": {"c": 1.0, "r": 0.0}, f"{K}||c": {"c": 0.0, "r": 1.0},
        }
        assert solverkit.exploitability(game, pol) == pytest.approx(0.0, abs=1e-12)
        from solverkit.api import flat_policy

        v0, v1 = game.expected_values(flat_policy(game, pol))
        assert v0 == pytest.approx(-1.0 / 18.0, abs=1e-12) and v1 == -v0
    # a deviation is exploitable: player 1 never bets after a check
    pol[f"{J}||c"] = {"c": 1.0, "r": 0.0}
    assert solverkit.exploitability(game, pol) > 1e-3


def test_kuhn_tree_converges_to_the_game_value():
    a, s = _run({"name": "kuhn_tree"}, "cfr_plus", 3000)
    row = s.evaluate()
    assert row["exploitability"] < 1e-4
    v0, _ = a.game.expected_values(s.strategy())
    assert v0 == pytest.approx(-1.0 / 18.0, abs=1e-4)
    assert -row["br_1"] <= -1.0 / 18.0 <= row["br_0"]


def test_current_strategy_from_the_store_matches_the_flat_best_response():
    a, s = _run({"name": "leduc_tree"}, "pcfr_plus", 7)
    for kind in ("current", "average"):
        fast = a.game.best_response_from_store(s.store, kind)
        slow = a.game.best_response(s.strategy(kind))
        assert fast == pytest.approx(slow, abs=1e-13)


# --- random games against the pure-Python reference ---------------------------------------------


def _variant_config(variant):
    """The kuhn_tree config of a ReferenceCFR variant: its preset ("cfr_simultaneous": cfr with
    both players updated at once, the 2007 paper's order)."""
    cfg = {"game": {"name": "kuhn_tree"}, "preset": "cfr" if variant == "cfr_simultaneous" else variant}
    if variant == "pcfr_plus":
        cfg["averaging"] = "quadratic"
    if variant == "cfr_simultaneous":
        cfg["solver"] = {"update": "simultaneous"}
    return cfg


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1),
       variant=st.sampled_from(["cfr_plus", "cfr", "cfr_simultaneous", "pcfr_plus", "dcfr"]))
def test_random_trees_match_the_reference(seed, variant):
    spec = random_spec(seed)
    game = RandomTreeGame(spec)
    a = load_config(_variant_config(variant))
    a.game = game
    s = Solver(a)
    ref = ReferenceCFR(game, variant)
    for _ in range(6):
        s.step()
        ref.iteration()
    avg = {**ref.average(0), **ref.average(1)}
    ours = s.strategy()
    for p in (0, 1):
        for key, (start, n) in zip(game.infoset_keys(p), game.layout(p).infoset_slices()):
            assert np.abs(ours[p][start : start + n] - avg[key]).max() < 1e-10, key
    br = (best_response_value(spec, avg, 0), best_response_value(spec, avg, 1))
    row = s.evaluate(exact=True)
    assert row["br_0"] == pytest.approx(br[0], abs=1e-10)
    assert row["br_1"] == pytest.approx(br[1], abs=1e-10)
    # and for a random profile, the flat best response against the reference
    rng = np.random.default_rng(seed)
    prof = [rng.random(game.layout(p).size) + 0.01 for p in (0, 1)]
    as_dict = {}
    for p in (0, 1):
        for key, (start, n) in zip(game.infoset_keys(p), game.layout(p).infoset_slices()):
            x = prof[p][start : start + n]
            as_dict[key] = x / x.sum()
    b0, b1 = game.best_response(prof)
    assert b0 == pytest.approx(best_response_value(spec, as_dict, 0), abs=1e-10)
    assert b1 == pytest.approx(best_response_value(spec, as_dict, 1), abs=1e-10)


@pytest.mark.parametrize("variant", ["cfr_plus", "cfr", "cfr_simultaneous", "pcfr_plus", "dcfr"])
def test_kuhn_tree_matches_the_reference(variant):
    a = load_config(_variant_config(variant))
    s = Solver(a)
    ref = ReferenceCFR(a.game, variant)
    for _ in range(12):
        s.step()
        ref.iteration()
    for p in (0, 1):
        want = ref.average(p)
        got = np.concatenate([want[k] for k in a.game.infoset_keys(p)])
        assert np.abs(s.strategy()[p] - got).max() < 1e-12


# --- refusals ------------------------------------------------------------------------------------


class _Tiny(TreeGame):
    """Chance deals 0 or 1 to player 0, who acts, then player 1 acts; hooks below break rules."""

    name = "tiny"
    probs = (0.5, 0.5)
    p1_sees_card = False

    def initial_state(self):
        return ()

    def is_terminal(self, s):
        return len(s) == 3

    def returns(self, s):
        return self.utility(s)

    def utility(self, s):
        return (1.0, -1.0) if s[1] == s[2] else (-1.0, 1.0)

    def player(self, s):
        return self.CHANCE if not s else len(s) - 1

    def chance_outcomes(self, s):
        return list(enumerate(self.probs))

    def legal_actions(self, s):
        return ["a", "b"]

    def child(self, s, a):
        return s + (a,)

    def infoset_key(self, s, p):
        return f"p0:{s[0]}" if p == 0 else f"p1:{s[1]}" + (f":{s[0]}" if self.p1_sees_card else "")


def _subclass(**attrs):
    return type("Bad", (_Tiny,), attrs)


@pytest.mark.parametrize("attrs, message", [
    ({"probs": (0.7, 0.7)}, "chance probabilities at root sum to 1.4"),
    ({"probs": (1.5, -0.5)}, "has probability -0.5"),
    ({"utility": lambda self, s: (1.0, 1.0)}, "do not sum to 0"),
    ({"utility": lambda self, s: float("nan")}, "are not finite"),
    ({"infoset_key": lambda self, s, p: "same"}, "information set 'same' is player 1's"),
    ({"legal_actions": lambda self, s: ["a", "b", "c"][: 2 + (len(s) == 2 and s[0] == 1)]},
     "information set 'p1:a' has actions [a, b, c] at history 1 a but [a, b] at history 0 a"),
    # player 1 forgets nothing, but player 0's second decision forgets its first: keyed without it
    ({"is_terminal": lambda self, s: len(s) == 4, "player": lambda self, s: self.CHANCE if not s else (len(s) - 1) % 2,
      "infoset_key": lambda self, s, p: "p0" if (p == 0 and len(s) == 3) else _Tiny.infoset_key(self, s, p),
      "utility": lambda self, s: 0.0},
     "breaks perfect recall"),
])
def test_bad_trees_are_refused_with_the_offending_set(attrs, message):
    with pytest.raises(ConfigError, match="^game 'tiny'") as err:
        _subclass(**attrs)()
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_size_limit_is_named():
    with pytest.raises(ConfigError, match=r"more than 5 nodes \(the tree size limit, \[game\] max_nodes\)"):
        _Tiny(max_nodes=5)
    assert _Tiny(max_nodes=15).tree.num_nodes == 15


def test_perfect_recall_holds_for_a_game_that_reveals_more():
    g = _subclass(p1_sees_card=True)()
    assert g.layout(1).num_infosets == 4 and g.infoset_keys(0) == ["p0:0", "p0:1"]


# --- the compressed store and custom rules -------------------------------------------------------


def test_compressed_fixed_point_store_tracks_float64():
    base = {"game": {"name": "leduc_tree"}, "preset": "cfr_plus", "solver": {"iterations": 60, "eval_every": 60}}
    exact = run_solve(load_config(base))
    packed = run_solve(load_config({**base, "store": {"regret_scale": [1e7], "avg_scale": [1e5]},
                                    "compressor": {"name": "zlib"}}))
    assert packed.compression_ratio > 1.5
    # (a regret of 1e-7 rounds to zero: CFR+ then plays a slightly different policy)
    assert packed.exploitability == pytest.approx(exact.exploitability, rel=1e-2)


def test_resume_of_a_tree_game_matches_an_uninterrupted_run(tmp_path):
    """pcfr_plus keeps a state array: the checkpoint carries it, and the resumed run is exact."""
    base = {"game": {"name": "leduc_tree"}, "preset": "pcfr_plus", "solver": {"iterations": 12, "eval_every": 4}}
    full = run_solve(load_config(base), out=tmp_path / "full")
    run_solve(load_config(base), iterations=5, out=tmp_path / "part", checkpoint_every="5")
    resumed = run_solve(load_config(tmp_path / "part" / "config.toml"), iterations=12, out=tmp_path / "part",
                        resume=True)
    assert resumed.iterations == 12
    assert resumed.exploitability == full.exploitability
    assert all(np.array_equal(a, b) for a, b in zip(resumed.strategy, full.strategy))
