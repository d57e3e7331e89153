"""The ``[search]`` table of an assembly: how an agent re-solves during play, and what
``solverkit exploit RUN --search`` evaluates (docs/search.md)."""

from __future__ import annotations

from ..core.params import Param, ParamSpec
from .continuations import DEFAULT_CONTINUATIONS, check_options
from .resolve import SEARCHES

SEARCH_PARAMS = ParamSpec({
    "name": Param("str", "resolve", "search method: " + "; ".join(f"{k}: {v}" for k, v in SEARCHES.items()),
                  choices=tuple(SEARCHES)),
    "iterations": Param("int", 300, "CFR+ iterations of each re-solve", min=1, max=1_000_000),
    "budget": Param("float", 0.0, "seconds per re-solve (a decision) in play and match: the iterations stop when "
                    "it is spent (0: no limit); `exploit --search` runs the iterations whatever the time, so that "
                    "its number does not depend on the machine", min=0.0),
    "round": Param("int", 1, "first betting round re-solved (1: from the second round on; depth_limited also "
                   "takes 0: from the deal)", min=0),
    "nested": Param("bool", True, "re-solve again at the start of every later round, from the ranges the "
                    "earlier re-solves leave"),
    "per_card": Param("bool", True, "re-solve each public state after the round's new cards are seen (as an agent "
                      "does when it must act), else once per betting and earlier board with the new cards inside "
                      "(fewer, larger re-solves: Rhode Island's turn has 15,925 public states after the card, 637 before)"),
    "safety_check": Param("bool", True, "safe methods: keep the blueprint in a public state where the re-solve "
                          "lets some opponent hand gain (not converged), so search never adds exploitability"),
    "depth": Param("int", 1, "depth_limited: betting rounds each re-solve covers before its leaves", min=1),
    "continuations": Param("str", list(DEFAULT_CONTINUATIONS), "depth_limited: a list of the continuation "
                           "strategies the opponent picks from at a leaf, per hand (blueprint, fold, call, raise: "
                           "the blueprint, or biased toward that action class)"),
    "bias": Param("float", 5.0, "depth_limited: factor on the biased class's probabilities in a continuation "
                  "(then renormalised)", min=0.0, min_exclusive=True),
})

#: the options only depth_limited reads (searched_strategy's keywords)
DEPTH_LIMITED_KEYS = ("depth", "continuations", "bias")


def resolve_search(table: dict) -> dict:
    """The checked [search] table with its defaults (ConfigError naming a bad key or value)."""
    table = dict(table)
    continuations = table.pop("continuations", DEFAULT_CONTINUATIONS)  # a list of names: checked below
    out = SEARCH_PARAMS.resolve(table, "[search]", ignore=())
    out["continuations"] = list(check_options(out["depth"], continuations, out["bias"])[1])
    return out


def depth_limited_options(settings: dict) -> dict:
    """searched_strategy's depth-limited keywords from a resolved [search] table (none for the
    other methods, which do not take them)."""
    if settings["name"] != "depth_limited":
        return {}
    return {k: settings[k] for k in DEPTH_LIMITED_KEYS}
