"""``solverkit export RUN --format tree``: a solved spot as a tree of nodes in JSON, each node what
``strategy --node --json`` shows (actions, frequencies, every combo's weight, strategy, EV,
equity and EQR, both ranges' equity, EV and EQR) plus where each action leads.

The spot's first street is exported whole; ``streets`` = k also walks the next k - 1 streets,
after every card that can be dealt (cards as ``node_view`` names them, not merged by suit):
a turn spot's river is 48 cards times its river tree, so deeper exports of flop spots grow fast
(``estimate`` counts the nodes before anything is computed).
"""

from __future__ import annotations

from ..errors import ConfigError
from .betting import DECISION, FOLD, ROUND_END
from .cards import card_name, parse_card

#: node views an export computes before it refuses (a flop spot walked to the river is millions)
MAX_NODES = 20_000


def _dealable(game, used: set[int]) -> list[str]:
    """Names of the cards not on the board (nor dealt on the path), in deck order."""
    gd = game.gd
    return [card_name(c, gd.num_suits, gd.num_ranks) for c in range(gd.num_suits * gd.num_ranks) if c not in used]


def _walk(game, streets: int):
    """(path tokens, node) of every decision node within `streets` streets, depth first, and the
    edges: {path: {action label: child path, or "fold" / "showdown" / "street end"}}."""
    bet = game.tree.bet
    board = {int(c) for c in game.gd.board}
    out = []
    stack = [([], 0, 1, board)]
    while stack:
        path, node, street, used = stack.pop()
        edges: dict = {}
        out.append((path, node, edges))  # (filled below; the children are walked after it)
        for a, label in enumerate(game.action_labels(node)):
            child = int(bet.children[node, a])
            kind = int(bet.kind[child])
            if kind == DECISION:
                edges[label] = ",".join(path + [label])
                stack.append((path + [label], child, street, used))
            elif kind == ROUND_END and street < streets and _next_decision(bet, child) >= 0:
                nxt = _next_decision(bet, child)
                edges[label] = {card: ",".join(path + [label, card]) for card in _dealable(game, used)}
                for card in reversed(list(edges[label])):
                    c = parse_card(card, game.gd.num_suits, game.gd.num_ranks)
                    stack.append((path + [label, card], nxt, street + 1, used | {c}))
            else:  # a street end beyond the export, or an all-in whose runout needs no decision
                edges[label] = ("fold" if kind == FOLD else "showdown" if kind != ROUND_END or streets > street
                                else "street end")
    return out


def _next_decision(bet, end: int) -> int:
    """The next street's first decision after the street end `end`, or -1 (both players all in:
    the cards run out to a showdown)."""
    nxt = int(bet.children[end, 0])
    while int(bet.kind[nxt]) == ROUND_END:
        nxt = int(bet.children[nxt, 0])
    return nxt if int(bet.kind[nxt]) == DECISION else -1


def estimate(game, streets: int) -> int:
    """Decision nodes an export of `streets` streets holds (counted from the betting tree and the
    cards left, nothing computed)."""
    bet = game.tree.bet
    deck = game.gd.num_suits * game.gd.num_ranks - len(game.gd.board)

    def count(node: int, street: int, dealt: int) -> int:
        total = 1
        for a in range(int(bet.num_actions[node])):
            child = int(bet.children[node, a])
            kind = int(bet.kind[child])
            if kind == DECISION:
                total += count(child, street, dealt)
            elif kind == ROUND_END and street < streets and _next_decision(bet, child) >= 0:
                total += (deck - dealt) * count(_next_decision(bet, child), street + 1, dealt + 1)
        return total

    return count(0, 1, 0)


def tree_json(game, strategy, streets: int = 1) -> dict:
    """The export: the spot's settings, then every decision node within `streets` streets."""
    if not hasattr(game, "node_view"):
        raise ConfigError(f"--format tree: game {game.name!r} has no node views (holdem_spot has); use --format json")
    rounds = game.gd.num_rounds
    if not 1 <= streets <= rounds:
        raise ConfigError(f"--streets {streets} is invalid: this spot plays {rounds} street(s) (1 to {rounds})")
    n = estimate(game, streets)
    if n > MAX_NODES:
        raise ConfigError(f"--streets {streets}: the export would hold {n:,} nodes (over {MAX_NODES:,}); "
                          f"export fewer streets")
    gd = game.gd
    nodes = []
    for path, _node, edges in _walk(game, streets):
        view = game.node_view(strategy, ",".join(path)).to_json()
        view["line"] = ",".join(path)
        view["children"] = edges
        nodes.append(view)
    return {"game": game.name, "board": "".join(card_name(int(c), gd.num_suits, gd.num_ranks) for c in gd.board),
            "pot": int(gd.pot), "streets": streets, "nodes": nodes}
