"""Classes of bad input from the issue 26 audit (items 14, 15, 16), each with its siblings: every
case is one line ``Error: ...`` naming the bad value (exit status 2, no traceback, nothing on
stdout), or, in the API, a SolverkitError; values that mean something are read as they say.

- text read as numbers: ASCII decimals only (no ``1_000``, full-width digits, ``inf``) in matrix
  CSV files, command-line options and ``--set``; ``00`` is the number 0;
- parsers fed too deep a nesting (TOML) or a huge header (.npy);
- paths with ``~user`` of no user; damaged run files read by ``report``;
- study tables of the wrong type; lists that must not be empty; OpenSpiel names;
- a TreeGame subclass with its own ``params``; misspelt SOLVERKIT_LOAD_PLUGINS names.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import tomli_w
from click.testing import CliRunner

import solverkit
from solverkit.cli import cli
from solverkit.core.config_text import parse_every, parse_value
from solverkit.core.params import Param, expand_path, number_from_text
from solverkit.efg import TreeGame
from solverkit.errors import ConfigError

NO_USER = "~nosuchuser_sk26"


def refused(args, names=()) -> str:
    """The CLI refuses `args` with one line naming each of `names`; returns the line."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 2, (args, result.exit_code, result.output, result.exception)
    assert result.stdout == "", result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for name in names:
        assert str(name) in lines[0], (name, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def kuhn_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("classes") / "run"
    result = CliRunner().invoke(cli, ["solve", "--game", "kuhn", "--preset", "cfr", "--iterations", "5", "--out",
                                      str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return out


# --- numbers from text ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, number", [("00", 0), ("007", 7), ("-3", -3), ("1.5", 1.5), (".5", 0.5), ("5.", 5.0),
                                          ("2e3", 2000.0), (" 4 ", 4)])
def test_plain_decimals_are_the_numbers_they_spell(text, number):
    assert number_from_text(text) == number and type(number_from_text(text)) is type(number)
    assert parse_value(text) == number


@pytest.mark.parametrize("text", ["1_000", "１２", "٣", "1e3_0", "0x10", "nan", "inf", "-Infinity", "1,5", "", "+"])
def test_other_spellings_are_not_numbers(text):
    assert number_from_text(text) is None


@pytest.mark.parametrize("cell", ["1_000", "１", "٣", "nan", "inf", "Infinity", "0x1"])
def test_csv_matrix_cells_must_be_plain_decimals(tmp_path, cell):
    path = tmp_path / "m.csv"
    path.write_text(f"{cell},2\n3,4\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        solverkit.load_game("matrix_file", path=str(path))
    assert str(path) in str(err.value) and "line 1, field 1" in str(err.value)


def test_csv_matrix_with_plain_numbers_reads_them(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("1, -2.5\n.5,3e0\n")
    assert solverkit.load_game("matrix_file", path=str(path)).matrix.tolist() == [[1.0, -2.5], [0.5, 3.0]]


def test_a_npy_header_too_large_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.npy"
    with open(path, "wb") as fh:  # a sparse 10 GB int8 array: the header alone says it is too large
        np.lib.format.write_array_header_1_0(fh, {"descr": "|i1", "fortran_order": False, "shape": (100_000, 100_000)})
        fh.truncate(fh.tell() + 100_000 * 100_000)
    try:
        with pytest.raises(ConfigError, match="10,000,000,000 payoffs; at most 400,000,000"):
            solverkit.load_game("matrix_file", path=str(path))
    finally:
        path.unlink()


@pytest.mark.parametrize("flag, text, shown", [("--iterations", "00", "= 0 is invalid"), ("--iterations", "1_000", "1_000"),
                                               ("--iterations", "１０", "１０"), ("--target", "inf", "inf"),
                                               ("--target", "nan", "nan")])
def test_solve_options_take_plain_numbers_only(kuhn_run, flag, text, shown):
    refused(["solve", kuhn_run / "config.toml", "--out", kuhn_run, flag, text], names=[flag, shown])


def test_checkpoint_every_zeros_mean_never():
    assert parse_every("00") is None and parse_every("0") is None
    assert parse_every("010") == ("iterations", 10)


@pytest.mark.parametrize("args", [
    ["dealer", "kuhn", "--timeout", "inf"], ["dealer", "kuhn", "--timeout", "nan"],
    ["dealer", "kuhn", "--seed", str(2**70)], ["dealer", "kuhn", "--hands", "１０"],
    ["play", "/nonexistent", "--connect", "localhost:1", "--timeout", "1e999"],
    ["worker", "--connect", "tcp://localhost:1", "--wait", "inf"],
    ["study", "x.toml", "--out", "o", "--jobs", str(2**64)],
    ["strategy", "/nonexistent", "--infoset", "x", "--player", "6"],  # games have 2 to 6 players
])
def test_numeric_options_of_every_command_are_finite_and_bounded(args):
    flag = next(a for a in args if a.startswith("--") and a not in ("--connect", "--out", "--infoset"))
    refused(args, names=[flag, "is invalid"])


# --- parsers and files -----------------------------------------------------------------------------


@pytest.mark.parametrize("nest", ["[" * 5000 + "]" * 5000, "{a=" * 3000 + "1" + "}" * 3000])
def test_toml_nested_too_deeply_is_malformed(tmp_path, nest):
    cfg = tmp_path / "deep.toml"
    cfg.write_text(f'preset = "cfr"\ngame = "kuhn"\nx = {nest}\n')
    refused(["solve", cfg, "--out", tmp_path / "out", "--quiet"], names=[cfg, "nested too deeply"])
    refused(["study", cfg, "--out", tmp_path / "out"], names=[cfg, "nested too deeply"])
    assert parse_value(nest) == nest  # a --set value too deep for TOML stays the text, which the check refuses


@pytest.mark.parametrize("content, names", [
    (b'{"a": ', ["result.json", "not JSON"]), (b"[1, 2]", ["result.json", "list"]),
    (b'{"seconds": "abc"}', ["result.json", "seconds = 'abc'"]), (b"\xff\xfe", ["result.json", "not JSON"]),
    (b"[" * 100_000, ["result.json", "nested too deeply"]),
])
def test_report_on_a_damaged_result_json_names_it(kuhn_run, content, names):
    path = kuhn_run / "result.json"
    good = path.read_bytes()
    try:
        path.write_bytes(content)
        refused(["report", kuhn_run, "-o", kuhn_run.parent / "r.html"], names=names)
    finally:
        path.write_bytes(good)


def test_report_on_metrics_that_are_not_utf8_names_them(kuhn_run):
    path = kuhn_run / "metrics.csv"
    good = path.read_bytes()
    try:
        path.write_bytes(good + b"\xff\xfe,1\n")
        refused(["report", kuhn_run, "-o", kuhn_run.parent / "r.html"], names=["metrics.csv", "0xff"])
    finally:
        path.write_bytes(good)


@pytest.mark.parametrize("table", [{"game": {"name": "matrix_file", "path": f"{NO_USER}/m.npy"}},
                                   {"game": "kuhn", "store": {"backend": "disk", "path": f"{NO_USER}/store"}}])
def test_a_path_of_an_unknown_user_is_named(tmp_path, table):
    cfg = tmp_path / "c.toml"
    cfg.write_text(tomli_w.dumps({"preset": "cfr", **table}))
    refused(["solve", cfg, "--out", tmp_path / "out", "--quiet"], names=[NO_USER, "full path"])
    assert not (tmp_path / NO_USER).exists()


def test_expand_path_refuses_nul_and_unknown_users(tmp_path):
    with pytest.raises(ConfigError, match="NUL"):
        expand_path("a\x00b", "where")
    with pytest.raises(ConfigError, match=NO_USER):
        expand_path(f"{NO_USER}/x", "where")
    assert expand_path("~/x", "where").is_absolute()


# --- tables and values of the wrong type -------------------------------------------------------------


@pytest.mark.parametrize("games, assembly, names", [
    ({"g": {"game": 5}}, {"preset": "cfr"}, ["[games.g] game = 5"]),
    ({"g": {"game": [1, 2]}}, {"preset": "cfr"}, ["[games.g] game = [1, 2]"]),
    ({"g": {"game": "skewed_pennies"}}, {"preset": "cfr", "solver": 5}, ["[assemblies.a] solver = 5"]),
])
def test_study_tables_of_the_wrong_type_are_refused(tmp_path, games, assembly, names):
    path = tmp_path / "s.toml"
    path.write_text(tomli_w.dumps({"assemblies": {"a": assembly}, "games": games}))
    refused(["study", path, "--out", tmp_path / "out", "--quiet"], names=names)
    assert not (tmp_path / "out").exists()


def test_an_empty_list_is_refused_not_taken_for_the_default():
    refused(["info", "hulhe", "--set", "max_raises=[]"], names=["max_raises = []", "non-empty list"])
    with pytest.raises(ConfigError, match="non-empty"):
        Param("int_list", [1], min_len=1).check([], "x")


def test_a_misspelt_openspiel_game_is_one_short_line():
    pytest.importorskip("pyspiel")
    line = refused(["info", "openspiel", "--set", "game=kuhn_pokr"], names=["kuhn_pokr", "close matches: kuhn_poker"])
    assert len(line) < 300


# --- a TreeGame with its own params (item 16) -------------------------------------------------------


class StakeCoin(TreeGame):
    """Matching pennies for a stake, declaring its own params (and not TreeGame's)."""

    name = "stake_coin_test"
    params = {"stake": Param("float", 1.0, "what the winner takes", min=0.0, min_exclusive=True)}

    def initial_state(self):
        return ()

    def is_terminal(self, state):
        return len(state) == 2

    def returns(self, state):
        return self.config["stake"] * (1.0 if state[0] == state[1] else -1.0)

    def player(self, state):
        return len(state)

    def legal_actions(self, state):
        return ["h", "t"]

    def child(self, state, action):
        return state + (action,)

    def infoset_key(self, state, player):
        return f"p{player}"


def test_a_tree_game_declaring_its_own_params_keeps_max_nodes(fresh_registry):
    from solverkit.core.hookspecs import hookimpl

    class Plugin:
        @hookimpl
        def register_games(self, register):
            register(StakeCoin)

    fresh_registry.add(Plugin())
    assert list(StakeCoin.params) == ["max_nodes", "split_actions", "stake"]
    sol = solverkit.solve({"preset": "cfr_plus", "game": {"name": "stake_coin_test", "stake": 2.0}}, iterations=50)
    assert sol.exploitability < 0.1 and sol.game.tree.num_nodes == 7
    with pytest.raises(ConfigError, match="more than 3 nodes"):
        solverkit.load_game("stake_coin_test", max_nodes=3)
    assert StakeCoin(stake=1.0).tree.num_nodes == 7  # built directly, without max_nodes


@pytest.mark.parametrize("name, names", [("a\x00b", ["NUL"]), ("a\x07b", ["control character"]), (5, ["[study] name = 5"])])
def test_a_study_name_is_printable_text(tmp_path, name, names):
    path = tmp_path / "s.toml"
    path.write_text(tomli_w.dumps({"study": {"name": name}, "assemblies": {"a": {"preset": "cfr"}},
                                   "games": {"g": {"game": "skewed_pennies"}}}))
    refused(["study", path, "--out", tmp_path / "out", "--quiet"], names=["[study] name", *names])
    assert not (tmp_path / "out").exists()


def test_a_nul_character_in_a_string_parameter_is_named():
    with pytest.raises(ConfigError, match="contains a NUL character"):
        Param("str", "").check("a\x00b", "[game] (openspiel) game")


def test_a_game_file_path_expands_home_and_names_an_unknown_user(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "mine.game").write_bytes((Path(solverkit.__file__).parent / "poker" / "gamedefs" / "kuhn.game").read_bytes())
    assert solverkit.load_game("acpc", gamedef="~/mine.game").gd.num_rounds == 1
    with pytest.raises(ConfigError, match=f"gamedef = '{NO_USER}/x.game': cannot expand"):
        solverkit.load_game("acpc", gamedef=f"{NO_USER}/x.game")


@pytest.mark.parametrize("line, names", [("MATCHSTATE:²:0::Ks|", ["position '²'"]), ("MATCHSTATE:0:١::Ks|", ["hand number '١'"])])
def test_acpc_messages_take_ascii_digits_only(line, names):
    from solverkit.errors import SolverkitError
    from solverkit.poker.acpc_protocol import parse_matchstate
    from solverkit.poker.gamedef import load_gamedef

    with pytest.raises(SolverkitError) as err:
        parse_matchstate(line, load_gamedef("kuhn"))
    for name in names:
        assert name in str(err.value)


@pytest.mark.parametrize("value, expect", [(100, "100"), (0, "0"), ("00", "00")])
def test_checkpoint_every_takes_an_integer_as_its_text(value, expect):
    from solverkit.core.config import load_config

    assert load_config({"preset": "cfr", "game": "kuhn", "solver": {"checkpoint_every": value}}).solver[
        "checkpoint_every"] == expect
    with pytest.raises(ConfigError, match="checkpoint_every = '-5'"):
        load_config({"preset": "cfr", "game": "kuhn", "solver": {"checkpoint_every": -5}})


@pytest.mark.parametrize("command", [["exploit"], ["export"], ["strategy", "--infoset", "Qs||"]])
def test_strategy_meta_nested_too_deeply_is_a_damaged_file(kuhn_run, command):
    path = kuhn_run / "strategy.npz"
    good = path.read_bytes()
    try:
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files}
        np.savez(path, **{**arrays, "meta": np.array("[" * 100_000)})
        refused([command[0], kuhn_run, *command[1:]], names=["strategy.npz"])
    finally:
        path.write_bytes(good)


def test_a_poker_game_declaring_its_own_params_keeps_the_engine_s():
    from solverkit.poker.game import PokerGame
    from solverkit.poker.gamedef import load_gamedef

    class MyKuhn(PokerGame):
        name = "my_kuhn_test"
        params = {"note": Param("str", "", "a parameter of its own")}

        def gamedef(self):
            return load_gamedef("kuhn")

    assert list(MyKuhn.params) == ["split_round", "isomorphism", "chunks", "trunk_only", "parallel_deals", "note"]
    assert MyKuhn.params["isomorphism"].default is True  # the engine's default, not a guess in __init__


def test_command_line_paths_expand_home_and_name_an_unknown_user(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    result = CliRunner().invoke(cli, ["solve", "--game", "kuhn", "--preset", "cfr", "--iterations", "2", "--out",
                                      "~/run", "--quiet"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "run" / "strategy.npz").is_file() and not (tmp_path / "~").exists()
    refused(["exploit", f"{NO_USER}/run"], names=["RUN_DIR", NO_USER, "full path"])
    refused(["solve", "--game", "kuhn", "--preset", "cfr", "--out", f"{NO_USER}/x"], names=["--out", NO_USER])


def test_a_config_file_too_large_to_be_one_is_refused_unread(tmp_path):
    cfg = tmp_path / "big.toml"
    with open(cfg, "wb") as fh:
        fh.write(b'preset = "cfr"\n')
        fh.truncate(17 << 20)  # sparse: nothing is written
    refused(["solve", cfg, "--out", tmp_path / "out"], names=[cfg, "17,825,792 bytes"])


DIGITS = "1" * 5000  # int() refuses strings of over 4,300 digits with a ValueError


@pytest.mark.parametrize("args, names", [
    (["solve", "--game", "kuhn", "--preset", "cfr", "--iterations", DIGITS], ["--iterations", "111"]),
    (["solve", "--game", "kuhn", "--preset", "cfr", "--set", f"solver.iterations={DIGITS}"], ["[solver] iterations"]),
    (["study", "x.toml", "--out", "o", "--jobs", DIGITS], ["--jobs"]),
])
def test_numbers_of_thousands_of_digits_are_refused_in_one_line(tmp_path, args, names):
    refused([*args, "--out", tmp_path / "out"] if args[0] == "solve" else args, names=names)


def test_a_toml_integer_of_thousands_of_digits_is_malformed_toml(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'preset = "cfr"\ngame = "kuhn"\n[solver]\niterations = {DIGITS}\n')
    refused(["solve", cfg, "--out", tmp_path / "out"], names=["malformed TOML", str(cfg)])
    csv = tmp_path / "m.csv"
    csv.write_text(f"{DIGITS},1\n2,3\n")
    with pytest.raises(ConfigError, match="line 1, field 1"):
        solverkit.load_game("matrix_file", path=str(csv))


def test_acpc_numbers_of_thousands_of_digits_are_protocol_errors():
    from solverkit.errors import SolverkitError
    from solverkit.poker.acpc_protocol import parse_matchstate
    from solverkit.poker.gamedef import load_gamedef

    for line in (f"MATCHSTATE:{DIGITS}:0::Ks|", f"MATCHSTATE:0:{DIGITS}::Ks|"):
        with pytest.raises(SolverkitError) as err:
            parse_matchstate(line, load_gamedef("kuhn"))
        assert len(str(err.value)) < 400


@pytest.mark.parametrize("args", [
    ["play", "/nonexistent", "--connect", f"localhost:{DIGITS}"], ["dealer", "kuhn", "--ports", f"{DIGITS},0"],
    ["worker", "--connect", f"tcp://localhost:{DIGITS}", "--once"],
    ["solve", "--game", "kuhn", "--preset", "cfr", "--set", f'solver.eval_every="{DIGITS}"'],
    ["solve", "--game", "kuhn", "--preset", "cfr", "--checkpoint-every", DIGITS],
])
def test_ports_and_schedules_of_thousands_of_digits_are_one_short_line(tmp_path, args):
    line = refused([*args, "--out", tmp_path / "out"] if args[0] == "solve" else args)
    assert len(line) < 400


LONG = "x" * 100_000


@pytest.mark.parametrize("options", [["--set", f'game.name="{LONG}"'], ["--set", f"game.{LONG}=1"],
                                     ["--set", f'sampler.name="{LONG}"'], ["--set", f"{LONG}=1"], ["--set", f"{LONG}.x=1"],
                                     ["--preset", LONG]])
def test_a_name_or_key_of_any_length_makes_a_short_error_line(tmp_path, options):
    args = ["solve", "--game", "kuhn", *(["--preset", "cfr"] if "--preset" not in options else []), *options]
    line = refused([*args, "--out", tmp_path / "out"])
    assert len(line) < 400, len(line)


@pytest.mark.parametrize("text", [f"[assemblies.{LONG}]\npreset = 'cfr'\n[games.g]\ngame = 'kuhn'\n",
                                  f"[study]\n{LONG} = 1\n[assemblies.a]\npreset = 'cfr'\n[games.g]\ngame = 'kuhn'\n",
                                  f"{LONG} = 1\n"])
def test_a_study_name_or_key_of_any_length_makes_a_short_error_line(tmp_path, text):
    path = tmp_path / "s.toml"
    path.write_text(text)
    assert len(refused(["study", path, "--out", tmp_path / "out"])) < 400 + len(str(path))


def _coin_game(returns=1.0, prob=0.5, actions=("h", "t"), outcomes=None):
    """A chance coin, then each player picks h or t: a TreeGame whose methods return what is given."""

    class Coin(TreeGame):
        name = "coin_methods_test"

        def initial_state(self):
            return ()

        def is_terminal(self, state):
            return len(state) == 3

        def returns(self, state):
            return returns

        def player(self, state):
            return self.CHANCE if not state else len(state) - 1

        def chance_outcomes(self, state):
            return outcomes if outcomes is not None else [("a", prob), ("b", prob)]

        def legal_actions(self, state):
            return actions

        def child(self, state, action):
            return state + (action,)

        def infoset_key(self, state, player):
            return f"{player}{state[1:player + 1]}"

    return Coin


@pytest.mark.parametrize("kwargs, names", [
    ({"returns": 1 + 1j}, ["returns at history a h h = (1+1j) is not a real number"]),
    ({"returns": "1"}, ["returns", "'1' is not a real number"]), ({"returns": (1.0, "x")}, ["'x' is not a real number"]),
    ({"prob": 0.5 + 0j}, ["probability of chance outcome 'a' at root = (0.5+0j)"]),
    ({"prob": "0.5"}, ["'0.5' is not a real number"]),
    ({"actions": None}, ["legal_actions at history a returned None"]), ({"actions": "ht"}, ["returned 'ht'"]),
    ({"outcomes": 5}, ["chance_outcomes at root returned 5"]), ({"outcomes": [("a",)]}, ["('a',) at root is not an"]),
])
def test_tree_game_methods_returning_other_types_are_named(kwargs, names):
    with pytest.raises(ConfigError) as err:
        _coin_game(**kwargs)(max_nodes=100)
    for name in names:
        assert name in str(err.value), str(err.value)


def test_tree_game_methods_may_return_numpy_values_and_tuples():
    game = _coin_game(returns=np.float32(1.0), prob=np.float64(0.5), actions=np.array(["h", "t"]))(max_nodes=100)
    assert game.tree.num_nodes == 1 + 2 + 4 + 8


@pytest.mark.parametrize("command,member", [(["exploit"], "block_count1"), (["export"], "block_start0"),
                                            (["report"], "policy1"), (["strategy", "--infoset", "Qs||"], "policy0")])
def test_a_strategy_member_without_its_npy_header_is_a_damaged_file(kuhn_run, command, member):
    # np.load hands back the raw bytes of an .npz member whose .npy header is damaged: it was an
    # AttributeError traceback ('bytes' object has no attribute 'dtype')
    import zipfile

    path = kuhn_run / "strategy.npz"
    good = path.read_bytes()
    try:
        with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(path, "w") as dst:
            for info in src.infolist():
                data = src.read(info)
                dst.writestr(info, bytes(16) + data[16:] if info.filename == f"{member}.npy" else data)
        refused([command[0], kuhn_run, *command[1:]], names=["strategy.npz"])
    finally:
        path.write_bytes(good)
