"""Bridge to OpenSpiel's kuhn_poker, leduc_poker and universal_poker (no-limit files with
``bettingAbstraction=fcpa``): information-state strings <-> solverkit.

OpenSpiel deals the cards one per chance action with the same card numbering as solverkit's
ACPC-style decks (rank * suits + suit). Kuhn's actions are pass (0) and bet (1); Leduc's are
fold (0), call (1) and raise (2); fcpa's fold (0), check/call (1), pot bet/raise (2) and all-in
(3), solverkit's own edge kinds. Used by ``solverkit export --format openspiel`` and by the
oracle tests, which evaluate solverkit strategies with OpenSpiel's own exploitability.
"""

from __future__ import annotations

import numpy as np

from ..errors import SolverkitError
from .betting import CALL_A, FOLD_A, RAISE_A

SUPPORTED = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}


def is_fcpa(game) -> bool:
    """A no-limit acpc game solved under fcpa (universal_poker's own abstraction)."""
    from .gamedef_nolimit import NoLimitGameDef
    from .nolimit_game import abstraction_of

    return isinstance(game.gd, NoLimitGameDef) and abstraction_of(game.config) == "fcpa"


def universal_poker_params(gd) -> dict:
    """pyspiel.load_game("universal_poker", params) of a no-limit game definition under fcpa."""
    def words(values):
        return " ".join(str(int(v)) for v in values)

    return {"betting": "nolimit", "bettingAbstraction": "fcpa", "numPlayers": 2, "numRounds": gd.num_rounds,
            "blind": words(gd.blind), "stack": words(gd.stack), "firstPlayer": words(f + 1 for f in gd.first_player),
            "numSuits": gd.num_suits, "numRanks": gd.num_ranks, "numHoleCards": gd.num_hole_cards,
            "numBoardCards": words(gd.num_board_cards),
            "maxRaises": words(gd.max_raises) if gd.max_raises is not None else ""}


def openspiel_game(game):
    """The pyspiel game matching a solverkit poker game (loaded), or a clear error."""
    import pyspiel

    if is_fcpa(game):
        return pyspiel.load_game("universal_poker", universal_poker_params(game.gd))
    return pyspiel.load_game(openspiel_name(game))


def openspiel_name(game) -> str:
    """The OpenSpiel game matching a solverkit limit poker game, or a clear error."""
    gd = game.gd
    if not hasattr(gd, "raise_size"):  # a no-limit file under [game.sizes]: universal_poker has fcpa only
        from ..core.game import openspiel_exports

        raise SolverkitError(f"game {game.name!r} with bet-size lists has no OpenSpiel counterpart (universal_poker "
                             f"abstracts no-limit games with fcpa only: set [game] abstraction = \"fcpa\"); "
                             f"{openspiel_exports()}")
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
    if is_fcpa(game):
        return fcpa_table(game, strategy)
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
    from open_spiel.python import policy as os_policy

    table = openspiel_table(game, strategy)
    os_game = openspiel_game(game)
    pol = os_policy.TabularPolicy(os_game)
    for key, probs in table.items():
        row = pol.state_lookup[key]
        vec = np.zeros(pol.action_probability_array.shape[1])
        for a, pr in probs.items():
            vec[a] = pr
        pol.action_probability_array[row] = vec
    return pol


def _cards_text(cards, gd) -> str:
    """universal_poker's card string: highest card id first, each as a rank of 23456789TJQKA (a
    small deck named from the bottom, unlike the ACPC dealer) and a suit of cdhs."""
    S = gd.num_suits
    return "".join("23456789TJQKA"[int(c) // S] + "cdhs"[int(c) % S] for c in sorted(cards, reverse=True))


def fcpa_table(game, strategy) -> dict[str, dict[int, float]]:
    """Every information-state string of universal_poker under fcpa -> {action id: probability},
    written from solverkit's tree without OpenSpiel: ``[Round R][Player: P][Pot: 2 x the larger
    spent][Money: stack - spent, each][Private: hole][Public: board][Sequences: betting, rounds
    split by '|']`` for each decision node, every board dealt so far (each round's cards a set)
    and every hole hand that does not meet it; a suit-isomorphic game reads each from its
    canonical board and hand. The action ids are solverkit's edge kinds (fcpa's)."""
    from itertools import combinations

    from ..errors import SolverkitError

    gd = game.gd
    dealt = [r for r in range(1, gd.num_rounds) if gd.num_board_cards[r]]
    if len(dealt) > 1 or len(dealt) < gd.num_rounds - 1:
        raise SolverkitError(f"game {game.name!r} ({gd.source}): numBoardCards = {list(gd.num_board_cards)}; "
                             "universal_poker's information states list the board as one sorted set, so they tell "
                             "boards apart only when one round deals board cards (a card that came on the flop or "
                             "on the turn reads alike): exportable games deal board cards in round 2 only, if at all")
    size = game.game_size()
    if size.infosets_raw > game.export_limit:
        raise SolverkitError(f"game {game.name!r} has {size.infosets_raw:,} OpenSpiel information states; the "
                             f"openspiel export is limited to {game.export_limit:,} (use the strategy.npz file)")
    bet = game.tree.bet
    deck = range(gd.deck_size)
    # board sequences per round: tuples of per-round card sets, in dealing order
    boards = [[()]]
    for r in range(1, gd.num_rounds):
        nb = gd.num_board_cards[r]
        boards.append([seq + (cut,) for seq in boards[-1]
                       for cut in combinations([c for c in deck if all(c not in s for s in seq)], nb)])
    hands = list(combinations(deck, gd.num_hole_cards))
    table: dict[str, dict[int, float]] = {}
    for n in range(bet.num_nodes):
        if bet.kind[n] != 0:
            continue
        r, p = int(bet.round[n]), int(bet.player[n])
        A = int(bet.num_actions[n])
        codes = [int(c) for c in bet.actions[n, :A]]
        spent = [int(x) for x in bet.spent[n]]
        head = (f"[Round {r}][Player: {p}][Pot: {2 * max(spent)}][Money: {gd.stack[0] - spent[0]} "
                f"{gd.stack[1] - spent[1]}]")
        seq = bet.history[n].replace("/", "|")
        for sets in boards[r]:
            on_board = [c for s in sets for c in s]
            public = _cards_text(on_board, gd)
            key_sets = [()] + [tuple(sorted(s)) for s in sets]
            for hand in hands:
                if any(c in on_board for c in hand):
                    continue
                g, h = game.locate(key_sets, hand)
                off = game.value_offset(n, g, h)
                table[f"{head}[Private: {_cards_text(hand, gd)}][Public: {public}][Sequences: {seq}]"] = {
                    a: float(strategy[p][off + i]) for i, a in enumerate(codes)}
    return table
