"""Pluribus-style blueprint MCCFR (issue 28): external-sampling MCCFR over an abstracted N-player
poker game: the betting tree as flat arrays (:mod:`.betting`), buckets of a card abstraction,
one numba kernel per block of iterations (:mod:`.kernels`), the driver (:mod:`.engine`)."""
