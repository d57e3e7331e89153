"""Checkpoints and --resume: atomic files, damage and mismatch errors, kill -9, SIGTERM."""

from __future__ import annotations

import csv
import errno
import json
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

import solverkit.core.checkpoint as ckpt
from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import parse_every, run_solve
from solverkit.errors import ConfigError

from .resume_runs import straight_and_resumed

LEDUC = """preset = "cfr_plus"

[game]
name = "leduc"
split_round = 1

[compressor]
name = "blosc2"

[store]
regret_scale = 64
avg_scale = 64

[solver]
iterations = {iterations}
eval_every = 1
"""


def rows(path):
    """(iteration, exploitability, br_0, br_1) of metrics.csv as written (full-precision text)."""
    with open(path) as fh:
        return [(r["iteration"], r["exploitability"], r["br_0"], r["br_1"]) for r in csv.DictReader(fh)]


def solve_cmd(*args):
    return [sys.executable, "-c", "from solverkit.cli import cli; cli()", "solve", "--quiet", *args]


def test_parse_every():
    assert parse_every("100") == ("iterations", 100)
    assert parse_every("90s") == ("seconds", 90.0)
    assert parse_every("10m") == ("seconds", 600.0)
    assert parse_every("") is None and parse_every("0") is None
    for bad in ("often", "-5", "1.5", "10x", "0s"):
        with pytest.raises(ConfigError, match=rf"checkpoint_every = '{bad}' is invalid: expected a number of iterations"):
            parse_every(bad)


def test_resume_extends_a_run_exactly(tmp_path):
    def stopped(part):
        assert ckpt.read_footer(part / ckpt.FILENAME)["iteration"] == 17  # the end of a run is checkpointed too

    full, part = straight_and_resumed(tmp_path, LEDUC.format(iterations=40), 40, 17, "5", stopped)
    assert rows(part / "metrics.csv") == rows(full / "metrics.csv")
    a, b = json.loads((part / "result.json").read_text()), json.loads((full / "result.json").read_text())
    assert a["exploitability"] == b["exploitability"] and a["iterations"] == 40


@pytest.mark.slow
def test_kill_9_loses_at_most_the_work_since_the_last_checkpoint(tmp_path):
    cfg = tmp_path / "leduc.toml"
    cfg.write_text(LEDUC.format(iterations=1_000_000))
    out = tmp_path / "run"
    proc = subprocess.Popen(solve_cmd(str(cfg), "--out", str(out), "--checkpoint-every", "25"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if (out / ckpt.FILENAME).exists() and ckpt.read_footer(out / ckpt.FILENAME)["iteration"] >= 100:
                break
            time.sleep(0.05)
        else:
            pytest.fail("no checkpoint within 120 s")
        time.sleep(0.3)  # kill it somewhere between checkpoints (or in the middle of writing one)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    saved = ckpt.read_footer(out / ckpt.FILENAME)["iteration"]
    done = len(rows(out / "metrics.csv"))
    assert saved >= 100 and saved % 25 == 0 and done >= saved
    final = saved + 30
    res = subprocess.run(solve_cmd("--resume", str(out), "--iterations", str(final)), capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    ref = tmp_path / "ref"
    cfg.write_text(LEDUC.format(iterations=final))
    run_solve(load_config(cfg), out=ref)
    assert rows(out / "metrics.csv") == rows(ref / "metrics.csv")


def test_sigterm_saves_a_checkpoint_and_quits(tmp_path):
    cfg = tmp_path / "leduc.toml"
    cfg.write_text(LEDUC.format(iterations=1_000_000))
    out = tmp_path / "run"
    proc = subprocess.Popen(solve_cmd(str(cfg), "--out", str(out), "--checkpoint-every", "1h"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not ((out / "metrics.csv").exists() and len(rows(out / "metrics.csv")) > 20):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    result = json.loads((out / "result.json").read_text())
    assert result["interrupted"] is True
    assert ckpt.read_footer(out / ckpt.FILENAME)["iteration"] == result["iterations"]


@pytest.fixture
def saved(tmp_path):
    cfg = tmp_path / "leduc.toml"
    cfg.write_text(LEDUC.format(iterations=6))
    out = tmp_path / "run"
    run_solve(load_config(cfg), out=out, checkpoint_every="3")
    return out


def resume_error(out):
    res = CliRunner().invoke(cli, ["solve", "--resume", str(out), "--iterations", "9", "--quiet"])
    assert res.exit_code == 2, res.output
    return res.stderr.strip()


def test_damaged_checkpoints_are_refused(saved):
    path = saved / ckpt.FILENAME
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2])
    assert "is truncated (no valid end marker)" in resume_error(saved)
    bad = bytearray(good)
    bad[len(ckpt.MAGIC) + 30] ^= 0xFF
    path.write_bytes(bytes(bad))
    msg = resume_error(saved)
    assert "checkpoint.skc: segment" in msg and "checksum mismatch" in msg
    path.write_bytes(b"hello")
    assert "is not a solverkit checkpoint" in resume_error(saved)
    path.unlink()
    assert "no checkpoint at" in resume_error(saved)


@pytest.mark.parametrize("length", [5 << 30, pytest.param((1 << 30) - 64, marks=pytest.mark.slow)])
def test_a_damaged_footer_length_is_refused_without_reading_it_into_memory(saved, length):
    # a sparse checkpoint of 5 GiB whose trailer names a footer of its whole length was read
    # whole before its checksum was checked (20 GiB of memory for a 20 GiB file)
    import resource

    from solverkit.core.trailer import END, TAIL

    path = saved / ckpt.FILENAME
    size = (5 << 30) + 64
    with open(path, "r+b") as fh:
        fh.truncate(size)
        fh.seek(size - TAIL.size - len(END))
        fh.write(TAIL.pack(0, length) + END)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    msg = resume_error(saved)
    assert ("past the 1024 MiB a footer can have" if length > 1 << 30 else "footer checksum mismatch") in msg, msg
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB: far below the footer


def test_checkpoint_of_another_game_or_version_is_refused(saved, tmp_path, monkeypatch):
    other = tmp_path / "other"
    cfg = tmp_path / "kuhn.toml"
    cfg.write_text(LEDUC.format(iterations=3).replace('"leduc"', '"kuhn"').replace("split_round = 1", ""))
    run_solve(load_config(cfg), out=other)
    (other / ckpt.FILENAME).write_bytes((saved / ckpt.FILENAME).read_bytes())
    assert "is a checkpoint of game {'name': 'leduc'" in resume_error(other)
    monkeypatch.setattr(ckpt, "VERSION", 99)
    run_solve(load_config(saved / "config.toml"), out=saved, checkpoint_every="3", force=True)
    monkeypatch.undo()
    assert "checkpoint format version 99; this solverkit reads version 2" in resume_error(saved)


def test_a_failed_checkpoint_write_keeps_the_previous_one(saved, monkeypatch):
    path = saved / ckpt.FILENAME
    before = path.read_bytes()
    real_open = open

    def full_disk(file, mode="r", *a, **k):
        if str(file).endswith("checkpoint.skc.tmp") and "w" in mode:  # config.toml, written first, fits
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(file, mode, *a, **k)

    import solverkit.core.atomic as atomic

    monkeypatch.setattr(atomic, "open", full_disk, raising=False)
    from solverkit.core.checkpoint import CheckpointError

    with pytest.raises(CheckpointError, match="cannot write checkpoint .*checkpoint.skc: the disk is full; the previous checkpoint is intact"):
        run_solve(load_config(saved / "config.toml"), out=saved, resume=True, iterations=9)
    assert path.read_bytes() == before
    assert not (saved / "checkpoint.skc.tmp").exists()


def test_resume_usage_errors(saved, tmp_path):
    res = CliRunner().invoke(cli, ["solve", str(saved / "config.toml"), "--resume", str(saved)])
    assert res.exit_code == 2 and "--resume DIR takes its config and output directory from DIR" in res.stderr
    res = CliRunner().invoke(cli, ["solve", "--resume", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "is not a solve output directory" in res.stderr
    with pytest.raises(ConfigError, match="checkpoints need an output directory"):
        run_solve(load_config(saved / "config.toml"), checkpoint_every="5")
