"""Shared by the search tests: solve a config through the CLI, then `exploit --search` the run."""

from click.testing import CliRunner

from solverkit.cli import cli


def solve_and_exploit_search(tmp_path, toml: str, iterations: int):
    """(run directory, `exploit RUN --search` output) of the config text `toml` solved for
    `iterations` iterations."""
    cfg = tmp_path / "search.toml"
    cfg.write_text(toml)
    out = tmp_path / "run"
    r = CliRunner().invoke(cli, ["solve", str(cfg), "--iterations", str(iterations), "--out", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["exploit", str(out), "--search"])
    assert r.exit_code == 0, r.output
    return out, r.output
