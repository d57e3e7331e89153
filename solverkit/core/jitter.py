"""``[solver] jitter``: the regrets moved by a few ulps (a seeded relative perturbation) after the
first iteration, so that runs of one deterministic assembly with several seeds show how far float
rounding alone carries its sequence. Alternating CFR is chaotic on many games: two correct
implementations that sum in another order agree to 1e-14 for some iterations and then part at a
steady rate (docs/reproductions.md); a published number is comparable only within that spread."""

from __future__ import annotations

import numpy as np

from ..errors import SolverkitError
from .store import family

#: the seed stream of the perturbation, apart from a sampler's (same [solver] seed, other numbers)
JITTER_STREAM = 0x6A177E5


def jitter_regrets(store, size: float, seed: int) -> None:
    """Multiply every stored regret by 1 + size * N(0, 1), segment by segment in key order (the
    same numbers for the same seed and store). Values that are 0 stay 0: the perturbation moves
    magnitudes, never a regret's sign."""
    rng = np.random.default_rng([int(seed), JITTER_STREAM])
    for key in sorted(store.specs):
        names = sorted(n for n in store.specs[key].arrays if family(n) == "regret")
        if not names:
            continue
        with store.open(key, writes=names) as seg:
            for name in names:
                r = seg[name]
                if not np.issubdtype(r.dtype, np.floating):  # a game's own integer store (config refuses the known ones)
                    raise SolverkitError(f"[solver] jitter: segment {key!r} keeps {name} as {r.dtype}, not floating "
                                         "point; jitter moves float values only")
                r *= 1.0 + size * rng.standard_normal(r.shape)
