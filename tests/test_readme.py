"""The README's first lines are the two commands users run; .ci/run runs the test one."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands():
    lines = ROOT.joinpath("README.md").read_text().splitlines()
    start = lines.index("```bash")
    cmds = [line.split("#")[0].strip() for line in lines[start + 1 : start + 3]]
    return cmds


def test_readme_starts_with_main_job_and_tests():
    main, tests = _readme_commands()
    assert "solverkit solve" in main
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command():
    _, tests = _readme_commands()
    ci = ROOT.joinpath(".ci", "run").read_text().splitlines()
    assert tests in [line.strip() for line in ci]


def test_main_job_config_exists():
    main, _ = _readme_commands()
    config = next(w for w in main.split() if w.endswith(".toml"))
    assert ROOT.joinpath(config).is_file()
