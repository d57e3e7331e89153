"""A study's plots: per game, exploitability against iterations, seconds and (for samplers)
nodes touched, each assembly's mean over all seeds with a 95% confidence band of the mean and
a lighter min-max band, the current strategy dashed where it was measured, the targets
labelled, the y axis in the game's unit. Each figure is written as PNG and SVG, and the plotted
numbers as ``<game>_curves.csv``, so that a figure can be redrawn or checked without the runs."""

from __future__ import annotations

import csv
from pathlib import Path

from ..core.units import CURRENT, EXPLOITABILITY
from .stats import FLOOR, bands, plain
from .tables import X_AXES, groups

#: the files a study writes per game: plots and the numbers they show
FIGURE_FORMATS = ("png", "svg")
CURVE_COLUMNS = ("assembly", "strategy", "x_axis", "x", "mean", "ci_low", "ci_high", "min", "max", "seeds", "unit")


def _current_column(column: str) -> str:
    """The current strategy's column of an output-strategy column (exploitability_mbb -> exploitability_current_mbb)."""
    return CURRENT + column[len(EXPLOITABILITY):]


def drawn_low(band) -> float:
    """Where a log axis draws the confidence band's lower edge: the interval's own bound, or,
    when that is not positive (an arithmetic mean's interval can reach below 0), the smallest
    seed's value, so the axis is not stretched to 1e-300 (the CSV keeps the real bound)."""
    return band.ci_low if band.ci_low > 0 else max(band.min, FLOOR)


def _draw(ax, combined, color, label, dashed=False):
    """The mean of a curve's seeds and, for several seeds, the 95% confidence band of the mean
    (darker) inside the min-max band (lighter)."""
    if not combined:
        return False
    xs = [b.x for b in combined]
    ax.plot(xs, [max(b.mean, FLOOR) for b in combined], color=color, lw=1.2 if dashed else 1.6,
            ls="--" if dashed else "-", label=label)
    if combined[0].seeds > 1 and not dashed:
        ax.fill_between(xs, [max(b.min, FLOOR) for b in combined], [max(b.max, FLOOR) for b in combined],
                        color=color, alpha=0.12, lw=0)
        ax.fill_between(xs, [drawn_low(b) for b in combined], [max(b.ci_high, FLOOR) for b in combined],
                        color=color, alpha=0.30, lw=0)
    return True


def _draw_reference(ax, reference, gname, aname, run, color) -> None:
    """The reference's values of one assembly on one game as open markers on the iterations
    panel, in the axis's unit (a reference in another display unit than the axis is not drawn)."""
    if reference is None:
        return
    points = [p for p in reference.points if p.game == gname and p.assembly == aname]
    column, _, factor = run.axis
    if not points or (reference.unit and f"{EXPLOITABILITY}_{reference.unit}" != column):
        return
    scale = (1.0 if reference.unit else factor) / (run.players if reference.measure == "nash_conv" else 1)
    xs = [p.iteration for p in points]
    ys = [p.value * scale for p in points]
    if any(p.low is not None for p in points):
        lows = [(p.value - (p.low if p.low is not None else p.value)) * scale for p in points]
        highs = [((p.high if p.high is not None else p.value) - p.value) * scale for p in points]
        ax.errorbar(xs, ys, yerr=[lows, highs], fmt="none", ecolor=color, elinewidth=0.8, capsize=2)
    ax.plot(xs, ys, ls="none", marker="o", mfc="none", mec=color, ms=6, label=f"{aname}: reference")


def plot_study(study, results, out) -> list:
    """Write OUT/<game>.png, OUT/<game>.svg and OUT/<game>_curves.csv for every game of the
    study; returns the paths."""
    import io

    import matplotlib.pyplot as plt

    from ..core.atomic import write_bytes

    paths = []
    for gname in dict.fromkeys(r.game for r in study.runs):
        curves = game_curves(study, results, gname)
        fig = game_figure(study, results, gname, curves)
        # the legend is left out of the layout (so the panels keep their width) but not out of the file
        extra = fig.get_default_bbox_extra_artists() + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
        for fmt in FIGURE_FORMATS:
            path = Path(out) / f"{gname}.{fmt}"
            buf = io.BytesIO()
            with plt.rc_context({"svg.fonttype": "none"}):  # SVG text stays text: searchable, editable
                fig.savefig(buf, format=fmt, dpi=120, bbox_inches="tight", bbox_extra_artists=extra)
            write_bytes(path, buf.getvalue())
            paths.append(path)
        plt.close(fig)
        paths.append(write_curves(Path(out) / f"{gname}_curves.csv", curves, study_unit(study, gname)))
    return paths


def study_unit(study, gname) -> str:
    """The unit of a game's y axis (mbb/g for poker, the game's own unit otherwise)."""
    return next(r for r in study.runs if r.game == gname).axis[1]


def game_curves(study, results, gname) -> dict:
    """{(assembly, "average" | "current", x axis): [Band, ...]} of one game: what its figure
    draws, per assembly, over all its seeds."""
    out = {}
    runs_of = {a: rs for (a, g), rs in groups(study).items() if g == gname}
    for aname, runs in runs_of.items():
        column = runs[0].axis[0]
        for x, _ in X_AXES:
            for strategy, col in (("average", column), ("current", _current_column(column))):
                combined = bands([results[r.slug].curve(x, col) for r in runs], study.mean)
                if combined:
                    out[(aname, strategy, x)] = combined
    return out


def write_curves(path: Path, curves: dict, unit: str) -> Path:
    """The plotted means and bands as CSV, one row per point (numbers written plainly: whole
    numbers as integers, others in full precision); replaced atomically."""
    import io

    from ..core.atomic import write_text

    buf = io.StringIO(newline="")
    w = csv.writer(buf)
    w.writerow(CURVE_COLUMNS)
    for (aname, strategy, x), combined in curves.items():
        for b in combined:
            w.writerow([aname, strategy, x, plain(b.x), plain(b.mean), plain(b.ci_low), plain(b.ci_high),
                        plain(b.min), plain(b.max), b.seeds, unit])
    write_text(path, buf.getvalue())
    return path


def game_figure(study, results, gname, curves=None):
    """The figure of one game: a panel per x axis that the runs measured."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..report.figures import exploitability_axes
    if curves is None:
        curves = game_curves(study, results, gname)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    assemblies = list(dict.fromkeys(r.assembly for r in study.runs))
    runs_of = {a: rs for (a, g), rs in groups(study).items() if g == gname}
    first = next(iter(runs_of.values()))[0]
    column, unit, factor = first.axis
    axes = [(x, name) for x, name in X_AXES if any(key[2] == x for key in curves)] or [X_AXES[0]]
    fig, panels = plt.subplots(1, len(axes), figsize=(5.2 * len(axes), 4.4), squeeze=False)
    for (x, xname), ax in zip(axes, panels[0]):
        for i, aname in enumerate(assemblies):
            runs = runs_of.get(aname)
            if not runs:
                continue
            color = colors[i % len(colors)]
            n = len(runs)
            label = aname + (f" ({study.mean} mean of {n} seeds; bands: 95% CI of the mean, min-max)" if n > 1 else "")
            _draw(ax, curves.get((aname, "average", x)), color, label)
            if (aname, "current", x) in curves:
                _draw(ax, curves[(aname, "current", x)], color, f"{aname}: current strategy", dashed=True)
            if x == "iteration":
                _draw_reference(ax, study.reference, gname, aname, runs[0], color)
        for target in first.targets:
            if target.column != column and target.unit:
                continue  # a target in another display unit than the axis
            at = target.value if target.column == column else target.value * factor
            ax.axhline(at, color="grey", ls=":", lw=0.8)
            ax.annotate(f"target {target.text()}", xy=(0.01, at), xycoords=("axes fraction", "data"),
                        xytext=(0, 2), textcoords="offset points", fontsize=7, color="dimgrey")
        if not curves:  # every run stopped before its first evaluation: an empty panel that says so
            ax.text(0.5, 0.5, "no evaluations recorded", transform=ax.transAxes, ha="center", color="dimgrey")
        exploitability_axes(ax, xname, unit)
    handles, labels = panels[0][0].get_legend_handles_labels()
    # one legend for all panels, below them, so that it never hides a curve
    legend = panels[0][0].legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.16),
                                 ncol=min(3, max(1, len(labels))), frameon=False)
    legend.set_in_layout(False)  # the panels keep their width (plot_study saves the legend with them)
    title = f"{study.name}: {gname}"
    if study.reference is not None and any(p.game == gname for p in study.reference.points):
        title += f"\n(circles: {study.reference.source})"
    fig.suptitle(title)
    fig.tight_layout()
    return fig
