"""Heads-up no-limit river search against the blueprint, evaluated exactly offline (issue 29): no
match, no card luck. River public states are sampled from blueprint-vs-blueprint hands; in each,
every pair of hands the two Bayes ranges hold is enumerated and the river is walked history by
history in the real game (NoLimitState: real chips, real legal sizes), each player lifted from what
it plays:

- the blueprint: its exported policy per combo (bucket) at the tree node the real betting maps to,
  an opponent size off its tree translated as BlueprintPlayer does (each translation a weighted
  branch the other player does not see), its own sizes clamped as it clamps them;
- the searching agent (SpotSearchPlayer): the re-solved spot it builds at its first river decision
  (one per real betting before that decision), its policy per combo read through the agent's own
  ``spot_node`` / ``spot_tokens`` and ``spot_policy`` (``--lookup old``: the lookup before commit
  dd7a91a, a hand's place among all kept combos), its own bets mapped into its blueprint tree so
  that where it falls back to the blueprint it plays as it would;
- a best response (the upper bound): per combo the best of the searching agent's actions at each
  of its river decisions against the blueprint's lifted play.

Per state and seat: the agent's expected winnings (chips over the whole hand, given the public
state) for search vs blueprint, old lookup vs blueprint, blueprint vs blueprint and best response
vs blueprint. Showdowns use tests/spot_oracle.py's seven-card ranking (shares no code with the
engine). The spot is re-solved with ``--iterations`` DCFR iterations and no time budget.

    python bench/hunl_search_offline.py --run runs/blueprint_hunl --states 60
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solverkit.blueprint.betting import DECISION  # noqa: E402
from solverkit.blueprint.player import BlueprintPlayer, hand_buckets, mapped_children, policy_rows  # noqa: E402
from solverkit.poker.acpc_protocol import MatchState, NoLimitState, parse_action  # noqa: E402
from solverkit.poker.ranges import COMBO_CARDS  # noqa: E402
from solverkit.search.spot_search import SpotSearchPlayer, spot_policy, spot_tokens  # noqa: E402
from tests.spot_oracle import strength  # noqa: E402

H = 1326
RIVER = 3


def load_run(run: Path):
    """(blueprint game, exported strategy) of a blueprint run."""
    from solverkit.core.config import load_config
    from solverkit.core.strategy_file import load_strategy

    game = load_config(run / "config.toml").game
    strategy, _, _ = load_strategy(run / "strategy.npz", game, str(run / "config.toml"))
    return game, strategy


def deal(seed: int, index: int):
    """(hole per position, board per round 1..3) of deal `index`, as the dealer deals."""
    cards = np.random.default_rng([seed, index]).permutation(52)[:9]
    hole = (tuple(sorted(int(c) for c in cards[:2])), tuple(sorted(int(c) for c in cards[2:4])))
    return hole, (tuple(int(c) for c in cards[4:7]), (int(cards[7]),), (int(cards[8]),))


def view(position: int, hand: int, real, hole, board) -> MatchState:
    return MatchState(position, hand, real.betting(), tuple(h if p == position else () for p, h in enumerate(hole)),
                      board[:real.round])


def sample_states(game, strategy, hands: int, seed: int, street: int = 3):
    """Blueprint-vs-blueprint hands; each that reaches `street` (3: the river, 2: the turn) with both
    players able to bet: its (hand, betting, hole, board so far, and before the river the river card)."""
    players = [BlueprintPlayer(game, strategy, f"bp{p}") for p in (0, 1)]
    rng = np.random.default_rng(seed + 1000)
    out = []
    for i in range(hands):
        hole, board = deal(seed, i)
        real = NoLimitState(players[0].gd)
        while not real.finished:
            if real.round == street and not real.actions[street]:
                if real.raise_range() is not None:
                    state = {"hand": i, "betting": real.betting(), "hole": hole, "board": board[:street]}
                    if street < RIVER:
                        state["river_card"] = board[RIVER - 1][0]
                    out.append(state)
                break
            p = real.current_player()
            letter, size = parse_action(players[p].act(view(p, i, real, hole, board), rng), True)
            letter, size, _ = real.fix(letter, size)
            real.apply(letter, size)
    return out


class BlueprintSide:
    """The blueprint's play lifted to every combo; a branch is its tree node (-1: off the tree)."""

    def __init__(self, player: BlueprintPlayer, seat: int, board):
        self.p, self.seat = player, seat
        self.buckets = {r: hand_buckets(player.bp, r, [c for b in board[:r] for c in b], COMBO_CARDS)
                        for r in (1, 2, 3)}
        self.buckets[0] = hand_buckets(player.bp, 0, [], COMBO_CARDS)

    def decide(self, node: int, real):
        """[(token, probability per combo, next branch)] where the blueprint acts at `node`."""
        t, me = self.p.tree, self.seat
        if node < 0 or int(t.kind[node]) != DECISION or int(t.player[node]) != me or int(t.round[node]) != real.round:
            return [("c", np.ones(H), -1)]
        probs = policy_rows(self.p, node, self.buckets[int(t.round[node])])
        kids = self.p._children(node)
        out = []
        for slot, (label, child) in enumerate(kids):
            token = "c"
            if label == "f" and real.can_fold():
                token = "f"
            elif label not in "fc":
                span = real.raise_range()
                if span is not None:
                    lo, hi = span
                    amount = hi if label == "a" else int(t.spent[child][me])
                    token = f"r{min(max(amount, lo), hi)}"
            if token == "c" and label != "c":
                child = next(c for lab, c in kids if lab == "c")
            out.append((token, probs[:, slot], child))
        return out

    def observe(self, node: int, real, letter: str, size: int):
        """[(probability, next branch)] when the other player plays (letter, size) at `real`."""
        t = self.p.tree
        if node < 0 or int(t.kind[node]) != DECISION or int(t.player[node]) != real.current_player() or \
                int(t.round[node]) != real.round:
            return [(1.0, -1)]
        pairs, _ = mapped_children(t, node, real, letter, size, self.p.gd.stack)
        return [(prob, child) for child, prob in pairs] or [(1.0, -1)]


class SearchSide:
    """The searching agent lifted to every combo; a branch is (spot key, its blueprint node)."""

    def __init__(self, agent: SpotSearchPlayer, seat: int, sample, bp_side: BlueprintSide, lookup: str, spots,
                 key=None):
        self.a, self.seat, self.s, self.bp, self.lookup, self.spots = agent, seat, sample, bp_side, lookup, spots
        self.key = key  # a fixed spot key (the other seat's spot, for the check against the spot's own values)
        self.board = tuple(sorted(c for b in sample["board"] for c in b))
        self.fallback = 0.0  # decisions where the agent plays the blueprint

    def _at(self, real, key):
        """(game, strategy, node) the agent plays at `real` (its spot for `key` made once), or None."""
        a, s = self.a, self.s
        state = view(self.seat, s["hand"], real, s["hole"], s["board"])
        a._hand = None
        _, now = a._replay(state)
        start = a._round_start(state)
        if start is None:
            return None
        a._solved = None  # (a spot of another key must not be reused)
        if key in self.spots:
            a._solved = ((state.hand, RIVER),) + self.spots[key]
        at = a.spot_node(state, now, start)
        if key in self.spots and a._solved[1] is not self.spots[key][0]:  # re-solved after an off-tree raise
            key = (key if isinstance(key, tuple) else (key,)) + (real.betting(),)
        self.spots[key] = a._solved[1:]
        return at, key

    def decide(self, branch, real):
        key, node = branch
        if key is None:  # the agent's first river decision: its spot is the one of this betting
            key = self.key or real.betting()
        at, key = self._at(real, key)
        if at is None:
            self.fallback += 1
            return [(tok, pr, (key, nxt)) for tok, pr, nxt in self.bp.decide(node, real)]
        game, strategy, n = at
        probs = self.policy(game, strategy, n)
        out = []
        for slot, tok in enumerate(spot_tokens(game, n, real)):
            letter, size = parse_action(tok, True)
            for w, nxt in self.own_map(node, real, letter, size):
                out.append((tok, w * probs[:, slot], (key, nxt)))
        return out

    def own_map(self, node, real, letter, size):
        """The agent's blueprint node after its own searched action (BlueprintPlayer._map: a
        translation drawn like an opponent's)."""
        return self.bp.observe(node, real, letter, size) if node >= 0 else [(1.0, -1)]

    def observe(self, branch, real, letter, size):
        key, node = branch
        return [(w, (key, nxt)) for w, nxt in self.bp.observe(node, real, letter, size)]

    def policy(self, game, strategy, n):
        """float64 [1326, A]: the agent's policy per combo at spot node n (0 for combos it does not hold)."""
        A = int(game.tree.bet.num_actions[n])
        out = np.zeros((H, A))
        for c in np.flatnonzero(~np.isin(COMBO_CARDS, self.board).any(axis=1)):
            hole = tuple(int(x) for x in COMBO_CARDS[c])
            row = spot_policy(game, strategy, n, hole, self.board) if self.lookup == "new" else \
                old_policy(game, strategy, n, hole, self.board)
            if row is not None and row.sum() > 0:
                out[c] = row / row.sum()
        return out


def old_policy(game, strategy, n, hole, board):
    """The lookup before commit dd7a91a: the hand's index among all kept combos as its row."""
    p, A = int(game.tree.bet.player[n]), int(game.tree.bet.num_actions[n])
    try:
        g, u = game.locate((tuple(sorted(board)),), tuple(sorted(hole)))
    except KeyError:
        return None
    off = game.value_offset(n, g, u)
    row = np.asarray(strategy[p][off:off + A], dtype=np.float64)
    return row if row.shape[0] == A else None


def pair_table(board) -> np.ndarray:
    """[1326, 1326] 1.0 where two combos share no card and neither meets `board` (lists of cards per street)."""
    cards = [c for b in board for c in b]
    live = ~np.isin(COMBO_CARDS, cards).any(axis=1)
    a, b = COMBO_CARDS[:, 0], COMBO_CARDS[:, 1]
    clash = (a[:, None] == a[None, :]) | (a[:, None] == b[None, :]) | (b[:, None] == a[None, :]) | \
            (b[:, None] == b[None, :])
    return (~clash & live[:, None] & live[None, :]).astype(np.float64)


class Showdown:
    """Dense pair tables of one river board: D (no shared card) and W (+1 / -1 / 0 for the row's hand)."""

    def __init__(self, board):
        self.D = pair_table(board)
        cards = [c for b in board for c in b]
        live = ~np.isin(COMBO_CARDS, cards).any(axis=1)
        a, b = COMBO_CARDS[:, 0], COMBO_CARDS[:, 1]
        rank = {}
        order = np.zeros(H)
        keys = [strength(frozenset(cards + [int(a[c]), int(b[c])])) if live[c] else None for c in range(H)]
        for k in sorted({k for k in keys if k is not None}):
            rank[k] = len(rank)
        for c in range(H):
            order[c] = rank[keys[c]] if keys[c] is not None else -1
        self.W = np.sign(order[:, None] - order[None, :]) * self.D


def walk(real, sides, branches, seat: int, sd: Showdown, best: bool):
    """float64 [1326]: sum over the river's end states of the seat's own reach (its branches' weights)
    times its winnings against the other's reach; `best`: at the seat's decisions the best action
    per combo (its own weights then stay 1, so the result is per-combo best-response values)."""
    if real.finished:
        mine = sum(branches[seat].values())
        theirs = sum(branches[1 - seat].values())
        if real.folded >= 0:
            return mine * real.payoffs(None)[seat] * (sd.D @ theirs)
        won = real.payoffs(1 - seat)[seat]  # the seat wins min(spent)
        return mine * won * (sd.W @ theirs)
    actor = real.current_player()
    groups: dict[str, dict] = {}
    for branch, w in branches[actor].items():
        for token, probs, nxt in sides[actor].decide(branch, real):
            d = groups.setdefault(token, {})
            d[nxt] = d.get(nxt, 0.0) + (w if best and actor == seat else w * probs)
    values = []
    for token, d in groups.items():
        after, other = play(sides, branches, actor, real, token)
        kids = {actor: d, 1 - actor: other}
        if best and actor == seat:  # one branch of the best responder's state per action
            kids[actor] = {max(d, key=lambda k: float(np.sum(d[k]))): np.ones(H)}
        values.append(walk(after, sides, kids, seat, sd, best))
    if best and actor == seat:
        return np.max(np.stack(values), axis=0)
    return np.sum(np.stack(values), axis=0)


def play(sides, branches, actor, real, token):
    """(the real state after `actor` plays `token`, the other player's branches as its side observes
    the action: each of its branches' weights carried to the node it maps the action to)."""
    letter, size = parse_action(token, True)
    letter, size, _ = real.fix(letter, size)
    other = {}
    for branch, w in branches[1 - actor].items():
        for p, nxt in sides[1 - actor].observe(branch, real, letter, size):
            other[nxt] = other.get(nxt, 0.0) + p * w
    after = copy.deepcopy(real)
    after.apply(letter, size)
    return after, other


def replay(game, strategy, sample, side=None, street: int = 3, check: bool = True):
    """(real state at the start of `street` (the river), the blueprint tree node there, each player's
    Bayes range per combo: the product of its blueprint probabilities of the hand's actions, 0 on the
    board's cards), and the blueprint sides (`side`: BlueprintSide or a subclass) of both seats;
    `check`: both seats map every action to one node."""
    side = side or BlueprintSide
    sides = [side(BlueprintPlayer(game, strategy, f"bp{p}"), p, sample["board"]) for p in (0, 1)]
    cards = [c for b in sample["board"] for c in b]
    reach = np.repeat((~np.isin(COMBO_CARDS, cards).any(axis=1)).astype(np.float64)[None], 2, axis=0)
    real, node = NoLimitState(sides[0].p.gd), 0
    from solverkit.poker.acpc_protocol import split_betting

    for letter, size in (a for a in split_betting(sample["betting"], True) if a[0] != "/"):
        token = letter if letter != "r" else f"r{size}"
        actor = real.current_player()
        choices = [(pr, nxt) for tok, pr, nxt in sides[actor].decide(node, real) if tok == token]
        assert len(choices) == 1, (sample["betting"], token)
        if check:
            seen = sides[1 - actor].observe(node, real, letter, size)
            assert seen == [(1.0, choices[0][1])], (seen, choices[0][1])  # both map the action to one node
        reach[actor] *= choices[0][0]
        node = choices[0][1]
        real.apply(letter, size)
    assert real.round == street and real.betting() == sample["betting"]
    return real, node, reach, sides


def check_lifts(game, strategy, sample, real, node, reach, sides, agent, seat, spots):
    """The lifted policies equal what the players act with (a few combos): the blueprint's
    probabilities_at, the agent's search_policy; the agent's Bayes ranges equal the replay's."""
    actor = real.current_player()
    live = np.flatnonzero(reach[actor] > 0)
    picks = live[np.linspace(0, live.size - 1, 4).astype(int)]
    probs = policy_rows(sides[actor].p, node, sides[actor].buckets[RIVER])
    for c in picks:
        hole = [() , ()]
        hole[actor] = tuple(int(x) for x in COMBO_CARDS[c])
        st = MatchState(actor, sample["hand"], real.betting(), tuple(hole), sample["board"])
        assert np.array_equal(sides[actor].p.probabilities_at(node, st), probs[c])
    st = view(seat, sample["hand"], real, sample["hole"], sample["board"])
    agent._hand = None
    agent._replay(st)
    start = agent._round_start(st)
    mine = agent._ranges(st, start, [c for b in sample["board"] for c in b])
    assert np.allclose(mine, reach, rtol=1e-12, atol=0), "Bayes ranges differ"
    checked = 0
    if actor == seat:
        side = SearchSide(agent, seat, sample, sides[seat], "new", spots)
        (game_s, strat_s, n), _ = side._at(real, real.betting())
        pol = side.policy(game_s, strat_s, n)
        for c in np.flatnonzero(reach[seat] > 0)[::97][:4]:
            hole = [(), ()]
            hole[seat] = tuple(int(x) for x in COMBO_CARDS[c])
            st = MatchState(seat, sample["hand"], real.betting(), tuple(hole), sample["board"])
            agent._hand = None
            agent._replay(st)
            agent._solved = ((st.hand, RIVER),) + spots[real.betting()]
            tokens, pr = agent.search_policy(st, real, agent._round_start(st))
            assert np.allclose(pr / pr.sum(), pol[c], rtol=0, atol=1e-12)
            checked += 1
        w = game_s.ranges()
        oop = int(agent.gd.first_player[RIVER])
        assert np.allclose(w[0][reach[oop] > 0], reach[oop][reach[oop] > 0], rtol=1e-5)
        assert game_s.gd.pot == sum(real.spent) and game_s.gd.stack == agent.gd.stack[0] - real.spent[0]
    return checked


def evaluate(game, strategy, sample, iterations: int):
    """Per seat of the searching agent: expected winnings (chips, the whole hand, given the public
    state) of search, search with the old lookup, the blueprint and a best response, each against
    the blueprint; the blueprint ranges' mass and the agent's fallback decisions."""
    real, node, reach, sides = replay(game, strategy, sample)
    sd = Showdown(sample["board"])
    Z = float(reach[0] @ sd.D @ reach[1])
    bp = float(np.sum(walk(real, sides, [{node: reach[0]}, {node: reach[1]}], 0, sd, False))) / Z
    out = {"hand": sample["hand"], "betting": sample["betting"], "pot": sum(real.spent), "seats": []}
    for seat in (0, 1):
        agent = SpotSearchPlayer(game, strategy, f"search{seat}", iterations=iterations, budget=0.0, first_round=RIVER)
        spots = {}
        checked = check_lifts(game, strategy, sample, real, node, reach, sides, agent, seat, spots)
        row = {"seat": seat, "oop": seat == int(agent.gd.first_player[RIVER]), "blueprint": bp if seat == 0 else -bp}
        for name, lookup in (("search", "new"), ("old_lookup", "old")):
            ss = SearchSide(agent, seat, sample, sides[seat], lookup, spots)
            kids = [None, None]
            kids[seat] = {(None, node): reach[seat]}
            kids[1 - seat] = {node: reach[1 - seat]}
            side_list = [ss if p == seat else sides[p] for p in (0, 1)]
            row[name] = float(np.sum(walk(real, side_list, kids, seat, sd, False))) / Z
            row[f"{name}_fallback"] = ss.fallback
        ss = SearchSide(agent, seat, sample, sides[seat], "new", spots)
        kids = [None, None]
        kids[seat] = {(None, node): np.ones(H)}
        kids[1 - seat] = {node: reach[1 - seat]}
        u = walk(real, [ss if p == seat else sides[p] for p in (0, 1)], kids, seat, sd, True)
        row["best_response"] = float(reach[seat] @ u) / Z
        row["spots"], row["checked"] = len(spots), checked
        out["seats"].append(row)
        if seat == real.current_player():  # the walk against the spot's own values: both play its re-solve
            key = real.betting()
            other = SpotSearchPlayer(game, strategy, "other", iterations=iterations, budget=0.0, first_round=RIVER)
            both = [SearchSide(agent if p == seat else other, p, sample, sides[p], "new", spots, key) for p in (0, 1)]
            kids = [{(None, node): reach[0]}, {(None, node): reach[1]}]
            g, strat = spots[key][:2]
            want = g.expected_values(strat)[0] * g.gd.pot / 100.0  # (spot player 0 = this seat, out of position)
            got = float(np.sum(walk(real, both, kids, seat, sd, False))) / Z
            out["spot_check"] = {"walk": got, "spot": want}
            assert abs(got - want) <= 1e-9 * max(1.0, abs(want)), (got, want)
    return out


def summary(rows, hands: int) -> dict:
    """Means over states and seats of each profile's gain over the blueprint (chips and mbb a river
    state), with 95% intervals over states, and per hand of the sampled hands (mbb/g)."""
    out = {}
    for name in ("search", "old_lookup", "best_response"):
        d = np.array([np.mean([s[name] - s["blueprint"] for s in r["seats"]]) for r in rows])
        half = 1.96 * d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
        out[name] = {"chips_per_state": float(d.mean()), "half_width": float(half),
                     "mbb_per_state": float(d.mean() * 10), "mbb_per_hand": float(d.sum() * 10 / hands),
                     "states_worse": int((d < -1e-9).sum())}
    return out


def report(res: dict, path: Path) -> None:
    """bench/results/hunl_search_offline.md from the JSON: gains over the blueprint per river state
    (mean over the two seats, 95% interval over states), per seat, and per hand sampled."""
    rows = res["states"]
    hands = res["hands_sampled"] * len(rows) / res["river_states"]  # (the states are the first of the sample)

    def stats(d):
        d = np.asarray(d, dtype=np.float64)
        half = 1.96 * d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
        return f"{d.mean() * 10:+.0f} +/- {half * 10:.0f}"

    lines = ["# Heads-up no-limit river search against the blueprint, exact offline (bench/hunl_search_offline.py)", "",
             f"{res['date']}, run {res['run']} (configs/blueprint_hunl.toml), {len(rows)} river public states from "
             f"{hands:.0f} blueprint-vs-blueprint hands (seed {res['seed']}; {res['river_states']} of "
             f"{res['hands_sampled']} hands reached a river with betting), re-solves of {res['iterations']} DCFR "
             "iterations. Each state: every pair of hands of the two Bayes ranges, the river walked in the real game. "
             "Gains of the searching agent's river over the blueprint's own river (both against the blueprint), "
             "mbb (1/1000 big blind) per river state with 95% intervals over states; per hand: the sum over the "
             "states divided by the hands they came from.", "",
             "| agent's river | both seats | out of position | in position | states worse (of both-seat means) | "
             "mbb/g over the hands |", "| --- | --- | --- | --- | --- | --- |"]
    for name, label in (("search", "re-solved (fixed lookup)"), ("old_lookup", "re-solved, lookup before dd7a91a"),
                        ("best_response", "best response (upper bound)")):
        both = [np.mean([s[name] - s["blueprint"] for s in r["seats"]]) for r in rows]
        seat = {o: [s[name] - s["blueprint"] for r in rows for s in r["seats"] if s["oop"] == o] for o in (True, False)}
        worse = sum(b < -1e-9 for b in both)
        lines.append(f"| {label} | {stats(both)} | {stats(seat[True])} | {stats(seat[False])} | {worse} of "
                     f"{len(rows)} | {np.sum(both) * 10 / hands:+.0f} |")
    paired = [np.mean([s["search"] - s["old_lookup"] for s in r["seats"]]) for r in rows]
    check = max(abs(r["spot_check"]["walk"] - r["spot_check"]["spot"]) for r in rows if "spot_check" in r)
    lines += ["", f"Fixed minus old lookup, paired by state: {stats(paired)} mbb a river state. Checks in every "
              "state: the blueprint's lifted policy equals BlueprintPlayer.probabilities_at (4 combos), the agent's "
              "Bayes ranges equal the replay's products (1e-12), the lifted re-solve equals the agent's "
              "search_policy (4 combos, out-of-position seat), and the walk with both players on the re-solve "
              f"equals the spot's own expected value (largest difference {check:.1e} chips)."]
    path.write_text("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", type=Path, required=True, help="a blueprint run (configs/blueprint_hunl.toml solved)")
    ap.add_argument("--hands", type=int, default=200, help="blueprint-vs-blueprint hands to sample states from")
    ap.add_argument("--states", type=int, default=60, help="river states evaluated (the first of the sample)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=200, help="DCFR iterations per re-solve")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/hunl_search_offline.json")
    ap.add_argument("--report", action="store_true", help="only write the .md from the JSON of --out")
    args = ap.parse_args()
    if args.report:  # (the summary again, from the states)
        res = json.loads(args.out.read_text())
        res["summary"] = summary(res["states"], res["hands_sampled"] * len(res["states"]) / res["river_states"])
        args.out.write_text(json.dumps(res, indent=1) + "\n")
        report(res, args.out.with_suffix(".md"))
        return
    game, strategy = load_run(args.run)
    began = time.time()
    samples = sample_states(game, strategy, args.hands, args.seed)
    print(f"{len(samples)} river states in {args.hands} hands ({time.time() - began:.0f} s)", flush=True)
    rows = []
    for k, sample in enumerate(samples[:args.states]):
        t0 = time.time()
        r = evaluate(game, strategy, sample, args.iterations)
        rows.append(r)
        print(k, r["betting"], r["pot"], [(s["seat"], round(s["search"] - s["blueprint"], 1),
                                           round(s["old_lookup"] - s["blueprint"], 1),
                                           round(s["best_response"] - s["blueprint"], 1)) for s in r["seats"]],
              f"{time.time() - t0:.1f} s", flush=True)
        hands = args.hands * len(rows) / len(samples)  # the hands the evaluated states came from
        res = {"run": str(args.run), "seed": args.seed, "hands_sampled": args.hands, "river_states": len(samples),
               "iterations": args.iterations, "states": rows, "summary": summary(rows, hands),
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        args.out.write_text(json.dumps(res, indent=1) + "\n")
    report(res, args.out.with_suffix(".md"))
    print(json.dumps(res["summary"], indent=1))


if __name__ == "__main__":
    main()
