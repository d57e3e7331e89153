"""Where a study writes: every run in a directory of its own inside OUT/runs, game files found
beside the study file, and nothing already in OUT overwritten unless --resume can go on from
it or --force asks for it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solverkit.cli import cli
from solverkit.study.file import load_study
from solverkit.study.runner import run_study
from solverkit.errors import ConfigError

from .conftest import fuzz_examples

TINY = """
[study]
iterations = {iterations}
eval_every = 5
checkpoint_every = "{every}"

[assemblies.cfr_plus]
preset = "cfr_plus"

[games.pennies]
game = {{ name = "skewed_pennies" }}
"""


def digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def study(tmp_path, iterations=20, every="", text=None, name="s.toml"):
    path = tmp_path / name
    path.write_text(text or TINY.format(iterations=iterations, every=every))
    return path


@pytest.mark.parametrize("table", ['assemblies."../up"', 'assemblies."/abs"', 'assemblies."a/b"', 'games.".."',
                                   'games.".hidden"', 'assemblies."sp ace"', 'assemblies.""'])
def test_names_that_would_leave_the_runs_folder_are_refused(tmp_path, table):
    kind, name = table.split(".", 1)
    text = TINY.format(iterations=5, every="")
    if kind == "assemblies":
        text += f'\n[{table}]\npreset = "cfr"\n'
    else:
        text += f'\n[{table}]\ngame = {{ name = "skewed_pennies" }}\n'
    with pytest.raises(ConfigError, match=r"names name the runs' directories .*letters, digits") as err:
        load_study(study(tmp_path, text=text))
    assert name.strip('"') in str(err.value)
    assert f": {'assembly' if kind == 'assemblies' else 'game'} names name the runs'" in str(err.value)  # was 'assemblie'
    assert not (tmp_path / "up").exists()


@pytest.mark.parametrize("extra", [
    # a__b x c and a x b__c: both runs/a__b__c__seed0
    '[assemblies.a__b]\npreset = "cfr"\n[assemblies.a]\npreset = "cfr"\n'
    '[games.c]\ngame = { name = "skewed_pennies" }\n[games.b__c]\ngame = { name = "skewed_pennies" }\n',
    # names that differ only in case share a directory where file names ignore case
    '[assemblies.CFR_plus]\npreset = "cfr"\n',
])
def test_two_runs_never_share_a_directory(tmp_path, extra):
    with pytest.raises(ConfigError, match=r"would share the directory runs/"):
        load_study(study(tmp_path, text=TINY.format(iterations=5, every="") + extra))


def test_game_files_are_relative_to_the_study_file(tmp_path, monkeypatch):
    here, elsewhere = tmp_path / "studies", tmp_path / "cwd"
    here.mkdir()
    elsewhere.mkdir()
    np.save(here / "m.npy", np.array([[1.0, -1.0], [-1.0, 1.0]]))
    np.save(elsewhere / "m.npy", np.array([[5.0, 0.0, 1.0]]))  # a different game under the same name
    text = TINY.format(iterations=5, every="").replace('{ name = "skewed_pennies" }',
                                                       '{ name = "matrix_file", path = "m.npy" }')
    path = study(here, text=text)
    monkeypatch.chdir(elsewhere)
    spec = load_study(path)
    assert spec.runs[0].raw["game"]["path"] == str((here / "m.npy").resolve())
    # and a file only beside the study file is found from any working directory
    (elsewhere / "m.npy").unlink()
    assert load_study(path).runs[0].raw["game"]["path"] == str((here / "m.npy").resolve())


def test_a_study_into_an_out_holding_its_runs_is_refused_unless_resumed_or_forced(tmp_path):
    path = study(tmp_path)
    out = tmp_path / "out"
    run_study(load_study(path), out, progress=False)
    before = digest(out)
    with pytest.raises(ConfigError, match=r"already holds this study's runs .*--resume.*--force"):
        run_study(load_study(path), out, progress=False)
    assert digest(out) == before
    r = CliRunner().invoke(cli, ["study", str(path), "--out", str(out), "--quiet"])
    assert r.exit_code == 2 and r.stderr.startswith("Error: ") and len(r.stderr.splitlines()) == 1, r.output
    assert digest(out) == before
    run_study(load_study(study(tmp_path, iterations=30)), out, progress=False, force=True)
    assert (out / "runs" / "cfr_plus__pennies__seed0" / "config.toml").read_text().count("iterations = 30") == 1


def test_resume_refuses_a_finished_run_whose_settings_changed_without_a_checkpoint(tmp_path):
    path = study(tmp_path, iterations=20, every="")
    out = tmp_path / "out"
    run_study(load_study(path), out, progress=False)
    before = digest(out)
    study(tmp_path, iterations=40, every="")
    with pytest.raises(ConfigError, match=r"study run cfr_plus__pennies__seed0 .*ran with other settings "
                                          r"\(\[solver\] iterations 20 there, 40 here\) and has no checkpoint"):
        run_study(load_study(path), out, progress=False, resume=True)
    assert digest(out) == before


@pytest.mark.slow  # (CI time)
def test_resume_extends_a_finished_run_from_its_checkpoint(tmp_path):
    path = study(tmp_path, iterations=20, every="5")
    out = tmp_path / "out"
    run_study(load_study(path), out, progress=False)
    study(tmp_path, iterations=40, every="5")
    run_study(load_study(path), out, progress=False, resume=True)
    whole = tmp_path / "whole"
    run_study(load_study(path), whole, progress=False)
    assert (out / "results.csv").read_text().split("\n")[1].rsplit(",", 2)[0] == \
        (whole / "results.csv").read_text().split("\n")[1].rsplit(",", 2)[0]


def test_resume_refusing_a_checkpoint_names_the_study_file_not_the_runs_config(tmp_path):
    """The changed value is the study's: the run's config.toml still holds what it ran with."""
    path = study(tmp_path, iterations=20, every="5")
    out = tmp_path / "out"
    run_study(load_study(path), out, progress=False)
    before = digest(out)
    study(tmp_path, text=TINY.format(iterations=20, every="5").replace('"cfr_plus"', '"dcfr"'))
    with pytest.raises(ConfigError, match=r"study run cfr_plus__pennies__seed0: cannot resume .*\[averaging\] name is "
                                          r"\"quadratic\" in the study file but the checkpoint was written with "
                                          r"\"linear\"") as err:
        run_study(load_study(path), out, progress=False, resume=True)
    assert "config.toml" not in str(err.value)
    assert digest(out) == before


def test_resume_and_force_together_and_an_empty_out_are_refused(tmp_path):
    path = study(tmp_path)
    r = CliRunner().invoke(cli, ["study", str(path), "--out", str(tmp_path / "o"), "--resume", "--force"])
    assert r.exit_code == 2 and "--force" in r.stderr, r.output
    with pytest.raises(ConfigError, match="is empty"):
        run_study(load_study(path), "", progress=False)


def test_runs_of_an_assembly_with_a_store_path_get_folders_of_their_own(tmp_path):
    text = TINY.format(iterations=5, every="").replace('preset = "cfr_plus"\n', 'preset = "cfr_plus"\n'
                                                       'store = { backend = "disk", path = "stores" }\n')
    text = text.replace('{ name = "skewed_pennies" }', '{ name = "random_matrix", rows = 3, cols = 3 }\nseeds = [0, 1]')
    spec = load_study(study(tmp_path, text=text))
    paths = [run.raw["store"]["path"] for run in spec.runs]
    assert paths == [str((tmp_path / "stores" / run.slug).resolve()) for run in spec.runs] and len(set(paths)) == 2
    out = tmp_path / "out"
    run_study(spec, out, progress=False, jobs=2)
    assert (out / "results.csv").is_file()


NAME = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=0, max_size=12)


@settings(max_examples=fuzz_examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(NAME, min_size=1, max_size=3, unique=True))
def test_any_assembly_names_give_a_one_line_refusal_or_directories_inside_runs(tmp_path, names):
    import tomli_w

    raw = {"study": {"iterations": 2}, "assemblies": {n: {"preset": "cfr"} for n in names},
           "games": {"g": {"game": {"name": "skewed_pennies"}}}}
    path = tmp_path / "fuzz.toml"
    path.write_text(tomli_w.dumps(raw))
    try:
        spec = load_study(path)
    except ConfigError as exc:
        assert "\n" not in str(exc)
        return
    runs = (tmp_path / "out" / "runs").resolve()
    dirs = {(runs / run.slug).resolve() for run in spec.runs}
    assert all(d.parent == runs for d in dirs) and len({str(d).lower() for d in dirs}) == len(spec.runs)


def _finished_study(tmp_path):
    """A finished one-run study: its file, OUT, results.csv's text, and its run's metrics.csv and text."""
    path = study(tmp_path, iterations=20, every="5")
    out = tmp_path / "out"
    run_study(load_study(path), out, progress=False)
    metrics = out / "runs" / "cfr_plus__pennies__seed0" / "metrics.csv"
    return path, out, (out / "results.csv").read_text(), metrics, metrics.read_text()


@pytest.mark.parametrize("cut", ["rows", pytest.param("bytes", marks=pytest.mark.slow)])  # (CI time: 8 s)
def test_resume_never_reads_back_a_finished_run_whose_metrics_were_cut_short(tmp_path, cut):
    # a metrics.csv cut short (rows lost, or a torn last line) beside an intact result.json was
    # read back as finished: results.csv then gave an earlier row's exploitability as the final one
    path, out, before, metrics, text = _finished_study(tmp_path)
    metrics.write_text("".join(text.splitlines(True)[:3]) if cut == "rows" else text[:-20])
    run_study(load_study(path), out, progress=False, resume=True)
    assert (out / "results.csv").read_text() == before
    assert metrics.read_text() == text


@pytest.mark.parametrize("table, expect", [('rule = "rm"', "missing [averaging] name in "),
                                           ('preset = "cfr"\nfoo = 1', "unknown top-level key 'foo' in ")])
def test_an_assemblys_config_error_names_the_study_file_assembly_and_game(tmp_path, table, expect):
    """It said 'in <dict>' (issue 26 round 2): which of the study's assemblies?"""
    path = study(tmp_path, text=TINY.format(iterations=5, every="") + f"\n[assemblies.bad]\n{table}\n")
    with pytest.raises(ConfigError) as err:
        load_study(path)
    assert f"{expect}{path}: [assemblies.bad] on [games.pennies]" in str(err.value), str(err.value)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_while_a_study_writes_its_outputs_stops_it_saying_how_to_go_on(tmp_path, monkeypatch, sig):
    # between runs or while the plots are drawn, Ctrl-C was click's bare "Aborted!" and SIGTERM
    # ended the study without a word (exit 143)
    import os
    import signal
    import time

    from solverkit.study import plot as study_plot
    from solverkit.study.runner import StudyStopped

    def signalled(*args, **kwargs):
        os.kill(os.getpid(), getattr(signal, sig))
        time.sleep(5)

    monkeypatch.setattr(study_plot, "plot_study", signalled)
    # Ctrl-C as in a terminal: a shell starts background jobs (nohup ... &) with SIGINT ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    path = study(tmp_path, iterations=10, every="5")
    out = tmp_path / "out"
    with pytest.raises(StudyStopped, match=r"study stopped: 1 of 1 runs finished, 0 stopped part way .* --resume"):
        run_study(load_study(path), out, progress=False)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    signal.signal(signal.SIGINT, previous)
    monkeypatch.undo()
    run_study(load_study(path), out, progress=False, resume=True)
    assert (out / "results.csv").is_file()


def test_resume_solves_again_a_finished_run_whose_metrics_grew_huge(tmp_path):
    # a metrics.csv grown to gigabytes of zeros (a sparse file) was read into memory whole
    path, out, before, metrics, text = _finished_study(tmp_path)
    with open(metrics, "r+b") as fh:
        fh.truncate(3 << 30)
    run_study(load_study(path), out, progress=False, resume=True)
    assert (out / "results.csv").read_text() == before and metrics.read_text() == text


@pytest.mark.parametrize("name", ["results.csv", "summary.csv", "pennies.png", "pennies.svg", "pennies_curves.csv"])
def test_a_study_output_that_cannot_be_written_is_one_line_naming_it(tmp_path, name):
    # a directory in the place of a table or plot was a bare "[Errno 21] Is a directory"
    path = study(tmp_path, iterations=10, every="5")
    out = tmp_path / "out"
    (out / name).mkdir(parents=True)
    r = CliRunner().invoke(cli, ["study", str(path), "--out", str(out), "--quiet"])
    assert r.exit_code == 2, r.output
    assert r.stderr.splitlines()[-1] == f"Error: cannot write {out / name}: a directory is in its place", r.stderr
