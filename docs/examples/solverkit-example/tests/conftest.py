"""Tests see solverkit's own plugins and register this one inline, never through its entry point
(so the results do not depend on what else is installed)."""

import os

os.environ["SOLVERKIT_LOAD_PLUGINS"] = "solverkit"  # before solverkit builds a registry

import pytest  # noqa: E402

import solverkit_example  # noqa: E402
from solverkit.core.registry import Registry, reset_registry  # noqa: E402


@pytest.fixture
def registry():
    """solverkit's plugins plus this one, also installed as the process-wide registry."""
    reg = Registry(extra_plugins=[solverkit_example])
    reset_registry(reg)
    yield reg
    reset_registry(None)
