"""Fuzzing every input surface a user controls: config files and --set, the command-line options
of solve (fresh and --resume), ACPC game files, matrix files and strategy files.

Each example is built to be invalid, and each test asserts what docs/failure-modes.md promises:
exit status 2, exactly one line ``Error: ...`` on stderr naming the file / field / value, no
traceback, nothing on stdout, and no file of the run directory changed.

CI runs a few examples per surface; ``--hypothesis-profile fuzz-long`` (or ``SOLVERKIT_FUZZ=long``)
runs many more (bench/README.md).

Over 500 lines on purpose: one strategy (invalid-by-construction examples, one promised
refusal) applied to every input surface with shared strategies and checks.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import tomli_w
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from solverkit.cli import cli
from solverkit.core.config import SOLVER_PARAMS, STORE_PARAMS
from solverkit.core.params import INT_MAX, INT_MIN, spec_of
from solverkit.core.registry import Registry

from .conftest import fuzz_examples

EXAMPLES = fuzz_examples(12)
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES < 100,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# values a required parameter gets while another parameter of the same plugin is fuzzed
REQUIRED = {("game", "acpc", "gamedef"): "kuhn", ("game", "matrix_file", "path"): "m.npy",
            ("game", "holdem_spot", "board"): "QsJh2h7d3c", ("game", "holdem_spot", "pot"): 10,
            ("game", "holdem_spot", "stack"): 20, ("game", "holdem_spot", "oop_range"): "AA",
            ("game", "holdem_spot", "ip_range"): "KK",
            ("game", "openspiel", "game"): "kuhn_poker"}
PLUGIN_KINDS = ("game", "rule", "averaging", "compressor", "transport")


# --- the run directory and the one-error-line check ---------------------------------------------


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A finished Kuhn run with a checkpoint: what bad input must leave untouched."""
    root = tmp_path_factory.mktemp("fuzzrun")
    cfg = root / "kuhn.toml"
    cfg.write_text('preset = "cfr_plus"\ngame = "kuhn"\n[solver]\niterations = 20\n')
    result = CliRunner().invoke(cli, ["solve", str(cfg), "--out", str(root / "run"), "--quiet",
                                      "--checkpoint-every", "10"])
    assert result.exit_code == 0, result.output
    return root / "run"


def digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(args, run: Path | None = None, names=()) -> str:
    """Run the CLI on bad input: exit 2, one stderr line naming each of `names`, no traceback,
    no stdout, and `run` unchanged. Returns the line."""
    before = digest(run) if run is not None else None
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)
    assert result.exit_code == 2, (args, result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception
    assert result.stdout == "", result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.stderr
    for name in names:
        assert str(name) in lines[0], (name, lines[0])
    if run is not None:
        assert digest(run) == before, f"{args} changed {run}"
    return lines[0]


# --- bad values for a declared parameter --------------------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)  # surrogates are not TOML text
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])
HUGE_INT = st.one_of(st.integers(min_value=INT_MAX + 1, max_value=10**400),
                     st.integers(min_value=-(10**400), max_value=INT_MIN - 1))
ODD_TEXT = st.one_of(st.sampled_from(["", " ", "nan", "1,5", "--", "١٢", "true", "0x10", "é", "a\x00b", "\n"]),
                     TEXT.filter(lambda s: not s.strip().lstrip("+-").replace(".", "", 1).isdigit()))
WRONG_SHAPE = st.one_of(st.just({"a": 1}), st.lists(st.integers(0, 3), max_size=2))


def bad_value(p):
    """A strategy of values the Param `p` must refuse (never one it accepts)."""
    options = []
    if p.type == "int":
        options += [HUGE_INT, NON_FINITE, st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
                    st.booleans(), ODD_TEXT, WRONG_SHAPE]
        if p.min is not None:
            options.append(st.integers(min_value=INT_MIN, max_value=math.ceil(p.min) - 1))
        if p.max is not None:
            options.append(st.integers(min_value=math.floor(p.max) + 1, max_value=INT_MAX))
    elif p.type == "float":
        options += [NON_FINITE, st.integers(min_value=2**1024, max_value=10**400), st.booleans(), ODD_TEXT, WRONG_SHAPE]
        if p.min is not None:
            below = st.floats(max_value=p.min, allow_nan=False, allow_infinity=False, exclude_max=not p.min_exclusive)
            options.append(below.filter(lambda f: f < p.min or (p.min_exclusive and f == p.min)))
        if p.max is not None:
            options.append(st.floats(min_value=p.max, exclude_min=True, allow_nan=False, allow_infinity=False))
    elif p.type == "float_list":
        element = st.one_of(NON_FINITE, st.booleans(), ODD_TEXT, st.integers(min_value=2**1024, max_value=10**400))
        options += [st.lists(element, min_size=1, max_size=3).flatmap(lambda xs: st.permutations([1.0, *xs])),
                    ODD_TEXT, st.just({"a": 1.0})]
        if p.min is not None:
            options.append(st.just([p.min - 1.0] if not p.min_exclusive else [p.min]))
    elif p.type == "int_list":
        element = st.one_of(HUGE_INT, st.booleans(), ODD_TEXT, st.floats(allow_nan=True))
        options += [st.lists(element, min_size=1, max_size=3).map(lambda xs: [1, *xs]), ODD_TEXT, st.just({"a": 1})]
        if p.min is not None:
            options.append(st.just([int(p.min) - 1]))
    elif p.type == "bool":
        options += [st.integers(-2, 2), ODD_TEXT, st.floats(), WRONG_SHAPE]
    elif p.type in ("str", "path"):
        options += [st.integers(), st.floats(), st.booleans(), WRONG_SHAPE,
                    TEXT.map(lambda s: s + "\x00")]
        if p.type == "path":
            options.append(st.just(""))
        if p.choices:
            options.append(TEXT.filter(lambda s: s not in p.choices))
    return st.one_of(*options)


def _params_table():
    """(section, plugin name or None, key, Param) for every declared parameter: every plugin's,
    [solver]'s and [store]'s."""
    rows = [("solver", None, k, p) for k, p in SOLVER_PARAMS.params.items()]
    rows += [("store", None, k, p) for k, p in STORE_PARAMS.params.items()]
    reg = Registry()
    for kind in PLUGIN_KINDS:
        for name in reg.names(kind):
            for key, p in spec_of(reg.get(kind, name)).params.items():
                rows.append((kind, name, key, p))
    return rows


PARAMS = _params_table()


def inline(value) -> str:
    """`value` as a TOML inline value, as a --set override spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):  # TOML's escapes (json.dumps would write surrogate pairs TOML refuses)
        return tomli_w.dumps({"v": value})[len("v = "):].strip()
    if isinstance(value, list):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return "{" + ", ".join(f"{k} = {inline(v)}" for k, v in value.items()) + "}"


def _good_checkpoint_every(key, value) -> bool:
    """Whether `value` is a good [solver] checkpoint_every: a string parameter that also takes
    an integer number of iterations (100 as "100")."""
    from solverkit.core.config_text import parse_every
    from solverkit.errors import ConfigError

    if key != "checkpoint_every" or not isinstance(value, int) or isinstance(value, bool):
        return False
    try:
        parse_every(str(value))
    except ConfigError:
        return False
    return True


@st.composite
def bad_config(draw):
    """(config dict, --set overrides, the key the error must name)."""
    section, plugin, key, p = draw(st.sampled_from(PARAMS))
    value = draw(bad_value(p).filter(lambda v: not _good_checkpoint_every(key, v)))
    raw = {"preset": "cfr_plus", "game": {"name": "skewed_pennies"}, "solver": {"iterations": 5}}
    if plugin is not None:
        table = {"name": plugin, **{k: v for (s, n, k), v in REQUIRED.items() if (s, n) == (section, plugin)}}
        raw[section] = table
    if draw(st.booleans()):
        raw.setdefault(section, {})[key] = value
        overrides = []
    else:
        overrides = [f"{section}.{key}={inline(value)}"]
    return raw, overrides, key


@FUZZ
@given(case=bad_config())
def test_bad_parameter_values_are_refused_naming_the_key(run_dir, case):
    raw, overrides, key = case
    cfg = run_dir.parent / "fuzz.toml"
    cfg.write_text(tomli_w.dumps(raw))
    args = ["solve", cfg, "--out", run_dir, "--quiet"]
    for o in overrides:
        args += ["--set", o]
    refused(args, run_dir, names=[key])


IDENT = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)


@st.composite
def unknown_key(draw):
    section, plugin, _, _ = draw(st.sampled_from(PARAMS))
    key = draw(IDENT.filter(lambda k: k not in {r[2] for r in PARAMS} | {"name", "preset"}
                            and not k.startswith("target")))
    where = draw(st.sampled_from(["file", "set", "top"]))
    return section, plugin, key, where


@FUZZ
@given(case=unknown_key())
def test_unknown_keys_and_sections_are_refused_naming_them(run_dir, case):
    section, plugin, key, where = case
    raw = {"preset": "cfr_plus", "game": "skewed_pennies"}
    if plugin is not None:
        raw[section] = {"name": plugin, **{k: v for (s, n, k), v in REQUIRED.items() if (s, n) == (section, plugin)}}
    args = []
    if where == "file":
        raw.setdefault(section, {})[key] = 1
    elif where == "top":
        raw[key] = 1
    else:
        args = ["--set", f"{section}.{key}=1"]
    cfg = run_dir.parent / "fuzz.toml"
    cfg.write_text(tomli_w.dumps(raw))
    refused(["solve", cfg, "--out", run_dir, "--quiet", *args], run_dir, names=[key])


@FUZZ
@given(text=st.binary(max_size=64).filter(lambda b: b.strip()))
def test_config_files_of_random_bytes_are_refused(run_dir, text):
    cfg = run_dir.parent / "bytes.toml"
    cfg.write_bytes(b"x = \x01\n" + text)  # never valid TOML with only known keys
    refused(["solve", cfg, "--out", run_dir, "--quiet"], run_dir, names=[cfg])


# --- command-line options of solve, fresh and --resume -------------------------------------------

BAD_OPTION = st.one_of(
    st.tuples(st.just("--iterations"), st.one_of(
        st.sampled_from(["0", "-3", "nan", "inf", "1.5", "1e999", "abc", "", "5\nx = 1", "[5]", "true"]),
        HUGE_INT.map(str))),
    st.tuples(st.just("--target"), st.one_of(
        st.sampled_from(["nan", "inf", "-inf", "-1", "-1e-9", "1e999", "abc", "", "[1]", "true", "+nan"]),
        st.floats(max_value=-1e-12).map(repr))),
    st.tuples(st.just("--checkpoint-every"), st.sampled_from(
        ["-5", "1.5", "10x", "0s", "nans", "infs", "1e999s", "-1m", "often", "5 s", "1e3", "99999999999999999999"])),
)


@FUZZ
@given(option=BAD_OPTION, resume=st.booleans())
def test_bad_solve_options_are_refused_and_nothing_is_written(run_dir, option, resume):
    flag, text = option
    base = ["solve", "--resume", run_dir] if resume else ["solve", run_dir / "config.toml", "--out", run_dir]
    line = refused([*base, flag, text, "--quiet"], run_dir, names=[flag])
    assert "[solver] " + flag[2:].replace("-", "_") in line


def test_resume_below_the_checkpoint_is_refused(run_dir):
    refused(["solve", "--resume", run_dir, "--iterations", "5"], run_dir, names=["iterations", "20", "below"])


# --- ACPC game files ----------------------------------------------------------------------------

LEDUC = (Path(__file__).parent.parent / "solverkit" / "poker" / "gamedefs" / "leduc.game").read_text()
FIELD_LINES = [i for i, line in enumerate(LEDUC.splitlines()) if "=" in line.split("#")[0]]
REQUIRED_LINES = [i for i, line in enumerate(LEDUC.splitlines())
                  if line.split("=")[0].strip().lower() in ("numplayers", "numrounds", "raisesize", "maxraises",
                                                            "numsuits", "numranks", "numholecards")
                  or line.strip().lower() in ("gamedef", "end gamedef", "limit")]


@st.composite
def bad_gamedef(draw):
    """Bytes of a game file that is wrong in one way; leduc.game otherwise."""
    lines = LEDUC.splitlines()
    kind = draw(st.sampled_from(["token", "huge", "duplicate", "stack", "delete", "bytes", "random", "unknown",
                                 "players", "holecards", "empty"]))
    i = draw(st.sampled_from(FIELD_LINES))
    key = lines[i].split("=")[0].strip()
    if kind == "token":
        tok = draw(st.sampled_from(["x", "1.5", "٣", "0x10", "1e3", "--1", "1_0", "+"]))
        lines[i] = f"{key} = 1 {tok}"
    elif kind == "huge":
        lines[i] = f"{key} = {draw(st.integers(min_value=2**31, max_value=10**60)) * draw(st.sampled_from([1, -1]))}"
    elif kind == "duplicate":
        lines.insert(i + 1, lines[i])
    elif kind == "stack":
        lines.insert(i, f"stack = {draw(st.integers(0, 10**6))}")
    elif kind == "delete":
        del lines[draw(st.sampled_from(REQUIRED_LINES))]
    elif kind == "unknown":
        lines.insert(i, f"{draw(IDENT.filter(lambda k: k not in ('stack',)))}x = 1")
    elif kind == "players":
        lines = [ln for ln in lines if not ln.lower().startswith("numplayers")]
        lines.insert(2, f"numPlayers = {draw(st.sampled_from([0, 1, 3, 10]))}")
    elif kind == "holecards":
        lines = [ln for ln in lines if not ln.lower().startswith("numholecards")]
        lines.insert(2, f"numHoleCards = {draw(st.sampled_from([0, 3, 7]))}")
    elif kind == "empty":
        lines[i] = f"{key} ="
    data = ("\n".join(lines) + "\n").encode()
    if kind == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x82", b"\x80abc"])) + data[at:]
    elif kind == "random":
        data = draw(st.binary(max_size=200))
    return data


@FUZZ
@given(data=bad_gamedef(), command=st.sampled_from(["info", "solve"]))
def test_bad_acpc_game_files_are_refused_naming_the_file(run_dir, data, command):
    path = run_dir.parent / "fuzz.game"
    path.write_bytes(data)
    if command == "info":
        refused(["info", "acpc", "--set", f"gamedef={json.dumps(str(path))}"], run_dir, names=[path])
    else:
        cfg = run_dir.parent / "acpc.toml"
        cfg.write_text(tomli_w.dumps({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": str(path)}}))
        refused(["solve", cfg, "--out", run_dir, "--quiet"], run_dir, names=[path])


# --- matrix files -------------------------------------------------------------------------------

BAD_DTYPES = ["complex128", "complex64", "bool", "U3", "S2", "datetime64[s]", "timedelta64[ms]", "V8",
              [("a", "<f8"), ("b", "<i4")]]


@st.composite
def bad_matrix(draw):
    """(file name, bytes or array) of a matrix file that must be refused."""
    kind = draw(st.sampled_from(["dtype", "object", "ndim", "empty_shape", "nonfinite", "huge", "empty_file",
                                 "bytes", "csv_text", "csv_ragged", "csv_nonfinite", "csv_empty", "npz"]))
    shape = draw(st.tuples(st.integers(1, 4), st.integers(1, 4)))
    if kind == "dtype":
        return "m.npy", np.zeros(shape, dtype=np.dtype(draw(st.sampled_from(BAD_DTYPES))))
    if kind == "object":
        return "m.npy", np.array(np.ones(shape), dtype=object)
    if kind == "ndim":
        nd = draw(st.sampled_from([0, 1, 3, 4]))
        return "m.npy", np.ones(tuple(draw(st.integers(1, 3)) for _ in range(nd)))
    if kind == "empty_shape":
        return "m.npy", np.ones(draw(st.sampled_from([(0, 3), (2, 0), (0, 0)])))
    m = np.asarray(draw(st.lists(st.floats(-1e6, 1e6), min_size=shape[0] * shape[1],
                                 max_size=shape[0] * shape[1]))).reshape(shape)
    i, j = draw(st.integers(0, shape[0] - 1)), draw(st.integers(0, shape[1] - 1))
    if kind == "nonfinite":
        m[i, j] = draw(NON_FINITE)
        return "m.npy", m.astype(draw(st.sampled_from(["<f8", ">f8", "<f4", "<f2"])))
    if kind == "huge":
        m[i, j] = draw(st.floats(min_value=1e150, exclude_min=True, allow_infinity=False)) * draw(st.sampled_from([1, -1]))
        return "m.npy", m
    if kind == "empty_file":
        return draw(st.sampled_from(["m.npy", "m.csv"])), b""
    if kind == "bytes":
        return "m.npy", draw(st.binary(min_size=1, max_size=100))
    if kind == "npz":
        return "m.npy", "npz"
    rows = [",".join(repr(float(v)) for v in row) for row in m]
    if kind == "csv_text":
        cells = rows[i].split(",")
        # an empty cell in a one-column matrix would be a blank line, which CSV readers skip
        cells[j] = draw(st.sampled_from(["abc", "1..2", "0x1", "[1]", "1 2", "é"] + ([""] if shape[1] > 1 else [])))
        rows[i] = ",".join(cells)
    elif kind == "csv_ragged":
        rows.append(",".join(["1"] * (shape[1] + draw(st.sampled_from([-1, 1]))) if shape[1] > 1 else "1,2"))
    elif kind == "csv_nonfinite":
        cells = rows[i].split(",")
        cells[j] = draw(st.sampled_from(["nan", "inf", "-inf", "1e999", "NaN"]))
        rows[i] = ",".join(cells)
    elif kind == "csv_empty":
        rows = ["", "# only a comment", " "]
    return "m.csv", ("\n".join(rows) + "\n").encode()


@FUZZ
@given(case=bad_matrix())
def test_bad_matrix_files_are_refused_naming_the_file(run_dir, case):
    name, content = case
    folder = run_dir.parent / "matrix"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    path = folder / name
    if isinstance(content, np.ndarray):
        np.save(path, content, allow_pickle=content.dtype == object)
    elif content == "npz":
        np.savez(path.with_suffix(""), a=np.ones((2, 2)))
        path.with_suffix(".npz").rename(path)
    else:
        path.write_bytes(content)
    cfg = folder / "m.toml"
    cfg.write_text(tomli_w.dumps({"preset": "cfr_plus", "game": {"name": "matrix_file", "path": str(path)}}))
    refused(["solve", cfg, "--out", run_dir, "--quiet"], run_dir, names=[path])


@FUZZ
@given(which=st.sampled_from(["heads", "tails", "mismatch"]),
       value=st.floats(min_value=1e150, exclude_min=True, allow_infinity=False), sign=st.sampled_from([1, -1]))
def test_payoffs_that_would_overflow_are_refused_with_the_bound(run_dir, which, value, sign):
    cfg = run_dir.parent / "pennies.toml"
    cfg.write_text('preset = "cfr_plus"\ngame = "skewed_pennies"\n')
    refused(["solve", cfg, "--out", run_dir, "--set", f"game.{which}={sign * value!r}"], run_dir,
            names=["1e+150", "skewed_pennies"])


# --- strategy files -----------------------------------------------------------------------------


@st.composite
def bad_strategy(draw, arrays):
    """(mutated arrays or raw bytes, what the error must name)."""
    kind = draw(st.sampled_from(["value", "row", "drop", "dtype", "length", "layout", "meta", "bytes", "truncate"]))
    out = {k: v.copy() for k, v in arrays.items()}
    p = draw(st.sampled_from([0, 1]))
    pol = out[f"policy{p}"]
    if kind == "value":
        i = draw(st.integers(0, len(pol) - 1))
        pol[i] = draw(st.one_of(NON_FINITE, st.floats(max_value=-1e-5), st.floats(min_value=1 + 1e-5)))
        return out, ["information set", f"policy{p}"]
    if kind == "row":  # every value a probability, the sum not 1
        i = draw(st.integers(0, len(pol) - 1))
        pol[i] = pol[i] * 0.5 + 0.3 if pol[i] < 0.5 else pol[i] * 0.5
        assume(abs(pol[i] - arrays[f"policy{p}"][i]) > 1e-4)
        return out, ["information set", "sum"]
    if kind == "drop":
        name = draw(st.sampled_from(sorted(out)))
        del out[name]
        return out, [name]
    if kind == "dtype":
        name = draw(st.sampled_from([f"policy{p}", f"block_count{p}", f"block_actions{p}", f"block_start{p}"]))
        bad = draw(st.sampled_from(["complex128", "bool", "U4"] if name.startswith("policy") else ["float64", "complex128", "U4"]))
        out[name] = out[name].astype(bad)
        return out, [name]
    if kind == "length":
        out[f"policy{p}"] = np.concatenate([pol, [0.5]]) if draw(st.booleans()) else pol[:-1]
        return out, [f"policy{p}"]
    if kind == "layout":
        name = draw(st.sampled_from([f"block_count{p}", f"block_actions{p}", f"block_start{p}"]))
        out[name] = out[name] + draw(st.sampled_from([1, -1, 7]))
        return out, ["strategy.npz"]
    if kind == "meta":
        out["meta"] = np.array(draw(st.sampled_from(["{", "[]", '{"format": "x"}', "null",
                                                     json.dumps({"format": "solverkit.strategy", "version": 1,
                                                                 "kind": "best", "iteration": 3})])))
        return out, ["strategy.npz"]
    if kind == "bytes":
        return draw(st.binary(max_size=64)), ["strategy.npz"]
    return ("truncate", draw(st.integers(1, 400))), ["strategy.npz"]


@pytest.fixture(scope="module")
def good_strategy(run_dir):
    path = run_dir / "strategy.npz"
    with np.load(path) as data:
        return path.read_bytes(), {k: data[k] for k in data.files}


@FUZZ
@given(data=st.data(), command=st.sampled_from(["exploit", "export"]))
def test_damaged_strategy_files_are_refused_naming_array_and_value(run_dir, good_strategy, data, command):
    raw, arrays = good_strategy
    case, names = data.draw(bad_strategy(arrays))
    path = run_dir / "strategy.npz"
    try:
        if isinstance(case, dict):
            np.savez(path, **case)
        elif isinstance(case, tuple):
            path.write_bytes(raw[: -case[1]])
        else:
            path.write_bytes(case)
        refused([command, run_dir], run_dir, names=names)
    finally:
        path.write_bytes(raw)


def test_the_good_strategy_file_is_accepted(run_dir):
    result = CliRunner().invoke(cli, ["exploit", str(run_dir)])
    assert result.exit_code == 0, result.output


# --- study files --------------------------------------------------------------------------------


def _is_schedule(text) -> bool:
    from solverkit.core.config_text import parse_schedule
    from solverkit.errors import ConfigError

    try:
        parse_schedule(text)
    except ConfigError:
        return False
    return True


@FUZZ
@given(data=st.data(), key=st.sampled_from(["targets", "seeds", "iterations", "eval_every", "stop_at_target"]),
       table=st.sampled_from(["study", "games.g"]))
def test_bad_study_values_are_refused_naming_the_key(run_dir, data, key, table):
    from solverkit.study import file as study

    if table == "games.g" and key in ("eval_every", "stop_at_target"):
        table = "study"
    param = {"targets": study._TARGETS, "seeds": study._SEEDS, "iterations": study._POSITIVE,
             "eval_every": study._EVAL_EVERY, "stop_at_target": study._BOOL}[key]
    bad = bad_value(param)
    if key == "eval_every":  # strings are schedules ("30s", "1e6 nodes"): keep those parse_schedule refuses
        bad = bad.filter(lambda v: not isinstance(v, str) or not _is_schedule(v))
    value = data.draw(st.one_of(bad, st.just([])) if param.type.endswith("list") else bad)
    raw = {"assemblies": {"a": {"preset": "cfr"}}, "games": {"g": {"game": {"name": "skewed_pennies"}}}}
    if table == "study":
        raw["study"] = {key: value}
    else:
        raw["games"]["g"][key] = value
    path = run_dir.parent / "study.toml"
    path.write_text(tomli_w.dumps(raw))
    out = run_dir.parent / "study_out"
    refused(["study", path, "--out", out, "--quiet"], run_dir, names=[key])
    assert not out.exists()


# --- the Python API: a result or a SolverkitError, never anything else -------------------------------
#
# Random configs that mix good and bad values (tiny games, a few iterations): solverkit.solve
# either returns a finite result whose resolved config holds the values given, or raises a
# SolverkitError; a bare TypeError, KeyError, ValueError, RecursionError ... fails the test.

from solverkit.errors import SolverkitError  # noqa: E402

#: games small enough to solve in a moment whatever their parameters are set to (no files)
API_GAMES = ("skewed_pennies", "random_matrix", "kuhn", "kuhn_tree", "leduc_tree")
#: kinds fuzzed besides the game (transports start processes and are left out; stores stay in memory)
API_KINDS = ("rule", "averaging", "compressor", "sampler")
ANY_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-3, 5), HUGE_INT, st.floats(), TEXT,
                       st.complex_numbers(max_magnitude=10), st.sampled_from(["", "a\x00b", "1_000", "１", "00", "inf"]))
ANY_VALUE = st.recursive(ANY_SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                             st.dictionaries(IDENT, inner, max_size=2)), max_leaves=5)


def good_value(p):
    """A strategy of values the Param `p` accepts, kept small (a few threads, rows, nodes)."""
    if p.choices:
        return st.sampled_from(p.choices)
    lo = p.min if p.min is not None else -3
    if p.type == "int":
        return st.integers(math.ceil(lo), math.ceil(lo) + 3).filter(lambda v: p.max is None or v <= p.max)
    if p.type == "float":
        hi = p.max if p.max is not None else lo + 10.0
        return st.floats(lo, min(hi, lo + 10.0), exclude_min=p.min_exclusive)
    if p.type == "float_list":
        return st.lists(st.floats(max(lo, 1e-3), max(lo, 1e-3) + 1e6), min_size=max(1, p.min_len), max_size=3)
    if p.type == "int_list":
        return st.lists(st.integers(math.ceil(lo), math.ceil(lo) + 3), min_size=max(1, p.min_len), max_size=4)
    if p.type == "bool":
        return st.booleans()
    return st.just(p.default)


_REG = Registry()
API_PARAMS = {("game", n): spec_of(_REG.get("game", n)).params for n in API_GAMES}
# leduc_tree with 3 players or more is a tree of millions of nodes (half a minute to build): its
# players are checked like kuhn_tree's, whose largest (5 players) builds in about two seconds
API_PARAMS[("game", "leduc_tree")] = {k: p for k, p in API_PARAMS[("game", "leduc_tree")].items() if k != "players"}
API_PARAMS.update({(k, n): spec_of(_REG.get(k, n)).params for k in API_KINDS for n in _REG.names(k)})
API_PARAMS[("solver", None)] = {k: p for k, p in SOLVER_PARAMS.params.items() if k != "checkpoint_every"}
API_PARAMS[("store", None)] = {k: p for k, p in STORE_PARAMS.params.items() if k not in ("path", "backend")}


@st.composite
def api_config(draw):
    """(config dict, [(section, key, value given)]): a tiny game and maybe other plugins, with a
    few parameters set to good or arbitrary values."""
    cfg = {"preset": draw(st.sampled_from(sorted(_REG.presets)))}
    picks = [("game", draw(st.sampled_from(API_GAMES)))]
    picks += [(k, draw(st.sampled_from(_REG.names(k)))) for k in draw(st.sets(st.sampled_from(API_KINDS), max_size=2))]
    picks += [(s, None) for s in draw(st.sets(st.sampled_from(["solver", "store"]), max_size=2))]
    given = []
    for section, name in picks:
        table = {} if name is None else {"name": name}
        params = API_PARAMS[(section, name)]
        for key in draw(st.sets(st.sampled_from(sorted(params)), max_size=2)) if params else ():
            value = draw(st.one_of(good_value(params[key]), ANY_VALUE) if draw(st.booleans()) else good_value(params[key]))
            table[key] = value
            given.append((section, key, value))
        cfg[section] = table
    cfg.setdefault("solver", {}).setdefault("iterations", draw(st.integers(1, 3)))
    if draw(st.integers(0, 9)) == 0:  # now and then a section or value of the wrong shape altogether
        cfg[draw(st.sampled_from(["game", "rule", "solver", "store", "sampler"]))] = draw(ANY_VALUE)
        given = []
    return cfg, given


def _same(given, resolved) -> bool:
    """Whether a resolved config value is the value given (int for float, a number for a list of one)."""
    if isinstance(resolved, list) and not isinstance(given, list):
        given = [given]
    if isinstance(given, list) and isinstance(resolved, list):
        return len(given) == len(resolved) and all(_same(g, r) for g, r in zip(given, resolved))
    return type(given) is not bool and given == resolved or given is resolved


@FUZZ
@given(case=api_config())
def test_api_configs_give_a_result_or_a_solverkit_error(case):
    import solverkit

    cfg, given = case
    try:
        sol = solverkit.solve(cfg)
    except SolverkitError as exc:
        assert str(exc) and "\n" not in str(exc).strip(), str(exc)
        return
    assert math.isfinite(sol.exploitability) and sol.exploitability >= -1e-9, sol.exploitability
    assembly = solverkit.core.config.load_config(cfg)  # what the solve resolved: the values given, not others
    for section, key, value in given:
        table = {"solver": assembly.solver, "store": assembly.store}.get(section) or assembly.resolved.get(section, {})
        if section == "sampler":
            table = assembly.sampler.config
        if section in ("rule", "averaging") and key == "horizon" and value == 0:
            value = assembly.solver["iterations"]  # horizon 0: the run's iterations, written into the config
        assert _same(value, table.get(key)), (section, key, value, table.get(key))


# --- game files through the API: a result or a SolverkitError ----------------------------------------

KUHN = (Path(__file__).parent.parent / "solverkit" / "poker" / "gamedefs" / "kuhn.game").read_text()


@st.composite
def any_gamedef(draw):
    """kuhn.game with a few lines changed to small numbers, other tokens or bytes: some valid games,
    most not."""
    lines = KUHN.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        key = lines[i].split("=")[0].strip()
        kind = draw(st.sampled_from(["number", "numbers", "token", "drop", "dup"]))
        if kind == "number" and "=" in lines[i]:
            lines[i] = f"{key} = {draw(st.integers(-1, 4))}"
        elif kind == "numbers" and "=" in lines[i]:
            lines[i] = f"{key} = " + " ".join(str(draw(st.integers(0, 3))) for _ in range(draw(st.integers(0, 3))))
        elif kind == "token":
            lines[i] = f"{key} = {draw(st.sampled_from(['1_0', '１', 'x', '1.5', '', '99999999999999999999', 'nan']))}"
        elif kind == "drop":
            del lines[i]
        else:
            lines.insert(i, lines[i])
    return ("\n".join(lines) + "\n").encode()


@FUZZ
@given(data=any_gamedef())
def test_game_files_give_a_result_or_a_solverkit_error(tmp_path_factory, data):
    import solverkit

    path = tmp_path_factory.mktemp("gd") / "fuzz.game"
    path.write_bytes(data)
    try:
        sol = solverkit.solve({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": str(path)}}, iterations=2)
    except SolverkitError as exc:
        assert "\n" not in str(exc).strip(), str(exc)
        return
    assert math.isfinite(sol.exploitability) and sol.exploitability >= -1e-9


@st.composite
def any_matrix_file(draw):
    """(name, bytes, the matrix the bytes spell or None): CSV text of numbers in the spellings a
    reader must take (signs, exponents, spaces, blank lines) or must not, and .npy arrays of any
    small dtype and shape."""
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    values = draw(st.lists(st.lists(st.integers(-50, 50), min_size=cols, max_size=cols), min_size=rows, max_size=rows))
    if draw(st.booleans()):
        dtype = draw(st.sampled_from(["<i4", ">f8", "<f2", "u1", "?", "c16", "U2", "<i8"]))
        arr = np.array(values).astype(dtype)
        buf = __import__("io").BytesIO()
        np.save(buf, arr)
        expected = np.array(values, dtype=np.float64) if arr.dtype.kind in "iuf" else None
        if arr.dtype.kind == "u":
            expected = arr.astype(np.float64)
        return "m.npy", buf.getvalue(), expected
    spell = {v: draw(st.sampled_from([str(v), f"{v}.0", f" {v} ", f"{v}e0", f"+{v}" if v >= 0 else str(v)]))
             for row in values for v in row}
    text = "\n".join(",".join(spell[v] for v in row) for row in values) + "\n"
    expected = np.array(values, dtype=np.float64)
    if draw(st.booleans()):  # one cell in a spelling that is not a plain decimal
        bad = draw(st.sampled_from(["1_0", "１", "٣", "0x1", "nan", "inf", "1e", "--1", ""]))
        cells = [row.split(",") for row in text.splitlines()]
        cells[draw(st.integers(0, rows - 1))][draw(st.integers(0, cols - 1))] = bad
        text = "\n".join(",".join(r) for r in cells) + "\n"
        expected = None
    return "m.csv", text.encode(), expected


@FUZZ
@given(case=any_matrix_file())
def test_matrix_files_give_their_matrix_or_a_solverkit_error(tmp_path_factory, case):
    import solverkit

    name, data, expected = case
    path = tmp_path_factory.mktemp("mf") / name
    path.write_bytes(data)
    try:
        game = solverkit.load_game("matrix_file", path=str(path))
    except SolverkitError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc).strip(), str(exc)
        assert expected is None or not np.isfinite(expected).all(), f"refused a good matrix: {exc}"
        return
    assert expected is not None, f"accepted {data!r}"
    np.testing.assert_array_equal(game.matrix, expected)
