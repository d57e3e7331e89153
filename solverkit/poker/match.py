"""Matches between two players of a poker game: the exact expected value (both seatings, every
deal weighed) and a sampled duplicate match through the ACPC-protocol dealer, in mbb/g. In a
no-limit game the exact value needs both players' strategies over the same abstraction; the
sampled match plays the real game, translating off-tree bets."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import SolverkitError
from .dealer import Dealer, match_with_agents


@dataclass
class MatchReport:
    """A's winnings against B per game, in mbb/g: exact, and sampled with a 95% interval."""

    a: str
    b: str
    exact_mbb: float | None
    sampled_mbb: float | None = None
    half_width_mbb: float | None = None
    hands: int = 0
    seconds: float = 0.0
    illegal: tuple[int, int] = (0, 0)
    #: the samples the interval is over (a duplicate match: its deal pairs)
    samples: int = 0
    #: why there is no exact value (no-limit players that do not share an abstraction), or None
    no_exact: str | None = None
    #: no-limit: per player, opponent bets translated, hands that left the tree, own bets clamped
    translation: tuple = ()

    def lines(self) -> list[str]:
        out = [f"A = {self.a}", f"B = {self.b}"]
        if self.exact_mbb is not None:
            out.append(f"A's expected winnings (exact, both seats): {self.exact_mbb:+.3f} mbb/g")
        elif self.no_exact:
            out.append(f"no exact value: {self.no_exact}")
        if self.sampled_mbb is not None:
            out.append(self._sampled_line())
        if any(self.illegal):
            out.append(f"illegal actions read as calls (a no-limit raise outside the legal sizes: moved to the "
                       f"nearest): A {self.illegal[0]}, B {self.illegal[1]}")
        for who, stats in zip("AB", self.translation):
            if stats and any(stats.values()):
                out.append(f"{who}'s translation: {stats['translated']:,} opponent sizes off its tree mapped "
                           f"(pseudo-harmonic), {stats['off_tree_hands']:,} hands finished off the tree "
                           f"(check/call), {stats['clamped']:,} own bets clamped to the legal sizes")
        return out


    def _sampled_line(self) -> str:
        """The sampled result with its 95% interval, or, from fewer than 2 samples (no variance
        to estimate), the mean alone and why there is no interval."""
        head = f"A's winnings over {self.hands:,} hands (duplicate): {self.sampled_mbb:+.2f} mbb/g"
        if self.half_width_mbb is None or not math.isfinite(self.half_width_mbb) or self.samples < 2:
            return (f"{head}, no 95% interval: {self.samples} deal pair(s), an interval needs at least 2 (--hands 4 "
                    f"or more), {self.seconds:.1f} s")
        return f"{head} +/- {self.half_width_mbb:.2f} mbb/g (95% interval over {self.samples:,} deal pairs), " \
               f"{self.seconds:.1f} s"


def mbb(game) -> float:
    """Chips per milli-big-blind of the game (mbb/g = chips / this)."""
    return game.gd.big_blind / 1000.0


def exact_value(game, a, b) -> float:
    """A's expected chips per game against B, A in each position half the time."""
    a_first = game.expected_values([a.strategy[0], b.strategy[1]])[0]
    a_second = game.expected_values([b.strategy[0], a.strategy[1]])[1]
    return (a_first + a_second) / 2.0


def sampled_match(game, a, b, hands: int, seed: int = 0, timeout: float = 30.0):
    """A duplicate match of `hands` hands through the dealer over loopback TCP, A in seat 0."""
    dealer = Dealer(game, hands, seed=seed, duplicate=True, action_timeout=timeout, connect_timeout=timeout)
    return match_with_agents(dealer, (a, b), (seed * 2 + 1, seed * 2 + 2), timeout)


def exact_refusal(game, a, b) -> str | None:
    """Why the exact value of A against B cannot be computed (None when it can): in a no-limit
    game both must be strategies over the match game's own abstraction."""
    from ..core.identity import game_identity
    from .players import NoLimitBot, is_nolimit

    for p in (a, b):
        if hasattr(p, "blueprint_game"):
            return f"{p.name} is a blueprint over buckets (the sampled match plays it in the real game)"
    if not is_nolimit(game):
        return None
    for p in (a, b):
        if isinstance(p, NoLimitBot):
            return (f"{p.name} is a no-limit baseline betting any size, not a strategy over an abstraction "
                    "(the sampled match plays it)")
    if game_identity(a.game) != game_identity(b.game):
        return "A and B were solved over different abstractions of the game (the sampled match translates)"
    return None


def run_match(game, a, b, hands: int = 0, seed: int = 0, exact: bool = True) -> MatchReport:
    """The exact value (when `exact` and the players allow it) and a sampled duplicate match of
    `hands` hands (0: none)."""
    unit = mbb(game)
    refusal = exact_refusal(game, a, b) if exact else None
    if refusal and not hands:
        raise SolverkitError(f"no exact value: {refusal}; give --hands N (even) for a sampled match")
    tree_game = a.game if exact and not refusal else None  # no-limit: the players' abstraction, not the match's
    report = MatchReport(a.name, b.name, exact_value(tree_game, a, b) / unit if tree_game is not None else None,
                         no_exact=refusal)
    if hands:
        if b is a and hasattr(a, "stats"):  # a no-limit agent follows one hand at a time: one per seat
            b = type(a)(getattr(a, "blueprint_game", a.game), a.strategy, a.name)
        result = sampled_match(game, a, b, hands, seed)
        mean, half, n = result.per_game(0, unit)
        report.sampled_mbb, report.half_width_mbb, report.hands = mean, half, n
        report.samples = n // 2  # the dealer's duplicate match: its interval is over deal pairs
        report.seconds, report.illegal = result.seconds, tuple(result.illegal)
        report.translation = tuple(dict(getattr(p, "stats", {}) or {}) for p in (a, b))
    return report
