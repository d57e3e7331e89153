"""solverkit.core.aot_auto (issue 30): after a CLI solve that ran kernels on numba's JIT, a
background ``solverkit compile`` of the same game, unless switched off, covered, too big, without
a compiler or while another build holds the lock; and (slow) a real one after which the next solve
never imports numba. conftest.py sets SOLVERKIT_AOT_BUILD=0: each test here opts in."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import solverkit.core.aot_auto as auto
import solverkit.core.aot_build as aot_build
from solverkit.cli import cli
from solverkit.core import aot_load
from solverkit.core.jit import njit


@njit(cache=False)
def _plus_one(x):
    return x + 1.0


@pytest.fixture
def on(monkeypatch, tmp_path):
    """Automatic builds on, into a temporary build root; the run needed the JIT, was small, and
    a compiler is there: each test changes one of these."""
    monkeypatch.setenv("SOLVERKIT_AOT_BUILD", "1")
    monkeypatch.delenv("SOLVERKIT_AOT", raising=False)
    monkeypatch.setenv("SOLVERKIT_AOT_DIR", str(tmp_path / "aot"))
    monkeypatch.setattr(auto, "new_signatures", lambda directory: ["k('a', '<f8')"])
    monkeypatch.setattr(aot_build, "compiler_available", lambda: True)
    return aot_load.build_dir()


def test_decides_to_build_a_small_run_that_needed_the_jit(on):
    directory, digest, why = auto.decide(peak_mb=50.0)
    assert (directory, why) == (on, "") and digest


@pytest.mark.parametrize("name", ["SOLVERKIT_AOT_BUILD", "SOLVERKIT_AOT"])
def test_either_variable_at_0_turns_it_off(on, monkeypatch, name):
    monkeypatch.setenv(name, "0")
    directory, _, why = auto.decide(peak_mb=50.0)
    assert directory is None and why == f"off ({name}=0)"


@pytest.mark.parametrize("value", ["off", "False", " no "])
def test_the_switches_take_off_false_no(on, monkeypatch, value):
    monkeypatch.setenv("SOLVERKIT_AOT_BUILD", value)
    assert auto.decide(peak_mb=50.0)[0] is None


def test_a_misspelt_switch_is_one_warning_naming_it_and_no_build(on, monkeypatch):
    monkeypatch.setenv("SOLVERKIT_AOT_BUILD", "of")
    said, spawned = [], []
    why = auto.after_solve(game="kuhn", notice=said.append, spawner=lambda c, log: spawned.append(c))
    assert why.startswith("failed") and not spawned
    assert len(said) == 1 and "SOLVERKIT_AOT_BUILD='of'" in said[0] and "valid: 1, on, true" in said[0]


def test_a_covered_run_builds_nothing(on, monkeypatch):
    monkeypatch.setattr(auto, "new_signatures", lambda directory: [])
    directory, _, why = auto.decide(peak_mb=50.0)
    assert directory is None and "covered" in why


def test_a_big_run_builds_nothing(on):
    directory, _, why = auto.decide(peak_mb=auto.MAX_PEAK_MB + 1)
    assert directory is None and "peaked" in why
    assert auto.decide(peak_mb=auto.MAX_PEAK_MB - 1)[0] == on


def test_no_compiler_no_build(on, monkeypatch):
    monkeypatch.setattr(aot_build, "compiler_available", lambda: False)
    directory, _, why = auto.decide(peak_mb=50.0)
    assert directory is None and why == "no C compiler"


def test_a_held_lock_means_no_build(on):
    with aot_build.build_lock(on) as taken:
        assert taken
        directory, _, why = auto.decide(peak_mb=50.0)
        assert directory is None and why == "another build is in progress"
        with aot_build.build_lock(on, wait=False) as second:
            assert second is False
    assert auto.decide(peak_mb=50.0)[0] == on


def test_compile_if_idle_skips_while_another_build_holds_the_lock(on, monkeypatch):
    """The background build's --if-idle: it exits at once, solving and building nothing."""
    import solverkit.core.solver as solver

    monkeypatch.setattr(solver, "run_solve", lambda *a, **k: pytest.fail("solved"))
    monkeypatch.setattr(aot_build, "build", lambda *a, **k: pytest.fail("built"))
    with aot_build.build_lock(on):
        res = CliRunner().invoke(cli, ["compile", "--if-idle", "--game", "kuhn"])
    assert res.exit_code == 0 and res.stderr.startswith("skipped: another build holds "), res.output


def test_a_manual_compile_waits_for_the_build_in_progress(on, monkeypatch):
    import threading

    import solverkit.core.solver as solver

    order = []
    monkeypatch.setattr(solver, "run_solve", lambda *a, **k: order.append("solved"))
    monkeypatch.setattr(aot_build, "build", lambda *a, **k: {"entries": [], "seconds": 0.0, "directory": str(on),
                                                            "file": "x.so", "skipped": []})
    held, release = threading.Event(), threading.Event()

    def other_build():
        with aot_build.build_lock(on):
            held.set()
            release.wait(10)
            order.append("released")

    thread = threading.Thread(target=other_build)
    thread.start()
    held.wait(10)
    threading.Timer(0.3, release.set).start()
    res = CliRunner().invoke(cli, ["compile", "--game", "kuhn"])
    thread.join()
    assert res.exit_code == 0 and res.stderr.startswith("waiting for the build in progress"), res.output
    assert order == ["released", "solved"]


def test_a_read_only_build_root_is_a_quiet_skip(on, monkeypatch):
    def denied(directory):
        raise PermissionError("read-only")

    monkeypatch.setattr(aot_build, "lock_free", denied)
    said = []
    assert auto.after_solve(game="kuhn", notice=said.append, spawner=lambda c, log: pytest.fail("spawned"))
    assert said == []


def test_a_build_that_added_nothing_is_not_restarted(on):
    calls = []
    assert auto.after_solve(game="kuhn", preset="cfr_plus", spawner=lambda cmd, log: calls.append(cmd)) == ""
    why = auto.after_solve(game="kuhn", preset="cfr_plus", spawner=lambda cmd, log: calls.append(cmd))
    assert len(calls) == 1 and "started before" in why
    (on / auto.ATTEMPT).write_text(json.dumps({"digest": "other", "time": time.time()}))
    assert auto.after_solve(game="kuhn", preset="cfr_plus", spawner=lambda cmd, log: calls.append(cmd)) == ""


def test_new_signatures_are_those_the_build_lacks(on, monkeypatch):
    from solverkit.core.aot_key import value_key

    monkeypatch.undo()
    monkeypatch.setenv("SOLVERKIT_AOT_DIR", str(on.parent))
    assert _plus_one(1.0) == 2.0  # no build: numba's JIT
    mine = f"{_plus_one.key}{value_key((1.0,))!r}"
    assert mine in auto.new_signatures(on)
    on.mkdir(parents=True, exist_ok=True)
    manifest = {"format": aot_load.FORMAT, "sources": {}, "module": "m", "file": "m.so",
                "entries": [[_plus_one.key, json.loads(json.dumps(value_key((1.0,)))), "k0"]]}
    (on / aot_load.MANIFEST).write_text(json.dumps(manifest))
    assert mine not in auto.new_signatures(on)


def test_compile_args_name_the_same_game(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert auto.compile_args("g.toml", ["rule.alpha=2", "game.heads=3"]) == [
        str(tmp_path / "g.toml"), "--set", "rule.alpha=2", "--set", "game.heads=3"]
    assert auto.compile_args(Path("g.toml"), [], preset="cfr") == [str(tmp_path / "g.toml"), "--set", 'preset="cfr"']
    assert auto.compile_args(game="leduc", preset="cfr_plus", overrides=["game.ranks=4"]) == [
        "--game", "leduc", "--preset", "cfr_plus", "--set", "game.ranks=4"]
    cmd = auto.command(["--game", "kuhn"])
    assert cmd[-7:] == [sys.executable, "-m", "solverkit", "compile", "--if-idle", "--game", "kuhn"]
    assert cmd[:3] in ([cmd[0], "-n", "19"], [sys.executable, "-m", "solverkit"]) and len(cmd) in (7, 10)


def test_spawn_detaches_and_logs(tmp_path):
    log = tmp_path / "log"
    probe = "import os, sys; print(os.getsid(0) == os.getpid(), os.nice(0), sys.stdin.read() == '', flush=True)"
    auto.spawn(["nice", "-n", "19", sys.executable, "-c", probe], log)
    for _ in range(200):
        lines = log.read_text().splitlines()
        if len(lines) >= 3:
            break
        time.sleep(0.05)
    assert lines[1].endswith(probe) and lines[2] == "True 19 True", lines


def test_notice_once_and_a_failed_spawn_is_one_warning(on):
    said = []

    def fail(cmd, log):
        raise OSError("no fork")

    assert auto.after_solve(game="kuhn", preset="cfr_plus", notice=said.append, spawner=lambda c, log: None) == ""
    assert len(said) == 1 and str(on / auto.LOG) in said[0] and "SOLVERKIT_AOT_BUILD=0" in said[0]
    (on / auto.ATTEMPT).unlink()
    said.clear()
    assert auto.after_solve(game="kuhn", preset="cfr_plus", notice=said.append, spawner=fail).startswith("failed")
    assert said == ["warning: could not start the background build of this run's kernels: no fork"]


def test_cli_solve_calls_it_once_after_a_successful_run_only(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(auto, "after_solve", lambda *a, **k: calls.append((a, k)))
    res = CliRunner().invoke(cli, ["solve", "--game", "skewed_pennies", "--preset", "cfr_plus", "--iterations", "3",
                                   "--set", "game.heads=3", "--out", str(tmp_path / "a"), "--quiet"])
    assert res.exit_code == 0, res.output
    assert len(calls) == 1 and calls[0][0] == (None, ("game.heads=3",), "skewed_pennies", "cfr_plus")
    assert calls[0][1]["notice"] is None  # --quiet: no line (the build still starts)
    res = CliRunner().invoke(cli, ["solve", "--game", "skewed_pennies", "--preset", "cfr_plus", "--iterations", "3",
                                   "--set", "rule.alpha=oops", "--out", str(tmp_path / "b"), "--quiet"])
    assert res.exit_code != 0 and len(calls) == 1


SECOND = """
import sys
from solverkit.cli import cli
try:
    cli(["solve", "--game", "kuhn", "--preset", "cfr_plus", "--iterations", "20", "--out", sys.argv[1]])
except SystemExit as exc:
    assert not exc.code, exc.code
print("numba" in sys.modules, "llvmlite" in sys.modules)
"""


@pytest.mark.slow
def test_a_solve_that_needed_numba_builds_so_the_next_does_not(tmp_path):
    if not aot_build.compiler_available():
        pytest.skip("no C compiler")
    env = {**os.environ, "SOLVERKIT_AOT_BUILD": "1", "SOLVERKIT_AOT_DIR": str(tmp_path / "aot")}
    env.pop("SOLVERKIT_AOT", None)
    first = subprocess.run([sys.executable, "-m", "solverkit", "solve", "--game", "kuhn", "--preset", "cfr_plus",
                            "--iterations", "20", "--out", str(tmp_path / "a")],
                           capture_output=True, text=True, env=env, timeout=300)
    assert first.returncode == 0 and "in the background" in first.stderr, first.stderr
    directory = next((tmp_path / "aot").iterdir())
    deadline = time.time() + 300
    while time.time() < deadline and not ((directory / aot_load.MANIFEST).exists() and aot_build.lock_free(directory)):
        time.sleep(0.5)
    assert "built " in (directory / auto.LOG).read_text()
    second = subprocess.run([sys.executable, "-c", SECOND, str(tmp_path / "b")], capture_output=True, text=True,
                            env=env, timeout=300)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split()[-2:] == ["False", "False"] and "in the background" not in second.stderr
    assert np.load(tmp_path / "a" / "strategy.npz").files == np.load(tmp_path / "b" / "strategy.npz").files


STUDY = """
[study]
name = "tiny"
iterations = 5
seeds = [1, 2]

[assemblies.a]
preset = "cfr_plus"

[games.k]
game = { name = "kuhn" }
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_study_builds_what_its_runs_took_from_the_jit(on, tmp_path, monkeypatch, jobs):
    """``solverkit study``: each run reports the kernels its process took from the JIT (here or in
    a worker process), and one background build starts from one run's config.toml per assembly and
    game (the seeds share their kernels)."""
    (tmp_path / "s.toml").write_text(STUDY)
    seen = []
    real = auto.after_study
    monkeypatch.setattr(auto, "after_study", lambda results, out, notice=None: seen.append(
        real(results, out, notice=notice, spawner=lambda cmd, log: seen.append(cmd))))
    res = CliRunner().invoke(cli, ["study", str(tmp_path / "s.toml"), "--out", str(tmp_path / "out"), "--jobs", jobs,
                                   "--quiet"])
    assert res.exit_code == 0, res.output
    cmd, why = seen
    assert why == "" and cmd[cmd.index("compile") + 1] == "--if-idle"
    configs = [c for c in cmd if c.endswith("config.toml")]
    assert len(configs) == 1 and Path(configs[0]).is_file() and "a__k__seed" in configs[0]


def test_a_study_whose_runs_took_nothing_from_the_jit_builds_nothing(on):
    from solverkit.study.runs import RunResult

    results = {"a__k__seed1": RunResult([], 5, 0.1, 0.01)}
    assert auto.after_study(results, "/nowhere", spawner=lambda c, log: pytest.fail("spawned")).startswith("no run")
