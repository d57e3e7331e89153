"""``solverkit report RUN``: one self-contained HTML page about a solve (no server, no
external file: plots are inline PNG): the assembly, convergence against iterations and
seconds, the strategy at chosen decisions (the game's :meth:`report_strategy`), store and
memory figures."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
from pathlib import Path

from ..errors import SolverkitError
from .atomic import write_text
from .units import CURRENT, EXPLOITABILITY, plot_unit, units_of

#: above this many policy values the strategy section is left out (the page stays small)
STRATEGY_LIMIT = 50_000_000


def png_tag(data: bytes, alt: str) -> str:
    """An <img> with the PNG inline."""
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'


def figure_png(fig) -> bytes:
    """A matplotlib figure as PNG bytes (closed afterwards)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def table(headers, rows) -> str:
    """An HTML table of escaped cells (no header row for headers None)."""
    head = "" if headers is None else "<thead><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in headers) + "</tr></thead>"
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{head}<tbody>{body}</tbody></table>"


def _result(run: Path) -> dict:
    """RUN/result.json as a dict ({} when there is none), or a SolverkitError naming the file and
    what is wrong: not UTF-8 JSON, not an object, or a number field that holds something else."""
    path = run / "result.json"
    if not path.is_file():
        return {}
    from .run_dir import RESULT_LIMIT

    if path.stat().st_size > RESULT_LIMIT:
        raise SolverkitError(f"{path} is damaged: {path.stat().st_size} bytes, past the {RESULT_LIMIT >> 20} MiB a "
                             "result.json can have; solve again or remove it")
    try:
        result = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:120]
        raise SolverkitError(f"{path} is damaged: not JSON text ({why}); solve again or remove it") from None
    if not isinstance(result, dict):
        raise SolverkitError(f"{path} is damaged: a JSON {type(result).__name__}, expected an object of run results")
    for key, value in result.items():
        if (key in NUMBER_FIELDS or key.startswith("exploitability")) and value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float))):
            raise SolverkitError(f"{path} is damaged: {key} = {value!r:.60}, expected a number")
    return result


#: result.json fields the report formats as numbers
NUMBER_FIELDS = ("iterations", "seconds", "stored_bytes", "compression_ratio", "peak_rss_mb", "startup_seconds",
                 "saturated_values", "worker_peak_rss_mb")


def _metrics(run: Path) -> list[dict]:
    path = run / "metrics.csv"
    if not path.is_file():
        return []
    from .run_dir import LongLine, bounded_lines

    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(bounded_lines(fh)))
    except (UnicodeDecodeError, csv.Error, LongLine) as exc:
        raise SolverkitError(f"{path} is damaged: {' '.join(str(exc).split())[:120]}; expected the CSV text a solve "
                             "writes") from None
    with open(path, "rb") as fh:
        torn = fh.seek(0, 2) > 0 and not (fh.seek(-1, 2), fh.read(1))[1] == b"\n"
    short = next((i for i, row in enumerate(rows) if None in row or None in row.values()), None)
    if torn or short is not None:
        where = "its last line is cut short" if torn else f"row {short + 1} has {'more' if None in rows[short] else 'fewer'} fields than the header"
        raise SolverkitError(f"{path} is damaged: {where}; solve again, or resume the run to rewrite it")
    out = []
    for row in rows:
        parsed = {}
        for k, v in row.items():
            try:
                parsed[k] = float(v)
            except (TypeError, ValueError):
                continue
        out.append(parsed)
    return out


def run_targets(game, solver: dict) -> list[tuple[float, str]]:
    """The run's exploitability targets as (native value, text in the unit it was given), from
    its resolved ``[solver]`` table (``target`` and every ``target_<unit key>``; 0 means none)."""
    out = []
    native = float(solver.get("target", 0.0) or 0.0)
    if native > 0:
        out.append((native, f"{native:g} {getattr(game, 'unit_name', '')}".strip()))
    for u in units_of(game):
        value = float(solver.get(u.target_key, 0.0) or 0.0)
        if value > 0:
            out.append((value / u.factor, f"{value:g} {u.name}"))
    return out


def tidy_log_axis(axis) -> None:
    """Readable labels on a log axis: where it shows two or more powers of ten only those are
    labelled (matplotlib also labels minor ticks on short ranges, and their labels run into
    each other); on a shorter range the 2s and 5s between them as well, written briefly."""
    from matplotlib.ticker import FuncFormatter

    def minor(value, _pos):
        lo, hi = sorted(axis.get_view_interval())
        if lo <= 0 or value <= 0 or math.floor(math.log10(hi)) - math.ceil(math.log10(lo)) >= 1:
            return ""
        mantissa = value / 10 ** math.floor(math.log10(value) + 1e-9)
        return f"{value:g}" if min(abs(mantissa - 2), abs(mantissa - 5)) < 1e-6 else ""

    axis.set_minor_formatter(FuncFormatter(minor))


#: x axes of a run's convergence plot: (metrics column, axis label with its unit)
RUN_X_AXES = (("iteration", "iterations"), ("seconds", "solve time (s)"), ("nodes_touched", "nodes touched"))


def convergence_figure(game, rows, targets):
    """Exploitability against iterations, seconds (and nodes touched, when measured), in the
    game's first display unit, with a dotted line at each target (native value, text)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    column, label, factor = plot_unit(game)
    current = CURRENT + column[len(EXPLOITABILITY):]
    xs = [(x, name) for x, name in RUN_X_AXES if x != "nodes_touched" or any(r.get(x) for r in rows)]
    fig, axes = plt.subplots(1, len(xs), figsize=(5.0 * len(xs), 3.8), squeeze=False)
    for (x, xname), ax in zip(xs, axes[0]):
        for col, name, style in ((column, "average strategy", "-"), (current, "current strategy", "--")):
            pts = [(r[x], r[col]) for r in rows if x in r and col in r and r[x] > 0 and math.isfinite(r[col])]
            if pts:
                ax.plot([p[0] for p in pts], [max(p[1], 1e-300) for p in pts], ls=style, label=name)
        for native, text in targets:
            ax.axhline(native * factor, color="grey", ls=":", lw=0.9, label=f"target {text}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        tidy_log_axis(ax.xaxis)
        ax.set_xlabel(xname)
        ax.set_ylabel(f"exploitability ({label})" if label else "exploitability")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def matching_presets(assembly) -> list[str]:
    """The registered presets whose rule, averaging (parameters included) and update order are
    the run's: its config.toml holds what a preset resolved to, not the preset's name."""
    from .params import spec_of
    from .presets import SECTIONS
    from .registry import get_registry

    reg = get_registry()
    out = []
    for name, preset in reg.presets.items():
        if preset.update != assembly.solver.get("update"):
            continue
        same = True
        for section in SECTIONS:
            table, ran = preset.table(section), assembly.resolved.get(section, {})
            if table["name"] != ran.get("name"):
                same = False
                break
            try:
                params = spec_of(reg.get(section, table["name"])).resolve(table, f"[{section}]")
            except SolverkitError:
                same = False
                break
            if {k: v for k, v in params.items() if v is not None} != {k: v for k, v in ran.items() if k != "name"}:
                same = False
                break
        if same:
            out.append(name)
    return out


def game_text(assembly) -> str:
    """``openspiel (game='kuhn_poker')``: the game's name and the parameters it was given other
    than their defaults (the resolved config.toml lists every parameter)."""
    from .params import spec_of

    table = assembly.resolved.get("game", {})
    params = spec_of(type(assembly.game)).params
    given = [f"{k}={v!r}" for k, v in table.items()
             if k != "name" and (k not in params or params[k].default != v)]
    return assembly.game.name + (f" ({', '.join(given)})" if given else "")


def preset_text(assembly) -> str:
    """``cfr_plus (rule rm_plus, averaging linear, alternating updates)``, or what the run
    combines when no registered preset is exactly it; a sampled run names its sampler too (a
    preset's passes are full ones)."""
    ran = (f"rule {assembly.resolved['rule']['name']}, averaging {assembly.resolved['averaging']['name']}, "
           f"{assembly.solver.get('update', '?')} updates")
    sampler = (assembly.resolved.get("sampler") or {}).get("name", "full")
    if sampler != "full":
        ran += f", sampler {sampler}"
    names = matching_presets(assembly)
    return f"{' = '.join(names)} ({ran})" if names else f"none: a custom assembly ({ran})"


def stop_text(result: dict, targets, solver: dict) -> str:
    """Why the run stopped: its target reached, an interruption, the time limit, or the
    iteration cap (before the target, or of a run with no target)."""
    done, cap = result.get("iterations", "?"), solver.get("iterations", "?")
    limit = float(solver.get("time_limit", 0.0) or 0.0)
    if result.get("interrupted"):
        return f"interrupted at iteration {done}"
    if targets and result.get("reached_target"):
        return f"target reached at iteration {done}"
    if limit and isinstance(done, int) and done < cap and result.get("seconds", 0.0) >= limit:
        return f"time limit ({limit:g} s) reached at iteration {done}" + (" before the target" if targets else "")
    if targets:
        return f"iteration cap ({cap}) reached before the target"
    return f"ran {done} of {cap} iterations (no target)"


def plain_seconds(value) -> str:
    """Seconds as a reader wants them: 1,047 or 0.00473, never 1.05e+03; "?" when unknown."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "?"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _fmt_bytes(n) -> str:
    n = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.1f} TB"


def _check_result_game(run: Path, result: dict, game) -> None:
    """Raise unless RUN/result.json was written for the game of RUN/config.toml (its game_id;
    a result of an older solverkit has none and is shown as it is)."""
    from .identity import ID_FIELD, game_identity

    theirs = result.get(ID_FIELD)
    if theirs is not None and theirs != game_identity(game):
        raise SolverkitError(f"{run / 'result.json'} belongs to another game: game_id {str(theirs)[:12]!r}..., not "
                             f"game {game.name!r} of {run / 'config.toml'} (game_id {game_identity(game)[:12]!r}...); "
                             "use the files of one run together, or solve this game again")


def _check_rows_match(run: Path, rows: list[dict], result: dict) -> None:
    """Raise unless RUN/metrics.csv ends at the iteration RUN/result.json reports, its iterations
    rising: a metrics.csv cut short, of another run, or of a resumed run stopped before its end
    (which writes result.json last) would draw a curve that is not the reported run's."""
    if not result or not rows:
        return
    its = [r.get("iteration") for r in rows]
    last = result.get("iterations")
    if None in its or any(b <= a for a, b in zip(its, its[1:])):
        raise SolverkitError(f"{run / 'metrics.csv'} is damaged: its iteration column is not rising row by row; "
                             "solve again, or resume the run to rewrite it")
    if last is not None and its[-1] != last:
        raise SolverkitError(f"{run / 'metrics.csv'} ends at iteration {its[-1]:.0f} but {run / 'result.json'} "
                             f"reports iteration {last}: the files are of different runs, metrics.csv was cut "
                             "short, or a resumed run stopped before its end (resume it again to finish it)")


def build_report(run_dir) -> str:
    """The HTML page of the solve in `run_dir` (its config.toml, metrics.csv, result.json and
    strategy.npz; the strategy section is left out, saying why, when the file is missing)."""
    from .config import load_config
    from .strategy_file import load_strategy

    run = Path(run_dir)
    if not (run / "config.toml").is_file():
        from .run_dir import not_a_run

        raise not_a_run(run, run / "config.toml")
    assembly = load_config(run / "config.toml")
    game = assembly.game
    result = _result(run)
    _check_result_game(run, result, game)
    rows = _metrics(run)
    _check_rows_match(run, rows, result)
    targets = run_targets(game, assembly.solver)
    parts = [f"<h1>{html.escape(run.name)}: {html.escape(game.name)}</h1>"]
    summary = [("game", game_text(assembly)), ("preset", preset_text(assembly)),
               ("target", ", ".join(text for _, text in targets) if targets else "none"),
               ("iterations", result.get("iterations", "?")),
               ("strategy", result.get("strategy", "?")), ("solve seconds", plain_seconds(result.get("seconds")))]
    if "exploitability" in result:
        native = getattr(game, "unit_name", "")
        summary.append(("exploitability", f"{result['exploitability']:.6g} {native}".strip()))
        for u in units_of(game):
            if u.column in result:
                summary.append((f"exploitability ({u.name})", f"{result[u.column]:.4g}"))
    summary.append(("stopped", stop_text(result, targets, assembly.solver)
                    if result else "no result.json: the run did not finish"))
    parts += ["<h2>Summary</h2>", table(None, summary)]
    parts += ["<h2>Assembly</h2>", f"<pre>{html.escape((run / 'config.toml').read_text())}</pre>"]
    parts.append("<h2>Convergence</h2>")
    if rows:
        parts.append(png_tag(figure_png(convergence_figure(game, rows, targets)),
                             "exploitability against iterations and seconds"))
    else:
        parts.append("<p>no metrics.csv rows</p>")
    parts.append("<h2>Strategy</h2>")
    size = sum(game.layout(p).size for p in (0, 1))
    if not (run / "strategy.npz").is_file():
        parts.append("<p>no strategy.npz in the run directory</p>")
    elif size > STRATEGY_LIMIT:
        parts.append(f"<p>{size:,} policy values: too many for this page (query them with the Python API)</p>")
    else:
        strategy, _, meta = load_strategy(run / "strategy.npz", game, str(run / "config.toml"))
        parts.append(f"<p>{html.escape(meta['kind'])} strategy after {meta['iteration']} iterations</p>")
        for title, content in game.report_strategy(strategy):
            parts.append(f"<h3>{html.escape(title)}</h3>")
            parts.append(png_tag(content, title) if isinstance(content, bytes) else content)
    parts.append("<h2>Store and memory</h2>")
    shown = {"store_kind": ("store", "{}"), "stored_bytes": ("stored bytes", None),
             "compression_ratio": ("compression ratio against 4-byte floats", "{:.2f}:1"),
             "saturated_values": ("fixed-point values clipped", "{:,}"), "peak_rss_mb": ("peak memory (RSS)", "{:.0f} MB"),
             "worker_peak_rss_mb": ("largest worker's peak memory", "{:.0f} MB"), "recoveries": ("recoveries", "{}")}
    store = [(name, _fmt_bytes(result[k]) if fmt is None else fmt.format(result[k]))
             for k, (name, fmt) in shown.items() if result.get(k) not in (None, "")]
    parts.append(table(None, store) if store else "<p>no store figures in result.json</p>")
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;"
             "text-align:right}th{background:#f3f3f3}pre{background:#f6f6f6;padding:.5em;overflow:auto}"
             "img{max-width:100%}")
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>solverkit report: "
            f"{html.escape(run.name)}</title><style>{style}</style></head><body>{''.join(parts)}</body></html>\n")


def write_report(run_dir, output=None) -> Path:
    """Write the page to `output` (default RUN_DIR/report.html)."""
    path = Path(output) if output else Path(run_dir) / "report.html"
    write_text(path, build_report(run_dir))
    return path
