"""solverkit.cli_gc: a process started as the command line loads without the cyclic collector,
which is on again (the start-up objects frozen) when the command runs; an importer keeps its own."""

import gc
import subprocess
import sys

AS_MAIN = """
import gc, runpy, sys
import solverkit.core.run_loop as run_loop
seen = []
advance = run_loop.Run.advance
def spy(self):
    seen.append((gc.isenabled(), gc.get_freeze_count()))
    return advance(self)
run_loop.Run.advance = spy
sys.argv = ["solverkit", "solve", "--game", "kuhn", "--preset", "cfr_plus", "--iterations", "1", "--quiet",
            "--out", sys.argv[1]]
try:
    runpy.run_module("solverkit", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    assert not exc.code, exc.code
enabled, frozen = seen[0]
print(enabled, frozen > 10000)
"""


def test_the_command_runs_with_the_collector_on_and_start_up_frozen(tmp_path):
    out = subprocess.run([sys.executable, "-c", AS_MAIN, str(tmp_path / "run")], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-2:] == ["True", "True"]


def test_importing_the_command_line_leaves_the_collector_alone(tmp_path):
    """A test or a program that imports and calls the command line: no pause, nothing frozen."""
    from solverkit.cli import cli
    from solverkit.cli_gc import started_as_command

    assert not started_as_command()
    frozen = gc.get_freeze_count()
    try:
        cli(["solve", "--game", "kuhn", "--preset", "cfr_plus", "--iterations", "1", "--quiet",
             "--out", str(tmp_path / "run")], prog_name="solverkit")
    except SystemExit as exc:
        assert not exc.code
    assert gc.isenabled() and gc.get_freeze_count() == frozen
