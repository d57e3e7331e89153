"""Config resolution: presets, --set overrides, errors that name key, value and choices,
paths relative to the config file, the resolved config round trip, and docs/config.md."""

import re
import shlex
import tomllib
from pathlib import Path

import numpy as np
import pytest
import tomli_w

from solverkit.core.config import SOLVER_PARAMS, load_config, solver_spec
from solverkit.core.config_text import TOP_KEYS, apply_overrides, parse_value
from solverkit.core.params import spec_of
from solverkit.core.registry import get_registry
from solverkit.errors import ConfigError
from solverkit.presets import PRESETS

ROOT = Path(__file__).resolve().parents[1]
CONFIG_DOC = ROOT / "docs" / "config.md"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def raises(match_all, source, overrides=()):
    """Load and expect a ConfigError whose message contains every string in `match_all`."""
    with pytest.raises(ConfigError) as info:
        load_config(source, overrides)
    msg = str(info.value)
    assert "\n" not in msg
    for part in match_all:
        assert part in msg, f"{part!r} not in {msg!r}"
    return msg


BASE = {"preset": "cfr_plus", "game": {"name": "skewed_pennies"}}


# --- presets -----------------------------------------------------------------------------------


def _table(value):
    """A built-in preset's rule or averaging entry as a table (it may be a bare name)."""
    return {"name": value} if isinstance(value, str) else dict(value)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_set_rule_averaging_and_update(preset):
    asm = load_config({"preset": preset, "game": "skewed_pennies"})
    want = {k: _table(PRESETS[preset][k]) for k in ("rule", "averaging")}
    assert asm.resolved["rule"]["name"] == want["rule"]["name"] == asm.rule.name
    assert asm.resolved["averaging"]["name"] == want["averaging"]["name"] == asm.averaging.name
    for section in ("rule", "averaging"):  # a preset's parameters reach the plugin
        for key, value in want[section].items():
            assert asm.resolved[section][key] == value
    want["update"] = PRESETS[preset]["update"]
    assert asm.solver["update"] == want["update"]
    assert asm.resolved["compressor"]["name"] == "none" and asm.resolved["transport"]["name"] == "local"
    assert "preset" not in asm.resolved


def test_preset_values_are_the_papers():
    presets = get_registry().presets
    combos = {name: (p.rule, p.averaging, p.update) for name, p in presets.items()}
    assert combos["cfr"] == ({"name": "rm"}, {"name": "uniform"}, "alternating")  # as OpenSpiel and the tables
    assert combos["cfr_plus"] == ({"name": "rm_plus"}, {"name": "linear"}, "alternating")
    assert combos["lcfr"][0] == {"name": "lcfr"} and combos["dcfr"][0] == {"name": "dcfr"}
    assert combos["dcfr_plus"][1] == {"name": "power", "gamma": 4.0}
    assert combos["pdcfr_plus"][1] == {"name": "power", "gamma": 5.0}
    assert {p.plugin for p in presets.values()} == {"solverkit.presets"}
    assert all(p.description for p in presets.values())


def test_builtin_presets_are_registered_through_the_hook():
    assert set(get_registry().presets) == set(PRESETS)


def test_explicit_tables_override_the_preset():
    asm = load_config(
        {"preset": "cfr", "game": "skewed_pennies", "rule": {"name": "dcfr", "alpha": 2}, "solver": {"update": "alternating"}}
    )
    assert asm.resolved["rule"] == {"name": "dcfr", "alpha": 2.0, "beta": 0.0}
    assert asm.resolved["averaging"]["name"] == "uniform"
    assert asm.solver["update"] == "alternating"


def test_solver_defaults():
    asm = load_config({"game": "skewed_pennies", "rule": "rm", "averaging": "uniform"})
    assert asm.solver == {"iterations": 1000, "target": 0.0, "update": "alternating", "first_update": 0, "average_pass": "opponent", "jitter": 0.0, "eval_every": 0, "time_limit": 0.0, "eval_current": False, "seed": 0, "checkpoint_every": ""}
    assert asm.resolved["transport"] == {"name": "local", "threads": 2}


def test_a_game_with_a_unit_adds_its_target():
    asm = load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"target_mbb": 5}})
    assert asm.solver["target_mbb"] == 5.0
    assert list(asm.solver)[:3] == ["iterations", "target", "target_mbb"]  # config.toml keeps its order
    assert load_config({"preset": "cfr_plus", "game": "kuhn"}).solver["target_mbb"] == 0.0


def test_a_zero_target_of_a_unit_the_game_lacks_is_dropped():
    """Runs written before units were the game's have target_mbb = 0.0 for every game."""
    asm = load_config({**BASE, "solver": {"target_mbb": 0.0}})
    assert "target_mbb" not in asm.solver and "target_mbb" not in asm.resolved["solver"]


# --- --set overrides ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("500", 500),
        ("1e-3", 1e-3),
        ("2.0", 2.0),
        ("-3", -3),
        ("true", True),
        ("false", False),
        ("[1, 2.5]", [1, 2.5]),
        ('"quoted"', "quoted"),
        ("'single'", "single"),
        ("random_matrix", "random_matrix"),  # not a TOML value: the raw string
        ("two words", "two words"),
        ("1_000", 1000),
    ],
)
def test_set_values_parse_as_toml(text, value):
    got = parse_value(text)
    assert got == value and type(got) is type(value)


def test_set_overrides_apply_in_order_and_are_typed():
    asm = load_config(
        BASE,
        [
            "solver.iterations=500",
            "solver.target=1e-3",
            "solver.eval_every = 5",
            "rule.name=dcfr",
            "rule.alpha=2",
            "rule.alpha=3",  # a later one wins
            "game.name=random_matrix",
            "game.rows=4",
            'game.cols="ignored"',
            "game.cols=6",
            "preset=lcfr",
        ],
    )
    assert asm.solver["iterations"] == 500 and asm.solver["target"] == 1e-3 and asm.solver["eval_every"] == 5
    assert asm.resolved["rule"] == {"name": "dcfr", "alpha": 3.0, "beta": 0.0}
    assert asm.resolved["averaging"]["name"] == "linear"  # from preset lcfr
    assert asm.game.matrix.shape == (4, 6)


def test_set_reaches_into_nested_tables():
    """game.sizes.river.bet: the table the file has (or a new one), the other keys kept; a key
    under a value that is not a table is refused naming it."""
    spot = {"preset": "dcfr", "game": {"name": "holdem_spot", "board": "QsJh2h8d3c", "pot": 20, "stack": 80,
                                        "oop_range": "AA", "ip_range": "KK", "sizes": {"river": {"raise": "a"}}}}
    raw = apply_overrides(spot, ["game.sizes.river.bet=70%", "game.sizes.ip.river.bet=a"])
    assert raw["game"]["sizes"] == {"river": {"raise": "a", "bet": "70%"}, "ip": {"river": {"bet": "a"}}}
    assert spot["game"]["sizes"] == {"river": {"raise": "a"}}  # the caller's table is left alone
    assert load_config(raw).resolved["game"]["sizes"]["river"]["bet"] == "70%"
    with pytest.raises(ConfigError, match=r"--set key 'game.pot.x': game.pot in the config is 20, not a table"):
        apply_overrides(spot, ["game.pot.x=1"])


def test_set_on_a_shorthand_section():
    """`game = "skewed_pennies"` in the file, then --set game.tails=3: a table with both."""
    asm = load_config({"preset": "cfr", "game": "skewed_pennies"}, ["game.tails=3"])
    assert asm.resolved["game"] == {"name": "skewed_pennies", "heads": 1.0, "tails": 3.0, "mismatch": -2.0}


def test_set_does_not_change_the_callers_dict():
    raw = {"preset": "cfr", "game": {"name": "skewed_pennies"}}
    apply_overrides(raw, ["game.heads=5", "solver.iterations=3"])
    assert raw == {"preset": "cfr", "game": {"name": "skewed_pennies"}}


@pytest.mark.parametrize(
    "item, parts",
    [
        ("solver.iterations", ["'solver.iterations'", "KEY=VALUE"]),
        ("iterations=5", ["'iterations'", "SECTION.PARAM", "solver", "game"]),
        ("solvr.iterations=5", ["'solvr'", "unknown section", "solver", "averaging", "transport"]),
        ("preset.x=1", ["'preset'", "unknown section"]),
        ("solver.iterations=many", ["[solver] iterations", "'many'", "an integer >= 1"]),
        ("solver.iterations=1.5", ["[solver] iterations", "1.5", "an integer"]),
        ("solver.iterations=true", ["[solver] iterations", "True", "an integer"]),
        ("solver.update=both", ["[solver] update", "'both'", "alternating, simultaneous"]),
        ("preset=[1]", ["unknown preset", "[1]", "apcfr_plus, apdcfr_plus, cfr, cfr_plus, dcfr, dcfr_plus, hs_dcfr, hs_dcfr_plus, hs_pcfr_plus, lcfr, mmd, pcfr_plus, pdcfr_plus, sapcfr_plus"]),
    ],
)
def test_bad_overrides(item, parts):
    raises(parts, BASE, [item])


def test_set_into_a_non_table_section():
    raises(["game", "not a table"], {"preset": "cfr", "game": 3}, ["game.heads=1"])


# --- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, parts",
    [
        ({**BASE, "solvr": {}}, ["unknown top-level key 'solvr'", "abstraction, averaging, compressor, game, preset, rule, sampler, search, solver, store, transport"]),
        ({**BASE, "iterations": 5}, ["'iterations'", "valid:"]),
        ({**BASE, "preset": "cfr+"}, ["unknown preset 'cfr+'", "apcfr_plus, apdcfr_plus, cfr, cfr_plus, dcfr, dcfr_plus, hs_dcfr, hs_dcfr_plus, hs_pcfr_plus, lcfr, mmd, pcfr_plus, pdcfr_plus, sapcfr_plus"]),
        ({**BASE, "preset": 3}, ["unknown preset 3", "cfr_plus"]),
        ({"preset": "cfr"}, ["missing [game] name", "random_matrix", "skewed_pennies"]),
        ({"game": "skewed_pennies"}, ["missing [rule] name", "rm_plus", "set preset", "cfr_plus"]),
        ({"game": "skewed_pennies", "rule": "rm"}, ["missing [averaging] name", "linear", "uniform"]),
        ({**BASE, "game": {"name": "pennies"}}, ["unknown game 'pennies'", "[game] name", "skewed_pennies", "random_matrix"]),
        ({**BASE, "rule": {"name": "rmplus"}}, ["unknown regret rule 'rmplus'", "[rule] name", "apcfr_plus, apdcfr_plus, dcfr, dcfr_plus, hs_dcfr, hs_dcfr_plus, lcfr, mmd, pcfr_plus, pdcfr_plus, reg_cfr, rm, rm_plus, sapcfr_plus"]),
        ({**BASE, "averaging": "lin"}, ["unknown averaging scheme 'lin'", "[averaging] name", "linear", "uniform"]),
        ({**BASE, "compressor": "zip"}, ["unknown compressor 'zip'", "[compressor] name", "none"]),
        ({**BASE, "transport": "mpi"}, ["unknown transport 'mpi'", "[transport] name", "local"]),
        ({**BASE, "game": {"name": 5}}, ["[game] name = 5", "string"]),
        ({**BASE, "game": 5}, ["[game]", "5", "table or a plugin name"]),
        ({**BASE, "game": {"name": "random_matrix", "rowz": 3}}, ["unknown parameter 'rowz'", "[game] (random_matrix)", "cols, rows, seed"]),
        ({**BASE, "solver": {"iteration": 3}}, ["unknown parameter 'iteration'", "[solver]", "eval_every, first_update, iterations, jitter, seed, target, time_limit, update"]),
        ({**BASE, "solver": {"target_mbb": 1.0}}, ["[solver] target_mbb = 1.0", "'skewed_pennies'", "no unit 'mbb'", "[solver] target"]),
        ({"preset": "cfr_plus", "game": "kuhn", "solver": {"target_mbb": -1}}, ["[solver] target_mbb = -1", "a number >= 0"]),
        ({"preset": "cfr_plus", "game": "kuhn", "solver": {"target_bb": 1.0}}, ["[solver] target_bb = 1.0", "no unit 'bb'", "target_mbb"]),
        ({**BASE, "solver": {"name": "x"}}, ["unknown parameter 'name'", "[solver]"]),
        ({**BASE, "game": {"name": "random_matrix", "rows": "3"}}, ["[game] (random_matrix) rows = '3'", "an integer >= 1 and <= 100000"]),
        ({**BASE, "game": {"name": "random_matrix", "rows": 0}}, ["[game] (random_matrix) rows = 0", ">= 1"]),
        ({**BASE, "game": {"name": "random_matrix", "rows": 10**6}}, ["rows = 1000000", "<= 100000"]),
        ({**BASE, "game": {"name": "skewed_pennies", "heads": "one"}}, ["[game] (skewed_pennies) heads = 'one'", "a number"]),
        ({**BASE, "game": {"name": "skewed_pennies", "heads": True}}, ["heads = True", "a number"]),
        ({**BASE, "game": {"name": "skewed_pennies", "heads": float("nan")}}, ["heads = nan", "a number"]),
        ({**BASE, "rule": {"name": "dcfr", "alpha": -1}}, ["[rule] (dcfr) alpha = -1", ">= 0 and <= 100"]),
        ({**BASE, "rule": {"name": "dcfr", "beta": 101.0}}, ["[rule] (dcfr) beta = 101.0", ">= -100 and <= 100"]),
        ({**BASE, "averaging": {"name": "delayed", "delay": -1}}, ["[averaging] (delayed) delay = -1", ">= 0"]),
        ({**BASE, "transport": {"name": "local", "threads": 0}}, ["[transport] (local) threads = 0", ">= 1 and <= 1024"]),
        ({**BASE, "solver": {"iterations": 0}}, ["[solver] iterations = 0", "an integer >= 1"]),
        ({**BASE, "solver": {"target": -1e-3}}, ["[solver] target = -0.001", "a number >= 0"]),
        ({**BASE, "solver": {"eval_every": -1}}, ["[solver] eval_every = -1", ">= 0"]),
        ({**BASE, "solver": {"update": "both"}}, ["[solver] update = 'both'", "one of alternating, simultaneous"]),
        ({**BASE, "game": {"name": "matrix_file"}}, ["missing parameter 'path'", "[game] (matrix_file)", "a file path"]),
        # it said only 'expected a string': which strings? (the parameter's doc names them)
        ({**BASE, "game": {"name": "acpc"}}, ["missing parameter 'gamedef'", "bundled name (kuhn, leduc"]),
        ({**BASE, "game": {"name": "matrix_file", "path": ""}}, ["[game] (matrix_file) path = ''", "a file path"]),
    ],
)
def test_config_errors_name_key_value_and_choices(raw, parts):
    raises(parts, raw)


def test_whole_numbers_are_accepted_for_integers():
    asm = load_config({**BASE, "solver": {"iterations": 30.0}})
    assert asm.solver["iterations"] == 30 and type(asm.solver["iterations"]) is int


def test_missing_file(tmp_path):
    path = tmp_path / "nope.toml"
    raises(["config file not found", str(path)], path)
    raises(["config file", str(tmp_path), "is not a regular file"], tmp_path)  # a directory is not a config file


def test_malformed_toml_names_file_and_line(tmp_path):
    path = write(tmp_path / "bad.toml", 'preset = "cfr"\n[game\nname = "x"\n')
    raises(["malformed TOML", str(path), "line 2"], path)


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin.toml"
    path.write_bytes(b'preset = "cfr\xe9"\n')
    raises([str(path)], path)


def test_errors_from_a_file_name_the_file(tmp_path):
    path = write(tmp_path / "c.toml", 'preset = "cfr"\ngame = "skewed_pennies"\nbogus = 1\n')
    raises(["'bogus'", str(path)], path)


# --- paths -----------------------------------------------------------------------------------------


def _matrix(path):
    np.savetxt(path, np.array([[1.0, -2.0], [-2.0, 4.0]]), delimiter=",")
    return path


def test_relative_paths_are_resolved_against_the_config_directory(tmp_path, monkeypatch):
    (tmp_path / "cfg" / "data").mkdir(parents=True)
    _matrix(tmp_path / "cfg" / "data" / "m.csv")
    cfg = write(tmp_path / "cfg" / "run.toml", 'preset = "cfr"\n[game]\nname = "matrix_file"\npath = "data/m.csv"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    asm = load_config(cfg)
    assert asm.resolved["game"]["path"] == str((tmp_path / "cfg" / "data" / "m.csv").resolve())
    np.testing.assert_array_equal(asm.game.matrix, [[1.0, -2.0], [-2.0, 4.0]])
    # the same path through --set, and a config named by a relative path
    monkeypatch.chdir(tmp_path)
    asm = load_config(Path("cfg/run.toml"), ['game.path="data/m.csv"'])
    assert asm.resolved["game"]["path"] == str((tmp_path / "cfg" / "data" / "m.csv").resolve())


def test_absolute_and_home_paths(tmp_path, monkeypatch):
    m = _matrix(tmp_path / "abs.csv")
    cfg = write(tmp_path / "sub" / "c.toml", f'preset = "cfr"\n[game]\nname = "matrix_file"\npath = "{m}"\n')
    assert load_config(cfg).resolved["game"]["path"] == str(m)
    monkeypatch.setenv("HOME", str(tmp_path))
    asm = load_config(cfg, ["game.path=~/abs.csv"])
    assert asm.resolved["game"]["path"] == str(m)


def test_dict_configs_resolve_paths_against_the_current_directory(tmp_path, monkeypatch):
    _matrix(tmp_path / "m.csv")
    monkeypatch.chdir(tmp_path)
    asm = load_config({"preset": "cfr", "game": {"name": "matrix_file", "path": "m.csv"}})
    assert asm.resolved["game"]["path"] == str((tmp_path / "m.csv").resolve())


def test_missing_data_file_names_the_resolved_path(tmp_path):
    cfg = write(tmp_path / "c.toml", 'preset = "cfr"\n[game]\nname = "matrix_file"\npath = "gone.npy"\n')
    raises([str(tmp_path / "gone.npy"), "not found"], cfg)


# --- the resolved config round trip --------------------------------------------------------------


ROUND_TRIP = [
    BASE,
    {"preset": "cfr", "game": "skewed_pennies"},
    {"preset": "dcfr", "game": {"name": "random_matrix", "rows": 3, "cols": 4, "seed": 9}, "rule": {"name": "dcfr", "alpha": 3}},
    {"preset": "lcfr", "game": "skewed_pennies", "averaging": {"name": "delayed", "delay": 7}, "solver": {"target": 1e-5, "eval_every": 3, "seed": 4}},
    {"game": {"name": "skewed_pennies", "tails": 2.5}, "rule": "rm", "averaging": "current", "transport": {"name": "local", "threads": 1}},
]


@pytest.mark.parametrize("raw", ROUND_TRIP)
def test_resolved_config_round_trips(tmp_path, raw):
    asm = load_config(raw)
    path = write(tmp_path / "config.toml", asm.to_toml())
    again = load_config(path)
    assert again.resolved == asm.resolved
    assert tomllib.loads(asm.to_toml()) == asm.resolved
    assert again.to_toml() == asm.to_toml()


def test_resolved_config_with_a_path_round_trips_from_another_directory(tmp_path):
    _matrix(tmp_path / "m.csv")
    cfg = write(tmp_path / "c.toml", 'preset = "cfr_plus"\n[game]\nname = "matrix_file"\npath = "m.csv"\n')
    asm = load_config(cfg)
    moved = write(tmp_path / "runs" / "x" / "config.toml", asm.to_toml())
    assert load_config(moved).resolved == asm.resolved


def test_resolved_config_is_complete():
    asm = load_config({"preset": "dcfr", "game": "random_matrix"})
    reg = get_registry()
    for section in ("game", "rule", "averaging", "compressor", "transport"):
        table = asm.resolved[section]
        cls = reg.get(section, table["name"])
        assert set(table) == {"name", *spec_of(cls).params}
    assert set(asm.resolved["solver"]) == set(SOLVER_PARAMS.params)
    assert set(asm.resolved) <= set(TOP_KEYS)
    poker = load_config({"preset": "dcfr", "game": "kuhn"})
    assert set(poker.resolved["solver"]) == set(SOLVER_PARAMS.params) | {"target_mbb"}


# --- docs/config.md cannot drift -----------------------------------------------------------------


def _blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", CONFIG_DOC.read_text(), flags=re.S)


DOC_TOML = _blocks("toml")


def test_doc_has_examples():
    assert len(DOC_TOML) >= 4
    assert len(_blocks("bash")) >= 1


@pytest.mark.parametrize("index", range(len(DOC_TOML)))
def test_doc_toml_examples_load(tmp_path, index):
    _matrix(tmp_path / "payoffs.csv")  # the matrix_file example's data, next to the config
    cfg = write(tmp_path / "example.toml", DOC_TOML[index])
    asm = load_config(cfg)
    assert asm.resolved["game"]["name"]


def test_doc_set_examples_work(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    lines = [line for block in _blocks("bash") for line in block.splitlines() if line.startswith("solverkit solve")]
    assert lines
    for line in lines:
        argv = shlex.split(line)
        sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
        assert sets, line
        if argv[2] == "--game":  # solverkit solve --game NAME --preset NAME: the config is those two
            load_config({"game": argv[3], "preset": argv[argv.index("--preset") + 1]}, sets)
        else:
            load_config(ROOT / argv[2], sets)


def test_doc_solver_table_matches_the_code():
    text = CONFIG_DOC.read_text()
    kuhn = load_config({"preset": "cfr_plus", "game": "kuhn"}).game
    for key, param in solver_spec(kuhn).params.items():  # the base keys and the poker unit's target
        default = tomli_w.dumps({"v": param.default}).split("=", 1)[1].strip()
        assert re.search(rf"^\| `{key}` \| [^|]+ \| `{re.escape(default)}` \|", text, flags=re.M), key


def test_doc_presets_table_matches_the_code():
    text = CONFIG_DOC.read_text()
    presets = get_registry().presets
    assert presets
    for name, p in presets.items():
        row = f"| `{name}` | `{_show(p.rule)}` | `{_show(p.averaging)}` | `{p.update}` |"
        assert row in text, row
    documented = re.findall(r"^\| `(\w+)` \| `[^`]+` \| `[^`]+` \| `(?:alternating|simultaneous)` \|", text, flags=re.M)
    assert sorted(documented) == sorted(presets)  # no row for a preset that does not exist


def _show(table):
    """How the presets table writes a rule or averaging: name, or name(param=value, ...)."""
    params = ", ".join(f"{k}={v:g}" for k, v in table.items() if k != "name")
    return table["name"] + (f"({params})" if params else "")


def test_doc_top_level_keys_match_the_code():
    text = CONFIG_DOC.read_text()
    for key in TOP_KEYS:
        assert f"| `{key}` |" in text, key


def test_doc_lists_builtin_rule_and_averaging_parameters():
    text = CONFIG_DOC.read_text()
    reg = get_registry()
    for kind in ("rule", "averaging"):
        for name in reg.names(kind):
            cls = reg.get(kind, name)
            if not cls.__module__.startswith("solverkit."):
                continue
            assert f"| {kind} | `{name}` |" in text, name
            for key, p in spec_of(cls).params.items():
                assert f"`{key}` ({p.default:g}" in text, (name, key)


def test_a_gamedef_file_is_relative_to_the_config_and_absolute_in_the_run(tmp_path, monkeypatch, capsys):
    from solverkit.poker.gamedef import bundled_names  # noqa: F401 - the acpc game's bundled files exist
    import shutil
    from importlib import resources

    (tmp_path / "cfg").mkdir()
    leduc = resources.files("solverkit.poker") / "gamedefs" / "leduc.game"
    shutil.copy(str(leduc), tmp_path / "cfg" / "my.game")
    cfg = write(tmp_path / "cfg" / "run.toml", 'preset = "cfr_plus"\n[game]\nname = "acpc"\ngamedef = "my.game"\n')
    monkeypatch.chdir(tmp_path)
    asm = load_config(cfg)
    assert asm.resolved["game"]["gamedef"] == str((tmp_path / "cfg" / "my.game").resolve())
    assert load_config(cfg, ['game.gamedef="leduc"']).resolved["game"]["gamedef"] == "leduc"  # a bundled name
    # a config written when files were read from the working directory: read from there, with a warning
    other = write(tmp_path / "other" / "run.toml", 'preset = "cfr_plus"\n[game]\nname = "acpc"\ngamedef = "cfg/my.game"\n')
    assert load_config(other).resolved["game"]["gamedef"] == str((tmp_path / "cfg" / "my.game").resolve())
    assert "not in" in capsys.readouterr().err
