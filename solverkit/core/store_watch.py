"""The fixed-point store's warnings during a solve: factors too coarse, values clipped (a Solver mixin)."""

from __future__ import annotations

import numpy as np

from .progress import say
from .store import clip_forecast, precision_warnings, rescale_warning, saturation_warning

#: iterations over which Solver._growth sums an averaging's weights exactly before it extrapolates
#: (from 4 iterations it underestimated linear averaging's growth to 300 iterations by half, and
#: the factor the clipping warning suggested clipped again)
GROWTH_EXACT = 1_000_000

#: how the warning that fixed-point values were clipped starts (said once per run)
CLIP_WARNING = "fixed point saturated: "


class StoreWatch:
    """What the Solver says about its fixed-point store: the forecast before a run grows its
    values, then each family whose factor rounds too much to 0 and the first clipping (once each).
    Needs ``assembly``, ``store``, ``values``, ``iteration``, ``planned_iterations``, ``notice``,
    ``store_warnings`` and ``_precision_said``."""

    def _first_warnings(self) -> None:
        """After the first iteration: averages that will outgrow the int32 range, regrets rounded at every rescale."""
        a = self.assembly
        forecast = clip_forecast(a.averaging, a.store.get("avg_scale"), self.planned_iterations or 0)
        for line in filter(None, (forecast, rescale_warning(a.rule, a.store))):
            self._warn(line)

    def _scale_keys(self) -> dict[str, str]:
        """Array family -> the ``[store]`` key naming its fixed-point factor."""
        return {"regret": "regret_scale", "avg": "avg_scale", **{name: "state_scale" for name in self.assembly.rule.state}}

    def _warn(self, line: str) -> None:
        """Say a warning about the store now (stderr) and keep it for result.json."""
        if line not in self.store_warnings:
            self.store_warnings.append(line)
            (self.notice or say)(f"warning: {line}")

    def _check_store(self) -> None:
        """Warn once per array family whose factor rounds too many of its values to 0 (from the
        third iteration: the first ones' values are the smallest), and once when values clipped."""
        if not self.store.codec.scales:
            return
        if self.iteration >= 3:
            for line in precision_warnings(self.store.codec, self._scale_keys(), self.assembly.store,
                                           self._precision_said):
                self._warn(line)
        self._check_clipping()

    def _check_clipping(self) -> None:
        """Warn, the first time it happens, that fixed-point values were clipped (a silently
        wrong store from then on), with the factor that fits them."""
        if any(w.startswith(CLIP_WARNING) for w in self.store_warnings):
            return
        count = self.values.saturated_values()
        if count:
            growth = {fam: self._growth(fam) for fam in self.store.codec.saturated_by}
            self._warn(CLIP_WARNING + saturation_warning(self.store.codec, count, self.iteration, self._scale_keys(),
                                                         self.assembly.store, growth))

    def _growth(self, family: str) -> float:
        """How much larger the values of `family` may get from now to the planned last iteration:
        the averaging's total weight there over now's for averages, the iterations' ratio (a
        regret grows at most linearly) for the others; 1 when the end is not known."""
        t, end = max(self.iteration, 1), self.planned_iterations
        if not end or end <= t:
            return 1.0
        if family != "avg":
            return end / t
        averaging, total, at = self.assembly.averaging, 0.0, 0.0
        horizon = min(end, max(4 * t, GROWTH_EXACT))  # summed exactly this far (~0.2 s a million)
        for s in range(1, horizon + 1):  # the scheme's total weight W(s) = W(s-1) decay + weight
            decay, weight = averaging.coefficients(s)
            total = total * decay + weight
            at = total if s == t else at
        if end > horizon and at > 0:  # beyond: extrapolate W's growth from t to the horizon as a power law
            return total / at * (end / horizon) ** (np.log(total / at) / np.log(horizon / t))
        return total / at if at > 0 else 1.0

