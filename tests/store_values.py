"""Every value a store holds, copied out: what the tests that compare two ways of running the same
passes (kernel variants, scratch buffers, parallel deals) compare bit for bit."""

import numpy as np


def stored_arrays(store, by_segment: bool = False) -> dict:
    """{array name: values} of every segment of `store` ({(segment, name): values} with `by_segment`)."""
    out = {}
    for key, spec in store.specs.items():
        with store.open(key, ()) as seg:
            out.update({((key, name) if by_segment else name): np.array(seg[name]) for name in spec.arrays})
    return out
