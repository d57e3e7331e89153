"""Samplers on the poker engine (public_chance and public_external sampling over the public
tree): the full update against a slow history-by-history reference, each sampled update's
expectation against the full update, sparse passes, reproducibility by seed (runs, a resume,
zmq workers), blocks of passes in one kernel call, and the refusals."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.layout import policy
from solverkit.core.solver import Solver, run_solve
from solverkit.errors import ConfigError
from solverkit.poker.evaluator import acpc_rank

from .pass_updates import assert_resume_is_one_run, curve, pass_updates
from .poker_reference import cfr_update, flat_of, policy_from_flat

TINY_HULHE = {"name": "hulhe", "ranks": 4, "suits": 2, "rounds": 2, "max_raises": [1, 1], "split_round": 0}
GAMES = {"kuhn": {"name": "kuhn"}, "leduc": {"name": "leduc"}, "hulhe": TINY_HULHE}


def _asm(game, sampler="full", iso=True, **solver):
    """MCCFR's rule (rm: the regret change is the instantaneous regret) with alternating passes."""
    return load_config({"preset": "cfr", "game": {**GAMES[game], "isomorphism": iso}, "sampler": sampler,
                        "solver": {"update": "alternating", **solver}})


def _regrets(game, seed=5):
    rng = np.random.default_rng(seed)  # some negative entries: policies with zeros
    return [rng.uniform(-0.3, 1.0, game.layout(p).size) for p in (0, 1)]


@pytest.mark.parametrize("name", list(GAMES))
def test_full_update_equals_the_slow_reference(name):
    asm = _asm(name, iso=False)
    game, gd = asm.game, asm.game.gd
    regrets = _regrets(game)
    sig = [policy(regrets[p], game.layout(p)) for p in (0, 1)]

    def rank(cards):
        return acpc_rank(np.array(cards, dtype=np.int64), gd.num_suits)

    for i in (0, 1) if name != "hulhe" else (0,):
        delta, avg = cfr_update(gd, game.tree.bet, policy_from_flat(game, sig), rank, i)
        got_delta, got_avg = pass_updates(asm, regrets, i, [0])
        np.testing.assert_allclose(got_delta[0], flat_of(game, delta, i), rtol=0, atol=1e-13)
        np.testing.assert_allclose(got_avg[0], flat_of(game, avg, 1 - i), rtol=0, atol=1e-13)


CASES = [("public_chance", "kuhn", 200), ("public_external", "kuhn", 3000), ("public_chance", "leduc", 3000),
         ("public_external", "leduc", 3000), ("public_chance", "hulhe", 2000), ("public_external", "hulhe", 2000)]


def _check_mean(got, want, seeds):
    """`got` (one row per seed) averages to `want`: every value that at least 20 seeds moved
    within 5 standard errors of the mean, those fewer seeds moved (rare paths: the opponent's
    unlikely actions, many boards) holding under 20% of the update's mass, and 20 random
    projections of the whole update within 5 standard errors."""
    assert np.abs(want).max() > 1e-3  # the reference is not trivially zero
    scale = np.abs(want).max()
    moved = np.abs(got) > 1e-9 * scale  # (rounding leaves 1e-17s where nothing moved)
    ok = moved.sum(axis=0) >= 20
    se = got.std(axis=0) / np.sqrt(seeds)
    err = np.abs(got.mean(axis=0) - want)
    assert np.all((err <= 5.0 * se + 1e-12 * scale)[ok]), (err.max(), (err / (se + 1e-15))[ok].max())
    assert np.abs(want[~ok]).sum() <= 0.2 * np.abs(want).sum()
    z = np.random.default_rng(0).normal(size=(want.size, 20))
    proj = got @ z
    perr = np.abs(proj.mean(axis=0) - want @ z)
    assert np.all(perr <= 5.0 * proj.std(axis=0) / np.sqrt(seeds) + 1e-12 * scale * np.abs(z).sum(axis=0))


CASES = [("public_chance", "kuhn", 200), ("public_external", "kuhn", 3000), ("public_chance", "leduc", 3000),
         ("public_external", "leduc", 3000), ("public_chance", "hulhe", 2000), ("public_external", "hulhe", 2000)]


@pytest.mark.parametrize("sampler, name, seeds", [  # (CI time: the hold'em cases, 7-10 s, run with -m slow)
    pytest.param(*c, id=f"{c[0]}-{c[1]}", marks=[pytest.mark.slow] if c[1] == "hulhe" else [])
    for c in CASES])
def test_expected_sampled_update_is_the_full_update(sampler, name, seeds):
    """Averaged over seeds, a sampled pass changes the regrets and the average as the full pass
    does (the full pass is the slow reference's, test above). Suit isomorphism on: boards are
    drawn by their orbits' sizes."""
    full, asm = _asm(name), _asm(name, sampler)
    regrets = _regrets(full.game)
    for i in (0, 1):
        want = pass_updates(full, regrets, i, [0])
        got = pass_updates(asm, regrets, i, range(seeds))
        for g, w in zip(got, want):
            _check_mean(g, w[0], seeds)
            if name != "kuhn" or sampler == "public_external":  # something to sample: passes differ
                assert g.std(axis=0).max() > 0
            if sampler == "public_chance":  # every board has probability >= 1/56: each value moved often
                moved = np.abs(g) > 1e-9 * np.abs(w[0]).max()
                assert np.all((moved.sum(axis=0) >= 30) | (np.abs(w[0]) <= 1e-9 * np.abs(w[0]).max()))


@pytest.mark.parametrize("sampler", ["public_chance", "public_external"])
def test_a_sampled_pass_touches_one_board_per_round(sampler):
    asm = _asm("hulhe", sampler)
    game = asm.game
    regrets = _regrets(game)
    deltas, avgs = pass_updates(asm, regrets, 0, [3])
    bet, rs = game.tree.bet, game.round_start
    touched = set()
    for n, k in zip(*game.full.units[0]):
        r = int(bet.round[n])
        off = game.full.offset(int(n), int(k), 0, r)
        if np.any(deltas[0][off: off + game.tree.num_hands * int(bet.num_actions[n])] != 0.0):
            touched.add((r, int(k)))
    flops = {k for r, k in touched if r == 1}
    assert len(flops) == 1 and int(rs[2] - rs[1]) > 10  # one flop of many
    assert (0, 0) in touched


def _cfg(sampler="public_chance", seed=7, game="leduc", iterations=300, transport=None, **solver):
    cfg = {"preset": "cfr_plus", "game": dict(game) if isinstance(game, dict) else game, "sampler": sampler,
           "solver": {"seed": seed, "iterations": iterations, "eval_every": 100, **solver}}
    if transport:
        cfg["transport"] = transport
    return cfg


@pytest.mark.parametrize("sampler", ["public_chance", "public_external"])
def test_same_seed_same_numbers_other_seed_other_numbers(sampler):
    a = run_solve(load_config(_cfg(sampler)))
    b = run_solve(load_config(_cfg(sampler)))
    c = run_solve(load_config(_cfg(sampler, seed=8)))
    assert curve(a) == curve(b)
    assert all(np.array_equal(x, y) for x, y in zip(a.strategy, b.strategy))
    assert [e for _, e, _ in curve(a)] != [e for _, e, _ in curve(c)]
    full = run_solve(load_config(_cfg("full", iterations=2, eval_every=1)))
    # one board per round: a sampled iteration visits fewer public nodes than a full one
    assert a.metrics[-1]["nodes_touched"] < 300 * full.metrics[-1]["nodes_touched"] / 2


def test_resume_gives_the_numbers_of_one_run(tmp_path):
    assert_resume_is_one_run(_cfg, tmp_path, 200, 500)


SPLIT = {"name": "leduc", "split_round": 1, "chunks": 2}


@pytest.mark.slow  # (CI time: the zmq transport tests compare zmq with local runs too)
def test_zmq_workers_give_the_local_numbers():
    """Only the sampled subgames go to the workers, which draw their boards from the same stream."""
    zmq = {"name": "zmq", "workers": 2, "spawn": 2, "threads": 1, "heartbeat": 0.2, "timeout": 30.0,
           "connect_timeout": 60.0}
    for sampler in ("public_chance", "public_external"):
        local = run_solve(load_config(_cfg(sampler, game=SPLIT, iterations=60, eval_every=20)))
        remote = run_solve(load_config(_cfg(sampler, game=SPLIT, iterations=60, eval_every=20, transport=zmq)))
        assert curve(remote) == curve(local)
        assert all(np.array_equal(x, y) for x, y in zip(remote.strategy, local.strategy))


@pytest.mark.parametrize("sampler", ["public_chance", "public_external"])
def test_a_split_game_samples_the_boards_of_the_whole_game(sampler):
    """Only the subgames below the dealt boards are mapped (one chunk of the one cut board).
    Draws are keyed by the boards' cards: a trunk and its subgames draw what the whole tree
    draws, so the runs agree up to the order of additions."""
    asm = load_config(_cfg(sampler, game=SPLIT))
    mapped = []
    subgame_pass = asm.game.subgame_pass
    asm.game.subgame_pass = lambda key, *rest: mapped.append(key) or subgame_pass(key, *rest)
    sv = Solver(asm)
    sv.step()
    game = asm.game
    E = len(game.entries)
    assert len(game.subgame_keys()) == 2 * E  # two chunks per round-end node ...
    assert len(mapped) == 2 * E and len({k[2] for k in mapped[:E]}) == 1  # ... one mapped per pass (2 passes)
    whole = run_solve(load_config(_cfg(sampler, iterations=40, eval_every=40)))
    cut = run_solve(load_config(_cfg(sampler, game=SPLIT, iterations=40, eval_every=40)))
    assert cut.metrics[-1]["nodes_touched"] == whole.metrics[-1]["nodes_touched"]
    for x, y in zip(cut.strategy, whole.strategy):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-9)


@pytest.mark.parametrize("preset", ["cfr_plus", "dcfr"])
def test_blocks_of_full_passes_give_the_numbers_of_one_call_each(preset):
    """Leduc's full passes run many iterations per kernel call; the numbers are bit for bit
    those of one call per pass."""
    cfg = {"preset": preset, "game": "leduc"}
    one, block = Solver(load_config(cfg)), Solver(load_config(cfg))
    assert block.batches
    for _ in range(40):
        one._step_one()
    block.step(3)
    block.step(37)
    for kind in ("current", "average"):
        for x, y in zip(one.strategy(kind), block.strategy(kind)):
            np.testing.assert_array_equal(x, y)
    assert one.nodes_touched == block.nodes_touched == 40 * 2 * 96  # two passes of 96 public nodes
    a = run_solve(load_config({**cfg, "solver": {"iterations": 60, "eval_every": 1}}))
    b = run_solve(load_config({**cfg, "solver": {"iterations": 60, "eval_every": 60}}))
    assert a.metrics[-1]["exploitability"] == b.metrics[-1]["exploitability"]


def test_games_and_stores_that_need_one_call_per_pass():
    split = Solver(load_config({"preset": "cfr_plus", "game": SPLIT}))
    fixed = Solver(load_config({"preset": "cfr_plus", "game": "leduc", "compressor": {"name": "zlib"},
                                "store": {"regret_scale": 64, "avg_scale": 64}}))
    # a predictive rule runs in the kernel on a float64 store (blocks), not on a fixed-point one
    custom = Solver(load_config({"preset": "pcfr_plus", "game": "leduc",
                                 "store": {"regret_scale": 65536, "avg_scale": 65536, "state_scale": 65536}}))
    predictive = Solver(load_config({"preset": "pcfr_plus", "game": "leduc"}))
    assert not (split.batches or fixed.batches or custom.batches) and predictive.batches


@pytest.mark.parametrize("cfg, needle", [
    # outcome sampling runs Leduc on the tree engine, unless a poker-engine setting asks for this one
    ({"sampler": "outcome", "game": {"name": "leduc", "split_round": 1}},
     "game 'leduc' does not support sampling scheme 'outcome' (its engine runs: full, public_chance, public_external)"),
    ({"sampler": "public_external", "solver": {"update": "simultaneous"}}, "[sampler] name = 'public_external' on game 'leduc' needs "
                                                      "[solver] update = \"alternating\""),
    # the literature's schemes draw private cards: the poker engine names what it runs instead
    ({"sampler": {"name": "external", "epsilon": 0.5}}, "unknown parameter"),
    ({"sampler": "public_chance", "rule": "dcfr"}, "regret rule 'dcfr' rescales every stored regret"),
    ({"sampler": "public_chance", "averaging": "power"}, "averaging 'power' decays the whole average"),
    ({"sampler": "public_chance", "preset": "pcfr_plus"}, "regret rule 'pcfr_plus'"),
])
def test_refusals_name_the_setting(cfg, needle):
    with pytest.raises(ConfigError) as err:
        load_config({"preset": "cfr_plus", "game": "leduc", **cfg})
    assert needle in str(err.value)


@pytest.mark.parametrize("old, new", [("chance", "public_chance"), ("external", "public_external")])
def test_the_earlier_names_read_as_what_the_engine_runs_with_a_warning(old, new, capsys):
    """Runs and configs written before the rename still read (exploit, report, --resume), and
    say aloud which scheme they name: never silently another algorithm."""
    asm = load_config({"preset": "cfr_plus", "game": "leduc", "sampler": old})
    assert asm.sampler.name == new and asm.resolved["sampler"]["name"] == new
    err = capsys.readouterr().err
    assert f"[sampler] name = '{old}' on game 'leduc' is read as '{new}'" in err and "draws the private cards" in err
    # the tree engine runs the literature's scheme under that name: no warning there
    assert load_config({"preset": "cfr_plus", "game": "leduc_tree", "sampler": old}).sampler.name == old
    assert "read as" not in capsys.readouterr().err


def test_nodes_touched_counts_the_public_decision_nodes_a_pass_covers():
    """docs/samplers.md: a full pass counts every board's decision nodes, a sampled pass the
    dealt board's per round (pruned subtrees included), the same for both public schemes; the
    tree engine counts every history it enters (a full pass: the whole tree)."""
    per_round = None
    counts = {}
    for sampler in ("full", "public_chance", "public_external"):
        solver = Solver(load_config({"preset": "cfr_plus", "game": "leduc", "sampler": sampler}))
        solver.step(1)
        counts[sampler] = solver.nodes_touched
        bet = solver.game.tree.bet
        per_round = [int(np.count_nonzero((bet.kind == 0) & (bet.round == r))) for r in range(2)]
        boards = np.diff(solver.game.round_start)
    assert counts["full"] == 2 * int(np.dot(per_round, boards))  # two alternating passes: 2 x (6 + 30 x 3)
    assert counts["public_chance"] == counts["public_external"] == 2 * sum(per_round)
    tree = Solver(load_config({"preset": "cfr_plus", "game": "leduc_tree"}))
    tree.step(1)
    assert tree.nodes_touched == 2 * tree.game.tree.num_nodes


def test_outcome_sampling_runs_leduc_on_the_tree_engine_saying_so(capsys):
    """[sampler] outcome, which only the tree engine runs, on the poker engine's Leduc: the same
    game as leduc_tree (the same numbers, bit for bit), a note on stderr, and the [game] table
    kept as given (a resumed run chooses the same)."""
    from solverkit.core.solver import run_solve

    asm = load_config({"preset": "cfr_plus", "game": "leduc", "sampler": "outcome", "solver": {"seed": 3}})
    assert asm.game.name == "leduc_tree" and asm.resolved["game"]["name"] == "leduc"
    assert "game 'leduc' runs on the generic tree engine as 'leduc_tree'" in capsys.readouterr().err
    tree = load_config({"preset": "cfr_plus", "game": "leduc_tree", "sampler": "outcome", "solver": {"seed": 3}})
    a, b = run_solve(asm, iterations=300), run_solve(tree, iterations=300)
    assert a.exploitability == b.exploitability and a.iterations == b.iterations == 300
