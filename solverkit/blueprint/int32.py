"""Compact blueprint regrets (``[game] regrets = "int32"``), as Pluribus stored them: an int32 a
value in a fixed-point unit (``regret_scale`` stored units per chip), floored (Pluribus:
-310,000,000), with Linear CFR's discount applied explicitly every ``discount_every`` iterations
(every stored regret times k / (k + 1) after the k-th interval) instead of the float64 mode's
lazy weights, which grow the stored values with t and so cannot live in an int32.

The discount is applied to player i's regrets just before i's traversal of the interval's first
iteration: each (iteration, player) traversal runs exactly once, whatever blocks or passes the
solver hands the game, so no state is kept for it and a checkpoint resumes bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
#: Pluribus's regret floor, in stored units (its pruning threshold was -300,000,000)
PLURIBUS_FLOOR = -310_000_000
#: regret_scale 0 (auto): the largest pot of the game is at most this many stored units (a power
#: of two per chip): 2^15 such pots from 0 to the int32 range, ~4,700 to Pluribus's floor
POT_UNITS = 1 << 16
#: discount_every 0 (auto): Linear CFR's `until` iterations in this many intervals (Pluribus: 40,
#: every 10 minutes for 400 minutes); 1,000 iterations a discount when lcfr has no `until`
DISCOUNTS = 40
EVERY_UNBOUNDED = 1000
#: [game] regrets choices
MODES = ("float64", "int32")


@dataclass(frozen=True)
class Int32Regrets:
    """The int32 mode's numbers: `scale` stored units per chip, `floor` in stored units, and
    `every`, iterations a discount interval (0: from the rule, :meth:`interval`)."""

    scale: float
    floor: int
    every: int = 0

    def units(self, chips: float) -> float:
        """`chips` (a threshold of the discounted regret) in stored units."""
        return float(chips) * self.scale

    def check_threshold(self, chips: float) -> None:
        """ConfigError when pruning threshold `chips` (< 0; 0: off) is at or below the floor."""
        if chips and self.units(chips) <= self.floor:
            raise ConfigError(f"[sampler] prune_threshold = {chips:g} chips ({self.units(chips):,.0f} stored units) "
                              f"is at or below the int32 regrets' floor ({self.floor:,} units = "
                              f"{self.floor / self.scale:g} chips): it would never prune; give a threshold above the "
                              "floor or a lower [game] regret_floor")

    def interval(self, until: int) -> int:
        """Iterations a discount interval under lcfr with `until` (0: lcfr throughout)."""
        if self.every:
            return self.every
        return max(1, until // DISCOUNTS) if until else EVERY_UNBOUNDED

    def discounts(self, ts: np.ndarray, until: int | None) -> np.ndarray:
        """Per iteration of ts: the factor k / (k + 1) player i's regrets take before i's traversal
        of iteration t when t - 1 = k D ends the k-th interval of D iterations with Linear CFR on
        (k D <= until, or always with until 0), else 1.0; `until` None: no lcfr, no discount.
        Interval k's iterations thus weigh k (then K + 1 after the last discount K), where the
        float64 mode weighs iteration t by min(t, until + 1)."""
        out = np.ones(ts.size)
        if until is None:
            return out
        D = self.interval(until)
        k: np.ndarray = (ts - 1) // D
        on = ((ts - 1) % D == 0) & (k >= 1)
        if until:
            on &= k * D <= until
        out[on] = k[on] / (k[on] + 1.0)
        return out


def auto_scale(max_pot: float) -> float:
    """Stored units per chip for a game whose largest pot is `max_pot` chips: the power of two
    that puts that pot at most :data:`POT_UNITS` units (hold'em with 100 big blinds of 100 chips
    a player, six players: 1 unit a chip, as Pluribus)."""
    return 2.0 ** math.floor(math.log2(POT_UNITS / max(float(max_pot), 1e-9)))


def settings(mode: str, scale: float, floor: float, every: int, max_pot: float, prune_threshold: float = 0.0):
    """The int32 mode's :class:`Int32Regrets` (None for float64) from [game] regrets,
    regret_scale (0: :func:`auto_scale`), regret_floor in chips (0: :data:`PLURIBUS_FLOOR` stored
    units) and discount_every; ConfigError naming a bad value."""
    if mode not in MODES:
        raise ConfigError(f"[game] regrets = {mode!r} is invalid: expected one of {', '.join(MODES)}")
    if mode == "float64":
        return None
    scale = float(scale) or auto_scale(max_pot)
    if not math.isfinite(scale) or scale <= 0:
        raise ConfigError(f"[game] regret_scale = {scale:g} is invalid: expected a number > 0 (0: auto)")
    units = round(float(floor) * scale) if floor else PLURIBUS_FLOOR
    if not INT32_MIN <= units < 0:
        raise ConfigError(f"[game] regret_floor = {floor:g} chips is {units:,} stored units at regret_scale = "
                          f"{scale:g}: expected -2^31 <= units < 0 (a floor below 0 chips, or 0: Pluribus's "
                          f"{PLURIBUS_FLOOR:,} units)")
    out = Int32Regrets(scale, int(units), int(every))
    out.check_threshold(prune_threshold)
    return out


def check_replicas(int32_regrets: bool, replicas: int) -> None:
    """ConfigError: int32 regrets run one replica (their explicit discounts and clipped merges are
    not those of the float64 rounds)."""
    if int32_regrets and replicas > 1:
        raise ConfigError(f"[game] replicas = {replicas} with regrets = \"int32\" is not supported (the "
                          "replicas' merges are float64 sums): use replicas = 1, or regrets = \"float64\"")


def packed_size(n: int) -> int:
    """float64 slots of the store holding n int32 values (two a slot)."""
    return (int(n) + 1) // 2


def unpacked(arr: np.ndarray, n: int) -> np.ndarray:
    """The n int32 values packed in float64 array `arr` (a view: writes go to `arr`)."""
    return arr.view(np.int32)[:n]


def saturation_line(count: int, iteration: int, scale: float) -> str:
    """The one warning a run prints when regrets reach the int32 range."""
    return (f"warning: int32 blueprint regrets saturated: {count:,} values clipped to the int32 range by iteration "
            f"{iteration}: from here on those regrets are wrong; set a smaller [game] regret_scale (now {scale:g} "
            f"units a chip, e.g. {scale / 4:g}) or regrets = \"float64\"")


def lcfr_until(rule) -> int | None:
    """The int32 mode's view of a regret rule: None for one without lazy weights (plain sums: no
    discount), lcfr's `until` (0: throughout); ConfigError for another lazily weighted rule (only
    Linear CFR's discount is applied explicitly here)."""
    if rule is None or getattr(rule, "increment_weight", None) is None:
        return None
    if getattr(rule, "name", "") != "lcfr":
        raise ConfigError(f"[rule] name = {rule.name!r} with [game] regrets = \"int32\": the int32 regrets apply "
                          "Linear CFR's discount explicitly and know no other lazily weighted rule; use rule lcfr "
                          "or rm, or regrets = \"float64\"")
    return int(rule.config.get("until", 0) or 0)
