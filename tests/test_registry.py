"""The plugin registry: inline plugins of every kind, the checks made at registration, entry-point
loading with SOLVERKIT_LOAD_PLUGINS, and the `solverkit plugins` command.

No test loads a third-party entry point: inline plugins are registered through fixtures and
unregistered afterwards, and entry points are faked in the registry's ``md`` namespace.

Over 500 lines on purpose: the inline plugin of every kind defined at the top serves every
section below (registration checks, look-ups, entry points, presets, commands).
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import json
import types

import click
import numpy as np
import pytest
from click.testing import CliRunner

import solverkit
from solverkit.abstraction.plugin import Abstraction
from solverkit.cli import cli
from solverkit.core import registry as registry_module
from solverkit.core.averaging import Averaging
from solverkit.core.compressor import Compressor
from solverkit.core.config import load_config
from solverkit.core.game import Game
from solverkit.core.hookspecs import hookimpl
from solverkit.core.layout import Layout, policy
from solverkit.core.registry import DEFAULT_PLUGINS, ENV_LOAD, KINDS, Registry, reset_registry
from solverkit.core.rule import RegretRule
from solverkit.core.sampler import Sampler
from solverkit.core.transport import Transport
from solverkit.errors import ConfigError, PluginError

SOLVERKIT_VERSION = md.version("solverkit")


# --- one inline plugin of each kind ------------------------------------------------------------


class SkewedCoins(Game):
    """Payoffs [[2, -1], [-1, 1]] for player 0: value 1/5, player 1 plays (2/5, 3/5)."""

    name = "test_coins"
    description = "2x2 test game"

    def __init__(self, **params):
        super().__init__(**params)
        self.payoff = np.array([[2.0, -1.0], [-1.0, 1.0]])
        self._layout = Layout.single(2)

    def layout(self, player):
        return self._layout

    def cfr_pass(self, store, job, transport=None):
        A = self.payoff
        with store.open("root") as seg:
            x = policy(seg["regret0"], self._layout)
            y = policy(seg["regret1"], self._layout)
            if 0 in job.players:
                u0 = A @ y
                job.update_regret(seg["regret0"], u0 - x @ u0)
                job.accumulate(seg.get("avg1"), y)
            if 1 in job.players:
                u1 = -(x @ A)
                job.update_regret(seg["regret1"], u1 - y @ u1)
                job.accumulate(seg.get("avg0"), x)

    def best_response(self, strategy):
        x, y = strategy
        return float(np.max(self.payoff @ y)), float(np.max(-(x @ self.payoff)))


class ClippedRM(RegretRule):
    name = "test_clipped_rm"
    description = "RM+ again, under a test name"

    def coefficients(self, t):
        return 1.0, 1.0, 0.0


class TWeighted(Averaging):
    name = "test_t_weighted"
    description = "linear averaging again"

    def coefficients(self, t):
        return 1.0, float(t)


class ReversingCodec(Compressor):
    """Not the identity, so the store really encodes and decodes every segment."""

    name = "test_reverse"
    description = "bytes reversed"

    def compress(self, data, typesize):
        return bytes(data)[::-1]

    def decompress(self, payload):
        return payload[::-1]


class InlineTransport(Transport):
    name = "test_inline_transport"
    description = "subgames in turn"

    def map_subgames(self, job, inputs):
        return {k: self.game.subgame_pass(k, job, v, self.store) for k, v in inputs.items()}


class WideOutcome(Sampler):
    name = "test_wide_outcome"
    description = "outcome sampling, uniform exploration"
    scheme = "outcome"

    def epsilon(self):
        return 1.0


class InlineAbstraction(Abstraction):
    name = "test_inline_abstraction"
    description = "EHS under another name"

    def build(self, spec, progress=None):
        from solverkit.abstraction.build import build_table

        return build_table(spec, "ehs", self.table_params(spec), progress)


class InlinePlugin:
    """Implements every hook: the seven kinds, a preset and a command."""

    @hookimpl
    def register_games(self, register):
        register(SkewedCoins)

    @hookimpl
    def register_regret_rules(self, register):
        register(ClippedRM)

    @hookimpl
    def register_averaging(self, register):
        register(TWeighted)

    @hookimpl
    def register_samplers(self, register):
        register(WideOutcome)

    @hookimpl
    def register_compressors(self, register):
        register(ReversingCodec)

    @hookimpl
    def register_transports(self, register):
        register(InlineTransport)

    @hookimpl
    def register_abstractions(self, register):
        register(InlineAbstraction)

    @hookimpl
    def register_presets(self, register):
        register(INLINE_PRESET, {"rule": "test_clipped_rm", "averaging": {"name": "power", "gamma": 3.0},
                                 "update": "simultaneous", "description": "clipped RM, t^3 average"})

    @hookimpl
    def register_commands(self, cli):
        @cli.command("test-coins-value")
        @click.option("--digits", type=int, default=3)
        def coins_value(digits):
            """Print the value of the test coins game."""
            click.echo(f"{0.2:.{digits}f}")


INLINE_PRESET = "test_clipped_power"

INLINE_NAMES = {
    "game": "test_coins",
    "rule": "test_clipped_rm",
    "averaging": "test_t_weighted",
    "sampler": "test_wide_outcome",
    "compressor": "test_reverse",
    "transport": "test_inline_transport",
    "abstraction": "test_inline_abstraction",
}


@pytest.fixture
def inline_registry(fresh_registry):
    """The process-wide registry with InlinePlugin added; removed again afterwards."""
    plugin = InlinePlugin()
    fresh_registry.add(plugin, name="inline-test")
    yield fresh_registry
    fresh_registry.remove(plugin)
    for kind, name in INLINE_NAMES.items():
        assert name not in fresh_registry.names(kind)
    assert INLINE_PRESET not in fresh_registry.presets


def _plugin(**hooks):
    """A plugin object whose hooks are the given functions of `register`."""
    ns = types.SimpleNamespace()
    for hook, fn in hooks.items():
        setattr(ns, hook, hookimpl(fn))
    return ns


def _registers(*classes, hook="register_games"):
    def impl(register):
        for cls in classes:
            register(cls)

    impl.__name__ = hook
    return _plugin(**{hook: impl})


class OtherCoins(SkewedCoins):
    name = "test_other_coins"


# --- inline plugins ----------------------------------------------------------------------------


def test_inline_plugin_registers_every_kind(inline_registry):
    infos = {(i.kind, i.name): i for i in inline_registry.all()}
    for kind, name in INLINE_NAMES.items():
        info = infos[(kind, name)]
        assert info.plugin == "inline-test"
        assert info.distribution == "(inline)"
        assert issubclass(info.cls, KINDS[kind][1])
        assert inline_registry.get(kind, name) is info.cls


def test_inline_plugins_solve_through_the_process_wide_registry(inline_registry):
    config = {"solver": {"iterations": 3000}, **{kind: name for kind, name in INLINE_NAMES.items() if kind not in ("sampler", "abstraction")}}
    result = solverkit.solve(config)
    assert result.exploitability < 1e-3
    assert result.br[0] == pytest.approx(0.2, abs=1e-3)  # the game's value
    np.testing.assert_allclose(result.strategy[1], [0.4, 0.6], atol=1e-2)
    # the inline sampler runs on a game of the tree engine; the matrix-like test game refuses it
    sampled = solverkit.solve({"preset": "cfr", "game": "kuhn_tree", "sampler": "test_wide_outcome",
                               "solver": {"iterations": 2000}})
    assert sampled.exploitability < 0.2
    with pytest.raises(ConfigError, match="game 'test_coins' does not support sampling scheme 'outcome'"):
        solverkit.solve({**config, "sampler": "test_wide_outcome"})


def test_extra_plugins_at_construction():
    reg = Registry(extra_plugins=[InlinePlugin()])
    assert "test_coins" in reg.names("game")
    assert "skewed_pennies" in reg.names("game")  # solverkit's own entry points still load


def test_builtins_register_through_the_same_hooks():
    reg = Registry(load_entrypoints=False)
    assert {"dcfr", "lcfr", "rm", "rm_plus"} <= set(reg.names("rule"))
    assert {"uniform", "linear", "current"} <= set(reg.names("averaging"))
    assert {i.plugin for i in reg.all()} <= set(DEFAULT_PLUGINS)
    assert {(i.distribution, i.version) for i in reg.all()} == {("solverkit", SOLVERKIT_VERSION)}


def test_remove_unknown_plugin_is_an_error(fresh_registry):
    with pytest.raises(PluginError, match="not a registered plugin"):
        fresh_registry.remove(InlinePlugin())


def test_plugin_name_taken(fresh_registry):
    with pytest.raises(PluginError, match="cannot register plugin 'solverkit.rules'"):
        fresh_registry.add(InlinePlugin(), name="solverkit.rules")


# --- checks at registration --------------------------------------------------------------------


def test_duplicate_names_are_rejected_naming_both_plugins(fresh_registry):
    first, second = _registers(OtherCoins), _registers(OtherCoins)
    fresh_registry.add(first, name="first-plugin")
    with pytest.raises(PluginError) as err:
        fresh_registry.add(second, name="second-plugin")
    message = str(err.value)
    assert "duplicate game name 'test_other_coins'" in message
    assert "'first-plugin' (inline)" in message and "'second-plugin' (inline)" in message
    # the failed add left the registry as it was
    assert fresh_registry.pm.get_plugin("second-plugin") is None
    assert fresh_registry.get("game", "test_other_coins") is OtherCoins
    fresh_registry.remove(first)


def test_duplicate_of_a_builtin_names_the_builtin():
    class MyRMPlus(RegretRule):
        name = "rm_plus"

        def coefficients(self, t):
            return 1.0, 1.0, 0.0

    with pytest.raises(PluginError) as err:
        Registry(load_entrypoints=False, extra_plugins=[_registers(MyRMPlus, hook="register_regret_rules")])
    assert "duplicate regret rule name 'rm_plus'" in str(err.value)
    assert "plugin 'solverkit.rules' (solverkit)" in str(err.value)
    assert "plugin 'SimpleNamespace' (inline)" in str(err.value)


def test_misspelled_hook_is_caught(fresh_registry):
    class Typo:
        @hookimpl
        def register_game(self, register):  # should be register_games
            register(OtherCoins)

    before = fresh_registry.all()
    with pytest.raises(PluginError) as err:
        fresh_registry.add(Typo())
    assert "cannot register plugin 'Typo': unknown hook 'register_game'" in str(err.value)
    assert ("register_averaging, register_commands, register_compressors, register_games, register_presets, "
            "register_regret_rules, register_samplers, register_transports") in str(err.value)
    assert fresh_registry.pm.get_plugin("Typo") is None
    assert fresh_registry.all() == before


def test_hook_argument_must_be_register(fresh_registry):
    class WrongArgument:
        @hookimpl
        def register_games(self, add):
            add(OtherCoins)

    with pytest.raises(PluginError, match=r"cannot register plugin 'WrongArgument'.*\{'add'\}") as err:
        fresh_registry.add(WrongArgument())
    assert "\n" not in str(err.value)  # errors are one line
    assert fresh_registry.pm.get_plugin("WrongArgument") is None


def test_non_subclass_is_rejected(fresh_registry):
    with pytest.raises(PluginError) as err:
        fresh_registry.add(_registers(ClippedRM), name="wrong-kind")  # a rule as a game
    assert "plugin 'wrong-kind' (inline) registered" in str(err.value)
    assert "ClippedRM" in str(err.value)
    assert "expected a subclass of solverkit.core.game.Game" in str(err.value)


def test_instance_instead_of_class_is_rejected(fresh_registry):
    with pytest.raises(PluginError, match="as a compressor; expected a subclass of solverkit.core.compressor.Compressor"):
        fresh_registry.add(_registers(ReversingCodec(), hook="register_compressors"))


def test_class_without_name_is_rejected(fresh_registry):
    class Nameless(Transport):
        pass

    with pytest.raises(PluginError, match="registered transport Nameless without a name"):
        fresh_registry.add(_registers(Nameless, hook="register_transports"), name="nameless")
    assert "local" in fresh_registry.names("transport")


def test_hook_that_raises_names_plugin_and_hook(fresh_registry):
    def register_averaging(register):
        raise RuntimeError("boom")

    with pytest.raises(PluginError, match=r"plugin 'raiser' \(inline\) failed in register_averaging: RuntimeError: boom"):
        fresh_registry.add(_plugin(register_averaging=register_averaging), name="raiser")


# --- look-ups ----------------------------------------------------------------------------------


def test_unknown_name_lists_available(fresh_registry):
    rules = fresh_registry.names("rule")
    assert {"dcfr", "lcfr", "rm", "rm_plus"} <= set(rules)
    with pytest.raises(PluginError) as err:
        fresh_registry.get("rule", "rmplus", where="[rule] name")
    assert str(err.value) == f"unknown regret rule 'rmplus' in [rule] name; available: {', '.join(rules)}"
    with pytest.raises(PluginError) as err:
        fresh_registry.get("game", "nope")
    assert str(err.value) == f"unknown game 'nope'; available: {', '.join(fresh_registry.names('game'))}"
    assert "skewed_pennies" in str(err.value)


def test_unknown_kind_lists_kinds(fresh_registry):
    with pytest.raises(PluginError, match="unknown plugin kind 'games'; kinds: abstraction, averaging, compressor, game, rule, sampler, transport"):
        fresh_registry.get("games", "skewed_pennies")


def test_unknown_name_in_config_lists_available(inline_registry):
    with pytest.raises(ConfigError) as err:
        load_config({"preset": "cfr", "game": "test_coin"})
    assert "unknown game 'test_coin' in [game] name; available:" in str(err.value)
    assert "test_coins" in str(err.value)


# --- entry points and SOLVERKIT_LOAD_PLUGINS --------------------------------------------------


class _Dist:
    def __init__(self, name, version):
        self.name, self.version = name, version


class FakeEntryPoint:
    """What registry code uses of importlib.metadata.EntryPoint: name, dist, load()."""

    def __init__(self, name, target, dist="solverkit-extra", version="1.2.3"):
        self.name = name
        self.target = target
        self.dist = _Dist(dist, version)

    def load(self):
        if isinstance(self.target, BaseException):
            raise self.target
        if isinstance(self.target, str):
            return importlib.import_module(self.target)
        return self.target


class ExtraGame(SkewedCoins):
    name = "test_extra_game"


class TypoPlugin:
    @hookimpl
    def register_game(self, register):
        register(ExtraGame)


def _raising_games(register):
    raise RuntimeError("boom")


MATRIX = FakeEntryPoint("matrix", "solverkit_matrix", dist="solverkit", version=SOLVERKIT_VERSION)
EXTRA = FakeEntryPoint("extra", _registers(ExtraGame))
BROKEN = FakeEntryPoint("broken", ImportError("No module named 'solverkit_broken'"), dist="solverkit-broken")


@pytest.fixture
def entry_points(monkeypatch):
    """Replace the installed entry points the registry sees with the given fakes."""

    def install(*eps):
        def fake_entry_points(group):
            return list(eps) if group == "solverkit" else []

        fake_md = types.SimpleNamespace(
            entry_points=fake_entry_points, version=md.version, PackageNotFoundError=md.PackageNotFoundError
        )
        monkeypatch.setattr(registry_module, "md", fake_md)

    return install


def test_broken_entry_point_is_reported_not_fatal(entry_points, monkeypatch):
    monkeypatch.delenv(ENV_LOAD, raising=False)
    entry_points(
        MATRIX,
        BROKEN,
        FakeEntryPoint("typo", TypoPlugin(), dist="solverkit-typo"),
        FakeEntryPoint("raises", _plugin(register_games=_raising_games), dist="solverkit-raises"),
        FakeEntryPoint("bad-class", _registers(ClippedRM), dist="solverkit-bad-class"),
        EXTRA,
    )
    reg = Registry()
    errors = dict(reg.load_errors)
    assert errors["broken (solverkit-broken)"] == "ImportError: No module named 'solverkit_broken'"
    assert "unknown hook 'register_game'" in errors["typo (solverkit-typo)"]
    assert "failed in register_games: RuntimeError: boom" in errors["raises (solverkit-raises)"]
    assert "expected a subclass of solverkit.core.game.Game" in errors["bad-class (solverkit-bad-class)"]
    assert len(errors) == 4
    # everything else loaded
    assert {"skewed_pennies", "test_extra_game"} <= set(reg.names("game"))
    info = next(i for i in reg.all() if i.name == "test_extra_game")
    assert (info.plugin, info.distribution, info.version) == ("extra", "solverkit-extra", "1.2.3")
    assert {p for p, _ in reg.pm.list_name_plugin()} == {*DEFAULT_PLUGINS, "matrix", "extra"}


def test_duplicate_names_across_entry_points_stop_start_up(entry_points, monkeypatch):
    monkeypatch.delenv(ENV_LOAD, raising=False)
    entry_points(EXTRA, FakeEntryPoint("again", _registers(ExtraGame), dist="solverkit-again", version="2.0"))
    with pytest.raises(PluginError) as err:
        Registry()
    message = str(err.value)
    assert "duplicate game name 'test_extra_game'" in message
    assert "plugin 'extra' (solverkit-extra)" in message and "plugin 'again' (solverkit-again)" in message
    assert ENV_LOAD in message  # the way out


def test_entry_point_name_used_twice(entry_points, monkeypatch):
    monkeypatch.delenv(ENV_LOAD, raising=False)
    entry_points(EXTRA, FakeEntryPoint("extra", _registers(OtherCoins), dist="solverkit-other"))
    reg = Registry()
    assert "test_extra_game" in reg.names("game")
    assert "test_other_coins" not in reg.names("game")
    assert dict(reg.load_errors) == {
        "extra (solverkit-other)": "entry-point name 'extra' is already used by distribution solverkit-extra; skipped"
    }


@pytest.mark.parametrize(
    "env, loaded, errors",
    [
        (None, {"matrix", "extra"}, ["broken (solverkit-broken)"]),
        ("", set(), []),
        ("solverkit", {"matrix"}, []),  # a distribution name
        ("extra", {"extra"}, []),  # an entry-point name
        ("solverkit-extra", {"extra"}, []),
        ("SolverKit_Extra", {"extra"}, []),  # distribution names are normalised
        (" matrix , solverkit-broken ,", {"matrix"}, ["broken (solverkit-broken)"]),
        ("nothing-installed", set(), [f"nothing-installed ({ENV_LOAD})"]),  # a misspelt name is reported
        ("matrix,extar", {"matrix"}, [f"extar ({ENV_LOAD})"]),
    ],
)
def test_environment_selects_entry_points(entry_points, monkeypatch, env, loaded, errors):
    if env is None:
        monkeypatch.delenv(ENV_LOAD, raising=False)
    else:
        monkeypatch.setenv(ENV_LOAD, env)
    entry_points(MATRIX, EXTRA, BROKEN)
    reg = Registry()
    assert {p for p, _ in reg.pm.list_name_plugin()} == {*DEFAULT_PLUGINS, *loaded}
    assert ("skewed_pennies" in reg.names("game")) == ("matrix" in loaded)
    assert ("test_extra_game" in reg.names("game")) == ("extra" in loaded)
    assert [p for p, _ in reg.load_errors] == errors
    assert "rm_plus" in reg.names("rule")  # built-ins never depend on entry points


def test_a_misspelt_plugin_name_is_reported_with_the_installed_ones(entry_points, monkeypatch):
    monkeypatch.setenv(ENV_LOAD, "solverkit-extar")
    entry_points(MATRIX, EXTRA)
    reg = Registry()
    (label, error), = reg.load_errors
    assert label == f"solverkit-extar ({ENV_LOAD})"
    assert "installed: extra (solverkit-extra), matrix (solverkit)" in error
    with pytest.raises(PluginError, match=f"solverkit-extar \\({ENV_LOAD}\\) failed to load"):
        reg.get("game", "test_extra_game")  # the unknown name's error says why it may be missing
    reset_registry(reg)
    try:
        result = _runner().invoke(cli, ["plugins"])
    finally:
        reset_registry(None)
    assert result.exit_code == 0
    assert f"warning: plugin solverkit-extar ({ENV_LOAD}) failed to load: no installed entry point" in result.stderr


def test_load_entrypoints_false_ignores_environment(entry_points, monkeypatch):
    monkeypatch.delenv(ENV_LOAD, raising=False)
    entry_points(MATRIX, EXTRA, BROKEN)
    reg = Registry(load_entrypoints=False)
    assert {p for p, _ in reg.pm.list_name_plugin()} == set(DEFAULT_PLUGINS) and reg.load_errors == []


# --- solverkit plugins -------------------------------------------------------------------------


def _runner():
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart by itself


def test_plugins_json_lists_kind_name_distribution_version(inline_registry):
    result = _runner().invoke(cli, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    rows = {(r["kind"], r["name"]): r for r in data["plugins"]}
    for kind, name in INLINE_NAMES.items():
        row = rows[(kind, name)]
        assert row["plugin"] == "inline-test" and row["distribution"] == "(inline)" and row["version"] == ""
    for key, plugin in [(("rule", "rm_plus"), "solverkit.rules"), (("game", "skewed_pennies"), "matrix")]:
        row = rows[key]
        assert (row["plugin"], row["distribution"], row["version"]) == (plugin, "solverkit", SOLVERKIT_VERSION)
        assert row["description"]
    assert set(rows) == {(i.kind, i.name) for i in inline_registry.all()}
    assert data["errors"] == []
    # each plugin's parameters, with type and default
    alpha = {p["name"]: p for p in rows[("rule", "dcfr")]["params"]}["alpha"]
    assert (alpha["type"], alpha["default"], alpha["required"]) == ("float", 1.5, False) and alpha["doc"]
    assert rows[("rule", "rm")]["params"] == []
    # presets: what they combine and where they come from
    presets = {p["name"]: p for p in data["presets"]}
    assert set(presets) == set(inline_registry.presets)
    assert presets[INLINE_PRESET] == {
        "name": INLINE_PRESET, "rule": {"name": "test_clipped_rm", "params": {}},
        "averaging": {"name": "power", "params": {"gamma": 3.0}}, "update": "simultaneous",
        "description": "clipped RM, t^3 average", "plugin": "inline-test", "distribution": "(inline)", "version": "",
    }
    assert presets["cfr_plus"]["plugin"] == "solverkit.presets" and presets["cfr_plus"]["version"] == SOLVERKIT_VERSION


def test_plugins_table(inline_registry):
    result = _runner().invoke(cli, ["plugins"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["KIND", "NAME", "DISTRIBUTION", "VERSION", "DESCRIPTION"]
    end = lines.index("")  # the plugins, then a blank line, then the presets
    rows = [line for line in lines[1:end] if not line.startswith(" ")]
    table = {tuple(line.split()[:2]): line.split() for line in rows}
    assert table[("game", "test_coins")][2] == "(inline)"
    assert table[("rule", "dcfr")][2:4] == ["solverkit", SOLVERKIT_VERSION]
    assert table[("transport", "local")][2:4] == ["solverkit", SOLVERKIT_VERSION]
    assert len(table) == len(inline_registry.all())
    # parameters under their plugin: name, type, default, meaning
    dcfr = lines.index(next(line for line in rows if line.split()[:2] == ["rule", "dcfr"]))
    assert lines[dcfr + 1].split()[:4] == ["alpha:", "float,", "default", "1.5"]
    assert lines[dcfr + 2].split()[:4] == ["beta:", "float,", "default", "0.0"]
    assert any(line.split()[:3] == ["path:", "path,", "required"] for line in lines)  # matrix_file
    assert lines[end + 1].split() == ["PRESET", "DISTRIBUTION", "VERSION", "COMBINES"]
    presets = {line.split()[0]: line for line in lines[end + 2:]}
    assert set(presets) == set(inline_registry.presets)
    assert presets[INLINE_PRESET].split()[1] == "(inline)"
    assert "rule test_clipped_rm, averaging power(gamma=3.0), simultaneous updates" in presets[INLINE_PRESET]
    assert "rule rm_plus, averaging linear, alternating updates" in presets["cfr_plus"]


def test_plugins_reports_broken_entry_points(entry_points, monkeypatch):
    monkeypatch.delenv(ENV_LOAD, raising=False)
    entry_points(MATRIX, BROKEN, EXTRA)
    runner = _runner()
    result = runner.invoke(cli, ["plugins"])
    assert result.exit_code == 0, result.output
    assert "test_extra_game" in result.stdout
    assert "warning: plugin broken (solverkit-broken) failed to load: ImportError" in result.stderr
    reset_registry(None)
    result = runner.invoke(cli, ["plugins", "--json"])
    data = json.loads(result.stdout)
    assert data["errors"] == [
        {"plugin": "broken (solverkit-broken)", "error": "ImportError: No module named 'solverkit_broken'"}
    ]
    extra = next(r for r in data["plugins"] if r["name"] == "test_extra_game")
    assert (extra["kind"], extra["distribution"], extra["version"]) == ("game", "solverkit-extra", "1.2.3")


def test_unknown_name_names_the_plugins_that_failed_to_load(entry_points, monkeypatch, tmp_path):
    """An unknown game at solve time says which plugin failed to load and why, on one line."""
    monkeypatch.delenv(ENV_LOAD, raising=False)
    entry_points(MATRIX, BROKEN)
    cfg = tmp_path / "c.toml"
    cfg.write_text('preset = "cfr"\ngame = "broken_game"\n')
    for args in (["solve", str(cfg)], ["solve", "--game", "broken_game", "--preset", "cfr"],
                 ["info", "broken_game"], ["solve", "--game", "skewed_pennies", "--preset", "nope"]):
        reset_registry(None)
        result = _runner().invoke(cli, args)
        assert result.exit_code == 2, (args, result.output)
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith("Error: unknown "), line
        assert line.endswith("; plugin broken (solverkit-broken) failed to load: "
                             "ImportError: No module named 'solverkit_broken' (see solverkit plugins)"), line
    # no load errors: the message is as before
    entry_points(MATRIX)
    reset_registry(None)
    result = _runner().invoke(cli, ["info", "broken_game"])
    assert result.exit_code == 2 and "failed to load" not in result.stderr
    assert result.stderr.strip().endswith("skewed_pennies"), result.stderr


def test_plugins_duplicate_is_one_line_error(entry_points, monkeypatch):
    monkeypatch.delenv(ENV_LOAD, raising=False)
    entry_points(EXTRA, FakeEntryPoint("again", _registers(ExtraGame), dist="solverkit-again"))
    result = _runner().invoke(cli, ["plugins"])
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: duplicate game name 'test_extra_game'")
    assert "Traceback" not in result.output


# --- register_presets --------------------------------------------------------------------------


def _presets(*entries):
    """A plugin whose register_presets hook registers (name, spec) pairs."""
    def register_presets(register):
        for name, spec in entries:
            register(name, spec)

    return _plugin(register_presets=register_presets)


def test_inline_preset_resolves_through_the_registry(inline_registry):
    asm = load_config({"preset": INLINE_PRESET, "game": "test_coins"})
    assert asm.resolved["rule"] == {"name": "test_clipped_rm"}
    assert asm.resolved["averaging"] == {"name": "power", "gamma": 3.0, "restart": 0}
    assert asm.solver["update"] == "simultaneous"
    info = inline_registry.presets[INLINE_PRESET]
    assert (info.plugin, info.distribution) == ("inline-test", "(inline)")


def test_builtin_presets_come_from_solverkit_presets():
    reg = Registry(load_entrypoints=False)
    assert {p.plugin for p in reg.presets.values()} == {"solverkit.presets"}
    assert {"cfr", "cfr_plus", "lcfr", "dcfr", "pcfr_plus", "dcfr_plus", "pdcfr_plus", "hs_dcfr", "hs_dcfr_plus",
            "hs_pcfr_plus", "sapcfr_plus", "apcfr_plus", "apdcfr_plus", "mmd"} == set(reg.presets)


def test_duplicate_preset_names_both_plugins():
    reg = Registry(load_entrypoints=False)
    spec = {"rule": "rm", "averaging": "uniform", "update": "alternating"}
    with pytest.raises(PluginError) as info:
        reg.add(_presets(("cfr_plus", spec)), name="again")
    assert str(info.value).startswith(
        "duplicate preset name 'cfr_plus': registered by plugin 'solverkit.presets' (solverkit) and by plugin 'again' (inline)"
    )
    assert reg.presets["cfr_plus"].plugin == "solverkit.presets"  # the registry is as it was


@pytest.mark.parametrize(
    "name, spec, parts",
    [
        ("", {"rule": "rm", "averaging": "uniform", "update": "alternating"}, ["preset name ''", "is invalid"]),
        ("p", ["rm"], ["preset 'p'", "not a table", "averaging, description, rule, update"]),
        ("p", {"rule": "rm", "averaging": "uniform"}, ["preset 'p'", "missing 'update'"]),
        ("p", {"rule": "rm", "averaging": "uniform", "update": "both"},
         ["preset 'p'", "update = 'both'", "alternating, simultaneous"]),
        ("p", {"rule": "rm", "averaging": "uniform", "update": "alternating", "rules": "x"},
         ["preset 'p'", "unknown key 'rules'", "averaging, description, rule, update"]),
        ("p", {"rule": {"alpha": 2}, "averaging": "uniform", "update": "alternating"},
         ["preset 'p'", "rule = {'alpha': 2}", "a rule name or a table with a name"]),
        ("p", {"rule": "rm", "averaging": 3, "update": "alternating"}, ["preset 'p'", "averaging = 3"]),
        ("p", {"rule": "rm", "averaging": "uniform", "update": "alternating", "description": 1},
         ["preset 'p'", "description = 1"]),
    ],
)
def test_bad_preset_is_refused_at_registration(name, spec, parts):
    reg = Registry(load_entrypoints=False)
    with pytest.raises(PluginError) as info:
        reg.add(_presets((name, spec)), name="bad")
    msg = str(info.value)
    assert msg.startswith("plugin 'bad' (inline): ")
    for part in parts:
        assert part in msg, (part, msg)
    assert "p" not in reg.presets


@pytest.mark.parametrize("section, label", [("rule", "regret rule"), ("averaging", "averaging scheme")])
def test_preset_naming_a_missing_plugin_fails_when_used(section, label):
    spec = {"rule": "rm", "averaging": "uniform", "update": "alternating", section: "nonexistent"}
    reg = Registry(load_entrypoints=False, extra_plugins=[InlinePlugin(), _presets(("dangling", spec))])
    with pytest.raises(ConfigError) as info:
        load_config({"preset": "dangling", "game": "test_coins", "compressor": "test_reverse",
                     "transport": "test_inline_transport"}, registry=reg)
    assert str(info.value).startswith(f"preset 'dangling' of plugin 'SimpleNamespace' names unknown {label} 'nonexistent'; available: ")
    assert ("rm_plus" if section == "rule" else "linear") in str(info.value)


def test_bad_preset_parameter_names_the_preset():
    spec = {"rule": "rm", "averaging": {"name": "power", "gamma": -1.0}, "update": "alternating"}
    reg = Registry(load_entrypoints=False, extra_plugins=[InlinePlugin(), _presets(("steep", spec))])
    with pytest.raises(ConfigError) as info:
        load_config({"preset": "steep", "game": "test_coins", "compressor": "test_reverse",
                     "transport": "test_inline_transport"}, registry=reg)
    assert str(info.value) == ("[averaging] (power) gamma = -1.0 is invalid: expected a number >= 0 and <= 100 "
                               "(preset 'steep' of plugin 'SimpleNamespace' sets [averaging] gamma)")


def test_unknown_preset_lists_the_registered_ones(inline_registry):
    with pytest.raises(ConfigError) as info:
        load_config({"preset": "cfr+", "game": "test_coins"})
    assert str(info.value) == f"unknown preset 'cfr+'; available: {', '.join(sorted(inline_registry.presets))}"


# --- register_commands -------------------------------------------------------------------------


def _commands(fn):
    """A plugin whose register_commands hook is `fn(cli)`."""
    def register_commands(cli):
        fn(cli)

    return _plugin(register_commands=register_commands)


def test_inline_plugin_adds_a_command(inline_registry):
    runner = _runner()
    result = runner.invoke(cli, ["test-coins-value", "--digits", "2"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "0.20\n"
    assert "test-coins-value" in runner.invoke(cli, ["--help"]).stdout


def test_commands_follow_the_registry(fresh_registry):
    runner = _runner()
    assert runner.invoke(cli, ["test-coins-value"]).exit_code == 2  # not registered yet
    plugin = InlinePlugin()
    fresh_registry.add(plugin, name="inline-test")
    assert runner.invoke(cli, ["test-coins-value"]).exit_code == 0
    fresh_registry.remove(plugin)
    assert runner.invoke(cli, ["test-coins-value"]).exit_code == 2


def test_builtin_plugin_commands(fresh_registry):
    from solverkit.commands import collect

    added, warnings = collect(fresh_registry, cli.commands)
    assert warnings == []
    assert set(added) == {"plot", "worker", "keys", "play", "match", "dealer", "lbr", "abstraction"} and set(added["plot"].commands) == {"preflop"}
    assert not set(added) & set(cli.commands)  # the core defines neither


def test_a_failing_command_hook_does_not_break_the_cli(fresh_registry):
    def broken(cli_group):
        @cli_group.command("half-made")
        def half_made():
            """Registered before the hook fails: must not survive."""

        raise RuntimeError("no display")

    fresh_registry.add(_commands(broken), name="broken-commands")
    runner = _runner()
    result = runner.invoke(cli, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    assert ("warning: plugin 'broken-commands' (inline) failed in register_commands: RuntimeError: no display; "
            "its commands are skipped") in result.stderr
    assert runner.invoke(cli, ["half-made"]).exit_code == 2
    assert runner.invoke(cli, ["worker", "--help"]).exit_code == 0  # other plugins' commands still work


@pytest.mark.parametrize("taken, owner", [("solve", "solverkit (built-in)"), ("worker", "plugin 'transports' (solverkit)")])
def test_a_command_name_already_taken_is_refused(fresh_registry, taken, owner):
    def clash(cli_group):
        @cli_group.command("mine-too")
        def mine():
            """Would be fine alone."""

        @cli_group.command(taken)
        def again():
            """Takes a name that exists."""
            click.echo("hijacked")

    fresh_registry.add(_commands(clash), name="clash")
    runner = _runner()
    result = runner.invoke(cli, [taken, "--help"])
    assert result.exit_code == 0 and "hijacked" not in result.stdout
    assert f"warning: plugin 'clash' (inline) registers command '{taken}', already registered by {owner}" in result.stderr
    assert runner.invoke(cli, ["mine-too"]).exit_code == 2  # the plugin's commands are skipped together
