"""A game that cannot fit is refused from its sizes, before anything of its size is built: poker
from its game definition (the betting tree counted, not built), generic trees from an estimate
and a node limit that this machine's memory lowers, matrices from rows x cols."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import solverkit.core.memory as memory
from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.efg.build import estimate_nodes
from solverkit.errors import ConfigError
from solverkit.poker.betting import DECISION, build_betting_tree
from solverkit.poker.gamedef import load_gamedef, parse_gamedef
from solverkit.poker.size import betting_counts

HOLDEM = (Path(__file__).resolve().parents[1] / "solverkit" / "poker" / "gamedefs" /
          "holdem.limit.2p.reverse_blinds.game").read_text()


def _built_counts(gd):
    """The betting tree's sizes by building it (the slow, obviously right reference)."""
    bet = build_betting_tree(gd)
    rounds = range(gd.num_rounds)
    return ([int(((bet.kind == DECISION) & (bet.round == r)).sum()) for r in rounds],
            [int(sum(int(bet.num_actions[n]) for n in bet.decision_nodes(r))) for r in rounds],
            [len({tuple(bet.history[n].split("/")[:r]) for n in bet.nodes_of_round(r)}) for r in rounds],
            bet.num_nodes)


def _gamedef(rounds, raises, blinds, first):
    text = (f"GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = {rounds}\nblind = {blinds[0]} {blinds[1]}\n"
            f"raiseSize = {' '.join(['2'] * rounds)}\nfirstPlayer = {' '.join(str(f) for f in first)}\n"
            f"maxRaises = {' '.join(str(r) for r in raises)}\nnumSuits = 2\nnumRanks = 3\nnumHoleCards = 1\n"
            f"numBoardCards = {' '.join(['0'] + ['1'] * (rounds - 1))}\nEND GAMEDEF\n")
    return parse_gamedef(text)


@pytest.mark.parametrize("name", ["kuhn", "leduc", "rhode", "royal", "holdem2r", "holdem.limit.2p.reverse_blinds"])
def test_counted_betting_tree_equals_the_built_one_bundled(name):
    gd = load_gamedef(name)
    c = betting_counts(gd)
    assert (c.decision_nodes, c.decision_values, c.sequences_to_round, c.num_nodes) == _built_counts(gd)


@pytest.mark.parametrize("rounds,raises,blinds,first", [
    (r, raises[:r], b, f[:r]) for r, raises, b, f in itertools.product(
        (1, 2, 3), [(0, 1, 2), (3, 0, 1), (2, 2, 2)], [(1, 1), (2, 1), (0, 0), (1, 2)], [(1, 2, 1), (2, 1, 2)])])
def test_counted_betting_tree_equals_the_built_one(rounds, raises, blinds, first):
    gd = _gamedef(rounds, raises, blinds, first)
    c = betting_counts(gd)
    assert (c.decision_nodes, c.decision_values, c.sequences_to_round, c.num_nodes) == _built_counts(gd)


def _holdem_255(tmp_path):
    path = tmp_path / "h255.game"
    path.write_text(HOLDEM.replace("maxRaises = 3 4 4 4", "maxRaises = 255 255 255 255"))
    assert "255 255" in path.read_text()
    return path


def test_holdem_with_255_raises_is_refused_before_building(tmp_path):
    path = _holdem_255(tmp_path)
    cfg = tmp_path / "h.toml"
    cfg.write_text(f'preset = "cfr_plus"\n[game]\nname = "acpc"\ngamedef = "{path}"\n')
    t0 = time.perf_counter()
    r = CliRunner().invoke(cli, ["solve", str(cfg), "--out", str(tmp_path / "run"), "--quiet"])
    assert time.perf_counter() - t0 < 30
    assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1, r.output
    assert "does not fit on this machine" in r.stderr and "PB" in r.stderr
    assert not (tmp_path / "run").exists()


def test_info_counts_a_huge_game_and_says_it_does_not_fit(tmp_path):
    path = _holdem_255(tmp_path)
    t0 = time.perf_counter()
    r = CliRunner().invoke(cli, ["info", "acpc", "--set", f"gamedef={path}"])
    assert time.perf_counter() - t0 < 30
    assert r.exit_code == 0, r.output
    assert "68,317,609,472" in r.stdout  # river decision nodes, counted
    (fits,) = [line for line in r.stdout.splitlines() if line.startswith("fits this engine on this machine")]
    assert fits.split(None, 6)[-1].startswith("no: its tree and a float64 store need"), fits
    r = CliRunner().invoke(cli, ["info", "leduc"])
    assert [line.split()[-1] for line in r.stdout.splitlines() if line.startswith("fits this engine")] == ["yes"]


def test_a_tree_game_past_this_machines_memory_is_refused_early(monkeypatch, tmp_path):
    # a cache of its own: leduc_tree cached by an earlier test of the run would be loaded, not built
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(memory, "physical_memory", lambda: 1_000_000)
    import solverkit.efg.build as build

    monkeypatch.setattr(build, "physical_memory", memory.physical_memory)
    with pytest.raises(ConfigError, match=r"game 'leduc_tree' has (more than|about) .* this machine's 1 MB of memory"):
        load_config({"preset": "cfr_plus", "game": "leduc_tree"})


def test_an_astronomical_tree_is_refused_from_its_estimate_at_once():
    pytest.importorskip("pyspiel")
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match=r"has about \S+e\+\d+ nodes \(estimated from 64 random descents.*max_nodes"):
        load_config({"preset": "cfr_plus", "game": {"name": "openspiel", "game": "chess"}})
    assert time.perf_counter() - t0 < 60


def test_the_estimate_does_not_overstate_small_trees():
    for name in ("kuhn_tree", "leduc_tree"):
        game = load_config({"preset": "cfr_plus", "game": name}).game
        assert estimate_nodes(game) <= game.tree.num_nodes


def test_a_matrix_past_this_machines_memory_is_refused_before_it_is_drawn(monkeypatch):
    monkeypatch.setattr(memory, "physical_memory", lambda: 1_000_000)
    with pytest.raises(ConfigError, match=r"random_matrix' \(rows = 300, cols = 300\): 90,000 payoffs .* this machine "
                                          r"has 1 MB"):
        load_config({"preset": "cfr_plus", "game": {"name": "random_matrix", "rows": 300, "cols": 300}})


def test_physical_memory_takes_a_containers_limit(monkeypatch, tmp_path):
    limit = tmp_path / "memory.max"
    limit.write_text("2147483648\n")
    monkeypatch.setattr(memory, "CGROUP_LIMIT_FILES", (str(limit),))
    assert memory.physical_memory() == min(2147483648, memory.physical_memory())
    assert memory.cgroup_memory_limit() == 2147483648
    limit.write_text("max\n")
    assert memory.cgroup_memory_limit() == 0
