"""A study's plot outputs (issue 26, item 18/19): PNG and SVG per game, the plotted means and
bands as CSV (checked against the runs' own metrics), a 95% confidence band of the mean beside
the min-max band, the y axis in the game's unit, and CSV numbers written plainly."""

import csv
import math
import xml.etree.ElementTree as ET

import pytest

from solverkit.study.file import load_study
from solverkit.study.plot import CURVE_COLUMNS, game_figure
from solverkit.study.runner import run_study
from solverkit.study.runs import RunResult
from solverkit.study.stats import bands, mean_interval, plain, t975

STUDY = """
[study]
name = "outputs"
iterations = 40
eval_every = 1
stop_at_target = false
targets = [1e-2]

[assemblies.plus]
preset = "cfr_plus"

[games.random]
game = { name = "random_matrix", rows = 6, cols = 7 }
seeds = [0, 1, 2]
"""


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_t_quantiles_and_the_interval_match_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 5, 29, 30, 31, 50, 200, 5000):
        assert t975(df) == pytest.approx(stats.t.ppf(0.975, df), abs=1e-4)
    values = [0.3, 0.02, 0.11, 0.07]
    mid, lo, hi = mean_interval(values, "arithmetic")
    want = stats.t.interval(0.95, len(values) - 1, loc=sum(values) / 4, scale=stats.sem(values))
    assert (lo, hi) == pytest.approx(want, rel=1e-6) and mid == pytest.approx(sum(values) / 4)
    logs = [math.log(v) for v in values]
    glo, ghi = stats.t.interval(0.95, 3, loc=sum(logs) / 4, scale=stats.sem(logs))
    assert mean_interval(values, "geometric") == pytest.approx((math.exp(sum(logs) / 4), math.exp(glo), math.exp(ghi)), rel=1e-6)


def test_one_seed_has_no_band_and_stopped_seeds_count():
    (only,) = bands([[(1, 0.5)]])
    assert (only.mean, only.ci_low, only.ci_high, only.seeds) == (0.5, 0.5, 0.5, 1)
    for how in ("geometric", "arithmetic"):  # the seed's value itself (exp(log(v)) is 260.1220383459358)
        (only,) = bands([[(10, 260.12203834593566)]], how)
        assert only.mean == only.ci_low == only.ci_high == only.min == 260.12203834593566
    got = bands([[(1, 1.0), (2, 0.01)], [(1, 1.0), (2, 0.5), (3, 0.1)]])
    assert [b.x for b in got] == [1, 2, 3]
    assert got[2].mean == pytest.approx((0.01 * 0.1) ** 0.5) and (got[2].min, got[2].max) == (0.01, 0.1)
    assert got[2].ci_low < got[2].mean < got[2].ci_high


def test_numbers_are_written_plainly():
    assert plain(10170300.0) == "10170300" and plain(10170300) == "10170300"
    assert plain(0.1) == "0.1" and plain(2.5e-7) == "2.5e-07" and plain(None) == ""
    assert float(plain(1 / 3)) == 1 / 3  # full precision
    assert plain(1 / 3, 6) == "0.333333" and plain(12345678.9, 6) == "12345679" and plain(3.0, 6) == "3"
    with pytest.raises(TypeError):
        plain(True)


def test_study_writes_png_svg_and_the_plotted_numbers(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(STUDY)
    out = tmp_path / "out"
    run_study(load_study(path), out, progress=False)
    assert (out / "random.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = ET.parse(out / "random.svg").getroot()
    texts = ["".join(t.itertext()) for t in svg.iter() if t.tag.endswith("}text")]
    assert "exploitability (payoff)" in texts and "target 0.01 payoff" in texts
    legend = next(t for t in svg.iter() if t.tag.endswith("}text") and "".join(t.itertext()).startswith("plus ("))
    assert "".join(legend.itertext()) == "plus (geometric mean of 3 seeds; bands: 95% CI of the mean, min-max)"
    height = float(svg.get("viewBox").split()[3])
    assert 0 < float(legend.get("y")) < height  # the legend, below the panels, is inside the saved picture
    rows = _rows(out / "random_curves.csv")
    assert tuple(rows[0]) == CURVE_COLUMNS
    assert {r["x_axis"] for r in rows} == {"iteration", "seconds"}
    assert {r["unit"] for r in rows} == {"payoff"} and {r["seeds"] for r in rows} == {"3"}
    # the plotted geometric mean is the runs' own metrics, recomputed here
    runs = sorted((out / "runs").iterdir())
    metrics = [{int(m["iteration"]): float(m["exploitability"]) for m in _rows(r / "metrics.csv")} for r in runs]
    per_iteration = [r for r in rows if r["x_axis"] == "iteration" and r["strategy"] == "average"]
    assert [r["x"] for r in per_iteration] == [str(i) for i in range(1, 41)]  # iterations as integers
    for r in per_iteration:
        vals = [m[int(r["x"])] for m in metrics]
        assert float(r["mean"]) == pytest.approx(math.prod(vals) ** (1 / 3), rel=1e-12)
        assert (float(r["min"]), float(r["max"])) == (min(vals), max(vals))
        assert float(r["ci_low"]) <= float(r["mean"]) <= float(r["ci_high"])
    for name in ("results.csv", "summary.csv", "random_curves.csv"):
        for row in _rows(out / name):
            for key in ("iterations_to_target", "iterations_run", "x", "seeds"):
                if row.get(key) and row.get("x_axis", "iteration") == "iteration":
                    assert "e+" not in row[key] and "." not in row[key], (name, key, row[key])


def test_every_game_plots_in_its_own_unit(tmp_path):
    import matplotlib.pyplot as plt

    path = tmp_path / "s.toml"
    path.write_text("""
[study]
[assemblies.plus]
preset = "cfr_plus"
[games.kuhn]
game = { name = "kuhn_tree" }
[games.leduc]
game = { name = "leduc" }
[games.pennies]
game = { name = "skewed_pennies" }
""")
    study = load_study(path)
    rows = [{"iteration": i, "seconds": i / 10, "exploitability": 1 / i, "exploitability_mbb": 500 / i} for i in (1, 2, 4)]
    results = {r.slug: RunResult(rows, 4, 0.25, 0.4) for r in study.runs}
    for game, unit in (("kuhn", "chips"), ("leduc", "mbb/g"), ("pennies", "payoff")):
        fig = game_figure(study, results, game)
        assert {ax.get_ylabel() for ax in fig.axes} == {f"exploitability ({unit})"}, game
        plt.close(fig)


def test_a_game_whose_runs_recorded_nothing_gets_an_empty_plot_that_says_so(tmp_path):
    import matplotlib.pyplot as plt

    from solverkit.study.plot import plot_study

    path = tmp_path / "s.toml"
    path.write_text("[study]\n[assemblies.plus]\npreset = \"cfr_plus\"\n[games.kuhn]\ngame = { name = \"kuhn_tree\" }\n")
    study = load_study(path)
    results = {r.slug: RunResult([], 0, float("nan"), 0.0) for r in study.runs}
    fig = game_figure(study, results, "kuhn")
    assert "no evaluations recorded" in [t.get_text() for t in fig.axes[0].texts]
    plt.close(fig)
    plot_study(study, results, tmp_path)
    assert _rows(tmp_path / "kuhn_curves.csv") == [] and (tmp_path / "kuhn.svg").is_file()


def test_an_arithmetic_interval_below_zero_is_drawn_down_to_the_smallest_seed():
    from solverkit.study.plot import drawn_low

    (band,) = bands([[(1, 1e-1)], [(1, 1e-4)], [(1, 1e-4)]], "arithmetic")
    assert band.ci_low < 0 < band.min == 1e-4  # the interval itself, as the CSV writes it
    assert drawn_low(band) == 1e-4
    (band,) = bands([[(1, 0.2)], [(1, 0.3)]], "geometric")
    assert drawn_low(band) == band.ci_low > 0
