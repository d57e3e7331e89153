"""The command line: solve, exploit, export, their outputs (docs/formats.md) and bad input.

Over 500 lines on purpose: the commands share one solved run and its fixtures; the
commands with their own features have their own files (test_strategy_query.py, test_report.py, ...).
"""

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import METRIC_COLUMNS, STORE_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
FORMATS_DOC = ROOT / "docs" / "formats.md"

PENNIES = 'preset = "cfr_plus"\n\n[game]\nname = "skewed_pennies"\n\n[solver]\niterations = 300\neval_every = 10\n'


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)


def number(text, label):
    """The number printed after `label` (e.g. 'exploitability 0.0123')."""
    m = re.search(rf"(?m)(?:^|\s){label} (\S+)", text)
    assert m, (label, text)
    return float(m.group(1))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("cli")
    cfg = base / "pennies.toml"
    cfg.write_text(PENNIES)
    out = base / "run"
    result = invoke("solve", cfg, "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    return out, result


# --- solve ------------------------------------------------------------------------------------------


def test_solve_writes_the_four_outputs(run_dir):
    out, result = run_dir
    assert sorted(p.name for p in out.iterdir()) == ["config.toml", "metrics.csv", "result.json", "strategy.npz"]
    assert result.stderr == ""
    summary = json.loads((out / "result.json").read_text())
    assert summary["iterations"] == 300 and summary["strategy"] == "average"
    assert summary["target"] == 0 and summary["reached_target"] is None  # no target: none reached or missed
    assert summary["interrupted"] is False
    # the printed exploitability is the saved one
    assert number(result.stdout, "exploitability") == pytest.approx(summary["exploitability"], rel=1e-5)
    assert number(result.stdout, "iterations") == 300
    assert str(out) in result.stdout


def test_metrics_csv(run_dir):
    out, _ = run_dir
    lines = (out / "metrics.csv").read_text().splitlines()
    assert lines[0] == "iteration,seconds,exploitability,br_0,br_1,nodes_touched,stored_bytes,compression_ratio,peak_rss_mb"
    rows = list(csv.DictReader(lines))
    assert [int(r["iteration"]) for r in rows] == list(range(10, 301, 10))
    seconds = [float(r["seconds"]) for r in rows]
    assert seconds == sorted(seconds)
    for r in rows:
        br0, br1 = float(r["br_0"]), float(r["br_1"])
        assert float(r["exploitability"]) == pytest.approx((br0 + br1) / 2, abs=1e-15)
        assert br0 >= -1e-12 and br1 >= -1e-12  # the value of skewed pennies is 0
    summary = json.loads((out / "result.json").read_text())
    assert float(rows[-1]["exploitability"]) == pytest.approx(summary["exploitability"], rel=1e-12)
    assert float(rows[-1]["seconds"]) == summary["seconds"]


def test_config_toml_is_resolved_and_reloads(run_dir):
    out, _ = run_dir
    asm = load_config(out / "config.toml")
    assert asm.resolved["rule"]["name"] == "rm_plus" and asm.resolved["averaging"]["name"] == "linear"
    assert asm.solver == {"iterations": 300, "target": 0.0, "update": "alternating", "first_update": 0, "average_pass": "opponent", "jitter": 0.0, "eval_every": 10, "time_limit": 0.0, "eval_current": False, "seed": 0, "checkpoint_every": ""}
    assert "preset" not in (out / "config.toml").read_text()
    assert load_config(out / "config.toml").resolved == asm.resolved


def test_exploit_recomputes_the_same_number(run_dir):
    out, _ = run_dir
    result = invoke("exploit", out)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "result.json").read_text())
    assert number(result.stdout, "exploitability") == pytest.approx(summary["exploitability"], rel=1e-11)
    assert number(result.stdout, "br_0") == pytest.approx(summary["br_0"], rel=1e-11)
    assert number(result.stdout, "br_1") == pytest.approx(summary["br_1"], rel=1e-11)
    assert "strategy average after iteration 300" in result.stdout


def test_export_json(run_dir, tmp_path):
    out, _ = run_dir
    result = invoke("export", out, "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [list(t) for t in doc["players"]] == [["row"], ["column"]]
    assert doc["actions"] == [{"row": ["heads", "tails"]}, {"column": ["heads", "tails"]}]
    assert doc["game"] == "skewed_pennies"
    with np.load(out / "strategy.npz") as data:
        assert doc["players"][0]["row"] == data["policy0"].tolist()
        assert doc["players"][1]["column"] == data["policy1"].tolist()
    assert sum(doc["players"][0]["row"]) == pytest.approx(1.0)
    assert doc["players"][0]["row"] == pytest.approx([2 / 3, 1 / 3], abs=0.05)
    target = tmp_path / "strategy.json"
    again = invoke("export", out, "--output", target)
    assert again.exit_code == 0 and again.stdout == ""
    assert json.loads(target.read_text()) == doc


def test_iterations_target_and_set_options(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text(PENNIES)
    out = tmp_path / "a"
    r = invoke("solve", cfg, "--out", out, "--quiet", "--iterations", 40, "--set", "rule.name=rm", "--set", "solver.eval_every=1")
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "result.json").read_text())
    assert summary["iterations"] == 40
    asm = load_config(out / "config.toml")
    assert asm.solver["iterations"] == 40 and asm.solver["eval_every"] == 1
    assert asm.resolved["rule"]["name"] == "rm" and asm.resolved["averaging"]["name"] == "linear"
    assert len((out / "metrics.csv").read_text().splitlines()) == 41

    out = tmp_path / "b"
    r = invoke("solve", cfg, "--out", out, "--quiet", "--target", "1e-2", "--set", "solver.eval_every=1", "--iterations", 5000)
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "result.json").read_text())
    assert summary["reached_target"] is True and summary["target"] == 1e-2
    assert summary["iterations"] < 5000 and summary["exploitability"] <= 1e-2
    assert load_config(out / "config.toml").solver["target"] == 1e-2


def test_default_output_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.toml").write_text(PENNIES)
    r = invoke("solve", "mine.toml", "--quiet", "--iterations", 5)
    assert r.exit_code == 0, r.output
    (made,) = (tmp_path / "runs").iterdir()
    assert made.name.startswith("mine-") and (made / "strategy.npz").is_file()


def test_current_strategy_run(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text(PENNIES)
    out = tmp_path / "cur"
    assert invoke("solve", cfg, "--out", out, "--quiet", "--set", "averaging.name=current").exit_code == 0
    assert json.loads((out / "result.json").read_text())["strategy"] == "current"
    assert "strategy current after iteration 300" in invoke("exploit", out).stdout


# --- what solve says (issue 17) --------------------------------------------------------------------


def test_stop_line_target_reached_and_cap(tmp_path):
    cfg = _cfg(tmp_path)
    out = tmp_path / "reached"
    r = invoke("solve", cfg, "--out", out, "--quiet", "--target", "1e-2", "--set", "solver.eval_every=1")
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "result.json").read_text())
    m = re.search(r"(?m)^target reached: exploitability (\S+) payoff <= 0.01 payoff at iteration (\d+)$", r.stdout)
    assert m, r.stdout
    assert float(m.group(1)) <= 1e-2 and int(m.group(2)) == summary["iterations"]
    r = invoke("solve", cfg, "--out", tmp_path / "cap", "--quiet", "--target", "1e-12", "--iterations", 20)
    assert r.exit_code == 0, r.output
    assert "iteration cap reached (20) before the target (1e-12 payoff)" in r.stdout.splitlines()
    # no target: no stop line
    r = invoke("solve", cfg, "--out", tmp_path / "plain", "--quiet", "--iterations", 5)
    assert r.exit_code == 0 and r.stdout.startswith("iterations 5 "), r.stdout


def test_progress_bar_ends_at_the_target_in_display_units(tmp_path):
    """A poker run stopping at a target in mbb/g: the bar closes full at the reached iteration,
    shows mbb/g and the target, estimates no time left from the cap, and a line says why it stopped."""
    out = tmp_path / "leduc"
    r = invoke("solve", "--game", "leduc", "--preset", "cfr_plus", "--set", "solver.target_mbb=50",
               "--set", "solver.eval_every=1", "--iterations", 2000, "--out", out)
    assert r.exit_code == 0, r.output
    n = json.loads((out / "result.json").read_text())["iterations"]
    assert n < 2000
    last = r.stderr.replace("\r", "\n").strip().splitlines()[-1]
    # the bar fills toward the target, not the cap: full at the reached iteration, the cap beside it
    assert "100%" in last and f"iteration {n}/2000 (cap)" in last and "mbb/g (target 50 mbb/g)" in last, last
    assert "<" not in last.split("[", 1)[1]  # no remaining-time estimate
    assert re.search(rf"(?m)^target reached: exploitability \S+ mbb/g <= 50 mbb/g at iteration {n}$", r.stdout), r.stdout


def test_store_line():
    from solverkit.cli import store_line
    from solverkit.core.solver import Result

    plain = Result(1, 0.0, (0.0, 0.0), 0.0, False, stored_bytes=6000, compression_ratio=0.5, store_kind="float64 in memory")
    assert store_line(plain) == ""  # nothing to say about plain doubles in memory
    disk = Result(1, 0.0, (0.0, 0.0), 0.0, False, stored_bytes=6000, compression_ratio=0.5, store_kind="float64 on disk")
    assert store_line(disk) == "store: float64 on disk, 0.006 MB"
    packed = Result(1, 0.0, (0.0, 0.0), 0.0, False, stored_bytes=123_000, compression_ratio=3.25)
    assert store_line(packed) == "store 0.123 MB  ratio 3.25:1 against 4-byte floats"
    held = Result(1, 0.0, (0.0, 0.0), 0.0, False, stored_bytes=123_000, compression_ratio=3.25,
                  store_kind="held decoded in memory")
    assert store_line(held) == ("store 0.123 MB when encoded  ratio 3.25:1 against 4-byte floats  "
                                "(held decoded: float64 in memory)")


def test_float_run_prints_no_ratio(run_dir):
    _, result = run_dir
    assert not [line for line in result.stdout.splitlines() if line.startswith("store")], result.stdout
    assert re.search(r"(?m)^peak RSS \d+ MB$", result.stdout), result.stdout


def test_slow_notice():
    import time

    from solverkit.core.solver import slow_notice

    heard = []
    with slow_notice(heard.append, "slow...", after=0.01):
        time.sleep(0.3)
    assert heard == ["slow..."]
    with slow_notice(heard.append, "fast", after=30):
        pass
    assert heard == ["slow..."]
    with slow_notice(None, after=0):
        time.sleep(0.05)


def test_compile_notice_on_stderr_unless_quiet(tmp_path, monkeypatch):
    import solverkit.core.solver as solver_module

    monkeypatch.setattr(solver_module, "COMPILE_NOTICE_AFTER", 0.0)  # as if compiling took long
    cfg = _cfg(tmp_path)
    r = invoke("solve", cfg, "--out", tmp_path / "a", "--iterations", 3)
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == "compiling kernels (first run only; cached afterwards)...", r.stderr
    r = invoke("solve", cfg, "--out", tmp_path / "b", "--iterations", 3, "--quiet")
    assert r.exit_code == 0 and r.stderr == "", r.stderr


def test_solve_a_builtin_game_without_a_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = invoke("solve", "--game", "skewed_pennies", "--preset", "cfr_plus", "--set", "solver.iterations=20",
               "--set", "game.heads=3", "--quiet")
    assert r.exit_code == 0, r.output
    (made,) = (tmp_path / "runs").iterdir()
    assert made.name.startswith("skewed_pennies-cfr_plus-")
    asm = load_config(made / "config.toml")
    assert asm.resolved["game"]["name"] == "skewed_pennies" and asm.resolved["game"]["heads"] == 3
    assert asm.resolved["rule"]["name"] == "rm_plus" and asm.solver["iterations"] == 20
    # --preset with a CONFIG replaces its preset
    out = tmp_path / "cfr"
    r = invoke("solve", _cfg(tmp_path), "--preset", "cfr", "--iterations", 5, "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    assert load_config(out / "config.toml").resolved["rule"]["name"] == "rm"


# --- bad input: exit status 2 and one line "Error: ..." -----------------------------------------------


def _cfg(tmp_path, text=PENNIES, name="c.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _copy_run(run_dir, tmp_path, strategy=True):
    out = tmp_path / "copy"
    out.mkdir()
    (out / "config.toml").write_text((run_dir / "config.toml").read_text())
    if strategy:
        (out / "strategy.npz").write_bytes((run_dir / "strategy.npz").read_bytes())
    return out


def _other_game(run_dir, tmp_path):
    out = _copy_run(run_dir, tmp_path)
    text = (out / "config.toml").read_text().replace('name = "skewed_pennies"', 'name = "random_matrix"\nrows = 3\ncols = 2')
    text = re.sub(r"(?m)^(heads|tails|mismatch) = .*\n", "", text)
    (out / "config.toml").write_text(text)
    return out


def _truncated(run_dir, tmp_path):
    out = _copy_run(run_dir, tmp_path)
    (out / "strategy.npz").write_bytes((run_dir / "strategy.npz").read_bytes()[:200])
    return out


def _tampered(run_dir, tmp_path, **changes):
    out = _copy_run(run_dir, tmp_path)
    with np.load(run_dir / "strategy.npz") as data:
        arrays = {k: data[k] for k in data.files}
    arrays.update(changes)
    with open(out / "strategy.npz", "wb") as fh:
        np.savez(fh, **arrays)
    return out


def _strategy_replaced(run_dir, tmp_path, what):
    """A copy of the run whose strategy.npz is text ("garbage": np.load took it for a pickle and
    the error advised allow_pickle) or a directory (it was 'not found')."""
    out = _copy_run(run_dir, tmp_path, strategy=False)
    if what == "dir":
        (out / "strategy.npz").mkdir()
    else:
        (out / "strategy.npz").write_text(what)
    return out


def _bad_config_in_run(run_dir, tmp_path):
    out = _copy_run(run_dir, tmp_path)
    (out / "config.toml").write_text("[game\n")
    return out


BAD = {
    "missing config": (lambda t, r: ["solve", t / "nope.toml"], "config file not found"),
    "malformed toml": (lambda t, r: ["solve", _cfg(t, "preset = \n")], "malformed TOML"),
    "unknown game": (lambda t, r: ["solve", _cfg(t, 'preset = "cfr"\ngame = "chess"\n')], "unknown game 'chess'"),
    "unknown key": (lambda t, r: ["solve", _cfg(t, PENNIES + "[bogus]\n")], "unknown top-level key 'bogus'"),
    "bad set value": (lambda t, r: ["solve", _cfg(t), "--set", "solver.iterations=abc"], "[solver] iterations = 'abc'"),
    "set without =": (lambda t, r: ["solve", _cfg(t), "--set", "solver.iterations"], "KEY=VALUE"),
    "set unknown section": (lambda t, r: ["solve", _cfg(t), "--set", "solvr.x=1"], "unknown section 'solvr'"),
    "set unknown param": (lambda t, r: ["solve", _cfg(t), "--set", "game.rows=3"], "unknown parameter 'rows'"),
    "bad preset type": (lambda t, r: ["solve", _cfg(t), "--set", "preset=[1]"], "unknown preset"),
    "zero iterations": (lambda t, r: ["solve", _cfg(t), "--iterations", "0"], "--iterations"),
    "text iterations": (lambda t, r: ["solve", _cfg(t), "--iterations", "many"], "--iterations"),
    "negative target": (lambda t, r: ["solve", _cfg(t), "--target", "-1"], "--target"),
    "config is a directory": (lambda t, r: ["solve", t], "is a directory"),
    "out is a file": (lambda t, r: ["solve", _cfg(t), "--out", _cfg(t, "x", "file.txt")], "--out"),
    "missing argument": (lambda t, r: ["solve"], "missing CONFIG (a TOML file) or --game NAME; usage: solverkit solve CONFIG.toml, solverkit solve --game NAME --preset NAME"),
    "preset alone": (lambda t, r: ["solve", "--preset", "cfr"], "missing CONFIG"),
    "config and game": (lambda t, r: ["solve", _cfg(t), "--game", "kuhn"], "not both"),
    "game without preset": (lambda t, r: ["solve", "--game", "kuhn"], "--game kuhn needs --preset NAME (the variant to run); available: apcfr_plus, apdcfr_plus, cfr, "),
    "game unknown": (lambda t, r: ["solve", "--game", "chess", "--preset", "cfr"], "unknown game 'chess'"),
    "game unknown preset": (lambda t, r: ["solve", "--game", "kuhn", "--preset", "cfrplus"], "unknown preset 'cfrplus'"),
    "game and resume": (lambda t, r: ["solve", "--resume", r, "--game", "kuhn"], "drop CONFIG, --game"),
    "unknown option": (lambda t, r: ["solve", _cfg(t), "--iters", "3"], "No such option"),
    "unknown command": (lambda t, r: ["solv"], "No such command"),
    "exploit no dir": (lambda t, r: ["exploit", t / "nowhere"], "not a solve output directory"),
    "exploit no strategy": (lambda t, r: ["exploit", _copy_run(r, t, strategy=False)], "strategy file not found"),
    "exploit truncated strategy": (lambda t, r: ["exploit", _truncated(r, t)], "cannot read strategy file"),
    "exploit text strategy": (lambda t, r: ["exploit", _strategy_replaced(r, t, "garbage\n")],
                              "not an .npz archive (it starts with b'garbag'); a damaged file"),
    "export strategy is a directory": (lambda t, r: ["export", _strategy_replaced(r, t, "dir")],
                                       "strategy.npz is not a regular file"),
    "exploit short policy": (lambda t, r: ["exploit", _tampered(r, t, policy0=np.ones(3))], "policy0 has shape (3,)"),
    "exploit meta not object": (lambda t, r: ["exploit", _tampered(r, t, meta=np.array("[1]"))], "meta is list"),
    "exploit wrong format": (lambda t, r: ["exploit", _tampered(r, t, meta=np.array('{"format": "x"}'))], "expected 'solverkit.strategy'"),
    "exploit other game": (lambda t, r: ["exploit", _other_game(r, t)], "belongs to another game: game 'skewed_pennies', "
                           "not game 'random_matrix' of "),
    "exploit bad config": (lambda t, r: ["exploit", _bad_config_in_run(r, t)], "malformed TOML"),
    "export bad format": (lambda t, r: ["export", r, "--format", "xml"], "--format"),
    "export other game": (lambda t, r: ["export", _other_game(r, t)], "belongs to another game"),
    "strategy other game": (lambda t, r: ["strategy", _other_game(r, t), "--infoset", "row"], "belongs to another game"),
    "export output dir missing": (lambda t, r: ["export", r, "--output", t / "no" / "s.json"], "s.json: no such directory"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_error_line(case, run_dir, tmp_path):
    build, expect = BAD[case]
    result = invoke(*build(tmp_path, run_dir[0]))
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    assert expect in lines[0]
    assert "Traceback" not in result.output


def test_bad_input_through_python_m(tmp_path):
    """A real process: status 2, one stderr line, nothing on stdout, no traceback."""
    env = dict(os.environ, SOLVERKIT_LOAD_PLUGINS="solverkit")
    cfg = _cfg(tmp_path, 'preset = "cfr"\ngame = "skewed_pennies"\n')
    for args, expect in [
        (["solve", str(cfg), "--set", "rule.name=rmplus"], "unknown regret rule 'rmplus' in [rule] name; available: apcfr_plus, apdcfr_plus, dcfr, dcfr_plus, hs_dcfr, hs_dcfr_plus, lcfr, mmd, pcfr_plus, pdcfr_plus, reg_cfr, rm, rm_plus, sapcfr_plus"),
        (["solve", str(cfg), "--iterations", "0"], "Error: Invalid value for '--iterations'"),
    ]:
        proc = subprocess.run([sys.executable, "-m", "solverkit", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and expect in lines[0], proc.stderr


# --- docs/formats.md matches the files ------------------------------------------------------------


def _section(title):
    text = FORMATS_DOC.read_text()
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def _table_keys(section):
    return [m.group(1) for m in re.finditer(r"(?m)^\| `([^`]+)` \|", section)]


def test_doc_metrics_columns():
    section = _section("metrics.csv")
    assert "```text\niteration,seconds,exploitability,br_0,br_1,nodes_touched,stored_bytes,compression_ratio,peak_rss_mb\n```" in section
    assert tuple(_table_keys(section)) == METRIC_COLUMNS + STORE_COLUMNS


def test_doc_result_json_keys(run_dir):
    out, _ = run_dir
    summary = json.loads((out / "result.json").read_text())
    assert _table_keys(_section("result.json")) == list(summary)


def test_doc_strategy_arrays(run_dir):
    out, _ = run_dir
    documented = {k.replace("{p}", str(p)) for k in _table_keys(_section("strategy.npz")) for p in (0, 1)}
    with np.load(out / "strategy.npz") as data:
        assert documented == set(data.files)
        meta = json.loads(str(data["meta"]))
    assert set(meta) == {"format", "version", "kind", "iteration", "game", "game_id", "game_definition"}


def test_doc_python_snippet_runs(run_dir):
    out, _ = run_dir
    (code,) = re.findall(r"```python\n(.*?)```", FORMATS_DOC.read_text(), flags=re.S)
    scope = {"run_dir": str(out)}
    exec(code, scope)
    assert scope["meta"]["kind"] == "average"
    assert len(scope["infosets"]) == 1 and sum(scope["infosets"][0]) == pytest.approx(1.0)


def test_doc_export_example_has_the_real_keys(run_dir):
    out, _ = run_dir
    (example,) = re.findall(r"```json\n(.*?)```", FORMATS_DOC.read_text(), flags=re.S)
    real = json.loads(invoke("export", out).stdout)
    assert set(json.loads(example)) == set(real)
    assert json.loads(example)["actions"] == real["actions"]


def test_info_refuses_a_cut_below_the_last_round_as_solve_does():
    """split_round passes its Param range (0..7) but Leduc has 2 rounds: an IndexError traceback before."""
    res = CliRunner().invoke(cli, ["info", "leduc", "--set", "split_round=5"])
    assert res.exit_code == 2 and res.stderr == (
        "Error: [game] split_round = 5: the game has 2 rounds; valid: 0 (no split) to 1\n"), res.output


def test_info_takes_solves_game_dot_spelling_and_names_other_sections_in_one_line():
    """`--set store.precision=block16` was reported as an unknown [game] parameter 'store.precision'."""
    res = CliRunner().invoke(cli, ["info", "leduc", "--set", "game.isomorphism=false"])
    assert res.exit_code == 0, res.output
    assert any(ln.replace("*", " ").split()[:2] == ["isomorphism", "false"] and ln.lstrip().startswith("*")
               for ln in res.output.splitlines())
    res = CliRunner().invoke(cli, ["info", "leduc", "--set", "store.precision=block16"])
    assert res.exit_code == 2 and "--set store.precision" in res.stderr and "[store]" in res.stderr, res.output
    assert res.stderr.count("\n") == 1


def test_info_lists_the_game_parameters_with_values_and_marks_the_given_ones():
    res = CliRunner().invoke(cli, ["info", "leduc", "--set", "isomorphism=false"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    head = lines.index("parameters (--set NAME=VALUE; * = given here, otherwise the default):")
    params = {ln.replace("*", " ").split()[0]: ln for ln in lines[head + 1:]}
    # two players: the poker engine's parameters, not the tree engine's (max_nodes, split_actions: 3+ players)
    assert set(params) == {"split_round", "isomorphism", "chunks", "trunk_only", "parallel_deals", "players"}
    assert params["isomorphism"].strip().split()[:3] == ["*", "isomorphism", "false"] and "bool:" in params["isomorphism"]
    assert params["chunks"].split()[:2] == ["chunks", "1"]


def test_info_shows_a_table_parameter_on_its_line():
    """A spot's [game.sizes] table was printed as TOML sections, breaking the parameter list."""
    res = CliRunner().invoke(cli, ["info", str(ROOT / "configs" / "spot_preset.toml")])
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("  * sizes"))
    assert '{flop = {bet = "52%", raise = "45%"}, turn = {bet = "55%"' in line
    assert "memory as 16-bit blocks" in res.output


def test_the_strategy_help_example_key_is_a_real_leduc_key(tmp_path):
    """`strategy --help` showed 'Kh|Qh|cr', which Leduc refuses (a board with first-round betting)."""
    text = " ".join(invoke("strategy", "--help").output.split())
    key = re.search(r"e\.g\. Leduc's '([^']+)'", text).group(1)
    out = tmp_path / "leduc"
    assert invoke("solve", "--game", "leduc", "--preset", "cfr_plus", "--iterations", "3", "--out", out,
                  "--quiet").exit_code == 0
    res = invoke("strategy", out, "--infoset", key)
    assert res.exit_code == 0 and res.output.startswith(f"{key}  (player "), res.output


@pytest.mark.parametrize("args", [["keys", ""], ["exploit", ""], ["export", ""], ["strategy", " "], ["report", ""],
                                  ["plot", "preflop", ""], ["play", "", "--connect", "localhost:1"], ["solve", ""],
                                  ["study", "", "--out", "x"]])
def test_an_empty_path_argument_is_refused_not_taken_as_the_working_directory(tmp_path, monkeypatch, args):
    """`keys ''` wrote trunk.key and worker-1.key_secret into the working directory and
    `exploit ''` read it as '.' (Path('') is '.') (issue 26 round 2)."""
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2 and "is empty: give a" in res.output, res.output
    assert len(res.output.strip().splitlines()) == 1 and list(tmp_path.iterdir()) == []


def test_an_output_that_is_a_pipe_or_device_is_written_into_not_replaced(run_dir, tmp_path):
    """export -o /dev/full (as root) replaced the device node /dev/full with a regular file: the
    atomic write renamed NAME.tmp over it (issue 26 round 2). A pipe stands in for the device."""
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = invoke("export", run_dir[0], "-o", fifo)
    reader.join(timeout=30)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and json.loads(got[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no pipe.tmp either
