"""The resolution probe: how a fixed-point factor fits the values it stores (clipped, rounded to
0, coarse), so that a run is warned, or refused, before its factors throw its updates away."""

from __future__ import annotations

import threading

import numpy as np

from ..errors import ConfigError
from .grid import Grid

#: arrays of each family (with nonzero values) the resolution probe looks at
PROBE_ARRAYS = 256
#: values of an array the probe's histogram takes, at most (16 runs spread over it): well under
#: a millisecond an array, so the probe costs a fraction of a second in all
PROBE_SAMPLE = 16384


def _largest_units(x: np.ndarray, grid: Grid, scales: np.ndarray) -> float:
    """The largest |value| of `x` in stored units, each value times its block's factor (called
    only when an encode clipped: one vectorised pass)."""
    by_offset = np.argsort(grid.offset, kind="stable")
    factor = np.repeat(scales[grid.round[by_offset]], (grid.hands * grid.actions)[by_offset])
    return float(np.max(np.abs(x) * factor))


#: log2 of the stored magnitude of a nonzero value: bin i holds [2**(LOST_BINS[0] + i), twice
#: that); the first bin also holds everything smaller, the last everything larger
LOST_BINS = (-64, 40)
#: values under 2^-NOISE_BITS of a family's largest are floating-point noise to the probe
NOISE_BITS = 30
#: the share of a family's nonzero values that may round to 0 before a run is warned
LOST_SHARE_OK = 0.05
#: the share the factor a warning suggests rounds to 0 (CFR+ on leduc_tree, 300 iterations: 1.67x
#: the float store's exploitability at the factor that rounds 5% to 0, 1.04x at the one for 1%)
LOST_SHARE_SUGGESTED = 0.01
#: a family is coarse when more than COARSE_SHARE_OK of its nonzero values are under
#: 2^COARSE_EXP stored units (each kept to 12% or worse). Measured, CFR+ 100 iterations, 16 per
#: unit: kuhn_tree 56% of its regrets (15x the float store's exploitability at 100 iterations),
#: kuhn 1.1% and leduc 17% (results within a few % of float)
COARSE_EXP = 2
COARSE_SHARE_OK = 0.5
#: the factor a coarse warning suggests puts the median value at 2^COARSE_SUGGESTED_EXP units
#: (kuhn_tree, 100 iterations: 1.93x the float store's exploitability with the median at 64 units,
#: 1.04x at 256)
COARSE_SUGGESTED_EXP = 8


def _magnitude_histogram(x: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """Histogram (over LOST_BINS) of log2 of the nonzero |values| of `x` in stored units (times
    the smallest factor: the first values, if any, are the ones that round). A large array is
    sampled in 16 contiguous runs spread over it, PROBE_SAMPLE values in all."""
    n = x.shape[0]
    if n > PROBE_SAMPLE:
        run = PROBE_SAMPLE // 16
        x = np.concatenate([x[i: i + run] for i in np.linspace(0, n - run, 16).astype(np.int64)])
    u = np.abs(x) * float(np.min(scales))
    u = u[u > 0.0]
    e = np.clip(np.floor(np.log2(u)).astype(np.int64) - LOST_BINS[0], 0, LOST_BINS[1] - LOST_BINS[0])
    return np.bincount(e, minlength=LOST_BINS[1] - LOST_BINS[0] + 1)


class PrecisionProbe:
    """What a codec has seen of its fixed-point values: clipped counts and peaks per family, and
    the magnitudes of the first arrays of each; the warnings and refusals read them."""

    def __init__(self):
        self.saturated = 0
        #: family -> fixed-point values of that family clipped so far (they add up to `saturated`)
        self.saturated_by: dict[str, int] = {}
        #: family -> the largest |value| in stored units of an array that clipped (what the factor must fit)
        self.clip_peak: dict[str, float] = {}
        #: family -> (largest |value|, its size in stored units) over the first arrays encoded
        self.resolution: dict[str, tuple[float, float]] = {}
        #: family -> histogram over LOST_BINS of log2 |value| in stored units of the nonzero values of
        #: the first arrays encoded: how many of them the factor rounds to 0 (or near it)
        self.magnitudes: dict[str, np.ndarray] = {}
        #: family -> arrays with nonzero values still to probe (PROBE_ARRAYS each): a family that
        #: starts late (delayed averaging) is probed when its values appear
        self._probes: dict[str, int] = {}
        self._probe_lock = threading.Lock()

    @staticmethod
    def _peak_units(x, scales) -> float:
        """Largest |value| of `x` in stored units (an upper bound: largest |value| x largest factor)."""
        big = max(float(np.max(x)), -float(np.min(x))) if x.shape[0] else 0.0  # max |x| without a copy
        return big * float(np.max(scales))

    def _count_clipped(self, clipped: int, peak: float, scales, family: str) -> None:
        """Add an encode's clipped values to the counts and remember the largest value in stored
        units the family's factor had to fit (`peak`)."""
        if not clipped:
            return
        self.saturated += clipped
        self.saturated_by[family] = self.saturated_by.get(family, 0) + int(clipped)
        self.clip_peak[family] = max(self.clip_peak.get(family, 0.0), float(peak))

    def _probe(self, x, scales, family: str) -> None:
        """Record, for the first PROBE_ARRAYS arrays of each family that hold nonzero values, the
        largest value in stored units and a histogram of the nonzero values' magnitudes."""
        units = self._peak_units(x, scales)
        if units > 0.0:
            with self._probe_lock:
                self._probes[family] = self._probes.get(family, PROBE_ARRAYS) - 1
            big = units / float(np.max(scales))
            seen = self.resolution.get(family)
            self.resolution[family] = (max(seen[0], big), max(seen[1], units)) if seen else (big, units)
            hist = _magnitude_histogram(x, scales)
            with self._probe_lock:
                self.magnitudes[family] = self.magnitudes.get(family, 0) + hist

    def _significant(self, family: str) -> np.ndarray | None:
        """The family's magnitude histogram without the values under 2^-NOISE_BITS of its
        largest (floating-point noise such as a v_a - v of 1e-17, not values a solver needs)."""
        hist = self.magnitudes.get(family)
        if hist is None or not hist.sum():
            return None
        floor = int(np.floor(np.log2(self.resolution[family][1]))) - NOISE_BITS - LOST_BINS[0]
        hist = hist.copy()
        hist[:max(0, min(floor, hist.size))] = 0
        return hist if hist.sum() else None

    def lost_share(self, family: str) -> float:
        """Share of the nonzero values of `family` probed so far that round to 0 (under half a
        stored unit; noise aside): updates the fixed point throws away; 0.0 when none were probed."""
        hist = self._significant(family)
        if hist is None:
            return 0.0
        return float(hist[:-LOST_BINS[0] - 1].sum() / hist.sum())

    def coarse_share(self, family: str) -> float:
        """Share of the nonzero values of `family` probed so far under COARSE_UNITS stored units
        (noise aside): values the fixed point keeps only to 12% or worse; 0.0 when none were probed."""
        hist = self._significant(family)
        if hist is None:
            return 0.0
        return float(hist[:COARSE_EXP - LOST_BINS[0]].sum() / hist.sum())

    def factor_gain(self, family: str, share: float = LOST_SHARE_SUGGESTED, exp: int = -1) -> float:
        """The smallest power of two that, multiplying the family's factors, leaves at most
        `share` of its probed nonzero values under 2^exp stored units (default half a unit: they
        round to 0): what to suggest when too many do. Capped where the largest value seen so
        far would pass 2^21 units (room to grow 1,000x)."""
        hist = self._significant(family)
        if hist is None:
            return 1.0
        cum = np.cumsum(hist) / hist.sum()
        below = int(np.searchsorted(cum, share, side="right"))  # the bin that holds the `share` quantile
        gain = 2.0 ** max(0, exp - (LOST_BINS[0] + below))  # lifts that bin to 2^exp units
        room = 2.0 ** np.floor(np.log2(2.0**21 / self.resolution[family][1]))
        return float(max(1.0, min(gain, room)))

    def check_resolution(self, settings: dict) -> None:
        """Refuse fixed-point factors so small that every value seen so far rounds to 0 (the
        solver would learn nothing): `settings` maps a family to the config key naming its
        factor. Only what cannot recover is refused: no regret reached half a unit (a regret that
        rounds to 0 stays 0), or no average a thousandth of one (averages with growing weights
        may still register later)."""
        for fam, (_big, units) in sorted(self.resolution.items()):
            if units < (5e-4 if fam == "avg" else 0.5):
                key = settings.get(fam, f"{fam}_scale")
                raise ConfigError(
                    f"[store] {key} is too small: the largest {fam} value so far is {units:.3g} stored units, so every "
                    f"stored value rounds to 0 and the solver would learn nothing; expected a factor at least "
                    f"{0.5 / units:.3g} times larger (values of this size need half a unit to register)")
