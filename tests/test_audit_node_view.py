"""Audit of what a player reads off a solved spot, node by node, against tests/spot_oracle.py:
`solverkit strategy RUN --node PATH` (node_view: each combo's weight, strategy and EV) and
`solverkit export --format json` (each information set's probabilities and action labels), for
every decision node of a small river and turn spot (every combo, every action, two river cards),
with a random strategy read through the oracle's own keys, and a solved one through the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.export import export_json
from solverkit.poker.betting import DECISION, ROUND_END
from solverkit.poker.node_view import node_view
from solverkit.poker.spot import HoldemSpot

from .spot_oracle import COMBOS, SpotOracle, card_text, combo_text

RIVER = dict(board="KsQd7h2c3s", pot=21, stack=30, oop_range="AA,KQ,77:0.5", ip_range="AK,QQ,76s,KQo:0.5",
             sizes={"river": {"bet": "50%, a", "raise": "a"}}, rake=0.05, rake_cap=1.5)
TURN = dict(board="Ks9d7h2c", pot=20, stack=40, oop_range="AA,KQs", ip_range="QQ,T8s:0.5",
            sizes={"turn": {"bet": "50%, a"}, "river": {"bet": "75%", "raise": "a"}})
RIVER_CARDS = ["Ah", "Qs"]  # Ah meets AA combos (removed there), Qs meets QQ


def lines(game, cards):
    """(node, path, dealt cards) of every decision node, each street end dealt each of `cards`."""
    bet = game.tree.bet
    out = []

    def walk(node, path, dealt):
        if bet.kind[node] == ROUND_END:
            for c in cards:
                walk(int(bet.children[node, 0]), path + [c], dealt + [c])
        elif bet.kind[node] == DECISION:
            out.append((node, ",".join(path), dealt))
            for a, lab in enumerate(game.action_labels(node)):
                walk(int(bet.children[node, a]), path + [lab], dealt)

    walk(0, [], [])
    return out


def _card(text):
    return "23456789TJQKA".index(text[0]) * 4 + "cdhs".index(text[1])


def oracle_view(oracle, policy, node, dealt):
    """{combo: (weight, probs, EV chips)} of the acting player at `node` after the `dealt` cards,
    as the oracle walks it: the line's own probabilities, the opponent's weights at the node,
    EV from the node on (its payoffs net of all it put in, plus what it has in at the node)."""
    t = oracle.tree
    board = oracle.board + tuple(_card(c) for c in dealt)
    q = int(t.player[node])
    line = []
    n = node
    while t.parent[n] >= 0:
        up = int(t.parent[n])
        if t.kind[up] == DECISION:
            line.append((up, oracle.actions(up).index(n)))
        n = up

    def reach(p, c):
        if set(COMBOS[c]) & set(board):
            return 0.0
        r = float(oracle.w[p, c])
        for up, a in line:
            if int(t.player[up]) == p:
                r *= float(policy(p, c, board[: len(oracle.board) + int(t.round[up])], t.history[up])[a])
        return r

    out = {}
    opp = {o: reach(1 - q, o) for o in oracle.members[1 - q]}
    for c in oracle.members[q]:
        w = reach(q, c)
        if set(COMBOS[c]) & set(board):
            continue
        probs = policy(q, c, board, t.history[node])
        dist = {o: m for o, m in opp.items() if m > 0 and not set(COMBOS[o]) & set(COMBOS[c])}
        ev = np.nan
        if w > 0 and dist:
            ev = oracle._cf(node, board, c, dist, q, policy, False) / sum(dist.values()) + int(t.spent[node, q])
        out[combo_text(c)] = (w, np.asarray(probs), ev)
    return out


def check_views(params, isomorphism, seed):
    oracle = SpotOracle(params)
    game = HoldemSpot(**params, isomorphism=isomorphism)
    policy = oracle.random_policy(seed)
    strategy = oracle.flat_strategy(game, policy)
    doc = export_json(game, strategy) if not isomorphism else None
    checked = 0
    for node, path, dealt in lines(game, RIVER_CARDS):
        view = node_view(game, strategy, path)
        want = oracle_view(oracle, policy, node, dealt)
        assert view.actions == game.action_labels(node) and view.player == int(oracle.tree.player[node])
        got = {c: (w, p, e) for c, w, p, e in zip(view.combos, view.reach, view.policy, view.ev)}
        for c, (w, probs, ev) in want.items():
            gw, gp, ge = got[c]
            assert abs(gw - w) <= 1e-12, (path, c, gw, w)
            assert np.allclose(gp, probs, atol=1e-12), (path, c, gp, probs)
            if w > 0 and np.isfinite(ev):
                assert abs(ge - ev) <= 1e-9 * max(1.0, abs(ev)), (path, c, ge, ev)
                checked += 1
            if doc is not None:
                board = oracle.board + tuple(_card(x) for x in dealt)
                key = f"{c}|{''.join(card_text(x) for x in board)}|{oracle.tree.history[node]}"
                q = view.player
                assert doc["actions"][q][key] == view.actions, (key, doc["actions"][q][key])
                assert np.allclose(doc["players"][q][key], probs, atol=1e-15), key
        for c, (gw, _, _) in got.items():  # combos the oracle left out: on the board
            if c not in want:
                assert gw == 0.0, (path, c, gw)
    return checked


@pytest.mark.parametrize("params, isomorphism", [(RIVER, False), (TURN, False), (TURN, True)],
                         ids=["river-odd-pot-rake", "turn", "turn-iso"])
def test_every_node_view_and_export_entry_is_the_oracles(params, isomorphism):
    """Weight, strategy and EV of every combo at every node (EV from the node on: a fold there is
    worth 0 whatever the combo put in before), and the export's probabilities and labels."""
    assert check_views(params, isomorphism, 12) > 50


def test_a_fold_after_a_bet_is_worth_zero_from_that_node():
    """oop bets 10 into 20, ip jams, oop folds: at the root oop's combos lose their bet (EV 10 - 20
    = -10 chips of the starting pot), at the node facing the jam the fold is worth 0."""
    params = dict(board="KsQd7h2c3s", pot=20, stack=30, oop_range="AA,KQ,77", ip_range="AK,QQ,76s",
                  sizes={"river": {"bet": "50%", "raise": "a"}})
    oracle = SpotOracle(params)
    game = HoldemSpot(**params, isomorphism=False)
    width = oracle._widths()
    plan = {"": 1, "r20": 2, "r20r40": 0}  # bet 10; jam; fold

    def policy(p, c, board, history):
        x = np.zeros(width[history]) if history in plan else np.full(width[history], 1.0 / width[history])
        if history in plan:
            x[plan[history]] = 1.0
        return x

    strategy = oracle.flat_strategy(game, policy)
    root, facing = node_view(game, strategy, ""), node_view(game, strategy, "bet 10,allin 30")
    assert np.allclose(root.ev[root.reach > 0], -10.0)
    assert np.allclose(facing.ev[facing.reach > 0], 0.0)


def test_the_cli_node_json_is_the_stored_strategys_view(tmp_path):
    """After a solve, `strategy RUN --node PATH --json` at every node of the river spot gives each
    combo's weight, strategy and EV as the oracle does from strategy.npz."""
    import tomli_w

    config = tmp_path / "spot.toml"
    config.write_text(tomli_w.dumps({"preset": "dcfr", "game": {"name": "holdem_spot", **RIVER}}))
    out = tmp_path / "run"
    r = CliRunner().invoke(cli, ["solve", str(config), "--iterations", "20", "--out", str(out)])
    assert r.exit_code == 0, r.output
    z = np.load(out / "strategy.npz")
    game = HoldemSpot(**{k: v for k, v in json.loads(str(z["meta"]))["game"].items() if k != "name"})
    oracle = SpotOracle(RIVER)
    policy = oracle.policy_from_flat(game, [z["policy0"], z["policy1"]])
    for node, path, dealt in lines(game, []):
        r = CliRunner().invoke(cli, ["strategy", str(out), "--node", path, "--json"])
        assert r.exit_code == 0, (path, r.output)
        data = json.loads(r.output)
        want = oracle_view(oracle, policy, node, dealt)
        assert data["actions"] == game.action_labels(node)
        shown = {c for c, (w, _, _) in want.items() if w > 0}
        assert set(data["combos"]) == shown, path
        for c in shown:
            w, probs, ev = want[c]
            got = data["combos"][c]
            assert abs(got["weight"] - w) <= 1e-12
            assert np.allclose([got["strategy"][a] for a in data["actions"]], probs, atol=1e-12)
            assert abs(got["ev"] - ev) <= 1e-9 * max(1.0, abs(ev)), (path, c, got["ev"], ev)
