"""Checks the sampler tests of the tree and poker engines share: what one CFR pass changes, seed
by seed (the updated player's regrets, the opponent's average), and a resumed run against one
straight run."""

import numpy as np

from solverkit.core.game import PassJob
from solverkit.core.solver import make_store


def pass_updates(asm, regrets, i, seeds):
    """Per seed: (regret change of player i, the opponent's average) after one pass from `regrets`."""
    game, store = asm.game, make_store(asm)
    deltas, avgs = [], []
    for s in seeds:
        asm.sampler.seed = s
        with store.open("root", ("regret0", "regret1", "avg0", "avg1")) as seg:
            for p in (0, 1):
                seg[f"regret{p}"][:] = regrets[p]
                seg[f"avg{p}"][:] = 0.0
        game.cfr_pass(store, PassJob(1, (i,), asm.rule, asm.averaging, asm.sampler))
        seg = store.read("root")
        deltas.append(seg[f"regret{i}"] - regrets[i])
        avgs.append(np.array(seg[f"avg{1 - i}"]))
    return np.array(deltas), np.array(avgs)


def curve(res):
    """(iteration, exploitability, nodes touched) of each metrics row of a run's result."""
    return [(r["iteration"], r["exploitability"], r["nodes_touched"]) for r in res.metrics]


def assert_resume_is_one_run(cfg, tmp_path, first: int, total: int):
    """A run of `total` iterations stopped at `first` (checkpoints every 150) and resumed gives the
    curve and strategy of one straight run: `cfg(iterations=...)` builds the config."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    straight = run_solve(load_config(cfg(iterations=total)))
    out = tmp_path / "run"
    run_solve(load_config(cfg(iterations=first)), out=out, checkpoint_every="150")
    resumed = run_solve(load_config(cfg(iterations=total)), out=out, resume=True)
    assert curve(resumed) == curve(straight)
    assert all(np.array_equal(x, y) for x, y in zip(resumed.strategy, straight.strategy))
