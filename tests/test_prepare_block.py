"""The first block of passes is prepared outside solve time (Game.prepare_block): the poker engine
loads dfs_block for the exact argument types the block then runs with, so the timed call takes the
compiled entry point and no second overload is made."""

import subprocess
import sys

CODE = """
import numpy as np
from solverkit.core.config import load_config
from solverkit.core.game import PassBlock
from solverkit.core.solver import Solver
from solverkit.poker.kernels import dfs_block
game = {"name": "holdem_spot", "board": "QsJh2h8d3c", "pot": 20, "stack": 80, "oop_range": "AA,KK,QQ,AKs,JTs",
        "ip_range": "KK,QQ,JJ,AQs,T9s", "sizes": {"river": {"bet": "50%, a", "raise": "a"}}}
a = load_config({"preset": "dcfr", "game": game, "solver": {"iterations": 30}})
s = Solver(a)
s.step(1)
before = {k: np.array(v) for k, v in s.store.read("root").items()}
s.game.prepare_block(s.store, PassBlock(2, 10, s.groups, a.rule, a.averaging, a.sampler), s.transport)
after = s.store.read("root")
same = all(np.array_equal(before[k], after[k]) for k in before)
loaded = len(dfs_block.signatures)
s.step(10)
print(loaded, same, len(dfs_block.signatures), s.iteration)
s.close()
"""


def test_the_first_block_is_loaded_for_the_types_it_runs_with():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    # loaded before any block ran, the values untouched, and the block ran on that one overload
    assert out.stdout.split() == ["1", "True", "1", "11"]


def test_prepare_block_is_a_no_op_by_default():
    from solverkit.core.game import Game

    assert Game.prepare_block(None, None, None, None) is None
