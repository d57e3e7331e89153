"""The ``[search]`` table of an assembly: how an agent re-solves during play, and what
``solverkit exploit RUN --search`` evaluates (docs/search.md)."""

from __future__ import annotations

from ..core.params import Param, ParamSpec
from .resolve import METHODS

SEARCH_PARAMS = ParamSpec({
    "name": Param("str", "resolve", "re-solving method: " + "; ".join(f"{k}: {v}" for k, v in METHODS.items()),
                  choices=tuple(METHODS)),
    "iterations": Param("int", 300, "CFR+ iterations of each re-solve", min=1, max=1_000_000),
    "budget": Param("float", 0.0, "seconds per re-solve (a decision) in play and match: the iterations stop when "
                    "it is spent (0: no limit); `exploit --search` runs the iterations whatever the time, so that "
                    "its number does not depend on the machine", min=0.0),
    "round": Param("int", 1, "first betting round re-solved (1: from the second round on)", min=1),
    "nested": Param("bool", True, "re-solve again at the start of every later round, from the ranges the "
                    "earlier re-solves leave"),
    "per_card": Param("bool", True, "re-solve each public state after the round's new cards are seen (as an agent "
                      "does when it must act), else once per betting and earlier board with the new cards inside "
                      "(fewer, larger re-solves: Rhode Island's turn has 15,925 public states after the card, 637 before)"),
    "safety_check": Param("bool", True, "safe methods: keep the blueprint in a public state where the re-solve "
                          "lets some opponent hand gain (not converged), so search never adds exploitability"),
})


def resolve_search(table: dict) -> dict:
    """The checked [search] table with its defaults (ConfigError naming a bad key or value)."""
    return SEARCH_PARAMS.resolve(table, "[search]", ignore=())
