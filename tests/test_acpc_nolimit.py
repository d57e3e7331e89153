"""ACPC no-limit files in the ``acpc`` game (issue 25 item 2) against OpenSpiel's universal_poker.

OpenSpiel is the oracle: its game is loaded from the game file's text (load_universal_poker_from_
acpc_gamedef, then bettingAbstraction=fcpa), never from solverkit's parameters, and its own
algorithms evaluate (1) the strategy ``solverkit export --format openspiel`` writes after a few CFR+
iterations: OpenSpiel's exploitability equals the one solverkit prints, to 1e-9 relative; (2) a
fixed pseudo-random policy keyed by what the acting player sees (cards, betting), made on each
side from its own view of the game: expected and best-response values agree. The rest: the
sizes of full no-limit hold'em are printed and a solve is refused before anything is built,
bad parameters are one-line ConfigErrors, mbb/g uses the larger blind.
"""

from __future__ import annotations

import json
import re
import zlib

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.errors import ConfigError

pyspiel = pytest.importorskip("pyspiel")

# small no-limit games: the bundled no-limit Leduc, and files with uneven stacks, one round,
# two hole cards and two board cards, a raise cap (universal_poker's information states tell
# boards apart only when one round deals board cards: see the refusal below)
GAMES = {
    "leduc.nolimit": None,
    "uneven_stacks": "stack = 13 21\nblind = 1 2\nfirstPlayer = 2 1\nnumRounds = 2\nnumSuits = 2\nnumRanks = 4\n"
                     "numHoleCards = 1\nnumBoardCards = 0 1\n",
    "one_round": "stack = 9 7\nblind = 2 2\nfirstPlayer = 1\nnumRounds = 1\nnumSuits = 3\nnumRanks = 3\n"
                 "numHoleCards = 1\nnumBoardCards = 0\n",
    "two_hole_cards": "stack = 12 12\nblind = 2 1\nfirstPlayer = 2 1\nnumRounds = 2\nnumSuits = 2\nnumRanks = 3\n"
                      "numHoleCards = 2\nnumBoardCards = 0 2\nmaxRaises = 2 1\n",
}


def game_text(name) -> str:
    from importlib import resources

    body = GAMES[name]
    if body is None:
        return resources.files("solverkit.poker").joinpath("gamedefs", name + ".game").read_text()
    return f"GAMEDEF\nnolimit\nnumPlayers = 2\n{body}END GAMEDEF\n"


def gamedef_arg(tmp_path, name) -> str:
    if GAMES[name] is None:
        return name
    path = tmp_path / f"{name}.game"
    path.write_text(game_text(name))
    return str(path)


def openspiel_game(text):
    """universal_poker of the file's text, under fcpa (as REFERENCE.md "No-limit" loads it)."""
    game = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text)
    params = dict(game.get_parameters())
    params["bettingAbstraction"] = "fcpa"
    return pyspiel.load_game("universal_poker", params)


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)
    return result


@pytest.mark.parametrize("name, iso", [("leduc.nolimit", True), ("uneven_stacks", False), ("one_round", True), ("two_hole_cards", True)])
def test_exported_fcpa_strategy_has_the_exploitability_openspiel_computes(tmp_path, name, iso):
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability

    cfg = tmp_path / "nl.toml"
    cfg.write_text(f'preset = "cfr_plus"\n[game]\nname = "acpc"\ngamedef = {json.dumps(gamedef_arg(tmp_path, name))}\n'
                   f"isomorphism = {str(iso).lower()}\n[solver]\niterations = 7\n")
    out = tmp_path / "run"
    res = invoke("solve", cfg, "--out", out, "--quiet")
    assert res.exit_code == 0, res.output
    ours = json.loads((out / "result.json").read_text())
    res = invoke("export", out, "--format", "openspiel", "-o", tmp_path / "os.json")
    assert res.exit_code == 0, res.output
    table = json.loads((tmp_path / "os.json").read_text())
    os_game = openspiel_game(game_text(name))
    pol = os_policy.TabularPolicy(os_game)
    assert set(table) == set(pol.state_lookup)  # every information state, and no other string
    for key, probs in table.items():
        row = np.zeros(pol.action_probability_array.shape[1])
        for a, p in probs.items():
            row[int(a)] = p
        legal = np.flatnonzero(pol.legal_actions_mask[pol.state_lookup[key]])
        assert sorted(int(a) for a in probs) == list(legal), key
        pol.action_probability_array[pol.state_lookup[key]] = row
    theirs = exploitability.exploitability(os_game, pol)
    assert ours["iterations"] == 7 and theirs > 1e-3  # a few iterations: far from solved
    assert ours["exploitability"] == pytest.approx(theirs, rel=1e-9, abs=0)
    big_blind = max(int(x) for x in re.search(r"blind = (\d+) (\d+)", game_text(name)).groups())
    assert ours["exploitability_mbb"] == pytest.approx(theirs * 1000 / big_blind, rel=1e-9)


# --- a fixed policy, made on each side from its own view -------------------------------------

RANKS, SUITS = "23456789TJQKA", "cdhs"


def weights(hole, board, history, n) -> np.ndarray:
    """Probabilities of the n actions (fcpa ids in increasing order) from a hash of what the
    acting player sees: hole cards, board cards (as sets) and the betting string."""
    w = np.array([0.05 + zlib.crc32(f"{sorted(hole)}|{sorted(board)}|{history}|{i}".encode()) / 2**32
                  for i in range(n)])
    return w / w.sum()


class KeyedPolicy:
    """The fixed policy on OpenSpiel states, read from the information-state string."""

    def __init__(self, game, suits):
        from open_spiel.python import policy as os_policy

        self.base = os_policy.Policy(game, [0, 1])
        self.suits = suits

    def cards(self, text):
        return [RANKS.index(text[i]) * self.suits + SUITS.index(text[i + 1]) for i in range(0, len(text), 2)]

    def action_probabilities(self, state, player_id=None):
        info = state.information_state_string(state.current_player())
        field = dict(re.findall(r"\[(\w+): ?([^\]]*)\]", info))
        history = field["Sequences"].replace("|", "/")
        acts = sorted(state.legal_actions())
        return dict(zip(acts, weights(self.cards(field["Private"]), self.cards(field["Public"]), history, len(acts))))


def keyed_strategy(game):
    """The same policy as solverkit's flat per-player strategy (no suit isomorphism)."""
    t, bet = game.tree, game.tree.bet
    out = []
    for p in (0, 1):
        flat = np.zeros(game.layout(p).size)
        for n, k in zip(*game.full.units[p]):
            g = int(t.boards.round_start[bet.round[n]]) + int(k)
            board = [int(c) for c in t.boards.cards[g, : t.boards.num_cards[g]]]
            A = int(bet.num_actions[n])
            assert list(bet.actions[n, :A]) == sorted(bet.actions[n, :A])
            for h in range(t.num_hands):
                off = game.value_offset(int(n), g, h)
                flat[off: off + A] = weights([int(c) for c in t.hands[h]], board, bet.history[n], A)
        out.append(flat)
    return out


@pytest.mark.parametrize("name", ["leduc.nolimit", "uneven_stacks",
                                  pytest.param("two_hole_cards", marks=pytest.mark.slow)])  # (CI time: 8 s)
def test_fixed_policy_values_equal_openspiel(tmp_path, name):
    from open_spiel.python.algorithms import best_response, expected_game_score

    game = load_config({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": gamedef_arg(tmp_path, name),
                                                       "isomorphism": False}}).game
    strategy = keyed_strategy(game)
    ours = (*game.expected_values(strategy), *game.best_response(strategy))
    os_game = openspiel_game(game_text(name))
    pol = KeyedPolicy(os_game, game.gd.num_suits)
    root = os_game.new_initial_state()
    ev = expected_game_score.policy_value(root, [pol, pol])
    br = [best_response.BestResponsePolicy(os_game, p, pol).value(root) for p in (0, 1)]
    assert ours == pytest.approx((ev[0], ev[1], br[0], br[1]), abs=1e-9)
    assert min(br) > 0.1  # far from an equilibrium: the values say something


# --- sizes, refusals, parameters --------------------------------------------------------------

SIZES = ('sizes={preflop={bet="100%, a", raise="3x, a"}, flop={bet="50%, 100%, a", raise="3x, a"}, '
         'turn={bet="50%, 100%, a", raise="3x, a"}, river={bet="50%, 100%, a", raise="3x, a"}}')


@pytest.mark.parametrize("sets", [["abstraction=fcpa"], [SIZES]])
def test_full_nolimit_holdem_prints_its_size_and_a_solve_is_refused_before_building(tmp_path, sets):
    args = ["--set", "gamedef=holdem.nolimit.2p.reverse_blinds"]
    for s in sets:
        args += ["--set", s]
    res = invoke("info", "acpc", *args)
    assert res.exit_code == 0, res.output
    assert "holdem.nolimit.2p.reverse_blinds" in res.output and "information sets up to suit symmetry" in res.output
    dn = re.search(r"decision nodes per round\s+(.*)", res.output).group(1)
    assert dn.startswith("20, ")  # preflop: blinds 100/50, stacks 20000
    game = {"name": "acpc", "gamedef": "holdem.nolimit.2p.reverse_blinds"}
    if sets[0] == SIZES:
        game["sizes"] = {s: {"bet": "50%, 100%, a", "raise": "3x, a"} for s in ("flop", "turn", "river")}
        game["sizes"]["preflop"] = {"bet": "100%, a", "raise": "3x, a"}
    cfg = tmp_path / "hunl.toml"
    import tomli_w

    cfg.write_text(tomli_w.dumps({"preset": "cfr_plus", "game": game}))
    res = invoke("solve", cfg, "--out", tmp_path / "run", "--quiet")
    assert res.exit_code != 0
    line = res.output.strip()
    assert "\n" not in line and "does not fit on this machine" in line, line
    assert not (tmp_path / "run").exists()


def test_size_report_counts_the_action_tree_not_the_limit_tree():
    from solverkit.core.registry import get_registry
    from solverkit.poker.action_tree import betting_counts, nolimit_rules
    from solverkit.poker.gamedef_nolimit import load_nolimit_gamedef

    cls = get_registry().get("game", "acpc")
    rows = dict(cls.size_report({"gamedef": "holdem.nolimit.2p.reverse_blinds", "isomorphism": True}))
    counts = betting_counts(nolimit_rules(load_nolimit_gamedef("holdem.nolimit.2p.reverse_blinds")))
    assert rows["decision nodes per round"] == ", ".join(f"{d:,}" for d in counts.decision_nodes)


@pytest.mark.parametrize("game, match", [
    ({"gamedef": "leduc", "abstraction": "fcpa"}, r"\[game\] abstraction = 'fcpa': leduc is a limit game"),
    ({"gamedef": "kuhn", "sizes": {"round0": {"bet": "50%"}}}, r"\[game\] sizes = .*kuhn is a limit game"),
    ({"gamedef": "leduc", "raise_limit": 2}, r"\[game\] raise_limit = 2: leduc is a limit game"),
    ({"gamedef": "leduc.nolimit", "abstraction": "sizes"}, r"abstraction = \"sizes\" needs \[game.sizes\] tables.*"
                                                           r"round0, round1"),
    ({"gamedef": "leduc.nolimit", "raise_limit": 1}, r"\[game\] raise_limit = 1: abstraction = \"fcpa\" is OpenSpiel"),
    ({"gamedef": "leduc.nolimit", "abstraction": "fcpa", "sizes": {"round0": {"bet": "50%"}}},
     r"\[game\] sizes = .*abstraction = \"fcpa\""),
    ({"gamedef": "leduc.nolimit", "sizes": {"flop": {"bet": "50%"}}}, r"flop: unknown street; valid: round0, round1"),
    ({"gamedef": "leduc.nolimit", "abstraction": "pot"}, r"abstraction = 'pot' is invalid: expected one of"),
])
def test_bad_nolimit_parameters_are_one_line_config_errors(game, match):
    with pytest.raises(ConfigError, match=match) as info:
        load_config({"preset": "cfr_plus", "game": {"name": "acpc", **game}}).game  # noqa: B018 (the property raises)
    assert "\n" not in str(info.value)


def test_limit_only_readers_refuse_nolimit_files_and_the_loader_reads_both():
    from solverkit.poker.gamedef import GameDef, bundled_names, load_any_gamedef, load_gamedef
    from solverkit.poker.gamedef_nolimit import NoLimitGameDef

    assert set(bundled_names("nolimit")) == {"holdem.nolimit.2p.reverse_blinds", "leduc.nolimit"}
    assert not set(bundled_names()) & set(bundled_names("nolimit"))
    assert set(bundled_names("any")) == set(bundled_names()) | set(bundled_names("nolimit"))
    hunl = load_any_gamedef("holdem.nolimit.2p.reverse_blinds")
    assert isinstance(hunl, NoLimitGameDef) and isinstance(load_any_gamedef("leduc"), GameDef)
    assert (hunl.stack, hunl.blind, hunl.first_player, hunl.num_board_cards, hunl.big_blind) == (
        (20000, 20000), (100, 50), (1, 0, 0, 0), (0, 3, 1, 1), 100)
    with pytest.raises(ConfigError, match="no-limit games are not supported here"):
        load_gamedef("leduc.nolimit")


def test_sizes_games_solve_and_label_actions_by_raise_to_chips(tmp_path):
    from solverkit.errors import SolverkitError

    sizes = {"round0": {"bet": "100%, a", "raise": "2x"}, "round1": {"bet": "50%, a"}}
    a = load_config({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": "leduc.nolimit", "sizes": sizes,
                                                    "raise_limit": 1}})
    game = a.game
    bet = game.tree.bet
    # the small blind (1 chip, player 1) acts first: fold, call to 2, raise to 4 (2x the big blind);
    # the big blind may not raise again (raise_limit 1: the big blind is the opening bet)
    assert bet.player[0] == 1 and game.action_labels(0) == ["f", "c", "r4"]
    assert game.action_labels(int(bet.children[0, 2])) == ["f", "c"]
    from solverkit.core.solver import Solver

    s = Solver(a)
    first = s.evaluate(exact=True)["exploitability"]
    for _ in range(30):
        s.step()
    assert s.evaluate(exact=True)["exploitability"] < first / 2
    with pytest.raises(SolverkitError, match="bet-size lists has no OpenSpiel counterpart"):
        game.openspiel_table(game.strategy(s.store, "average"))


def test_export_is_refused_where_universal_poker_merges_boards(tmp_path):
    """Board cards in two rounds: universal_poker's Public field is one sorted set, so a strategy
    that remembers which card came when has no counterpart there (its best responses differ)."""
    from solverkit.errors import SolverkitError

    path = tmp_path / "three.game"
    path.write_text("GAMEDEF\nnolimit\nnumPlayers = 2\nstack = 13 13\nblind = 1 2\nfirstPlayer = 2 1 1\n"
                    "numRounds = 3\nnumSuits = 2\nnumRanks = 4\nnumHoleCards = 1\nnumBoardCards = 0 1 1\nEND GAMEDEF\n")
    game = load_config({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": str(path)}}).game
    strategy = [np.full(game.layout(p).size, 0.5) for p in (0, 1)]
    with pytest.raises(SolverkitError, match=r"numBoardCards = \[0, 1, 1\].*one round deals board cards"):
        game.openspiel_table(strategy)
