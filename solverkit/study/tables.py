"""A study's tables: results.csv (per run), summary.csv (over the seeds), and the groups and axes plots share."""

from __future__ import annotations

import csv

from .file import Run, Study
from .stats import combine, first_reach, mean, plain

RESULT_COLUMNS = (
    "assembly", "game", "seed", "target", "unit", "iterations_to_target", "seconds_to_target",
    "nodes_to_target", "iterations_run", "final_exploitability", "seconds", "run_dir",
)


#: the x axes of a study's curves: iterations and seconds always, nodes touched where runs record it
X_AXES = (("iteration", "iterations"), ("seconds", "seconds"), ("nodes_touched", "nodes touched"))


def _fmt(value) -> str:
    """A CSV cell: "" for none, else the number written plainly (no 1.01703e+07 for an integer)."""
    return plain(value, 6)


def _result_rows(study, results):
    rows = []
    for run in study.runs:
        res = results[run.slug]
        for target in run.targets:
            hits = {x: first_reach(res.curve(x, target.column), target.value) for x, _ in X_AXES}
            rows.append({
                "assembly": run.assembly, "game": run.game, "seed": run.seed, "target": target.value,
                "unit": target.label, "iterations_to_target": _fmt(hits["iteration"]),
                "seconds_to_target": _fmt(hits["seconds"]), "nodes_to_target": _fmt(hits["nodes_touched"]),
                "iterations_run": res.iterations, "final_exploitability": repr(res.last(target.column)),
                "seconds": _fmt(res.seconds), "run_dir": f"runs/{run.slug}",
            })
    return rows


SUMMARY_COLUMNS = ("assembly", "game", "target", "unit", "seeds", "reached", "mean_iterations", "mean_seconds",
                   "mean_curve_iterations", "mean_curve_seconds")


def groups(study: Study) -> dict[tuple[str, str], list[Run]]:
    """The runs of each (assembly, game), in study order."""
    out: dict[tuple[str, str], list[Run]] = {}
    for run in study.runs:
        out.setdefault((run.assembly, run.game), []).append(run)
    return out


def _summarise(study, results):
    """Per (assembly, game, target): how many seeds reached it, their mean iterations and seconds
    to it (when every seed did), and where the mean over all seeds (``[study] mean``) crosses it."""
    out = []
    for (aname, gname), runs in groups(study).items():
        for target in runs[0].targets:
            row = {"assembly": aname, "game": gname, "target": target.value, "unit": target.label,
                   "seeds": len(runs)}
            reached = 0
            for x, name in (("iteration", "iterations"), ("seconds", "seconds")):
                curves = [results[r.slug].curve(x, target.column) for r in runs]
                hits = [first_reach(c, target.value) for c in curves]
                got = [h for h in hits if h is not None]
                reached = len(got)
                row[f"mean_{name}"] = _fmt(mean(got)) if len(got) == len(runs) else ""
                crossing = next((at for at, gm, _, _ in combine(curves, study.mean) if gm <= target.value), None)
                row[f"mean_curve_{name}"] = _fmt(crossing)
            row["reached"] = f"{reached}/{len(runs)}"
            out.append(row)
    return out


def _write_csv(path, columns, rows):
    import io

    from ..core.atomic import write_text

    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=columns)
    w.writeheader()
    w.writerows(rows)
    write_text(path, buf.getvalue())
