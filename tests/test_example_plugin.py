"""The example plugin package (docs/examples/solverkit-example) installs with pip and behaves like
any third-party plugin: `solverkit plugins` lists it with its distribution and version,
SOLVERKIT_LOAD_PLUGINS selects it, a config solves with it, and its own tests pass.

The package is installed into a temporary folder (``pip install --target``) that only the
subprocesses of these tests put on their path; this process never loads it.
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from solverkit.core.registry import ENV_LOAD

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "solverkit-example"
DISTRIBUTION, VERSION = "solverkit-example", "0.1.0"
EXAMPLE_PLUGINS = {("game", "rock_paper_scissors"), ("rule", "discounted_rm_plus")}

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pip") is None,
    reason=f"pip is not installed for {sys.executable}; this test installs {EXAMPLE.relative_to(ROOT)} with pip",
)


def _builds_wheels_offline() -> bool:
    """Whether the installed setuptools can build a wheel with no download: it can by itself
    from 70.1 on, before that only with the `wheel` package."""
    try:
        version = md.version("setuptools")
    except md.PackageNotFoundError:
        return False
    if importlib.util.find_spec("wheel") is not None:
        return True
    major_minor = tuple(int(n) for n in re.findall(r"\d+", version)[:2])
    return major_minor >= (70, 1)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The example installed with pip into a folder of its own; a copy of its sources beside it
    (so the build leaves nothing in the repository)."""
    root = tmp_path_factory.mktemp("solverkit-example")
    src = root / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".pytest_cache"))
    site = root / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-input", "--disable-pip-version-check"]
    if _builds_wheels_offline():
        cmd += ["--no-build-isolation", "--no-index"]  # build with the setuptools installed here
    # else pip fetches setuptools into an isolated build environment from the configured index
    cmd += ["--target", str(site), str(src)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    assert list(site.glob("solverkit_example-0.1.0.dist-info")), sorted(p.name for p in site.iterdir())
    return types.SimpleNamespace(src=src, site=site)


def _env(site: Path, load: str | None = None) -> dict:
    """This environment with the example on the path and SOLVERKIT_LOAD_PLUGINS unset or `load`."""
    env = dict(os.environ)
    env.pop(ENV_LOAD, None)  # tests/conftest.py sets it for this process
    if load is not None:
        env[ENV_LOAD] = load
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)
    return env


def _solverkit(example, *args, load=None, cwd=None):
    proc = subprocess.run(
        [sys.executable, "-m", "solverkit", *args],
        capture_output=True,
        text=True,
        env=_env(example.site, load),
        cwd=cwd or ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, f"solverkit {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _plugins(example, load=None) -> dict:
    data = json.loads(_solverkit(example, "plugins", "--json", load=load).stdout)
    return {(row["kind"], row["name"]): row for row in data["plugins"]}, data["errors"]


def test_plugins_lists_the_example_with_distribution_and_version(example):
    rows, errors = _plugins(example)  # SOLVERKIT_LOAD_PLUGINS unset: every entry point loads
    for key in EXAMPLE_PLUGINS:
        row = rows[key]
        assert row["plugin"] == "example"  # the entry-point name
        assert row["distribution"] == DISTRIBUTION and row["version"] == VERSION
        assert row["description"]
    assert rows[("game", "skewed_pennies")]["distribution"] == "solverkit"
    assert not [e for e in errors if "example" in e["plugin"]], errors


def test_plugins_table_shows_the_example(example):
    lines = _solverkit(example, "plugins").stdout.splitlines()
    row = next(line.split() for line in lines if " rock_paper_scissors " in line)
    assert row[:4] == ["game", "rock_paper_scissors", DISTRIBUTION, VERSION]


# Builds one registry per value of SOLVERKIT_LOAD_PLUGINS, as `solverkit plugins` does, in one
# fresh process (cheaper than one `solverkit plugins` per value).
_SELECT = """
import json, os, sys
from solverkit.core.registry import ENV_LOAD, Registry
seen = {}
for load in json.loads(sys.argv[1]):
    os.environ[ENV_LOAD] = load
    seen[load] = [[i.kind, i.name] for i in Registry().all()]
print(json.dumps(seen))
"""

SELECTIONS = {
    "": (False, False),  # no entry points at all
    "solverkit": (True, False),  # solverkit's own plugins only
    "example": (False, True),  # an entry-point name
    DISTRIBUTION: (False, True),  # a distribution name
    f"solverkit, {DISTRIBUTION}": (True, True),
}


def test_environment_selects_plugins(example):
    proc = subprocess.run(
        [sys.executable, "-c", _SELECT, json.dumps(list(SELECTIONS))],
        capture_output=True,
        text=True,
        env=_env(example.site),
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    for load, (matrix, example_loaded) in SELECTIONS.items():
        rows = {tuple(row) for row in seen[load]}
        assert (("game", "skewed_pennies") in rows) is matrix, load
        assert (EXAMPLE_PLUGINS <= rows) if example_loaded else not (EXAMPLE_PLUGINS & rows), load
        assert ("rule", "rm_plus") in rows, load  # built-ins never depend on entry points


def test_solves_a_config_with_the_example_plugins(example, tmp_path):
    config = tmp_path / "rock_paper_scissors.toml"
    shutil.copy(example.src / "rock_paper_scissors.toml", config)
    out = tmp_path / "run"
    proc = _solverkit(example, "solve", str(config), "--out", str(out), "--quiet", cwd=tmp_path)
    match = re.search(r"^exploitability (\S+)", proc.stdout, re.M)
    assert match, proc.stdout
    exploitability = float(match.group(1))
    assert 0.0 <= exploitability < 1e-3
    result = json.loads((out / "result.json").read_text())
    assert result["iterations"] == 2000
    assert result["exploitability"] == pytest.approx(exploitability, rel=1e-5)
    resolved = (out / "config.toml").read_text()
    assert 'name = "rock_paper_scissors"' in resolved and 'name = "discounted_rm_plus"' in resolved


@pytest.mark.slow  # (CI time: runs with -m slow)
def test_the_examples_own_tests_pass(example):
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        capture_output=True,
        text=True,
        env=_env(example.site),
        cwd=example.src,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\b\d+ passed\b", proc.stdout), proc.stdout
