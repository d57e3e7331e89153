"""The HTML report's view of a solved spot: per node, a 13x13 hand grid (Pio's layout) whose cells
show the action frequencies of the combos there, hover for each combo's weight, strategy, EV,
equity and EQR; the action summary and both ranges' equity, EV and EQR at the node; and the tree
to walk, each node a foldable section under its parent."""

from __future__ import annotations

import html

import numpy as np

from .node_view import NodeView, _fmt, _pct, node_view
from .ranges import _CELL, combo_index, grid_labels

#: colours of actions: check/call green, fold blue, bets and raises from orange to dark red by size
_PASSIVE, _FOLD = "#5aa469", "#4f81bd"
_AGGRESSIVE = ("#f4a259", "#e76f51", "#c1121f", "#780000")


def _colours(actions: list[str]) -> list[str]:
    out, k = [], 0
    for a in actions:
        if a.startswith(("check", "call")):
            out.append(_PASSIVE)
        elif a == "fold":
            out.append(_FOLD)
        else:
            out.append(_AGGRESSIVE[min(k, len(_AGGRESSIVE) - 1)])
            k += 1
    return out


def grid_html(view: NodeView) -> str:
    """One node's 13x13 grid: each cell's bar splits its combos' weight by action; its title
    (shown on hover) lists the combos with weight, strategy and EV."""
    colours = _colours(view.actions)
    cells: dict[int, list[int]] = {}
    for i, name in enumerate(view.combos):
        if view.reach[i] > 0:
            c = combo_index(*_cards(name))
            cells.setdefault(int(_CELL[c]), []).append(i)
    labels = grid_labels()
    rows = []
    for r in range(13):
        tds = []
        for c in range(13):
            idx = cells.get(r * 13 + c, [])
            label = labels[r][c]
            if not idx:
                tds.append(f'<td class="g0">{label}</td>')
                continue
            w = view.reach[idx]
            freq = np.nan_to_num(view.policy[idx]).T @ w / w.sum()
            bar = "".join(f'<span style="width:{100 * f:.1f}%;background:{col}"></span>'
                          for f, col in zip(freq, colours) if f > 0.0005)
            eqr = view.eqr
            tip = "\n".join(f"{view.combos[i]} w {view.reach[i]:.3f}: " +
                            ", ".join(f"{a} {p:.2f}" for a, p in zip(view.actions, np.nan_to_num(view.policy[i]))) +
                            (f", EV {view.ev[i]:.2f}" if np.isfinite(view.ev[i]) else "") +
                            f", equity {_pct(view.equity[i])}, EQR {_fmt(eqr[i], 2)}" for i in idx)
            tds.append(f'<td title="{html.escape(tip)}"><div class="bar">{bar}</div><b>{label}</b></td>')
        rows.append("<tr>" + "".join(tds) + "</tr>")
    legend = " ".join(f'<span class="key" style="background:{col}"></span>{html.escape(a)} {f:.1%}'
                      for (a, f), col in zip(view.summary(), colours))
    return (f'<p class="legend">{legend}</p><p class="ranges">{html.escape(range_line(view))}</p>'
            f'<table class="grid">{"".join(rows)}</table>')


def range_line(view: NodeView) -> str:
    """Both ranges at the node: equity, EV (chips, from the node on) and EQR ("-": undefined)."""
    who = ("oop", "ip") if view.player == 0 else ("ip", "oop")
    parts = []
    for name, rng in ((who[0], view.range_values()), (who[1], view.opponent)):
        if rng is not None:
            parts.append(f"{name} range: equity {_pct(rng['equity'])}, EV {_fmt(rng['ev'], 2)}, "
                         f"EQR {_fmt(rng['eqr'], 2)}")
    return "; ".join(parts)


def _cards(name: str):
    from .cards import parse_card

    return parse_card(name[:2], 4, 13), parse_card(name[2:], 4, 13)


_STYLE = ("<style>table.grid{border-collapse:collapse}table.grid td{width:46px;height:30px;padding:0;"
          "border:1px solid #ddd;position:relative;font-size:11px;text-align:center;vertical-align:middle}"
          "table.grid td.g0{color:#bbb}table.grid div.bar{position:absolute;left:0;top:0;bottom:0;right:0;"
          "display:flex;opacity:.75}table.grid div.bar span{display:block;height:100%}"
          "table.grid td b{position:relative;font-weight:normal}p.legend span.key{display:inline-block;"
          "width:12px;height:12px;margin:0 3px 0 10px;vertical-align:middle}details{margin-left:1em}"
          "summary{cursor:pointer}</style>")


def spot_report(game, strategy, depth: int = 3, max_nodes: int = 40) -> list[tuple[str, str]]:
    """The report's sections: the tree from the root to `depth` actions on the first street, each
    node a <details> with its grid (at most `max_nodes` nodes)."""
    bet = game.tree.bet
    shown = [0]

    def section(path: list[str], node: int, level: int) -> str:
        view = node_view(game, strategy, ",".join(path))
        who = "oop" if view.player == 0 else "ip"
        head = f"{html.escape(', '.join(path) or 'root')}: {who} to act, pot {view.pot}"
        inner = [grid_html(view)]
        if level < depth:
            for a, label in enumerate(view.actions):
                child = int(bet.children[node, a])
                if bet.kind[child] == 0 and shown[0] < max_nodes:
                    shown[0] += 1
                    inner.append(section(path + [label], child, level + 1))
        opened = " open" if level == 0 else ""
        return f"<details{opened}><summary>{head}</summary>{''.join(inner)}</details>"

    return [("strategy by node (hover a cell for its combos' strategy, EV, equity and EQR; open a node for the "
             "answers to it)",
             _STYLE + section([], 0, 0))]
