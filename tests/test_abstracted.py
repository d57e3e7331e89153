"""Card abstraction in the exact poker engine (solverkit/poker/abstracted.py): lossless rounds run
the unabstracted arithmetic bit for bit; a lossy abstraction plays one policy per bucket and its
exploitability is the real game's, as OpenSpiel computes it for the same policy."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError
from solverkit.poker.abstracted import abstracted


class RankTable:
    """A table written here, independent of solverkit.abstraction: round 0 the hole card's rank;
    round 1 (hole rank, board rank) ("ranks", lossless up to suits) or pair / no pair ("pair")."""

    def __init__(self, gd, kind):
        self.S, self.R, self.kind = gd.num_suits, gd.num_ranks, kind
        self.buckets = (0,) * gd.num_rounds if kind == "lossless" else (self.R, 2 if kind == "pair" else self.R ** 2)

    def lossless(self, r):
        return self.kind == "lossless"

    def bucket_of(self, r, cards):
        ranks = cards // self.S
        if r == 0:
            return ranks[:, 0]
        if self.kind == "pair":
            return (ranks[:, 0] == ranks[:, 1]).astype(np.int64)
        return ranks[:, 0] * self.R + ranks[:, 1]


def _run(preset, kind=None, iterations=30, game=None):
    a = load_config({"preset": preset, "game": game or {"name": "leduc"}, "solver": {"eval_every": 10}})
    if kind is not None:
        a.game = abstracted(a.game, RankTable(a.game.gd, kind), {"name": kind})
    return a.game, run_solve(a, iterations=iterations)


@pytest.mark.parametrize("preset", ["cfr_plus", "pcfr_plus", "dcfr"])
def test_lossless_rounds_give_the_unabstracted_doubles(preset):
    _, plain = _run(preset)
    _, lossless = _run(preset, "lossless")
    assert [m["exploitability"] for m in lossless.metrics] == [m["exploitability"] for m in plain.metrics]
    assert [m["br_0"] for m in lossless.metrics] == [m["br_0"] for m in plain.metrics]


def test_buckets_lossless_up_to_suits_converge_as_the_real_game():
    _, plain = _run("cfr_plus", iterations=40)
    _, ranks = _run("cfr_plus", "ranks", iterations=40)
    for a, b in zip(plain.metrics, ranks.metrics):
        assert b["exploitability"] == pytest.approx(a["exploitability"], rel=1e-9)


def test_a_lossy_abstraction_plays_one_policy_per_bucket_and_openspiel_agrees_on_its_exploitability():
    pytest.importorskip("pyspiel")
    import pyspiel
    from open_spiel.python.algorithms import exploitability

    from solverkit.poker.openspiel import openspiel_name, openspiel_policy

    game, result = _run("cfr_plus", "pair", iterations=60, game={"name": "leduc", "isomorphism": False})
    strategy = result.strategy
    # one policy per (betting node, bucket): every hand of a bucket on every board plays it
    t, bet = game.tree, game.tree.bet
    table = game.abstraction_table
    for p in (0, 1):
        pol = strategy[p]
        seen = {}
        for n in np.flatnonzero((bet.kind == 0) & (bet.player == p)):
            r, A = int(bet.round[n]), int(bet.num_actions[n])
            for g in range(int(game.round_start[r]), int(game.round_start[r + 1])):
                cards = t.boards.cards[g, : t.boards.num_cards[g]]
                for h in np.flatnonzero(t.valid[g]):
                    b = int(table.bucket_of(r, np.concatenate([t.hands[h], cards])[None, :])[0])
                    off = game.value_offset(int(n), g, int(h))
                    row = pol[off : off + A]
                    key = (int(n), b)
                    if key in seen:
                        np.testing.assert_array_equal(row, seen[key])
                    seen[key] = row
    ours = result.metrics[-1]["exploitability"]
    theirs = exploitability.exploitability(pyspiel.load_game(openspiel_name(game)), openspiel_policy(game, strategy))
    assert ours == pytest.approx(theirs, rel=1e-9)
    assert ours > 0.1  # pair / no pair forgets the hole card: far from an equilibrium of the real game


def test_abstraction_refuses_a_split_game():
    a = load_config({"preset": "cfr_plus", "game": {"name": "leduc", "split_round": 1}})
    with pytest.raises(ConfigError, match="split_round"):
        abstracted(a.game, RankTable(a.game.gd, "pair"), {"name": "pair"})


def test_a_table_of_another_game_is_refused():
    a = load_config({"preset": "cfr_plus", "game": {"name": "kuhn"}})
    table = RankTable(load_config({"preset": "cfr_plus", "game": {"name": "leduc"}}).game.gd, "pair")
    with pytest.raises(ConfigError, match="rounds"):
        abstracted(a.game, table, {"name": "pair"})


def test_an_abstracted_run_resumes_to_the_uninterrupted_run(tmp_path):
    import json

    from click.testing import CliRunner

    from solverkit.cli import cli

    cfg = tmp_path / "a.toml"
    cfg.write_text('preset = "cfr_plus"\n[game]\nname = "leduc"\n[abstraction]\nname = "ehs"\nbuckets = [0, 3]\n')
    run = CliRunner()
    r = run.invoke(cli, ["solve", str(cfg), "--iterations", "30", "--out", str(tmp_path / "whole"), "--quiet"])
    assert r.exit_code == 0, r.output
    r = run.invoke(cli, ["solve", str(cfg), "--iterations", "20", "--out", str(tmp_path / "cut"), "--quiet",
                         "--set", "solver.checkpoint_every=20"])
    assert r.exit_code == 0, r.output
    r = run.invoke(cli, ["solve", "--resume", str(tmp_path / "cut"), "--iterations", "30", "--quiet"])
    assert r.exit_code == 0, r.output
    whole, cut = (json.loads((tmp_path / d / "result.json").read_text()) for d in ("whole", "cut"))
    assert cut["exploitability"] == whole["exploitability"]
    # another abstraction is another game: its checkpoint is refused, the difference named
    import tomllib

    import tomli_w

    saved = tmp_path / "cut" / "config.toml"
    conf = tomllib.loads(saved.read_text())
    conf["abstraction"]["buckets"] = [0, 2]
    saved.write_text(tomli_w.dumps(conf))
    r = run.invoke(cli, ["solve", "--resume", str(tmp_path / "cut"), "--iterations", "40", "--quiet"])
    assert r.exit_code != 0 and "abstraction.buckets" in r.output
