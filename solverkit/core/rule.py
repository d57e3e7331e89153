"""Base class of regret rules: how stored regrets absorb one iteration's instantaneous regrets,
which arrays of its own a rule keeps, and which policy it plays."""

from __future__ import annotations

from typing import Callable, ClassVar

import numpy as np

from ..errors import PluginError
from .arith import add_into, discounted_update, regret_matching, softmax_source
from .block_coefficients import block_valid, owner, per_iteration
from .params import Param

#: rule families: how an engine applies the update
FAMILIES = ("discounted", "custom")
#: policies a rule can play
POLICIES = ("regret_matching", "softmax")


class RegretRule:
    """A regret rule.

    ``family = "discounted"``: the update is four scalars per iteration, applied inside the
    engines' compiled kernels (:func:`solverkit.core.arith.rule_step`):
    R' = max(scale(pre * R + r), floor) with scale = ``pos`` where the sum is positive and
    ``neg`` where it is not. Such a rule implements :meth:`coefficients` (pos, neg, floor) and,
    if it discounts the old regret before adding, :meth:`discount` (pre).

    ``family = "custom"``: the engine writes the instantaneous regrets of a segment into a
    buffer and calls :meth:`update` once per segment array (vectorised numpy or numba over flat
    arrays; never a Python loop per information set).

    ``state`` names arrays the rule keeps beside every regret array (one value per regret
    value, e.g. ``("pred",)``); the store keeps them in the same segments as the regrets
    (compressed with their own fixed-point scale, ``[store] state_scale``), checkpointed and
    owned by workers like everything else, and hands them to :meth:`update`. A rule with
    state must be of the custom family.

    The policy a rule plays is regret matching (positive part, normalised) of
    :meth:`policy_source`: the regrets themselves by default; R + pred for a ``predictive``
    rule (its state holds ``pred``); exp(eta * R) for ``policy = "softmax"`` (``eta``).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    #: "discounted" (coefficients inside the kernels) or "custom" (:meth:`update` after a pass)
    family: ClassVar[str] = "discounted"
    #: arrays kept per regret array, for example ("pred",)
    state: ClassVar[tuple[str, ...]] = ()
    #: "regret_matching" or "softmax"
    policy: ClassVar[str] = "regret_matching"
    #: the policy regret-matches R + pred (state must hold "pred")
    predictive: ClassVar[bool] = False
    #: optional: the kernel coefficients of iterations ts as arrays (core/block_coefficients.py; an
    #: annotation only, so that block_valid finds the class that writes one)
    _block: Callable[[np.ndarray], np.ndarray]

    def __init__(self, **params):
        self.config = params

    # --- the contract ----------------------------------------------------------------------

    def coefficients(self, t: int) -> tuple[float, float, float]:
        """Discounted family: (pos, neg, floor) applied at iteration t (1-based)."""
        raise NotImplementedError

    def discount(self, t: int) -> float:
        """Discounted family: the factor `pre` of the old regret before r is added (1.0: none)."""
        return 1.0

    def kernel_coefficients(self, t: int) -> tuple[float, float, float, float]:
        """(pre, pos, neg, floor) of iteration t, for the kernels."""
        pos, neg, floor = self.coefficients(t)
        return float(self.discount(t)), float(pos), float(neg), float(floor)

    def kernel_coefficients_block(self, first: int, count: int) -> np.ndarray:
        """[count, 4]: :meth:`kernel_coefficients` of iterations first .. first + count - 1 (a
        rule may write them as arrays in ``_block(ts)``; see core/block_coefficients.py)."""
        if block_valid(self, RegretRule, ("coefficients", "discount", "kernel_coefficients")):
            return self._block(np.arange(first, first + count, dtype=np.int64))
        return per_iteration(self.kernel_coefficients, first, count, 4)

    def kernel_prediction(self, t: int) -> tuple[float, float, float, float] | None:
        """A predictive rule whose :meth:`update` is exactly
        ``core.arith.predictive_update(regret, delta, state["pred"], pre, floor, nxt, weight)`` gives
        (pre, floor, nxt, weight) of iteration t here, so that an engine may run it inside its
        kernels (the same doubles); None, the default: the engine calls :meth:`update`."""
        return None

    def update(self, regret: np.ndarray, delta: np.ndarray, t: int, state: dict[str, np.ndarray] | None = None) -> None:
        """In place: fold iteration t's instantaneous regrets `delta` into `regret` (and the
        rule's `state` arrays, by name; a rule without state is called without it). The
        default applies the discounted family's step."""
        discounted_update(regret, delta, *self.kernel_coefficients(t))

    def eta(self) -> float:
        """Softmax policy: the inverse temperature."""
        return float(self.config.get("eta", 1.0))

    # --- what engines use ------------------------------------------------------------------

    @property
    def inline(self) -> bool:
        """True when kernels apply the update themselves (discounted family, no state)."""
        return self.family == "discounted" and not self.state

    @property
    def plain_policy(self) -> bool:
        """True when the policy is regret matching of the regrets themselves."""
        return self.policy == "regret_matching" and not self.predictive

    def policy_source(self, regret, state, blocks, out=None) -> np.ndarray:
        """The values whose regret matching is the policy this rule plays: `regret` itself (no
        copy), regret + state["pred"], or a positive softmax transform. `blocks` is
        (block_start, block_count, block_actions) of the array's information sets."""
        if self.plain_policy:
            return regret
        if out is None:
            out = np.empty_like(regret)
        if self.predictive:
            add_into(regret, state["pred"], out)
            src = out
        else:
            src = regret
        if self.policy == "softmax":
            softmax_source(src, *blocks, self.eta(), out)
        return out

    def policy_of(self, regret, state, blocks, out=None) -> np.ndarray:
        """The policy itself (flat, per information set) from stored regrets and state."""
        src = self.policy_source(regret, state, blocks, out)
        res = out if out is not None else np.empty_like(regret)
        regret_matching(src, *blocks, res)
        return res


def check_rule_class(cls) -> None:
    """Refuse a rule class whose declarations contradict each other (at registration)."""
    where = f"regret rule {cls.name!r} ({cls.__module__}.{cls.__qualname__})"
    if cls.family not in FAMILIES:
        raise PluginError(f"{where}: family = {cls.family!r}; valid: {', '.join(FAMILIES)}")
    if cls.policy not in POLICIES:
        raise PluginError(f"{where}: policy = {cls.policy!r}; valid: {', '.join(POLICIES)}")
    state = cls.state
    if not isinstance(state, tuple) or not all(isinstance(s, str) and s.isidentifier() and not s[-1].isdigit()
                                               for s in state):
        raise PluginError(f"{where}: state = {state!r}; expected a tuple of names such as ('pred',)")
    reserved = {"regret", "avg", "avgval"}
    if reserved & set(state) or len(set(state)) != len(state):
        raise PluginError(f"{where}: state = {state!r} repeats a name or uses a reserved one ({', '.join(sorted(reserved))})")
    if state and cls.family != "custom":
        raise PluginError(f"{where}: a rule with state arrays must have family = 'custom' (it implements update)")
    if cls.predictive and "pred" not in state:
        raise PluginError(f"{where}: predictive = True needs 'pred' in state")
    if cls.family == "discounted" and cls.coefficients is RegretRule.coefficients:
        raise PluginError(f"{where}: family 'discounted' must implement coefficients(t)")
    if cls.family == "custom" and cls.update is RegretRule.update and cls.coefficients is RegretRule.coefficients:
        raise PluginError(f"{where}: family 'custom' must implement update(regret, delta, t, state)")
    # engines run kernel_prediction in place of update: an update redefined below the class that
    # defines kernel_prediction would not be what the kernels apply
    owner = {name: next(k for k in cls.__mro__ if name in vars(k)) for name in ("update", "kernel_prediction")}
    if (owner["kernel_prediction"] is not RegretRule and owner["update"] is not owner["kernel_prediction"]
            and issubclass(owner["update"], owner["kernel_prediction"])):
        raise PluginError(f"{where}: update() comes from {owner['update'].__qualname__} but kernel_prediction() from "
                          f"{owner['kernel_prediction'].__qualname__}, so the kernels would apply a rule other than "
                          "update(); define kernel_prediction in the same class (return None to keep update)")


def increment_weights(rule, ts) -> np.ndarray:
    """The regret weights ``rule.increment_weight(t)`` of iterations `ts` of a lazily discounted
    rule (ones for any other): its ``increment_weights(ts)`` arrays where the class that writes
    them also writes ``increment_weight`` (a subclass redefining only the latter is asked per t)."""
    lazy = getattr(rule, "increment_weight", None)
    if lazy is None:
        return np.ones(len(ts))
    if owner(type(rule), "increment_weights") is owner(type(rule), "increment_weight"):
        return np.asarray(rule.increment_weights(ts), dtype=np.float64)
    return np.array([lazy(int(t)) for t in ts], dtype=np.float64)
