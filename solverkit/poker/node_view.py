"""What a poker player looks at in a solved spot: one node of the tree, named by the line that
leads to it ("check,bet 94,call,Kd,bet 50%"), with every combo's strategy, reach, EV, equity
and EQR there, and the range's.

A path is comma-separated tokens from the root: ``check`` / ``x``, ``call`` / ``c``, ``fold`` /
``f``, ``bet N`` / ``raise N`` (N chips put in this street, or ``N%`` of the pot, matched to the
closest size), ``allin`` / ``a``, and at a street's end the card dealt (``Kd``). Works for any
game of the poker engine whose :meth:`action_labels` read like that (holdem_spot).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from .betting import DECISION, FOLD, ROUND_END, SHOWDOWN
from .cards import card_name, parse_card

_SIZE = re.compile(r"^(bet|raise|b|r)\s*([0-9]+(?:\.[0-9]+)?)\s*(%?)$")


def _num(x) -> float | None:
    """A float for JSON: None for NaN (undefined)."""
    x = float(x)
    return None if np.isnan(x) else x


def eqr(ev, equity, pot: float):
    """Equity realisation, as PioSOLVER and GTO+ define it: EV / (equity x pot), the EV from the
    node on (chips) over the pot share the equity would win at a showdown now; NaN where the
    equity is 0 or either is undefined (NaN)."""
    ev = np.asarray(ev, dtype=np.float64)
    equity = np.asarray(equity, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isfinite(ev) & np.isfinite(equity) & (equity > 0), ev / (equity * float(pot)), np.nan)


@dataclass
class NodeView:
    """One node: where it is, who acts, the actions, and per combo of the acting player its
    weight reaching the node, action probabilities, EV (chips, from the node on), showdown
    equity against the opponent's range as it reaches the node, and EQR (NaN where undefined:
    the combo cannot be there, does not reach the node, or has no equity)."""

    path: list[str]
    node: int
    board: str
    pot: int
    player: int
    actions: list[str]
    combos: list[str]
    reach: np.ndarray  # [combos] the acting player's range weight at the node
    policy: np.ndarray  # [combos, actions]
    ev: np.ndarray  # [combos] chips
    opponent_reach: float  # the opponent's total weight at the node
    equity: np.ndarray | None = None  # [combos] share of the pot at showdown, every runout (0..1)
    mass: np.ndarray | None = None  # [combos] the opponent's weight at the node on combos free of it
    opponent: dict | None = None  # the opponent's range: {"equity", "ev", "eqr"} (floats, NaN: undefined)

    def __post_init__(self):
        if self.equity is None:
            self.equity = np.full(len(self.combos), np.nan)
        if self.mass is None:
            self.mass = np.full(len(self.combos), np.nan)

    @property
    def eqr(self) -> np.ndarray:
        """[combos] EV / (equity x pot at the node); NaN where the combo does not reach the node
        or its equity is 0."""
        ev = np.where(self.reach > 0, self.ev, np.nan)
        return eqr(ev, self.equity, self.pot)

    def range_values(self) -> dict:
        """The acting player's range at the node: ``equity`` and ``ev`` (chips) as means over its
        combos weighted by the deals that reach the node (each combo's weight x the opponent's
        weight on combos free of it, as result.json weighs the root), and ``eqr`` = ev / (equity x
        pot); NaN where nothing reaches."""
        return _range(self.reach, self.mass, self.ev, self.equity, self.pot)

    def summary(self) -> list[tuple[str, float]]:
        """Each action's frequency over the acting player's range at the node."""
        total = float(self.reach.sum())
        if total <= 0:
            return [(a, float("nan")) for a in self.actions]
        policy = np.nan_to_num(self.policy)  # (combos that cannot be here have weight 0)
        return [(a, float(self.reach @ policy[:, i]) / total) for i, a in enumerate(self.actions)]

    def to_json(self) -> dict:
        rng = self.range_values()
        out = {"path": self.path, "node": self.node, "board": self.board, "pot": self.pot, "player": self.player,
               "actions": self.actions, "frequencies": dict(self.summary()),
               "equity": _num(rng["equity"]), "ev": _num(rng["ev"]), "eqr": _num(rng["eqr"])}
        if self.opponent is not None:
            out["opponent"] = {k: _num(v) for k, v in self.opponent.items()}
        out["combos"] = {c: {"weight": float(w), "strategy": dict(zip(self.actions, map(float, p))),
                             "ev": _num(e), "equity": _num(q), "eqr": _num(x)}
                         for c, w, p, e, q, x in zip(self.combos, self.reach, self.policy, self.ev, self.equity,
                                                     self.eqr) if w > 0}
        return out

    def text(self, limit: int = 60) -> str:
        who = "oop (player 0)" if self.player == 0 else "ip (player 1)"
        rng = self.range_values()
        lines = [f"node {','.join(self.path) or '(root)'}: board {self.board}, pot {self.pot}, {who} to act",
                 "  " + "  ".join(f"{a} {f:.1%}" for a, f in self.summary()),
                 f"  range: equity {_pct(rng['equity'])}  EV {_fmt(rng['ev'], 2)}  EQR {_fmt(rng['eqr'], 3)}"
                 + (f"   (opponent: equity {_pct(self.opponent['equity'])}  EV {_fmt(self.opponent['ev'], 2)}  "
                    f"EQR {_fmt(self.opponent['eqr'], 3)})" if self.opponent is not None else "")]
        order = np.argsort(-self.reach, kind="stable")
        shown = [i for i in order if self.reach[i] > 0][:limit]
        head = (f"  {'combo':6} {'weight':>7} " + " ".join(f"{a:>10}" for a in self.actions) +
                f" {'EV':>9} {'equity':>7} {'EQR':>6}")
        lines.append(head)
        eqr_ = self.eqr
        for i in shown:
            probs = " ".join(f"{x:>10.3f}" for x in self.policy[i])
            lines.append(f"  {self.combos[i]:6} {self.reach[i]:>7.3f} {probs} {_fmt(self.ev[i], 2):>9} "
                         f"{_pct(self.equity[i]):>7} {_fmt(eqr_[i], 3):>6}")
        left = int(np.count_nonzero(self.reach > 0)) - len(shown)
        if left > 0:
            lines.append(f"  ... {left} more combos (--json for all)")
        return "\n".join(lines)


def _fmt(x, digits: int) -> str:
    """`x` with `digits` decimals; "-" where undefined (NaN)."""
    x = float(x)
    return "-" if np.isnan(x) else f"{round(x, digits) + 0.0:.{digits}f}"  # (no "-0.00")


def _pct(x) -> str:
    x = float(x)
    return "-" if np.isnan(x) else f"{100.0 * x:.1f}%"


def _range(reach, mass, ev, equity, pot) -> dict:
    """Deal-weighted means (weights reach x mass, over combos where each is defined) of `equity`
    and `ev`, and their EQR."""
    w = np.asarray(reach, dtype=np.float64) * np.nan_to_num(np.asarray(mass, dtype=np.float64))
    out = {}
    for name, x in (("equity", equity), ("ev", ev)):
        k = (w > 0) & np.isfinite(x)
        out[name] = float(np.sum(w[k] * x[k]) / np.sum(w[k])) if k.any() else float("nan")
    out["eqr"] = float(eqr(out["ev"], out["equity"], pot))
    return out


def _match(game, node: int, token: str) -> int:
    """The index of the action `token` names at decision node `node` (ConfigError otherwise)."""
    labels = game.action_labels(node)
    low = token.strip().lower()
    alias = {"x": "check", "c": "call", "f": "fold", "a": "allin", "all-in": "allin", "all in": "allin"}
    low = alias.get(low, low)
    for i, lab in enumerate(labels):
        if lab == low or (low in ("check", "call", "fold") and lab.startswith(low)) or \
                (low == "allin" and lab.startswith("allin")):
            return i
    m = _SIZE.match(low)
    if m:
        bet = game.tree.bet
        base = game._street_base(node)
        pot = 2 * base + game.gd.pot % 2
        facing = bet.spent[node, 0] != bet.spent[node, 1]
        want = float(m.group(2))
        best, gap = -1, None
        for i in range(int(bet.num_actions[node])):
            if bet.actions[node, i] < 2:
                continue
            put = int(bet.amounts[node, i]) - base
            if m.group(3):  # a share of the pot (a raise: of the pot after calling)
                top = int(bet.spent[node].max()) - base
                ref = pot + 2 * top if facing else pot
                have = 100.0 * ((put - top) if facing else put) / ref
            else:
                have = put
            d = abs(have - want)
            if gap is None or d < gap:
                best, gap = i, d
        if best >= 0 and (m.group(3) and gap <= 1.0 or not m.group(3) and gap == 0):
            return best
    raise ConfigError(f"--node: {token.strip()!r} is not an action at this node; valid: {', '.join(labels)} "
                      "(or x, c, f, a; bet N% for a share of the pot)")


def node_view(game, strategy, path: str) -> NodeView:
    """The NodeView of `strategy` (flat per-player policies over game's layout) at `path`."""
    t = game.tree
    bet = t.bet
    gd = game.gd
    S, R = gd.num_suits, gd.num_ranks
    tokens = [x.strip() for x in path.split(",") if x.strip()] if path else []
    sides = [t.side(p) for p in (0, 1)]
    combos = [game.player_combos(p) for p in (0, 1)]
    hands = [s.hands for s in sides]
    sets = [tuple(int(c) for c in gd.board)]
    reach = [game.ranges()[p, combos[p]].astype(np.float64) for p in (0, 1)]
    node = 0
    used = set(sets[0])

    def where(p):
        """(board id, hand index of each of p's hands) on the board dealt so far; -1 on a clash."""
        g, canon = game.board_places(sets)
        return g, canon[p]

    for tok in tokens:
        kind = bet.kind[node]
        if kind == ROUND_END:
            try:
                card = parse_card(tok, S, R)
            except ValueError:
                raise ConfigError(f"--node: {tok!r}: the street ends here: expected the card dealt, e.g. 'Kd'") from None
            if card in used:
                raise ConfigError(f"--node: {tok!r} is already on the board")
            sets.append((card,))
            used.add(card)
            for p in (0, 1):
                reach[p][np.any(np.isin(hands[p], [card]), axis=1)] = 0.0
            node = int(bet.children[node, 0])
            continue
        if kind in (FOLD, SHOWDOWN):
            raise ConfigError(f"--node: {tok!r}: the hand is over at {','.join(tokens[:tokens.index(tok)])}")
        a = _match(game, node, tok)
        q = int(bet.player[node])
        g, idx = where(q)
        ok = idx >= 0
        reach[q][~ok] = 0.0
        if ok.any():
            A = int(bet.num_actions[node])
            reach[q][ok] *= np.asarray(strategy[q])[game.value_offset(node, g, 0) + idx[ok] * A + a]
        node = int(bet.children[node, a])
    if bet.kind[node] != DECISION:
        what = {FOLD: "a fold", SHOWDOWN: "a showdown", ROUND_END: "the end of a street (name the card dealt next)"}
        raise ConfigError(f"--node {path!r} ends at {what[int(bet.kind[node])]}, not at a decision")
    q = int(bet.player[node])
    g, idx = where(q)
    A = int(bet.num_actions[node])
    policy = np.full((len(idx), A), np.nan)
    ok = idx >= 0
    if ok.any():
        policy[ok] = np.asarray(strategy[q])[game.value_offset(node, g, 0) + idx[ok][:, None] * A + np.arange(A)]
    pot = int(bet.spent[node].sum()) + gd.pot % 2
    n_q, n_o = len(hands[q]), len(hands[1 - q])
    opponent = None
    if hasattr(game, "node_values"):
        values = game.node_values(strategy, node, sets, reach)
        equity = game.node_equity(sets, reach)
        mass = game.facing_mass(reach)
        ev, eq_q, mass_q = values[q, :n_q], equity[q, :n_q], mass[q]
        opponent = _range(reach[1 - q], mass[1 - q], values[1 - q, :n_o], equity[1 - q, :n_o], pot)
    else:
        ev = eq_q = mass_q = np.full(n_q, np.nan)
    board = "".join(card_name(c, S, R) for st in sets for c in st)
    from .ranges import combo_name

    return NodeView(tokens, node, board, pot, q, game.action_labels(node),
                    [combo_name(int(c)) for c in combos[q]], reach[q], policy, ev, float(reach[1 - q].sum()),
                    eq_q, mass_q, opponent)
