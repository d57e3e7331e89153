"""Per-node, per-hand equity and EQR of a spot's node views (strategy --node, the report's grid,
the JSON of a node, the Python API) against tests/spot_oracle.py's enumeration (its own hand
ranking, runouts and betting walk): at nodes after bets on a river, a turn and a flop spot, each
combo's weight, EV from the node on, showdown equity against the opponent's range as it reaches
the node (its strategy along the line, card removal), EQR = EV / (equity x pot), and the
ranges' deal-weighted means."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from solverkit.poker.spot import HoldemSpot

from .spot_oracle import COMBOS, SpotOracle, combo_text

RIVER = dict(board="KsQd7h2c3s", pot=21, stack=30, oop_range="AA,KQ,77:0.5,J9s", ip_range="AK,QQ,76s,KQo:0.5,T9s",
             sizes={"river": {"bet": "50%, a", "raise": "a"}}, rake=0.05, rake_cap=1.5)
TURN = dict(board="Ks9d7h2c", pot=20, stack=40, oop_range="AA,KQs,T8s", ip_range="QQ,T8s:0.5,A9s",
            sizes={"turn": {"bet": "50%, a"}, "river": {"bet": "75%", "raise": "a"}})
FLOP = dict(board="Ks9s4h", pot=20, stack=30, oop_range="AsAh,AcAd,QsJs,T8s:0.5", ip_range="KcQc,KhQd,99:0.5,5s5h",
            sizes={"flop": {"bet": "50%"}, "turn": {"bet": "a"}})
_CARD = re.compile(r"^[2-9TJQKA][cdhs]$")


def _card(text):
    return "23456789TJQKA".index(text[0]) * 4 + "cdhs".index(text[1])


def check_node(game, oracle, policy, strategy, path):
    """Every number of the node view at `path` against the oracle's; the count of combos with
    every number defined."""
    view = game.node_view(strategy, path)
    node = oracle.node_at(game.tree.bet.history[view.node])
    board = oracle.board + tuple(_card(x) for x in path.split(",") if _CARD.match(x.strip()))
    reach = oracle.node_reach(policy, node, board)
    eq = oracle.node_equity(reach, board)
    ev = oracle.node_values(policy, reach, node, board)
    t = oracle.tree
    pot = int(t.spent[node, 0]) + int(t.spent[node, 1]) + oracle.dead
    assert view.pot == pot and view.player == int(t.player[node])
    q = view.player
    got = {c: i for i, c in enumerate(view.combos)}
    full = 0
    for c, x in reach[q].items():
        i = got[combo_text(c)]
        assert abs(view.reach[i] - x) <= 1e-12, (path, c)
        if c in eq[q]:
            assert abs(view.equity[i] - eq[q][c]) <= 1e-12, (path, combo_text(c), view.equity[i], eq[q][c])
        else:
            assert np.isnan(view.equity[i]), (path, combo_text(c))
        if c in ev[q]:
            assert abs(view.ev[i] - ev[q][c]) <= 1e-9 * max(1.0, abs(ev[q][c])), (path, c)
            if eq[q][c] > 0:
                want = ev[q][c] / (eq[q][c] * pot)
                assert abs(view.eqr[i] - want) <= 1e-9 * max(1.0, abs(want)), (path, c, view.eqr[i], want)
                full += 1
            else:
                assert np.isnan(view.eqr[i])
        else:
            assert np.isnan(view.eqr[i]), (path, c)  # does not reach the node: "-"
    # the ranges: means over the combos weighted by the deals that reach the node
    for p, rng in ((q, view.range_values()), (1 - q, view.opponent)):
        w = {c: x * sum(oracle._facing(reach, p, c).values()) for c, x in reach[p].items()}
        tot = sum(w[c] for c in eq[p])
        if tot > 0:
            want_eq = sum(w[c] * eq[p][c] for c in eq[p]) / tot
            want_ev = sum(w[c] * ev[p][c] for c in ev[p]) / sum(w[c] for c in ev[p])
            assert abs(rng["equity"] - want_eq) <= 1e-12, (path, p, rng, want_eq)
            assert abs(rng["ev"] - want_ev) <= 1e-9 * max(1.0, abs(want_ev)), (path, p, rng, want_ev)
            if want_eq > 0:
                assert abs(rng["eqr"] - want_ev / (want_eq * pot)) <= 1e-9 * max(1.0, abs(rng["eqr"]))
    # the JSON of the node (strategy --node --json) and its text carry the same numbers
    doc = json.loads(json.dumps(view.to_json()))
    for c, row in doc["combos"].items():
        i = got[c]
        for key, arr in (("equity", view.equity), ("eqr", view.eqr), ("ev", view.ev)):
            assert (row[key] is None and np.isnan(arr[i])) or row[key] == float(arr[i]), (c, key)
    assert doc["equity"] == view.range_values()["equity"] and doc["opponent"]["equity"] == view.opponent["equity"]
    assert "equity" in view.text().splitlines()[3] and "EQR" in view.text()
    return view, full


def _setup(params, isomorphism, seed):
    oracle = SpotOracle(params)
    game = HoldemSpot(**params, isomorphism=isomorphism)
    policy = oracle.random_policy(seed)
    return game, oracle, policy, oracle.flat_strategy(game, policy)


@pytest.mark.parametrize("params, isomorphism, paths", [
    (RIVER, False, ["bet 11", "bet 11,allin 30", "check,bet 11", "check,allin 30", "check,bet 11,allin 30"]),
    (TURN, False, ["bet 10", "check,bet 10", "bet 10,call,Ah", "check,bet 10,call,Qs,bet 30",
                   "bet 10,call,8h,check"]),
    (TURN, True, ["bet 10,call,Ah,bet 30", "check,check,Qd,check"]),
    (FLOP, True, ["bet 10", "bet 10,call,Ac", "bet 10,call,Ad,allin 20", "check,bet 10,call,2c"]),
], ids=["river-odd-pot-rake", "turn", "turn-iso", "flop-iso"])
def test_node_equity_and_eqr_are_the_oracles(params, isomorphism, paths):
    game, oracle, policy, strategy = _setup(params, isomorphism, 5)
    total = 0
    moved = False
    for path in paths:
        view, full = check_node(game, oracle, policy, strategy, path)
        total += full
        # the opponent's reach counts: its strategy along the line moves some combo's equity
        # away from the equity against its whole range (what the root's hand_equity would give)
        board = oracle.board + tuple(_card(x) for x in path.split(",") if _CARD.match(x.strip()))
        flat = [{c: 0.0 if set(COMBOS[c]) & set(board) else float(oracle.w[p, c]) for c in oracle.members[p]}
                for p in (0, 1)]
        against_range = oracle.node_equity(flat, board)[view.player]
        moved |= any(abs(view.equity[view.combos.index(combo_text(c))] - e) > 1e-6 for c, e in against_range.items())
    assert total >= 8 and moved


def test_root_view_gives_hand_equity_and_result_json_numbers():
    game, oracle, policy, strategy = _setup(TURN, True, 2)
    view = game.node_view(strategy, "")
    H = len(view.combos)
    ok = view.reach > 0
    assert np.array_equal(view.equity[ok], game.hand_equity()[0, :H][ok])  # the same kernel walk, bit for bit
    (eq0, eq1), _ = oracle.equity()
    assert abs(view.range_values()["equity"] - eq0) <= 1e-12 and abs(view.opponent["equity"] - eq1) <= 1e-12


def test_eqr_is_undefined_without_equity_or_reach():
    """A river spot where oop draws dead (sets against its aces and two pair): equity exactly 0
    and EQR "-" / null; oop's aces bet at the root, so they do not reach "check,bet 10": no EV, no
    EQR there, and the node's JSON leaves them out."""
    params = dict(board="KsQd7h2c3s", pot=20, stack=30, oop_range="AA,32o", ip_range="KK,QQ",
                  sizes={"river": {"bet": "50%"}})
    oracle = SpotOracle(params)
    game = HoldemSpot(**params)
    width = oracle._widths()

    def policy(p, c, board, history):
        x = np.full(width[history], 1.0 / width[history])
        if history == "":
            x = np.array([0.0, 1.0]) if combo_text(c)[0] == "A" else np.array([1.0, 0.0])
        return x

    strategy = oracle.flat_strategy(game, policy)
    root, _ = check_node(game, oracle, policy, strategy, "")
    assert (root.equity[root.reach > 0] == 0).all() and np.isnan(root.eqr).all()
    assert all(row["eqr"] is None and row["equity"] == 0.0 for row in root.to_json()["combos"].values())
    line = next(x for x in root.text().splitlines() if x.strip().startswith("AsAh"))
    assert line.split()[-2:] == ["0.0%", "-"]
    view, _ = check_node(game, oracle, policy, strategy, "check,bet 10")
    aces = [i for i, c in enumerate(view.combos) if c[0] == "A"]
    assert aces and all(view.reach[i] == 0 and np.isnan(view.eqr[i]) and view.equity[i] == 0 for i in aces)
    assert not [c for c in view.to_json()["combos"] if c[0] == "A"] and view.to_json()["combos"]


def test_a_spot_built_without_the_isomorphism_key_merges_boards_as_its_config_does():
    """HoldemSpot(**params) without `isomorphism` built its tree without it (the engine fell back
    to False) while game_size and a config's [game] table (the declared default) had it on."""
    from solverkit.api import load_game

    params = dict(board="Ks9s7s2s", pot=20, stack=30, oop_range="AA,KQs", ip_range="QQ,T8s",
                  sizes={"river": {"bet": "50%"}})
    direct, loaded = HoldemSpot(**params), load_game("holdem_spot", **params)
    assert direct.tree_isomorphic and loaded.tree_isomorphic and loaded.config["isomorphism"] is True
    rivers = [int(g.tree.boards.round_start[2] - g.tree.boards.round_start[1]) for g in (direct, loaded)]
    assert rivers[0] == rivers[1] == direct.game_size().boards_iso[1] < 48  # c, d, h permute: merged
    assert HoldemSpot(**params, isomorphism=False).tree.boards.round_start[2] - 1 == 48


@pytest.fixture(scope="module")
def river_run(tmp_path_factory):
    import tomli_w
    from click.testing import CliRunner

    from solverkit.cli import cli

    base = tmp_path_factory.mktemp("spot")
    config = base / "spot.toml"
    game = {k: v for k, v in RIVER.items()}
    config.write_text(tomli_w.dumps({"preset": "dcfr", "game": {"name": "holdem_spot", **game}}))
    r = CliRunner().invoke(cli, ["solve", str(config), "--iterations", "10", "--out", str(base / "run"), "--quiet"])
    assert r.exit_code == 0, r.output
    return base / "run"


def test_strategy_infoset_names_hands_as_the_export_does(river_run):
    """The export names a spot's hands the higher card first ("KdQd|..."); strategy --infoset
    printed the stored key the other way ("stored as QdKd|...") even for the export's own key."""
    from click.testing import CliRunner

    from solverkit.cli import cli

    r = CliRunner().invoke(cli, ["export", str(river_run)])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    key = next(k for k in doc["players"][0] if k.startswith("KhQh|"))
    r = CliRunner().invoke(cli, ["strategy", str(river_run), "--infoset", key])
    assert r.exit_code == 0 and "stored as" not in r.output, r.output
    low_first = "QhKh" + key[4:]
    r = CliRunner().invoke(cli, ["strategy", str(river_run), "--infoset", low_first])
    assert r.exit_code == 0 and f"stored as {key}," in r.output, r.output
    r = CliRunner().invoke(cli, ["strategy", str(river_run), "--infoset", low_first, "--json"])
    assert json.loads(r.output)["stored_as"] == key
    assert json.loads(r.output)["policy"] == dict(zip(doc["actions"][0][key], doc["players"][0][key]))


def test_the_report_grid_shows_equity_and_eqr_in_a_browser(river_run, tmp_path):
    """The report's grid: each cell's title (its hover) lists its combos' equity and EQR next to
    strategy and EV, each node a line with both ranges' equity, EV and EQR; the page renders in
    headless Chromium (when installed) without console errors and keeps them in its DOM."""
    import html
    import shutil
    import subprocess

    from click.testing import CliRunner

    from solverkit.cli import cli

    assert CliRunner().invoke(cli, ["report", str(river_run)]).exit_code == 0
    page = (river_run / "report.html").read_text()
    titles = [html.unescape(t) for t in re.findall(r'<td title="([^"]*)"', page)]
    assert titles and all("equity " in t and "EQR " in t for t in titles)
    ranges = re.findall(r'<p class="ranges">([^<]*)</p>', page)
    assert len(ranges) >= 4 and ranges[0].startswith("oop range: equity ") and "; ip range: equity " in ranges[0]
    # the root's range line holds the node view's numbers
    from solverkit.core.config import load_config
    from solverkit.core.strategy_file import load_strategy

    cfg = river_run / "config.toml"
    game = load_config(cfg).game
    strategy, _, _ = load_strategy(river_run / "strategy.npz", game, str(cfg))
    rng = game.node_view(strategy, "").range_values()
    assert f"equity {100 * rng['equity']:.1f}%, EV {rng['ev']:.2f}, EQR {rng['eqr']:.2f}" in ranges[0]
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        pytest.skip("no Chromium installed (.ci/run installs Debian's chromium)")
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--enable-logging=stderr", "--v=0", f"--user-data-dir={tmp_path / 'profile'}",
                           "--dump-dom", (river_run / "report.html").as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert re.findall(r"CONSOLE.*", proc.stderr) == []
    dom = proc.stdout
    assert dom.count('<table class="grid">') == page.count('<table class="grid">') >= 4
    assert len(re.findall(r'<td title="[^"]*EQR', dom)) == len(titles)
