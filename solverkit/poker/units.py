"""What a poker game shows the user: values in chips, displayed in milli-big-blinds per game,
and its OpenSpiel counterpart. Poker game plugins mix this into their PokerGame classes."""

from __future__ import annotations

from ..core.units import Unit

#: mbb/g: the unit of poker exploitability (metrics column exploitability_mbb, [solver] target_mbb)
MBB = "mbb"


class PokerUnits:
    """Mixin for a :class:`~solverkit.poker.game.PokerGame`: native values are chips, shown in
    mbb/g (1000 / big blind per chip) too; strategies export to OpenSpiel."""

    unit_name = "chips"

    def units(self) -> tuple[Unit, ...]:
        """mbb/g: 1000 milli-big-blinds per big blind (the game definition's big blind)."""
        return (Unit("mbb/g", MBB, 1000.0 / self.gd.big_blind, "milli-big-blinds per game"),)

    def openspiel_table(self, strategy) -> dict:
        """OpenSpiel information-state string -> {action id: probability}."""
        from .openspiel import openspiel_table

        return openspiel_table(self, strategy)
