"""Display units a game declares (Game.units): metrics columns, result.json fields, [solver]
target_<key> stops and printed values come from the game, and the core names no unit itself."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.hookspecs import hookimpl
from solverkit.core.solver import METRIC_COLUMNS, STORE_COLUMNS, metric_columns, run_solve
from solverkit.core.units import Unit, describe, units_of
from solverkit.errors import PluginError
from tests.test_registry import SkewedCoins

ROOT = Path(__file__).resolve().parents[1]


class CentsCoins(SkewedCoins):
    """The test coins game in dollars, shown in cents and in basis points too."""

    name = "test_cents_coins"
    unit_name = "dollars"

    def units(self):
        return (Unit("cents", "cents", 100.0), Unit("bp", "bp", 10_000.0, "basis points"))


class UnitPlugin:
    @hookimpl
    def register_games(self, register):
        register(CentsCoins)
        register(SkewedCoins)


@pytest.fixture
def unit_registry(fresh_registry):
    """The test's own registry with UnitPlugin's games added (dropped with it when the test ends)."""
    fresh_registry.add(UnitPlugin(), name="units-test")
    return fresh_registry


def _config(game, **solver):
    return {"preset": "cfr_plus", "game": game, "solver": {"iterations": 2000, "eval_every": 10, **solver}}


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_columns_come_from_the_game(unit_registry):
    cents = load_config(_config("test_cents_coins")).game
    plain = load_config(_config("test_coins")).game
    assert metric_columns(cents) == METRIC_COLUMNS + ("exploitability_cents", "exploitability_bp") + STORE_COLUMNS
    assert metric_columns(cents, eval_current=True)[5:9] == (
        "exploitability_cents", "exploitability_bp", "exploitability_current", "exploitability_current_cents")
    assert metric_columns(plain) == METRIC_COLUMNS + STORE_COLUMNS  # no unit: the base columns only
    assert metric_columns(plain, eval_current=True) == METRIC_COLUMNS + ("exploitability_current",) + STORE_COLUMNS


def test_poker_declares_the_mbb_columns_and_target():
    kuhn = load_config({"preset": "cfr_plus", "game": "kuhn"})
    assert [(u.name, u.key, u.factor) for u in kuhn.game.units()] == [("mbb/g", "mbb", 1000.0)]
    assert metric_columns(kuhn.game, eval_current=True)[5:8] == (
        "exploitability_mbb", "exploitability_current", "exploitability_current_mbb")
    assert "target_mbb" in kuhn.solver


def test_outputs_in_the_games_units(unit_registry, tmp_path):
    out = tmp_path / "run"
    result = run_solve(load_config(_config("test_cents_coins", eval_current=False, target_cents=0.5)), out=out)
    rows = _rows(out / "metrics.csv")
    for row in rows:
        assert float(row["exploitability_cents"]) == pytest.approx(100 * float(row["exploitability"]), rel=1e-12)
        assert float(row["exploitability_bp"]) == pytest.approx(10_000 * float(row["exploitability"]), rel=1e-12)
    summary = json.loads((out / "result.json").read_text())
    assert summary["target_cents"] == 0.5 and "target_bp" not in summary  # 0 = no target, not written
    assert summary["exploitability_cents"] == pytest.approx(100 * summary["exploitability"], rel=1e-12)
    # the unit target stopped the run at the first evaluation at or below half a cent
    assert result.reached_target and summary["reached_target"]
    assert float(rows[-1]["exploitability_cents"]) <= 0.5 < float(rows[-2]["exploitability_cents"])
    assert result.iterations < 2000


def test_a_game_without_units_writes_the_base_fields(unit_registry, tmp_path):
    out = tmp_path / "run"
    run_solve(load_config(_config("test_coins")), out=out)
    assert list(_rows(out / "metrics.csv")[0]) == list(METRIC_COLUMNS + STORE_COLUMNS)
    summary = json.loads((out / "result.json").read_text())
    assert not [k for k in summary if k.startswith(("exploitability_", "target_"))]


def test_cli_prints_every_unit(unit_registry, tmp_path):
    cfg = tmp_path / "cents.toml"
    cfg.write_text('preset = "cfr"\n[game]\nname = "test_cents_coins"\n[solver]\niterations = 50\n')
    solved = CliRunner().invoke(cli, ["solve", str(cfg), "--out", str(tmp_path / "run"), "--quiet"])
    assert solved.exit_code == 0, solved.output
    line = solved.stdout.splitlines()[-1]
    m = re.match(r"exploitability (\S+) dollars = (\S+) cents = (\S+) bp  \(outputs in ", line)
    assert m, line
    expl, cents, bp = map(float, m.groups())
    assert cents == pytest.approx(100 * expl, rel=1e-3) and bp == pytest.approx(10_000 * expl, rel=1e-3)
    exploit = CliRunner().invoke(cli, ["exploit", str(tmp_path / "run")])
    assert exploit.exit_code == 0, exploit.output
    assert re.search(r"^exploitability \S+ dollars = \S+ cents = \S+ bp$", exploit.stdout, flags=re.M), exploit.stdout


def test_describe_without_units(unit_registry):
    plain = load_config(_config("test_coins")).game
    assert describe(plain, 0.125) == "0.125"
    assert describe(load_config(_config("test_cents_coins")).game, 0.125, 12, 6) == "0.125 dollars = 12.5 cents = 1250 bp"


@pytest.mark.parametrize(
    "args, message",
    [
        (("mbb/g", "MBB", 1.0), "key 'MBB' is invalid"),
        (("mbb/g", "1x", 1.0), "key '1x' is invalid"),
        (("cents", "cents", 0.0), "factor 0.0 is invalid: expected a finite number > 0"),
        (("cents", "cents", float("inf")), "factor inf is invalid"),
    ],
)
def test_bad_units_are_refused(args, message):
    with pytest.raises(PluginError, match=re.escape(message)):
        Unit(*args)


def test_units_must_be_units_with_distinct_keys():
    class Twice(SkewedCoins):
        def units(self):
            return (Unit("cents", "c", 100.0), Unit("centimes", "c", 100.0))

    class Strings(SkewedCoins):
        def units(self):
            return ("cents",)

    with pytest.raises(PluginError, match=r"duplicate keys \['c', 'c'\]"):
        units_of(Twice())
    with pytest.raises(PluginError, match="units\\(\\) returned 'cents'; expected solverkit.core.units.Unit"):
        units_of(Strings())


def test_core_and_cli_name_no_poker_and_no_plugin_package():
    """Units, targets and commands come from plugins: the core and the CLI do not import them."""
    sources = [*(ROOT / "solverkit" / "core").glob("*.py"), ROOT / "solverkit" / "cli.py", ROOT / "solverkit" / "commands.py"]
    for path in sources:
        text = path.read_text()
        code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        assert not re.search(r"^\s*(from|import)\s+(solverkit_\w+|solverkit\.poker|\.+poker|zmq)\b", code, flags=re.M), path
        assert "mbb" not in re.sub(r'""".*?"""', "", code, flags=re.S), path  # not even a column name


def test_poker_files_keep_their_mbb_fields(tmp_path):
    """docs/formats.md: poker runs write exploitability_mbb, and target_mbb when it is set."""
    out = tmp_path / "kuhn"
    asm = load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"iterations": 500, "eval_every": 5, "target_mbb": 20}})
    result = run_solve(asm, out=out)
    summary = json.loads((out / "result.json").read_text())
    assert summary["target_mbb"] == 20.0 and summary["reached_target"] and result.iterations < 500
    assert summary["exploitability_mbb"] == pytest.approx(1000 * summary["exploitability"], rel=1e-12)  # big blind: 1 chip
    assert summary["exploitability_mbb"] <= 20.0
    assert "exploitability_mbb" in _rows(out / "metrics.csv")[0]
