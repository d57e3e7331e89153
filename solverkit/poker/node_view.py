"""What a poker player looks at in a solved spot: one node of the tree, named by the line that
leads to it ("check,bet 94,call,Kd,bet 50%"), with every combo's strategy, reach and EV there.

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


@dataclass
class NodeView:
    """One node: where it is, who acts, the actions, and per combo of the acting player its
    weight reaching the node, action probabilities and EV (chips, NaN where it cannot be there)."""

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

    def summary(self) -> list[tuple[str, float]]:
        """Each action's frequency over the acting player's range at the node."""
        total = float(self.reach.sum())
        if total <= 0:
            return [(a, float("nan")) for a in self.actions]
        policy = np.nan_to_num(self.policy)  # (combos that cannot be here have weight 0)
        return [(a, float(self.reach @ policy[:, i]) / total) for i, a in enumerate(self.actions)]

    def to_json(self) -> dict:
        return {"path": self.path, "node": self.node, "board": self.board, "pot": self.pot, "player": self.player,
                "actions": self.actions, "frequencies": dict(self.summary()),
                "combos": {c: {"weight": float(w), "strategy": dict(zip(self.actions, map(float, p))),
                               "ev": None if np.isnan(e) else float(e)}
                           for c, w, p, e in zip(self.combos, self.reach, self.policy, self.ev) if w > 0}}

    def text(self, limit: int = 60) -> str:
        who = "oop (player 0)" if self.player == 0 else "ip (player 1)"
        lines = [f"node {','.join(self.path) or '(root)'}: board {self.board}, pot {self.pot}, {who} to act",
                 "  " + "  ".join(f"{a} {f:.1%}" for a, f in self.summary())]
        order = np.argsort(-self.reach, kind="stable")
        shown = [i for i in order if self.reach[i] > 0][:limit]
        head = f"  {'combo':6} {'weight':>7} " + " ".join(f"{a:>10}" for a in self.actions) + f" {'EV':>9}"
        lines.append(head)
        for i in shown:
            probs = " ".join(f"{x:>10.3f}" for x in self.policy[i])
            lines.append(f"  {self.combos[i]:6} {self.reach[i]:>7.3f} {probs} {self.ev[i] + 0.0:>9.2f}")
        left = int(np.count_nonzero(self.reach > 0)) - len(shown)
        if left > 0:
            lines.append(f"  ... {left} more combos (--json for all)")
        return "\n".join(lines)


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
        out = np.full(len(hands[p]), -1, dtype=np.int64)
        g0 = None
        inv = np.full(t.num_hands, -1, dtype=np.int64)
        inv[sides[p].rows] = np.arange(len(sides[p].rows))
        for i, h in enumerate(hands[p]):
            if used & {int(h[0]), int(h[1])}:
                continue
            g, u = game.locate(sets, (int(h[0]), int(h[1])))
            out[i] = inv[u]
            g0 = g
        return g0, out

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
        A = int(bet.num_actions[node])
        for i, u in enumerate(idx):
            if u < 0:
                reach[q][i] = 0.0
                continue
            off = game.value_offset(node, g, int(u))
            reach[q][i] *= strategy[q][off + a]
        node = int(bet.children[node, a])
    if bet.kind[node] != DECISION:
        what = {FOLD: "a fold", SHOWDOWN: "a showdown", ROUND_END: "the end of a street (name the card dealt next)"}
        raise ConfigError(f"--node {path!r} ends at {what[int(bet.kind[node])]}, not at a decision")
    q = int(bet.player[node])
    g, idx = where(q)
    A = int(bet.num_actions[node])
    policy = np.full((len(idx), A), np.nan)
    for i, u in enumerate(idx):
        if u >= 0:
            off = game.value_offset(node, g, int(u))
            policy[i] = strategy[q][off: off + A]
    ev = (game.node_values(strategy, node, sets, reach)[q, : len(idx)] if hasattr(game, "node_values") else
          np.full(len(idx), np.nan))
    board = "".join(card_name(c, S, R) for st in sets for c in st)
    from .ranges import combo_name

    return NodeView(tokens, node, board, int(bet.spent[node].sum()) + gd.pot % 2, q, game.action_labels(node),
                    [combo_name(int(c)) for c in combos[q]], reach[q], policy, ev, float(reach[1 - q].sum()))
