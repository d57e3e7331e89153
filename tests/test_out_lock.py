"""One solve at a time writes an output directory (issue 26 round 2: two solves into one --out
at once both said 'outputs in cc', wrote one metrics.csv in turns, a row '202512' of both, and
left one's config.toml, iterations = 2000, beside the other's result.json of 3000)."""

from __future__ import annotations

import pytest

from solverkit.core.config import load_config
from solverkit.core.run_dir import hold_out_dir, release_out_dir
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError

CFR = {"game": "kuhn_tree", "preset": "cfr"}


@pytest.mark.parametrize("resume, force", [(False, False), (False, True)])
def test_a_solve_into_an_out_another_solve_holds_is_refused_and_touches_nothing(tmp_path, resume, force):
    out = tmp_path / "out"
    lock = hold_out_dir(out)  # another solve, between its check and its first file
    try:
        if force:  # its first row (without --force the first check already refuses a run's files)
            (out / "metrics.csv").write_text("iteration\n1\n")
        with pytest.raises(ConfigError, match=r"--out .*out is being written by another solve right now"):
            run_solve(load_config(CFR), iterations=2, out=out, resume=resume, force=force)
        assert sorted(p.name for p in out.iterdir()) == (["metrics.csv"] if force else [])
        if force:  # --force would have set it aside, then put it back or dropped it
            assert (out / "metrics.csv").read_text() == "iteration\n1\n"
            (out / "metrics.csv").unlink()
    finally:
        release_out_dir(lock)
    result = run_solve(load_config(CFR), iterations=2, out=out)  # once it is released
    assert result.iterations == 2 and (out / "result.json").is_file()
    run_solve(load_config(CFR), iterations=3, out=out, force=True)  # the lock of a finished run is gone
