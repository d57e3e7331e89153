"""Heads-up no-limit turn search against the blueprint, evaluated offline (issue 29): the river
bench (bench/hunl_search_offline.py) from the turn. Turn public states are sampled from
blueprint-vs-blueprint hands; in each, every pair of hands the two Bayes ranges hold is enumerated
and the turn and river are walked history by history in the real game (NoLimitState), each player
lifted from what it plays (the river bench's BlueprintSide and SearchSide: the blueprint's policy per
bucket with its translations, the agent's own ``spot_node`` / ``spot_tokens`` / ``spot_policy``
lookups). Where the turn's betting closes the river card is dealt: every card (``--cards 0``) or
``--cards K`` of them drawn per state (the same cards for every profile compared, each weighted so
that the value stays unbiased), and per card the blueprint's river buckets, the showdowns and,
with nested search, the agent's river re-solve (its Bayes ranges from the blueprint's policy along
the hand's path, its own turn actions mapped into the blueprint's tree as it maps them: one branch
per translation) are those of the card.

Per state and seat: the agent's expected winnings (chips over the whole hand, given the public
state) for the searching agent vs the blueprint and the blueprint vs the blueprint. Showdowns use
tests/spot_oracle.py's seven-card ranking. Re-solves run ``--iterations`` DCFR iterations (the turn)
and ``--river-iterations`` (the nested river), no time budget.

    python bench/hunl_turn_search_offline.py --run runs/blueprint_hunl --states 30 --cards 4
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import hunl_search_offline as river  # noqa: E402
from hunl_search_offline import H, BlueprintSide, SearchSide, Showdown, load_run, view  # noqa: E402

from solverkit.blueprint.player import BlueprintPlayer, hand_buckets  # noqa: E402
from solverkit.poker.acpc_protocol import parse_action  # noqa: E402
from solverkit.poker.ranges import COMBO_CARDS  # noqa: E402
from solverkit.search.spot_search import SpotSearchPlayer, spot_policies  # noqa: E402

TURN, RIVER = 2, 3


def sample_states(game, strategy, hands: int, seed: int):
    """The river bench's states, at the turn's start (board: flop and turn, and the river card)."""
    return river.sample_states(game, strategy, hands, seed, street=TURN)


class Pairs:
    """The turn board's pair table D (no shared card): folds on the turn, the states' weights."""

    def __init__(self, board):
        self.D = river.pair_table(board)


class BpSide(BlueprintSide):
    """The river bench's BlueprintSide on a board of any length (buckets of the rounds it has)."""

    def __init__(self, player: BlueprintPlayer, seat: int, board):
        self.p, self.seat = player, seat
        self.buckets = {r: hand_buckets(player.bp, r, [c for b in board[:r] for c in b], COMBO_CARDS)
                        for r in range(len(board) + 1)}


class TurnSearchSide(SearchSide):
    """The searching agent lifted to every combo from the turn; a branch is (spot key, its
    blueprint node, its own actions' blueprint nodes as (action index, node) pairs). Its first
    decision of a round (key None) makes the round's spot: one per betting, river card and mapping
    of its own earlier actions."""

    def __init__(self, agent, seat, sample, bp_side, spots, card):
        super().__init__(agent, seat, sample, bp_side, "new", spots)
        self.card = card
        self.searched = 0
        self.cache = {}  # (spot key, node): the lifted policy

    def _at(self, real, key, own=(), prev=None):
        a, s = self.a, self.s
        state = view(self.seat, s["hand"], real, s["hole"], s["board"])
        a._hand, a._path, a._own = state.hand, [], dict(own)  # its own actions mapped as the walk's branch maps them
        a._rng = np.random.default_rng(0)
        _, now = a._replay(state)
        start = a._round_start(state)
        if start is None:
            return None, key
        a._solved = None
        if key not in self.spots and self.spots.get(prev) is not None:  # the turn's re-solve, for its river range
            a._solved = ((state.hand, TURN),) + self.spots[prev]
        if key in self.spots:
            if self.spots[key] is None:
                return None, key
            a._solved = ((state.hand, real.round),) + self.spots[key]
        before = a._solved
        at = a.spot_node(state, now, start)
        if a._solved is before:  # (the spot of `key`, or none made)
            if key not in self.spots:
                self.spots[key] = None
            return at, key
        self.searched += 1
        if key in self.spots:  # re-solved after an off-tree raise: a spot of its own
            key = key + (real.betting(),)
        self.spots[key] = a._solved[1:]
        return at, key

    def decide(self, branch, real):
        key, node, own, prev = branch
        if key is None:
            key = (real.round, self.card, real.betting(), own)
        at, key = self._at(real, key, own, prev)
        index = sum(len(x) for x in real.actions)
        if at is None:
            self.fallback += 1
            return [(tok, pr, (key, nxt, own + ((index, nxt),), prev)) for tok, pr, nxt in self.bp.decide(node, real)]
        game, strategy, n = at
        probs = self.cache.get((key, n))
        if probs is None:
            probs = self.cache[(key, n)] = self.policy(game, strategy, n)
        out = []
        for slot, tok in enumerate(river.spot_tokens(game, n, real)):
            letter, size = parse_action(tok, True)
            for w, nxt in self.own_map(node, real, letter, size):
                out.append((tok, w * probs[:, slot], (key, nxt, own + ((index, nxt),), prev)))
        return out

    def policy(self, game, strategy, n):
        """The river bench's lifted policy (rows normalised, 0 where the range lacks the combo), vectorised."""
        probs = spot_policies(game, strategy, n, self.board)
        total = probs.sum(axis=1, keepdims=True)
        return np.divide(probs, total, out=np.zeros_like(probs), where=total > 0)

    def observe(self, branch, real, letter, size):
        key, node, own, prev = branch
        return [(w, (key, nxt, own, prev)) for w, nxt in self.bp.observe(node, real, letter, size)]


class Context:
    """Per state: the sides of each board (the turn's, and one per river card dealt), showdowns."""

    def __init__(self, game, strategy, sample, seat, cards, weight, iterations, river_iterations, spots, search):
        self.game, self.strategy, self.sample, self.seat = game, strategy, sample, seat
        self.cards, self.weight, self.search = cards, weight, search
        self.iterations, self.river_iterations, self.spots = iterations, river_iterations, spots
        self.sd = {None: Pairs(sample["board"])}
        self.sides = {None: self._sides(sample["board"], None)}
        self.searched = 0

    def _sides(self, board, card):
        s = dict(self.sample, board=board)
        bps = [BpSide(BlueprintPlayer(self.game, self.strategy, f"bp{p}"), p, board) for p in (0, 1)]
        if not self.search:
            return bps
        its = self.iterations if card is None else self.river_iterations
        agent = SpotSearchPlayer(self.game, self.strategy, "search", iterations=its, budget=0.0, first_round=TURN)
        sides = list(bps)
        sides[self.seat] = TurnSearchSide(agent, self.seat, s, bps[self.seat], self.spots, card)
        return sides

    def at_card(self, card):
        if card not in self.sides:
            board = tuple(self.sample["board"]) + ((card,),)
            self.sd[card] = Showdown(board)
            self.sides[card] = self._sides(board, card)
        return self.sides[card], self.sd[card]


def walk(real, ctx: Context, card, branches):
    """float64 [1326]: the river bench's walk (the seat's own reach times its winnings against the
    other's reach, summed over end states) from a turn state; where the turn's betting closes, the
    sum over the river cards dealt (each weighted)."""
    seat = ctx.seat
    sides, sd = ctx.sides[card] if card is not None else ctx.sides[None], ctx.sd[card]
    if real.finished:
        mine = sum(branches[seat].values())
        theirs = sum(branches[1 - seat].values())
        if real.folded >= 0:
            return mine * real.payoffs(None)[seat] * (sd.D @ theirs)
        return mine * real.payoffs(1 - seat)[seat] * (sd.W @ theirs)
    actor = real.current_player()
    groups: dict[str, dict] = {}
    for branch, w in branches[actor].items():
        for token, probs, nxt in sides[actor].decide(branch, real):
            d = groups.setdefault(token, {})
            d[nxt] = d.get(nxt, 0.0) + w * probs
    total = np.zeros(H)
    for token, d in groups.items():
        after, other = river.play(sides, branches, actor, real, token)
        kids = {actor: d, 1 - actor: other}
        if card is None and after.round == RIVER and after.folded < 0:  # the turn closed: deal the river
            for c in ctx.cards:
                live = (COMBO_CARDS != c).all(axis=1).astype(np.float64)
                dealt = {}
                for p in (0, 1):
                    dealt[p] = {}
                    for branch, w in kids[p].items():
                        if ctx.search and p == seat:
                            branch = (None, branch[1], branch[2], branch[0])  # nested: the river re-solved
                        dealt[p][branch] = dealt[p].get(branch, 0.0) + w * live
                ctx.at_card(c)
                total += ctx.weight * walk(after, ctx, c, [dealt[0], dealt[1]])
        else:
            total += walk(after, ctx, card, [kids[0], kids[1]])
    return total


def replay(game, strategy, sample):
    """(real state at the turn's start, the blueprint tree node there, each player's Bayes range per
    combo on the turn's board): the river bench's replay stopped at the turn."""
    real, node, reach, _ = river.replay(game, strategy, sample, BpSide, TURN, check=False)
    return real, node, reach


def evaluate(game, strategy, sample, cards, weight, iterations, river_iterations):
    """Per seat: the searching agent's and the blueprint's expected winnings against the blueprint
    (chips over the hand, given the turn state)."""
    real, node, reach = replay(game, strategy, sample)
    sd = Pairs(sample["board"])
    Z = float(reach[0] @ sd.D @ reach[1])
    out = {"hand": sample["hand"], "betting": sample["betting"], "pot": sum(real.spent), "cards": list(cards),
           "seats": []}
    bp_ctx = Context(game, strategy, sample, 0, cards, weight, iterations, river_iterations, {}, False)
    bp = float(np.sum(walk(real, bp_ctx, None, [{node: reach[0]}, {node: reach[1]}]))) / Z
    for seat in (0, 1):
        t0 = time.time()
        spots = {}
        ctx = Context(game, strategy, sample, seat, cards, weight, iterations, river_iterations, spots, True)
        kids = [None, None]
        kids[seat] = {(None, node, (), None): reach[seat]}
        kids[1 - seat] = {node: reach[1 - seat]}
        v = float(np.sum(walk(real, ctx, None, kids))) / Z
        sides = [s for ss in ctx.sides.values() for s in ss if isinstance(s, TurnSearchSide)]
        out["seats"].append({"seat": seat, "oop": seat == int(sides[0].a.gd.first_player[TURN]),
                             "search": v, "blueprint": bp if seat == 0 else -bp,
                             "spots": sum(s.searched for s in sides), "fallback": sum(s.fallback for s in sides),
                             "seconds": time.time() - t0})
    return out


def summary(rows) -> dict:
    d = np.array([np.mean([s["search"] - s["blueprint"] for s in r["seats"]]) for r in rows])
    half = 1.96 * d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
    return {"chips_per_state": float(d.mean()), "half_width": float(half), "mbb_per_state": float(d.mean() * 10),
            "mbb_half_width": float(half * 10), "states_worse": int((d < -1e-9).sum()), "states": int(d.size)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", type=Path, required=True, help="a blueprint run (configs/blueprint_hunl.toml solved)")
    ap.add_argument("--hands", type=int, default=100, help="blueprint-vs-blueprint hands to sample states from")
    ap.add_argument("--states", type=int, default=30, help="turn states evaluated (the first of the sample)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--cards", type=int, default=4, help="river cards dealt per state (0: all 44 of a pair's)")
    ap.add_argument("--iterations", type=int, default=30, help="DCFR iterations per turn re-solve")
    ap.add_argument("--river-iterations", type=int, default=200, help="DCFR iterations per nested river re-solve")
    ap.add_argument("--sizes", default=None, help="the turn spot's bets|raises (spot_search's TURN_SIZES and "
                    "TURN_RAISES; default: the module's)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/hunl_turn_search_offline.json")
    args = ap.parse_args()
    if args.sizes:
        from solverkit.search import spot_search

        spot_search.TURN_SIZES, spot_search.TURN_RAISES = args.sizes.split("|")
    game, strategy = load_run(args.run)
    began = time.time()
    samples = sample_states(game, strategy, args.hands, args.seed)
    print(f"{len(samples)} turn states in {args.hands} hands ({time.time() - began:.0f} s)", flush=True)
    rows = []
    for k, sample in enumerate(samples[:args.states]):
        t0 = time.time()
        board = [c for b in sample["board"] for c in b]
        rest = [c for c in range(52) if c not in board]  # 48 cards; a pair's river is one of the 44 it leaves
        if args.cards:
            cards = [int(c) for c in np.random.default_rng([args.seed, sample["hand"]]).choice(rest, args.cards,
                                                                                            replace=False)]
            weight = len(rest) / (44.0 * len(cards))
        else:
            cards, weight = rest, 1.0 / 44.0
        r = evaluate(game, strategy, sample, cards, weight, args.iterations, args.river_iterations)
        rows.append(r)
        print(k, r["betting"], r["pot"], [(s["seat"], round(s["search"] - s["blueprint"], 1), s["spots"],
                                           s["fallback"], round(s["seconds"], 1)) for s in r["seats"]],
              f"{time.time() - t0:.1f} s", flush=True)
        res = {"run": str(args.run), "seed": args.seed, "hands_sampled": args.hands, "turn_states": len(samples),
               "iterations": args.iterations, "sizes": args.sizes, "river_iterations": args.river_iterations, "cards": args.cards,
               "states": rows, "summary": summary(rows), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        args.out.write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res["summary"], indent=1))


if __name__ == "__main__":
    main()
