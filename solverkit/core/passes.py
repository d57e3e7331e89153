"""What an engine's pass takes from a store segment and gives back: the rule's side of a pass.

Engines traverse; rules and averaging schemes update. An engine's kernel needs, per player, a
*policy source* (values it regret-matches), the array its regret updates go to, and the array
its average contributions go to. :func:`segment_arrays` hands these out for one open segment
and :func:`finish_segment` applies, after the kernel, whatever the kernel could not apply
itself (a custom or stateful rule's update, a custom averaging scheme). Every engine (matrix,
poker, the generic tree engine) goes through these two functions, so a rule plugin works on
all of them and on every store.
"""

from __future__ import annotations

import functools

import numpy as np

#: kernel coefficients of a pass that changes nothing: (pre, pos, neg, floor, decay, weight)
NO_COEFFS = (1.0, 1.0, 1.0, -np.inf, 1.0, 0.0)
#: (pre, pos, neg, floor) that make a kernel write the instantaneous regret into a zero buffer
DELTA_COEFFS = (1.0, 1.0, 1.0, -np.inf)


def _bits(players) -> int:
    """Players as the bit mask a kernel and :func:`writes` take (player p: bit p)."""
    m = 0
    for p in players:
        m |= 1 << p
    return m


def blocks_of(store, key: str, name: str):
    """(block_start, block_count, block_actions) of array `name` of segment `key`: the
    information sets a policy is normalised over."""
    g = store.grid(key, name)
    return g.offset, g.hands, g.actions


def rule_of(store):
    """The regret rule whose policy the store's regrets are played with (None: regret matching)."""
    return getattr(store, "rule", None)


def state_of(seg, rule, player: int) -> dict:
    """A rule's state arrays of `player` in an open segment, by state name."""
    if rule is None or not rule.state:
        return {}
    return {s: seg[f"{s}{player}"] for s in rule.state}


def policy_source(store, seg, key: str, player: int, rule=None, out=None) -> np.ndarray:
    """The values whose regret matching is `player`'s current policy in segment `key`: the
    regrets themselves for plain rules (no copy), else the rule's :meth:`policy_source` (into
    `out` when given)."""
    rule = rule or rule_of(store)
    regret = seg[f"regret{player}"]
    if rule is None or rule.plain_policy:
        return regret
    return rule.policy_source(regret, state_of(seg, rule, player), blocks_of(store, key, f"regret{player}"), out)


def _scratch(scratch, name: str, like: np.ndarray, zero: bool) -> np.ndarray:
    """A buffer shaped as `like`: new, or the one `scratch` (a dict kept by the caller between
    passes) holds under `name`, zeroed when `zero`."""
    if scratch is None:
        return np.zeros_like(like) if zero else np.empty_like(like)
    buf = scratch.get(name)
    if buf is None or buf.shape != like.shape or buf.dtype != like.dtype:
        buf = scratch[name] = np.zeros_like(like)
    elif zero:
        buf.fill(0.0)
    return buf


def kernel_coefficients(job) -> tuple:
    """(pre, pos, neg, floor, decay, weight) a kernel applies itself in pass `job`: the rule's
    when it is inline, else those that leave the instantaneous regret in a zero buffer; the
    averaging scheme's when it is linear, else (1, 1) into a zero contribution buffer."""
    return kernel_coefficients_at(job.iteration, job.rule, job.averaging)


def kernel_coefficients_at(t: int, rule, averaging) -> tuple:
    """:func:`kernel_coefficients` of iteration `t` under `rule` and `averaging` (every pass of
    an iteration has the same)."""
    rc = rule.kernel_coefficients(t) if rule.inline else DELTA_COEFFS
    if not averaging.keeps_average:
        return (*rc, 1.0, 0.0)
    if not averaging.inline:
        return (*rc, 1.0, 1.0)
    decay, weight = averaging.coefficients(t)
    return (*rc, float(decay), float(weight))


def kernel_coefficients_block(first: int, count: int, rule, averaging) -> np.ndarray:
    """[count, 6]: :func:`kernel_coefficients_at` of iterations first .. first + count - 1, the
    same doubles, as arrays where the rule and the scheme give them so (a block of 100,000
    small-game iterations would otherwise spend more in Python than in its kernel)."""
    out = np.empty((count, 6))
    out[:, :4] = rule.kernel_coefficients_block(first, count) if rule.inline else DELTA_COEFFS
    if not averaging.keeps_average:
        out[:, 4:] = (1.0, 0.0)
    elif not averaging.inline:
        out[:, 4:] = (1.0, 1.0)
    else:
        out[:, 4:] = averaging.coefficients_block(first, count)
    return out


def writes(job, upd_mask: int, avg_mask: int) -> tuple[str, ...]:
    """Arrays a pass changes: the updated players' regrets and rule state, the growing averages."""
    return _writes(tuple(job.rule.state), upd_mask, avg_mask)


@functools.lru_cache(maxsize=256)
def _writes(state: tuple, upd_mask: int, avg_mask: int) -> tuple[str, ...]:
    names = []
    for p in range(max(2, upd_mask.bit_length())):  # players 2.. only in games of more than two
        if (upd_mask >> p) & 1:
            names.append(f"regret{p}")
            names.extend(f"{s}{p}" for s in state)
    names.extend(f"avg{q}" for q in range(max(2, avg_mask.bit_length())) if (avg_mask >> q) & 1)
    return tuple(names)


def segment_arrays(store, seg, key: str, job, upd_mask: int, avg_mask: int, source: str = "regret",
                   scratch: dict | None = None, kernel_predictive: bool = False):
    """(src, reg, avg): per player, the kernel's policy source, regret target and average target
    for one open segment.

    `job` is the CFR pass (None for an evaluation: nothing is updated). `source` "regret" plays
    the rule's current policy; "avg" the cumulative strategy (an evaluation of the average).
    Regret targets are the stored regrets when the rule is inline, else zero buffers that the
    kernel fills with instantaneous regrets; likewise for averages. Unused slots are 1-value
    dummies (kernels index them only where a mask says so). `scratch`: a dict the caller keeps
    between passes of one segment, whose buffers the policy sources and the zeroed targets reuse
    (a whole spot's three fresh arrays a pass were mostly page faults: a predictive rule ran 2.4x
    slower than an inline one); None: new arrays. `kernel_predictive`: the kernel applies the
    predictive rule itself (:meth:`~solverkit.core.rule.RegretRule.kernel_prediction`): the regret
    targets are the stored regrets, and the policy sources, which it keeps equal to R + pred, the
    scratch buffers (made once per block or pass)."""
    rule = job.rule if job is not None else rule_of(store)
    if source == "regret":
        src = [policy_source(store, seg, key, p, rule,
                             None if rule is None or rule.plain_policy or job is None
                             else _scratch(scratch, f"src{p}", seg[f"regret{p}"], False))
               for p in (0, 1)]
    else:
        src = [seg[f"{source}0"], seg[f"{source}1"]]
    dummy = [np.zeros(1), np.zeros(1)]
    if job is None or not upd_mask:
        return src, dummy, list(dummy)
    reg = list(dummy)
    for p in (0, 1):
        if (upd_mask >> p) & 1:
            r = seg[f"regret{p}"]
            reg[p] = r if rule.inline or kernel_predictive else _scratch(scratch, f"delta{p}", r, True)
    avg = list(dummy)
    if job.averaging.keeps_average:
        for q in (0, 1):
            if (avg_mask >> q) & 1 and f"avg{q}" in seg:
                a = seg[f"avg{q}"]
                avg[q] = a if job.averaging.inline else _scratch(scratch, f"contrib{q}", a, True)
    return src, reg, avg


def finish_segment(seg, reg, avg, job, upd_mask: int, avg_mask: int, kernel_predictive: bool = False) -> None:
    """After the kernel: a custom rule's update from the instantaneous regrets in `reg` (not when
    the kernel applied a predictive rule itself), a custom averaging scheme's from the
    contributions in `avg`."""
    if job is None:
        return
    rule = job.rule
    if not rule.inline and not kernel_predictive:
        for p in (0, 1):
            if (upd_mask >> p) & 1:
                regret = seg[f"regret{p}"]
                if rule.state:
                    rule.update(regret, reg[p], job.iteration, state_of(seg, rule, p))
                else:
                    rule.update(regret, reg[p], job.iteration)
    averaging = job.averaging
    if averaging.keeps_average and not averaging.inline:
        for q in (0, 1):
            if (avg_mask >> q) & 1 and f"avg{q}" in seg:
                averaging.update(seg[f"avg{q}"], avg[q], job.iteration)
