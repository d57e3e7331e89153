"""Seeded, deterministic k-means: k-means++ initialisation, Lloyd iterations, restarts.

Distances are squared L2 (OCHS vectors) or L1 (equity histograms given as CDFs: the L1
distance between two CDFs of equal-width bins is the earth mover's distance between the
histograms). Centres are means in both cases, the standard approach for EMD clustering of
hand histograms. Assignment runs in parallel threads over points; sums run in a fixed order, so one
seed gives one result.
"""

from __future__ import annotations

import numpy as np
from ..core.jit import njit

from .threads import run_ranges


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def _dist(a, b, l1):
    """L1 or squared L2 distance (two loops, so that each vectorises)."""
    d = np.float32(0.0)
    if l1:
        for j in range(a.shape[0]):
            d += abs(a[j] - b[j])
    else:
        for j in range(a.shape[0]):
            x = a[j] - b[j]
            d += x * x
    return d


@njit(cache=True, nogil=True, fastmath=True)
def _assign(lo, hi, points, centers, l1, labels, dist):
    """labels[i], dist[i]: the nearest centre of points lo..hi-1 (lowest index on ties)."""
    for i in range(lo, hi):
        best, arg = np.float32(np.inf), 0
        for c in range(centers.shape[0]):
            d = _dist(points[i], centers[c], l1)
            if d < best:
                best, arg = d, c
        labels[i] = arg
        dist[i] = best


@njit(cache=True, nogil=True, fastmath=True)
def _closer(lo, hi, points, center, l1, dist):
    """dist[i] = min(dist[i], distance to `center`), i in lo..hi-1 (k-means++ seeding)."""
    for i in range(lo, hi):
        d = _dist(points[i], center, l1)
        if d < dist[i]:
            dist[i] = d


@njit(cache=True, nogil=True)
def _means(points, labels, k, centers, dist):
    """Centres as means of their points; an empty cluster takes the point farthest from its
    centre (which then leaves its own cluster)."""
    n, d = points.shape
    sums = np.zeros((k, d))
    count = np.zeros(k, dtype=np.int64)
    for i in range(n):
        count[labels[i]] += 1
        for j in range(d):
            sums[labels[i], j] += points[i, j]
    for c in range(k):
        if count[c] == 0:
            far = np.argmax(dist)
            dist[far] = 0.0
            centers[c, :] = points[far]
        else:
            for j in range(d):
                centers[c, j] = sums[c, j] / count[c]


def _seed(points, k, l1, rng):
    """k-means++: each next centre drawn with probability proportional to its distance (L1)
    or squared distance (L2) to the nearest centre so far."""
    n = points.shape[0]
    centers = np.empty((k, points.shape[1]), dtype=np.float32)
    centers[0] = points[rng.integers(n)]
    dist = np.full(n, np.inf, dtype=np.float32)
    for c in range(1, k):
        run_ranges(_closer, n, points, centers[c - 1], l1, dist)
        total = dist.sum(dtype=np.float64)
        if total <= 0:  # fewer distinct points than centres: repeat one
            centers[c] = points[rng.integers(n)]
            continue
        centers[c] = points[min(np.searchsorted(np.cumsum(dist, dtype=np.float64), rng.random() * total,
                                                side="right"), n - 1)]
    return centers


def kmeans(points, k: int, l1: bool, seed: int, restarts: int = 1, iterations: int = 100):
    """(centres, inertia) of the best of `restarts` runs of k-means on `points` (as float32)."""
    points = np.ascontiguousarray(points, dtype=np.float32)
    n = points.shape[0]
    k = min(int(k), n)
    rng = np.random.default_rng(seed)
    best = (None, np.inf)
    labels = np.empty(n, dtype=np.int64)
    dist = np.empty(n, dtype=np.float32)
    for _ in range(max(1, restarts)):
        centers = _seed(points, k, l1, rng)
        previous = None
        for _ in range(max(1, iterations)):
            run_ranges(_assign, n, points, centers, l1, labels, dist)
            if previous is not None and np.array_equal(previous, labels):
                break
            previous = labels.copy()
            _means(points, labels, k, centers, dist)
        run_ranges(_assign, n, points, centers, l1, labels, dist)
        inertia = float(dist.sum(dtype=np.float64))
        if inertia < best[1]:
            best = (centers.copy(), inertia)
    return best


def nearest(points, centers, l1: bool) -> np.ndarray:
    """int32 index of the nearest centre of each point."""
    points = np.ascontiguousarray(points, dtype=np.float32)
    labels = np.empty(points.shape[0], dtype=np.int64)
    dist = np.empty(points.shape[0], dtype=np.float32)
    run_ranges(_assign, points.shape[0], points, np.ascontiguousarray(centers, dtype=np.float32), l1, labels, dist)
    return labels.astype(np.int32)
