"""The card structure of a poker game, all card abstraction needs to know about it."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError

#: evaluators the table builders know by name: ACPC ranking (solverkit.poker.evaluator) inside the
#: numba kernels; "custom" calls the game's strength function once per canonical final board
EVALUATORS = ("acpc", "custom")


@dataclass(frozen=True)
class CardSpec:
    """Deck (num_ranks x num_suits, card = rank * num_suits + suit), hole cards per player and
    board cards dealt in each betting round (Leduc (0, 1), hold'em (0, 3, 1, 1))."""

    num_ranks: int
    num_suits: int
    hole_cards: int
    board_cards: tuple
    #: how final hands are ranked: "acpc" or "custom" (then `strength` is f(hands, board, out))
    evaluator: str = "acpc"
    strength: object = None

    def __post_init__(self):
        object.__setattr__(self, "board_cards", tuple(int(b) for b in self.board_cards))
        deck = self.num_ranks * self.num_suits
        if not (1 <= self.num_ranks <= 13 and 1 <= self.num_suits <= 4):
            raise ConfigError(f"card spec {self.num_ranks} ranks x {self.num_suits} suits is invalid: expected "
                              "1..13 ranks and 1..4 suits")
        if self.hole_cards < 1 or min(self.board_cards, default=0) < 0 or not self.board_cards:
            raise ConfigError(f"card spec hole_cards = {self.hole_cards}, board_cards = {self.board_cards} is "
                              "invalid: expected >= 1 hole card and >= 0 board cards in each of >= 1 rounds")
        if 2 * self.hole_cards + sum(self.board_cards) > deck:
            raise ConfigError(f"card spec needs {2 * self.hole_cards + sum(self.board_cards)} cards; the deck has "
                              f"{deck}")
        if self.evaluator not in EVALUATORS or (self.evaluator == "custom") != (self.strength is not None):
            raise ConfigError(f"card spec evaluator = {self.evaluator!r} is invalid: expected one of "
                              f"{', '.join(EVALUATORS)} (custom with a strength function)")

    @property
    def rounds(self) -> int:
        return len(self.board_cards)

    @property
    def deck_size(self) -> int:
        return self.num_ranks * self.num_suits

    def cards_in(self, r: int) -> int:
        """Cards a player sees in round `r`: hole cards plus the board dealt so far."""
        return self.hole_cards + sum(self.board_cards[: r + 1])

    def key(self) -> list:
        """What identifies the spec in a table file (the strength function by its qualified name)."""
        fn = self.strength
        who = "" if fn is None else f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"
        return [self.num_ranks, self.num_suits, self.hole_cards, list(self.board_cards), self.evaluator, who]

    @classmethod
    def of(cls, gamedef, strength=None) -> "CardSpec":
        """The spec of a GameDef (solverkit.poker.gamedef); `strength`, a game's strength function
        (PokerGame.strength_function()), when it ranks hands otherwise than ACPC."""
        return cls(gamedef.num_ranks, gamedef.num_suits, gamedef.num_hole_cards, tuple(gamedef.num_board_cards),
                   "acpc" if strength is None else "custom", strength)

    @classmethod
    def of_game(cls, game) -> "CardSpec":
        """The spec of a poker game instance (its gamedef and strength function); ConfigError
        naming the game when it has no cards."""
        gd = getattr(game, "gd", None)
        if gd is None and callable(getattr(game, "gamedef", None)):
            gd = game.gamedef()
        if gd is None or not hasattr(gd, "num_board_cards"):
            raise ConfigError(f"game {getattr(game, 'name', game)!r} has no card structure: [abstraction] needs "
                              "a poker game (an ACPC gamedef)")
        fn = game.strength_function() if callable(getattr(game, "strength_function", None)) else None
        return cls.of(gd, fn)
