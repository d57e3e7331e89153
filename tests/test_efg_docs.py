"""The generic engine's documentation runs: the README's Python API section, the tree example of
docs/plugins.md, and the config of docs/openspiel.md."""

import re
import tomllib
from pathlib import Path

import pytest

from solverkit.core.config import load_config
from solverkit.core.registry import Registry, reset_registry

ROOT = Path(__file__).resolve().parents[1]


def _section_blocks(path, heading, lang):
    text = path.read_text()
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return re.findall(rf"```{lang}\n(.*?)```", text[start : end if end > 0 else None], flags=re.S)


def test_readme_python_api_snippet_runs(capsys):
    (code,) = _section_blocks(ROOT / "README.md", "## Python API", "python")
    exec(compile(code, "README.md (Python API)", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[1].startswith("{'c': ")


def test_plugins_guide_tree_example_runs():
    (code,) = _section_blocks(ROOT / "docs" / "plugins.md", "## Describing a game as a tree", "python")
    reset_registry(Registry())  # the example adds its plugin to the process-wide registry
    try:
        namespace = {"__name__": "plugins_md_tree"}
        exec(compile(code, "docs/plugins.md (Describing a game as a tree)", "exec"), namespace)
        assert namespace["sol"].iterations == 2000
    finally:
        reset_registry(None)


def test_openspiel_doc_config_loads():
    pytest.importorskip("pyspiel")
    (body,) = _section_blocks(ROOT / "docs" / "openspiel.md", "# OpenSpiel games", "toml")
    assert tomllib.loads(body) == tomllib.loads((ROOT / "docs" / "examples" / "liars_dice.toml").read_text())
    a = load_config(ROOT / "docs" / "examples" / "liars_dice.toml")
    assert a.game.tree.num_nodes > 1000
