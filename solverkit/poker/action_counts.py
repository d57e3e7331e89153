"""Counting the nodes of an action tree without building it: a memoised walk over betting states,
so that a tree too large to build is refused, and sized, at once."""

from __future__ import annotations

from ..errors import ConfigError
from .betting_rules import BettingRules
from .betting_states import _DEC, _END, _FOLD, _next_decision, expand, root_state, round_end_kind


def count_nodes(rules: BettingRules) -> tuple[int, ...]:
    """Nodes per round of the tree ``rules`` builds (exact), without building it: a memoised
    walk over betting states, so a tree of 1e12 nodes with few distinct states counts at once."""
    return tuple(_count(rules)[: rules.num_rounds])



def refuse_if_too_large(rules: BettingRules, max_nodes: int) -> tuple[int, ...]:
    """count_nodes(rules), or ConfigError naming the size when it exceeds ``max_nodes``."""
    counts = count_nodes(rules)
    total = sum(counts)
    if total > max_nodes:
        raise ConfigError(f"{rules.name}: the betting tree has {total:,} nodes (per round: "
                          f"{', '.join(f'{c:,}' for c in counts)}), more than the {max_nodes:,} allowed; "
                          "use fewer bet sizes, a raise_limit or smaller stacks")
    return counts



def betting_counts(rules: BettingRules):
    """The sizes of the tree ``rules`` builds, counted without building it (size.BettingCounts:
    decision nodes, their actions and the betting sequences entering each round, and all nodes)."""
    from .size import BettingCounts

    R = rules.num_rounds
    c = list(_count(rules))
    entering = c[3 * R:]
    entering[rules.start_round] += 1
    return BettingCounts(c[R:2 * R], c[2 * R:3 * R], entering, sum(c[:R]))


def _count(rules: BettingRules) -> tuple:
    """Per round: nodes, decision nodes, their actions and the round ends leading into the round
    (4 x rounds integers) of the tree ``rules`` builds: one memoised walk over betting states,
    each distinct state expanded once."""
    rules.validate()
    R = rules.num_rounds
    memo: dict[tuple, tuple] = {}

    def zero():
        return [0] * (4 * R)

    def add(total, sub):
        for i in range(4 * R):
            total[i] += sub[i]

    def end_counts(r, payload):
        out = zero()
        how = round_end_kind(rules, r, payload[0])
        if how == "showdown":
            out[r] += 1
            return out
        if how == "runout":
            for i in range(r, R):
                out[i] += 1
                if i + 1 < R:
                    out[3 * R + i + 1] += 1
            return out
        add(out, memo[_next_decision(rules, r, payload)])
        out[r] += 1
        out[3 * R + r + 1] += 1
        return out

    root = root_state(rules)
    work = [(root, None)]
    while work:
        state, kids = work.pop()
        if state in memo:
            continue
        if kids is None:
            kids = expand(rules, state)
            missing = [k[4] for k in kids if k[3] == _DEC and k[4] not in memo]
            missing += [nxt for nxt in (_next_decision(rules, state[0], k[4]) for k in kids if k[3] == _END)
                        if nxt is not None and nxt not in memo]
            if missing:
                work.append((state, kids))
                work.extend((m, None) for m in missing)
                continue
        r = state[0]
        total = zero()
        total[r] += 1
        total[R + r] += 1
        total[2 * R + r] += len(kids)
        for _, _, _, target, payload in kids:
            if target == _DEC:
                add(total, memo[payload])
            elif target == _FOLD:
                total[r] += 1
            else:
                add(total, end_counts(r, payload))
        memo[state] = tuple(total)
    return memo[root]
