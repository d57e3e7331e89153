"""No import circles (issue 31): the modules of solverkit/ and plugins/ import each other at module
level as a graph without cycles. Imports inside functions are not edges (they run later, when
everything is loaded); imports under ``if TYPE_CHECKING:`` never run."""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def package_dirs() -> dict[str, Path]:
    """{top-level package: its folder}, as pyproject.toml installs them (plugins/poker is solverkit_poker)."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    tops = {name: ROOT / path for name, path in setup.items() if "." not in name}
    assert "solverkit" in tops and any(name.startswith("solverkit_") for name in tops), tops
    return tops


def modules() -> dict[str, Path]:
    """{dotted module name: file} of every module under solverkit/ and plugins/ (a package is its __init__)."""
    out = {}
    for top, folder in package_dirs().items():
        for path in folder.rglob("*.py"):
            parts = [top, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _module_level(body):
    """The statements that run when the module (or a class body in it) is imported: not function
    bodies, not ``if TYPE_CHECKING:``."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _module_level(node.orelse)
            continue
        yield node
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, field, None)
            if isinstance(inner, list) and not isinstance(node, (ast.Import, ast.ImportFrom)):
                yield from _module_level(inner)


def imports_of(name: str, path: Path, known: dict) -> set[str]:
    """The known modules that `name` (at `path`) imports at module level."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _module_level(ast.parse(path.read_text(), str(path)).body):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module
            # `from pkg import sub` imports the module pkg.sub when there is one
            targets = [stem] + [f"{stem}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import a.b.c` where c is a name: the module a.b
                target = target.rpartition(".")[0]
            # a module's own packages are loaded before it: importing from them is no edge
            if target and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


def find_cycle(graph: dict[str, set[str]]):
    """One cycle of `graph` as a list of names (first == last), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_cycle_finder_names_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_relative_imports_resolve(tmp_path):
    (tmp_path / "pkg").mkdir()
    init, mod = tmp_path / "pkg" / "__init__.py", tmp_path / "pkg" / "m.py"
    init.write_text("from . import m\nfrom .m import x\n")
    mod.write_text("import os\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import n\n"
                   "def f():\n    from pkg import n\nclass C:\n    from pkg.n import y\n")
    known = {"pkg": init, "pkg.m": mod, "pkg.n": mod}
    assert imports_of("pkg", init, known) == {"pkg.m"}
    assert imports_of("pkg.m", mod, known) == {"pkg.n"}  # the class body's import, not the function's
    mod.write_text("from . import n\nfrom .. import pkg\n")
    assert imports_of("pkg.m", mod, known) == {"pkg.n"}  # its own package is loaded before it


def test_no_module_level_import_circles():
    known = modules()
    assert "solverkit.core.config" in known and "solverkit_transports.worker" in known
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle)
