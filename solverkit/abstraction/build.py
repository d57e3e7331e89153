"""Building a BucketTable: per round, lossless classes, EHS percentiles, EMD k-means over
equity histograms, or OCHS k-means over equities against opponent clusters.

Buckets are numbered by increasing strength (mean equity of their hands), so bucket 0 is the
weakest. Rounds too large to cluster whole train k-means on a seeded sample of canonical hands
(``sample``) and then assign every hand to its nearest centre, in chunks.
"""

from __future__ import annotations

import time

import numpy as np

from ..errors import ConfigError
from .equity import EquityTables
from .indexer import HandIndexer
from .kmeans import kmeans, nearest
from .spec import CardSpec
from .table import BucketTable

METHODS = ("isomorphism", "ehs", "emd", "ochs")
#: canonical hands whose features are computed at once when every hand is assigned
CHUNK = 1 << 20


def percentile_buckets(values, k: int) -> np.ndarray:
    """Equal-count buckets of `values` (ascending: bucket 0 holds the lowest); equal values
    share a bucket, so fewer than k buckets may result."""
    values = np.asarray(values)
    n = values.shape[0]
    order = np.argsort(values, kind="stable")
    sorted_vals = values[order]
    raw = (np.arange(n, dtype=np.int64) * k) // max(n, 1)
    _, first, inverse = np.unique(sorted_vals, return_index=True, return_inverse=True)
    out = np.empty(n, dtype=np.int32)
    out[order] = raw[first][inverse]
    return _dense(out, np.arange(k, dtype=np.float64))


def _dense(labels, strength) -> np.ndarray:
    """Labels renumbered 0.. in order of `strength` per label, empty labels dropped."""
    used = np.unique(labels)
    order = used[np.argsort(np.asarray(strength)[used], kind="stable")]
    remap = np.zeros(int(labels.max()) + 1 if labels.size else 1, dtype=np.int32)
    remap[order] = np.arange(order.shape[0], dtype=np.int32)
    return remap[labels]


def _cdf(hist):
    return np.cumsum(hist, axis=1)


class _Progress:
    def __init__(self, report):
        self.report = report or (lambda text: None)
        self.t0 = time.perf_counter()
        self.times = {}

    def __call__(self, text):
        self.report(f"[{time.perf_counter() - self.t0:7.1f}s] {text}")


def _cluster_round(feats, n, k, l1, params, rng_seed, progress, label):
    """Labels of every canonical hand 0..n-1 of a round: k-means on a sample of features
    (`feats(ids)` -> points), every hand assigned to its nearest centre."""
    if n <= k:
        return np.arange(n, dtype=np.int32), None
    rng = np.random.default_rng(rng_seed)
    sample = params.get("sample", 100000)
    train = np.arange(n) if n <= sample else np.sort(rng.choice(n, sample, replace=False))
    points = feats(train)
    progress(f"{label}: k-means of {train.shape[0]:,} hands into {k} buckets")
    centers, _ = kmeans(points, k, l1, int(rng.integers(2**63)), params.get("restarts", 1),
                        params.get("iterations", 100))
    labels = np.empty(n, dtype=np.int32)
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        labels[lo:hi] = nearest(feats(np.arange(lo, hi)), centers, l1)
        if n > CHUNK:
            progress(f"{label}: assigned {hi:,} of {n:,} hands")
    return labels, centers


def build_table(spec: CardSpec, name: str, params: dict, progress=None, indexer: HandIndexer | None = None) -> BucketTable:
    """Build the table of method `name` with `params` (buckets per round, seed, bins, restarts,
    iterations, clusters, sample); `progress(text)` receives one line per step."""
    if name not in METHODS:
        raise ConfigError(f"abstraction name = {name!r} is invalid: expected one of {', '.join(METHODS)}")
    buckets = list(params.get("buckets") or [0] * spec.rounds)
    check_buckets(buckets, spec)
    progress = _Progress(progress)
    ix = indexer or HandIndexer(spec)
    R = spec.rounds
    seed = int(params.get("seed", 0))
    bins = int(params.get("bins", 50))
    times = {}
    eq = ochs = None
    if any(buckets):
        t = time.perf_counter()
        eq = EquityTables(spec, ix)
        times["equity"] = time.perf_counter() - t
        progress(f"final-board equities: {eq.boards.shape[0]:,} boards x {eq.hands.shape[0]:,} hands")
    if name == "ochs" and buckets[R - 1]:
        t = time.perf_counter()
        K = int(params.get("clusters", 8))
        n0 = ix.size(0)
        hist0 = eq.features(0, np.arange(n0), bins=bins)
        if n0 <= K:
            opp = np.arange(n0)
        else:
            centers, _ = kmeans(_cdf(hist0), K, True, seed, params.get("restarts", 1), params.get("iterations", 100))
            opp = nearest(_cdf(hist0), centers, True)
        K = int(opp.max()) + 1
        cluster = opp[ix.index(0, eq.hands)]
        ochs = EquityTables(spec, ix, cluster, K)
        times["ochs_equity"] = time.perf_counter() - t
        progress(f"OCHS: {K} opponent clusters of the {n0} first-round hands")
    assign = []
    for r in range(R):
        n, k, t = ix.size(r), buckets[r], time.perf_counter()
        label = f"round {r} ({n:,} canonical hands)"
        final = r == R - 1
        if k == 0:
            labels = np.arange(n, dtype=np.int32)
        elif final and name == "ochs":
            labels, centers = _cluster_round(lambda ids: ochs.features(r, ids), n, k, False, params, [seed, r],
                                             progress, label)
            if centers is not None:
                labels = _dense(labels, _strength(eq, r, labels))
        elif name in ("ehs", "isomorphism") or final:
            values = np.concatenate([eq.features(r, np.arange(lo, min(n, lo + CHUNK)))[:, 0]
                                     for lo in range(0, n, CHUNK)])
            labels = percentile_buckets(values, k)
        else:
            labels, centers = _cluster_round(lambda ids: _cdf(eq.features(r, ids, bins=bins)), n, k, True, params,
                                             [seed, r], progress, label)
            if centers is not None:  # the mean of a histogram is bins - the sum of its CDF (in bins)
                labels = _dense(labels, bins - centers.sum(axis=1))
        times[f"round {r}"] = time.perf_counter() - t
        progress(f"{label}: {int(labels.max()) + 1} buckets in {times[f'round {r}']:.1f}s")
        assign.append(labels)
    table = BucketTable(spec, name, params, assign, indexer=ix)
    table.times = times
    return table


def _strength(eq, r, labels):
    """Mean equity per label (OCHS centres have no single strength): the bucket order."""
    n = labels.shape[0]
    ehs = np.concatenate([eq.features(r, np.arange(lo, min(n, lo + CHUNK)))[:, 0] for lo in range(0, n, CHUNK)])
    k = int(labels.max()) + 1
    return np.bincount(labels, ehs, minlength=k) / np.maximum(np.bincount(labels, minlength=k), 1)


def check_buckets(buckets, spec: CardSpec, where: str = "[abstraction] buckets") -> None:
    """One entry per round, each >= 0 (0: lossless), or a ConfigError naming the rounds."""
    rounds = ", ".join(f"{r} ({b} board card{'s' if b != 1 else ''})" for r, b in enumerate(spec.board_cards))
    if len(buckets) != spec.rounds or any((not isinstance(b, int)) or b < 0 for b in buckets):
        raise ConfigError(f"{where} = {list(buckets)} is invalid: expected {spec.rounds} integers >= 0, one per "
                          f"round of the game (rounds {rounds}); 0 keeps a round lossless")
