"""The solver loop: iterations, update order, evaluation schedule, metrics and outputs."""

from __future__ import annotations

import csv
import json
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConfigError, OutputError, TransportError, WorkerLost
from .atomic import reason, write_text
from .checkpoint import FILENAME as CHECKPOINT_FILE
from .checkpoint import PARTS_DIR, check_game, check_resume, parts_dir, read_checkpoint, read_footer, write_checkpoint
from .codec import ValueCodec
from .config import SOLVER_PARAMS, parse_every
from .schedule import POINTS_PER_DECADE, EvalSchedule, log_schedule  # noqa: F401 (re-exported)
from .game import PassBlock, PassJob
from .memory import MEMORY_SHARE, human_bytes, peak_rss_mb, physical_memory, process_age
from .store import (SegmentSpec, Store, clip_forecast, family, new_run_id, precision_warnings, rescale_warning,
                    saturation_warning)
from .parts import remove_stale, write_part
from .run_dir import (STORE_DIR, check_out_dir, clear_out_dir, drop_aside, drop_cap_row, hold_out_dir, release_out_dir,
                      set_aside, undo_start)
from .strategy_file import STRATEGY_MANIFEST, save_strategy
from .identity import ID_FIELD, game_identity, identity_fields
from .units import CURRENT, EXPLOITABILITY as EXPLOITABILITY_COLUMN, reached as unit_target_reached, unit_columns, \
    unit_values, units_of

METRIC_COLUMNS = ("iteration", "seconds", "exploitability", "br_0", "br_1")
#: work done (nodes the passes visited, cumulative; empty for games that do not count), then store
#: and memory columns: last in every metrics.csv
STORE_COLUMNS = ("nodes_touched", "stored_bytes", "compression_ratio", "peak_rss_mb")
#: extra column of ``[solver] eval_current``: the current strategy's exploitability
CURRENT_COLUMN = CURRENT
#: how far a network transport's evaluation may differ from the one the solver makes itself
#: (the same kernels in the same order give the same bits; this only absorbs float rounding)
CONFIRM_RTOL = 1e-9


def metric_columns(game, eval_current: bool = False) -> tuple[str, ...]:
    """metrics.csv columns for `game`: the base columns, one per display unit the game declares
    (``exploitability_<key>``), then the current strategy's exploitability when asked for. A game
    of more than two players adds ``nash_conv``, the other players' ``br_<p>`` and every
    player's ``gain_<p>`` after the base columns (docs/players.md)."""
    cols = METRIC_COLUMNS + nash_columns(game) + unit_columns(game)
    if eval_current:
        cols += (CURRENT_COLUMN,) + unit_columns(game, current=True)
    return cols + STORE_COLUMNS


#: a block of sampled iterations (Solver.step(count)) lasts about this long at most, so that
#: time schedules, stop requests and the progress bar stay responsive
BLOCK_SECONDS = 0.02
#: above this many policy values, run_solve writes strategy.npz one player at a time and its
#: Result carries no strategy (read it from the file)
STRATEGY_IN_MEMORY = 2_000_000


def exploitability(game, strategy) -> tuple[float, float, float]:
    """(exploitability, br_0, br_1) of a profile: exploitability = (br_0 + br_1) / 2; in a game
    of more than two players NashConv / players (:func:`nash_conv`)."""
    if game.num_players != 2:
        conv, brs, _ = nash_conv(game, strategy)
        return conv / game.num_players, brs[0], brs[1]
    br0, br1 = game.best_response(strategy)
    return (br0 + br1) / 2.0, br0, br1


#: metrics column of a game of more than two players: the sum of the players' best-response gains
NASH_CONV = "nash_conv"


def nash_columns(game) -> tuple[str, ...]:
    """The columns a game of more than two players adds: ``nash_conv``, ``br_2`` .. and
    ``gain_0`` ..; none for two players."""
    P = game.num_players
    if P == 2:
        return ()
    return (NASH_CONV, *(f"br_{p}" for p in range(2, P)), *(f"gain_{p}" for p in range(P)))


def nash_conv(game, strategy) -> tuple[float, tuple[float, ...], tuple[float, ...]]:
    """(NashConv, best-response values, values) of a profile: each player's gain is its
    best-response value against the others less its value in the profile; NashConv is the sum
    of the gains (0 exactly at a Nash equilibrium)."""
    brs = tuple(float(x) for x in game.best_response(strategy))
    values = tuple(float(x) for x in game.expected_values(strategy))
    return sum(b - v for b, v in zip(brs, values)), brs, values


def nash_row(game, strategy) -> dict:
    """The metrics of a profile of a game of more than two players: exploitability (NashConv /
    players), br_<p>, nash_conv and gain_<p>."""
    conv, brs, values = nash_conv(game, strategy)
    row = {"exploitability": conv / len(brs), NASH_CONV: conv}
    row.update({f"br_{p}": b for p, b in enumerate(brs)})
    row.update({f"gain_{p}": b - v for p, (b, v) in enumerate(zip(brs, values))})
    return row


@dataclass
class Result:
    """What a solve produced."""

    iterations: int
    exploitability: float
    br: tuple[float, float]
    seconds: float
    reached_target: bool
    metrics: list[dict] = field(default_factory=list)
    interrupted: bool = False
    strategy: list[np.ndarray] | None = None
    out: Path | None = None
    stored_bytes: int = 0
    compression_ratio: float = 0.0
    #: how the store holds values: "float64 in memory", "float64 on disk", or "" when encoded
    #: (fixed point and/or compressed: compression_ratio says how much)
    store_kind: str = ""
    #: one line saying why the run stopped ("target reached: ...", "iteration cap reached ...");
    #: "" when no target was set or the run was interrupted
    stop_reason: str = ""
    #: fixed-point values clipped to the int32 range during the run (0 for a float64 store)
    saturated_values: int = 0
    #: the game's own result.json fields (a spot's ``ev`` and ``equity``)
    fields: dict = field(default_factory=dict)
    #: warnings about the fixed-point store (values clipped, factors too coarse), as said on stderr
    store_warnings: list[str] = field(default_factory=list)


def warm_up_kernels():
    """Load the array-level arithmetic (compiled or from numba's cache) before any time is
    measured (a worker, a benchmark). A solve does not: most games never call these functions
    (Kuhn: one of five), and a kernel loaded in a pass counts as compile time, not solving."""
    from .arith import warm_up

    warm_up()


#: iterations over which Solver._growth sums an averaging's weights exactly before it extrapolates
#: (from 4 iterations it underestimated linear averaging's growth to 300 iterations by half, and
#: the factor the clipping warning suggested clipped again)
GROWTH_EXACT = 1_000_000

#: how the warning that fixed-point values were clipped starts (said once per run)
CLIP_WARNING = "fixed point saturated: "

#: the line shown (on stderr, not with --quiet) when loading the kernels takes longer than
#: COMPILE_NOTICE_AFTER seconds: numba is compiling them, which only the first run does
COMPILE_NOTICE = "compiling kernels (first run only; cached afterwards)..."
COMPILE_NOTICE_AFTER = 1.0


class slow_notice:
    """``with slow_notice(emit):`` calls ``emit(message)`` once if the block is still running
    after `after` seconds (from a timer thread, so the line appears while the work goes on);
    a block that ends sooner says nothing. ``emit=None`` says nothing at all. `after` defaults
    to COMPILE_NOTICE_AFTER (read when the notice is made, so a test can set it to 0)."""

    def __init__(self, emit, message: str = COMPILE_NOTICE, after: float | None = None):
        self.emit, self.message = emit, message
        self.after = COMPILE_NOTICE_AFTER if after is None else after
        self._timer = None

    def __enter__(self):
        if self.emit is not None:
            import threading

            self._timer = threading.Timer(self.after, self.emit, args=(self.message,))
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc):
        if self._timer is not None:
            self._timer.cancel()
            self._timer.join()  # a notice already under way is finished before the block's output
        return False


class CompileClock:
    """Seconds numba spends in its compiler lock (compiling a kernel, or loading one from its
    cache) while this clock is open: the solver takes them out of solve time, so that a kernel
    compiled at its first call never counts as solving (studies compare these seconds)."""

    def __init__(self):
        from numba.core import event

        self._event = event
        self._listener = event.TimingListener()
        event.register("numba:compiler_lock", self._listener)

    @property
    def seconds(self) -> float:
        return self._listener.duration if self._listener.done else 0.0

    def close(self) -> None:
        try:
            self._event.unregister("numba:compiler_lock", self._listener)
        except ValueError:  # closed before
            pass


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
    codec = ValueCodec(assembly.compressor, scales, predictor=cfg["predictor"], precision=cfg.get("precision", "float64"))
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
    est = int(game.store_estimate * (1.0 + len(rule.state) * (0.5 if assembly.averaging.keeps_average else 1.0)))
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
                fix = ("as 16-bit values ([store] precision = \"block16\": a quarter of the memory), as fixed point "
                       "and compressed ([store] regret_scale, avg_scale and a [compressor]), or on disk ([store] "
                       "backend = \"disk\")")
            raise ConfigError(
                f"game {game.name!r}: its regrets and averages{' and rule state' if rule.state else ''} need about "
                f"{human_bytes(est)} as float64 in memory "
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


class Solver:
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
            with slow_notice(notice):  # `notice(line)` hears about a long first compile
                self.game.warmup()
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
        while count > 0 and (count == 1 or self.iteration < 3 or not self.batches):
            self._step_one()  # the first iterations one by one: they check the fixed-point resolution
            count -= 1
        if count > 0:
            t0, c0 = time.perf_counter(), self._clock.seconds
            a = self.assembly
            block = PassBlock(self.iteration + 1, count, self.groups, a.rule, a.averaging, a.sampler)
            self._count(self.game.cfr_block(self.store, block, self.transport))
            self.iteration += count
            self._add_time(t0, c0)

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
        if self.iteration == 1:  # averages that will outgrow the int32 range, regrets rounded at every rescale
            forecast = clip_forecast(a.averaging, self.assembly.store.get("avg_scale"), self.planned_iterations or 0)
            for line in filter(None, (forecast, rescale_warning(a.rule, self.assembly.store))):
                self._warn(line)
        self._add_time(t0, c0)

    def _scale_keys(self) -> dict[str, str]:
        """Array family -> the ``[store]`` key naming its fixed-point factor."""
        return {"regret": "regret_scale", "avg": "avg_scale", **{name: "state_scale" for name in self.assembly.rule.state}}

    def _warn(self, line: str) -> None:
        """Say a warning about the store now (stderr) and keep it for result.json."""
        if line not in self.store_warnings:
            self.store_warnings.append(line)
            (self.notice or _say)(f"warning: {line}")

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

    def strategy(self, kind: str | None = None):
        return self.game.strategy(self.values, kind or self.output_kind)

    def strategy_of(self, player: int, kind: str | None = None, out=None, release=None):
        return self.game.strategy_of(self.values, kind or self.output_kind, player, out=out, release=release)

    def evaluate(self, exact: bool = False) -> dict:
        """Metrics row of the output strategy; `exact` skips the game's incremental fast path
        and, when the transport's values come from elsewhere (``Transport.trusted_values``),
        every value it computed: the walk reads the stored strategy segment by segment here."""
        store, transport = self.store, self.transport
        if exact and not transport.trusted_values and self.game.holds_subgames:
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
        if not self.game.holds_subgames and not self.transport.trusted_values and not self._unconfirmed_said:
            # a trunk that holds only the trunk cannot walk the subgames itself: the workers' numbers stand
            self._unconfirmed_said = True
            _say(f"game {self.game.name!r} holds only its trunk here: its exploitability is the workers' "
                 "evaluation, not confirmed on the trunk (docs/wire.md#security)")
        if not self.transport.trusted_values and self.game.holds_subgames and row.get("iteration") == self.iteration:
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

    def save_checkpoint(self, path, metrics) -> int:
        """Write the store and the loop's state to `path` atomically; returns bytes written."""
        self.values.flush()
        state = {
            "assembly": self.resolved,
            "game": self.assembly.resolved["game"],
            **identity_fields(self.game),
            "iteration": self.iteration,
            "seconds": self.solve_seconds,
            "nodes_touched": self.nodes_touched,
            "metrics": metrics,
            "saturated": self.values.saturated_values(),
        }
        if not self.distributed:
            return write_checkpoint(path, self.values, state)
        # every owner writes and fsyncs its part first; the manifest's rename makes them count
        parts = self.values.save_parts(_tag(self.iteration), self.iteration, self._part_files["checkpoint"])
        size = write_checkpoint(path, self.values, state, parts)
        self._part_files["checkpoint"] = [part["file"] for part in parts]
        remove_stale(parts_dir(path), self._part_files["checkpoint"], "*.skp")
        return size

    @property
    def distributed(self) -> bool:
        """Whether the transport's owners write their own parts of checkpoints and strategy."""
        return bool(getattr(self.values, "distributed", False))

    def save_strategy_parts(self, path) -> None:
        """The output strategy as parts: every worker writes its segments' policies, then this
        process its own segments' into manifest `path` (OUT/strategy.skm), which names them all."""
        kind = self.output_kind
        parts = self.values.strategy_parts(_tag(self.iteration), self.iteration, kind, self._part_files["strategy"])
        remote = {s for part in parts for s in part["segments"]}

        def entries():
            for seg in self.store.specs:
                if seg not in remote:
                    yield seg, {f"policy{p}": np.ascontiguousarray(self.game.segment_policy(self.store, seg, kind, p),
                                                                   dtype="<f8") for p in (0, 1)}

        write_part(path, "strategy", entries(), self.store.run_id, self.iteration, "trunk", strategy=kind,
                   game=self.assembly.resolved["game"], parts=parts, **identity_fields(self.game))
        self._part_files["strategy"] = [part["file"] for part in parts]
        remove_stale(Path(path).parent / PARTS_DIR, self._part_files["strategy"], "*.sks")

    def load_checkpoint(self, path) -> list[dict]:
        """Restore the store and iteration count from `path`; return the metrics rows saved."""
        state = read_checkpoint(path, self.values, self.assembly.resolved["game"],
                                metric_columns(self.game, self.eval_current), game=self.game)
        self.iteration = int(state["iteration"])
        self.solve_seconds = float(state["seconds"])
        self.nodes_touched = state.get("nodes_touched")
        # the count so far is this process's; workers count from zero and add theirs
        self.store.codec.saturated = int(state.get("saturated", 0))
        self._part_files["checkpoint"] = [part["file"] for part in state.get("parts") or ()]
        return list(state.get("metrics", []))

    def rollback(self, path) -> list[dict]:
        """Put every segment (the trunk's and the workers') back as checkpoint `path` holds it,
        or as a new run has it (None: zeros, iteration 0), after a transport lost a worker;
        return the metrics rows of that point (what `--resume` does, in this process)."""
        self._confirmed = None  # a confirmation of an iteration that is redone says nothing
        if path is not None:
            return self.load_checkpoint(path)
        for key in self.values.specs:
            self.values.restore(key, self.store.zero_payloads(key))
        self.iteration = 0
        self.solve_seconds = 0.0
        self.nodes_touched = None
        self.store.codec.saturated = 0
        return []

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
    cfg = assembly.solver
    # arguments are checked as the [solver] values they replace (the CLI passes them as --set)
    spec = SOLVER_PARAMS.params
    iterations = spec["iterations"].check(iterations if iterations is not None else cfg["iterations"],
                                          "[solver] iterations")
    target = spec["target"].check(target if target is not None else cfg["target"], "[solver] target")
    check_average_starts(assembly, iterations)
    if checkpoint_every is not None:
        checkpoint_every = spec["checkpoint_every"].check(str(checkpoint_every), "[solver] checkpoint_every")
    schedule = EvalSchedule(cfg["eval_every"])
    units = units_of(assembly.game)
    unit_targets = {u.target_key: float(cfg.get(u.target_key, 0.0)) for u in units}
    ckpt_every = parse_every(checkpoint_every if checkpoint_every is not None else cfg.get("checkpoint_every", ""))
    if (ckpt_every or resume) and out is None:
        raise ConfigError("checkpoints need an output directory (--out DIR)")
    if out is not None:  # refused before the solver is built or anything is written
        check_out_dir(out, resume, force)
    ckpt_path = Path(out) / CHECKPOINT_FILE if out is not None else None
    resolved = run_config(assembly, iterations, target, checkpoint_every)
    run_id = None
    if resume:  # refused before anything in `out` changes: the footer and the settings it records
        footer = read_footer(ckpt_path)
        check_game(ckpt_path, footer, assembly.resolved["game"], assembly.game)
        check_resume(ckpt_path, footer, resolved, Path(out) / "config.toml")
        if iterations < footer["iteration"]:
            raise ConfigError(f"[solver] iterations = {iterations} is below the iteration of the checkpoint "
                              f"in {out} ({footer['iteration']}): expected >= {footer['iteration']} (--iterations)")
        run_id = footer["run"]
    if out is not None:
        out = Path(out)
    made_out = out is not None and not out.exists()
    made_store = out is not None and not (out / STORE_DIR).exists()  # a disk store's folder, made by the Solver
    # `out` made and held (one solve at a time) before anything is made or written in it
    lock = hold_out_dir(out, resume, force) if out is not None else None
    try:
        solver = Solver(assembly, store_dir=(out / STORE_DIR) if out is not None else None, run_id=run_id,
                        notice=notice, parts_dir=parts_dir(ckpt_path) if out is not None else None)
    except BaseException:  # nothing written yet but what the store made
        undo_start(out, None, made_out, made_store, outputs=False)
        release_out_dir(lock)
        raise
    solver.resolved = resolved
    solver.planned_iterations = iterations
    metrics: list[dict] = []
    eval_current = bool(cfg.get("eval_current")) and assembly.averaging.keeps_average
    columns = metric_columns(assembly.game, eval_current)
    aside = None  # OUT/.replaced-run: the outputs of the run that --force replaces, until this one commits
    #: whether this run's outputs stand (a metrics row or a checkpoint written, or a resumed run):
    #: a run that fails before it leaves `out` as it found it
    committed = resume or out is None
    try:
        if resume:
            metrics = drop_cap_row(solver.load_checkpoint(ckpt_path), schedule, solver.iteration)
        if out is not None:  # once the store (its directory locked) is up and the checkpoint loaded
            out.mkdir(parents=True, exist_ok=True)
            if force and not resume:
                aside = set_aside(out)
            else:
                clear_out_dir(out, replace=False)
            write_text(out / "config.toml", _toml(resolved))
    except BaseException:
        solver.close()
        if not committed:
            undo_start(out, aside, made_out, made_store)
        release_out_dir(lock)
        raise
    try:
        writer = _MetricsWriter(out / "metrics.csv", columns, metrics) if out is not None else None
    except BaseException:  # e.g. a directory in its place: `out` is free for the run that goes on once it is moved
        release_out_dir(lock)
        raise
    targets_text = target_text(assembly.game, target, unit_targets)
    goals = [(EXPLOITABILITY_COLUMN if assembly.game.num_players == 2 else NASH_CONV, target)] if target > 0 else []
    goals += [(u.column, unit_targets[u.target_key]) for u in units if unit_targets.get(u.target_key, 0) > 0]
    bar = _Progress(iterations, solver.iteration, goals, metrics) if progress else None
    reached = False
    reached_row = None
    interrupted = False
    row = metrics[-1] if metrics else None
    stop = _StopRequest()
    last_ckpt = (solver.iteration, time.perf_counter())
    have_ckpt = resume  # a checkpoint of this run to roll back to (not one left in `out` by another)
    strategy = None
    done_at = None  # the iteration where the loop stopped (a loss after it need not redo the loop)
    time_limit = float(cfg.get("time_limit", 0.0) or 0.0)
    timed_out = False
    startup = None
    extra = {}  # the game's own result fields (advance fills them)

    #: the column [solver] target bounds: exploitability, or NashConv with more than two players
    target_column = EXPLOITABILITY_COLUMN if assembly.game.num_players == 2 else NASH_CONV

    def target_met(r) -> bool:
        return (target > 0 and r[target_column] <= target) or unit_target_reached(r, unit_targets, assembly.game)

    def checkpoint():
        nonlocal last_ckpt, have_ckpt
        solver.save_checkpoint(ckpt_path, metrics)
        last_ckpt = (solver.iteration, time.perf_counter())
        have_ckpt = True
        commit()

    def commit():
        """This run has written a metrics row or a checkpoint: its outputs stand, and the run it
        replaces (--force), set aside until now, goes."""
        nonlocal committed, aside
        committed = True
        drop_aside(aside)
        aside = None

    def advance():
        """Iterate to the end, then write the final checkpoint, metrics row and outputs."""
        nonlocal row, reached, reached_row, interrupted, strategy, done_at, timed_out
        nonlocal startup, extra
        schedule.start(solver.solve_seconds, solver.nodes_touched)
        if startup is None:  # process start to the first iteration: imports, game, store
            startup = process_age()
        block = 1  # iterations per step: grows for cheap sampled iterations, up to BLOCK_SECONDS a step
        while solver.iteration < iterations and done_at is None and not interrupted:
            count = _block_size(solver, block, iterations, schedule, ckpt_every, last_ckpt[0])
            before = solver.solve_seconds
            solver.step(count)
            if solver.batches:
                spent = solver.solve_seconds - before
                block = max(1, min(100_000, int(count * BLOCK_SECONDS / spent) if spent > 0 else 2 * count))
            if stop.requested:
                interrupted = True
            t = solver.iteration
            due = schedule.due(t, solver.solve_seconds, solver.nodes_touched, assembly.game.name)
            if due or t == iterations:
                row = solver.evaluate()
                row.update(solver.store_row())
                if target_met(row) and not solver.transport.trusted_values:
                    # a target counts only when an evaluation that trusts no worker's value agrees
                    row = solver.confirm(row)
                metrics.append(row)
                if writer:
                    writer.write(row)
                    commit()
                if on_metrics:
                    on_metrics(row)
                if bar is not None:
                    bar.measured(row, progress_postfix(assembly.game, row, targets_text))
                reached = target_met(row)
                if reached:
                    reached_row = row
            if bar is not None:
                bar.advance(solver.iteration, reached=reached)
            if ckpt_every is not None and not (reached or interrupted or t == iterations):
                kind, n = ckpt_every
                if (t - last_ckpt[0] >= n) if kind == "iterations" else (time.perf_counter() - last_ckpt[1] >= n):
                    checkpoint()
            if reached or interrupted:
                break
            if time_limit and solver.solve_seconds >= time_limit:
                timed_out = True
                break
        done_at = solver.iteration
        if first_weighted_iteration(assembly.averaging, done_at) is None and assembly.averaging.inline:
            (notice or _say)(f"warning: the run stopped at iteration {done_at}, before [averaging] "
                             f"({assembly.averaging.name}) gave any iteration a weight: its output is the uniform "
                             "strategy, not the solve's")
        if ckpt_path is not None and (ckpt_every is not None or interrupted) and solver.iteration > last_ckpt[0]:
            checkpoint()  # the state the outputs below describe, so --resume can extend (or finish) the run
        if row is None or row["iteration"] != solver.iteration:
            row = solver.evaluate(exact=True)
            row.update(solver.store_row())
            metrics.append(row)
            if writer:
                writer.write(row)
                commit()
        else:
            # the reported result is always recomputed from the strategy itself
            row = solver.confirm(row)
        # the game's own result fields (a spot's ev and equity), for result.json and the Result
        extra = assembly.game.result_fields(solver.store, solver.output_kind, transport=solver.transport)
        layouts = [assembly.game.layout(p) for p in range(assembly.game.num_players)]
        large = sum(lay.size for lay in layouts) > STRATEGY_IN_MEMORY
        if out is not None and (large or not solver.distributed):
            # a strategy of the kind this run does not write, left in `out` by an earlier run, goes
            (out / ("strategy.npz" if solver.distributed else STRATEGY_MANIFEST)).unlink(missing_ok=True)
        if out is not None and solver.distributed:
            # every owner writes its segments' policies; strategy.npz besides only for a small game
            solver.save_strategy_parts(out / STRATEGY_MANIFEST)
        if out is not None and large and solver.distributed:
            strategy = None
        elif out is not None and large:
            # a large game: one player's policy in memory at a time, straight into the file
            strategy = None
            save_strategy(out / "strategy.npz", lambda p, dst, release: solver.strategy_of(p, out=dst, release=release),
                          layouts, solver.output_kind, solver.iteration, assembly.resolved["game"],
                          identity_fields(assembly.game))
        else:
            strategy = solver.strategy()
        if out is not None:
            if strategy is not None:
                save_strategy(out / "strategy.npz", strategy, layouts, solver.output_kind, solver.iteration,
                              assembly.resolved["game"], identity_fields(assembly.game))
            store_row = solver.store_row()
            summary = {
                "iterations": solver.iteration,
                "exploitability": row["exploitability"],
                "br_0": row["br_0"],
                "br_1": row["br_1"],
                **({"value_bounds": [-row["br_1"], row["br_0"]]} if assembly.game.num_players == 2 else
                   {"players": assembly.game.num_players,
                    **{c: row[c] for c in nash_columns(assembly.game)}}),
                "seconds": solver.solve_seconds,
                "target": target,
                **{key: value for key, value in unit_targets.items() if value > 0},
                **{u.column: row[u.column] for u in units if u.column in row},
                "reached_target": reached if goals else None,  # null: there was no target to reach
                "strategy": solver.output_kind,
                ID_FIELD: game_identity(assembly.game),
                "interrupted": interrupted,
                **store_row,
                "saturated_values": solver.values.saturated_values(),
                "store_warnings": list(solver.store_warnings),
                "startup_seconds": startup,
                "compile_seconds": solver.compile_seconds,
                **solver.transport.report(),
            }
            if recoveries:
                summary["recoveries"] = recoveries
            summary["unit"] = getattr(assembly.game, "unit_name", "")
            summary.update(extra)
            write_text(out / "result.json", json.dumps(summary, indent=2) + "\n")

    def roll_back(lost):
        """Have the transport replace the lost worker(s), then go back to the last checkpoint."""
        nonlocal row, reached, reached_row, done_at, last_ckpt, attempt, high
        t0 = time.perf_counter()
        at = solver.iteration
        attempt = attempt + 1 if at <= high else 1  # losses in a row without getting past the last one
        high = max(high, at)
        (notice or _say)(f"lost a worker in iteration {at}: {getattr(lost, 'reason', lost)}")
        # resumed_from stays None when another loss interrupts this recovery
        record = {"lost": getattr(lost, "reason", str(lost)), "at_iteration": at, "resumed_from": None}
        recoveries.append(record)
        solver.transport.recover(lost, attempt)
        metrics[:] = solver.rollback(ckpt_path if have_ckpt else None)
        if done_at is None or solver.iteration != done_at:  # the loop's end is to be redone
            done_at, reached, reached_row = None, False, None
        row = metrics[-1] if metrics else None
        last_ckpt = (solver.iteration, time.perf_counter())
        if writer:
            writer.restart(metrics)
        if bar is not None:
            bar.rewind(solver.iteration, metrics)
        record.update(resumed_from=solver.iteration, seconds=time.perf_counter() - t0)
        (notice or _say)(f"resuming from iteration {solver.iteration} "
                         f"({'its checkpoint' if have_ckpt else 'the start: no checkpoint yet'})")

    recoveries: list[dict] = []
    attempt, high = 0, -1
    lost = None
    finished = False
    try:
        while True:
            try:
                if lost is not None:
                    roll_back(lost)
                    lost = None
                advance()
                break
            except WorkerLost as exc:  # (also while recovering: another worker lost meanwhile)
                lost = exc
        finished = True
    finally:
        stop.restore()
        if bar is not None:
            bar.close()
        if writer:
            writer.close()
        solver.close()
        if not finished and not committed:  # refused or stopped before its first row: nothing of it stays
            undo_start(out, aside, made_out, made_store)
        release_out_dir(lock)
    return Result(
        iterations=solver.iteration,
        exploitability=row["exploitability"],
        br=(row["br_0"], row["br_1"]),
        seconds=solver.solve_seconds,
        reached_target=reached,
        metrics=metrics,
        interrupted=interrupted,
        strategy=strategy,
        out=out,
        stored_bytes=solver.values.stored_bytes(),
        compression_ratio=solver.values.compression_ratio(),
        store_kind=_store_kind(assembly, solver.store),
        saturated_values=solver.values.saturated_values(),
        store_warnings=list(solver.store_warnings),
        fields=extra,
        stop_reason="" if interrupted else (
            f"time limit reached ({time_limit:g} s of solve time) at iteration {solver.iteration}" if timed_out
            and not reached else stop_reason(assembly.game, reached_row, target, unit_targets, iterations,
                                             solver.iteration)),
    )


def _tag(iteration: int) -> str:
    """The file-name tag of a checkpoint's or strategy's parts: its iteration and a random suffix
    (a checkpoint redone after a rollback never overwrites parts that a manifest names)."""
    import secrets

    return f"{iteration:09d}-{secrets.token_hex(4)}"


def _block_size(solver, block: int, iterations: int, schedule, ckpt_every, last_ckpt: int) -> int:
    """Iterations of the next step: 1, or for a solver that batches, `block` cut at the last
    iteration, the next due evaluation and the next checkpoint by iterations."""
    if not solver.batches:
        return 1
    t = solver.iteration
    n = min(block, iterations - t)
    horizon = schedule.horizon(t)
    if horizon is not None:
        n = min(n, horizon - t)
    if ckpt_every is not None and ckpt_every[0] == "iterations":
        n = min(n, max(1, last_ckpt + ckpt_every[1] - t))
    return max(1, n)


#: result.store_kind of a store with ``hold = "decoded"``: stored sizes are what encoding gives
HELD_DECODED = "held decoded in memory"


def _store_kind(assembly, store) -> str:
    """"float64 in memory" / "float64 on disk" for a store that holds plain doubles; "held decoded
    in memory" for an encoding store that holds its values decoded; "" else."""
    if store.deferred:
        return HELD_DECODED
    if store.compact:
        return "16-bit block-scaled in memory"
    if not store.codec.passthrough:
        return ""
    return "float64 " + ("on disk" if assembly.store["backend"] == "disk" else "in memory")


def _native(game, value: float) -> str:
    label = getattr(game, "unit_name", "")
    return f"{value:.3g}" + (f" {label}" if label else "")


def target_text(game, target: float, unit_targets: dict[str, float]) -> str:
    """The stop targets of a run as text (``1 mbb/g``, ``0.001 chips``); "" when none is set."""
    parts = [f"{unit_targets[u.target_key]:g} {u.name}" for u in units_of(game)
             if unit_targets.get(u.target_key, 0) > 0]
    if target > 0:
        parts.insert(0, _native(game, target))
    return " or ".join(parts)


def progress_postfix(game, row: dict, targets: str = "") -> str:
    """The progress bar's text after a metrics row: exploitability in the game's display units
    (native too) and the target, e.g. ``expl 0.0019 chips = 0.95 mbb/g (target 1 mbb/g)``."""
    text = "expl " + _native(game, row["exploitability"])
    if NASH_CONV in row:
        text = "NashConv " + _native(game, row[NASH_CONV])
    text += "".join(f" = {row[u.column]:.3g} {u.name}" for u in units_of(game) if u.column in row)
    return text + (f" (target {targets})" if targets else "")


def stop_reason(game, reached_row, target: float, unit_targets: dict[str, float], cap: int, done: int) -> str:
    """Why a run with a target stopped: ``target reached: exploitability 0.95 mbb/g <= 1 mbb/g
    at iteration 875`` (the target met, in its unit) or ``iteration cap reached (N) before the
    target (1 mbb/g)``; "" for a run without a target."""
    targets = target_text(game, target, unit_targets)
    if not targets:
        return ""
    if reached_row is None:
        return f"iteration cap reached ({done}) before the target ({targets})" if done >= cap else ""
    at = f"at iteration {reached_row['iteration']}"
    for u in units_of(game):
        limit = unit_targets.get(u.target_key, 0)
        if limit > 0 and reached_row.get(u.column, math.inf) <= limit:
            return f"target reached: exploitability {reached_row[u.column]:.3g} {u.name} <= {limit:g} {u.name} {at}"
    if game.num_players != 2:
        return f"target reached: NashConv {_native(game, reached_row[NASH_CONV])} <= {_native(game, target)} {at}"
    return (f"target reached: exploitability {_native(game, reached_row['exploitability'])} "
            f"<= {_native(game, target)} {at}")


class _StopRequest:
    """SIGINT/SIGTERM ask the loop to stop after the current iteration and save its outputs;
    a second SIGINT interrupts at once."""

    def __init__(self):
        import signal
        import threading

        self.requested = False
        self._old = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.getsignal(sig)
            signal.signal(sig, self._handle)

    def _handle(self, signum, frame):
        import signal

        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True

    def restore(self):
        import signal

        for sig, handler in self._old.items():
            signal.signal(sig, handler)
        self._old = {}


def run_config(assembly, iterations=None, target=None, checkpoint_every=None) -> dict:
    """The resolved config a run writes to OUT/config.toml (and records in its checkpoints):
    the assembly's, with the iterations, target and checkpoint interval it runs with (the
    ``[solver]`` values where not given)."""
    cfg = assembly.solver
    resolved = dict(assembly.resolved)
    resolved["solver"] = dict(resolved["solver"], iterations=iterations if iterations is not None else cfg["iterations"],
                              target=target if target is not None else cfg["target"])
    every = checkpoint_every if checkpoint_every is not None else cfg.get("checkpoint_every", "")
    if parse_every(every) is not None:
        resolved["solver"]["checkpoint_every"] = str(every)
    return resolved


def run_config_text(assembly) -> str:
    """OUT/config.toml as a run of `assembly` with its own ``[solver]`` settings writes it."""
    return _toml(run_config(assembly))


def first_weighted_iteration(averaging, last: int) -> int | None:
    """The first iteration <= `last` that the averaging gives a weight (None: every one is left
    out, so the average holds nothing and its strategy would be uniform, not the solve's)."""
    if not averaging.keeps_average:
        return 1
    for t in range(1, last + 1):
        if averaging.coefficients(t)[1] != 0.0:
            return t
    return None


def check_average_starts(assembly, iterations: int) -> None:
    """Refuse a run whose averaging leaves out every iteration up to its cap (delayed averaging
    with delay >= iterations): its output, the average, would be the uniform strategy."""
    averaging = assembly.averaging
    if averaging.keeps_average and averaging.inline and first_weighted_iteration(averaging, iterations) is None:
        params = ", ".join(f"{k} = {v}" for k, v in averaging.config.items())
        raise ConfigError(f"[averaging] ({averaging.name}{': ' + params if params else ''}) gives no weight to any of "
                          f"the {iterations} iterations of [solver] iterations = {iterations}: the average would "
                          "be empty and the output the uniform strategy; run more iterations than the delay, "
                          "lower it, or use averaging 'current'")


def _say(line: str) -> None:
    import sys

    print(line, file=sys.stderr, flush=True)


def _toml(table):
    import tomli_w

    return tomli_w.dumps(table)


def target_fraction(first: dict, row: dict, goals) -> float:
    """How far `row` has come toward the nearest of `goals` ((metrics column, target) pairs) from
    the first evaluation `first`, on a log scale (exploitability falls by factors): 0 at the
    first row's value, 1 at the target; the largest over the goals."""
    best = 0.0
    for column, goal in goals:
        start, now = first.get(column), row.get(column)
        if now is None or start is None:
            continue
        if now <= goal:
            return 1.0
        if start > goal and now > 0:
            best = max(best, min(1.0, max(0.0, math.log(start / now) / math.log(start / goal))))
    return best


class _Progress:
    """The run's progress bar on stderr. Without a target it counts iterations toward
    ``[solver] iterations``. With one the cap is not the goal: the bar fills toward the target
    (:func:`target_fraction`, after each evaluation) and ends full when it is met, with the
    iteration, the cap and the rate beside it; no time left is estimated."""

    STEPS = 1000  # resolution of the bar toward a target

    def __init__(self, cap: int, iteration: int, goals, metrics):
        from tqdm.std import tqdm  # the class tqdm exports, without its CLI and version modules (8 ms)

        self.cap, self.goals, self.iteration = cap, list(goals), iteration
        self.first = None
        self.text = ""
        self.t0 = time.perf_counter()
        self.start_iteration = iteration
        if not self.goals:
            self.bar = tqdm(total=cap, initial=iteration, unit="it", dynamic_ncols=True, mininterval=0.5)
            return
        self.bar = tqdm(total=self.STEPS, initial=0, dynamic_ncols=True, mininterval=0.5, desc="toward target",
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}{postfix}]")
        self.rewind(iteration, metrics)

    def measured(self, row: dict, text: str) -> None:
        """A metrics row was written: its exploitability (`text`) beside the bar, and with a target
        the bar's fill."""
        if not self.goals:
            self.bar.set_postfix_str(text, refresh=False)
            return
        self.first = self.first or row
        self.text = text
        self.bar.n = int(self.STEPS * target_fraction(self.first, row, self.goals))
        self._label()

    def advance(self, iteration: int, reached: bool = False) -> None:
        """The run is at `iteration`; `reached`: the target is met and the bar ends full here."""
        if not self.goals:
            if reached:  # the bar ends here, full
                self.bar.total = iteration
            self.bar.update(iteration - self.bar.n)
            return
        self.iteration = iteration
        if reached:
            self.bar.n = self.STEPS
        self._label()

    def rewind(self, iteration: int, metrics) -> None:
        """The run went back to `iteration` (a checkpoint) whose metrics rows are `metrics`."""
        self.iteration = iteration
        if not self.goals:
            self.bar.n = iteration
            self.bar.total = max(self.bar.total, self.cap)
            self.bar.refresh()
            return
        self.first = metrics[0] if metrics else None
        self.bar.n = int(self.STEPS * target_fraction(self.first, metrics[-1], self.goals)) if metrics else 0
        self.text = ""
        self._label()

    def _label(self):
        spent = time.perf_counter() - self.t0
        done = self.iteration - self.start_iteration
        rate = f", {done / spent:.3g} it/s" if spent > 0 and done > 0 else ""
        self.bar.set_postfix_str(f"iteration {self.iteration}/{self.cap} (cap){rate}"
                                 + (f", {self.text}" if self.text else ""), refresh=False)
        self.bar.update(0)  # redrawn at tqdm's pace

    def close(self):
        self.bar.close()


class _MetricsWriter:
    """metrics.csv, flushed after every row so an interrupted run keeps what it measured."""

    def __init__(self, path, columns=METRIC_COLUMNS, rows=()):
        self.path = path
        with self._named():
            self.fh = open(path, "w", newline="")
            self.csv = csv.DictWriter(self.fh, fieldnames=columns)
            self.csv.writeheader()
        for row in rows:  # a resumed run starts from the checkpoint's rows
            self.write(row)

    @contextmanager
    def _named(self):
        """An OSError (a full disk, a directory in the file's place) as an OutputError naming the file."""
        try:
            yield
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {reason(exc)}") from None

    def restart(self, rows):
        """Start the file again with `rows` (a run rolled back to a checkpoint)."""
        with self._named():
            self.fh.seek(0)
            self.fh.truncate()
            self.csv.writeheader()
        for row in rows:
            self.write(row)

    def write(self, row):
        with self._named():
            self.csv.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
            self.fh.flush()

    def close(self):
        self.fh.close()
