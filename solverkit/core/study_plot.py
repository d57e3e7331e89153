"""A study's plots: one PNG per game, exploitability against iterations, seconds and (for
samplers) nodes touched, each assembly's geometric mean over all seeds with a min-max band,
the current strategy dashed where it was measured, the targets labelled."""

from __future__ import annotations

from .study_stats import FLOOR, combine
from .units import CURRENT, EXPLOITABILITY


def _current_column(column: str) -> str:
    """The current strategy's column of an output-strategy column (exploitability_mbb -> exploitability_current_mbb)."""
    return CURRENT + column[len(EXPLOITABILITY):]


def _draw(ax, curves, color, label, how, dashed=False):
    """The mean of `curves` (geometric or arithmetic) and, for several, their min-max band."""
    combined = combine(curves, how)
    if not combined:
        return False
    xs = [p[0] for p in combined]
    ax.plot(xs, [max(p[1], FLOOR) for p in combined], color=color, lw=1.2 if dashed else 1.6,
            ls="--" if dashed else "-", label=label)
    if len(curves) > 1 and not dashed:
        ax.fill_between(xs, [max(p[2], FLOOR) for p in combined], [max(p[3], FLOOR) for p in combined],
                        color=color, alpha=0.18, lw=0)
    return True


def plot_study(study, results, out) -> list:
    """Write OUT/<game>.png for every game of the study; returns the paths."""
    import matplotlib.pyplot as plt

    paths = []
    for gname in dict.fromkeys(r.game for r in study.runs):
        fig = game_figure(study, results, gname)
        path = out / f"{gname}.png"
        fig.savefig(path, dpi=120, bbox_inches="tight")
        plt.close(fig)
        paths.append(path)
    return paths


def game_figure(study, results, gname):
    """The figure of one game: a panel per x axis that the runs measured."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .study import X_AXES, groups

    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    assemblies = list(dict.fromkeys(r.assembly for r in study.runs))
    runs_of = {a: rs for (a, g), rs in groups(study).items() if g == gname}
    first = next(iter(runs_of.values()))[0]
    column, unit, factor = first.axis
    axes = [(x, name) for x, name in X_AXES
            if any(results[r.slug].curve(x, column) for rs in runs_of.values() for r in rs)]
    fig, panels = plt.subplots(1, len(axes), figsize=(5.2 * len(axes), 4.4), squeeze=False)
    for (x, xname), ax in zip(axes, panels[0]):
        for i, aname in enumerate(assemblies):
            runs = runs_of.get(aname)
            if not runs:
                continue
            color = colors[i % len(colors)]
            n = len(runs)
            label = aname + (f" ({study.mean} mean of {n} seeds, band min-max)" if n > 1 else "")
            _draw(ax, [results[r.slug].curve(x, column) for r in runs], color, label, study.mean)
            current = [results[r.slug].curve(x, _current_column(column)) for r in runs]
            if any(current):
                _draw(ax, current, color, f"{aname}: current strategy", study.mean, dashed=True)
        for target in first.targets:
            if target.column != column and target.unit:
                continue  # a target in another display unit than the axis
            at = target.value if target.column == column else target.value * factor
            ax.axhline(at, color="grey", ls=":", lw=0.8)
            ax.annotate(f"target {target.text()}", xy=(0.01, at), xycoords=("axes fraction", "data"),
                        xytext=(0, 2), textcoords="offset points", fontsize=7, color="dimgrey")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xname)
        ax.set_ylabel(f"exploitability ({unit})" if unit else "exploitability")
        ax.grid(True, which="major", alpha=0.3)
    handles, labels = panels[0][0].get_legend_handles_labels()
    # one legend for all panels, below them, so that it never hides a curve
    panels[0][0].legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.16),
                        ncol=min(3, max(1, len(labels))), frameon=False)
    fig.suptitle(f"{study.name}: {gname}")
    fig.tight_layout()
    return fig
