"""Cards as integers rank * num_suits + suit (rank 0 the deck's lowest, suit 0 its first),
named as the ACPC dealer names them: a deck of n ranks and m suits is the TOP of a full deck
(the dealer's game.c deals ranks 13 - n .. 12 of "23456789TJQKA" and suits 4 - m .. 3 of
"cdhs"), so Leduc's six cards are Qh Qs Kh Ks Ah As and Kuhn's three are Qs Ks As."""

from __future__ import annotations

from itertools import combinations

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def deck_ranks(num_ranks: int) -> str:
    """The rank letters of a deck of `num_ranks` ranks, lowest first (the top of the full deck)."""
    if not 1 <= num_ranks <= len(RANKS):
        raise ValueError(f"a deck of {num_ranks} ranks is invalid: expected 1 to {len(RANKS)}")
    return RANKS[len(RANKS) - num_ranks:]


def deck_suits(num_suits: int) -> str:
    """The suit letters of a deck of `num_suits` suits, first first (the last of "cdhs")."""
    if not 1 <= num_suits <= len(SUITS):
        raise ValueError(f"a deck of {num_suits} suits is invalid: expected 1 to {len(SUITS)}")
    return SUITS[len(SUITS) - num_suits:]


def deck_text(num_suits: int, num_ranks: int) -> str:
    """A deck in words for error messages: its ranks, its suits and its size."""
    return (f"the game's deck of {num_ranks * num_suits} cards: ranks {deck_ranks(num_ranks)}, "
            f"suits {deck_suits(num_suits)}")


def card_name(card: int, num_suits: int, num_ranks: int) -> str:
    """The ACPC name of card id `card` in a deck of `num_ranks` x `num_suits` (ValueError when
    the deck has no such card)."""
    rank, suit = divmod(int(card), num_suits)
    if not 0 <= rank < num_ranks:
        raise ValueError(f"card id {int(card)} is not in {deck_text(num_suits, num_ranks)}")
    return deck_ranks(num_ranks)[rank] + deck_suits(num_suits)[suit]


def parse_card(text: str, num_suits: int, num_ranks: int) -> int:
    """Inverse of :func:`card_name`; ValueError naming the card and the deck otherwise."""
    ranks, suits = deck_ranks(num_ranks), deck_suits(num_suits)
    if len(text) != 2 or text[0] not in ranks or text[1] not in suits:
        raise ValueError(f"bad card {text!r}: not a card of {deck_text(num_suits, num_ranks)} "
                         "(the top of the deck, as the ACPC dealer deals it)")
    return ranks.index(text[0]) * num_suits + suits.index(text[1])


def hand_table(deck_size: int, cards_per_hand: int) -> np.ndarray:
    """All private hands as rows of card ids, each row ascending, rows in lexicographic order."""
    return np.array(list(combinations(range(deck_size), cards_per_hand)), dtype=np.int64).reshape(-1, cards_per_hand)


def hands_by_card(hands: np.ndarray, deck_size: int) -> np.ndarray:
    """[deck_size, hands]: True where the hand holds the card."""
    out = np.zeros((deck_size, hands.shape[0]), dtype=np.bool_)
    for j in range(hands.shape[1]):
        out[hands[:, j], np.arange(hands.shape[0])] = True
    return out
