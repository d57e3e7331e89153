"""solverkit report: a self-contained HTML page per run, rendered by a real headless browser
(Chromium, when installed) without console errors."""

import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from solverkit.cli import cli

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    out = {}
    for name, args in {"leduc": ["--game", "leduc", "--preset", "cfr_plus", "--iterations", "30"],
                       "hulhe": ["--game", "hulhe", "--preset", "cfr_plus", "--iterations", "5", "--set",
                                 "game.ranks=3", "--set", "game.suits=2", "--set", "game.rounds=1"],
                       "kuhn_tree": ["--game", "kuhn_tree", "--preset", "cfr_plus", "--iterations", "20"]}.items():
        res = CliRunner().invoke(cli, ["solve", *args, "--out", str(base / name), "--quiet"])
        assert res.exit_code == 0, res.output
        out[name] = base / name
    return out


def test_report_sections(runs):
    for name, run in runs.items():
        res = CliRunner().invoke(cli, ["report", str(run)])
        assert res.exit_code == 0, res.output
        page = (run / "report.html").read_text()
        for section in ("Summary", "Assembly", "Convergence", "Strategy", "Store and memory"):
            assert f"<h2>{section}</h2>" in page, (name, section)
        assert "src=\"http" not in page and "<script" not in page  # self-contained, nothing to fetch
        assert page.count("data:image/png;base64,") >= 1
    leduc = (runs["leduc"] / "report.html").read_text()
    assert "exploitability (mbb/g)" in leduc and "action probabilities per hand" in leduc
    assert ">4d<" in leduc  # a Leduc hand row
    assert "preflop chart" in (runs["hulhe"] / "report.html").read_text()
    assert "information sets" in (runs["kuhn_tree"] / "report.html").read_text()


def test_report_of_a_directory_that_is_no_run(tmp_path):
    res = CliRunner().invoke(cli, ["report", str(tmp_path)])
    assert res.exit_code == 2 and "not a solve output directory" in res.output


def _render(page, shot, tmp_path):
    proc = subprocess.run([BROWSER, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
                           "--window-size=1100,1800", page.as_uri()], capture_output=True, text=True, timeout=120)
    return proc, re.findall(r"CONSOLE.*", proc.stderr)


@pytest.mark.skipif(BROWSER is None, reason="no Chromium installed (.ci/run installs Debian's chromium)")
def test_report_renders_in_a_headless_browser_without_console_errors(runs, tmp_path):
    import matplotlib.image as mpimg

    # the check can fail: a page with a script error is caught
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>undefinedFunction()</script></body></html>")
    _, console = _render(bad, tmp_path / "bad.png", tmp_path)
    assert any("undefinedFunction" in line for line in console)
    run = runs["leduc"]
    CliRunner().invoke(cli, ["report", str(run)])
    shot = tmp_path / "report.png"
    proc, console = _render(run / "report.html", shot, tmp_path)
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    assert console == []
    img = mpimg.imread(shot)
    assert img.shape[:2] == (1800, 1100)
    assert img[..., :3].std() > 0.05  # text, tables and plots, not a blank page
