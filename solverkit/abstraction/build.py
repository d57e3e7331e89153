"""Building a BucketTable: per round, lossless classes, EHS percentiles, EMD k-means over
equity histograms, or OCHS k-means over equities against opponent clusters.

The final round's equities come first (one pass over the canonical final boards), then each
earlier round's means or histograms from the next round's (rollout.py). Buckets are numbered by
increasing strength (mean equity of their hands), so bucket 0 is the weakest. Rounds with more
canonical hands than ``sample`` train k-means on a seeded sample, then every hand is assigned
to its nearest centre, in chunks.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..errors import ConfigError
from .equity import QMAX, FinalBoards
from .indexer import HandIndexer
from .kmeans import kmeans, nearest
from .rollout import Rollout
from .spec import CardSpec
from .table import BucketTable

METHODS = ("isomorphism", "ehs", "emd", "ochs")
#: canonical hands whose features are computed or assigned at once
CHUNK = 1 << 20


def percentile_buckets(values, k: int) -> np.ndarray:
    """Equal-count buckets of `values` (bucket 0 holds the lowest); equal values share a
    bucket, so fewer than k buckets may result."""
    values = np.asarray(values)
    n = values.shape[0]
    order = np.argsort(values, kind="stable")
    _, first, inverse = np.unique(values[order], return_index=True, return_inverse=True)
    out = np.empty(n, dtype=np.int64)
    out[order] = ((first * k) // max(n, 1))[inverse]
    return _dense(out, np.arange(k, dtype=np.float64))


def quantised_buckets(q, k: int) -> np.ndarray:
    """percentile_buckets of uint16 values in linear time (a count per value)."""
    counts = np.bincount(q, minlength=QMAX + 1)
    first = np.cumsum(counts) - counts
    of_value = (first * k) // max(q.shape[0], 1)
    return _dense(of_value[q], np.arange(k, dtype=np.float64))


def _dense(labels, strength) -> np.ndarray:
    """Labels renumbered 0.. in order of `strength` per label, empty labels dropped (int32)."""
    labels = np.asarray(labels)
    used = np.flatnonzero(np.bincount(labels, minlength=1))
    order = used[np.argsort(np.asarray(strength)[used], kind="stable")]
    remap = np.zeros(max(int(labels.max()) + 1 if labels.size else 1, 1), dtype=np.int32)
    remap[order] = np.arange(order.shape[0], dtype=np.int32)
    return remap[labels]


def check_buckets(buckets, spec: CardSpec, where: str = "[abstraction] buckets") -> None:
    """One entry per round, each >= 0 (0: lossless), or a ConfigError naming the rounds."""
    rounds = ", ".join(f"{r} ({b} board card{'s' if b != 1 else ''})" for r, b in enumerate(spec.board_cards))
    if len(buckets) != spec.rounds or any((not isinstance(b, int)) or b < 0 for b in buckets):
        raise ConfigError(f"{where} = {list(buckets)} is invalid: expected {spec.rounds} integers >= 0, one per "
                          f"round of the game (rounds {rounds}); 0 keeps a round lossless")


class _Builder:
    def __init__(self, spec, name, params, progress, indexer):
        self.spec, self.name, self.params = spec, name, params
        self.ix = indexer or HandIndexer(spec)
        self.t0 = time.perf_counter()
        self.report = progress or (lambda text: None)
        self.times, self.cpu_times = {}, {}
        self.seed = int(params.get("seed", 0))
        self.bins = int(params.get("bins", 50))

    def progress(self, text):
        self.report(f"[{time.perf_counter() - self.t0:7.1f}s] {text}")

    def timed(self, key, fn, *args):
        """fn(*args), its wall and CPU seconds (all threads) added to times and cpu_times."""
        t, c = time.perf_counter(), time.process_time()
        out = fn(*args)
        self.times[key] = self.times.get(key, 0.0) + time.perf_counter() - t
        self.cpu_times[key] = self.cpu_times.get(key, 0.0) + time.process_time() - c
        return out

    def chunked(self, n, fn, label):
        """fn(ids) over 0..n-1 in chunks, concatenated, with a progress line per chunk."""
        parts = []
        for lo in range(0, n, CHUNK):
            parts.append(fn(np.arange(lo, min(n, lo + CHUNK))))
            if n > CHUNK:
                self.progress(f"{label}: {min(n, lo + CHUNK):,} of {n:,} hands")
        return np.concatenate(parts)

    def kmeans_labels(self, feats, n, k, l1, r, label):
        """(labels, centres or None): k-means of a sample of `feats(ids)`, all hands assigned."""
        if n <= k:
            return np.arange(n, dtype=np.int32), None
        rng = np.random.default_rng([self.seed, r])
        sample = int(self.params.get("sample", 100000))
        train = np.arange(n) if n <= sample else np.sort(rng.choice(n, sample, replace=False))
        self.progress(f"{label}: k-means of {train.shape[0]:,} hands into {k} buckets")
        centers, _ = kmeans(feats(train), k, l1, int(rng.integers(2**62)), self.params.get("restarts", 1),
                            self.params.get("iterations", 50))
        return self.chunked(n, lambda ids: nearest(feats(ids), centers, l1), f"{label}: assigned"), centers

    def run(self) -> BucketTable:
        spec, ix, name = self.spec, self.ix, self.name
        buckets = list(self.params.get("buckets") or [0] * spec.rounds)
        check_buckets(buckets, spec)
        R, final = spec.rounds, spec.rounds - 1
        ochs = name == "ochs" and buckets[final] > 0
        lossy = [r for r in range(R) if buckets[r]]
        data, total = {}, {}
        if lossy:
            boards = self.timed("final boards", FinalBoards, spec, ix)
            self.progress(f"{boards.boards.shape[0]:,} canonical final boards x {boards.hands.shape[0]:,} hands")
            q = self.timed(f"round {final} equity", boards.equity)
            self.progress(f"round {final}: equity of {q.shape[0]:,} canonical hands")
            roll = Rollout(spec, ix)
            hist = name in ("emd", "ochs")
            for r in range(final - 1, -1 if ochs else min(lossy) - 1, -1):
                n, label = ix.size(r), f"round {r} ({ix.size(r):,} canonical hands)"
                if not hist:
                    if r + 1 == final and final not in data:
                        data[final] = q.astype(np.float32)
                    child, scale = (data[final], 1.0 / QMAX) if r + 1 == final else (data[r + 1], 1.0)
                    fn = lambda ids, r=r, child=child, scale=scale: roll.mean(r, ids, child, scale)
                elif r + 1 == final:
                    fn = lambda ids, r=r: roll.bins(r, ids, q, self.bins)
                    total[r] = roll.completions(r)
                else:
                    fn = lambda ids, r=r: roll.hist(r, ids, data[r + 1], total[r + 1])
                    total[r] = 1.0
                data[r] = self.timed(f"round {r} features", self.chunked, n, fn, label)
                self.progress(f"{label}: {'histograms' if hist else 'expected hand strength'}")
        assign = []
        for r in range(R):
            n, k, label = ix.size(r), buckets[r], f"round {r} ({ix.size(r):,} canonical hands)"
            t, c = time.perf_counter(), time.process_time()
            if k == 0:
                labels = np.arange(n, dtype=np.int32)
            elif r == final and ochs:
                labels = self.ochs(boards, data, total, q, k, label)
            elif r == final:
                labels = quantised_buckets(q, k)
            elif name == "ehs":
                labels = percentile_buckets(data[r], k)
            else:
                feats = lambda ids, r=r: np.cumsum(data[r][ids], axis=1, dtype=np.float32) / np.float32(total[r])
                labels, centers = self.kmeans_labels(feats, n, k, True, r, label)
                if centers is not None:  # a histogram's mean is bins - the sum of its CDF (in bins)
                    labels = _dense(labels, self.bins - centers.sum(axis=1))
            self.times[f"round {r} buckets"] = time.perf_counter() - t
            self.cpu_times[f"round {r} buckets"] = time.process_time() - c
            self.progress(f"{label}: {int(labels.max()) + 1} buckets")
            assign.append(labels)
        table = BucketTable(spec, name, self.params, assign, indexer=ix)
        table.times, table.cpu_times = self.times, self.cpu_times
        return table

    def ochs(self, boards, data, total, q, k, label):
        """Final-round OCHS labels: opponent clusters of first-round hands (EMD k-means of their
        histograms), equity against each on sampled boards, k-means (L2), every hand assigned."""
        spec, ix = self.spec, self.ix
        K = int(self.params.get("clusters", 8))
        n0 = ix.size(0)
        if spec.rounds > 1:
            points = np.cumsum(data[0], axis=1, dtype=np.float32) / np.float32(total[0])
        else:
            points = q.astype(np.float64)[:, None] / QMAX
        if n0 <= K:
            opp = np.arange(n0)
        else:
            centers, _ = kmeans(points, K, True, self.seed, self.params.get("restarts", 1),
                                self.params.get("iterations", 50))
            opp = nearest(points, centers, True)
        K = int(opp.max()) + 1
        cluster = opp[ix.index(0, boards.hands)]
        nb, nh = boards.boards.shape[0], boards.hands.shape[0]
        rng = np.random.default_rng([self.seed, spec.rounds - 1])
        want = min(nb, max(1, math.ceil(int(self.params.get("sample", 100000)) / nh)))
        rows = np.sort(rng.choice(nb, want, replace=False))
        feat = self.timed("ochs features", boards.cluster_features, cluster, K, rows)
        self.progress(f"{label}: OCHS against {K} opponent clusters; k-means of {feat.shape[0]:,} hands")
        centers, _ = self.timed("ochs k-means", kmeans, feat, min(k, feat.shape[0]), False,
                                int(rng.integers(2**62)), self.params.get("restarts", 1),
                                self.params.get("iterations", 50))
        labels = self.timed("ochs assign", boards.cluster_labels, cluster, K, centers)
        kk = centers.shape[0]
        strength = np.bincount(labels, q.astype(np.float64), minlength=kk) / np.maximum(
            np.bincount(labels, minlength=kk), 1)
        return _dense(labels, strength)


def build_table(spec: CardSpec, name: str, params: dict, progress=None, indexer: HandIndexer | None = None) -> BucketTable:
    """Build the table of method `name` with `params` (buckets per round, seed, bins, restarts,
    iterations, clusters, sample); `progress(text)` receives one line per step."""
    if name not in METHODS:
        raise ConfigError(f"abstraction name = {name!r} is invalid: expected one of {', '.join(METHODS)}")
    return _Builder(spec, name, params, progress, indexer).run()
