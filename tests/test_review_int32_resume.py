"""Review of the int32 blueprint's explicit discount across a resume: a run stopped at a
checkpoint just before a discount iteration (and one in mid-interval) and resumed ends with the
uninterrupted run's strategy bit for bit (the discount is applied once, at the same iteration)."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli

CONFIG = ('[game]\nname = "blueprint"\ngamedef = "leduc"\nregrets = "int32"\ndiscount_every = 5\n'
          '[rule]\nname = "lcfr"\nuntil = 40\n[averaging]\nname = "linear"\n[sampler]\nname = "external"\n'
          'prune_threshold = -0.5\nprune_start = 8\n[solver]\nseed = 3\neval_every = 1000\n')


@pytest.mark.parametrize("stop", [10, 13])
def test_resume_at_a_discount_boundary_is_the_straight_run(tmp_path, stop):
    cfg = tmp_path / "c.toml"
    cfg.write_text(CONFIG)
    run = CliRunner()
    for args in (["solve", str(cfg), "--out", str(tmp_path / "a"), "--iterations", "60", "--quiet"],
                 ["solve", str(cfg), "--out", str(tmp_path / "b"), "--iterations", str(stop), "--checkpoint-every",
                  str(stop), "--quiet"],
                 ["solve", "--resume", str(tmp_path / "b"), "--iterations", "60", "--quiet"]):
        res = run.invoke(cli, args)
        assert res.exit_code == 0, res.output
    a, b = np.load(tmp_path / "a" / "strategy.npz"), np.load(tmp_path / "b" / "strategy.npz")
    assert all(np.array_equal(a[f"policy{p}"], b[f"policy{p}"]) for p in range(2))
    # (the discounts' timing shows in the strategy: one interval longer is another strategy)
    other = tmp_path / "other.toml"
    other.write_text(CONFIG.replace("discount_every = 5", "discount_every = 6"))
    res = run.invoke(cli, ["solve", str(other), "--out", str(tmp_path / "o"), "--iterations", "60", "--quiet"])
    assert res.exit_code == 0, res.output
    o = np.load(tmp_path / "o" / "strategy.npz")
    assert not all(np.array_equal(a[f"policy{p}"], o[f"policy{p}"]) for p in range(2))
