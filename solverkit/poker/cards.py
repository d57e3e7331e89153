"""Cards as integers rank * num_suits + suit, as in ACPC (ranks "23456789TJQKA" from the
lowest, suits "cdhs"). A deck of n ranks uses the n lowest ranks, as the ACPC server does."""

from __future__ import annotations

from itertools import combinations

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def card_name(card: int, num_suits: int = 4) -> str:
    rank, suit = divmod(int(card), num_suits)
    return RANKS[rank] + SUITS[suit]


def parse_card(text: str, num_suits: int = 4, num_ranks: int = 13) -> int:
    """Inverse of :func:`card_name`."""
    if len(text) != 2 or text[0] not in RANKS[:num_ranks] or text[1] not in SUITS[:num_suits]:
        raise ValueError(
            f"bad card {text!r}: expected a rank of {RANKS[:num_ranks]} and a suit of {SUITS[:num_suits]}"
        )
    return RANKS.index(text[0]) * num_suits + SUITS.index(text[1])


def hand_table(deck_size: int, cards_per_hand: int) -> np.ndarray:
    """All private hands as rows of card ids, each row ascending, rows in lexicographic order."""
    return np.array(list(combinations(range(deck_size), cards_per_hand)), dtype=np.int64).reshape(-1, cards_per_hand)


def hands_by_card(hands: np.ndarray, deck_size: int) -> np.ndarray:
    """[deck_size, hands]: True where the hand holds the card."""
    out = np.zeros((deck_size, hands.shape[0]), dtype=np.bool_)
    for j in range(hands.shape[1]):
        out[hands[:, j], np.arange(hands.shape[0])] = True
    return out
