"""The documentation holds together (issue 26, item 19): docs/README.md links every page, every
relative link in the docs reaches an existing file and heading, and the README names the
Python version that pyproject.toml requires and the virtual-environment step."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _pages():
    """Every markdown page: the READMEs and docs/ (the example package's README included)."""
    return [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted(DOCS.rglob("*.md"))]


def _prose(text: str) -> str:
    """Markdown without fenced code blocks (their brackets are code, not links)."""
    return re.sub(r"```.*?```", "", text, flags=re.S)


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#+\s+(.*)$", _prose(page.read_text()), re.M):
        slug = _slug(m.group(1))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def broken_links(page: Path, text: str | None = None) -> list[str]:
    """The relative links of `page` whose file or heading does not exist."""
    bad = []
    for link in re.findall(r"\]\(([^)\s]+)\)", _prose(text if text is not None else page.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", link):
            continue  # http:, https:, mailto:
        target, _, anchor = link.partition("#")
        dest = (page.parent / target).resolve() if target else page
        if not dest.exists():
            bad.append(f"{link} (no file)")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            bad.append(f"{link} (no heading #{anchor})")
    return bad


def test_the_link_check_catches_broken_links():
    page = DOCS / "README.md"
    text = "[a](config.md) [b](nothere.md) [c](config.md#no-such-heading) [d](https://x.org) [e](config.md#store)"
    assert broken_links(page, text) == ["nothere.md (no file)", "config.md#no-such-heading (no heading #no-such-heading)"]


def test_every_relative_link_resolves():
    bad = {str(p.relative_to(ROOT)): broken_links(p) for p in _pages()}
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_docs_index_links_every_page():
    index = DOCS / "README.md"
    linked = {(index.parent / link.partition("#")[0]).resolve()
              for link in re.findall(r"\]\(([^)\s#]+)[^)]*\)", _prose(index.read_text()))}
    pages = {p.resolve() for p in DOCS.rglob("*.md") if p != index}
    assert pages - linked == set()
    readme = (ROOT / "README.md").read_text()
    assert "(docs/README.md)" in readme


def test_readme_names_the_python_version_and_the_venv_step():
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    version = re.fullmatch(r">=\s*(\d+\.\d+)", requires).group(1)
    head = (ROOT / "README.md").read_text()[:1500]
    assert f"Python {version} or newer" in head
    assert "python3 -m venv .venv && . .venv/bin/activate" in head


def test_readme_main_job_figures_are_the_benchmarks():
    """The main job's iterations, wall seconds and peak memory in the README are those of
    bench/results/rhode_island.md (its float-store row of true Rhode Island)."""
    table = (ROOT / "bench" / "results" / "rhode_island.md").read_text()
    header = next(line for line in table.splitlines() if line.startswith("| game |"))
    row = next(line for line in table.splitlines() if line.startswith("| rhode_island | float |"))
    cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"{cells['iterations']} iterations to" in readme
    assert f"({round(float(cells['wall s']))} s wall, {round(float(cells['peak RSS MB']))} MB peak in" in readme


def test_play_md_match_example_is_what_its_commands_print(tmp_path):
    """docs/play.md's `solverkit match` output is the output of its own commands (exact value
    and duplicate match are deterministic; only the seconds vary)."""
    import shlex

    from click.testing import CliRunner

    from solverkit.cli import cli

    text = (DOCS / "play.md").read_text()
    solve = next(line for line in text.splitlines() if line.startswith("solverkit solve --game leduc"))
    block = re.search(r"```\n\$ (solverkit match [^\n]*)\n(.*?)```", text, re.S)
    args = [a.replace("runs/leduc", str(tmp_path / "leduc")) for a in shlex.split(solve)[1:]]
    assert CliRunner().invoke(cli, [*args, "--quiet"]).exit_code == 0
    match = [a.replace("runs/leduc", str(tmp_path / "leduc")) for a in shlex.split(block.group(1))[1:]]
    res = CliRunner().invoke(cli, match)
    assert res.exit_code == 0, res.output

    def numbers(out):
        return [re.sub(r", [0-9.]+ s$", "", line) for line in out.strip().splitlines()[-2:]]

    assert numbers(res.output) == numbers(block.group(2))
