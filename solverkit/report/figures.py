"""The plots of ``solverkit report`` (and the log-axis labels the study's figures share): a run's
convergence figure, and a matplotlib figure as PNG bytes. matplotlib is imported only when drawn."""

from __future__ import annotations

import io
import math

from ..core.units import CURRENT, EXPLOITABILITY, plot_unit


def figure_png(fig) -> bytes:
    """A matplotlib figure as PNG bytes (closed afterwards)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


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


def exploitability_axes(ax, xname: str, unit: str) -> None:
    """A panel of exploitability (in `unit`; "" for none) against `xname`: both axes logarithmic,
    the major grid (a run's convergence figure and a study's)."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    tidy_log_axis(ax.xaxis)
    ax.set_xlabel(xname)
    ax.set_ylabel(f"exploitability ({unit})" if unit else "exploitability")
    ax.grid(True, which="major", alpha=0.3)


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
        exploitability_axes(ax, xname, label)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    return fig
