"""Studies: the grid runs, results.csv / summary.csv have the documented columns, plots exist,
and bad study files fail before anything runs."""

import csv
import re

import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.study.file import load_study
from solverkit.study.runner import run_study
from solverkit.study.tables import RESULT_COLUMNS, SUMMARY_COLUMNS
from solverkit.errors import ConfigError

STUDY = """
[study]
name = "tiny"
iterations = 400
targets = [1e-2]
eval_every = 1

[assemblies.cfr]
preset = "cfr"
solver = { update = "alternating" }

[assemblies.cfr_plus]
preset = "cfr_plus"

[games.pennies]
game = { name = "skewed_pennies" }
targets = [1e-2, 1e-3]

[games.random]
game = { name = "random_matrix", rows = 8, cols = 9 }
seeds = [0, 1]
"""


@pytest.fixture
def study_file(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(STUDY)
    return path


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_study_grid_results_and_plots(study_file, tmp_path):
    study = load_study(study_file)
    # 2 assemblies x (1 pennies seed + 2 random seeds)
    assert len(study.runs) == 6
    out = tmp_path / "out"
    run_study(study, out, progress=False)
    rows = _rows(out / "results.csv")
    assert tuple(rows[0].keys()) == RESULT_COLUMNS
    # pennies has two targets, random one: 2 * (2 + 2 * 1) rows
    assert len(rows) == 8
    seeds = {(r["game"], r["seed"]) for r in rows}
    assert seeds == {("pennies", "0"), ("random", "0"), ("random", "1")}
    by = {(r["assembly"], r["game"], r["seed"], float(r["target"])): r for r in rows}
    plus = by[("cfr_plus", "pennies", "0", 1e-3)]
    cfr = by[("cfr", "pennies", "0", 1e-3)]
    # CFR+ reaches 1e-3 on skewed pennies at iteration 343 (Figure 2a); alternating CFR not within 400
    assert plus["iterations_to_target"] == "343"
    assert cfr["iterations_to_target"] == ""
    # the reported iteration is the first whose metrics row is at or below the target
    metrics = _rows(out / plus["run_dir"] / "metrics.csv")
    first = next(int(m["iteration"]) for m in metrics if float(m["exploitability"]) <= 1e-3)
    assert first == 343
    summary = _rows(out / "summary.csv")
    assert tuple(summary[0].keys()) == SUMMARY_COLUMNS
    assert (out / "pennies.png").stat().st_size > 1000
    assert (out / "random.png").stat().st_size > 1000


def test_random_game_seeds_differ(study_file):
    study = load_study(study_file)
    seeds = [r.raw["game"]["seed"] for r in study.runs if r.game == "random"]
    assert sorted(set(seeds)) == [0, 1]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[study]\niterations = 0\n[assemblies.a]\npreset='cfr'\n[games.g]\ngame={name='skewed_pennies'}\n", "[study] iterations = 0"),
        ("[study]\nfoo = 1\n", "unknown key 'foo' in [study]"),
        ("[games.g]\ngame={name='skewed_pennies'}\n", "no [assemblies.NAME] tables"),
        ("[assemblies.a]\npreset='cfr'\n", "no [games.NAME] tables"),
        ("[assemblies.a]\npreset='cfrplus'\n[games.g]\ngame={name='skewed_pennies'}\n", "unknown preset 'cfrplus'"),
        ("[assemblies.a]\npreset='cfr'\n[games.g]\ngame={name='penny'}\n", "unknown game 'penny'"),
        ("[assemblies.a]\npreset='cfr'\n[games.g]\ngame={name='skewed_pennies'}\ntargets=[-1]\n", "targets = [-1]"),
        ("[assemblies.a]\npreset='cfr'\ngame='x'\n[games.g]\ngame={name='skewed_pennies'}\n", "must not name a game"),
        ("[assemblies.a]\npreset='cfr'\n[games.g]\nname='skewed_pennies'\n", "unknown key 'name' in [games.g]"),
        ("[[broken", "malformed TOML"),
    ],
)
def test_bad_study_files(tmp_path, text, expected):
    path = tmp_path / "s.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_study(path)
    assert expected in str(err.value)


def test_study_cli_bad_input_exit_2(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("[assemblies.a]\npreset='cfr'\n[games.g]\ngame={name='penny'}\n")
    result = CliRunner().invoke(cli, ["study", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "unknown game 'penny'" in result.output
    assert not (tmp_path / "o").exists()


def test_iterations_cap_shortens_every_run(study_file):
    full = load_study(study_file)
    short = load_study(study_file, iterations_cap=7)
    assert [r.slug for r in short.runs] == [r.slug for r in full.runs]
    assert all(s.iterations == min(7, f.iterations) and s.raw["solver"]["iterations"] == s.iterations
               for s, f in zip(short.runs, full.runs))
    res = CliRunner().invoke(cli, ["study", str(study_file), "--out", str(study_file.parent / "o"), "--iterations", "0"])
    assert res.exit_code == 2 and "--iterations" in res.stderr


# --- what seeds vary, targets in display units, per-assembly settings --------------------------

def _study(tmp_path, text):
    path = tmp_path / "s.toml"
    path.write_text(text)
    return load_study(path)


def test_seeds_vary_only_what_is_random(tmp_path):
    study = _study(tmp_path, """
[study]
seeds = [0, 1, 2]
iterations = 5
[assemblies.plus]
preset = "cfr_plus"
[games.pennies]
game = { name = "skewed_pennies" }
[games.fixed]
game = { name = "random_matrix", rows = 3, cols = 3, seed = 42 }
[games.free]
game = { name = "random_matrix", rows = 3, cols = 3 }
""")
    by_game = {}
    for run in study.runs:
        by_game.setdefault(run.game, []).append(run)
    # deterministic: once, and said so; an explicit game seed is kept
    assert [r.seed for r in by_game["pennies"]] == [0]
    assert [r.raw["game"]["seed"] for r in by_game["fixed"]] == [42]
    assert [r.raw["game"]["seed"] for r in by_game["free"]] == [0, 1, 2]
    assert len(study.notes) == 2
    assert all("each runs once" in n for n in study.notes)
    assert study.notes[0].startswith("pennies: plus has nothing random") and study.notes[1].startswith("fixed:")


def test_unit_targets_and_per_assembly_solver_settings(tmp_path):
    study = _study(tmp_path, """
[study]
iterations = 50
targets_mbb = [500, 100]
[assemblies.plus]
preset = "cfr_plus"
solver = { iterations = 7, eval_every = 2 }
[assemblies.dcfr]
preset = "dcfr"
[games.leduc]
game = { name = "leduc" }
""")
    plus, dcfr = study.runs
    assert plus.iterations == 7 and plus.raw["solver"]["eval_every"] == 2
    assert dcfr.iterations == 50 and dcfr.raw["solver"]["eval_every"] == 1
    assert [t.column for t in plus.targets] == ["exploitability_mbb"] * 2
    assert plus.raw["solver"]["target_mbb"] == 100  # stops at the smallest target, in its unit
    assert plus.axis[:2] == ("exploitability_mbb", "mbb/g")


@pytest.mark.parametrize("text, expected", [
    ("[study]\ntargets_mbb = [1]\n[assemblies.a]\npreset='cfr'\n[games.g]\ngame={name='skewed_pennies'}\n",
     "has no display unit 'mbb'"),
    ("[study]\ntargets_mbb = [1]\ntargets = [1]\n[assemblies.a]\npreset='cfr'\n[games.g]\ngame={name='leduc'}\n",
     "targets in several units"),
    ("[study]\nseeds = [1, 1]\n[assemblies.a]\npreset='cfr'\n[games.g]\ngame={name='leduc'}\n", "repeats a seed"),
    ("[assemblies.a]\npreset='cfr'\nsolver={seed=3}\n[games.g]\ngame={name='leduc'}\n", "solver.seed"),
])
def test_bad_study_targets_and_seeds(tmp_path, text, expected):
    with pytest.raises(ConfigError, match=expected):
        _study(tmp_path, text)


def test_mean_over_all_seeds_carries_stopped_runs_forward():
    from solverkit.study.stats import combine, first_reach

    fast = [(1, 1.0), (2, 0.01)]  # stopped at iteration 2
    slow = [(1, 1.0), (2, 0.5), (3, 0.1), (4, 0.001)]
    got = combine([fast, slow])
    assert [p[0] for p in got] == [1, 2, 3, 4]
    # geometric mean over both seeds at every point, the stopped one held at 0.01
    assert got[2][1] == pytest.approx((0.01 * 0.1) ** 0.5)
    assert got[3][1] == pytest.approx((0.01 * 0.001) ** 0.5)
    assert (got[3][2], got[3][3]) == (0.001, 0.01)
    assert first_reach(slow, 0.1) == 3 and first_reach(fast, 1e-9) is None
    assert combine([fast, slow], "arithmetic")[3][1] == pytest.approx((0.01 + 0.001) / 2)


def test_plot_axes_units_band_and_targets(tmp_path):
    import matplotlib.pyplot as plt

    from solverkit.study.runs import RunResult
    from solverkit.study.plot import game_figure

    study = _study(tmp_path, """
[study]
seeds = [0, 1]
targets_mbb = [100]
[assemblies.plus]
preset = "cfr_plus"
[games.leduc]
game = { name = "leduc" }
""")
    # leduc is deterministic: one run; make it two seeds' worth by hand to see the band
    run = study.runs[0]
    study.runs.append(type(run)(**{**run.__dict__, "seed": 1}))
    rows = lambda k: [{"iteration": i, "seconds": i * k, "exploitability_mbb": 1000 / i,
                       "exploitability_current_mbb": 2000 / i} for i in (1, 2, 4, 8)]
    results = {study.runs[0].slug: RunResult(rows(0.1), 8, 0.0, 0.8), study.runs[1].slug: RunResult(rows(0.2), 8, 0.0, 1.6)}
    fig = game_figure(study, results, "leduc")
    axes = fig.axes
    assert [a.get_xlabel() for a in axes] == ["iterations", "seconds"]  # no nodes_touched recorded
    assert all(a.get_ylabel() == "exploitability (mbb/g)" for a in axes)
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert labels == ["plus (geometric mean of 2 seeds; bands: 95% CI of the mean, min-max)", "plus: current strategy"]
    assert any(t.get_text() == "target 100 mbb/g" for t in axes[0].texts)
    assert len(axes[0].collections) == 2  # the min-max band and the confidence band of the mean
    plt.close(fig)


def test_docs_study_examples_load(tmp_path):
    import re
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "studies.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    for block in blocks:
        study = _study(tmp_path, block)
        assert study.runs
    random = [r for r in _study(tmp_path, blocks[1]).runs if r.game == "random"]
    assert [r.raw["game"]["seed"] for r in random] == list(range(10))


def test_a_sampling_assembly_runs_every_seed_on_a_deterministic_game(tmp_path):
    study = _study(tmp_path, """
[study]
seeds = [0, 1, 2]
iterations = 5
[assemblies.es]
rule = { name = "rm" }
averaging = { name = "uniform" }
sampler = { name = "external" }
[assemblies.cfr]
preset = "cfr_plus"
[games.kuhn]
game = { name = "kuhn_tree" }
""")
    assert [(r.assembly, r.seed, r.raw["solver"]["seed"]) for r in study.runs] == [
        ("es", 0, 0), ("es", 1, 1), ("es", 2, 2), ("cfr", 0, 0)]
    assert study.notes == ["kuhn: cfr has nothing random here (the game has no seed or fixes it, the assembly "
                           "neither samples nor jitters): each runs once, not once per seed [0, 1, 2]"]


def test_study_eval_every_takes_time_and_node_schedules(tmp_path):
    text = "[study]\neval_every = {}\n[assemblies.a]\npreset='cfr'\n[games.g]\ngame={{name='kuhn_tree'}}\neval_every = {}\n"
    study = _study(tmp_path, text.format('"2s"', '"1e3 nodes"'))
    assert study.runs[0].raw["solver"]["eval_every"] == "1e3 nodes"
    with pytest.raises(ConfigError, match=r"\[study\] eval_every: '2 parsecs' is invalid"):
        _study(tmp_path, text.format('"2 parsecs"', 1))


def test_a_game_can_name_its_assemblies(tmp_path):
    text = ("[assemblies.a]\npreset='cfr'\n[assemblies.b]\npreset='cfr_plus'\n"
            "[games.g]\ngame={{name='kuhn'}}\nassemblies = {}\n")
    assert [r.assembly for r in _study(tmp_path, text.format('["b"]')).runs] == ["b"]
    with pytest.raises(ConfigError, match=r"assemblies = \['c'\] is invalid.*valid: a, b"):
        _study(tmp_path, text.format('["c"]'))


RESUMABLE = """
[study]
name = "resumable"
iterations = {iterations}
targets = [1e-4]
stop_at_target = false
eval_every = 0
checkpoint_every = "{every}"

[assemblies.cfr_plus]
preset = "cfr_plus"

[assemblies.dcfr]
preset = "dcfr"

[games.leduc]
game = {{ name = "leduc" }}
"""


def _resumable(tmp_path, name, iterations=120, every="10m"):
    path = tmp_path / f"{name}.toml"
    path.write_text(RESUMABLE.format(iterations=iterations, every=every))
    return path


def _final(out):
    return {(r["assembly"], r["iterations_run"], r["final_exploitability"]) for r in _rows(out / "results.csv")}


@pytest.mark.slow
def test_resume_keeps_finished_runs_and_extends_stopped_ones(tmp_path, monkeypatch):
    """A study capped at 40 iterations, then resumed at 120: each run goes on from its last
    checkpoint and ends exactly where a study run at once to 120 ends; resumed again, nothing
    is solved (finished runs are read back)."""
    path = _resumable(tmp_path, "s")
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    run_study(load_study(path), whole, progress=False)
    run_study(load_study(path, iterations_cap=40), parts, progress=False)
    assert {r["iterations_run"] for r in _rows(parts / "results.csv")} == {"40"}
    run_study(load_study(path), parts, progress=False, resume=True)
    assert _final(parts) == _final(whole)
    for slug in ("cfr_plus__leduc__seed0", "dcfr__leduc__seed0"):
        a, b = _rows(whole / "runs" / slug / "metrics.csv"), _rows(parts / "runs" / slug / "metrics.csv")
        # every evaluated iteration and its exploitability alike (times differ)
        assert [(r["iteration"], r["exploitability"]) for r in a] == [(r["iteration"], r["exploitability"]) for r in b]
    import solverkit.core.solver as solver_mod

    def refuse(*args, **kwargs):
        raise AssertionError("a finished run was solved again")

    monkeypatch.setattr(solver_mod, "run_solve", refuse)
    run_study(load_study(path), parts, progress=False, resume=True)
    assert _final(parts) == _final(whole)


@pytest.mark.slow  # (CI time)
def test_resume_refuses_a_run_whose_settings_changed(tmp_path):
    path = _resumable(tmp_path, "s", iterations=30)
    out = tmp_path / "out"
    run_study(load_study(path), out, progress=False)
    path.write_text(path.read_text().replace('preset = "dcfr"', 'preset = "dcfr"\nrule = { name = "dcfr", alpha = 2.0 }'))
    with pytest.raises(Exception, match=r"cannot resume .*dcfr__leduc__seed0.*\[rule\] alpha is 2\.0"):
        run_study(load_study(path), out, progress=False, resume=True)


def test_bad_study_checkpoint_every(tmp_path):
    path = _resumable(tmp_path, "s", every="often")
    with pytest.raises(ConfigError, match=r"\[study\] .*checkpoint_every = 'often' is invalid"):
        load_study(path)


@pytest.mark.slow
def test_ctrl_c_stops_a_parallel_study_and_resume_finishes_it(tmp_path):
    """SIGINT to the study's process group (Ctrl-C) while both runs are under way: exit 130, a
    message naming --resume, checkpoints kept; --resume then ends where an uninterrupted
    study ends."""
    import os
    import signal
    import subprocess
    import sys
    import time

    path = _resumable(tmp_path, "s", iterations=120000)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "solverkit", "study", str(path), "--out", str(out), "--jobs", "2", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    runs = [out / "runs" / s / "metrics.csv" for s in ("cfr_plus__leduc__seed0", "dcfr__leduc__seed0")]
    deadline = time.monotonic() + 120
    while not all(m.exists() for m in runs) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    # both runs were under way (on a slow machine one may just have finished: it is kept as it is)
    stopped = re.search(r"study stopped: (\d) of 2 runs finished, (\d) stopped part way", err)
    assert stopped and int(stopped.group(2)) >= 1 and "--resume" in err, err
    interrupted = [json_of(m.parent / "result.json")["interrupted"] for m in runs]
    assert interrupted.count(True) == int(stopped.group(2))
    for m in runs:
        assert (m.parent / "checkpoint.skc").exists()
    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    whole = tmp_path / "whole"
    run_study(load_study(path), whole, progress=False, jobs=2)
    assert _final(out) == _final(whole)


def json_of(path):
    import json

    return json.loads(path.read_text())
