"""The final row of a run that stops at a target: an evaluation that is already exact (the game's
store walk is exact, no worker's value in it) is not walked a second time to confirm it."""

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve


def _counted(game):
    calls = []
    inner = game.best_response_from_store

    def counting(*args, **kwargs):
        calls.append(1)
        return inner(*args, **kwargs)

    game.best_response_from_store = counting
    return calls


def test_a_run_stopping_at_a_target_confirms_with_the_evaluation_it_stopped_at():
    asm = load_config({"game": {"name": "leduc"}, "preset": "cfr_plus", "solver": {"eval_every": 5}})
    calls = _counted(asm.game)
    res = run_solve(asm, target=0.05, iterations=400)
    assert res.reached_target
    assert len(calls) == len(res.metrics)  # one walk per row, none more at the end
    # the same numbers as an exact evaluation walked afresh
    again = load_config({"game": {"name": "leduc"}, "preset": "cfr_plus"})
    ref = run_solve(again, iterations=res.iterations)
    assert (res.exploitability, res.br) == (ref.exploitability, ref.br)


def test_an_inexact_fast_path_is_still_confirmed_by_a_walk(monkeypatch):
    import solverkit.core.solver as solver_module

    asm = load_config({"game": {"name": "leduc"}, "preset": "cfr_plus", "solver": {"eval_every": 5}})
    monkeypatch.setattr(type(asm.game), "store_walk_is_exact", False)
    calls = _counted(asm.game)
    full = []
    inner = solver_module.exploitability
    monkeypatch.setattr(solver_module, "exploitability", lambda *a, **k: full.append(1) or inner(*a, **k))
    res = run_solve(asm, target=0.05, iterations=400)
    assert res.reached_target
    assert len(calls) == len(res.metrics) and len(full) == 1  # the rows' fast walks, then one exact evaluation
