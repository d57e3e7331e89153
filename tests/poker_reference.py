"""Slow, obviously-correct references for the poker engine: explicit game trees over all deals.

Everything here walks histories one by one (no hand vectors, no public tree), so it shares no
code path with the kernels beyond the betting tree and the hand evaluator.
"""

from __future__ import annotations

import itertools

import numpy as np

from solverkit.poker.betting import DECISION, FOLD, ROUND_END, SHOWDOWN


def deals(gd):
    """Every (hand0, hand1, boards per round) deal with its probability."""
    D, k = gd.deck_size, gd.num_hole_cards
    out = []

    def boards(used, r, acc):
        if r == gd.num_rounds:
            yield acc
            return
        rest = [c for c in range(D) if c not in used]
        for combo in itertools.combinations(rest, gd.num_board_cards[r]):
            yield from boards(used | set(combo), r + 1, acc + [combo])

    for h0 in itertools.combinations(range(D), k):
        for h1 in itertools.combinations([c for c in range(D) if c not in h0], k):
            bs = list(boards(set(h0) | set(h1), 0, []))
            for b in bs:
                out.append((h0, h1, b))
    p = 1.0 / len(out)
    return [(d, p) for d in out]


def payoff(gd, bet, node, deal, rank):
    """Player 0's payoff at a terminal node for a deal."""
    h0, h1, boards = deal
    if bet.kind[node] == FOLD:
        return -bet.spent[node, 0] if bet.player[node] == 0 else bet.spent[node, 1]
    board = [c for b in boards for c in b]
    r0, r1 = rank(list(h0) + board), rank(list(h1) + board)
    return bet.spent[node, 0] * (1 if r0 > r1 else -1 if r0 < r1 else 0)


def infoset_key(bet, node, deal, p):
    h = deal[p]
    r = bet.round[node]
    board = tuple(c for b in deal[2][: r + 1] for c in b)
    return (h, board, bet.history[node])


def expected_value(gd, bet, policy, rank):
    """Player 0's expected payoff when both follow policy(p, key) -> action probabilities."""
    total = 0.0
    for deal, pr in deals(gd):
        total += pr * _ev(bet, 0, deal, policy, gd, rank)
    return total


def _ev(bet, n, deal, policy, gd, rank):
    kind = bet.kind[n]
    if kind in (FOLD, SHOWDOWN):
        return payoff(gd, bet, n, deal, rank)
    if kind == ROUND_END:
        return _ev(bet, bet.children[n, 0], deal, policy, gd, rank)
    p = bet.player[n]
    probs = policy(p, infoset_key(bet, n, deal, p), n)
    return sum(probs[a] * _ev(bet, bet.children[n, a], deal, policy, gd, rank) for a in range(bet.num_actions[n]))


def best_response_value(gd, bet, policy, rank, br):
    """Value for player `br` of a best response to the other player's policy, by brute force:
    every history of every deal is listed with the opponent's and chance's reach, and the best
    action of each information set is chosen bottom-up (perfect recall)."""
    histories = {}  # infoset key -> list of (node, deal, reach of opponent and chance)

    def collect(n, deal, reach):
        kind = bet.kind[n]
        if kind in (FOLD, SHOWDOWN):
            return
        if kind == ROUND_END:
            collect(bet.children[n, 0], deal, reach)
            return
        p = bet.player[n]
        if p == br:
            histories.setdefault(infoset_key(bet, n, deal, p), []).append((n, deal, reach))
            for a in range(bet.num_actions[n]):
                collect(bet.children[n, a], deal, reach)
        else:
            probs = policy(p, infoset_key(bet, n, deal, p), n)
            for a in range(bet.num_actions[n]):
                collect(bet.children[n, a], deal, reach * probs[a])

    all_deals = deals(gd)
    for deal, pr in all_deals:
        collect(0, deal, pr)
    sign = 1.0 if br == 0 else -1.0
    choice = {}

    def value(n, deal):  # value for br of the history, br playing its chosen actions
        kind = bet.kind[n]
        if kind in (FOLD, SHOWDOWN):
            return sign * payoff(gd, bet, n, deal, rank)
        if kind == ROUND_END:
            return value(bet.children[n, 0], deal)
        p = bet.player[n]
        if p == br:
            return value(bet.children[n, best(infoset_key(bet, n, deal, p))], deal)
        probs = policy(p, infoset_key(bet, n, deal, p), n)
        return sum(probs[a] * value(bet.children[n, a], deal) for a in range(bet.num_actions[n]))

    def best(key):
        if key not in choice:
            hs = histories[key]
            A = bet.num_actions[hs[0][0]]
            vals = [sum(w * value(bet.children[n, a], d) for n, d, w in hs) for a in range(A)]
            choice[key] = int(np.argmax(vals))
        return choice[key]

    total = 0.0
    for deal, pr in all_deals:
        total += pr * value(0, deal)
    return total


def policy_from_flat(game, strategy):
    """policy(p, key, node) reading a solverkit flat strategy (unsplit layout, raw boards)."""
    t = game.tree
    hand_index = {tuple(int(c) for c in row): i for i, row in enumerate(t.hands)}
    board_index = {tuple(t.boards.cards[g, : t.boards.num_cards[g]]): g for g in range(int(t.boards.round_start[-1]))}

    def policy(p, key, node):
        hand, board, _ = key
        g = board_index[tuple(board)]
        A = int(t.bet.num_actions[node])
        off = game.value_offset(node, g, hand_index[tuple(hand)])
        return strategy[p][off : off + A]

    return policy


def cfr_update(gd, bet, policy, rank, i):
    """One full CFR update for player i, history by history: {key: regret delta} with, summed
    over the histories of each information set, deal probability x opponent reach x (v_a - v)
    in i's utility; and {key: the opponent's average contribution}, its own reach x policy
    (the same in every history of its information set, by perfect recall)."""
    sign = 1.0 if i == 0 else -1.0
    delta, avg = {}, {}

    def walk(n, deal, pc, r_o):  # player 0's value of the history; r_o: the opponent's reach
        kind = bet.kind[n]
        if kind in (FOLD, SHOWDOWN):
            return payoff(gd, bet, n, deal, rank)
        if kind == ROUND_END:
            return walk(bet.children[n, 0], deal, pc, r_o)
        p = bet.player[n]
        key = infoset_key(bet, n, deal, p)
        probs = np.asarray(policy(p, key, n), dtype=np.float64)
        A = int(bet.num_actions[n])
        if p == i:
            vals = np.array([walk(bet.children[n, a], deal, pc, r_o) for a in range(A)])
            ev = float(probs @ vals)
            delta[key] = delta.get(key, np.zeros(A)) + sign * pc * r_o * (vals - ev)
            return ev
        avg[key] = r_o * probs
        vals = np.array([walk(bet.children[n, a], deal, pc, r_o * probs[a]) for a in range(A)])
        return float(probs @ vals)

    for deal, pr in deals(gd):
        walk(0, deal, pr, 1.0)
    return delta, avg


def flat_of(game, table, p):
    """Player p's flat array (unsplit layout, raw boards) from {(hand, board, betting): values}."""
    t = game.tree
    hand_index = {tuple(int(c) for c in row): i for i, row in enumerate(t.hands)}
    board_index = {tuple(t.boards.cards[g, : t.boards.num_cards[g]]): g for g in range(int(t.boards.round_start[-1]))}
    node_of = {t.bet.history[n]: n for n in range(t.bet.num_nodes) if t.bet.kind[n] == DECISION}
    out = np.zeros(game.layout(p).size)
    for (hand, board, history), values in table.items():
        off = game.value_offset(node_of[history], board_index[tuple(board)], hand_index[tuple(hand)])
        out[off: off + len(values)] = values
    return out
