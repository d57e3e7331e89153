"""The output directory of a solve: an earlier run is never overwritten or truncated unless asked
(--resume goes on with it, --force replaces it), a refused run leaves it as it was, derived files
(report.html) never outlive the run they describe, and Ctrl-C leaves a checkpoint to resume from."""

from __future__ import annotations

import csv
import hashlib
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.run_dir import RUN_FILES
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError, SolverkitError

PENNIES = 'preset = "cfr_plus"\n\n[game]\nname = "skewed_pennies"\n\n[solver]\niterations = {n}\neval_every = 10\n'


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)


def digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def iterations_of(path: Path) -> list[int]:
    with open(path, newline="") as fh:
        return [int(r["iteration"]) for r in csv.DictReader(fh)]


@pytest.fixture
def cfg(tmp_path):
    path = tmp_path / "pennies.toml"
    path.write_text(PENNIES.format(n=15))
    return path


@pytest.fixture
def earlier(tmp_path, cfg):
    """A finished run with a checkpoint and a report made from it."""
    out = tmp_path / "run"
    r = invoke("solve", cfg, "--out", out, "--quiet", "--checkpoint-every", "5")
    assert r.exit_code == 0, r.output
    (out / "report.html").write_text("<html>the earlier run</html>")
    return out


def test_a_new_run_into_a_run_directory_is_refused_and_changes_nothing(earlier, tmp_path):
    before = digest(earlier)
    other = tmp_path / "other.toml"
    other.write_text(PENNIES.format(n=40).replace("cfr_plus", "cfr"))
    r = invoke("solve", other, "--out", earlier, "--quiet")
    assert r.exit_code == 2 and r.stdout == "", r.output
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"Error: --out {earlier} already holds a run (config.toml, metrics.csv")
    assert f"--resume {earlier}" in line and "--force" in line
    assert digest(earlier) == before
    # the API refuses it the same way, with solverkit's error class
    with pytest.raises(ConfigError, match="already holds a run"):
        run_solve(load_config(other), out=earlier)
    assert digest(earlier) == before


def test_a_run_directory_without_a_checkpoint_is_not_offered_for_resume(tmp_path, cfg):
    out = tmp_path / "plain"
    assert invoke("solve", cfg, "--out", out, "--quiet").exit_code == 0
    r = invoke("solve", cfg, "--out", out, "--quiet")
    assert r.exit_code == 2 and "--resume" not in r.stderr and "--force" in r.stderr, r.stderr


def test_a_directory_of_other_files_is_used_and_they_stay(tmp_path, cfg):
    """Only a run's own file names count: the config beside the outputs is kept."""
    r = invoke("solve", cfg, "--out", tmp_path, "--quiet")
    assert r.exit_code == 0, r.output
    assert cfg.read_text() == PENNIES.format(n=15)


def test_force_replaces_the_run_and_its_stale_files(earlier, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text(PENNIES.format(n=20))
    r = invoke("solve", other, "--out", earlier, "--quiet", "--force")
    assert r.exit_code == 0, r.output
    # the earlier run's checkpoint (iteration 15) and report are gone; the outputs are the new run's
    assert sorted(p.name for p in earlier.iterdir()) == ["config.toml", "metrics.csv", "result.json", "strategy.npz"]
    assert json.loads((earlier / "result.json").read_text())["iterations"] == 20
    assert iterations_of(earlier / "metrics.csv") == [10, 20]


def test_a_run_refused_while_starting_leaves_the_earlier_run_whole(tmp_path, monkeypatch):
    """Even with --force, nothing is deleted before the new run's solver is up."""
    import solverkit.core.solver as solver_module

    out = tmp_path / "kuhn"
    run_solve(load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"iterations": 5}}), out=out,
              checkpoint_every="5")
    before = digest(out)
    assembly = load_config(out / "config.toml")
    monkeypatch.setattr(solver_module, "physical_memory", lambda: 10)  # its store cannot fit now
    with pytest.raises(ConfigError, match="this machine has 10 B"):
        run_solve(assembly, out=out, force=True)
    assert digest(out) == before


@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_out_is_refused_not_the_working_directory(tmp_path, monkeypatch, cfg, out):
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    r = invoke("solve", cfg, "--out", out, "--quiet")
    assert r.exit_code == 2 and "--out" in r.stderr and "is empty" in r.stderr, r.output
    with pytest.raises(SolverkitError, match="is empty"):
        run_solve(load_config(cfg), out=out)
    r = invoke("solve", "--resume", out, "--quiet")
    assert r.exit_code == 2 and "--resume" in r.stderr, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_resume_and_force_refuse_each_other(earlier):
    r = invoke("solve", "--resume", earlier, "--force", "--quiet")
    assert r.exit_code == 2 and "--force" in r.stderr, r.output


def test_resume_removes_the_stale_report(earlier):
    r = invoke("solve", "--resume", earlier, "--iterations", "30", "--quiet")
    assert r.exit_code == 0, r.output
    assert not (earlier / "report.html").exists()


@pytest.mark.parametrize("every", [10, "log"])
def test_a_resumed_run_drops_the_old_caps_off_schedule_row(tmp_path, every):
    """Stopped at a cap off the schedule (15), then resumed to 30: the rows of one run to 30."""
    text = PENNIES.format(n=30).replace("eval_every = 10", f"eval_every = {every!r}".replace("'", '"'))
    if every == "log":
        text = text.replace('eval_every = "log"', "")
        text = text.replace("iterations = 30", "iterations = 33")
    path = tmp_path / "c.toml"
    path.write_text(text)
    full, part = tmp_path / "full", tmp_path / "part"
    run_solve(load_config(path), out=full)
    cap = 15 if every == 10 else 22  # 22 is not on the log schedule (21, 23 are)
    run_solve(load_config(path), out=part, iterations=cap, checkpoint_every="5")
    assert iterations_of(part / "metrics.csv")[-1] == cap
    resumed = run_solve(load_config(part / "config.toml"), out=part, resume=True,
                        iterations=load_config(path).solver["iterations"])
    assert iterations_of(part / "metrics.csv") == iterations_of(full / "metrics.csv")
    assert [r["iteration"] for r in resumed.metrics] == iterations_of(full / "metrics.csv")
    assert cap not in iterations_of(part / "metrics.csv")


def test_resuming_at_the_same_cap_gives_the_same_final_row(tmp_path, cfg):
    out = tmp_path / "r"
    first = run_solve(load_config(cfg), out=out, checkpoint_every="5")
    again = run_solve(load_config(out / "config.toml"), out=out, resume=True)
    assert iterations_of(out / "metrics.csv") == [10, 15]
    assert again.exploitability == first.exploitability


def test_ctrl_c_without_checkpoints_saves_one_and_says_how_to_resume(tmp_path):
    cfg = tmp_path / "long.toml"
    cfg.write_text(PENNIES.format(n=10**9))
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-c", "from solverkit.cli import cli; cli()", "solve", str(cfg),
                             "--out", str(out), "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not ((out / "metrics.csv").exists()
                                          and len(iterations_of(out / "metrics.csv")) > 3):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert f"go on with: solverkit solve --resume {out}" in err
    done = json.loads((out / "result.json").read_text())["iterations"]
    assert (out / "checkpoint.skc").is_file()
    r = invoke("solve", "--resume", out, "--iterations", done + 10, "--quiet")
    assert r.exit_code == 0, r.output
    assert json.loads((out / "result.json").read_text())["iterations"] == done + 10


def test_run_files_name_what_a_run_writes(earlier):
    """RUN_FILES (what marks a run directory) covers every file a run with a checkpoint writes."""
    assert {p.name for p in earlier.iterdir()} <= set(RUN_FILES)


def test_report_never_writes_over_a_file_that_is_not_a_page(earlier):
    before = digest(earlier)
    for target in (earlier / "metrics.csv", earlier / "config.toml"):
        r = invoke("report", earlier, "--output", target)
        assert r.exit_code == 2 and f"is the run's own {target.name}" in r.stderr, r.output
        assert len(r.stderr.splitlines()) == 1, r.stderr
    notes = earlier.parent / "notes.txt"
    notes.write_text("my notes")
    r = invoke("report", earlier, "--output", notes)
    assert r.exit_code == 2 and "is not an HTML page" in r.stderr and notes.read_text() == "my notes", r.output
    r = invoke("report", earlier, "--output", "")
    assert r.exit_code == 2 and "--output '' is empty" in r.stderr, r.output
    assert digest(earlier) == before
    r = invoke("report", earlier, "--output", earlier / "report.html")  # a page (an earlier report) is replaced
    assert r.exit_code == 0, r.output


def test_default_output_directories_of_runs_in_the_same_second_differ(tmp_path, monkeypatch, cfg):
    import solverkit.cli as cli_module

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli_module.time, "strftime", lambda fmt: "20260101-000000")
    for _ in range(2):
        r = invoke("solve", cfg, "--quiet")
        assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["pennies-20260101-000000",
                                                                     "pennies-20260101-000000-2"]


def test_export_never_writes_over_a_runs_own_file(earlier, tmp_path):
    before = digest(earlier)
    for name in ("metrics.csv", "result.json", "config.toml", "strategy.npz"):
        r = invoke("export", earlier, "--output", earlier / name)
        assert r.exit_code == 2 and f"is the run's own {name}" in r.stderr and len(r.stderr.splitlines()) == 1, r.output
    assert digest(earlier) == before
    r = invoke("export", earlier, "--output", "")  # not stdout: an --output given empty is a mistake
    assert r.exit_code == 2 and r.stderr == "Error: --output '' is empty: give the file to write (or leave --output " \
        "out for stdout)\n" and r.stdout == "", r.output
    r = invoke("export", earlier, "--output", tmp_path / "policy.json")
    assert r.exit_code == 0 and (tmp_path / "policy.json").is_file(), r.output


def test_a_run_refused_at_its_first_evaluation_leaves_nothing(tmp_path, cfg):
    """skewed_pennies counts no nodes: eval_every by nodes is refused at the first evaluation,
    after the run has started; the directory it made goes again."""
    out = tmp_path / "new"
    r = invoke("solve", cfg, "--out", out, "--quiet", "--set", 'solver.eval_every="100 nodes"')
    assert r.exit_code == 2 and "does not count the nodes" in r.stderr, r.output
    assert not out.exists()


def test_force_puts_the_earlier_run_back_when_the_new_one_is_refused_late(earlier, cfg):
    before = digest(earlier)
    r = invoke("solve", cfg, "--out", earlier, "--quiet", "--force", "--set", 'solver.eval_every="100 nodes"')
    assert r.exit_code == 2 and "does not count the nodes" in r.stderr, r.output
    assert digest(earlier) == before
    assert sorted(p.name for p in earlier.iterdir()) == sorted(before)  # no .replaced-run left
    r = invoke("solve", cfg, "--out", earlier, "--quiet", "--force")
    assert r.exit_code == 0, r.output
    assert not (earlier / ".replaced-run").exists() and not (earlier / "report.html").exists()


def test_a_disk_store_run_refused_at_its_first_evaluation_leaves_nothing(tmp_path, cfg):
    """The disk store makes OUT/store (and so OUT) before the run starts: both go again."""
    out = tmp_path / "new"
    r = invoke("solve", cfg, "--out", out, "--quiet", "--set", 'solver.eval_every="100 nodes"',
               "--set", 'store.backend="disk"')
    assert r.exit_code == 2 and "does not count the nodes" in r.stderr, r.output
    assert not out.exists()


def test_a_disk_store_run_that_cannot_start_leaves_nothing(tmp_path, cfg, monkeypatch):
    """A failure while the solver is built (the transport, the kernels) after the store made its folder."""
    monkeypatch.setattr("solverkit_matrix.games.MatrixGame.warmup", lambda self: (_ for _ in ()).throw(OSError("broken")))
    out = tmp_path / "new"
    with pytest.raises(OSError, match="broken"):
        run_solve(load_config({"preset": "cfr_plus", "game": "skewed_pennies", "store": {"backend": "disk"}}),
                  iterations=5, out=out)
    assert not out.exists()


@pytest.mark.parametrize("name", ["result.json", "strategy.npz", "metrics.csv"])
def test_an_output_that_cannot_be_written_is_one_line_naming_the_file(earlier, name):
    # a directory in the place of an output file was a bare "[Errno 21] Is a directory" (an
    # OSError from the API); the checkpoint stays, so the run can be resumed once it is moved
    (earlier / name).unlink()
    (earlier / name).mkdir()
    r = invoke("solve", "--resume", earlier, "--iterations", "30", "--quiet")
    assert r.exit_code == 2, r.output
    (line,) = r.stderr.splitlines()
    assert line.startswith("Error: cannot write ") and f"{earlier / name}: a directory is in its place" in line
    (earlier / name).rmdir()
    assert invoke("solve", "--resume", earlier, "--iterations", "30", "--quiet").exit_code == 0


@pytest.mark.parametrize("name", ["config.toml", "result.json"])
def test_a_full_disk_never_tears_the_runs_config_or_result(earlier, monkeypatch, name):
    # config.toml and result.json were rewritten in place: a full disk (or a kill) in the middle
    # left a torn config.toml, and a run that can no longer be resumed
    import errno
    import os

    from solverkit.errors import OutputError

    before = (earlier / name).read_bytes()
    real = os.replace

    def full(src, dst, *a, **k):
        if str(dst).endswith(name):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OutputError, match=f"cannot write .*{name}: the disk is full"):
        run_solve(load_config(earlier / "config.toml"), out=earlier, resume=True, iterations=30)
    assert (earlier / name).read_bytes() == before
    assert not (earlier / f"{name}.tmp").exists()


@pytest.mark.parametrize("command", [["solve", "--resume"], ["exploit"], ["report"], ["export"],
                                     ["strategy", "--infoset=H", "--player=0"]])
def test_a_config_toml_that_is_a_directory_is_named_as_such(earlier, command):
    # it was "config.toml not found" while it was there
    (earlier / "config.toml").unlink()
    (earlier / "config.toml").mkdir()
    r = invoke(*command, earlier)
    assert r.exit_code == 2, r.output
    (line,) = r.stderr.splitlines()
    assert line == f"Error: {earlier} is not a solve output directory: {earlier / 'config.toml'} is not a regular " \
                   "file (a directory?)"


@pytest.mark.parametrize("command", [["report"], ["export"]])
def test_an_output_file_in_no_directory_names_the_directory(earlier, tmp_path, command):
    # it was "No such file or directory (the file there before is unchanged)": there was none
    target = tmp_path / "nowhere" / "out.txt"
    r = invoke(*command, earlier, "--output", target)
    assert r.exit_code == 2, r.output
    assert r.stderr.splitlines() == [f"Error: cannot write {target}: no such directory {target.parent}"]


@pytest.mark.parametrize("name", ["checkpoint.skc", "config.toml", "result.json", "strategy.npz"])
def test_a_directory_in_the_place_of_a_temporary_file_is_named(earlier, name):
    # it named the file (x/config.toml: a directory is in its place) while the directory was x/config.toml.tmp
    (earlier / f"{name}.tmp").mkdir()
    r = invoke("solve", "--resume", earlier, "--iterations", "30", "--quiet")
    assert r.exit_code == 2, r.output
    (line,) = r.stderr.splitlines()
    assert f"{earlier / name}: {earlier / name}.tmp: a directory is in its place" in line, line


def test_a_checkpoint_that_is_a_directory_is_named_as_such(earlier):
    (earlier / "checkpoint.skc").unlink()
    (earlier / "checkpoint.skc").mkdir()
    r = invoke("solve", "--resume", earlier, "--iterations", "30", "--quiet")
    assert r.stderr.splitlines() == [f"Error: {earlier / 'checkpoint.skc'} is not a regular file (a directory?): "
                                     "no checkpoint to read there"], r.output


def test_a_metrics_file_that_cannot_be_made_closes_the_solver_and_puts_the_earlier_run_back(earlier, cfg,
                                                                                            monkeypatch):
    import solverkit.core.run_loop as run_loop
    from solverkit.core.solver import Solver

    closed = []
    real_close = Solver.close
    monkeypatch.setattr(Solver, "close", lambda self: (closed.append(1), real_close(self))[1])

    def refuse(*args, **kwargs):
        raise OSError("no metrics here")

    monkeypatch.setattr(run_loop, "MetricsWriter", refuse)
    before = digest(earlier)
    with pytest.raises(OSError, match="no metrics here"):
        run_solve(load_config(cfg), out=earlier, force=True)
    assert closed and digest(earlier) == before
    assert sorted(p.name for p in earlier.iterdir()) == sorted(before)  # no .replaced-run left
