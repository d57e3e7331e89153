"""Hold'em hand ranges in the standard syntax of PioSOLVER, GTO+ and postflop-solver, as one
weight per two-card combo (for the no-limit postflop spots of issue 25).

Combo index: the 1326 combos are the card pairs ``c1 < c2`` of a 52-card deck, cards numbered
``rank * 4 + suit`` as in :mod:`solverkit.poker.cards` (ranks "23456789TJQKA" from 0, suits
"cdhs"), in lexicographic order of ``(c1, c2)``: ``COMBO_CARDS[i]`` is combo ``i``, and
``combo_index(c1, c2) = c1 * (101 - c1) // 2 + c2 - 1`` (2c2d is 0, AhAs is 1325). It is the row
order of ``hand_table(52, 2)`` and postflop-solver's ``card_pair_to_index``.

Syntax (the facts from postflop-solver's ``src/range.rs``, read at commit 25373ce): tokens
separated by commas, each ``HANDS`` or ``HANDS:WEIGHT`` with ``0 <= WEIGHT <= 1`` (default 1);
``HANDS`` is one of

* a hand class: a pair ``"AA"``, suited ``"AKs"``, offsuit ``"AKo"``, both ``"AK"`` (the higher
  rank first; ranks may be lower case), or an exact combo ``"AhKh"`` (suits lower case);
* a plus range: ``"22+"`` (22 up to AA), ``"T9s+"`` (a connector up to AKs), ``"ATs+"`` /
  ``"ATo+"`` (the kicker up to one below the first rank: ATs, AJs, AQs, AKs);
* a dash range, the higher end first: the same first rank (``"A5s-A2s"``) or the same gap
  between the ranks (``"99-22"``, ``"T9s-65s"``, ``"AQo-86o"``), both ends of the same form.

Spaces around commas, ``-``, ``+`` and ``:`` are ignored; one trailing comma is allowed; the
empty string is the empty range. A later token overrides an earlier one for the combos they
share: ``"22+,AA:0.5"`` gives AA weight 0.5. (postflop-solver applies the tokens in reverse, so
there the *first* token wins; ranges exported from a solver's grid never overlap, so the two
readings only differ on hand-written overlapping ranges.) Combos that share a card with the
``board`` get weight 0. Anything else raises :class:`~solverkit.errors.RangeError` naming the
token, its position and what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import RangeError
from .cards import RANKS, SUITS, hand_table, parse_card

NUM_COMBOS = 1326
#: [1326, 2] card ids of each combo, c1 < c2, in combo-index order
COMBO_CARDS = hand_table(52, 2)
COMBO_CARDS.flags.writeable = False
#: longest range text accepted: format_range's longest output (1326 exact combos, each with a
#: 17-digit subnormal weight written out in 326 characters) is about 440,000 characters
MAX_RANGE_CHARS = 500_000

_COMBO_RANKS = COMBO_CARDS // 4
_HIGH = _COMBO_RANKS.max(axis=1)
_LOW = _COMBO_RANKS.min(axis=1)
_SUITED = (COMBO_CARDS[:, 0] % 4) == (COMBO_CARDS[:, 1] % 4)
#: grid cell (row * 13 + col) of each combo, Pio's layout: AA top left, suited above the diagonal
_CELL = np.where(_HIGH == _LOW, (12 - _HIGH) * 14,
                 np.where(_SUITED, (12 - _HIGH) * 13 + (12 - _LOW), (12 - _LOW) * 13 + (12 - _HIGH)))

_RANK_CHARS = RANKS + RANKS.lower()
_WEIGHT = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
_SPACE_AROUND_OPERATOR = re.compile(r"\s*([-+:])\s*")
_FORMS = ('a hand class ("AA", "AKs", "AKo", "AK") or an exact combo ("AhKh"), optionally with '
          '"+" ("22+", "ATs+") or "-" and a second end ("A5s-A2s", "99-22"), then optionally ":WEIGHT"')


def combo_index(card1: int, card2: int) -> int:
    """Index of the combo of two different cards (0..51), in either order."""
    low, high = sorted((int(card1), int(card2)))
    if not 0 <= low < high < 52:
        raise RangeError(f"cards ({card1}, {card2}) are not a combo: expected two different card ids in 0..51")
    return low * (101 - low) // 2 + high - 1


def _card_text(card: int) -> str:
    """Name of a card of the full 52-card deck ("As")."""
    return RANKS[card // 4] + SUITS[card % 4]


def combo_name(index: int) -> str:
    """Name of combo ``index``, the higher card first ("AsKh", "AsAh"): a token the parser reads."""
    if not 0 <= int(index) < NUM_COMBOS:
        raise RangeError(f"combo index {index} is not in 0..{NUM_COMBOS - 1}")
    c1, c2 = COMBO_CARDS[int(index)]
    return _card_text(int(c2)) + _card_text(int(c1))


# --- hand classes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hand:
    """One grid hand or exact combo: ranks high >= low; form "" (pair or both), "s", "o", or the
    suits (of high, of low) of an exact combo."""

    high: int
    low: int
    form: str | tuple[int, int]

    def with_ranks(self, high: int, low: int) -> "_Hand":
        return _Hand(high, low, self.form)


@lru_cache(maxsize=None)
def _combos_of(hand: _Hand) -> np.ndarray:
    """Combo indices of a hand class or exact combo (cached, so read-only)."""
    if isinstance(hand.form, tuple):
        combos = np.array([combo_index(hand.high * 4 + hand.form[0], hand.low * 4 + hand.form[1])])
    else:
        mask = (_HIGH == hand.high) & (_LOW == hand.low)
        if hand.form == "s":
            mask &= _SUITED
        elif hand.form == "o":
            mask &= ~_SUITED
        combos = np.flatnonzero(mask)
    combos.flags.writeable = False
    return combos


class _TokenError(Exception):
    """A token is malformed: what is wrong and what was expected (the caller adds where);
    ``forms``: whether the message should list the valid forms of a token."""

    def __init__(self, message: str, forms: bool = False):
        super().__init__(message)
        self.forms = forms


def _rank(char: str) -> int:
    if char not in _RANK_CHARS:
        raise _TokenError(f"{char!r} is not a rank; ranks are {RANKS}", forms=True)
    return RANKS.index(char.upper())


def _suit(char: str) -> int:
    if char not in SUITS:
        raise _TokenError(f"{char!r} is not a suit; suits are {SUITS} (lower case)", forms=True)
    return SUITS.index(char)


def _parse_hand(text: str) -> _Hand:
    """Parse "AA", "AKs", "AKo", "AK" or an exact combo "AhKh"."""
    if "+" in text:
        raise _TokenError("'+' can only end a token (\"22+\", \"ATs+\"), not join it to a dash range")
    if len(text) == 4:
        high, high_suit, low, low_suit = _rank(text[0]), _suit(text[1]), _rank(text[2]), _suit(text[3])
        if (high, high_suit) == (low, low_suit):
            raise _TokenError(f"{text!r} holds the card {text[:2]!r} twice")
        if high < low:
            raise _TokenError(f"the higher card comes first: write {text[2:] + text[:2]!r}")
        if high == low:  # a pair: the order of the suits does not matter
            high_suit, low_suit = max(high_suit, low_suit), min(high_suit, low_suit)
        return _Hand(high, low, (high_suit, low_suit))
    if len(text) not in (2, 3):
        raise _TokenError(f"{_short(text)} is not a hand", forms=True)
    high, low = _rank(text[0]), _rank(text[1])
    form = text[2:]
    if form not in ("", "s", "o"):
        raise _TokenError(f"{form!r} after the ranks of {text!r} is neither 's' (suited) nor 'o' (offsuit)")
    if high < low:
        raise _TokenError(f"the higher rank comes first: write {text[1] + text[0] + form!r}")
    if high == low and form:
        raise _TokenError(f"a pair is neither suited nor offsuit: write {text[:2]!r}")
    return _Hand(high, low, form)


def _plus_hands(hand: _Hand) -> list[_Hand]:
    """"22+": the pair up to AA; "T9s+": the connector up to AKs; "ATs+": the kicker up to AKs."""
    gap = hand.high - hand.low
    if gap <= 1:
        return [hand.with_ranks(high, high - gap) for high in range(hand.high, 13)]
    return [hand.with_ranks(hand.high, low) for low in range(hand.low, hand.high)]


def _dash_hands(first: _Hand, last: _Hand, text: str) -> list[_Hand]:
    """"99-22", "T9s-65s" (the same gap) or "A5s-A2s" (the same first rank), higher end first."""
    if first.form != last.form:
        raise _TokenError(f"the ends of {text!r} differ in form (suited, offsuit, both or exact suits)")
    gap = first.high - first.low
    if gap == last.high - last.low and first.high != last.high:
        if first.high < last.high:
            raise _TokenError(f"the higher end comes first: write {_swap_dash(text)!r}")
        return [first.with_ranks(high, high - gap) for high in range(last.high, first.high + 1)]
    if first.high == last.high and first.low != last.low:
        if first.low < last.low:
            raise _TokenError(f"the higher end comes first: write {_swap_dash(text)!r}")
        return [first.with_ranks(first.high, low) for low in range(last.low, first.low + 1)]
    raise _TokenError(f"the ends of {text!r} must share the first rank (\"A5s-A2s\") or the gap "
                      f"between the ranks (\"99-22\", \"T9s-65s\"), and differ")


def _swap_dash(text: str) -> str:
    first, last = text.split("-")
    return f"{last}-{first}"


def _parse_weight(text: str) -> float:
    if not _WEIGHT.fullmatch(text):
        raise _TokenError(f"weight {_short(text)} is not a number from 0 to 1 (e.g. 0.5)")
    weight = float(text)
    if weight > 1.0:
        raise _TokenError(f"weight {_short(text)} is above 1; weights are from 0 to 1")
    return weight


def _parse_token(token: str) -> tuple[np.ndarray, float]:
    """Combo indices and weight of one normalised token."""
    if any(ch.isspace() for ch in token):
        raise _TokenError("a space inside a hand", forms=True)
    hands_text, colon, weight_text = token.partition(":")
    weight = _parse_weight(weight_text) if colon else 1.0
    if not hands_text:
        raise _TokenError("no hand before the weight", forms=True)
    if hands_text.endswith("+"):
        hands = _plus_hands(_parse_hand(hands_text[:-1]))
    elif "-" in hands_text:
        ends = hands_text.split("-")
        if len(ends) != 2 or not all(ends):
            raise _TokenError(f"{_short(hands_text)} is not a dash range of two hands", forms=True)
        hands = _dash_hands(_parse_hand(ends[0]), _parse_hand(ends[1]), hands_text)
    else:
        hands = [_parse_hand(hands_text)]
    return np.concatenate([_combos_of(h) for h in hands]), weight


def _tokens(text: str):
    """Yield (number from 1, character offset from 1, normalised token) of a comma-separated range."""
    parts = text.split(",")
    if len(parts) > 1 and not parts[-1].strip():
        parts.pop()  # one trailing comma
    offset = 0
    for number, part in enumerate(parts, 1):
        lead = len(part) - len(part.lstrip())
        yield number, offset + lead + 1, _SPACE_AROUND_OPERATOR.sub(r"\1", part.strip())
        offset += len(part) + 1


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


# --- public API -------------------------------------------------------------------------------


def parse_board(board) -> tuple[int, ...]:
    """Board cards as ids: None, a string ("QsJh2h", "Qs Jh 2h", "Qs,Jh,2h") or a sequence of card
    ids or names; at most 5 different cards."""
    if board is None:
        return ()
    if isinstance(board, str):
        compact = re.sub(r"[\s,]", "", board)
        names = [compact[i:i + 2] for i in range(0, len(compact), 2)]
    elif isinstance(board, (list, tuple, np.ndarray)):
        names = list(board)
    else:
        raise RangeError(f"board {_short(repr(board))}: expected cards as a string like 'QsJh2h' or a list "
                         f"of cards")
    if len(names) > 5:
        raise RangeError(f"board {_short(str(board))} has {len(names)} cards; a board has at most 5")
    cards = [_board_card(board, item) for item in names]
    if len(set(cards)) != len(cards):
        dup = next(c for c in cards if cards.count(c) > 1)
        raise RangeError(f"board {_short(str(board))} holds {_card_text(dup)} twice")
    return tuple(cards)


def _board_card(board, item) -> int:
    """One board card from a name ("Qs") or an id (0..51)."""
    if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
        if 0 <= item < 52:
            return int(item)
        raise RangeError(f"board {_short(str(board))}: card id {item} is not in 0..51")
    try:
        return parse_card(str(item), 4, 13)
    except ValueError as exc:
        raise RangeError(f"board {_short(str(board))}: {exc}") from None


def board_mask(board) -> np.ndarray:
    """[1326] bool: True where the combo shares a card with the board."""
    cards = np.array(parse_board(board), dtype=np.int64)
    return np.isin(COMBO_CARDS, cards).any(axis=1)


def parse_range(text: str, board=None) -> np.ndarray:
    """[1326] float64 weight of each combo (index order: module docstring) of a range such as
    "22+,A5s-A2s,KQo:0.5"; a later token overrides an earlier one; combos meeting the board get 0."""
    if not isinstance(text, str):
        raise RangeError(f"range {_short(repr(text))}: expected a string such as '22+,AKs,KQo:0.5'")
    if len(text) > MAX_RANGE_CHARS:
        raise RangeError(f"range of {len(text)} characters is longer than {MAX_RANGE_CHARS}; a range "
                         f"lists at most {NUM_COMBOS} combos")
    blocked = board_mask(board)
    weights = np.zeros(NUM_COMBOS)
    if not text.strip():
        return weights
    for number, position, token in _tokens(text):
        try:
            if not token:
                raise _TokenError("empty token", forms=True)
            combos, weight = _parse_token(token)
        except _TokenError as exc:
            expected = f"; expected {_FORMS}" if exc.forms else ""
            raise RangeError(f"range token {number} {_short(token)} (at character {position}): "
                             f"{exc}{expected}") from None
        weights[combos] = weight
    weights[blocked] = 0.0
    return weights


def _as_weights(weights) -> np.ndarray:
    """Check a weight vector: 1326 finite values from 0 to 1."""
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise RangeError(f"weights {_short(repr(weights))}: expected {NUM_COMBOS} numbers from 0 to 1") from None
    if w.shape != (NUM_COMBOS,):
        raise RangeError(f"weights of shape {w.shape}: expected {NUM_COMBOS} numbers, one per combo")
    bad = np.flatnonzero(~((w >= 0.0) & (w <= 1.0)))
    if bad.size:
        raise RangeError(f"weight {w[bad[0]]} of combo {combo_name(bad[0])} (index {bad[0]}) is not "
                         f"a number from 0 to 1")
    return w


def num_combos(weights, board=None) -> float:
    """Weighted number of combos (the "combos" count solvers show): the sum of the weights of the
    combos that miss the board."""
    w = _as_weights(weights)
    return float(w[~board_mask(board)].sum())


def grid_labels() -> list[list[str]]:
    """13x13 hand names in Pio's grid: AA top left, pairs on the diagonal, suited above, offsuit below."""
    return [[RANKS[12 - min(r, c)] + RANKS[12 - max(r, c)] + ("" if r == c else "s" if r < c else "o")
             for c in range(13)] for r in range(13)]


def range_grid(weights, board=None) -> np.ndarray:
    """[13, 13] average weight of each grid cell (layout of :func:`grid_labels`) over the cell's
    combos that miss the board; 0 where the board blocks every combo of the cell."""
    w = _as_weights(weights)
    live = ~board_mask(board)
    sums = np.bincount(_CELL[live], weights=w[live], minlength=169)
    counts = np.bincount(_CELL[live], minlength=169)
    return np.divide(sums, counts, out=np.zeros(169), where=counts > 0).reshape(13, 13)


# --- formatting -------------------------------------------------------------------------------


def _weight_suffix(weight: float) -> str:
    """":W" with the shortest decimal that reads back as the same float; "" for weight 1."""
    return "" if weight == 1.0 else ":" + np.format_float_positional(weight, trim="-")


class _Formatter:
    """Builds the tokens of :func:`format_range`, marking the combos each token settles."""

    def __init__(self, weights: np.ndarray, live: np.ndarray):
        self.w = weights
        self.live = live
        self.settled = ~live  # combos meeting the board read back as 0 whatever the tokens say
        self.tokens: list[str] = []

    def uniform(self, hand: _Hand) -> float | None:
        """The common weight of the hand's live combos (0 when none is live), None when they differ."""
        combos = _combos_of(hand)
        values = self.w[combos[self.live[combos]]]
        if values.size == 0:
            return 0.0
        return float(values[0]) if (values == values[0]).all() else None

    def runs(self, items, name) -> tuple[list[str], list[_Hand]]:
        """Tokens for runs of consecutive ranks of equal weight > 0 from descending (rank, hand,
        weight) items (``name(top, bottom)`` writes a run's hands), and the hands they settle
        (those of weight 0 included: settled by saying nothing)."""
        runs: list[list] = []
        settled = []
        for rank, hand, weight in items:
            if weight is None:
                continue
            settled.append(hand)
            if weight == 0.0:
                continue
            if runs and runs[-1][2] == weight and runs[-1][1] == rank + 1:
                runs[-1][1] = rank
            else:
                runs.append([rank, rank, weight])
        return [name(top, bottom) + _weight_suffix(weight) for top, bottom, weight in runs], settled

    def emit(self, tokens: list[str], settled: list[_Hand]) -> None:
        self.tokens += tokens
        for hand in settled:
            self.settled[_combos_of(hand)] = True

    def pairs(self) -> None:
        """"QQ+", "99-66", "22" for pairs whose live combos share a weight."""
        items = [(r, _Hand(r, r, ""), self.uniform(_Hand(r, r, ""))) for r in range(12, -1, -1)]

        def name(top, bottom):
            hi, lo = RANKS[top] * 2, RANKS[bottom] * 2
            return hi if top == bottom else f"{lo}+" if top == 12 else f"{hi}-{lo}"

        self.emit(*self.runs(items, name))

    def high_cards(self, high: int) -> None:
        """Non-pairs with first rank ``high`` in kicker runs ("ATs+", "A5s-A2s", "KQo"): written
        once with "AK" wherever suited and offsuit share a weight and once with "s" and "o" apart,
        keeping the shorter ("AJ-A8,A7s-A2s,AQo" against "AJs-A2s,AQo-A8o")."""
        cells = []
        for low in range(high - 1, -1, -1):
            hands = _Hand(high, low, "s"), _Hand(high, low, "o"), _Hand(high, low, "")
            cells.append((low, hands, self.uniform(hands[0]), self.uniform(hands[1])))

        def name_of(form):
            def name(top, bottom):
                first, last = RANKS[high] + RANKS[top] + form, RANKS[high] + RANKS[bottom] + form
                return first if top == bottom else f"{last}+" if top == high - 1 else f"{first}-{last}"
            return name

        choices = []
        for merge in (True, False):
            both = [(low, hb, ws if merge and ws is not None and ws == wo else None)
                    for low, (hs, ho, hb), ws, wo in cells]
            merged = {low for low, _, weight in both if weight is not None}
            suited = [(low, hs, None if low in merged else ws) for low, (hs, ho, hb), ws, wo in cells]
            offsuit = [(low, ho, None if low in merged else wo) for low, (hs, ho, hb), ws, wo in cells]
            tokens, settled = [], []
            for form, items in (("", both), ("s", suited), ("o", offsuit)):
                more_tokens, more_settled = self.runs(items, name_of(form))
                tokens += more_tokens
                settled += more_settled
            choices.append((len(tokens), len(",".join(tokens)), tokens, settled))
        _, _, tokens, settled = min(choices, key=lambda c: c[:2])
        self.emit(tokens, settled)

    def exact(self) -> None:
        """Exact combos ("AsKh:0.25") for the live combos no grid token settled."""
        for index in np.flatnonzero(~self.settled & (self.w > 0)):
            self.tokens.append(combo_name(index) + _weight_suffix(float(self.w[index])))


def format_range(weights, board=None) -> str:
    """A compact range string that :func:`parse_range` (with the same board) reads back to exactly
    ``weights``: grid hands and runs where a cell's combos share a weight ("QQ+,A5s-A2s:0.5,KQ"),
    exact combos ("AsKh:0.25") for the rest. Combos meeting the board are ignored (they read back
    as 0), so a range on a board stays compact. The tokens never overlap: their order is free."""
    w = _as_weights(weights)
    fmt = _Formatter(w, ~board_mask(board))
    fmt.pairs()
    for high in range(12, 0, -1):
        fmt.high_cards(high)
    fmt.exact()
    return ",".join(fmt.tokens)
