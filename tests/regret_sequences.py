"""What the regret-rule tests share: a hypothesis strategy for a multi-block layout and a run of
iterations' instantaneous regrets over it, and that run fed to a rule."""

import numpy as np
from hypothesis import strategies as st

from solverkit.core.layout import Layout


@st.composite
def blocks_and_deltas(draw, values, max_blocks: int, max_steps: int):
    """(blocks, deltas): 1..max_blocks information-set blocks (count, actions), and 1..max_steps
    lists of `values` (a float strategy), one value per regret of the layout."""
    blocks = draw(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 4)), min_size=1, max_size=max_blocks))
    size = Layout.from_blocks(blocks).size
    steps = draw(st.integers(1, max_steps))
    deltas = [draw(st.lists(values, min_size=size, max_size=size)) for _ in range(steps)]
    return blocks, deltas


def regret_runs(rule, size, deltas, *state):
    """(t, delta, regrets) after each iteration t = 1..T: `rule` updates one array, from zeros, in
    place (`state`: a stateful rule's arrays, passed on)."""
    regret = np.zeros(size)
    for t, delta in enumerate(deltas, start=1):
        rule.update(regret, np.array(delta), t, *state)
        yield t, delta, regret


def final_regrets(rule, size, deltas, *state):
    """The regrets after the last iteration of `deltas`."""
    *_, (_, _, regret) = regret_runs(rule, size, deltas, *state)
    return regret
