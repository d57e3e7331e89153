"""Poker information-set keys '<hand>|<board>|<betting>' read back into the (hand, board,
decision node) where the solver stored them: cards checked against the deck and the betting
round, an impossible set (a card twice) refused, and suits mapped to the canonical board the
solver stored under suit isomorphism, so that any real information set can be asked for."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SolverkitError, shown
from .betting import DECISION
from .cards import card_name, parse_card


@dataclass(frozen=True)
class StoredKey:
    """Where a key's information set lives: hand index, global board id, decision node, and the
    key as the solver stored it (its canonical suits, cards in order)."""

    hand: int
    board: int
    node: int
    key: str


def example_key(game, node: int | None = None) -> str:
    """A valid key of `game` for error messages: at decision `node` (default the first), its
    round's first board and the first hand that shares no card with it."""
    bet, boards = game.tree.bet, game.tree.boards
    if node is None:
        node = next(n for n in range(bet.num_nodes) if bet.kind[n] == DECISION)
    g = int(boards.round_start[int(bet.round[node])])
    on_board = {int(c) for c in boards.cards[g, : boards.num_cards[g]]}
    hand = next(row for row in game.tree.hands if not on_board & {int(c) for c in row})
    name = game.key_hand_name(hand) if hasattr(game, "key_hand_name") else _names(game, hand)  # as the keys name it
    return f"{name}|{_board_name(game, g)}|{bet.history[node]}"


def resolve_key(game, key) -> StoredKey:
    """The stored place of information set `key` of poker `game`; a SolverkitError names what
    is wrong (the part, the card, the conflict) and shows a valid key of the game."""
    parts = key.split("|") if isinstance(key, str) else []
    if len(parts) != 3:
        raise SolverkitError(f"information set key {shown(key)} of game {game.name!r} is invalid: expected "
                             f"'<hand>|<board>|<betting>', like {example_key(game)!r}")
    hand_text, board_text, history = parts
    where = f"information set {shown(key)}"  # a key of a megabyte is quoted shortened
    node = _decision_node(game, history, where)
    rnd = int(game.tree.bet.round[node])
    gd = game.gd
    start = game.tree.boards.round_start
    if not start[rnd] < start[rnd + 1]:  # a trunk-only game holds no board below its cut
        why = (" (it was built with [game] trunk_only = true: the rounds below its cut live on the workers)"
               if getattr(game, "trunk_only", False) else "")
        raise SolverkitError(f"{where}: betting {history!r} is in round {rnd}, whose boards game {game.name!r} does "
                             f"not hold{why}; a valid key of it looks like {example_key(game)!r}")
    like = example_key(game, node)
    hand = _cards(game, hand_text, gd.num_hole_cards, "hand", where, like)
    board = _cards(game, board_text, sum(gd.num_board_cards[: rnd + 1]), "board", where, like,
                   f" (betting {history!r} is in round {rnd})")
    _check_distinct(game, hand, board, where)
    sets, pos = [], 0
    for r in range(rnd + 1):
        sets.append(tuple(sorted(board[pos: pos + gd.num_board_cards[r]])))
        pos += gd.num_board_cards[r]
    try:
        g, h = game.locate(sets, sorted(hand))
    except KeyError:
        raise SolverkitError(f"{where}: board {shown(board_text)} is not one of the boards game {game.name!r} solves "
                             f"(it restricts its boards, or builds only the rounds above its cut); a valid key "
                             f"looks like {like!r}") from None
    if not start[rnd] <= g < start[rnd + 1]:
        raise SolverkitError(f"{where}: board {shown(board_text)} is not a board of round {rnd}, where betting "
                             f"{shown(history)} is; a valid key looks like {like!r}")
    stored = f"{_names(game, game.tree.hands[h])}|{_board_name(game, g)}|{history}"
    return StoredKey(int(h), int(g), int(node), stored)


def _decision_node(game, history: str, where: str) -> int:
    """The decision node whose betting string is `history` (ACPC letters, rounds split by '/')."""
    import difflib

    nodes = game.__dict__.get("_decision_by_history")
    if nodes is None:
        bet = game.tree.bet
        nodes = game._decision_by_history = {bet.history[n]: n for n in range(bet.num_nodes)
                                             if bet.kind[n] == DECISION}
    if history in nodes:
        return nodes[history]
    close = difflib.get_close_matches(history, list(nodes), n=3, cutoff=0.5) if len(history) <= 1000 else []
    hint = (f"close matches: {', '.join(repr(h) for h in close)}" if close
            else f"betting sequences look like {', '.join(repr(h) for h in list(nodes)[:3])}")
    raise SolverkitError(f"{where}: betting {shown(history)} is not a point of game {game.name!r} where a player acts; "
                         f"{hint}")


def _cards(game, text: str, count: int, what: str, where: str, like: str, why: str = "") -> list[int]:
    """`text` read as `count` card names of the game's deck (two letters each, rank then suit)."""
    gd = game.gd
    if len(text) != 2 * count:
        raise SolverkitError(f"{where}: {what} {shown(text)} is {len(text)} letters; expected {count} card(s) of two "
                             f"letters (rank, suit){why}, like {like!r}")
    cards = []
    for i in range(count):
        name = text[2 * i: 2 * i + 2]
        try:
            cards.append(parse_card(name, gd.num_suits, gd.num_ranks))
        except ValueError as exc:
            raise SolverkitError(f"{where}: {what} {shown(text)}: {exc}; like {like!r}") from None
    return cards


def _check_distinct(game, hand: list[int], board: list[int], where: str) -> None:
    """Refuse a key holding one card twice: no deal reaches it, and the solver stores nothing
    real for it (its layout keeps a slot per hand, impossible ones included)."""
    S, R = game.gd.num_suits, game.gd.num_ranks
    seen = {}
    for place, cards in (("hand", hand), ("board", board)):
        for c in cards:
            if c in seen:
                twice = f"twice in the {place}" if seen[c] == place else f"both in the {seen[c]} and in the {place}"
                raise SolverkitError(f"{where} is impossible: card {card_name(c, S, R)} is {twice}; no deal gives "
                                     "a card twice")
            seen[c] = place


def _names(game, cards) -> str:
    """Card ids as their names, concatenated."""
    return "".join(card_name(int(c), game.gd.num_suits, game.gd.num_ranks) for c in cards)


def _board_name(game, g: int) -> str:
    """Global board `g`'s cards as the keys name them."""
    boards = game.tree.boards
    return _names(game, boards.cards[g, : boards.num_cards[g]])
