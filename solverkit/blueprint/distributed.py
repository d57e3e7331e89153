"""Blueprint replicas on zmq (or Dask) workers: replica j = 1..W-1 of solverkit.blueprint.parallel is
the subgame ``(j,)`` of the wire protocol (docs/wire.md), its copy the worker's store segment
``replica<j>``; the trunk keeps replica 0 (the store's ``regret`` / ``avg``) and the round's start.

Per piece of a round (a round, or the part of it in one block of the solver's) the trunk sends each
worker that has something to do a ``pass``: the job (:class:`ReplicaJob`) and one array frame, the
round's start where the round opens (the worker's copy becomes it) and the piece's per-iteration
regret weights, pruning thresholds and average weights (computed once, on the trunk, as the
threads' run computes them). The worker runs its own iterations of the piece (the same kernel,
draws and weights as replica j on a thread) and answers the nodes it visited, and where the round
closes its copy; the trunk adds the copies' changes to its arrays in replica order, as the threads'
merge does, so the numbers are the threads' bit for bit. Replica 0 runs on a helper thread of the
trunk meanwhile. What crosses the wire a round: the start down and the copy up, values x 8 bytes
each (+ 24 bytes an iteration of the round down) a worker.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from typing import TYPE_CHECKING, Any

from ..core.capabilities import Decomposition
from ..core.wire import check_keys, field
from ..errors import ProtocolError

if TYPE_CHECKING:
    from .parallel import Piece, Plan

# (solverkit.blueprint.parallel, the kernels, is imported where a pass runs: the game plugin
# imports this module when it registers, at every command line start)

#: iterations of a piece sent in one pass at most (a longer piece goes as several): 24 bytes each
#: in the frame, well under the trunk's frame cap (twice a segment + 16 MiB)
CHUNK = 1 << 17

_FIELDS = ("round", "replicas", "players", "lead", "prune_probability", "seed", "open", "close", "average",
           "regret_floor")


@dataclass(frozen=True)
class ReplicaJob:
    """A piece of a round for the workers: iterations lo..hi (every replica's; each runs those t
    with (t - 1) % W == j), the players traversing (a bit mask) from `lead`, whether the piece
    opens the round (the frame starts with the round's start) or closes it (the copy comes back),
    and whether averages are kept (a copy holds them, compact)."""

    lo: int
    hi: int
    replicas: int
    mask: int
    lead: int
    pprob: float
    seed: int
    opening: bool
    closing: bool
    keep: bool
    #: [sampler] regret_floor (0: none; sent only when set, so a run without one speaks as before)
    floor: float = 0.0

    @property
    def count(self) -> int:
        return self.hi - self.lo + 1

    def to_wire(self) -> dict:
        return {"round": [self.lo, self.hi], "replicas": self.replicas, "players": self.mask, "lead": self.lead,
                "prune_probability": self.pprob, "seed": self.seed, "open": self.opening, "close": self.closing,
                "average": self.keep, **({"regret_floor": self.floor} if self.floor else {})}

    @classmethod
    def from_wire(cls, data, replicas: int, num_players: int, where: str = "pass job") -> "ReplicaJob":
        """The job from :meth:`to_wire` data; a ProtocolError names a bad field (a trunk of
        another replica count: `replicas` is this worker's config's)."""
        if not isinstance(data, dict):
            raise ProtocolError(f"{where}: {type(data).__name__} {data!r:.60}, expected a map")
        check_keys(data, _FIELDS, where)
        lo, hi = field(data, "round", where, "int_list", length=2, lo=1)
        if hi < lo or hi - lo + 1 > CHUNK:
            raise ProtocolError(f"{where}: field 'round' = {[lo, hi]!r} is invalid: expected [lo, hi] with lo <= hi "
                                f"and at most {CHUNK} iterations")
        if field(data, "replicas", where, "int") != replicas:
            raise ProtocolError(f"{where}: field 'replicas' = {data['replicas']} is invalid: expected {replicas} (this "
                                "worker's [game] replicas: the trunk's config)")
        everyone = (1 << num_players) - 1
        return cls(lo, hi, replicas, field(data, "players", where, "int", lo=1, hi=everyone),
                   field(data, "lead", where, "int", lo=0, hi=num_players - 1),
                   float(field(data, "prune_probability", where, "float", lo=0.0, hi=1.0)),
                   field(data, "seed", where, "int"), field(data, "open", where, "bool"),
                   field(data, "close", where, "bool"), field(data, "average", where, "bool"),
                   float(field(data, "regret_floor", where, "float", hi=0.0)) if "regret_floor" in data else 0.0)


def values_of(plan: Plan, keep: bool) -> int:
    """Values of a replica's copy: its regrets and, where averages are kept, its compact averages."""
    return plan.size + (plan.asize if keep else 0)


class RemoteReplicas:
    """Replicas 1..W-1 on a transport's workers (:func:`solverkit.blueprint.parallel.run_block`'s
    `replicas`): replica 0 on `pool`'s thread here meanwhile, the workers' copies merged in
    replica order when the round closes."""

    #: a round closed in mid-call: the next opens with a pass that sends the workers its start
    reopens = False

    def __init__(self, transport, pool: ThreadPoolExecutor, scratch, seed: int):
        self.transport, self.pool, self.scratch, self.seed = transport, pool, scratch, int(seed)
        self.copies: dict[int, np.ndarray] = {}

    def run(self, bp, plan: Plan, piece: Piece, opening: bool, closing: bool, start, astart, reg, avg,
            keep_average: bool) -> int:
        from .parallel import share

        W, n = plan.replicas, int(piece.ts.size)
        masks = np.unique(piece.masks)
        if masks.size != 1:
            raise ValueError(f"a piece of a round sent to workers has one mask of players, not {masks.tolist()}")
        count = 0
        for c0 in range(0, n, CHUNK):
            c1 = min(n, c0 + CHUNK)
            sub = piece.part(slice(c0, c1))
            lo = int(sub.ts[0])
            op, cl = opening and c0 == 0, closing and c1 == n
            job = ReplicaJob(lo, lo + c1 - c0 - 1, W, int(masks[0]), piece.lead, piece.pprob, self.seed, op, cl,
                             keep_average, bp.sampler_floor)
            head = ([start, astart] if keep_average else [start]) if op else []
            frame = np.concatenate([*head, sub.rw, sub.thr, sub.w])
            keys = [(j,) for j in range(1, W) if op or cl or share(lo, c1 - c0, j, W) is not None]
            sl = share(lo, c1 - c0, 0, W)
            mine = self.pool.submit(sub.part(sl).run, bp, reg, avg, self.scratch) if sl is not None else None
            try:
                outs = self.transport.map_subgames(job, {k: frame for k in keys}) if keys else {}
            finally:
                count += mine.result() if mine is not None else 0
            for (j,), out in outs.items():
                count += int(out[0])
                if cl:
                    self.copies[j] = out[1:]
        return count

    def merge(self, plan: Plan, start, astart, reg, avg, keep_average: bool, reopen: bool) -> None:
        """The store's arrays += each worker's copy - the round's start, in replica order."""
        from .parallel import add_change, add_change_ranges

        copies, self.copies = self.copies, {}
        for j in range(1, plan.replicas):
            c = copies[j]
            add_change(reg, c[:plan.size], start)
            if keep_average:
                add_change_ranges(avg, c[plan.size:], astart, plan.starts, plan.lens)


class ReplicaSubgames(Decomposition):
    """The blueprint game's side of the wire: replicas 1..W-1 as subgames ``(j,)`` of segments
    ``replica<j>``, their passes on a worker, and the checks of a network run's settings. The
    game gives ``bp`` (the engine), ``plan`` (solverkit.blueprint.parallel.Plan), ``replicas``."""

    bp: Any
    plan: Plan
    replicas: int

    def subgame_keys(self) -> list:
        """Replicas 1..W-1 ([] with one replica)."""
        return [(j,) for j in range(1, self.replicas)]

    def subgame_segment(self, key) -> str:
        from .parallel import segment_of

        return segment_of(int(key[0]))

    def subgame_shape(self) -> tuple[int, ...]:
        """The largest frame a replica's pass carries with averages kept: its start, less the
        per-iteration arrays (:meth:`subgame_input_shape`: the shape of each job's)."""
        return (values_of(self.plan, True),)

    def subgame_input_shape(self, job: ReplicaJob) -> tuple[int, ...]:
        """The round's start where the job opens it, then its regret weights, pruning thresholds
        and average weights, one each an iteration of the piece."""
        return ((values_of(self.plan, job.keep) if job.opening else 0) + 3 * job.count,)

    def subgame_output_shape(self, job: ReplicaJob) -> tuple[int, ...]:
        """The nodes visited, then where the job closes the round the replica's copy."""
        return (1 + (values_of(self.plan, job.keep) if job.closing else 0),)

    def parts_refusal(self) -> str | None:
        return ("its workers hold copies of the regrets (data-parallel replicas), not subgames with policies of their "
                "own")

    def workers_refusal(self, transport: str, workers: int) -> str | None:
        """Why `workers` workers cannot run this game's replicas, or None."""
        W = self.replicas
        if W == 1:
            return (f"game {self.name!r} runs on workers as data-parallel replicas, and [game] replicas = 1 gives them "
                    f"none: set [game] replicas = W >= 2 (the trunk runs replica 0, the {transport} workers 1..W-1), "
                    "or use [transport] name = \"local\"")
        if workers > W - 1:
            return (f"workers = {workers} does not fit [game] replicas = {W}: the trunk runs replica 0 and each worker "
                    f"at least one of the other {W - 1} (expected workers <= {W - 1}; workers = {W - 1}: one each)")
        return None

    def job_to_wire(self, job) -> dict:
        return job.to_wire()

    def job_from_wire(self, data, rule, averaging):
        return ReplicaJob.from_wire(data, self.replicas, self.num_players)

    def subgame_pass(self, key, job: ReplicaJob, inputs, store):
        """Replica key[0]'s iterations of the job's piece over its copy (a worker's store segment):
        [nodes visited] + (the copy where the job closes the round)."""
        from .parallel import Piece, assign, segment_of, share

        j = int(key[0])
        scratch = self._replica_scratch(j)  # (first: builds the engine and plan once, under a lock)
        plan, bp = self.plan, self.bp
        size, asize, n = plan.size, plan.asize, job.count
        out = np.empty(self.subgame_output_shape(job))
        with store.open(segment_of(j)) as seg:
            rc = seg["rcopy"]
            ac = seg["acopy"] if job.keep else np.zeros(1)
            off = 0
            if job.opening:
                assign(rc, inputs[:size])
                if job.keep:
                    assign(ac, inputs[size:size + asize])
                off = values_of(plan, job.keep)
            sl = share(job.lo, n, j, job.replicas)
            count = 0
            if sl is not None:
                ts: np.ndarray = np.arange(job.lo, job.hi + 1, dtype=np.int64)
                piece = Piece(ts, np.full(n, job.mask, dtype=np.int64), job.lead, inputs[off:off + n],
                              inputs[off + n:off + 2 * n], job.pprob, inputs[off + 2 * n:off + 3 * n])
                bp.seed, bp.sampler_floor = job.seed, job.floor
                count = piece.part(sl).run(bp, rc, ac, scratch, plan.caoff)
            out[0] = count
            if job.closing:
                out[1:1 + size] = rc
                if job.keep:
                    out[1 + size:] = ac
        return out

    _lock = threading.Lock()

    def _replica_scratch(self, j: int):
        """Replica j's kernel buffers (a worker runs its replicas on threads at once), made once."""
        with self._lock:
            scratches = self.__dict__.setdefault("_remote_scratches", {})
            if j not in scratches:
                scratches[j] = self.bp.new_scratch()
                self.plan  # noqa: B018 - built here, not by two threads at once
            return scratches[j]

    def remote_replicas(self, transport, seed: int) -> RemoteReplicas:
        """The trunk's view of replicas 1..W-1 on `transport`'s workers (its helper thread made once)."""
        pool = self.__dict__.get("_replica0_pool")
        if pool is None:
            pool = self._replica0_pool = ThreadPoolExecutor(1, thread_name_prefix="solverkit-replica0")
        return RemoteReplicas(transport, pool, self._replica_scratch(0), seed)
