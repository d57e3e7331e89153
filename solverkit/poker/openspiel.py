"""Bridge to OpenSpiel's kuhn_poker and leduc_poker: information-state strings <-> solverkit.

OpenSpiel deals the cards one per chance action with the same card numbering as solverkit's
ACPC-style decks (rank * suits + suit). Kuhn's actions are pass (0) and bet (1); Leduc's are
fold (0), call (1) and raise (2). Used by ``solverkit export --format openspiel`` and by the
oracle tests, which evaluate solverkit strategies with OpenSpiel's own exploitability.
"""

from __future__ import annotations

import numpy as np

from ..errors import SolverkitError
from .betting import CALL_A, FOLD_A, RAISE_A

SUPPORTED = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}


def openspiel_name(game) -> str:
    """The OpenSpiel game matching a solverkit poker game, or a clear error."""
    gd = game.gd
    for ours, theirs in SUPPORTED.items():
        from .gamedef import load_gamedef

        ref = load_gamedef(ours)
        if all(getattr(gd, f) == getattr(ref, f) for f in ("num_rounds", "blind", "raise_size", "first_player",
                                                           "max_raises", "num_suits", "num_ranks",
                                                           "num_hole_cards", "num_board_cards")):
            return theirs
    from ..core.game import openspiel_exports

    raise SolverkitError(f"game {game.name!r} with these rules has no OpenSpiel counterpart; {openspiel_exports()}")


def _our_code(os_game: str, os_action: int, facing: bool) -> int:
    if os_game == "kuhn_poker":
        if os_action == 0:
            return FOLD_A if facing else CALL_A
        return CALL_A if facing else RAISE_A
    return (FOLD_A, CALL_A, RAISE_A)[os_action]


def openspiel_table(game, strategy) -> dict[str, dict[int, float]]:
    """Map every OpenSpiel information-state string to {OpenSpiel action: probability}."""
    try:
        import pyspiel
    except ImportError:  # pragma: no cover - depends on the environment
        raise SolverkitError("OpenSpiel is not installed: pip install open-spiel") from None
    os_name = openspiel_name(game)
    os_game = pyspiel.load_game(os_name)
    t = game.tree
    bet = t.bet
    table: dict[str, dict[int, float]] = {}

    def visit(state, node, hole, board):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                child = state.child(action)
                if len(hole[0]) < 1:
                    visit(child, node, ([action], []), board)
                elif len(hole[1]) < 1:
                    visit(child, node, (hole[0], [action]), board)
                else:
                    visit(child, int(bet.children[node, 0]) if bet.kind[node] == 3 else node, hole, board + [action])
            return
        # our node: a round end (kind 3) is followed by the next round's first decision node
        p = state.current_player()
        key = state.information_state_string(p)
        r = int(bet.round[node])
        sets = [()] + [tuple(sorted(board[i : i + 1])) for i in range(r)]
        g, h = game.locate(sets[: r + 1], tuple(hole[p]))
        A = int(bet.num_actions[node])
        off = game.value_offset(node, g, h)
        facing = bet.spent[node, 1 - p] > bet.spent[node, p]
        codes = list(bet.actions[node, :A])
        probs = {}
        for a in state.legal_actions():
            slot = codes.index(_our_code(os_name, a, facing))
            probs[a] = float(strategy[p][off + slot])
        table[key] = probs
        for a in state.legal_actions():
            slot = codes.index(_our_code(os_name, a, facing))
            child = int(bet.children[node, slot])
            visit(state.child(a), child, hole, board)

    visit(os_game.new_initial_state(), 0, ([], []), [])
    return table


def openspiel_policy(game, strategy):
    """An OpenSpiel TabularPolicy holding `strategy` (for OpenSpiel's exploitability tools)."""
    import pyspiel
    from open_spiel.python import policy as os_policy

    table = openspiel_table(game, strategy)
    os_game = pyspiel.load_game(openspiel_name(game))
    pol = os_policy.TabularPolicy(os_game)
    for key, probs in table.items():
        row = pol.state_lookup[key]
        vec = np.zeros(pol.action_probability_array.shape[1])
        for a, pr in probs.items():
            vec[a] = pr
        pol.action_probability_array[row] = vec
    return pol
