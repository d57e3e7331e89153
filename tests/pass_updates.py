"""What one CFR pass changes, seed by seed: the updated player's regrets and the opponent's
average, from given regrets (shared by the sampler tests of the tree and poker engines)."""

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
