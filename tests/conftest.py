"""Test set-up: only solverkit's own entry points load; tests register inline plugins."""

import os

# Never load third-party entry points installed on this machine (before anything imports solverkit).
os.environ["SOLVERKIT_LOAD_PLUGINS"] = "solverkit"
# Never start background kernel builds after CLI solves (solverkit.core.aot_auto; its tests opt in).
os.environ["SOLVERKIT_AOT_BUILD"] = "0"
# Enumerated game trees are cached in a folder of this test session only (solverkit.efg.tree_cache):
# hermetic, and a game enumerated by one test is read back by the next.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

_TREE_CACHE = tempfile.mkdtemp(prefix="solverkit-test-cache-")
os.environ["SOLVERKIT_CACHE_DIR"] = _TREE_CACHE
atexit.register(shutil.rmtree, _TREE_CACHE, True)

import pytest  # noqa: E402

from solverkit.core import registry as _registry  # noqa: E402


@pytest.fixture
def fresh_registry():
    """A registry of the built-ins and solverkit's own plugins, installed process-wide for the test."""
    reg = _registry.Registry()
    _registry.reset_registry(reg)
    yield reg
    _registry.reset_registry(None)


@pytest.fixture(autouse=True)
def _isolate_registry():
    """Every test starts and ends with no cached process-wide registry."""
    _registry.reset_registry(None)
    yield
    _registry.reset_registry(None)


# --- fuzzing profiles (tests/test_fuzz_*.py; bench/README.md) -------------------------------------
from hypothesis import settings as _settings  # noqa: E402

#: `--hypothesis-profile fuzz-long` or SOLVERKIT_FUZZ=long: the long fuzzing run
_settings.register_profile("fuzz-long", max_examples=2000, deadline=None)
if os.environ.get("SOLVERKIT_FUZZ") == "long":
    _settings.load_profile("fuzz-long")


def fuzz_examples(ci: int) -> int:
    """Examples per fuzz test: `ci` in CI, the loaded profile's count under the long profile
    (the fuzz tests set max_examples themselves, so only that profile lengthens them)."""
    current = _settings().max_examples
    return current if current >= 1000 else ci
