"""Blueprint MCCFR (solverkit.blueprint): against the tree engine's exact best responses on
3-player Kuhn and Leduc (its policy mapped onto the tree game's information sets), bit-for-bit
reproduction across blocks and checkpoints, pruning that skips nodes, and card abstraction tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solverkit.abstraction.table import BucketTable
from solverkit.blueprint.engine import Blueprint
from solverkit.blueprint.tree_map import tree_strategy
from solverkit.core.config import load_config
from solverkit.core.solver import nash_conv, run_solve
from solverkit.errors import ConfigError
from solverkit.poker.nplayer import TableDef, load_table, tree_table


def _tree(name, players=3):
    return load_config({"game": {"name": name, "players": players}, "rule": {"name": "rm"},
                        "averaging": {"name": "uniform"}, "sampler": {"name": "external"},
                        "solver": {"seed": 1, "eval_every": 10**6}})


def _leduc3():
    """3-player Leduc as leduc_tree plays it (4 ranks, 2 suits, antes 1, raises 2 then 4, two
    raises a round), without building the tree game's own tree."""
    return TableDef(3, 2, (1, 1, 1), (2, 4), (0, 0), (2, 2), num_suits=2, num_ranks=4, num_hole_cards=1,
                    num_board_cards=(0, 1), source="leduc3").validate()


def test_kuhn_3p_nash_conv_matches_the_tree_engine():
    """The blueprint's NashConv (exact, by the tree engine's best responses) falls and is of the
    tree engine's own external sampling's size at the same iterations."""
    a = _tree("kuhn_tree")
    game = a.game
    bp = Blueprint(tree_table(game), seed=1)
    bp.run(500)
    early = nash_conv(game, tree_strategy(bp, game))[0]
    bp.run(9_500)
    late = nash_conv(game, tree_strategy(bp, game))[0]
    ref = run_solve(a, iterations=10_000).metrics[-1]["nash_conv"]
    assert late < 0.5 * early
    assert late < 3.0 * ref and ref < 3.0 * late


def test_same_seed_reproduces_across_blocks_and_checkpoints(tmp_path):
    gd = load_table("kuhn.limit.3p")
    one = Blueprint(gd, seed=4, average_rounds=1)
    one.run(1000)
    two = Blueprint(gd, seed=4, average_rounds=1)
    two.run(300)
    path = two.save(tmp_path / "bp.npz")
    three = Blueprint(gd, seed=4, average_rounds=1)
    three.load(path)
    three.run(700)
    assert three.iteration == 1000
    assert np.array_equal(one.reg, three.reg) and np.array_equal(one.avg, three.avg)
    other = Blueprint(gd, seed=5)
    other.run(1000)
    assert not np.array_equal(one.reg, other.reg)
    with pytest.raises(ConfigError, match="another blueprint"):
        other.load(path)


def test_pruning_skips_nodes_on_3p_leduc_and_reproduces():
    """Pruning (not on the last round, never to a terminal) visits fewer nodes than the same
    run without it, the same seed twice gives the same regrets, probability 0 changes nothing."""
    gd = _leduc3()
    runs = []
    for thr, p in ((0.0, 0.95), (-1.0, 0.95), (-1.0, 0.95), (-1.0, 0.0)):
        bp = Blueprint(gd, seed=2, prune_threshold=thr, prune_probability=p)
        nodes = bp.run(3000)
        runs.append((nodes, bp.reg.copy()))
    assert runs[1][0] < 0.9 * runs[0][0]
    assert runs[1][0] == runs[2][0] and np.array_equal(runs[1][1], runs[2][1])
    assert runs[3][0] == runs[0][0] and np.array_equal(runs[3][1], runs[0][1])


def test_a_lossy_table_shrinks_the_layout_and_a_wrong_one_is_refused():
    gd = load_table("kuhn.limit.3p")
    full = Blueprint(gd)
    spec = full.spec
    size = full.table.indexer.size(0)
    merged = BucketTable(spec, "test", {}, [np.arange(size, dtype=np.int32) // 2])  # pairs of ranks merged
    bp = Blueprint(gd, merged, seed=1)
    assert bp.reg.size * 2 == full.reg.size
    bp.run(200)
    assert np.isfinite(bp.reg).all() and bp.reg.any()
    with pytest.raises(ConfigError, match="does not fit"):
        Blueprint(load_table("kuhn"), merged)


def test_blueprint_game_through_the_solver(tmp_path):
    """[game] name = "blueprint" solves through the solver: metrics carry NashConv (exact, 3-player
    Kuhn), the same seed reproduces the strategy bit for bit, lcfr until / pruning are taken."""
    cfg = {"game": {"name": "blueprint", "gamedef": "kuhn.limit.3p"}, "rule": {"name": "lcfr", "until": 500},
           "averaging": {"name": "linear", "until": 500}, "sampler": {"name": "external", "prune_threshold": -1.0},
           "solver": {"seed": 3, "eval_every": 1000}}
    r1 = run_solve(load_config(cfg), iterations=3000)
    r2 = run_solve(load_config(cfg), iterations=3000)
    assert all(np.array_equal(a, b) for a, b in zip(r1.strategy, r2.strategy))
    assert r1.metrics[-1]["nash_conv"] < 0.5 * r1.metrics[0]["nash_conv"]
    with pytest.raises(ConfigError, match="players = 4"):
        load_config({**cfg, "game": {"name": "blueprint", "gamedef": "kuhn.limit.3p", "players": 4}})


def _nolimit_text(players, stack, blind, first, ranks):
    return (f"GAMEDEF\nnolimit\nnumPlayers = {players}\nnumRounds = 2\nstack = {' '.join([str(stack)] * players)}\n"
            f"blind = {' '.join(map(str, blind))}\nfirstPlayer = {' '.join(map(str, first))}\nnumSuits = 2\n"
            f"numRanks = {ranks}\nnumHoleCards = 1\nnumBoardCards = 0 1\nEND GAMEDEF\n")


@pytest.mark.parametrize("players, stack, blind, first, ranks", [(2, 20, (2, 1), (2, 1), 3),
                                                                 (3, 40, (1, 2, 0), (3, 1), 4)])
def test_nolimit_fcpa_tree_equals_openspiel(players, stack, blind, first, ranks):
    """The N-player no-limit fcpa betting tree has OpenSpiel universal_poker's (bettingAbstraction
    fcpa) histories for one deal: the same node count, and each history's chips put in."""
    pyspiel = pytest.importorskip("pyspiel")
    from solverkit.blueprint.nolimit import nolimit_tree, parse_nolimit_table

    g = pyspiel.load_game("universal_poker", {
        "betting": "nolimit", "numPlayers": players, "numRounds": 2, "stack": " ".join([str(stack)] * players),
        "blind": " ".join(map(str, blind)), "firstPlayer": " ".join(map(str, first)), "numSuits": 2,
        "numRanks": ranks, "numHoleCards": 1, "numBoardCards": "0 1", "bettingAbstraction": "fcpa"})
    tree = nolimit_tree(parse_nolimit_table(_nolimit_text(players, stack, blind, first, ranks)))
    count, stack_ = 0, [(g.new_initial_state(), 0)]
    while stack_:
        s, n = stack_.pop()
        while s.is_chance_node():
            s = s.child(s.chance_outcomes()[0][0])
        count += 1
        if s.is_terminal():
            assert tree.kind[n] == 2
            continue
        assert s.current_player() == tree.player[n]
        acts = s.legal_actions()
        assert len(acts) == tree.nact[n], (s.history_str(), tree.betting[n])
        stack_.extend((s.child(a), int(tree.first[n]) + i) for i, a in enumerate(acts))
    assert count == tree.num_nodes


def test_nolimit_blueprint_runs_and_refuses_unequal_stacks():
    from solverkit.blueprint.nolimit import parse_nolimit_table

    bp = Blueprint(parse_nolimit_table(_nolimit_text(3, 40, (1, 2, 0), (3, 1), 4)), seed=1,
                   prune_threshold=-5.0)
    assert bp.run(2000) > 0 and np.isfinite(bp.reg).all()
    with pytest.raises(ConfigError, match="equal stacks"):
        parse_nolimit_table(_nolimit_text(2, 20, (2, 1), (2, 1), 3).replace("stack = 20 20", "stack = 20 30"))


@pytest.mark.parametrize("name", ["blueprint_hunl", "blueprint_6max"])
def test_blueprint_configs_load_and_run_a_tiny_variant(name):
    """The hold'em blueprints' configs name the blueprint game and Linear CFR early; the same config with a
    tiny no-limit game instead of hold'em and no card abstraction (whose hold'em tables take
    minutes) loads and runs a few iterations."""
    import tomllib
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "configs" / f"{name}.toml"
    raw = tomllib.loads(path.read_text())
    assert raw["game"]["name"] == "blueprint" and raw["rule"] == {"name": "lcfr", "until": raw["averaging"]["until"]}
    raw.pop("abstraction")
    raw["game"]["gamedef"] = "leduc.nolimit"
    raw["solver"] = {"seed": 1, "eval_every": 100}
    a = load_config(raw)
    assert a.rule.name == "lcfr" and a.averaging.name == "linear"
    r = run_solve(a, iterations=200)
    assert r.iterations == 200 and r.metrics[-1]["nodes_touched"] > 0


def test_abstraction_section_builds_the_buckets():
    """[abstraction] through the config: the blueprint's sets are the table's buckets (fewer
    than the lossless classes on the lossy round) and the abstraction is part of the identity."""
    base = {"game": {"name": "blueprint", "gamedef": "leduc13"}, "rule": {"name": "rm"},
            "averaging": {"name": "uniform"}, "sampler": {"name": "external"}, "solver": {"seed": 1}}
    lossy = load_config({**base, "abstraction": {"name": "ehs", "buckets": [0, 20]}}).game
    full = load_config(base).game
    assert lossy.bp.buckets[0] == full.bp.buckets[0] == 13
    assert 1 < lossy.bp.buckets[1] <= 20 < full.bp.buckets[1]
    assert lossy.layout(0).size < full.layout(0).size
    assert lossy.definition()["abstraction"]["name"] == "ehs" and "abstraction" not in full.definition()


@pytest.mark.parametrize("first", [0, pytest.param(1, marks=pytest.mark.slow)])  # (CI time: 5 s each)
def test_checkpoint_and_resume_equal_a_straight_run(tmp_path, first):
    """Through the solver: 1,000 iterations, a checkpoint, a resume to 3,000 give the straight
    3,000-iteration run's strategy bit for bit (the first iterations run one pass per player, in
    the turn first_update sets, as the blocks do)."""
    from click.testing import CliRunner

    from solverkit.cli import cli

    cfg = tmp_path / "c.toml"
    cfg.write_text('[game]\nname = "blueprint"\ngamedef = "kuhn.limit.3p"\n[rule]\nname = "rm"\n[averaging]\n'
                   'name = "uniform"\n[sampler]\nname = "external"\nprune_threshold = -1.0\n[solver]\nseed = 1\n'
                   f'first_update = {first}\n')
    run = CliRunner()
    for args in (["solve", str(cfg), "--out", str(tmp_path / "a"), "--iterations", "3000", "--quiet"],
                 ["solve", str(cfg), "--out", str(tmp_path / "b"), "--iterations", "1000", "--checkpoint-every",
                  "1000", "--quiet"],
                 ["solve", "--resume", str(tmp_path / "b"), "--iterations", "3000", "--quiet"]):
        res = run.invoke(cli, args)
        assert res.exit_code == 0, res.output
    a, b = np.load(tmp_path / "a" / "strategy.npz"), np.load(tmp_path / "b" / "strategy.npz")
    assert all(np.array_equal(a[f"policy{p}"], b[f"policy{p}"]) for p in range(3))


def test_the_engine_is_built_after_the_abstraction_and_takes_the_files_raise_cap(tmp_path, monkeypatch):
    """[sampler] checks ran before [abstraction] gave its table, so a hold'em blueprint asked for
    the lossless table it refuses (configs/blueprint_hunl.toml never started); and a no-limit
    file's maxRaises was ignored (a game with more raises than the file's, silently)."""
    from solverkit.blueprint.betting import DECISION

    cfg = {"game": {"name": "blueprint", "gamedef": "leduc.nolimit"}, "rule": {"name": "lcfr"},
           "averaging": {"name": "linear"}, "sampler": {"name": "external"}, "solver": {"seed": 7}}
    game = load_config(cfg).game
    assert game.bp.seed == 7
    from solverkit.blueprint import engine

    monkeypatch.setattr(engine, "LOSSLESS_LIMIT", 10)  # as hold'em's 138 million: only the buckets fit
    bucketed = load_config({**cfg, "abstraction": {"name": "ehs", "buckets": [0, 3]}}).game
    assert bucketed.bp.seed == 7 and list(bucketed.bp.table.buckets) == [3, 3]
    monkeypatch.undo()
    text = (Path(__file__).parents[1] / "solverkit/poker/gamedefs/leduc.nolimit.game").read_text()
    capped = tmp_path / "capped.game"
    capped.write_text(text.replace("END GAMEDEF", "maxRaises = 1 1\nEND GAMEDEF"))

    def most_raises(g):
        t = g.bp.tree
        return max(b.split("/")[-1].count("r") for b, k in zip(t.betting, t.kind) if k == DECISION)

    free = load_config(cfg).game
    one = load_config({**cfg, "game": {"name": "blueprint", "gamedef": str(capped)}}).game
    assert most_raises(free) > 1 and most_raises(one) == 1 and one.raise_cap == 1
    uneven = tmp_path / "uneven.game"
    uneven.write_text(text.replace("END GAMEDEF", "maxRaises = 1 2\nEND GAMEDEF"))
    with pytest.raises(ConfigError, match="maxRaises = \\[1, 2\\]"):
        _ = load_config({**cfg, "game": {"name": "blueprint", "gamedef": str(uneven)}}).game.bp


def test_pruned_regret_updates_are_unbiased():
    """One traversal of player 0 on 3-player Leduc from the same regrets, seed by seed, with
    pruning (probability 1/2) and without: the mean difference of the regret deltas is 0 within
    its standard error for every value, the skipped actions' and those below them included (it
    was not while a traversal that does not prune left them unscaled)."""
    gd = _leduc3()
    bp = Blueprint(gd)
    rng = np.random.default_rng(5)
    reg0 = np.abs(rng.normal(size=bp.reg.size)) + 0.05
    reg0[::3] = -50.0  # actions far below the threshold in most sets (others keep a positive regret)
    one = np.ones(1, dtype=np.int64)
    K = 3000
    diff = np.empty((K, reg0.size))
    for seed in range(K):
        bp.seed = seed
        out = []
        for p in (0.5, 0.0):
            reg = reg0.copy()
            bp.block(one, one, 0, np.ones(1), np.array([-10.0]), p, np.zeros(1), reg, np.zeros(reg.size))
            out.append(reg)
        diff[seed] = out[0] - out[1]
    mean, se = diff.mean(axis=0), diff.std(axis=0) / np.sqrt(K)
    assert np.all(np.abs(mean) <= 5.0 * se + 1e-9), (np.abs(mean) / np.maximum(se, 1e-300)).max()
    assert (se > 0).sum() > 50  # pruning changed many values' updates in some traversals
