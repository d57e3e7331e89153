"""`solverkit export RUN --format tree`: every decision node of a spot's streets, each what
`strategy --node --json` shows, linked by the lines its actions lead to."""

import json

from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.poker.tree_export import estimate

from .spot_runs import solve_spot

TURN = dict(board="Ks9d7h2c", pot=20, stack=40, oop_range="AA,KQs,T8s", ip_range="QQ,T8s:0.5,A9s",
            sizes={"turn": {"bet": "50%, a"}, "river": {"bet": "75%", "raise": "a"}})


def _export(run, *args):
    res = CliRunner().invoke(cli, ["export", str(run), "--format", "tree", *args])
    return res


def _is_card(token: str) -> bool:
    return len(token) == 2 and token[0] in "23456789TJQKA" and token[1] in "cdhs"


def test_a_turn_spot_exports_both_streets_linked_and_as_strategy_node_shows_them(tmp_path):
    run, _, game, strategy = solve_spot(tmp_path, TURN, 5)
    res = _export(run, "--streets", "2")
    assert res.exit_code == 0, res.output
    tree = json.loads(res.output)
    nodes = {n["line"]: n for n in tree["nodes"]}
    assert len(nodes) == len(tree["nodes"]) == estimate(game, 2)
    assert tree["board"] == "Ks9d7h2c" and tree["pot"] == 20 and tree["streets"] == 2
    ends = set()
    for line, node in nodes.items():
        assert list(node["children"]) == node["actions"]
        for label, child in node["children"].items():
            here = ",".join(filter(None, [line, label]))
            if isinstance(child, dict):  # a street end: one line per card that can come
                assert len(child) == 48 and set(child.values()) <= set(nodes)
                assert all(v == f"{here},{card}" and card not in "Ks9d7h2c" for card, v in child.items())
            elif child in ("fold", "showdown"):
                ends.add(child)
            else:
                assert child == here and child in nodes
    assert ends == {"fold", "showdown"}
    assert nodes["allin 40"]["children"]["call"] == "showdown"  # called all in: the river runs out, no decision
    for line in ["", "bet 10", "bet 10,call,Ah", "bet 10,call,Ah,check,allin 30", "check,check,Qs"]:
        shown = CliRunner().invoke(cli, ["strategy", str(run), "--node", line, "--json"])
        assert shown.exit_code == 0, shown.output
        assert {k: v for k, v in nodes[line].items() if k not in ("line", "children")} == json.loads(shown.output)
    one = json.loads(_export(run).output)  # the first street only
    assert [n["line"] for n in one["nodes"]] == [line for line in nodes if not any(map(_is_card, line.split(",")))]
    assert "street end" in {v for n in one["nodes"] for v in n["children"].values() if isinstance(v, str)}


def test_bad_requests_name_the_value(tmp_path):
    run, *_ = solve_spot(tmp_path, TURN, 1)
    res = _export(run, "--streets", "3")
    assert res.exit_code != 0 and "--streets 3 is invalid: this spot plays 2 street(s) (1 to 2)" in res.output
    res = CliRunner().invoke(cli, ["export", str(run), "--streets", "2"])
    assert res.exit_code != 0 and "--streets 2 applies to --format tree, not --format json" in res.output
    res = _export(run, "--streets", "0")
    assert res.exit_code == 2 and "--streets" in res.output
    cfg = tmp_path / "kuhn.toml"
    cfg.write_text('preset = "cfr_plus"\ngame = "kuhn"\n')
    out = tmp_path / "kuhn"
    assert CliRunner().invoke(cli, ["solve", str(cfg), "--iterations", "2", "--out", str(out), "--quiet"]).exit_code == 0
    res = _export(out)
    assert res.exit_code != 0 and "game 'kuhn' has no node views (holdem_spot has); use --format json" in res.output
