"""``solverkit info CONFIG`` of a blueprint with an [abstraction] (issue 28): sized by the
config's bucket counts (hold'em's lossless abstraction is refused, a table is neither built nor
loaded), the values those of the engine built with the real table, the kept averages' memory."""

from __future__ import annotations

import re

import numpy as np
from click.testing import CliRunner

from solverkit.blueprint.betting import TERMINAL
from solverkit.cli import cli
from solverkit.core.config import load_config

HUNL = ('[game]\nname = "blueprint"\ngamedef = "holdem.nolimit.2p.reverse_blinds"\n{extra}'
        '[abstraction]\nname = "ehs"\nbuckets = [0, 50, 50, 50]\ntable = "{table}"\n')


def _values(output: str) -> list[int]:
    return [int(v.replace(",", "")) for v in re.findall(r"player \d information sets / values\s+[\d,]+ / ([\d,]+)",
                                                          output)]


def _averages(output: str) -> int:
    return int(re.search(r"average_rounds = \d\) ([\d,]+) x 8 bytes", output).group(1).replace(",", ""))


def test_holdem_config_is_sized_by_its_buckets_without_building_the_table(tmp_path):
    from solverkit.blueprint.nolimit import load_any_table, nolimit_tree

    table = tmp_path / "tables" / "hunl.npz"
    cfg = tmp_path / "hunl.toml"
    cfg.write_text(HUNL.format(extra="average_rounds = 2\n", table="tables/hunl.npz"))
    res = CliRunner().invoke(cli, ["info", str(cfg)])
    assert res.exit_code == 0, res.output
    assert "not built yet" in res.output and not table.exists()  # (building it takes minutes)
    # independent count: (buckets of the node's round) x actions over each player's decision nodes
    t = nolimit_tree(load_any_table("holdem.nolimit.2p.reverse_blinds"), "fcpa", 5_000_000, 0, None)
    buckets = np.array([169, 50, 50, 50])
    dec = t.kind != TERMINAL
    want = [int((buckets[t.round] * t.nact)[dec & (t.player == p)].sum()) for p in range(2)]
    assert _values(res.output) == want
    assert _averages(res.output) == int((buckets[t.round] * t.nact)[dec & (t.round < 2)].sum())
    n, na = sum(want), _averages(res.output)
    assert f"regrets {n:,} values x 8 bytes" in res.output and na < n


def test_small_game_sizes_equal_the_engine_with_its_table(tmp_path):
    text = ('[game]\nname = "blueprint"\ngamedef = "leduc"\naverage_rounds = 1\nregrets = "int32"\n'
            '[abstraction]\nname = "ehs"\nbuckets = [3, 4]\ntable = "t.npz"\n'
            '[rule]\nname = "rm"\n[averaging]\nname = "linear"\n[sampler]\nname = "external"\n')
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    run = CliRunner()
    before = run.invoke(cli, ["info", str(cfg)])
    assert before.exit_code == 0 and "not built yet" in before.output and not (tmp_path / "t.npz").exists()
    bp = load_config(cfg).game.bp  # builds and saves the real table
    assert (tmp_path / "t.npz").exists()
    after = run.invoke(cli, ["info", str(cfg)])
    assert after.exit_code == 0 and f"from {tmp_path / 't.npz'}" in after.output, after.output
    # built: the table's own counts (ehs may make fewer buckets than asked: Leduc's flop, 3 of 4)
    want = [int(bp.base[p + 1] - bp.base[p]) for p in range(2)]
    assert _values(after.output) == want and f"{bp.buckets.tolist()} (from" in after.output
    assert _averages(after.output) == bp.asize == bp.avg.size < bp.base[-1]
    assert f"regrets {int(bp.base[-1]):,} values x 4 bytes (int32)" in after.output
    # not built: the counts asked, over the same tree
    t, asked = bp.tree, np.array([3, 4])
    dec = t.kind != TERMINAL
    assert _values(before.output) == [int((asked[t.round] * t.nact)[dec & (t.player == p)].sum()) for p in range(2)]
    assert _averages(before.output) == int((asked[t.round] * t.nact)[dec & (t.round < 1)].sum()) == bp.asize
