"""Blueprint regrets stored as int32 ([game] regrets = "int32", solverkit/blueprint/int32.py):
the fixed point against the float64 engine, the explicit Linear CFR discount against its weights,
reproducibility, checkpoints, memory, the floor, clipping and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.blueprint.engine import Blueprint
from solverkit.blueprint.int32 import PLURIBUS_FLOOR, Int32Regrets, auto_scale
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError
from solverkit.poker.nplayer import load_table


def _rules(until=0, averaging="linear"):
    a = load_config({"game": {"name": "kuhn_tree", "players": 3}, "rule": {"name": "lcfr", "until": until},
                     "averaging": {"name": averaging}, "sampler": {"name": "external"},
                     "solver": {"seed": 1, "eval_every": 10**9}})
    return a.rule, a.averaging


@pytest.mark.parametrize("prune", [{}, {"prune_threshold": -0.05, "prune_start": 10}])
def test_int32_with_a_discount_every_iteration_is_the_float_engine_in_fixed_point(prune):
    """With discount_every = 1 the explicit discount t/(t+1) weighs iteration t by t, as the
    float64 engine's lazy weights do: after T iterations the int32 regrets are the float64 ones
    x regret_scale / T, up to the roundings (half a unit an update and a discount)."""
    rule, averaging = _rules()
    gd = load_table("kuhn.limit.3p")
    T = 40
    for seed in (1, 2):
        f = Blueprint(gd, seed=seed, rule=rule, averaging=averaging, **prune)
        i = Blueprint(gd, seed=seed, rule=rule, averaging=averaging, regrets="int32", discount_every=1, **prune)
        f.run(T)
        i.run(T)
        assert i.reg.dtype == np.int32 and i.reg.nbytes * 2 == f.reg.nbytes
        expected = f.reg * i.fixed.scale / T
        assert np.abs(expected).max() > 5e4  # (large values: the tolerance below is tight)
        assert np.abs(i.reg - expected).max() <= T * 0.5 + 1.0


def test_interval_discounts_weigh_interval_k_by_k_until_lcfr_ends():
    """The factors' product from iteration t on, times the last weight K + 1, is ceil(t / D) for
    t up to the last discount K D, then K + 1 (Pluribus's T / (T + 1) every interval)."""
    fx = Int32Regrets(1.0, PLURIBUS_FLOOR, 7)
    until, n = 50, 80
    ts = np.arange(1, n + 1)
    f = fx.discounts(ts, until)
    K = until // 7
    assert np.count_nonzero(f != 1.0) == K
    for t in ts:
        weight = np.prod(f[t:]) * (K + 1)  # the discounts before iterations t + 1 .. n
        assert weight == pytest.approx(min(-(-t // 7), K + 1), rel=1e-12)
    assert not (fx.discounts(ts, None) != 1.0).any()  # no lcfr: no discount
    assert np.count_nonzero(fx.discounts(ts, 0) != 1.0) == (n - 1) // 7  # lcfr throughout
    assert Int32Regrets(1.0, -1, 0).interval(4000) == 100 and auto_scale(60_000) == 1.0  # Pluribus: 1 unit a chip


def test_same_seed_blocks_and_checkpoints_reproduce_bit_for_bit(tmp_path):
    rule, averaging = _rules(until=300)
    gd = load_table("kuhn.limit.3p")
    kw = dict(seed=4, rule=rule, averaging=averaging, regrets="int32", prune_threshold=-0.5, prune_start=200)
    one = Blueprint(gd, **kw)
    one.run(1000)
    two = Blueprint(gd, **kw)
    two.run(123)
    path = two.save(tmp_path / "bp.npz")
    three = Blueprint(gd, **kw)
    three.load(path)
    three.run(400)
    three.run(477)
    assert np.array_equal(one.reg, three.reg) and np.array_equal(one.avg, three.avg)
    assert one.reg.dtype == np.int32 and one.reg.min() < 0 < one.reg.max()
    other = Blueprint(gd, seed=4, rule=rule, averaging=averaging)  # float64: another blueprint
    with pytest.raises(ConfigError, match="regrets' type"):
        other.load(path)
    with pytest.raises(ConfigError, match="replicas = 2 with regrets"):
        Blueprint(gd, **kw).run(10, replicas=2)


def test_floor_and_clipping():
    """Regrets stay at or above the floor; a scale too large clips at the int32 range and counts."""
    gd = load_table("kuhn.limit.3p")
    bp = Blueprint(gd, seed=1, regrets="int32", regret_floor=-0.25)
    bp.run(2000)
    assert bp.fixed.floor == round(-0.25 * bp.fixed.scale) and bp.reg.min() == bp.fixed.floor
    assert bp.clipped[0] == 0
    big = Blueprint(gd, seed=1, regrets="int32", regret_scale=2.0**29)
    big.run(2000)
    assert big.clipped[0] > 0 and 1 <= big.clipped[1] <= 2000 and big.reg.max() == 2**31 - 1
    with pytest.raises(ConfigError, match="never prune"):
        Blueprint(gd, regrets="int32", regret_floor=-1.0, prune_threshold=-2.0)
    with pytest.raises(ConfigError, match="regrets = 'int16'"):
        Blueprint(gd, regrets="int16")


def _config(**game):
    return {"game": {"name": "blueprint", "gamedef": "kuhn.limit.3p", "regrets": "int32", **game},
            "rule": {"name": "lcfr", "until": 500}, "averaging": {"name": "linear", "until": 500},
            "sampler": {"name": "external", "prune_threshold": -1.0, "prune_start": 500},
            "solver": {"seed": 3, "eval_every": 1000}}


def test_through_the_solver_half_the_store_and_refusals(capsys):
    r1 = run_solve(load_config(_config()), iterations=3000)
    r2 = run_solve(load_config(_config()), iterations=3000)
    assert all(np.array_equal(a, b) for a, b in zip(r1.strategy, r2.strategy))
    ref = run_solve(load_config(_config(regrets="float64")), iterations=3000).metrics[-1]["nash_conv"]
    late = r1.metrics[-1]["nash_conv"]  # (seeds 1-3: 0.047, 0.065, 0.040 against float64's 0.071, 0.072, 0.043)
    assert late < 0.7 * r1.metrics[0]["nash_conv"] and late < 2.0 * ref
    game = load_config(_config()).game
    spec = game.segments(True)[0].arrays
    # 4 bytes a regret, 8 an average (Kuhn has one round: every average kept)
    assert spec["regret"] * 2 == spec["avg"] == int(game.bp.asize) == int(game.bp.base[-1])
    for transport in ({"name": "local", "threads": 2}, {"name": "zmq", "workers": 1, "spawn": 1}):
        with pytest.raises(ConfigError, match="replicas = 2 with regrets"):  # before any worker starts
            load_config({**_config(replicas=2), "transport": transport})
    with pytest.raises(ConfigError, match="cannot be combined with \\[store\\] regret_scale"):
        run_solve(load_config({**_config(), "store": {"regret_scale": 16}}), iterations=10)
    from types import SimpleNamespace

    from solverkit.blueprint.int32 import lcfr_until

    with pytest.raises(ConfigError, match="'lazy' with \\[game\\] regrets = \"int32\""):  # (a plugin's lazy rule)
        lcfr_until(SimpleNamespace(name="lazy", increment_weight=lambda t: t))
    with pytest.raises(ConfigError, match="at or below the int32 regrets' floor"):
        run_solve(load_config(_config(regret_scale=2.0**29)), iterations=300)
    run_solve(load_config({**_config(regret_scale=2.0**29), "sampler": {"name": "external"}}), iterations=300)
    err = capsys.readouterr().err
    assert err.count("int32 blueprint regrets saturated") == 1, err


def test_checkpoint_resume_and_info_through_the_command_line(tmp_path):
    from click.testing import CliRunner

    from solverkit.cli import cli

    cfg = tmp_path / "c.toml"
    cfg.write_text('[game]\nname = "blueprint"\ngamedef = "kuhn.limit.3p"\nregrets = "int32"\ndiscount_every = 7\n'
                   '[rule]\nname = "lcfr"\nuntil = 400\n[averaging]\nname = "linear"\nuntil = 400\n[sampler]\n'
                   'name = "external"\nprune_threshold = -1.0\n[solver]\nseed = 1\n')
    run = CliRunner()
    for args in (["solve", str(cfg), "--out", str(tmp_path / "a"), "--iterations", "3000", "--quiet"],
                 ["solve", str(cfg), "--out", str(tmp_path / "b"), "--iterations", "1000", "--checkpoint-every",
                  "1000", "--quiet"],
                 ["solve", "--resume", str(tmp_path / "b"), "--iterations", "3000", "--quiet"]):
        res = run.invoke(cli, args)
        assert res.exit_code == 0, res.output
    a, b = np.load(tmp_path / "a" / "strategy.npz"), np.load(tmp_path / "b" / "strategy.npz")
    assert all(np.array_equal(a[f"policy{p}"], b[f"policy{p}"]) for p in range(3))
    res = run.invoke(cli, ["info", str(cfg)])
    assert res.exit_code == 0 and "regrets 96 values x 4 bytes (int32) = 384 B" in res.output, res.output


def test_disk_backend_and_compressors_keep_the_packed_ints(tmp_path):
    """The int32 values live two to a float64 slot of the store's `regret`: the disk backend and a
    compressor (bytes in, bytes out) give the memory store's strategy bit for bit."""
    ref = run_solve(load_config(_config()), iterations=1500).strategy
    for extra in ({"store": {"backend": "disk", "path": str(tmp_path / "s")}}, {"compressor": {"name": "zlib"}},
                  {"compressor": {"name": "huffman"}}):
        got = run_solve(load_config({**_config(), **extra}), iterations=1500).strategy
        assert all(np.array_equal(a, b) for a, b in zip(ref, got)), extra


def test_a_resumed_run_keeps_the_clip_count_of_its_checkpoint(tmp_path, capsys):
    """The int32 clip count (and its first iteration) travel in the checkpoint: a run resumed after
    clipping still says so, with the first iteration it clipped at, as the uninterrupted run does."""
    cfg = {**_config(regret_scale=2.0**29), "sampler": {"name": "external"}}
    whole = run_solve(load_config(cfg), iterations=400)
    out_whole = capsys.readouterr().err
    run_solve(load_config(cfg), iterations=200, out=tmp_path / "run", checkpoint_every="200")
    capsys.readouterr()
    asm = load_config(cfg)
    back = run_solve(asm, out=tmp_path / "run", resume=True, iterations=400)
    out_back = capsys.readouterr().err
    assert all(np.array_equal(a, b) for a, b in zip(whole.strategy, back.strategy))
    line = [ln for ln in out_whole.splitlines() if "int32 blueprint regrets saturated" in ln]
    again = [ln for ln in out_back.splitlines() if "int32 blueprint regrets saturated" in ln]
    assert len(line) == 1 and len(again) == 1
    first = int(asm.game.bp.clipped[1])
    assert 1 <= first <= 200 and f"by iteration {first:,}" in line[0] + again[0]
