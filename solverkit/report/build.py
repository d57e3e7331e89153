"""``solverkit report RUN``: one self-contained HTML page about a solve (no server, no
external file: plots are inline PNG): the assembly, convergence against iterations and
seconds, the strategy at chosen decisions (the game's :meth:`report_strategy`), store and
memory figures.

Its parts: run_files.py (reading result.json and metrics.csv, checked), texts.py (the summary
lines), figures.py (the convergence plot); a game's strategy views use core/html_table.py."""

from __future__ import annotations

import base64
import html
from pathlib import Path

from ..core.atomic import write_text
from ..core.html_table import table
from ..core.units import units_of
from .figures import convergence_figure, figure_png
from .run_files import check_result_game, check_rows_match, read_metrics, read_result
from .texts import byte_text, game_text, plain_seconds, preset_text, run_targets, stop_text

#: above this many policy values the strategy section is left out (the page stays small)
STRATEGY_LIMIT = 50_000_000


def png_tag(data: bytes, alt: str) -> str:
    """An <img> with the PNG inline."""
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'


def build_report(run_dir) -> str:
    """The HTML page of the solve in `run_dir` (its config.toml, metrics.csv, result.json and
    strategy.npz; the strategy section is left out, saying why, when the file is missing)."""
    from ..core.config import load_config
    from ..core.strategy_file import load_strategy

    run = Path(run_dir)
    if not (run / "config.toml").is_file():
        from ..core.run_dir import not_a_run

        raise not_a_run(run, run / "config.toml")
    assembly = load_config(run / "config.toml")
    game = assembly.game
    result = read_result(run)
    check_result_game(run, result, game)
    rows = read_metrics(run)
    check_rows_match(run, rows, result)
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
    store = [(name, byte_text(result[k]) if fmt is None else fmt.format(result[k]))
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
