"""Games of three to six players in the generic tree engine and the OpenSpiel bridge, against
OpenSpiel: the rules of kuhn_poker / leduc_poker with N players, CFR's policies, NashConv and
each player's gain of exported policies."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import Solver, run_solve
from solverkit.errors import ConfigError

pyspiel = pytest.importorskip("pyspiel")


def _lockstep(ours, os_game, limit=None) -> int:
    """Walk `ours` (a TreeGame, through its own methods) and OpenSpiel's game side by side: the
    same player, chance outcomes, number of legal actions, terminals and returns everywhere."""
    stack = [(ours.initial_state(), os_game.new_initial_state())]
    n = 0
    while stack and (limit is None or n < limit):
        a, b = stack.pop()
        n += 1
        assert ours.is_terminal(a) == b.is_terminal(), b.history_str()
        if b.is_terminal():
            assert np.allclose(ours.returns(a), b.returns(), rtol=0, atol=1e-12), b.history_str()
            continue
        if b.is_chance_node():
            assert ours.player(a) == ours.CHANCE, b.history_str()
            outcomes = ours.chance_outcomes(a)
            assert [(c, pytest.approx(p)) for c, p in outcomes] == b.chance_outcomes(), b.history_str()
            stack.extend((ours.child(a, c), b.child(c)) for c, _ in outcomes)
        else:
            assert ours.player(a) == b.current_player(), b.history_str()
            acts = ours.legal_actions(a)
            assert len(acts) == len(b.legal_actions()), b.history_str()
            stack.extend((ours.child(a, x), b.child(y)) for x, y in zip(acts, b.legal_actions()))
    return n


def _game(name, players, **more):
    return load_config({"preset": "cfr_plus", "game": {"name": name, "players": players, **more}}).game


@pytest.mark.parametrize("name, os_name, players, limit", [
    ("kuhn_tree", "kuhn_poker", 3, None),
    ("kuhn_tree", "kuhn_poker", 4, None),
    ("kuhn_tree", "kuhn_poker", 5, 20_000),
])
def test_kuhn_rules_are_openspiels(name, os_name, players, limit):
    if limit is None:
        game = _game(name, players)
    else:  # the rules only, walked without enumerating the tree
        from solverkit_efg.games import KuhnTree

        game = object.__new__(KuhnTree)
        game.num_players, game.ranks = players, players + 1
    n = _lockstep(game, pyspiel.load_game(f"{os_name}(players={players})"), limit)
    assert n == (game.tree.num_nodes if limit is None else limit)


def test_leduc_rules_are_openspiels():
    """Three-player Leduc (1.8M nodes) is too large to enumerate here: its rules, walked through
    the game's methods without building its tree, on the first 20,000 histories depth first."""
    from solverkit_efg.games import LeducTree

    game = object.__new__(LeducTree)  # the rules only: no enumeration
    game.num_players, game.ranks = 3, 4
    assert _lockstep(game, pyspiel.load_game("leduc_poker(players=3)"), 20_000) == 20_000


def _os_table(game, strategy):
    return pyspiel.TabularPolicy({k: list(v.items()) for k, v in game.openspiel_table(strategy).items()})


@pytest.mark.parametrize("name, spec, players, preset, update", [
    ("kuhn_tree", "kuhn_poker(players=3)", 3, "cfr", "simultaneous"),
    ("kuhn_tree", "kuhn_poker(players=4)", 4, "cfr_plus", "alternating"),
    ("openspiel", "kuhn_poker(players=3)", 3, "dcfr", "alternating"),
    ("openspiel", "first_sealed_auction(players=3,max_value=3)", 3, "cfr_plus", "simultaneous"),  # general-sum
])
def test_nash_conv_and_gains_are_openspiels(name, spec, players, preset, update):
    """solverkit's NashConv and each player's gain of its average strategy, and OpenSpiel's of the
    same policy exported (pyspiel.nash_conv; the Python one for the gains)."""
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms.exploitability import nash_conv

    table = {"name": name, "players": players} if name != "openspiel" else {"name": name, "game": spec}
    a = load_config({"preset": preset, "game": table, "solver": {"update": update}})
    r = run_solve(a, iterations=9)
    row = r.metrics[-1]
    os_game = pyspiel.load_game(spec)
    assert row["nash_conv"] == pytest.approx(pyspiel.nash_conv(os_game, _os_table(a.game, r.strategy)), rel=1e-9)
    py = os_policy.TabularPolicy(os_game)
    for key, probs in a.game.openspiel_table(r.strategy).items():
        py.action_probability_array[py.state_lookup[key]] = [probs.get(i, 0.0) for i in range(py.action_probability_array.shape[1])]
    gains = nash_conv(os_game, py, return_only_nash_conv=False).player_improvements
    assert [row[f"gain_{p}"] for p in range(players)] == pytest.approx(list(gains), rel=1e-9, abs=1e-12)
    assert row["exploitability"] == pytest.approx(row["nash_conv"] / players, rel=1e-14)
    assert row["nash_conv"] == pytest.approx(sum(row[f"gain_{p}"] for p in range(players)), rel=1e-12)


@pytest.mark.parametrize("rule, update", [("rm", "alternating"), ("rm_plus", "alternating"), ("rm", "simultaneous"),
                                          ("rm_plus", "simultaneous")])
def test_policies_are_openspiels_cfr(rule, update):
    """After 6 iterations on 3-player Kuhn, the current policy (and with simultaneous updates the
    uniform or linear average) is OpenSpiel's Python CFR's to rounding: the same regrets."""
    from open_spiel.python.algorithms import cfr

    plus = rule == "rm_plus"
    a = load_config({"game": {"name": "kuhn_tree", "players": 3}, "rule": {"name": rule},
                     "averaging": {"name": "linear" if plus else "uniform"}, "solver": {"update": update}})
    s = Solver(a)
    try:
        for _ in range(6):
            s.step()
        ours = {kind: a.game.openspiel_table(s.strategy(kind)) for kind in ("current", "average")}
    finally:
        s.close()
    os_game = pyspiel.load_game("kuhn_poker(players=3)")
    theirs = cfr._CFRSolver(os_game, regret_matching_plus=plus, alternating_updates=update == "alternating",
                            linear_averaging=plus)
    for _ in range(6):
        theirs.evaluate_and_update_policy()
    pols = {"current": theirs.current_policy(), "average": theirs.average_policy()}
    for kind in ("current", "average") if update == "simultaneous" else ("current",):
        for key, probs in ours[kind].items():
            row = pols[kind].policy_for_key(key)
            assert [probs[i] for i in sorted(probs)] == pytest.approx([row[i] for i in sorted(probs)], abs=1e-12), key


@pytest.mark.parametrize("players, preset, update", [(3, "cfr_plus", "alternating"), (2, "cfr_plus", "alternating"),
                                                     (2, "dcfr", "alternating"), (2, "cfr", "simultaneous"),
                                                     (2, "lcfr", "alternating"), (2, "pcfr_plus", "alternating"),
                                                     (2, "pdcfr_plus", "simultaneous"),
                                                     (2, "sapcfr_plus", "alternating"), (3, "pcfr_plus", "alternating"),
                                                     (3, "pdcfr_plus", "simultaneous")])
def test_blocks_of_passes_give_the_numbers_of_one_pass_each(players, preset, update):
    """A block of full passes in one kernel call (Solver.step(count)) and one pass per call
    (a stateful rule's fold outside the kernel is the other path) leave the same values, for
    two players (efg/kernels.py cfr_block, cfr_block_predictive for a predictive rule's update
    between passes) and more (nkernels.py cfr_block_n, cfr_block_n_predictive)."""
    cfg = {"preset": preset, "game": {"name": "kuhn_tree", "players": players}, "solver": {"update": update}}
    one, block = Solver(load_config(cfg)), Solver(load_config(cfg))
    try:
        assert block.batches
        for _ in range(20):
            one._step_one()
        block.step(3)  # the first iterations one by one, then a block
        block.step(17)
        a, b = one.store.read("root"), block.store.read("root")
        for name in a:
            assert np.array_equal(a[name], b[name]), name
    finally:
        one.close()
        block.close()


@pytest.mark.parametrize("preset, update", [("cfr", "simultaneous"), ("cfr", "alternating"), ("cfr_plus", "alternating"),
                                            ("lcfr", "alternating"), ("dcfr", "simultaneous"),
                                            ("pcfr_plus", "alternating"), ("dcfr_plus", "alternating"),
                                            ("pdcfr_plus", "simultaneous")])
def test_rules_lower_nash_conv(preset, update):
    """Every built-in variant runs on 4-player Kuhn and its NashConv falls (no guarantee for
    N players, but it does here)."""
    a = load_config({"preset": preset, "game": {"name": "kuhn_tree", "players": 4}, "solver": {"update": update}})
    r = run_solve(a, iterations=60)
    first, last = r.metrics[0]["nash_conv"], r.metrics[-1]["nash_conv"]
    assert last < 0.1 * first


@pytest.mark.parametrize("scheme", ["chance", "external", "outcome"])
def test_sampled_passes_are_unbiased(scheme):
    """One sampled pass of 3-player Kuhn, over many seeds, averages to the full pass: player 0's
    regret deltas and the average increments of player 2 (who updated before player 0).
    Positive regrets: every history has a positive probability (a third player's zero
    probability hides the histories behind it from any sample)."""
    from solverkit.efg import nkernels, sampled

    game = _game("kuhn_tree", 3)
    t, base, ib = game.tree, game._base, game._ibase
    S = int(base[-1])
    reg0 = np.abs(np.random.default_rng(1).normal(size=S)) + 0.05
    sig, d, ac, reach, v = game._nbufs()[:5]
    game._profile([reg0[base[p]:base[p + 1]] for p in range(3)], sig)
    nkernels.cfr_pass_n(t.node, t.prob, t.utils, base, sig, 1, 4, reach, v, d, ac)
    full = np.concatenate([d[base[0]:base[1]], ac[base[2]:base[3]]])
    K = 6000
    draws = np.empty((K, full.size))
    eps = 0.6 if scheme == "outcome" else 0.0
    for seed in range(K):
        reg, avg = reg0.copy(), np.zeros(S)
        sampled.sampled_block_n(sampled.MODES[scheme], eps, seed, 0, np.array([1]), np.array([1]), np.array([4]),
                                np.array([-np.inf]), np.array([1.0]), np.ones(1), np.zeros(1), 0.0, t.node, t.prob,
                                t.utils, t.infoset, base, ib,
                                reg, avg, game._avg_scale_n(scheme), *game._sampling_bufs_n())
        draws[seed] = np.concatenate([(reg - reg0)[base[0]:base[1]], avg[base[2]:base[3]]])
    err = np.abs(draws.mean(axis=0) - full)
    se = draws.std(axis=0) / np.sqrt(K)
    assert np.all(err <= 5.0 * se + 1e-12), (err / np.maximum(se, 1e-300)).max()


@pytest.mark.parametrize("scheme", ["chance", "external", "outcome"])
def test_sampled_schemes_lower_nash_conv(scheme):
    a = load_config({"game": {"name": "kuhn_tree", "players": 3}, "rule": {"name": "rm"},
                     "averaging": {"name": "linear"}, "sampler": {"name": scheme}, "solver": {"update": "alternating"}})
    r = run_solve(a, iterations=20_000)
    assert r.metrics[-1]["nash_conv"] < 0.12 < r.metrics[0]["nash_conv"]


def test_outputs_of_a_three_player_run(tmp_path):
    """metrics.csv and result.json carry nash_conv and each player's br and gain; --target stops
    on NashConv; export --format openspiel and json take every player; strategy.npz holds three."""
    import csv

    cfg = tmp_path / "c.toml"
    cfg.write_text('preset = "cfr_plus"\n[game]\nname = "kuhn_tree"\nplayers = 3\n[solver]\niterations = 500\n')
    out = tmp_path / "run"
    res = CliRunner().invoke(cli, ["solve", str(cfg), "--out", str(out), "--target", "0.01"])
    assert res.exit_code == 0, res.output
    result = json.loads((out / "result.json").read_text())
    assert result["players"] == 3 and result["reached_target"] is True and "value_bounds" not in result
    assert result["nash_conv"] <= 0.01 and result["exploitability"] == pytest.approx(result["nash_conv"] / 3)
    assert result["nash_conv"] == pytest.approx(sum(result[f"gain_{p}"] for p in range(3)))
    rows = list(csv.DictReader((out / "metrics.csv").open()))
    assert {"nash_conv", "br_2", "gain_0", "gain_1", "gain_2"} <= set(rows[0])
    assert float(rows[-2]["nash_conv"]) > 0.01 >= float(rows[-1]["nash_conv"])
    assert "target reached: NashConv" in res.output
    r = CliRunner().invoke(cli, ["export", str(out), "--format", "openspiel"])
    assert r.exit_code == 0, r.output
    table = json.loads(r.output)
    pol = pyspiel.TabularPolicy({k: [(int(a), p) for a, p in v.items()] for k, v in table.items()})
    assert pyspiel.nash_conv(pyspiel.load_game("kuhn_poker(players=3)"), pol) == pytest.approx(result["nash_conv"],
                                                                                                rel=1e-9)
    r = CliRunner().invoke(cli, ["export", str(out)])
    assert r.exit_code == 0 and len(json.loads(r.output)["players"]) == 3
    r = CliRunner().invoke(cli, ["exploit", str(out)])
    assert r.exit_code == 0 and f"nash_conv {result['nash_conv']:.12g}" in r.output
    game = load_config(out / "config.toml").game
    key = game.infoset_keys(2)[0]  # a set of the third player, read from its slice of strategy.npz
    r = CliRunner().invoke(cli, ["strategy", str(out), "--infoset", key, "--json"])
    assert r.exit_code == 0, r.output
    from solverkit.core.strategy_file import load_strategy

    strategy = load_strategy(out / "strategy.npz", game)[0]
    assert len(strategy) == 3 and json.loads(r.output)["player"] == 2
    assert list(json.loads(r.output)["policy"].values()) == list(strategy[2][:2])


def test_two_player_values_are_unchanged():
    """players = 2 is the two-player game of before (its own kernels): Kuhn's value -1/18."""
    game = _game("kuhn_tree", 2)
    assert game.num_players == 2 and game.tree.utils is None
    a = load_config({"preset": "cfr_plus", "game": {"name": "kuhn_tree"}})
    r = run_solve(a, iterations=300)
    assert "nash_conv" not in r.metrics[-1]
    assert a.game.expected_values(r.strategy)[0] == pytest.approx(-1 / 18, abs=2e-3)


@pytest.mark.parametrize("table, message", [
    ({"name": "kuhn_tree", "players": 7}, "players"),
    ({"name": "leduc_tree", "players": 1}, "players"),
    ({"name": "openspiel", "game": "kuhn_poker(players=7)"}, "has 7 players; the engine solves games of 2 to 6"),
])
def test_bad_player_counts_are_refused(table, message):
    with pytest.raises(ConfigError, match=message):
        load_config({"preset": "cfr_plus", "game": table})


def test_returns_of_the_wrong_length_are_refused():
    from solverkit.efg import TreeGame

    class Three(TreeGame):
        name = "three"
        num_players = 3

        def initial_state(self):
            return ""

        def is_terminal(self, s):
            return len(s) == 3

        def returns(self, s):
            return (1.0, -1.0)

        def player(self, s):
            return len(s)

        def legal_actions(self, s):
            return ["a", "b"]

        def child(self, s, a):
            return s + a

        def infoset_key(self, s, p):
            return f"{p}"

    with pytest.raises(ConfigError, match=r"returns at history a a a = \(1.0, -1.0\); expected 3 utilities"):
        Three()


def test_the_docs_example_solves(tmp_path):
    """docs/players.md's config runs as written and stops on its NashConv target."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "players.md").read_text()
    cfg = tmp_path / "players.toml"
    cfg.write_text(re.search(r"```toml\n(.*?)```", text, re.S).group(1))
    r = run_solve(load_config(cfg))
    assert r.reached_target and r.metrics[-1]["nash_conv"] <= 0.01 and "NashConv" in r.stop_reason


@pytest.mark.slow
def test_three_player_leduc_nash_conv_is_openspiels():
    """3-player Leduc (1.8M nodes; about 30 s to enumerate, so -m slow): NashConv after 2
    CFR+ iterations, solverkit's and pyspiel.nash_conv's of the exported policy."""
    a = load_config({"preset": "cfr_plus", "game": {"name": "leduc_tree", "players": 3}})
    r = run_solve(a, iterations=2)
    os_game = pyspiel.load_game("leduc_poker(players=3)")
    assert r.metrics[-1]["nash_conv"] == pytest.approx(pyspiel.nash_conv(os_game, _os_table(a.game, r.strategy)),
                                                       rel=1e-9)


def test_resume_and_encoded_stores(tmp_path):
    """A 3-player run stopped at a checkpoint and resumed ends where an unbroken run ends; a
    fixed-point, compressed store and a disk store carry every player's arrays."""
    cfg = tmp_path / "c.toml"
    cfg.write_text('preset = "pcfr_plus"\n[game]\nname = "kuhn_tree"\nplayers = 3\n[solver]\niterations = 30\n'
                   'checkpoint_every = "10"\n')
    runner = CliRunner()
    assert runner.invoke(cli, ["solve", str(cfg), "--out", str(tmp_path / "a")]).exit_code == 0
    assert runner.invoke(cli, ["solve", str(cfg), "--out", str(tmp_path / "b"), "--iterations", "10"]).exit_code == 0
    r = runner.invoke(cli, ["solve", "--resume", str(tmp_path / "b"), "--iterations", "30"])
    assert r.exit_code == 0, r.output
    assert "gain_2" in r.output and "nash_conv" in r.output and "game value" not in r.output
    a, b = (json.loads((tmp_path / d / "result.json").read_text()) for d in "ab")
    assert a["nash_conv"] == b["nash_conv"] and a["iterations"] == b["iterations"] == 30
    for store, compressor in (({"regret_scale": [1024.0], "avg_scale": [1024.0]}, "blosc2"),
                              ({"backend": "disk"}, "none")):
        run = run_solve(load_config({"preset": "cfr_plus", "game": {"name": "kuhn_tree", "players": 3},
                                     "store": store, "compressor": {"name": compressor}}), iterations=60)
        assert run.metrics[-1]["nash_conv"] < 0.01 and len(run.strategy) == 3


def test_python_api():
    """solverkit.solve on 3-player Kuhn: every player's policy table, and exploitability (NashConv
    / 3) of that table (keys -> probabilities) or of the flat arrays equal to the solve's."""
    import solverkit

    sol = solverkit.solve({"preset": "cfr_plus", "game": {"name": "kuhn_tree", "players": 3}}, iterations=50)
    assert len(sol.policy_tables) == 3 and len(sol.policy_table) == sum(map(len, sol.policy_tables))
    assert solverkit.exploitability(sol.game, sol.policy_table) == pytest.approx(sol.exploitability, rel=1e-12)
    assert solverkit.exploitability(sol.game, sol.strategy) == pytest.approx(sol.exploitability, rel=1e-12)


def test_damaged_three_player_strategy_files_are_refused(tmp_path):
    """A 3-player strategy.npz without player 2's arrays, with a bad `players`, or read for a
    two-player game is refused with one line naming what is wrong."""
    from solverkit.core.strategy_file import load_strategy
    from solverkit.errors import SolverkitError

    a = load_config({"preset": "cfr_plus", "game": {"name": "kuhn_tree", "players": 3}})
    run_solve(a, iterations=3, out=tmp_path / "run")
    with np.load(tmp_path / "run" / "strategy.npz") as data:
        arrays = {n: data[n] for n in data.files}
    meta = json.loads(str(arrays["meta"]))
    cases = {
        "missing": ({k: v for k, v in arrays.items() if k != "policy2"}, r"missing array\(s\) policy2 of a 3-player"),
        "players": ({**arrays, "meta": np.array(json.dumps({**meta, "players": 9}))},
                    r"meta players = 9; expected an integer from 2 to 6"),
    }
    for name, (content, message) in cases.items():
        path = tmp_path / f"{name}.npz"
        np.savez(path, **content)
        with pytest.raises(SolverkitError, match=message):
            load_strategy(path, a.game)
    two = load_config({"preset": "cfr_plus", "game": {"name": "kuhn_tree"}}).game
    with pytest.raises(SolverkitError, match="a 3-player strategy, but game 'kuhn_tree' has 2 players"):
        load_strategy(tmp_path / "run" / "strategy.npz", two)
