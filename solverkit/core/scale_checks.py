"""Warnings and refusals about fixed-point factors (``[store] regret_scale``, ``avg_scale``): too
coarse, clipping, rescaled by a rule, so that a run whose stored precision spoils its results says so."""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError


def _factor_text(factor: float) -> str:
    """A fixed-point factor as a config value: 65536, 0.25."""
    # beyond 2**53 the digits of .0f are float noise (a factor of 1e308 was written with 309 of them)
    return f"{factor:.0f}" if 1 <= factor < 2.0 ** 53 else f"{factor:g}"


def _configured(store: dict, key: str) -> float:
    """The largest factor a ``[store]`` key names (a state_scale left empty is regret_scale's)."""
    factors = store.get(key) or (store.get("regret_scale") if key == "state_scale" else None) or [0.0]
    return float(max(factors))


def precision_warnings(codec, settings: dict[str, str], store: dict, said: set | None = None) -> list[str]:
    """One line per array family whose fixed-point factor rounds more than LOST_SHARE_OK of its
    nonzero values (as probed in the first arrays that hold any) to 0: those updates are lost,
    and the results differ from a float store's without an error. `settings` maps a family to
    its ``[store]`` key, `store` is the ``[store]`` table; families in `said` are skipped and
    those warned are added to it. Each line names the share and the factor that keeps 99%."""
    from .precision_probe import COARSE_EXP, COARSE_SHARE_OK, COARSE_SUGGESTED_EXP, LOST_SHARE_OK, LOST_SHARE_SUGGESTED

    said = set() if said is None else said
    lines = []
    for fam in sorted(codec.magnitudes):
        share = codec.lost_share(fam) if fam not in said else 0.0
        coarse = codec.coarse_share(fam) if fam not in said else 0.0
        if share <= LOST_SHARE_OK and coarse > COARSE_SHARE_OK:
            said.add(fam)
            key = settings.get(fam, f"{fam}_scale")
            now, gain = _configured(store, key), codec.factor_gain(fam, 0.5, COARSE_SUGGESTED_EXP)
            fix = (f"set {key} = {_factor_text(now * gain)} (the median value at {2 ** COARSE_SUGGESTED_EXP} units), "
                   f"or {key} = [] for float64" if gain > 1.0 else
                   f"no larger factor leaves room for its largest values: set {key} = [] (float64)")
            lines.append(
                f"[store] {key} = {_factor_text(now)} is coarse: {coarse:.0%} of the nonzero {fam} values of its "
                f"first updates are under {2 ** COARSE_EXP} stored units, kept to 12% or worse, so the results "
                f"will differ from a float64 store's; {fix}")
        elif share > LOST_SHARE_OK:
            said.add(fam)
            key = settings.get(fam, f"{fam}_scale")
            now, gain = _configured(store, key), codec.factor_gain(fam)
            fix = (f"set {key} = {_factor_text(now * gain)} (rounds at most {LOST_SHARE_SUGGESTED:.0%} of them to 0), "
                   f"or {key} = [] for float64" if gain > 1.0 else
                   f"no larger factor leaves room for its largest values: set {key} = [] (float64)")
            lines.append(
                f"[store] {key} = {_factor_text(now)} is too coarse: {share:.1%} of the nonzero {fam} values of its "
                f"first updates round to 0 (under half a stored unit), so those updates are lost and the results "
                f"will differ from a float64 store's; {fix}")
    return lines


def saturation_warning(codec, count: int, iteration: int, settings: dict[str, str], store: dict,
                       growth: dict[str, float]) -> str:
    """The line that says fixed-point values clipped: how many by `iteration`, in which family,
    and the factor that fits the largest of them with room for `growth` (family -> how much
    larger its values get by the end of the run)."""
    fams = sorted(codec.saturated_by)
    fixes = []
    for fam in fams:
        key = settings.get(fam, f"{fam}_scale")
        now, peak, more = _configured(store, key), codec.clip_peak.get(fam, 0.0), max(growth.get(fam, 1.0), 1.0)
        if now and peak:
            # in log2: now * INT32_RANGE overflows to inf for a huge factor (it suggested "= inf")
            fit = 2.0 ** np.floor(np.log2(now) + np.log2(INT32_RANGE) - np.log2(peak) - np.log2(more))
            grows = f", {more:.3g}x more by the last iteration" if more > 1.0 else ""
            fixes.append(f"{key} = {_factor_text(fit)} (now {_factor_text(now)}; the largest "
                         f"{fam} value reached {peak:.3g} stored units{grows})")
    where = f" ({', '.join(f'{fam}: {codec.saturated_by[fam]:,}' for fam in fams)})" if fams else ""
    fix = "; ".join(fixes) if fixes else "a smaller [store] regret_scale / avg_scale / state_scale"
    return (f"{count:,} values clipped to the int32 range by iteration {iteration}{where}: from here on the stored "
            f"values are wrong and so are the results; set {fix}, or [] (float64) for that array")


def clip_forecast(averaging, factors, iterations: int, limit: int = 1_000_000) -> str | None:
    """The warning, before a run starts, that its fixed-point averages will clip: the scheme's
    cumulative weight W(t) (what the averages of an information set reached every iteration,
    such as the first decision, add up to) times the largest of `factors` passes the int32 range
    at an iteration t <= `iterations` (looked for up to `limit`); None when it does not."""
    if not factors or not averaging.keeps_average or not averaging.inline:
        return None
    factor, total = float(max(factors)), 0.0
    for t in range(1, min(int(iterations), limit) + 1):
        decay, weight = averaging.coefficients(t)
        total = total * decay + weight
        if total * factor >= INT32_RANGE:
            break
    else:
        return None
    end = float(total)
    for s in range(t + 1, min(int(iterations), limit) + 1):  # the weight the whole run reaches
        decay, weight = averaging.coefficients(s)
        end = end * decay + weight
    fit = 2.0 ** np.floor(np.log2(INT32_RANGE / end))
    return (f"[store] avg_scale = {_factor_text(factor)} with averaging {averaging.name!r} will clip: its cumulative "
            f"weight x avg_scale passes 2^31 at iteration {t:,}, so the averages of information sets reached every "
            f"iteration (the first decision's) clip from about there, before the run's {int(iterations):,} "
            f"iterations; set avg_scale = {_factor_text(fit)} or [] (float64), or use fewer iterations")


def rescale_warning(rule, store: dict) -> str | None:
    """The warning, at a run's start, that a rule which rescales every stored regret each
    iteration (lcfr, dcfr, dcfr_plus, pdcfr_plus) rounds them again at every rescale on a
    regret_scale under MIN_RESCALED_REGRET_SCALE; None otherwise."""
    regret = store.get("regret_scale") or []
    if not regret or min(regret) >= MIN_RESCALED_REGRET_SCALE or not getattr(rule, "inline", False):
        return None
    if all(tuple(rule.kernel_coefficients(t))[:3] == (1.0, 1.0, 1.0) for t in (2, 3, 10, 100)):
        return None
    return (f"[store] regret_scale = {_factor_text(min(regret))} with regret rule {rule.name!r}: the rule rescales "
            f"every stored regret each iteration, and each rescale rounds them to the fixed point again (DCFR and "
            f"DCFR+ on Leduc, 300 iterations, at 16: 2.1x the float store's exploitability; at 64-256 within "
            f"about 25%); set regret_scale = {MIN_RESCALED_REGRET_SCALE:.0f} (DCFR+: within 1%) or [] (float64)")


#: the largest magnitude an int32 holds
INT32_RANGE = float(2**31 - 1)
#: the regret_scale from which rules that rescale the regrets every iteration are not warned
#: (DCFR+ on Leduc, 300 iterations: 2.1x the float store's exploitability at 16, 1.17x at 64,
#: 1.22x at 256, 1.002x at 4096; DCFR 2.1x, 0.73x, 1.12x; LCFR 0.80x, 1.13x, 0.81x)
MIN_RESCALED_REGRET_SCALE = 4096.0
#: the smallest avg_scale an averaging that decays the whole average every iteration (power)
#: may use: each decay rounds every value to 1 / factor while one iteration adds at most reach x
#: probability to it. Leduc, 300 iterations, exploitability against the float store's: PCFR+
#: 22.8x and DCFR+ 51x at 16; at 4096 1.05x (PCFR+, leduc_tree) and 1.1x (DCFR+, leduc); within
#: 1% at 65536. Below it, refused; above it, the first iterations' probe still warns when too
#: many values round to 0 (:func:`precision_warnings`)
MIN_DECAYING_AVG_SCALE = 4096.0
#: the smallest regret_scale a predictive rule (pcfr_plus, pdcfr_plus) may use. PCFR+,
#: exploitability against the float store's after 300 iterations: Leduc 1.51x at 16, 1.07x at
#: 64, 1.00x at 256 and 1024; Kuhn 3,240x at 16 (0.0023 against 7e-7 chips), 118x at 256
MIN_PREDICTIVE_REGRET_SCALE = 256.0


def check_scales(store: dict, averaging, rule=None) -> None:
    """ConfigError for a fixed point too coarse for what the run does with it: an average that
    an averaging scheme decays every iteration (the whole average is rounded again each time:
    it stops learning), or regrets that a predictive rule plays (the prediction is one
    iteration's regret: rounding it moves every policy)."""
    regret = store.get("regret_scale") or []
    if rule is not None and getattr(rule, "predictive", False) and regret and min(regret) < MIN_PREDICTIVE_REGRET_SCALE:
        raise ConfigError(
            f"[store] regret_scale = {_factor_text(min(regret))} is too coarse for regret rule {rule.name!r}: a "
            f"predictive rule plays regret + prediction, both rounded to multiples of 1/{_factor_text(min(regret))}, "
            f"and ends far from the float store (Leduc, 300 iterations: 1.5x the float store's exploitability at 16, 1.07x at "
            f"64; Kuhn: 3,000x at 16); set regret_scale >= {MIN_PREDICTIVE_REGRET_SCALE:.0f} (Leduc: within 1%), "
            "regret_scale = [] (float64), or a rule without prediction (rm_plus, dcfr)")
    scales = store.get("avg_scale") or []
    if not scales or not averaging.keeps_average or not averaging.inline:
        return
    decaying = [t for t in (2, 3, 10, 100) if averaging.coefficients(t)[0] != 1.0]
    if decaying and min(scales) < MIN_DECAYING_AVG_SCALE:
        decay = averaging.coefficients(decaying[0])[0]
        raise ConfigError(
            f"[store] avg_scale = {_factor_text(min(scales))} is too coarse for averaging {averaging.name!r}: it "
            f"multiplies the whole average by {decay:.3g} at iteration {decaying[0]} (and by a decay every iteration), "
            f"rounding every value to 1/{_factor_text(min(scales))} each time, while one iteration adds at most reach x "
            f"probability (< 1): the average stops learning (PCFR+ on Leduc: 23x the float store's exploitability); "
            f"set avg_scale >= {MIN_DECAYING_AVG_SCALE:.0f} (65536 for results within 1% of float64), avg_scale = [] "
            "(float64), or an averaging without decay (linear, quadratic)")
