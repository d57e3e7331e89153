"""Game identity: every strategy, result and checkpoint records the game it was written for (a
hash of its name, parameters, game files' content and poker rules); exploit, export, strategy,
report, match and --resume refuse another game even when the arrays have the right shapes
(Leduc with another first player or bet size), naming both games; files without an identity
are read as before with a warning."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import solverkit
from solverkit.cli import cli
from solverkit.core.checkpoint import read_footer
from solverkit.core.config import load_config
from solverkit.core.identity import game_definition, game_identity
from solverkit.core.strategy_file import check_layout, load_strategy
from solverkit.poker.match import MatchReport, run_match
from solverkit.poker.players import Player, baseline_strategy

LEDUC = (Path(solverkit.__file__).parent / "poker" / "gamedefs" / "leduc.game").read_text()
#: Leduc variants whose strategies have exactly Leduc's array shapes
SAME_SHAPES = {
    "first": ("firstPlayer = 1 1", "firstPlayer = 2 1", "rules.first_player = [1, 0] in the file, [0, 0] in the game"),
    "bets": ("raiseSize = 2 4", "raiseSize = 2 6", "rules.raise_size = [2, 6] in the file, [2, 4] in the game"),
}


def _gamedef(path, change=None):
    text = LEDUC if change is None else LEDUC.replace(change[0], change[1])
    assert change is None or text != LEDUC
    path.write_text(text)
    return path


def _solve(out, gamedef, **solver):
    game = {"name": "acpc", "gamedef": str(gamedef)}
    return solverkit.solve({"game": game}, iterations=6, preset="cfr_plus", out=out, solver=solver)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Leduc from a game file (with checkpoints), and its same-shaped variants."""
    base = tmp_path_factory.mktemp("identity")
    out = {"leduc": base / "leduc"}
    _solve(out["leduc"], _gamedef(base / "leduc.game"), checkpoint_every="3")
    for name, change in SAME_SHAPES.items():
        out[name] = base / name
        _solve(out[name], _gamedef(base / f"{name}.game", change[:2]))
    return out


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _one_error(res, *parts):
    assert res.exit_code == 2, (res.output, res.exception)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in res.output, res.output
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


def _copy(run, dst):
    shutil.copytree(run, dst)
    return dst


@pytest.mark.parametrize("change", [
    ("firstPlayer = 1 1", "firstPlayer = 2 1"), ("blind = 1 1", "blind = 1 2"), ("raiseSize = 2 4", "raiseSize = 2 6"),
    ("numHoleCards = 1", "numHoleCards = 2"), ("maxRaises = 2 2", "maxRaises = 2 1"),
])
def test_every_rule_and_the_game_file_change_the_identity(tmp_path, change):
    leduc = solverkit.load_game("acpc", gamedef=str(_gamedef(tmp_path / "a.game")))
    other = solverkit.load_game("acpc", gamedef=str(_gamedef(tmp_path / "b.game", change)))
    assert game_identity(leduc) != game_identity(other)
    moved = solverkit.load_game("acpc", gamedef=str(_gamedef(tmp_path / "elsewhere.game")))
    assert game_identity(moved) == game_identity(leduc)  # the content counts, not the file's name
    assert game_definition(leduc)["rules"] == game_definition(solverkit.load_game("leduc"))["rules"]
    assert game_identity(solverkit.load_game("leduc")) != game_identity(solverkit.load_game("kuhn"))


def test_the_run_records_its_identity_everywhere(runs):
    run = runs["leduc"]
    want = game_identity(load_config(run / "config.toml").game)
    assert json.loads((run / "result.json").read_text())["game_id"] == want
    assert load_strategy(run / "strategy.npz")[2]["game_id"] == want
    assert read_footer(run / "checkpoint.skc")["game_id"] == want


@pytest.mark.parametrize("variant", sorted(SAME_SHAPES))
@pytest.mark.parametrize("command", ["exploit", "export", "report", "strategy"])
def test_a_strategy_of_another_game_with_the_same_shapes_is_refused(runs, tmp_path, variant, command):
    run = _copy(runs["leduc"], tmp_path / "run")
    shutil.copy(runs[variant] / "strategy.npz", run / "strategy.npz")
    game = load_config(run / "config.toml").game
    _, layouts, _ = load_strategy(run / "strategy.npz")
    assert [lay.size for lay in layouts] == [game.layout(p).size for p in (0, 1)]  # what a slice read checked
    if variant == "bets":
        check_layout(run / "strategy.npz", layouts, game)  # even the whole layouts cannot tell these apart
    args = ["strategy", run, "--infoset", "Kh|Qh|cc/"] if command == "strategy" else [command, run]
    _one_error(invoke(*args), f"{run / 'strategy.npz'} belongs to another game: game 'acpc', not game 'acpc' of "
               f"{run / 'config.toml'} (", SAME_SHAPES[variant][2])


def test_an_edited_game_file_makes_the_run_another_game(tmp_path):
    gamedef = _gamedef(tmp_path / "mine.game")
    run = tmp_path / "run"
    _solve(run, gamedef, checkpoint_every="3")
    assert invoke("exploit", run).exit_code == 0
    _gamedef(gamedef, SAME_SHAPES["bets"][:2])  # the same path, another game
    edited = "rules.raise_size = [2, 4] in the file, [2, 6] in the game"
    _one_error(invoke("exploit", run), "belongs to another game", edited, "gamedef.sha256 = ")
    _one_error(invoke("solve", "--resume", run, "--iterations", "9"), f"{run / 'checkpoint.skc'} belongs to another "
               "game", edited, "(start a new run, without --resume)")


def test_files_without_an_identity_are_read_with_a_warning(runs, tmp_path):
    run = _copy(runs["leduc"], tmp_path / "run")
    with np.load(run / "strategy.npz") as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    del meta["game_id"], meta["game_definition"]
    arrays["meta"] = np.array(json.dumps(meta))
    with open(run / "strategy.npz", "wb") as fh:
        np.savez(fh, **arrays)
    warning = (f"warning: {run / 'strategy.npz'} records no game identity (written by an older solverkit): checked "
               "against game 'acpc' by its array shapes only")
    for args in (["exploit", run], ["strategy", run, "--infoset", "Kh||"]):
        res = invoke(*args)
        assert res.exit_code == 0 and res.stderr.strip() == warning, res.output
    assert invoke("exploit", run).stdout == invoke("exploit", runs["leduc"]).stdout
    other = _copy(runs["first"], tmp_path / "other")  # an old file in a run of another game: today's checks
    shutil.copy(run / "strategy.npz", other / "strategy.npz")
    _one_error(invoke("exploit", other), "player 0's layout (288 information sets, 672 values) does not match game "
               "'acpc'")  # the error alone: the warning comes once a file is read


def test_a_match_refuses_a_run_of_other_rules_naming_both(runs):
    res = invoke("match", runs["leduc"], runs["first"])
    _one_error(res, f"{runs['first']} solved game 'acpc' ({runs['first'].parent / 'first.game'}), another game than "
               f"'acpc' ({runs['leduc'].parent / 'leduc.game'}) of the match: first_player = [1, 0] in "
               f"{runs['first']}, [0, 0] in the match's game", "both players must play the same game")
    assert invoke("match", runs["leduc"], "random").exit_code == 0


def test_a_match_refuses_a_run_of_the_same_rules_in_another_layout(runs, tmp_path):
    raw = tmp_path / "raw"
    solverkit.solve({"game": {"name": "leduc", "isomorphism": False}}, iterations=3, preset="cfr_plus", out=raw)
    _one_error(invoke("match", runs["leduc"], raw), f"{raw / 'strategy.npz'}: player 0's layout", "does not match")


def test_a_match_refuses_a_run_of_the_same_rules_and_layout_on_other_boards(tmp_path):
    """Hold'em restricted to another flop: the same rules and layout sizes, other cards at each
    board's place (its strategy was read as the other flop's: a silently wrong exact value)."""
    game = {"name": "hulhe", "ranks": 5, "suits": 2, "rounds": 2, "split_round": 0}
    for flop in ("TsJsQs", "TsJsKs"):
        solverkit.solve({"game": {**game, "flops": flop}}, iterations=2, preset="cfr_plus", out=tmp_path / flop)
    _one_error(invoke("match", tmp_path / "TsJsQs", tmp_path / "TsJsKs"),
               f"{tmp_path / 'TsJsKs'} solved game 'hulhe' on other boards than the match's game 'hulhe' ([game] "
               "flops?)", "both players must play the same game")
    assert invoke("match", tmp_path / "TsJsQs", tmp_path / "TsJsQs").exit_code == 0


def test_a_match_of_one_deal_pair_reports_no_interval():
    game = solverkit.load_game("leduc")
    a = Player(game, baseline_strategy(game, "raise"), "raise")
    b = Player(game, baseline_strategy(game, "random"), "random")
    report = run_match(game, a, b, hands=2, seed=1, exact=False)
    line = report.lines()[-1]
    assert report.samples == 1 and "inf" not in line and "nan" not in line
    assert "(duplicate): " in line and "mbb/g, no 95% interval: 1 deal pair(s), an interval needs at least 2" in line
    two = run_match(game, a, b, hands=4, seed=1, exact=False)
    assert two.samples == 2 and "(95% interval over 2 deal pairs)" in two.lines()[-1]
    shown = MatchReport("a", "b", None, sampled_mbb=5.0, half_width_mbb=float("inf"), hands=2, samples=1).lines()
    assert "inf" not in shown[-1]


def test_report_refuses_a_result_of_another_game(runs, tmp_path):
    run = _copy(runs["leduc"], tmp_path / "run")
    shutil.copy(runs["bets"] / "result.json", run / "result.json")
    (run / "strategy.npz").unlink()  # the result alone tells the games apart
    _one_error(invoke("report", run), f"{run / 'result.json'} belongs to another game: game_id ",
               f"not game 'acpc' of {run / 'config.toml'} (game_id ")
    assert invoke("report", runs["leduc"]).exit_code == 0


@pytest.mark.slow
def test_a_study_resumed_after_its_game_file_changed_is_refused(tmp_path):
    from solverkit.study.file import load_study
    from solverkit.study.runner import run_study
    from solverkit.errors import ConfigError

    gamedef = _gamedef(tmp_path / "mine.game")
    study = tmp_path / "s.toml"
    study.write_text('[study]\nname = "s"\niterations = 6\neval_every = 0\n\n[assemblies.a]\npreset = "cfr_plus"\n\n'
                     f'[games.g]\ngame = {{ name = "acpc", gamedef = "{gamedef}" }}\n')
    out = tmp_path / "out"
    run_study(load_study(study), out, progress=False)
    run_study(load_study(study), out, progress=False, resume=True)  # the same game: kept
    _gamedef(gamedef, SAME_SHAPES["bets"][:2])
    with pytest.raises(ConfigError, match=r"study run a__g__seed0 in .* was solved for another game than this study's "
                                          r"game 'acpc' \(result.json game_id '\w{12}'\.\.\., the game's '\w{12}'"):
        run_study(load_study(study), out, progress=False, resume=True)


def test_a_matrix_file_is_identified_by_its_payoffs(tmp_path):
    a, b, c = tmp_path / "a.npy", tmp_path / "b.npy", tmp_path / "c.npy"
    np.save(a, np.array([[1.0, -1.0], [-1.0, 1.0]]))
    np.save(b, np.array([[2.0, -1.0], [-1.0, 1.0]]))  # the same shape, another game
    shutil.copy(a, c)
    ids = [game_identity(solverkit.load_game("matrix_file", path=str(p))) for p in (a, b, c)]
    assert ids[0] != ids[1] and ids[0] == ids[2]


def test_an_old_checkpoint_without_an_identity_resumes_with_a_warning(runs, tmp_path):
    import struct
    import zlib

    import msgpack

    from solverkit.core.checkpoint import END

    run = _copy(runs["leduc"], tmp_path / "run")
    path = run / "checkpoint.skc"
    raw = path.read_bytes()
    tail = struct.calcsize("<IQ") + len(END)
    _, flen = struct.unpack("<IQ", raw[-tail:-len(END)])
    footer = msgpack.unpackb(raw[-tail - flen:-tail], strict_map_key=False)
    del footer["game_id"], footer["game_definition"]
    packed = msgpack.packb(footer)
    path.write_bytes(raw[:-tail - flen] + packed + struct.pack("<IQ", zlib.crc32(packed), len(packed)) + END)
    res = invoke("solve", "--resume", run, "--iterations", "9", "--quiet")
    assert res.exit_code == 0, res.output
    assert f"warning: {path} records no game identity (written by an older solverkit)" in res.stderr
    assert json.loads((run / "result.json").read_text())["iterations"] == 9
