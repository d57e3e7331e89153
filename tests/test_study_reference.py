"""A study's ``[reference]``: published values beside the study's own at the same iterations,
a verdict each (reference.csv, the printed table, circles on the plots), and every mistake in
the file refused before a run starts, naming the bad value and the valid ones."""

import csv

import pytest

from solverkit.errors import ConfigError
from solverkit.study.file import load_study
from solverkit.study.plot import game_figure
from solverkit.study.runner import run_study

STUDY = """
[study]
name = "ref"
iterations = 100
stop_at_target = false
{study_extra}

[reference]
file = "ref.csv"
source = "the DDCFR authors"
{reference_extra}

[assemblies.cfr]
preset = "cfr"
solver = {{ average_pass = "own" }}

[assemblies.plus]
preset = "cfr_plus"

[games.kuhn]
game = "kuhn_tree"

[games.random]
game = {{ name = "random_matrix", rows = 4, cols = 5 }}
seeds = [0, 1, 2]
assemblies = ["plus"]
"""

#: the DDCFR authors' CFR on Kuhn (OpenSpiel's exploitability), which the own pass reproduces
GOOD = """game,assembly,iteration,value,low,high
kuhn,cfr,10,0.0686987938171576,,
kuhn,cfr,100,0.008225977315915622,,
"""


def _write(tmp_path, rows=GOOD, study_extra="", reference_extra=""):
    (tmp_path / "ref.csv").write_text(rows)
    path = tmp_path / "study.toml"
    path.write_text(STUDY.format(study_extra=study_extra, reference_extra=reference_extra))
    return path


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_reference_values_are_compared_written_printed_and_drawn(tmp_path):
    seeds_range = "random,plus,100,1e-9,1e-12,1e9\nrandom,plus,10,1e-9,,\n"
    study = load_study(_write(tmp_path, GOOD + "kuhn,plus,100,0.5,,\n" + seeds_range))
    out, results = tmp_path / "out", {}
    text = run_study(study, out, progress=False, results=results)
    rows = {(r["game"], r["assembly"], int(r["iteration"])): r for r in _rows(out / "reference.csv")}
    for t, want in ((10, 0.0686987938171576), (100, 0.008225977315915622)):
        r = rows[("kuhn", "cfr", t)]
        assert r["verdict"] == "match" and float(r["solverkit"]) == pytest.approx(want, rel=1e-5)
        assert float(r["ratio"]) == pytest.approx(1.0, abs=1e-4) and r["seeds"] == "1/1"
    assert rows[("kuhn", "plus", 100)]["verdict"] == "lower"  # ~0.001 against 0.5
    spread = rows[("random", "plus", 100)]
    assert spread["seeds"] == "3/3" and spread["verdict"] == "match"  # the seeds' range meets [1e-12, 1e9]
    lo, hi = float(spread["solverkit_min"]), float(spread["solverkit_max"])
    assert lo <= float(spread["solverkit"]) <= hi and lo < hi
    assert rows[("random", "plus", 10)]["verdict"] == "higher"  # no spread given: the tolerance only
    assert "3 of 5 reference values matched" in text and "the DDCFR authors" in text
    fig = game_figure(study, results, "kuhn")
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert "cfr: reference" in labels and "plus: reference" in labels
    assert "the DDCFR authors" in fig._suptitle.get_text()


def test_nash_conv_is_twice_the_exploitability_of_two_players(tmp_path):
    rows = "game,assembly,iteration,value\nkuhn,cfr,100,0.016451954631831244\n"
    study = load_study(_write(tmp_path, rows, reference_extra='measure = "nash_conv"\ntolerance = 1.000001'))
    run_study(study, tmp_path / "out", progress=False)
    (row,) = _rows(tmp_path / "out" / "reference.csv")
    assert row["verdict"] == "match" and row["measure"] == "nash_conv"


@pytest.mark.parametrize("rows, extra, message", [
    ("game,assembly,iteration,value\nkhun,cfr,10,0.1\n", "", r"game 'khun' is not a game of the study; valid: kuhn, random"),
    ("game,assembly,iteration,value\nrandom,cfr,10,0.1\n", "", r"assembly 'cfr' does not run on game 'random'; valid: plus"),
    ("game,assembly,iteration,value\nkuhn,cfr,500,0.1\n", "", r"iteration 500 is past the 100 iterations"),
    ("game,assembly,iteration,value\nkuhn,cfr,9,0.1\n", 'eval_every = 5', r"not evaluated at iteration 9: eval_every = 5"),
    ("game,assembly,iteration,value\nkuhn,cfr,24,0.1\n", "eval_every = \"log\"", r"not evaluated at iteration 24: the log schedule skips it"),
    ("game,assembly,iteration\nkuhn,cfr,10\n", "", r"no column value; a reference file has the columns"),
    ("game,assembly,iteration,value,spread\nkuhn,cfr,10,0.1,2\n", "", r"unknown column 'spread'; valid: "),
    ("game,assembly,iteration,value\nkuhn,cfr,10,-0.1\n", "", r"line 2 value = '-0.1' is invalid: expected a positive"),
    ("game,assembly,iteration,value\nkuhn,cfr,ten,0.1\n", "", r"iteration = 'ten' is invalid: expected a whole number"),
    ("game,assembly,iteration,value\nkuhn,cfr,10,0.1\nkuhn,cfr,10,0.2\n", "", r"line 3: a second value for 'cfr'"),
    ("game,assembly,iteration,value,low,high\nkuhn,cfr,10,0.1,0.05,\n", "", r"give both low and high"),
    ("game,assembly,iteration,value,low,high\nkuhn,cfr,10,0.1,0.2,0.3\n", "", r"outside its spread"),
    ("game,assembly,iteration,value\n", "", r"no reference values"),
])
def test_a_bad_reference_file_is_refused_before_any_run(tmp_path, rows, extra, message):
    with pytest.raises(ConfigError, match=message):
        load_study(_write(tmp_path, rows, study_extra=extra))


@pytest.mark.parametrize("extra, message", [
    ('measure = "nashconv"', r"measure.*'nashconv'.*exploitability, nash_conv"),
    ('tolerance = 0.5', r"tolerance"),
    ('colour = "red"', r"unknown key 'colour' in \[reference\]; valid: file, measure, source, tolerance, unit"),
    ('unit = "mbb"', r"unit = 'mbb': game 'kuhn' has no display unit 'mbb'"),
])
def test_a_bad_reference_table_is_refused(tmp_path, extra, message):
    with pytest.raises(ConfigError, match=message):
        load_study(_write(tmp_path, reference_extra=extra))


def test_a_missing_file_and_the_iterations_cap(tmp_path):
    path = _write(tmp_path)
    (tmp_path / "ref.csv").unlink()
    with pytest.raises(ConfigError, match=r"\[reference\] file = .*ref.csv.*cannot read it"):
        load_study(path)
    path = _write(tmp_path)
    study = load_study(path, iterations_cap=50)
    assert [p.iteration for p in study.reference.points] == [10]
    assert any("1 of 2 values are past the --iterations cap" in n for n in study.notes)


def test_the_shipped_ddcfr_study_matches_its_reference_on_the_small_games(tmp_path):
    """configs/ddcfr_paper.toml, cut to 100 iterations and its three smallest games: every value of
    the DDCFR authors' curves there (iterations 1, 10 and 100) within its 5%, as is and jittered."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "configs" / "ddcfr_paper.toml"
    study = load_study(path, iterations_cap=100)
    assert len({(p.game, p.assembly) for p in load_study(path).reference.points}) == 60
    keep = {"small_matrix", "kuhn", "leduc"}
    study.runs = [r for r in study.runs if r.game in keep]
    study.reference.points = [p for p in study.reference.points if p.game in keep]
    run_study(study, tmp_path / "out", progress=False)
    rows = _rows(tmp_path / "out" / "reference.csv")
    assert len(rows) == 54 and all(r["verdict"] == "match" for r in rows), [r for r in rows if r["verdict"] != "match"]
    assert {r["seeds"] for r in rows if r["assembly"].endswith("_jitter")} == {"5/5"}


def test_the_verdict_meets_ranges():
    from solverkit.study.reference import Point, verdict

    one = Point("g", "a", 10, 1.0)
    assert verdict(1.2, 1.2, 1.2, one, 1.25) == "match" and verdict(1.3, 1.3, 1.3, one, 1.25) == "higher"
    assert verdict(0.7, 0.7, 0.7, one, 1.25) == "lower"
    # seeds from 0.5 to 3 (mean 1.6): the reference lies inside their range
    assert verdict(1.6, 0.5, 3.0, one, 1.05) == "match"
    assert verdict(2.2, 1.5, 3.0, one, 1.05) == "higher"  # 1.0 below 1.5 / 1.05
    spread = Point("g", "a", 10, 1.0, 0.9, 1.4)
    assert verdict(1.65, 1.65, 1.65, spread, 1.2) == "match"  # 1.65 / 1.2 = 1.375 <= 1.4
    assert verdict(1.7, 1.7, 1.7, spread, 1.2) == "higher"  # 1.7 / 1.2 = 1.417 > 1.4


def test_a_long_comparison_prints_what_does_not_match():
    from solverkit.study.reference import PRINT_ALL, Reference, text_table

    row = {"game": "g", "assembly": "a", "iteration": 10, "solverkit": "1", "reference": "1", "ratio": "1",
           "verdict": "match"}
    rows = [dict(row, iteration=i) for i in range(PRINT_ALL + 1)] + [dict(row, ratio="2", verdict="higher")]
    text = text_table(Reference("paper", 1.05, "exploitability", "", []), rows)
    assert "the 41 values that match are in reference.csv" in text and text.count("\ng ") == 1
    assert f"41 of {PRINT_ALL + 2} reference values matched" in text
    short = text_table(Reference("paper", 1.05, "exploitability", "", []), rows[:3])
    assert short.count("\ng ") == 3 and "are in reference.csv" not in short
