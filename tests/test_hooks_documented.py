"""Every hook is documented (docstring, guide section with its exact signature) and tested, and
the guide's code examples run as written."""

import inspect
import re
import sys
import tomllib
from pathlib import Path

import pytest

from solverkit.core import hookspecs
from solverkit.core.averaging import Averaging
from solverkit.core.compressor import Compressor
from solverkit.core.capabilities import Decomposition
from solverkit.core.game import Game
from solverkit.core.params import Param
from solverkit.core.registry import HOOKS as REGISTRY_HOOKS
from solverkit.core.registry import KINDS
from solverkit.core.rule import RegretRule
from solverkit.core.transport import Transport

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "plugins.md"
REGISTRY_TESTS = ROOT / "tests" / "test_registry.py"

#: fenced blocks: (language, body)
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
#: a block whose first line is "# some/file.py" (or .toml) is that file's content
_FILE_HEADER = re.compile(r"# ([\w./-]+\.(?:py|toml))$")


def _hookspecs():
    """(name, function) of every hookspec in solverkit.core.hookspecs."""
    specs = []
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(fn, "solverkit_spec"):
            specs.append((name, fn))
    return specs


def _call_signature(fn, drop_self=False) -> str:
    """``name(a, b=1)``: the signature as a reader writes it, without annotations."""
    params = list(inspect.signature(fn).parameters.values())
    if drop_self:
        params = params[1:]
    parts = [p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}" for p in params]
    return f"{fn.__name__}({', '.join(parts)})"


def _blocks():
    return [(lang, body) for lang, body in _FENCE.findall(GUIDE.read_text())]


HOOKS = _hookspecs()


def test_hookspecs_found():
    assert sorted(name for name, _ in HOOKS) == sorted(REGISTRY_HOOKS)
    assert {hook for hook, _, _ in KINDS.values()} < set(REGISTRY_HOOKS)


#: what each hook's docstring must show about its argument
_ARGUMENT_USE = {"register_presets": "register(name, spec)", "register_commands": "``cli``"}


@pytest.mark.parametrize("name, fn", HOOKS, ids=[n for n, _ in HOOKS])
def test_hook_has_docstring(name, fn):
    doc = inspect.getdoc(fn)
    assert doc, f"hookspec {name} has no docstring"
    # when it is called, with what, and what to return
    assert "Called" in doc and _ARGUMENT_USE.get(name, "register(cls)") in doc and "Return" in doc, doc


@pytest.mark.parametrize("name, fn", HOOKS, ids=[n for n, _ in HOOKS])
def test_hook_documented_with_exact_signature(name, fn):
    signature = _call_signature(fn)
    headings = [line for line in GUIDE.read_text().splitlines() if line.startswith("#")]
    assert any(f"`{signature}`" in h for h in headings), (
        f"docs/plugins.md has no section headed `{signature}`"
    )


@pytest.mark.parametrize("name, fn", HOOKS, ids=[n for n, _ in HOOKS])
def test_hook_exercised_by_tests(name, fn):
    assert re.search(rf"def {name}\(", REGISTRY_TESTS.read_text()), f"tests/test_registry.py implements no {name} hook"


@pytest.mark.parametrize(
    "base, methods",
    [
        (Game, ["layout", "cfr_pass", "best_response", "segments", "warmup"]),
        (Decomposition, ["subgame_pass", "subgame_keys", "subgame_shape", "subgame_segment", "job_to_wire",
                         "job_from_wire"]),
        (RegretRule, ["coefficients", "update"]),
        (Averaging, ["coefficients", "update"]),
        (Compressor, ["compress", "decompress"]),
        (Transport, ["map_subgames", "start", "close", "store_view", "report"]),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else None,
)
def test_base_class_methods_documented(base, methods):
    """The guide names each method a plugin implements with its exact arguments."""
    text = GUIDE.read_text()
    for method in methods:
        signature = _call_signature(getattr(base, method), drop_self=True)
        assert f"`{signature}" in text, f"docs/plugins.md does not show {base.__name__}.{signature}"


def test_param_documented_with_exact_signature():
    fields = inspect.signature(Param).parameters.values()
    signature = "Param(" + ", ".join(
        f.name if f.default is inspect.Parameter.empty else f"{f.name}={f.default!r}" for f in fields
    ) + ")"
    assert signature in GUIDE.read_text()


def test_guide_documents_entry_points_and_environment():
    text = GUIDE.read_text()
    for needle in ("[project.entry-points.solverkit]", "SOLVERKIT_LOAD_PLUGINS", "extra_plugins", "registry.add", "registry.remove"):
        assert needle in text, needle


def test_guide_toml_blocks_parse():
    tomls = [body for lang, body in _blocks() if lang == "toml"]
    assert tomls
    for body in tomls:
        tomllib.loads(body)


def test_guide_examples_run(tmp_path, monkeypatch):
    """Blocks headed by a file name are written there; the other python blocks run in order."""
    blocks = _blocks()
    files = 0
    for _lang, body in blocks:
        first = body.splitlines()[0]
        match = _FILE_HEADER.fullmatch(first)
        if match:
            path = tmp_path / match.group(1)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body)
            files += 1
    assert files >= 9  # seven hook modules, the package __init__, pyproject.toml, morra.toml
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    for name in [m for m in sys.modules if m == "solverkit_demo" or m.startswith("solverkit_demo.")]:
        monkeypatch.delitem(sys.modules, name)
    namespace = {"__name__": "plugins_md"}
    ran = 0
    try:
        for index, (lang, body) in enumerate(blocks):
            if lang != "python" or _FILE_HEADER.fullmatch(body.splitlines()[0]):
                continue
            code = compile(body, f"docs/plugins.md (python block {index + 1})", "exec")
            exec(code, namespace)
            ran += 1
    finally:
        for name in [m for m in sys.modules if m == "solverkit_demo" or m.startswith("solverkit_demo.")]:
            del sys.modules[name]
    assert ran >= 3
    init = (tmp_path / "solverkit_demo" / "__init__.py").read_text()
    for name, _ in HOOKS:  # the guide's demo implements every hook
        assert name in init
