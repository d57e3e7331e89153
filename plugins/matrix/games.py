"""Two-player zero-sum matrix games (row player maximises x^T A y) for CFR and CFR+.

A matrix game is a sequential game with one information set per player, so a CFR pass is two
matrix-vector products: the row player's counterfactual values are A y, the column player's
are -x^T A. Exploitability of (x, y) is (max A y + max -x^T A) / 2.

The passes also keep A S1 and -(S0 A) for the cumulative strategies S0, S1 (store arrays
``avgval0``, ``avgval1``), accumulated with the same averaging coefficients from the products the
passes compute anyway, so evaluating the average strategy costs O(rows + cols), not two more
products. The O(n) work of a pass is two small kernels around the BLAS product; the rule and the
averaging scheme stay plug-ins (``job.update``, ``job.accumulate``).
"""

from __future__ import annotations

import math
import weakref
from pathlib import Path

import numpy as np
from solverkit.core.jit import njit

from solverkit.core.arith import avg_step, rm_total, rm_prob, rule_step
from solverkit.core.game import Game, PassJob
from solverkit.core.layout import Layout
from solverkit.core.memory import too_large
from solverkit.core.params import Param, number_from_text
from solverkit.core.passes import policy_source
from solverkit.errors import ConfigError


@njit(cache=True)
def current_policy(src, out):
    """out = regret matching of one information set's policy source."""
    n = src.shape[0]
    total = rm_total(src, 0, n)
    for a in range(n):
        out[a] = rm_prob(src[a], total, n)


@njit(cache=True)
def instantaneous_regret(src, values, negate, delta):
    """delta = values - sigma . values, where sigma is the regret matching of `src`.

    With `negate`, `values` is first negated in place (the column player's values are -(x A)).
    """
    ev = _policy_value(src, values, negate)
    for a in range(src.shape[0]):
        delta[a] = values[a] - ev


@njit(cache=True)
def _policy_value(src, values, negate):
    """sigma . values, sigma the regret matching of `src`; with `negate`, `values` is negated in
    place first."""
    n = src.shape[0]
    if negate:
        for a in range(n):
            values[a] = -values[a]
    total = rm_total(src, 0, n)
    ev = 0.0
    for a in range(n):
        ev += rm_prob(src[a], total, n) * values[a]
    return ev


@njit(cache=True)
def fused_update(regret, values, negate, pre, pos, neg, floor, total, contrib, avgval, decay, weight, policy_out):
    """The whole O(n) part of an alternating pass for an inline rule and averaging scheme:
    instantaneous regrets (as :func:`instantaneous_regret`), the rule's step on every regret,
    the opponent's cumulative strategy and avgval accumulations (skipped when `total` is
    empty), and finally policy_out = regret matching of the updated regrets."""
    n = regret.shape[0]
    ev = _policy_value(regret, values, negate)
    for a in range(n):
        regret[a] = rule_step(regret[a], values[a] - ev, pre, pos, neg, floor)
    if total.shape[0] == contrib.shape[0] and not (weight == 0.0 and decay == 1.0):
        for i in range(contrib.shape[0]):
            total[i] = avg_step(total[i], weight, contrib[i], decay)
        for i in range(n):
            avgval[i] = avg_step(avgval[i], weight, values[i], decay)
    # the updated player's new policy, which the opponent's next pass is computed against
    current_policy(regret, policy_out)


@njit(cache=True)
def average_best_responses(avgval0, avgval1, avg0, avg1):
    """(max(avgval0) / sum(avg1), max(avgval1) / sum(avg0)); nan where a cumulative strategy has
    a negative entry or no positive weight, or a value is nan (the caller then falls back)."""
    out = np.empty(2)
    for p in range(2):
        values = avgval0 if p == 0 else avgval1
        weights = avg1 if p == 0 else avg0
        total = 0.0
        bad = False
        for w in weights:
            if not w >= 0.0:
                bad = True
            total += w
        best = -np.inf
        for v in values:
            if v != v:
                bad = True
            if v > best:
                best = v
        out[p] = best / total if total > 0.0 and not bad else np.nan
    return out[0], out[1]


class _Scratch:
    """Buffers of the passes over one store: policies, action values, instantaneous regrets."""

    def __init__(self, rows, cols):
        self.x, self.u0, self.d0 = np.empty(rows), np.empty(rows), np.empty(rows)
        self.y, self.u1, self.d1 = np.empty(cols), np.empty(cols), np.empty(cols)
        self.empty = np.zeros(0)
        self.fresh = (False, False)
        self.averaging = None
        # avgval0/1 equal A S1 and -(S0 A) only while every accumulate was linear
        self.avgval_ok = True


def _fusable(job) -> bool:
    """True when the rule and the averaging scheme are given by their coefficients alone."""
    return job.rule.inline and _is_linear(job.averaging)


def _is_linear(averaging) -> bool:
    """True when the scheme accumulates S <- S * decay + weight * contrib (its declared family)."""
    return averaging.inline


#: largest payoff magnitude accepted: the regrets and the weighted sums of the average grow like
#: payoff x iterations^(1 + averaging exponent), which must stay far below float64's 1.8e308
MAX_PAYOFF = 1e150
#: most payoffs a matrix may have (3.2 GB as float64), whether drawn, read from .npy or from .csv
MAX_ENTRIES = 400_000_000
#: numpy dtype kinds of payoffs: signed and unsigned integers, floating point
PAYOFF_KINDS = {"i": "signed integer", "u": "unsigned integer", "f": "floating point"}


def check_payoffs(matrix, where: str) -> np.ndarray:
    """`matrix` as a C-contiguous float64 rows x cols array, or a ConfigError (naming `where`)
    for another dtype (complex, bool, strings, objects, dates, records), another number of
    dimensions, an empty matrix, a NaN or infinite entry, or an entry beyond ±MAX_PAYOFF."""
    m = matrix if isinstance(matrix, np.ndarray) else np.asarray(matrix)
    if m.dtype.kind not in PAYOFF_KINDS:
        raise ConfigError(f"{where}: payoffs of dtype {m.dtype} are not supported; expected numbers "
                          f"({', '.join(PAYOFF_KINDS.values())}), e.g. float64")
    if m.ndim != 2:
        raise ConfigError(f"{where}: expected a 2-D matrix (rows x cols), got a {m.ndim}-D array of shape {m.shape}")
    if m.shape[0] < 1 or m.shape[1] < 1:
        raise ConfigError(f"{where}: expected a non-empty matrix, got shape {m.shape}")
    _check_entries(m.shape, where)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.ascontiguousarray(m, dtype=np.float64)  # float128 beyond float64 becomes inf
    except MemoryError:
        raise ConfigError(f"{where}: not enough memory for the {m.shape[0]:,} x {m.shape[1]:,} payoffs as float64 "
                          f"({m.shape[0] * m.shape[1] * 8 / 1e9:.3g} GB); use a smaller matrix") from None
    bad = ~np.isfinite(out)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ConfigError(f"{where}: payoff [{i}, {j}] = {float(out[i, j])} is not finite; expected finite "
                          f"numbers (no NaN or infinity; {int(bad.sum())} such entries)")
    big = np.abs(out) > MAX_PAYOFF
    if big.any():
        i, j = np.argwhere(big)[0]
        raise ConfigError(f"{where}: payoff [{i}, {j}] = {out[i, j]:.6g} exceeds the bound {MAX_PAYOFF:g}; expected "
                          "|payoff| <= 1e150 so that the solver's regrets and weighted sums stay finite "
                          "(rescale the matrix)")
    return out


class MatrixGame(Game):
    """Base of the matrix games: subclasses build ``self.matrix`` (rows x cols, row payoff)."""

    unit_name = "payoff"

    def __init__(self, **params):
        super().__init__(**params)
        self.matrix = matrix = check_payoffs(self.build_matrix(), self.where())
        self._layouts = (Layout.single(matrix.shape[0]), Layout.single(matrix.shape[1]))
        self._scratches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def build_matrix(self) -> np.ndarray:
        raise NotImplementedError

    def where(self) -> str:
        """How errors about the payoffs name their source."""
        return f"game {self.name!r}"

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_scratches"] = None  # per-store buffers stay with this process
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._scratches = weakref.WeakKeyDictionary()

    def layout(self, player):
        return self._layouts[player]

    def segments(self, with_average):
        """The default segment, plus ``avgval0`` = A S1 and ``avgval1`` = -(S0 A) when an average
        is kept: each player's action values against the opponent's cumulative strategy, which
        :meth:`best_response_from_store` turns into the average's best responses in O(n)."""
        specs = super().segments(with_average)
        if with_average:
            rows, cols = self.matrix.shape
            specs[0].arrays.update({"avgval0": rows, "avgval1": cols})
        return specs

    def warmup(self):
        a = np.zeros(2)
        current_policy(a, a.copy())
        instantaneous_regret(a, a.copy(), True, a.copy())
        average_best_responses(a, a, a, a)
        fused_update(a, a.copy(), True, 1.0, 1.0, 1.0, 0.0, a.copy(), a.copy(), a.copy(), 1.0, 1.0, a.copy())

    def _scratch(self, store) -> "_Scratch":
        s = self._scratches.get(store)
        if s is None:
            s = self._scratches[store] = _Scratch(*self.matrix.shape)
            # a store that re-encodes (fixed point) hands back values that differ from what a
            # pass computed, so nothing may be carried from one pass to the next
            s.exact_store = bool(getattr(store, "exact", True))
            s.avgval_ok = s.avgval_ok and s.exact_store
        return s

    def forget_store_caches(self, store) -> None:
        """Regrets changed outside a pass: the policies kept from the last pass are stale."""
        s = self._scratches.get(store)
        if s is not None:
            s.fresh = (False, False)

    def cfr_pass(self, store, job: PassJob, transport=None):
        # Per pass: the opponent's policy, one BLAS product, one fused kernel for the updating
        # player's policy and regrets, then the rule and averaging plug-ins.
        A = self.matrix
        s = self._scratch(store)
        own = len(job.players) == 1 and job.averaging.own_pass
        if job.averaging is not s.averaging:
            s.averaging = job.averaging
            # avgval (the average's values, kept beside it) pairs each average with the opponent's pass
            s.avgval_ok = s.avgval_ok and _is_linear(job.averaging) and not job.averaging.own_pass
        players = job.players
        with store.open("root") as seg:
            r0, r1 = seg["regret0"], seg["regret1"]
            if len(players) == 1 and _fusable(job) and not own:
                # one BLAS product and one kernel: the common case (CFR+ and relatives)
                p = players[0]
                pre, pos, neg, floor = job.rule.kernel_coefficients(job.iteration)
                if job.averaging.keeps_average:
                    decay, weight = job.averaging.coefficients(job.iteration)
                    total, avgval = seg["avg1" if p == 0 else "avg0"], seg[f"avgval{p}"]
                else:
                    decay, weight, total, avgval = 1.0, 0.0, s.empty, s.empty
                # s.fresh[q]: s.x / s.y already hold player q's policy (the last fused pass
                # updated q and left it there); anything else recomputes it
                if p == 0:
                    if not s.fresh[1]:
                        current_policy(r1, s.y)
                    np.dot(A, s.y, out=s.u0)
                    fused_update(r0, s.u0, False, pre, pos, neg, floor, total, s.y, avgval, decay, weight, s.x)
                else:
                    if not s.fresh[0]:
                        current_policy(r0, s.x)
                    np.dot(s.x, A, out=s.u1)
                    fused_update(r1, s.u1, True, pre, pos, neg, floor, total, s.x, avgval, decay, weight, s.y)
                s.fresh = (p == 0 and s.exact_store, p == 1 and s.exact_store)
                return
            s.fresh = (False, False)
            # any rule: policies from the rule's policy source, the rule's own update after
            src0 = policy_source(store, seg, "root", 0, job.rule)
            src1 = policy_source(store, seg, "root", 1, job.rule)
            if players == (0,):
                current_policy(src1, s.y)
                if own:  # the strategy the row player plays in this pass, before its regrets move
                    current_policy(src0, s.x)
                np.dot(A, s.y, out=s.u0)  # row player's action values against y
                instantaneous_regret(src0, s.u0, False, s.d0)
                job.update(seg, 0, s.d0)
                if own:
                    job.accumulate(seg.get("avg0"), s.x)
                else:
                    job.accumulate(seg.get("avg1"), s.y)  # y is what the row player's regrets were computed against
                    job.accumulate(seg.get("avgval0"), s.u0)  # so avgval0 stays A @ avg1
            elif players == (1,):
                current_policy(src0, s.x)
                if own:
                    current_policy(src1, s.y)
                np.dot(s.x, A, out=s.u1)
                instantaneous_regret(src1, s.u1, True, s.d1)  # negates u1: column values are -(x A)
                job.update(seg, 1, s.d1)
                if own:
                    job.accumulate(seg.get("avg1"), s.y)
                else:
                    job.accumulate(seg.get("avg0"), s.x)
                    job.accumulate(seg.get("avgval1"), s.u1)
            elif set(players) == {0, 1}:
                # simultaneous: both players' regrets from the same profile
                current_policy(src0, s.x)
                current_policy(src1, s.y)
                np.dot(A, s.y, out=s.u0)
                np.dot(s.x, A, out=s.u1)
                instantaneous_regret(src0, s.u0, False, s.d0)
                instantaneous_regret(src1, s.u1, True, s.d1)
                job.update(seg, 0, s.d0)
                job.update(seg, 1, s.d1)
                job.accumulate(seg.get("avg1"), s.y)
                job.accumulate(seg.get("avgval0"), s.u0)
                job.accumulate(seg.get("avg0"), s.x)
                job.accumulate(seg.get("avgval1"), s.u1)
            else:
                raise ValueError(f"matrix game pass: players must be (0,), (1,) or (0, 1), got {players!r}")

    def best_response_from_store(self, store, kind, transport=None):
        """Best responses to the average strategy from ``avgval0/1``: br_0 = max(A S1) / sum(S1),
        br_1 = max(-(S0 A)) / sum(S0). None (use the exact path) for the current strategy, before
        any weight reached the average, or when the averaging may not be linear."""
        if kind != "average":
            return None
        s = self._scratches.get(store)
        if s is None or not s.avgval_ok:
            return None
        seg = store.read("root")
        arrays = [seg.get(k) for k in ("avgval0", "avgval1", "avg0", "avg1")]
        if any(a is None for a in arrays):
            return None
        br0, br1 = average_best_responses(*arrays)
        if br0 != br0 or br1 != br1:
            return None
        return float(br0), float(br1)

    def best_response(self, strategy):
        x, y = strategy
        return float(np.max(self.matrix @ y)), float(np.max(-(x @ self.matrix)))

    def infoset_keys(self, player):
        return ["row" if player == 0 else "column"]

    def action_names(self, player):
        return [f"{'r' if player == 0 else 'c'}{i}" for i in range(self.matrix.shape[player])]


class SkewedPennies(MatrixGame):
    """Matching pennies with skewed payoffs (Tammelin et al. 2015, Figure 2a): the row player
    gets +1 when both show heads, +4 when both show tails, -2 otherwise."""

    name = "skewed_pennies"
    description = "matching pennies, row payoffs +1 (heads), +4 (tails), -2 (mismatch)"
    params = {
        "heads": Param("float", 1.0, "row payoff when both show heads"),
        "tails": Param("float", 4.0, "row payoff when both show tails"),
        "mismatch": Param("float", -2.0, "row payoff when the coins differ"),
    }

    def build_matrix(self):
        c = self.config
        return np.array([[c["heads"], c["mismatch"]], [c["mismatch"], c["tails"]]])

    def action_names(self, player):
        return ["heads", "tails"]


class RandomMatrix(MatrixGame):
    """A rows x cols game with i.i.d. N(0, 1) payoffs drawn from numpy's default_rng(seed)."""

    name = "random_matrix"
    description = "random game, payoffs i.i.d. N(0,1) from a seed"
    params = {
        "rows": Param("int", 1000, "row player's actions", min=1, max=100_000),
        "cols": Param("int", 1000, "column player's actions", min=1, max=100_000),
        "seed": Param("int", 0, "seed of numpy.random.default_rng", min=0),
    }

    def build_matrix(self):
        c = self.config
        if c["rows"] * c["cols"] > MAX_ENTRIES:
            raise ConfigError(
                f"game 'random_matrix': rows x cols = {c['rows'] * c['cols']:,} payoffs exceeds {MAX_ENTRIES:,} (3.2 GB)"
            )
        _check_memory(c["rows"] * c["cols"], f"game 'random_matrix' (rows = {c['rows']:,}, cols = {c['cols']:,})")
        try:
            return np.random.default_rng(c["seed"]).standard_normal((c["rows"], c["cols"]))
        except MemoryError:
            raise ConfigError(f"game 'random_matrix': not enough memory for rows x cols = {c['rows']:,} x "
                              f"{c['cols']:,} payoffs ({c['rows'] * c['cols'] * 8 / 1e9:.3g} GB); use a smaller game") from None


class MatrixFile(MatrixGame):
    """A payoff matrix for the row player from a .npy file or a comma-separated .csv file."""

    name = "matrix_file"
    description = "payoff matrix from a .npy or .csv file"
    params = {"path": Param("path", None, "the .npy or .csv file", required=True)}

    def where(self) -> str:
        return f"[game] path = {self.config['path']!r}"

    def build_matrix(self):
        path = Path(self.config["path"])
        where = self.where()
        if not path.is_file():
            if path.exists():  # a directory, a device (/dev/zero would be read without end), a pipe
                raise ConfigError(f"{where} is not a regular file; expected a .csv or .npy file")
            raise ConfigError(f"{where}: file not found")
        suffix = path.suffix.lower()
        if suffix not in (".npy", ".csv"):
            raise ConfigError(f"{where}: unsupported extension {suffix!r}; valid: .csv, .npy")
        if path.stat().st_size == 0:
            raise ConfigError(f"{where}: the file is empty; expected a 2-D matrix of payoffs "
                              f"({'a NumPy .npy array' if suffix == '.npy' else 'rows of comma-separated numbers'})")
        if suffix == ".csv":
            return read_csv_matrix(path, where)
        with path.open("rb") as fh:
            magic = fh.read(6)
        if magic != b"\x93NUMPY":
            raise ConfigError(f"{where}: cannot read the matrix: the file starts with {magic!r}, not a NumPy .npy "
                              "header; expected an array saved with numpy.save")
        try:
            m = np.load(path, mmap_mode="r", allow_pickle=False)  # dtype and shape before the data
        except ValueError as exc:
            if "Python objects" in str(exc):
                raise ConfigError(f"{where}: payoffs of dtype object are not supported; expected numbers "
                                  f"({', '.join(PAYOFF_KINDS.values())}), e.g. float64") from None
            raise ConfigError(f"{where}: cannot read the matrix: {_one_line(exc)}") from None
        except Exception as exc:
            raise ConfigError(f"{where}: cannot read the matrix: {_one_line(exc)}") from None
        if not isinstance(m, np.ndarray):
            raise ConfigError(f"{where}: cannot read the matrix: the file is a {type(m).__name__} "
                              "(an .npz archive?), expected one array saved with numpy.save")
        if m.dtype.kind in "USaO":
            raise ConfigError(f"{where}: expected numbers, got dtype {m.dtype} (payoffs must be "
                              f"{', '.join(PAYOFF_KINDS.values())})")
        _check_entries(m.shape, where)
        return m


def _check_entries(shape, where: str) -> None:
    """A ConfigError when a matrix of `shape` has more than MAX_ENTRIES payoffs: checked from the
    header, before the payoffs are read or converted (which would exhaust memory)."""
    entries = math.prod(int(n) for n in shape)
    if entries > MAX_ENTRIES:
        raise ConfigError(f"{where}: the matrix has shape {tuple(int(n) for n in shape)}, {entries:,} payoffs; at most "
                          f"{MAX_ENTRIES:,} (3.2 GB as float64) are accepted")
    _check_memory(entries, where)


#: bytes per payoff while a matrix is made and checked: the float64 matrix, a float64 temporary
#: (``abs``) and a boolean mask
ENTRY_BYTES = 17


def _check_memory(entries: int, where: str) -> None:
    """A ConfigError, before anything is allocated, when `entries` payoffs cannot be made and
    checked in this machine's memory."""
    problem = too_large(entries * ENTRY_BYTES)
    if problem:
        raise ConfigError(f"{where}: {entries:,} payoffs (about {ENTRY_BYTES} bytes each while the matrix is made "
                          f"and checked) {problem}; use a smaller matrix")


def _one_line(exc) -> str:
    return " ".join(str(exc).split())[:200]


#: largest .csv matrix file read (text: a larger matrix belongs in a .npy file)
MAX_CSV_BYTES = 64 << 20


def read_csv_matrix(path: Path, where: str) -> np.ndarray:
    """A CSV file of numbers (one row per line, comma-separated; ``#`` lines and blank lines after
    the last row skipped) as float64, or a ConfigError naming the line and the field that is not a number."""
    size = path.stat().st_size
    if size > MAX_CSV_BYTES:
        raise ConfigError(f"{where}: the file has {size:,} bytes, more than the {MAX_CSV_BYTES:,} a .csv matrix may "
                          "have; save a large matrix with numpy.save (.npy)")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark, as spreadsheets write, is not a payoff
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{where}: cannot read the matrix: line {line}: byte {data[exc.start]:#04x} is not "
                          "UTF-8 text; expected comma-separated numbers") from None
    rows, width, blank = [], None, None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            blank = blank or lineno  # only after the last row: elsewhere it may be a missing value
            continue
        if line.startswith("#"):
            continue
        if blank:  # in a one-column matrix a blank line is an empty cell: never guess which
            raise ConfigError(f"{where}: cannot read the matrix: line {blank} is blank {'between' if rows else 'before'} "
                              "rows; a matrix has no empty rows (in a one-column matrix: a missing value), remove "
                              "the line or fill it in")
        cells = line.split(",")
        if width is not None and len(cells) != width:
            raise ConfigError(f"{where}: cannot read the matrix: line {lineno} has {len(cells)} fields, "
                              f"expected {width} like the first row")
        width = len(cells)
        row = []
        for col, cell in enumerate(cells, 1):
            number = number_from_text(cell)
            if number is None:  # float() would take "1_000", full-width digits, "nan" and "infinity"
                raise ConfigError(f"{where}: cannot read the matrix: line {lineno}, field {col} = "
                                  f"{cell.strip()!r:.40} is not a number; expected comma-separated plain decimal "
                                  "numbers (ASCII digits, e.g. -1.5 or 2e3)") from None
            row.append(float(number))
        rows.append(np.array(row))
    if not rows:
        raise ConfigError(f"{where}: the file has no rows; expected a 2-D matrix of comma-separated numbers")
    return np.vstack(rows)
