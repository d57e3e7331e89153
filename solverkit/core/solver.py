"""The Solver (passes, evaluation, confirmation) over the store it builds, and run_solve, a run of it.

The rest of a run lives beside it, one idea each, and its public names are re-exported here:
run_loop.py (run_solve's steps over one Run state), recovery.py (after a lost worker),
run_outputs.py (Result, strategy and result.json), metrics.py (metrics.csv), progress.py (stderr),
run_config.py, compile_time.py, and the Solver's mixins store_watch.py and solver_files.py.
"""

from __future__ import annotations

import inspect
import math
import time

import numpy as np

from ..errors import ConfigError, TransportError
from .capabilities import holds_subgames
from .codec import ValueCodec
from .compile_time import COMPILE_NOTICE, COMPILE_NOTICE_AFTER, CompileClock, slow_notice, warm_up_kernels  # noqa: F401
from .config_text import parse_every, parse_schedule  # noqa: F401 (parse_every re-exported)
from .game import PassBlock, PassJob, warm_up
from .memory import MEMORY_SHARE, human_bytes, peak_rss_mb, physical_memory
from .metrics import (CURRENT_COLUMN, METRIC_COLUMNS, NASH_CONV, STORE_COLUMNS, exploitability,  # noqa: F401
                      metric_columns, nash_columns, nash_conv, nash_row)
from .progress import progress_postfix, say, stop_reason, target_fraction, target_text  # noqa: F401
from .run_config import check_average_starts, first_weighted_iteration, run_config, run_config_text  # noqa: F401
from .run_loop import BLOCK_SECONDS, Run  # noqa: F401
from .run_outputs import HELD_DECODED, Result  # noqa: F401
from .schedule import POINTS_PER_DECADE, EvalSchedule, log_schedule  # noqa: F401 (re-exported)
from .solver_files import SolverFiles
from .store import SegmentSpec, Store, family, new_run_id
from .store_watch import CLIP_WARNING, GROWTH_EXACT, StoreWatch  # noqa: F401
from .units import unit_values

#: how far a network transport's evaluation may differ from the one the solver makes itself
#: (the same kernels in the same order give the same bits; this only absorbs float rounding)
CONFIRM_RTOL = 1e-9

#: above this many policy values, run_solve writes strategy.npz one player at a time and its
#: Result carries no strategy (read it from the file)
STRATEGY_IN_MEMORY = 2_000_000


def make_store(assembly, store_dir=None, run_id=None) -> Store:
    """The value store an assembly asks for: ``[store]`` codec settings and backend; its frames
    and segment files record `run_id` (None: a new run's fresh id)."""
    game = assembly.game
    cfg = assembly.store
    units = np.asarray(game.value_units(), dtype=np.float64)

    def per_round(factors, unit):
        if not factors:
            return None
        f = [factors[min(r, len(factors) - 1)] for r in range(units.size)]
        return np.array(f) * (units if unit else 1.0)

    rule = assembly.rule
    scales = {"regret": per_round(cfg["regret_scale"], True), "avg": per_round(cfg["avg_scale"], False)}
    for name in rule.state:  # a rule's arrays: their own scale, in chips like the regrets
        scales[name] = per_round(cfg.get("state_scale") or cfg["regret_scale"], True)
    precision = cfg.get("precision", "float64")
    if precision not in game.store_precisions:
        raise ConfigError(f"[store] precision = {precision!r}: game {game.name!r} runs on an engine whose kernels "
                          f"take values as {', '.join(game.store_precisions)} only (float32: the poker engine's "
                          "two-player games); choose one of those")
    codec = ValueCodec(assembly.compressor, scales, predictor=cfg["predictor"], precision=precision)
    backend = None
    run_id = run_id or new_run_id()
    if cfg["backend"] == "disk":
        from .diskstore import DiskBackend

        path = cfg["path"] or store_dir
        temporary = not path
        if temporary:
            import tempfile

            path = tempfile.mkdtemp(prefix="solverkit-store-")
        backend = DiskBackend(path, prefetch=cfg["prefetch"], write_behind=cfg["write_behind"],
                              remove_on_close=temporary, run_id=run_id)
    # regrets and averages, plus a stateful rule's arrays (each as large as the regrets, about
    # half of the estimate when an average is kept)
    est = int(game.store_estimate * (1.0 + len(rule.state) * (0.5 if assembly.averaging.keeps_average else 1.0))
              * codec.dtype.itemsize / 8)
    hold = cfg.get("hold", "encoded")
    if backend is None and codec.block16 and hold == "encoded" and est:  # 2 + 8 / (hands x actions) bytes a value
        have = physical_memory()
        if have and est / 4 > MEMORY_SHARE * have:
            raise ConfigError(
                f"game {game.name!r}: its regrets and averages need about {human_bytes(est / 4)} as 16-bit values in "
                f"memory and this machine has {human_bytes(have)}; store them on disk ([store] backend = \"disk\")")
    if backend is None and (codec.passthrough or hold == "decoded") and est:
        have = physical_memory()
        if have and est > MEMORY_SHARE * have:
            if hold == "decoded" and not codec.passthrough:
                fix = "encoded ([store] hold = \"encoded\"; \"decoded\" keeps them as float64)"
            else:
                half = ("as float32 ([store] precision = \"float32\": half the memory), "
                        if "float32" in game.store_precisions and codec.dtype == np.float64 else "")
                fix = (half + "as 16-bit values ([store] precision = \"block16\": a quarter of the memory), as fixed point "
                       "and compressed ([store] regret_scale, avg_scale and a [compressor]), or on disk ([store] "
                       "backend = \"disk\")")
            raise ConfigError(
                f"game {game.name!r}: its regrets and averages{' and rule state' if rule.state else ''} need about "
                f"{human_bytes(est)} as {codec.dtype.name} in memory "
                f"and this machine has {human_bytes(have)}; store them {fix}"
            )
    specs = with_rule_state(game.segments(assembly.averaging.keeps_average), rule)
    grids = game.segment_grid
    if rule.state:
        def grids(key, name, _game_grid=game.segment_grid, _state=frozenset(rule.state)):
            # a state array is laid out as the regret array it sits beside
            return _game_grid(key, f"regret{name[-1]}" if family(name) in _state else name)
    try:
        store = Store(specs, codec, backend, grids=grids, run_id=run_id, hold=hold)
    except BaseException:
        if backend is not None:
            backend.close()  # its directory lock
        raise
    store.rule = rule
    return store


def with_rule_state(specs, rule) -> list[SegmentSpec]:
    """Segment specs with the rule's state arrays beside every regret array (same sizes)."""
    if not rule.state:
        return specs
    out = []
    for spec in specs:
        arrays = dict(spec.arrays)
        for name, n in spec.arrays.items():
            if family(name) == "regret":
                for s in rule.state:
                    arrays[f"{s}{name[len('regret'):]}"] = n
        out.append(SegmentSpec(spec.key, arrays))
    return out


class Solver(StoreWatch, SolverFiles):
    """Runs an assembly's iterations over a value store, one pass per update.

    ``store`` is this process's store (the passes open its segments); ``values`` is the
    transport's view of every segment (the store itself, or for a transport whose workers own
    the subgames, a view that fetches them): checkpoints, strategies and store metrics use it.
    """

    def __init__(self, assembly, store_dir=None, run_id=None, notice=None, parts_dir=None):
        """`parts_dir`: where part files of a distributed checkpoint go on this machine
        (OUT/checkpoint.d; None without an output directory)."""
        self.assembly = assembly
        #: the resolved config checkpoints record (run_solve adds the iterations and target it runs with)
        self.resolved = assembly.resolved
        self.game = assembly.game
        self.alternating = assembly.solver["update"] == "alternating"
        self.first_update = int(assembly.solver.get("first_update", 0))
        #: the passes of one iteration: one player each in turn from first_update, or all at once
        P = assembly.game.num_players
        self.groups = (tuple(((self.first_update + k) % P,) for k in range(P)) if self.alternating
                       else (tuple(range(P)),))
        self.store = make_store(assembly, store_dir, run_id)
        self.transport = assembly.transport
        self.transport.parts_dir = parts_dir
        #: part files the last checkpoint (and strategy) named: kept until a newer one names others
        self._part_files: dict[str, list[str]] = {"checkpoint": [], "strategy": []}
        try:
            self.transport.start(self.game, self.store, assembly=assembly)
            self.values = self.transport.store_view(self.store)
            # `notice(line)` hears about a long first compile; the delay is read here, so that
            # setting solver.COMPILE_NOTICE_AFTER takes effect
            with slow_notice(notice, after=COMPILE_NOTICE_AFTER):
                warm_up(self.game, self.store)
        except BaseException:  # no worker, thread or temporary directory outlives a failed start
            self.close()
            raise
        self.iteration = 0
        self.solve_seconds = 0.0
        #: seconds of kernel compilation (or cache loading) during the passes, left out of solve_seconds
        self.compile_seconds = 0.0
        self._clock = CompileClock()
        #: nodes the passes visited so far (None while the game reports no count)
        self.nodes_touched = None
        self._confirmed = None  # (iteration, exact row) of the last confirm()
        self._unconfirmed_said = False
        self.notice = notice
        #: the warnings about the fixed-point store said so far (result.json ``store_warnings``)
        self.store_warnings: list[str] = []
        #: the run's iteration cap, when known: how much the stored values may still grow
        self.planned_iterations: int | None = None
        self._block_prepared = False  # game.prepare_block ran (before the first block of passes)
        self._precision_said: set[str] = set()  # array families warned of values rounding to 0

    @property
    def eval_current(self) -> bool:
        """Whether evaluations also measure the current strategy (it differs from the output)."""
        return bool(self.assembly.solver.get("eval_current")) and self.output_kind == "average"

    @property
    def output_kind(self) -> str:
        return "average" if self.assembly.averaging.keeps_average else "current"

    @property
    def batches(self) -> bool:
        """True when :meth:`step` may run many iterations in one call of the game's kernels
        (sampled passes, which are too cheap to pay Python's overhead once each, and full passes
        of a game whose :meth:`~solverkit.core.game.Game.blocks_passes` says so: small poker games)."""
        sampler = self.assembly.sampler
        if sampler is not None and sampler.sampled:
            return True
        a = self.assembly
        return bool(self.game.blocks_passes(a.rule, a.averaging, self.store))

    def _count(self, n) -> None:
        if isinstance(n, (int, np.integer)):
            self.nodes_touched = (self.nodes_touched or 0) + int(n)

    def step(self, count: int = 1) -> None:
        """`count` iterations: both players' updates, in turn or simultaneously (a block of
        sampled iterations runs in one call of the game's :meth:`cfr_block`)."""
        fixed = bool(self.store.codec.scales)
        jitter = self.iteration == 0 and bool(self.assembly.solver.get("jitter"))
        while count > 0 and ((count == 1 and not self._single_block()) or (fixed and self.iteration < 3)
                             or jitter or not self.batches):
            jitter = False  # the first iteration alone: the perturbation follows it (_step_one)
            self._step_one()  # a fixed point's first iterations one by one: they check its resolution
            count -= 1
        if count > 0:
            a = self.assembly
            block = PassBlock(self.iteration + 1, count, self.groups, a.rule, a.averaging, a.sampler)
            if not self._block_prepared:  # the first block's one-time kernel set-up, outside solve time
                c0 = self._clock.seconds
                self.game.prepare_block(self.store, block, self.transport)
                self.compile_seconds += self._clock.seconds - c0
                self._block_prepared = True
            t0, c0 = time.perf_counter(), self._clock.seconds
            self._count(self.game.cfr_block(self.store, block, self.transport))
            self.iteration += count
            if block.first == 1:
                self._first_warnings()
            self._add_time(t0, c0)

    def _single_block(self) -> bool:
        """Whether a run's first iteration runs as a block of one kernel call, as the blocks after
        it will (the same numbers as a pass per player; a small river's first iteration cost it
        0.3-0.5 ms more as two passes than inside a block): where the game blocks full passes,
        the run plans more iterations and does not evaluate after every one (a run that never
        steps more than one iteration at a time does not load the block kernel)."""
        sampler = self.assembly.sampler
        if self.iteration or (self.planned_iterations or 0) < 2 or (sampler is not None and sampler.sampled):
            return False
        return parse_schedule(self.assembly.solver.get("eval_every", 0)) != ("iterations", 1) and self.batches

    def _add_time(self, t0: float, c0: float) -> None:
        """Solve time since perf_counter `t0`, less the compilation since clock reading `c0`."""
        compiled = self._clock.seconds - c0
        self.compile_seconds += compiled
        self.solve_seconds += max(0.0, time.perf_counter() - t0 - compiled)
        self._check_store()

    def _step_one(self) -> None:
        t0, c0 = time.perf_counter(), self._clock.seconds
        self.iteration += 1
        a = self.assembly
        for players in self.groups:
            job = PassJob(self.iteration, players, a.rule, a.averaging, a.sampler)
            self._count(self.game.cfr_pass(self.store, job, self.transport))
        if self.iteration <= 3 and self.store.codec.resolution:
            # a fixed-point factor under which everything rounds to 0 learns nothing: say so now
            self.store.codec.check_resolution(self._scale_keys())
        if self.iteration == 1:
            self._first_warnings()
            if self.assembly.solver.get("jitter"):
                from .jitter import jitter_regrets

                jitter_regrets(self.store, float(self.assembly.solver["jitter"]), int(self.assembly.solver["seed"]))
                self.game.forget_store_caches(self.store)
        self._add_time(t0, c0)

    def strategy(self, kind: str | None = None):
        return self.game.strategy(self.values, kind or self.output_kind)

    def strategy_of(self, player: int, kind: str | None = None, out=None, release=None):
        """One player's policy (into `out`, piece by piece; the pieces on the transport's threads
        where the game's strategy_of takes `parallel`: a plugin's older override may not)."""
        extra = {}
        if "parallel" in inspect.signature(self.game.strategy_of).parameters:
            extra["parallel"] = self.transport.map_local
        return self.game.strategy_of(self.values, kind or self.output_kind, player, out=out, release=release, **extra)

    def evaluate(self, exact: bool = False) -> dict:
        """Metrics row of the output strategy; `exact` skips the game's incremental fast path
        and, when the transport's values come from elsewhere (``Transport.trusted_values``),
        every value it computed: the walk reads the stored strategy segment by segment here."""
        store, transport = self.store, self.transport
        # this evaluation is the exact one when the game's store walk is exact and no worker's
        # value enters it: confirm() at this iteration then reuses it instead of walking again
        exact_now = exact or (self.game.store_walk_is_exact
                              and (transport.trusted_values or not holds_subgames(self.game)))
        if exact and not transport.trusted_values and holds_subgames(self.game):
            store, transport = self.values, None
        if self.game.num_players != 2:
            return self._evaluate_n()
        fast = None
        if not exact or self.game.store_walk_is_exact:
            fast = self.game.best_response_from_store(store, self.output_kind, transport=transport)
        if fast is None:
            expl, br0, br1 = exploitability(self.game, self.strategy())
        else:
            br0, br1 = fast
            expl = (br0 + br1) / 2.0
        row = {
            "iteration": self.iteration,
            "seconds": self.solve_seconds,
            "exploitability": expl,
            "br_0": br0,
            "br_1": br1,
            "nodes_touched": self.nodes_touched,
        }
        row.update(unit_values(self.game, expl))
        if self.eval_current:
            cur = self.game.best_response_from_store(store, "current", transport=transport)
            cur_expl = (cur[0] + cur[1]) / 2.0 if cur is not None else exploitability(self.game, self.strategy("current"))[0]
            row[CURRENT_COLUMN] = cur_expl
            row.update(unit_values(self.game, cur_expl, current=True))
        if exact_now:
            self._confirmed = (self.iteration, dict(row))
        return row

    def _evaluate_n(self) -> dict:
        """Metrics row of a game of more than two players: exact best responses and values of
        the stored strategy (:func:`nash_row`)."""
        row = {"iteration": self.iteration, "seconds": self.solve_seconds, **nash_row(self.game, self.strategy()),
               "nodes_touched": self.nodes_touched}
        row.update(unit_values(self.game, row["exploitability"]))
        if self.eval_current:
            cur = nash_row(self.game, self.strategy("current"))["exploitability"]
            row[CURRENT_COLUMN] = cur
            row.update(unit_values(self.game, cur, current=True))
        return row

    def confirm(self, row: dict) -> dict:
        """`row` (a metrics row) with the numbers of an exact evaluation now. When the
        transport's values come from elsewhere and `row` is of this iteration, the two must
        agree up to float rounding, else a TransportError says that its workers computed wrong
        values (a target is never declared reached on their word)."""
        if self._confirmed is not None and self._confirmed[0] == self.iteration:
            exact = self._confirmed[1]
        else:
            exact = self.evaluate(exact=True)
            self._confirmed = (self.iteration, exact)
        if not holds_subgames(self.game) and not self.transport.trusted_values and not self._unconfirmed_said:
            # a trunk that holds only the trunk cannot walk the subgames itself: the workers' numbers stand
            self._unconfirmed_said = True
            say(f"game {self.game.name!r} holds only its trunk here: its exploitability is the workers' "
                 "evaluation, not confirmed on the trunk (docs/wire.md#security)")
        if not self.transport.trusted_values and holds_subgames(self.game) and row.get("iteration") == self.iteration:
            for col in ("br_0", "br_1", CURRENT_COLUMN):
                a, b = row.get(col), exact.get(col)
                if a is not None and b is not None and not math.isclose(a, b, rel_tol=CONFIRM_RTOL, abs_tol=1e-12):
                    raise TransportError(
                        f"the {self.transport.name} workers' evaluation at iteration {self.iteration} gives {col} = "
                        f"{a!r}, but the same strategy (the workers' stored values, read and evaluated here) gives "
                        f"{b!r}: a worker computes wrong values, so the run stops rather than report them "
                        f"(exploitability {exact['exploitability']!r} by the evaluation here)")
        return dict(row, **{k: v for k, v in exact.items() if k != "seconds"})

    def store_row(self) -> dict:
        """Stored bytes, compression ratio against 4-byte floats (workers' segments included),
        and this process's peak RSS now."""
        self.values.flush()
        return {
            "stored_bytes": self.values.stored_bytes(),
            "compression_ratio": self.values.compression_ratio(),
            "peak_rss_mb": peak_rss_mb(),
        }

    def close(self):
        if getattr(self, "_clock", None) is not None:
            self._clock.close()
        self.transport.close()
        self.store.close()


def run_solve(assembly, iterations=None, target=None, out=None, progress=False, on_metrics=None,
              checkpoint_every=None, resume=False, notice=None, force=False) -> Result:
    """Solve until `iterations` or `target` exploitability; write outputs to `out` if given.

    `progress` shows a bar on stderr; `notice(line)` (e.g. ``print`` to stderr) is told when the
    kernels take long to compile before the first iteration.

    `checkpoint_every` ("100" iterations or "90s"; default ``[solver] checkpoint_every``) writes
    ``out/checkpoint.skc`` that often, at a stop request and at the end; `resume` continues
    from the checkpoint in `out` (metrics after it, from an interrupted run, are replaced).

    A transport that loses a worker (WorkerLost) is asked to replace it; the run then goes back
    to its last checkpoint (or to iteration 0 without one) and redoes what was lost: metrics
    rows after that point are written (and passed to `on_metrics`) again, with the same values.

    An `out` that holds another run's files is refused (ConfigError) unless `resume` goes on
    with it or `force` replaces it (its outputs and checkpoint are set aside, and deleted once this
    run has written a metrics row or a checkpoint; a run that fails before puts them back).
    A stop request (SIGINT/SIGTERM) with an `out` always ends with a checkpoint there."""
    run = Run(assembly, iterations, target, out, checkpoint_every, resume, force, progress=progress,
              on_metrics=on_metrics, notice=notice, strategy_in_memory=STRATEGY_IN_MEMORY)
    run.open(Solver)  # `out` held, the solver up, the checkpoint loaded, config.toml and metrics.csv begun
    run.solve()  # iterate, checkpoint, recover from lost workers, write the outputs
    return run.result()
