"""The kernel settings of a pass (:class:`_Job`) and of a block of passes, made from the solver's
PassJob: which players a walk updates, averages and evaluates, whether it may prune, how it
samples; and what such a pass visits."""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields, replace

import numpy as np

from ..core.game import PassBlock, PassJob
from ..core.pass_plan import average_mask, block_plan, block_predictions
from ..core.passes import NO_COEFFS, _bits, kernel_coefficients
from ..core.rng import stream
from ..core.wire import check_keys, field
from ..errors import ConfigError, ProtocolError
from .betting import DECISION
from .kernels import MODE_CHANCE, MODE_EXTERNAL, MODE_FULL


#: kernel modes of the sampling schemes the poker engine runs
_MODES = {"full": MODE_FULL, "public_chance": MODE_CHANCE, "public_external": MODE_EXTERNAL}


#: the Monte-Carlo schemes of the literature this engine does not run -> (the scheme it runs
#: instead, why): it samples public chance only, every private hand stays in the vectors
SAMPLER_INSTEAD = {
    "chance": ("public_chance", "chance sampling draws the private cards too; this engine walks every private hand "
                                "and draws one board per round: public chance sampling, called 'chance' here before"),
    "external": ("public_external", "external-sampling MCCFR draws the private cards and walks one opponent history; "
                                    "this engine walks every private hand, draws one board per round and one opponent "
                                    "action per hand: public_external, called 'external' here before"),
}


def _players(mask: int) -> list[int]:
    """The players whose bits are set in `mask`, in order."""
    return [p for p in (0, 1) if (mask >> p) & 1]


def _predictive_row(rule, t: int, decay: float, weight: float) -> tuple:
    """A kernel's coefficients (pre, pos, neg, floor, decay, weight, nxt, pweight) at iteration t
    for predictive `rule` applied in the kernel: its (pre, 1, 1, floor) step and its nxt and
    prediction weight (RegretRule.kernel_prediction), the averaging's decay and weight."""
    pre, floor, nxt, pweight = rule.kernel_prediction(t)
    return float(pre), 1.0, 1.0, float(floor), float(decay), float(weight), float(nxt), float(pweight)


def _prunable(pruning, pre, pos, neg, avg_mask, decay):
    """Whether a pass may skip what nothing reaches: a zero update must leave regrets (no
    discount) and averages (no decay) as they are. Scalars or numpy arrays alike."""
    return pruning & (pre == 1.0) & (pos == 1.0) & (neg == 1.0) & ((avg_mask == 0) | (decay == 1.0))


@dataclass
class _Job:
    """Per-pass settings of a kernel call (what to update, accumulate and evaluate)."""

    upd_mask: int
    avg_mask: int
    val_mask: int
    br_player: int
    coeffs: tuple
    inline_rule: bool = True
    inline_avg: bool = True
    source: str = "regret"  # policy source: "regret" (CFR) or a strategy kind for best response
    prune: bool = True  # skip zero-reach subtrees (exact unless a zero update changes stored values)
    sample: int = MODE_FULL  # MODE_FULL, MODE_CHANCE (one board per round) or MODE_EXTERNAL
    stream: tuple = (0, 0, 0)  # (seed, iteration, stream player) of a sampled pass's draws
    predictive: bool = False  # the kernel applies a predictive rule (coeffs' pre and floor, nxt)
    nxt: float = 1.0  # that rule's nxt and prediction weight (RegretRule.kernel_prediction)
    pweight: float = 1.0

    def key(self) -> np.uint64:
        """The pass's stream key (:func:`solverkit.core.rng.stream`; subgame field 0: the
        boards' codes name where a draw is, in the trunk and on every worker alike)."""
        if self.sample == MODE_FULL:
            return np.uint64(0)
        return np.uint64(stream(*self.stream, 0))

    def sampling_player(self) -> int:
        """External sampling: the player whose hands sample their actions (the one not
        updated); -1 otherwise."""
        if self.sample != MODE_EXTERNAL:
            return -1
        return 1 if self.upd_mask == 1 else 0

    def to_wire(self) -> dict:
        """The settings as a msgpack-able map (field name -> value)."""
        return {f.name: (list(v) if isinstance(v, tuple) else v) for f, v in zip(fields(self), astuple(self))}

    @classmethod
    def from_wire(cls, data, where: str = "kernel job") -> "_Job":
        """Settings from :meth:`to_wire` data, every field checked (ProtocolError names it)."""
        if not isinstance(data, dict):
            raise ProtocolError(f"{where}: {type(data).__name__} {data!r:.60}, expected a map")
        check_keys(data, [f.name for f in fields(cls)], where)
        masks = {name: field(data, name, where, "int", lo=0, hi=3) for name in ("upd_mask", "avg_mask", "val_mask")}
        return cls(
            **masks,
            br_player=field(data, "br_player", where, "int", lo=-1, hi=1),
            coeffs=tuple(float(c) for c in field(data, "coeffs", where, "float_list", length=len(NO_COEFFS))),
            inline_rule=field(data, "inline_rule", where, "bool"),
            inline_avg=field(data, "inline_avg", where, "bool"),
            source=field(data, "source", where, "str", choices=("regret", "avg")),
            prune=field(data, "prune", where, "bool"),
            sample=field(data, "sample", where, "int", lo=MODE_FULL, hi=MODE_EXTERNAL),
            stream=tuple(field(data, "stream", where, "int_list", length=3, lo=0, hi=2**64 - 1)),
            predictive=field(data, "predictive", where, "bool"),
            nxt=float(field(data, "nxt", where, "float")),
            pweight=float(field(data, "pweight", where, "float")),
        )


#: iterations of full passes whose per-pass kernel arrays :meth:`GamePassSettings._block_arrays`
#: makes at once and keeps: the short blocks between evaluations slice them (made block by block,
#: they cost a small river spot 40-300 us a block of 10 iterations, a fifth of its kernel's time)
PLAN_SPAN = 128


#: the settings of a full pass (what :meth:`GamePassSettings.pass_nodes` counts for one)
_FULL = _Job(1, 0, 1, -1, NO_COEFFS)


class GamePassSettings:
    """Kernel settings of a poker game's passes (a mixin of :class:`.game.PokerGame`)."""

    def kernel_job(self, job: PassJob) -> _Job:
        """The kernel settings of a CFR pass (what cfr_pass hands the trunk and subgames)."""
        players = job.players
        coeffs = kernel_coefficients(job)
        pre, pos, neg, floor, decay, weight = coeffs
        avg_mask = average_mask(players, 2, job.averaging, decay, weight)
        # a subtree that nothing reaches gets zero updates; skipping it is exact when a zero
        # update leaves regrets (no discount, and a stateless rule) and averages (no decay) as they are
        # (a custom rule's update runs over the whole array after the kernel, so its
        # instantaneous regrets may skip what nothing reaches: they are zero there)
        prune = bool(_prunable(bool(self.pruning), pre, pos, neg, avg_mask, decay))
        sampler = job.sampler
        mode = _MODES[sampler.scheme] if sampler is not None and sampler.sampled else MODE_FULL
        if mode != MODE_FULL:
            sampler.check_coefficients(job.rule, job.averaging, job.iteration)
            if mode == MODE_EXTERNAL and len(players) != 1:
                self.check_sampler(sampler, {"update": "simultaneous"})
        upd = _bits(players)
        return _Job(upd, avg_mask, upd, -1, coeffs, job.rule.inline, job.averaging.inline, prune=prune,
                    sample=mode, stream=(int(sampler.seed), int(job.iteration), upd - 1) if mode else (0, 0, 0))

    def check_sampler(self, sampler, solver: dict) -> None:
        """public_external explores one player's actions and samples the other's: a pass per
        player, so it needs alternating updates here (both players' regrets from one profile
        would need a copy of one player's regrets: a sweep)."""
        if sampler.scheme == "public_external" and solver.get("update") == "simultaneous":
            raise ConfigError(
                f"[sampler] name = {sampler.name!r} on game {self.name!r} needs [solver] update = \"alternating\" "
                "(each pass explores one player's actions and samples the other's); use alternating updates "
                "(preset cfr_plus) or [sampler] name = \"public_chance\"")

    def blocks_passes(self, rule, averaging, store) -> bool:
        """True when :meth:`cfr_block` runs a block of passes in one kernel call: a whole (unsplit)
        game, a rule that updates in the kernel and plays its regrets (or a predictive rule the
        kernel applies, :meth:`kernel_predictive`), an averaging scheme in the kernel or none,
        and a store that keeps doubles as they are (a lossy store rounds at every encode, which
        one call per block would skip)."""
        return (not self.split and ((rule.inline and rule.plain_policy and not rule.state)
                                    or self.kernel_predictive(rule, store))
                and (averaging.inline or not averaging.keeps_average) and store.codec.passthrough)

    def kernel_predictive(self, rule, store, sampler=None) -> bool:
        """Whether the kernels apply predictive `rule` themselves (the same doubles as its
        update after the pass): a whole game's float64 store (the kernel keeps R + pred as the
        next policy source beside them), full passes, no locked hands, and a rule that says how
        (:meth:`~solverkit.core.rule.RegretRule.kernel_prediction`)."""
        return (rule is not None and rule.predictive and rule.policy == "regret_matching" and not self.split
                and rule.kernel_prediction(1) is not None and store.codec.passthrough
                and (sampler is None or not sampler.sampled) and not self.kernel_tree().has_lock.any())

    def predictive_job(self, kjob: _Job, job: PassJob, store) -> _Job:
        """`kjob` with the predictive rule in the kernel (:meth:`kernel_predictive`): its (pre, 1,
        1, floor) step, nxt, and no pruning (a subtree nothing reaches still takes R = max(pre R,
        floor) and pred = (nxt - 1) R, as the update over the whole array gives)."""
        if not self.kernel_predictive(job.rule, store, job.sampler):
            return kjob
        row = _predictive_row(job.rule, job.iteration, kjob.coeffs[4], kjob.coeffs[5])
        return replace(kjob, coeffs=row[:6], inline_rule=True, prune=False, predictive=True, nxt=row[6],
                       pweight=row[7])

    def _block_arrays(self, block: PassBlock):
        """The per-pass arrays of a block for :func:`.kernels.dfs_block` (update masks, average
        masks, coefficients, pruning, sampling mode, stream key, sampling player) and the public
        nodes it visits: what :meth:`kernel_job` gives each pass. A block of full passes is
        built from one coefficient call per iteration (Python per pass cost Leduc a fifth of
        its time); a sampled block pass by pass (its draws and checks are per pass)."""
        sampler = block.sampler
        if sampler is not None and sampler.sampled:
            kjobs = [self.kernel_job(job) for job in block.jobs()]
            return (np.array([k.upd_mask for k in kjobs], dtype=np.int64),
                    np.array([k.avg_mask for k in kjobs], dtype=np.int64),
                    np.array([(*k.coeffs, k.nxt, k.pweight) for k in kjobs], dtype=np.float64).reshape(-1, 8),
                    np.array([k.prune for k in kjobs], dtype=np.bool_),
                    np.array([k.sample for k in kjobs], dtype=np.int64),
                    np.array([k.key() for k in kjobs], dtype=np.uint64),
                    np.array([k.sampling_player() for k in kjobs], dtype=np.int64),
                    sum(self.pass_nodes(k) for k in kjobs))
        return self._full_block_arrays(block)

    def _full_block_arrays(self, block: PassBlock):
        """:meth:`_block_arrays` of a block of full passes: rows of a plan of :data:`PLAN_SPAN`
        iterations, made at the first block that needs them and sliced by the blocks after (each
        row is its iteration's alone: the same doubles as a plan of the block by itself)."""
        G = len(block.groups)
        key = (block.rule, block.averaging, tuple(tuple(g) for g in block.groups), bool(self.pruning))
        plan = self.__dict__.get("_full_plan")
        if (plan is None or plan[0][0] is not key[0] or plan[0][1] is not key[1] or plan[0][2:] != key[2:]
                or not plan[1] <= block.first or block.first + block.count > plan[2]):
            span = max(block.count, PLAN_SPAN)
            arrays = self._plan_arrays(PassBlock(block.first, span, block.groups, block.rule, block.averaging,
                                                 block.sampler))
            plan = self._full_plan = (key, block.first, block.first + span, arrays)
        i0 = (block.first - plan[1]) * G
        i1 = i0 + block.count * G
        return (*(a[i0:i1] for a in plan[3]), (i1 - i0) * self.pass_nodes(_FULL))

    def _plan_arrays(self, block: PassBlock):
        """The per-pass arrays of a block of full passes (without the node count), made afresh."""
        n = block.count * len(block.groups)
        rule = block.rule
        upd, avgm, co = block_plan(block, 2)
        coeffs = np.ones((n, 8))
        coeffs[:, :6] = co
        if rule.predictive:
            # a predictive rule in a block is one the kernel applies (blocks_passes, kernel_predictive):
            # _predictive_row's (pre, 1, 1, floor, decay, weight, nxt, pweight) for every pass
            pred = block_predictions(block)
            coeffs[:, 0], coeffs[:, 1], coeffs[:, 2], coeffs[:, 3] = pred[:, 0], 1.0, 1.0, pred[:, 1]
            coeffs[:, 6], coeffs[:, 7] = pred[:, 2], pred[:, 3]
        pre, pos, neg, decay = coeffs[:, 0], coeffs[:, 1], coeffs[:, 2], coeffs[:, 4]
        prunes = _prunable(bool(self.pruning) and not block.rule.predictive, pre, pos, neg, avgm, decay)
        return (upd, avgm, coeffs, prunes.astype(np.bool_), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.uint64),
                np.full(n, -1, dtype=np.int64))

    def pass_nodes(self, job: _Job) -> int:
        """Public nodes (betting decision node, board: one vector over the hands each) that a
        pass visits: every board's, or one board's per round for a sampled pass
        (``nodes_touched``; counted from the tree, the same wherever the subgames ran)."""
        counts = self.__dict__.get("_node_counts")
        if counts is None:
            bet = self.tree.bet
            per_round = np.array([np.count_nonzero((bet.kind == DECISION) & (bet.round == r))
                                  for r in range(self.gd.num_rounds)], dtype=np.int64)
            counts = self._node_counts = (int(per_round @ np.diff(self.round_start)), int(per_round.sum()))
        return counts[0] if job.sample == MODE_FULL else counts[1]
