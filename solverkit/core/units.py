"""Display units a game declares (e.g. milli-big-blinds per game), and everything the solver derives from them:
metrics columns, ``result.json`` fields, ``[solver] target_<key>`` stops and printed values.

The core knows no unit by name: a game's :meth:`~solverkit.core.game.Game.units` returns
:class:`Unit` objects and these helpers turn each into columns, keys and text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..errors import ConfigError, PluginError, choices
from .params import Param

_KEY = re.compile(r"[a-z][a-z0-9_]*")
#: metrics column of the average (output) strategy's exploitability, and of the current one's
EXPLOITABILITY = "exploitability"
CURRENT = "exploitability_current"


@dataclass(frozen=True)
class Unit:
    """A display unit: value in this unit = native value x ``factor``.

    ``key`` names what the solver derives: metrics columns ``exploitability_<key>`` and
    ``exploitability_current_<key>``, ``result.json`` fields ``exploitability_<key>`` and
    ``target_<key>``, and the config key ``[solver] target_<key>``.
    """

    name: str
    key: str
    factor: float
    description: str = ""

    def __post_init__(self):
        if not isinstance(self.key, str) or not _KEY.fullmatch(self.key):
            raise PluginError(f"unit {self.name!r}: key {self.key!r} is invalid: expected lower-case letters, "
                              "digits and underscores, starting with a letter (e.g. 'cents')")
        if not isinstance(self.factor, (int, float)) or not math.isfinite(self.factor) or self.factor <= 0:
            raise PluginError(f"unit {self.name!r}: factor {self.factor!r} is invalid: expected a finite number > 0")

    @property
    def column(self) -> str:
        return f"{EXPLOITABILITY}_{self.key}"

    @property
    def current_column(self) -> str:
        return f"{CURRENT}_{self.key}"

    @property
    def target_key(self) -> str:
        return f"target_{self.key}"


def units_of(game) -> tuple[Unit, ...]:
    """The game's display units, checked: a tuple of Unit with distinct keys."""
    units = tuple(game.units())
    for u in units:
        if not isinstance(u, Unit):
            raise PluginError(f"game {game.name!r}: units() returned {u!r}; expected solverkit.core.units.Unit")
    keys = [u.key for u in units]
    if len(set(keys)) != len(keys):
        raise PluginError(f"game {game.name!r}: units() returned duplicate keys {keys!r}")
    return units


def plot_unit(game) -> tuple[str, str, float]:
    """The y axis of a game's plots (a run's report, a study's figures): (metrics column, unit
    label, native -> axis factor): the game's first display unit (mbb/g for poker), else its
    own unit (chips, payoff, utility)."""
    units = units_of(game)
    if units:
        return units[0].column, units[0].name, float(units[0].factor)
    return EXPLOITABILITY, getattr(game, "unit_name", ""), 1.0


def unit_columns(game, current: bool = False) -> tuple[str, ...]:
    """Extra metrics columns of `game`'s units, for the output or the `current` strategy."""
    return tuple(u.current_column if current else u.column for u in units_of(game))


def unit_values(game, exploitability: float, current: bool = False) -> dict[str, float]:
    """Metrics row entries: `exploitability` (native) in each of the game's units."""
    return {(u.current_column if current else u.column): exploitability * u.factor for u in units_of(game)}


def target_params(game) -> dict[str, Param]:
    """``[solver] target_<key>`` parameters the game's units add."""
    return {
        u.target_key: Param("float", 0.0, f"stop once exploitability <= this many {u.name} (0: never)", min=0.0)
        for u in units_of(game)
    }


def drop_foreign_targets(table: dict, game) -> dict:
    """`table` without ``target_<key>`` entries of units `game` lacks when they are 0 (never:
    what every run's config.toml held before units were the game's); any other value is an
    error naming the key and the game's unit targets."""
    own = target_params(game)
    out = {}
    for key, value in table.items():
        if key.startswith("target_") and key not in own:
            if value == 0 and not isinstance(value, bool):
                continue
            raise ConfigError(f"[solver] {key} = {value!r}: game {game.name!r} declares no unit "
                              f"{key[len('target_'):]!r}; its unit targets: {choices(own)} "
                              "(or use [solver] target, in the game's own units)")
        out[key] = value
    return out


def reached(row: dict, targets: dict[str, float], game) -> bool:
    """Whether a metrics row meets any unit target (``{"target_<key>": limit}``; 0: none)."""
    for u in units_of(game):
        limit = float(targets.get(u.target_key, 0.0) or 0.0)
        if limit > 0 and row.get(u.column, math.inf) <= limit:
            return True
    return False


def describe(game, exploitability: float, digits: int = 6, unit_digits: int = 4) -> str:
    """``0.25 dollars = 25 cents``: a native value, its unit label, then each display unit."""
    native = getattr(game, "unit_name", "")
    text = f"{exploitability:.{digits}g}" + (f" {native}" if native else "")
    for u in units_of(game):
        text += f" = {exploitability * u.factor:.{unit_digits}g} {u.name}"
    return text
