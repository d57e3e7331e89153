"""The poker engine against independent oracles: exact game values, brute-force best
responses on small random game files, OpenSpiel's exploitability, and slow kernel references."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.poker.evaluator import acpc_rank
from solverkit.poker.gamedef import parse_gamedef
from solverkit.poker.kernels import fold_values, showdown_values
from solverkit.poker.tree import build_tree

from .poker_reference import best_response_value, expected_value, policy_from_flat


def _game(name, **params):
    return load_config({"game": {"name": name, **params}, "preset": "cfr_plus"}).game


def _random_strategy(game, rng):
    out = []
    for p in (0, 1):
        lay = game.layout(p)
        parts = []
        for c, a in zip(lay.block_count, lay.block_actions):
            x = rng.random((int(c), int(a))) + 0.05
            parts.append((x / x.sum(axis=1, keepdims=True)).ravel())
        out.append(np.concatenate(parts))
    return out


def _solve(name, iterations, **params):
    a = load_config({"game": {"name": name, **params}, "preset": "cfr_plus"})
    s = Solver(a)
    for _ in range(iterations):
        s.step()
    return a.game, s


# --- counts --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, iso, count",
    [("kuhn", False, 12), ("leduc", False, 936), ("rhode_island", False, 52_128_128), ("rhode_island", True, 3_937_128)],
)
def test_information_set_counts(name, iso, count):
    game = _game(name, isomorphism=iso) if name == "rhode_island" else _game(name, isomorphism=iso)
    assert game.tree.num_infosets() == count


def test_rhode_island_betting_nodes_per_round():
    game = _game("rhode_island")
    bet = game.tree.bet
    assert [len(bet.decision_nodes(r)) for r in range(3)] == [8, 56, 392]


# --- game values ---------------------------------------------------------------------------


def test_kuhn_value():
    game, s = _solve("kuhn", 3000)
    br0, br1 = game.best_response(s.strategy())
    assert -br1 <= -1 / 18 + 1e-9 and -1 / 18 <= br0 + 1e-9
    assert abs(br0 - (-1 / 18)) < 1e-3 and abs(-br1 - (-1 / 18)) < 1e-3


def test_leduc_value():
    game, s = _solve("leduc", 1500)
    v0, _ = game.expected_values(s.strategy())
    assert abs(v0 - (-0.0856)) < 1e-3


# --- brute force ---------------------------------------------------------------------------


def _random_gamedef(rng):
    rounds = int(rng.integers(1, 3))
    ranks, suits = int(rng.integers(3, 5)), int(rng.integers(1, 3))
    blind = sorted(int(x) for x in rng.integers(1, 3, size=2))[::-1]
    text = f"""GAMEDEF
limit
numPlayers = 2
numRounds = {rounds}
blind = {blind[0]} {blind[1]}
raiseSize = {' '.join(str(int(x)) for x in rng.integers(1, 5, size=rounds))}
firstPlayer = {' '.join(str(int(x)) for x in rng.integers(1, 3, size=rounds))}
maxRaises = {' '.join(str(int(x)) for x in rng.integers(1, 3, size=rounds))}
numSuits = {suits}
numRanks = {ranks}
numHoleCards = 1
numBoardCards = 0 {'1' if rounds > 1 else ''}
END GAMEDEF
"""
    return text


def _check_against_brute_force(gd, path, rng, values=False):
    """The acpc game of the file at `path` (definition `gd`): best responses to a random strategy
    (and with `values` its expected value) equal the brute-force enumeration's."""
    game = _game("acpc", gamedef=str(path), isomorphism=False)
    strategy = _random_strategy(game, rng)
    policy = policy_from_flat(game, strategy)

    def rank(cards):
        return acpc_rank(np.array(cards, dtype=np.int64), gd.num_suits)

    br = game.best_response(strategy)
    for p in (0, 1):
        assert br[p] == pytest.approx(best_response_value(gd, game.tree.bet, policy, rank, p), abs=1e-12)
    if values:
        assert game.expected_values(strategy)[0] == pytest.approx(expected_value(gd, game.tree.bet, policy, rank),
                                                                  abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_best_response_equals_brute_force_on_random_game_files(tmp_path, seed):
    rng = np.random.default_rng(seed)
    text = _random_gamedef(rng)
    path = tmp_path / "g.game"
    path.write_text(text)
    _check_against_brute_force(parse_gamedef(text, str(path)), path, rng, values=True)


def test_two_card_hands_against_brute_force(tmp_path):
    text = """GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 2 1
raiseSize = 2 4
firstPlayer = 2 1
maxRaises = 2 1
numSuits = 2
numRanks = 3
numHoleCards = 2
numBoardCards = 0 1
END GAMEDEF
"""
    path = tmp_path / "two.game"
    path.write_text(text)
    _check_against_brute_force(parse_gamedef(text), path, np.random.default_rng(7))


# --- OpenSpiel -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_exploitability_equals_openspiel(name):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability

    from solverkit.poker.openspiel import openspiel_name, openspiel_policy

    game, s = _solve(name, 200, isomorphism=False)
    uniform = _random_strategy(game, np.random.default_rng(0))
    uniform = [np.where(x > 0, 1.0, 0.0) for x in uniform]
    for p in (0, 1):  # normalise to the uniform strategy
        lay = game.layout(p)
        pos = 0
        for c, a in zip(lay.block_count, lay.block_actions):
            uniform[p][pos : pos + c * a] = 1.0 / a
            pos += c * a
    os_game = pyspiel.load_game(openspiel_name(game))
    for strategy in (uniform, s.strategy()):
        ours = sum(game.best_response(strategy)) / 2
        theirs = exploitability.exploitability(os_game, openspiel_policy(game, strategy))
        assert ours == pytest.approx(theirs, abs=1e-9)


# --- structure: split and isomorphism ------------------------------------------------------

MINI3 = """GAMEDEF
limit
numPlayers = 2
numRounds = 3
blind = 5 5
raiseSize = 10 20 20
firstPlayer = 1 2 1
maxRaises = 3 2 3
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1 1
END GAMEDEF
"""


@pytest.mark.parametrize("split,chunks", [(1, 1), (2, 1), (1, 3), (2, 2)])
@pytest.mark.parametrize("preset", ["cfr_plus", "cfr"])
def test_trunk_and_subgames_equal_the_whole_tree(tmp_path, split, chunks, preset):
    path = tmp_path / "mini3.game"
    path.write_text(MINI3)
    solvers = []
    for s in (0, split):
        game = {"name": "acpc", "gamedef": str(path), "split_round": s, "chunks": chunks}
        solvers.append(Solver(load_config({"game": game, "preset": preset})))
    iterations = 15
    if chunks > 1:
        assert len(solvers[1].game.subgame_keys()) > len(solvers[1].game.entries) * len(solvers[1].game.sub_boards)
        # chunk values add up in another order: equal to rounding, and rounding differences
        # can flip regret matching at zero regrets after some iterations
        iterations = 3
    for _ in range(iterations):
        for sv in solvers:
            sv.step()
    whole, cut = (sv.strategy() for sv in solvers)
    for p in (0, 1):
        np.testing.assert_allclose(cut[p], whole[p], rtol=0, atol=1e-12)
    assert solvers[1].evaluate()["exploitability"] == pytest.approx(solvers[0].evaluate()["exploitability"], abs=1e-12)


@pytest.mark.parametrize("preset", ["cfr_plus", "cfr", "lcfr", "dcfr"])
@pytest.mark.parametrize("split", [0, 1])
def test_pruning_zero_reach_subtrees_changes_nothing(tmp_path, preset, split):
    """Skipping subtrees that nothing reaches must leave every regret and average bit for bit
    as the full walk does, also for rules whose zero updates still discount (lcfr, dcfr)."""
    path = tmp_path / "mini3.game"
    path.write_text(MINI3)
    solvers = []
    for pruning in (False, True):
        a = load_config({"game": {"name": "acpc", "gamedef": str(path), "split_round": split}, "preset": preset})
        sv = Solver(a)
        sv.game.pruning = pruning
        solvers.append(sv)
    for _ in range(30):
        for sv in solvers:
            sv.step()
    full, pruned = solvers
    for kind in ("current", "average"):
        for p in (0, 1):
            np.testing.assert_array_equal(pruned.strategy(kind)[p], full.strategy(kind)[p])
    # the current strategies give some action zero probability on every hand: the pruned
    # walk really skipped subtrees
    cur = full.strategy("current")
    layout = full.game.layout(0)
    zero_blocks = 0
    for start, count, A in zip(layout.block_start, layout.block_count, layout.block_actions):
        block = cur[0][start : start + count * A].reshape(count, A)
        zero_blocks += int(np.any(np.all(block == 0.0, axis=0)))
    assert preset in ("lcfr", "dcfr") or zero_blocks > 0


def test_isomorphism_gives_the_same_run(tmp_path):
    path = tmp_path / "mini3.game"
    path.write_text(MINI3)
    expl = []
    for iso in (False, True):
        a = load_config({"game": {"name": "acpc", "gamedef": str(path), "isomorphism": iso}, "preset": "cfr_plus"})
        s = Solver(a)
        for _ in range(20):
            s.step()
        expl.append(s.evaluate()["exploitability"])
    assert expl[1] == pytest.approx(expl[0], rel=1e-12)


# --- kernels against slow references -------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2])
def test_terminal_kernels_against_quadratic_reference(k):
    rng = np.random.default_rng(k)
    gd = parse_gamedef(
        f"GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 2\nblind = 1 1\nraiseSize = 1 1\nmaxRaises = 1 1\n"
        f"numSuits = 4\nnumRanks = 5\nnumHoleCards = {k}\nnumBoardCards = 0 3\nEND GAMEDEF\n"
    )
    tree = build_tree(gd)
    hands = tree.hands
    H = hands.shape[0]
    g = int(tree.boards.round_start[1])  # the first flop: sd_order[0] is its showdown order
    assert tree.boards.num_cards[g] == 3
    board = tree.boards.cards[g, : tree.boards.num_cards[g]]
    valid = tree.valid[g]
    opp = rng.random(H) * valid
    card = np.zeros(2 * gd.deck_size)
    out = np.zeros(H)
    fold_values(opp, hands, valid, card, 3.0, 0.5, out)
    strength = np.array([acpc_rank(np.concatenate([hands[h], board]), gd.num_suits) if valid[h] else -1 for h in range(H)])
    clash = np.array([[bool(set(hands[a]) & set(hands[b])) for b in range(H)] for a in range(H)])
    ref = np.array([1.5 * opp[~clash[h]].sum() if valid[h] else 0.0 for h in range(H)])
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
    showdown_values(opp, hands, tree.sd_order[0], tree.sd_strength[0], tree.sd_count[0], card, 2.0, 0.25, out)
    ref = np.array(
        [
            0.5 * sum(opp[b] * np.sign(strength[h] - strength[b]) for b in range(H) if not clash[h, b] and valid[b])
            if valid[h]
            else 0.0
            for h in range(H)
        ]
    )
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("preset", ["cfr", "cfr_plus", "lcfr", "dcfr", "pcfr_plus"])
def test_a_block_of_full_passes_gets_the_numbers_each_pass_would(preset):
    """cfr_block builds a full block's per-pass arrays without a job per pass: they must be what
    kernel_job gives every pass (masks, coefficients, pruning, sampling fields, nodes)."""
    from solverkit.core.game import PassBlock

    from solverkit.core.solver import Solver

    solver = Solver(load_config({"preset": preset, "game": {"name": "leduc"}}))
    asm, game = solver.assembly, solver.game
    for groups in (((0,), (1,)), ((1,), (0,)), ((0, 1),)):
        block = PassBlock(7, 25, groups, asm.rule, asm.averaging, asm.sampler)
        kjobs = [game.predictive_job(game.kernel_job(job), job, solver.store) for job in block.jobs()]
        assert all(k.predictive for k in kjobs) == asm.rule.predictive
        each = (np.array([k.upd_mask for k in kjobs]), np.array([k.avg_mask for k in kjobs]),
                np.array([(*k.coeffs, k.nxt, k.pweight) for k in kjobs], dtype=np.float64),
                np.array([k.prune for k in kjobs]),
                np.array([k.sample for k in kjobs]), np.array([k.key() for k in kjobs], dtype=np.uint64),
                np.array([k.sampling_player() for k in kjobs]), sum(game.pass_nodes(k) for k in kjobs))
        for got, want in zip(game._block_arrays(block), each):
            np.testing.assert_array_equal(got, want)
    solver.close()
