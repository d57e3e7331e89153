"""The steps every sampled traversal shares: node kinds and modes, regret matching onto edges, first visits, pruning."""

from __future__ import annotations

from ..core.jit import njit

from ..core.arith import rm_prob, rm_total


DECISION, CHANCE, TERMINAL = 0, 1, 2


#: traversal modes (the sampler's scheme)
MODE_CHANCE, MODE_EXTERNAL, MODE_OUTCOME = 1, 2, 3


MODES = {"chance": MODE_CHANCE, "external": MODE_EXTERNAL, "outcome": MODE_OUTCOME}


@njit(cache=True, nogil=True, inline="always")
def _policy(src, off, first, A, pol):
    """Regret matching of src[off : off + A] onto the edges pol[first : first + A]."""
    total = rm_total(src, off, A)
    for a in range(A):
        pol[first + a] = rm_prob(src[off + a], total, A)


@njit(cache=True, nogil=True, inline="always")
def _touch(n, node, infoset, seen, touched, nt):
    """Remember the first visit of n's information set in this pass (for the sparse update)."""
    s = infoset[n]
    if seen[s] == 0:
        seen[s] = 1
        touched[nt[0]] = n
        nt[0] += 1


@njit(cache=True, nogil=True, inline="always")
def _skip(prunes, src, off, a, node, c, thr):
    """True when a pruning visit (prunes: the traversal prunes and the set has a positive regret)
    skips action a (child c): its regret is below thr and its child is not terminal."""
    return prunes and src[off + a] < thr and node[c, 0] != TERMINAL
