"""The preflop chart (Figure 4 of Bowling et al. 2015): a hold'em strategy's first two decisions
on a ranks x ranks grid, suited hands above the diagonal, offsuit below, pairs on it.

Each cell blends fold (red), call (blue) and raise (green) by their probabilities, averaged over
the hands of the cell's class. Panel (a) is the first player's opening decision, panel (b) the
second player's answer to an opening raise.
"""

from __future__ import annotations

import numpy as np

from ..errors import SolverkitError
from .betting import ACTION_CHARS, DECISION, RAISE_A
from .cards import deck_ranks

COLORS = {"f": (0.85, 0.15, 0.15), "c": (0.15, 0.35, 0.9), "r": (0.1, 0.7, 0.25)}


def _decision(game, node):
    bet = game.tree.bet
    if node < 0 or bet.kind[node] != DECISION or bet.round[node] != 0:
        return None
    return node


def preflop_nodes(game) -> list[tuple[str, int]]:
    """(title, node) of the first decision and of the answer to an opening raise."""
    bet = game.tree.bet
    root = _decision(game, 0)
    if root is None:
        raise SolverkitError("the game's first node is not a preflop decision")
    out = [(f"(a) player {int(bet.player[root])}'s first decision", root)]
    acts = [int(a) for a in bet.actions[root, : bet.num_actions[root]]]
    if RAISE_A in acts:
        after = _decision(game, int(bet.children[root, acts.index(RAISE_A)]))
        if after is not None:
            out.append((f"(b) player {int(bet.player[after])} after an opening raise", after))
    return out


def chart(game, strategy, node) -> tuple[np.ndarray, list[str]]:
    """[ranks, ranks, actions] mean probabilities per hand class at `node`, and the action
    letters. Cell (i, j) with i < j (rows and columns from the highest rank) is suited."""
    t = game.tree
    if t.hands.shape[1] != 2:
        raise SolverkitError(f"a preflop chart needs two hole cards; game {game.name!r} deals {t.hands.shape[1]}")
    bet = t.bet
    A = int(bet.num_actions[node])
    letters = [ACTION_CHARS[a] for a in bet.actions[node, :A]]
    S = game.gd.num_suits
    R = game.gd.num_ranks
    p = int(bet.player[node])
    sums = np.zeros((R, R, A))
    counts = np.zeros((R, R))
    for c1, c2 in t.hands:
        r1, r2 = int(c1) // S, int(c2) // S
        suited = int(c1) % S == int(c2) % S
        hi, lo = max(r1, r2), min(r1, r2)
        i, j = R - 1 - hi, R - 1 - lo
        cell = (i, j) if suited or hi == lo else (j, i)
        try:
            _, hand = game.locate([()], (int(c1), int(c2)))
        except KeyError:
            continue
        off = game.value_offset(node, 0, hand)
        sums[cell] += strategy[p][off: off + A]
        counts[cell] += 1
    with np.errstate(invalid="ignore"):
        probs = sums / counts[..., None]
    return probs, letters


def colour(probs, letters) -> np.ndarray:
    """RGB image [R, R, 3]: the action colours blended by probability (fold red, call blue,
    raise green); cells with no hands are white."""
    rgb = np.zeros(probs.shape[:2] + (3,))
    for k, letter in enumerate(letters):
        rgb += probs[..., k: k + 1] * np.array(COLORS[letter])
    rgb[np.isnan(rgb).any(axis=-1)] = 1.0
    return np.clip(rgb, 0.0, 1.0)


def plot_preflop(game, strategy, path, title=None) -> list[np.ndarray]:
    """Write the chart as a PNG; returns each panel's probabilities."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    panels = preflop_nodes(game)
    R = game.gd.num_ranks
    ranks = deck_ranks(R)[::-1]  # the top of the deck, as the ACPC dealer deals it
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 6.0), squeeze=False)
    out = []
    for ax, (name, node) in zip(axes[0], panels):
        probs, letters = chart(game, strategy, node)
        out.append(probs)
        ax.imshow(colour(probs, letters), interpolation="nearest")
        for i in range(R):
            for j in range(R):
                label = ranks[i] + ranks[j] if i <= j else ranks[j] + ranks[i]
                suffix = "" if i == j else ("s" if i < j else "o")
                ax.text(j, i, label + suffix, ha="center", va="center", fontsize=max(4, 90 // R), color="white")
        ax.set_xticks(range(R), list(ranks))
        ax.set_yticks(range(R), list(ranks))
        ax.set_xlabel("second card's rank (suited above the diagonal)", fontsize=9)
        ax.set_ylabel("first card's rank (offsuit below the diagonal)", fontsize=9)
        ax.set_title(name, fontsize=10)
    fig.suptitle(title or "Preflop strategy: fold red, call blue, raise green (blended by probability)", fontsize=10)
    handles = [Patch(facecolor=COLORS[k], label=label) for k, label in (("f", "fold"), ("c", "call / check"),
                                                                      ("r", "raise / bet"))]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=9, frameon=False,
               title="colour = the actions' colours mixed by their probabilities", title_fontsize=9)
    fig.tight_layout(rect=(0, 0.11, 1, 1))
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    return out

