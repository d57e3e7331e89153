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
    assert ">Qh Qs<" in leduc  # a Leduc hand row: the two suits of a queen play alike, one row
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


def _summary(page):
    """The report's summary table as {row name: value}."""
    import html

    part = page[page.index("<h2>Summary</h2>"):page.index("<h2>Assembly</h2>")]
    cells = [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", part)]
    return dict(zip(cells[::2], cells[1::2]))


def _report(tmp_path, name, *args):
    run = tmp_path / name
    res = CliRunner().invoke(cli, ["solve", *args, "--out", str(run), "--quiet"])
    assert res.exit_code == 0, res.output
    assert CliRunner().invoke(cli, ["report", str(run)]).exit_code == 0
    return _summary((run / "report.html").read_text())


def test_report_names_the_preset_the_target_and_why_the_run_stopped(tmp_path):
    got = _report(tmp_path, "target", "--game", "leduc", "--preset", "dcfr", "--iterations", "500",
                  "--set", "solver.target_mbb=50")
    assert got["preset"] == "dcfr (rule dcfr, averaging quadratic, alternating updates)"
    assert got["target"] == "50 mbb/g"
    assert got["stopped"] == f"target reached at iteration {got['iterations']}" and int(got["iterations"]) < 500
    capped = _report(tmp_path, "capped", "--game", "kuhn_tree", "--preset", "cfr_plus", "--iterations", "5",
                     "--target", "1e-9")
    assert capped["target"] == "1e-09 chips" and capped["stopped"] == "iteration cap (5) reached before the target"


def test_report_without_a_target_says_so_and_no_target_reached_false(tmp_path):
    got = _report(tmp_path, "plain", "--game", "kuhn_tree", "--preset", "cfr", "--iterations", "7")
    assert got["target"] == "none" and got["stopped"] == "ran 7 of 7 iterations (no target)"
    assert "target reached" not in got and "False" not in got.values()
    custom = _report(tmp_path, "custom", "--game", "kuhn_tree", "--preset", "cfr_plus", "--set", "rule.name=rm",
                     "--iterations", "3")
    assert custom["preset"] == "none: a custom assembly (rule rm, averaging linear, alternating updates)"
    sampled = _report(tmp_path, "sampled", "--game", "leduc", "--preset", "cfr_plus", "--iterations", "3",
                      "--set", "sampler.name=public_chance")
    assert sampled["preset"] == "cfr_plus (rule rm_plus, averaging linear, alternating updates, sampler public_chance)"


def test_convergence_plot_has_the_target_line_and_units():
    import matplotlib.pyplot as plt

    from solverkit.api import load_game
    from solverkit.report.figures import convergence_figure

    leduc, kuhn = load_game("leduc"), load_game("kuhn_tree")
    rows = [{"iteration": i, "seconds": i / 100, "exploitability": 1 / i, "exploitability_mbb": 500 / i}
            for i in (1, 2, 4, 8)]
    fig = convergence_figure(leduc, rows, [(0.02, "10 mbb/g")])
    for ax in fig.axes:
        assert ax.get_ylabel() == "exploitability (mbb/g)"
        assert [ln.get_ydata()[0] for ln in ax.lines if ln.get_linestyle() == ":"] == [pytest.approx(10.0)]
    assert [ax.get_xlabel() for ax in fig.axes] == ["iterations", "solve time (s)"]
    assert "target 10 mbb/g" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    plt.close(fig)
    fig = convergence_figure(kuhn, rows, [])
    assert fig.axes[0].get_ylabel() == "exploitability (chips)"  # not mbb/g: kuhn_tree is no poker-engine game
    assert not [ln for ln in fig.axes[0].lines if ln.get_linestyle() == ":"]
    plt.close(fig)


def test_hand_rows_merge_suit_images_only_when_they_play_alike():
    import numpy as np

    from solverkit.api import load_game
    from solverkit.poker.preflop import preflop_nodes

    game = load_game("leduc")
    strategy = [np.full(game.layout(p).size, 0.5) for p in (0, 1)]
    (_, first), _ = game.report_strategy(strategy)
    assert re.findall(r"<td>([^<0-9]*)</td>", first) == ["Qh Qs", "Kh Ks", "Ah As"]
    # a strategy that plays Qh unlike Qs (a sampled run can): two rows, nothing hidden
    (_, node), _ = preflop_nodes(game)
    off = game.value_offset(node, 0, 0)  # hand 0, the Qh
    strategy[0][off: off + 2] = (0.9, 0.1)
    (_, first), _ = game.report_strategy(strategy)
    assert re.findall(r"<td>([^<0-9]*)</td>", first) == ["Qh", "Qs", "Kh Ks", "Ah As"]


def test_seconds_are_written_plainly():
    from solverkit.report.texts import plain_seconds

    assert [plain_seconds(v) for v in (1047.31, 0.00473, 12.345, None, float("nan"))] == ["1,047", "0.00473", "12.3", "?", "?"]


def test_report_of_a_run_without_result_json_says_it_did_not_finish(tmp_path):
    run = tmp_path / "cut"
    assert CliRunner().invoke(cli, ["solve", "--game", "kuhn_tree", "--preset", "cfr_plus", "--iterations", "4",
                                    "--target", "0.5", "--out", str(run), "--quiet"]).exit_code == 0
    (run / "result.json").unlink()
    assert CliRunner().invoke(cli, ["report", str(run)]).exit_code == 0
    got = _summary((run / "report.html").read_text())
    assert got["stopped"] == "no result.json: the run did not finish" and got["target"] == "0.5 chips"
    assert got["iterations"] == "?" and got["solve seconds"] == "?"


def test_report_names_the_game_with_the_parameters_it_was_given(runs):
    assert CliRunner().invoke(cli, ["report", str(runs["hulhe"])]).exit_code == 0
    game = _summary((runs["hulhe"] / "report.html").read_text())["game"]
    assert game == "hulhe (ranks=3, suits=2, rounds=1)"
    assert CliRunner().invoke(cli, ["report", str(runs["leduc"])]).exit_code == 0
    assert _summary((runs["leduc"] / "report.html").read_text())["game"] == "leduc"  # all defaults


@pytest.mark.parametrize("damage, names", [
    ("rows", "ends at iteration 2 but"),  # rows lost: the curve stopped short of the reported run
    ("other", "ends at iteration 9 but"),  # another run's metrics.csv (the same game, 9 iterations)
    ("torn", "its last line is cut short"),
    ("fields", "row 2 has fewer fields than the header"),
])
def test_report_refuses_metrics_that_are_not_the_reported_runs(tmp_path, damage, names):
    # metrics.csv cut short or swapped in from another run was drawn as the run of result.json
    def solve(name, n):
        run = tmp_path / name
        assert CliRunner().invoke(cli, ["solve", "--game", "kuhn", "--preset", "cfr_plus", "--iterations", str(n),
                                        "--out", str(run), "--quiet"]).exit_code == 0
        return run

    run = solve("run", 6)
    metrics = run / "metrics.csv"
    lines = metrics.read_text().splitlines(True)
    if damage == "rows":
        metrics.write_text("".join(lines[:3]))
    elif damage == "other":
        shutil.copy(solve("other", 9) / "metrics.csv", metrics)
    elif damage == "torn":
        metrics.write_text("".join(lines)[:-10])
    else:
        metrics.write_text("".join(lines[:2]) + lines[2].rsplit(",", 3)[0] + "\r\n" + "".join(lines[3:]))
    res = CliRunner().invoke(cli, ["report", str(run)])
    assert res.exit_code == 2 and not (run / "report.html").exists(), res.output
    (line,) = res.stderr.splitlines()
    assert line.startswith(f"Error: {metrics}") and names in line, line


@pytest.mark.parametrize("name, names", [("result.json", "past the 16 MiB a result.json can have"),
                                         ("metrics.csv", "a line longer than 1 MiB")])
def test_report_refuses_a_huge_damaged_file_without_reading_it_whole(tmp_path, name, names):
    # a result.json or metrics.csv grown to gigabytes of zeros (a sparse file) was read into
    # memory whole: 6 GB of RSS, then "out of memory: the game, matrix or store ..."
    import resource

    run = tmp_path / "run"
    assert CliRunner().invoke(cli, ["solve", "--game", "kuhn", "--preset", "cfr_plus", "--iterations", "3",
                                    "--out", str(run), "--quiet"]).exit_code == 0
    with open(run / name, "r+b") as fh:
        fh.truncate(3 << 30)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    res = CliRunner().invoke(cli, ["report", str(run)])
    assert res.exit_code == 2, res.output
    (line,) = res.stderr.splitlines()
    assert line.startswith(f"Error: {run / name} is damaged: ") and names in line, line
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB
