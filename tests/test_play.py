"""Playing solved strategies: the ACPC protocol lines, the dealer's rules against OpenSpiel's
ACPC implementation, exact match values against sampled duplicate matches, the agent's errors."""

import contextlib
import re
import socket
import threading

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solverkit.api import load_game
from solverkit.cli import cli
from solverkit.poker.acpc_protocol import ProtocolMismatch, parse_matchstate
from solverkit.poker.betting import DECISION, FOLD, SHOWDOWN
from solverkit.poker.dealer import Deal, MatchError, Rules, play_agent
from solverkit.poker.match import exact_value, mbb, run_match
from solverkit.poker.players import Player, baseline_strategy

from .conftest import fuzz_examples

pyspiel = pytest.importorskip("pyspiel")

GAMES = {
    "leduc": ({}, {"numRounds": 2, "blind": "1 1", "raiseSize": "2 4", "firstPlayer": "1 1", "maxRaises": "2 2",
                   "numSuits": 2, "numRanks": 3, "numHoleCards": 1, "numBoardCards": "0 1"}),
    "hulhe": ({"ranks": 5, "suits": 2, "rounds": 3},
              {"numRounds": 3, "blind": "10 5", "raiseSize": "10 10 20", "firstPlayer": "2 1 1", "maxRaises": "3 4 4",
               "numSuits": 2, "numRanks": 5, "numHoleCards": 2, "numBoardCards": "0 3 1"}),
}


@pytest.fixture(scope="module")
def leduc():
    return load_game("leduc")


def _acpc_state(state):
    """OpenSpiel's ACPC state line (STATE:hand:betting:cards)."""
    line = next(x for x in str(state).splitlines() if x.startswith("ACPC State: "))
    return line[len("ACPC State: "):]


def _top_of_deck(cards, gd):
    """OpenSpiel's universal_poker names a small deck's cards from the bottom (Leduc: 2c..4d);
    the ACPC dealer deals the top of the deck (Leduc: Qh..As): the same card ids, renamed."""
    ranks, suits = "23456789TJQKA", "cdhs"
    dr, ds = len(ranks) - gd.num_ranks, len(suits) - gd.num_suits
    return re.sub("([2-9TJQKA])([cdhs])", lambda m: ranks[ranks.index(m[1]) + dr] + suits[suits.index(m[2]) + ds],
                  cards)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_dealer_rules_match_openspiel_acpc_code(name):
    """Random hands played in OpenSpiel's universal_poker (the ACPC server's own game code) and
    by solverkit's Rules: the same betting strings, card lines and payoffs."""
    params, spiel_params = GAMES[name]
    game = load_game(name, **params)
    rules = Rules(game)
    spiel = pyspiel.load_game("universal_poker", {"betting": "limit", "numPlayers": 2, **spiel_params})
    rng = np.random.default_rng(0)
    for _ in range(60):
        s = spiel.new_initial_state()
        node = 0
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = [a for a, _ in s.chance_outcomes()]
                s.apply_action(int(rng.choice(outcomes)))
                continue
            _, _, betting, cards = _acpc_state(s).split(":")
            assert rules.bet.history[node] == betting
            assert int(rules.bet.kind[node]) == DECISION and int(rules.bet.player[node]) == s.current_player()
            action = int(rng.choice(s.legal_actions()))
            letter = "fcr"[action]
            s.apply_action(action)
            node, legal = rules.step(node, letter)
            assert legal
        _, hand, betting, cards = _acpc_state(s).split(":")
        cards = _top_of_deck(cards, game.gd)
        assert rules.bet.history[node] == betting
        assert int(rules.bet.kind[node]) in (FOLD, SHOWDOWN)
        state = parse_matchstate(f"MATCHSTATE:0:{hand}:{betting}:{cards}", game.gd)
        assert state.line(game.gd) == f"MATCHSTATE:0:{hand}:{betting}:{cards}"
        # the full board of the deal: OpenSpiel lists only the rounds reached, so complete it
        deal = Deal(state.hole, state.board + tuple(() for _ in range(game.gd.num_rounds - 1 - len(state.board))))
        assert rules.payoffs(node, deal) == tuple(int(x) for x in s.returns())  # folds and showdowns


@pytest.mark.parametrize("line, expected", [
    ("HELLO", "expected 'MATCHSTATE"),
    ("MATCHSTATE:2:0::Qh|", "position '2'"),
    ("MATCHSTATE:0:x::Qh|", "hand number 'x'"),
    ("MATCHSTATE:0:1:r200:Qh|", "unknown actions '02'"),
    ("MATCHSTATE:0:1::Qh", "separated by '|'"),
    ("MATCHSTATE:0:1::Jh|", "bad card 'Jh': not a card of the game's deck of 6 cards: ranks QKA, suits hs"),
    ("MATCHSTATE:0:1::|Qh", "no hole cards for this agent's position 0"),
    ("MATCHSTATE:0:1:cc/:Qh|/Qh", "shows a card twice"),
    ("MATCHSTATE:0:1:cc/:Qh|", "round 1 but the cards show round 0"),
    ("MATCHSTATE:0:1:cc/:Qh|/KhKs", "shows 2 board cards"),
])
def test_bad_match_states_are_named(leduc, line, expected):
    with pytest.raises(ProtocolMismatch, match=expected.replace("(", r"\(").replace("|", r"\|")):
        parse_matchstate(line, leduc.gd)


def test_baselines_and_a_state_the_strategy_does_not_cover(leduc):
    raise_ = Player(leduc, baseline_strategy(leduc, "raise"), "raise")
    call = Player(leduc, baseline_strategy(leduc, "call"), "call")
    with pytest.raises(ProtocolMismatch, match="'crr/'"):  # 'crr' needs an answer before the round ends
        raise_.to_act(parse_matchstate("MATCHSTATE:0:7:crr/:As|/Kh", leduc.gd))
    assert raise_.to_act(parse_matchstate("MATCHSTATE:0:7:crrc/:As|/Kh", leduc.gd)) is True
    st = parse_matchstate("MATCHSTATE:1:7:crrc/r:|As/Kh", leduc.gd)
    probs, labels = raise_.probabilities(st)
    assert labels == ["f", "c", "r"] and list(probs) == [0, 0, 1]
    assert list(call.probabilities(st)[0]) == [0, 1, 0]
    st = parse_matchstate("MATCHSTATE:1:7:crrc/rr:|As/Kh", leduc.gd)  # capped: raise becomes call
    assert raise_.probabilities(st) == (pytest.approx([0, 1]), ["f", "c"])
    with pytest.raises(ProtocolMismatch, match="not a betting sequence of game 'leduc'"):
        raise_.to_act(parse_matchstate("MATCHSTATE:1:7:rrr:|As", leduc.gd))
    # symmetric baselines break even exactly
    assert exact_value(leduc, raise_, raise_) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.slow
def test_sampled_duplicate_match_agrees_with_the_exact_value(leduc):
    a = Player(leduc, baseline_strategy(leduc, "raise"), "raise")
    b = Player(leduc, baseline_strategy(leduc, "random"), "random")
    report = run_match(leduc, a, b, hands=1200, seed=4)
    assert report.hands == 1200 and report.illegal == (0, 0)
    assert abs(report.sampled_mbb - report.exact_mbb) < report.half_width_mbb
    # the same seed deals the same cards and samples the same actions
    again = run_match(leduc, a, b, hands=1200, seed=4, exact=False)
    assert again.sampled_mbb == report.sampled_mbb
    assert exact_value(leduc, b, a) == pytest.approx(-exact_value(leduc, a, b))
    assert mbb(leduc) == 0.002  # leduc's first bet (2 chips) is the unit


def _raw_dealer(chunks, linger=2.0):
    """A TCP server that reads the version line, sends each (bytes, pause before) chunk, then
    reads the agent's answers for up to `linger` seconds before it hangs up."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def serve():
        conn, _ = srv.accept()
        conn.makefile("rb").readline()
        try:
            for data, pause in chunks:
                threading.Event().wait(pause)
                conn.sendall(data)
            conn.settimeout(linger)
            while conn.recv(4096):  # take the agent's answers before hanging up
                pass
        except OSError:
            pass
        conn.close()
        srv.close()

    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1]


def _fake_dealer(lines, hold=0.0):
    """A TCP server that reads the version line, sends `lines`, then waits `hold` seconds."""
    return _raw_dealer([(line.encode() + b"\r\n", 0.0) for line in lines] + [(b"", hold)], linger=1.0)


def test_agent_errors_never_hang(leduc):
    player = Player(leduc, baseline_strategy(leduc, "call"), "call")
    port = _fake_dealer(["# a comment", "; another", "MATCHSTATE:0:0::As|"])
    assert play_agent(player, "127.0.0.1", port, timeout=5) == {"hands": 1, "actions": 1}
    port = _fake_dealer(["WELCOME TO POKER"])
    with pytest.raises(ProtocolMismatch, match="ACPC protocol 2.0.0"):
        play_agent(player, "127.0.0.1", port, timeout=5)
    port = _fake_dealer(["MATCHSTATE:0:0:r200:As|"])
    with pytest.raises(ProtocolMismatch, match="no-limit raise size is not supported"):
        play_agent(player, "127.0.0.1", port, timeout=5)
    port = _fake_dealer([], hold=3.0)
    with pytest.raises(MatchError, match="sent no whole line within 0.5 s"):
        play_agent(player, "127.0.0.1", port, timeout=0.5)


def test_match_command(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["match", "raise", "call", "--game", "kuhn"])
    assert res.exit_code == 0, res.output
    assert "A's expected winnings (exact, both seats):" in res.output and "mbb/g" in res.output
    res = runner.invoke(cli, ["match", "raise", "call"])
    assert res.exit_code != 0 and "name the game with --game" in res.output
    res = runner.invoke(cli, ["match", str(tmp_path), "call"])
    assert res.exit_code != 0 and "neither a solve output directory" in res.output
    res = runner.invoke(cli, ["match", "raise", "call", "--game", "kuhn", "--no-exact"])  # measured nothing, exit 0
    assert res.exit_code == 2 and "--no-exact" in res.output and "nothing left to measure" in res.output, res.output
    res = runner.invoke(cli, ["match", str(tmp_path), "call", "--set", "isomorphism=false"])  # was ignored
    assert res.exit_code == 2 and "'isomorphism=false' needs --game NAME" in res.output



def test_poker_commands_refuse_a_tree_engine_run_in_one_line(tmp_path):
    """match, play and plot preflop on a run of a tree-engine game (kuhn_tree has a .tree too:
    no boards, no betting tree) were an AttributeError traceback (issue 26 round 2)."""
    runner = CliRunner()
    run = tmp_path / "run"
    res = runner.invoke(cli, ["solve", "--game", "kuhn_tree", "--preset", "cfr", "--iterations", "2", "--quiet",
                              "--out", str(run)])
    assert res.exit_code == 0, res.output
    for args in (["match", str(run), str(run)], ["match", str(run), "call"], ["match", "call", str(run)],
                 ["match", "raise", "call", "--game", "kuhn_tree"], ["play", str(run), "--connect", "localhost:1"],
                 ["plot", "preflop", str(run)]):
        res = runner.invoke(cli, args)
        assert res.exit_code != 0 and res.exception is None or isinstance(res.exception, SystemExit), (args, res)
        assert "game 'kuhn_tree' is not a" in res.output and "Traceback" not in res.output, (args, res.output)

def _acpc_dealer_deck(gd):
    """The cards the ACPC dealer's game.c deals: ranks MAX_RANKS - numRanks .. 12 and suits
    MAX_SUITS - numSuits .. 3 of '23456789TJQKA' and 'cdhs' (the top of the deck)."""
    return {r + s for r in "23456789TJQKA"[13 - gd.num_ranks:] for s in "cdhs"[4 - gd.num_suits:]}


@pytest.mark.parametrize("name, params, some", [
    ("kuhn", {}, {"Qs", "Ks", "As"}),
    ("leduc", {}, {"Qh", "Qs", "Kh", "Ks", "Ah", "As"}),
    ("hulhe", {"ranks": 5, "suits": 2, "rounds": 3}, {"Th", "As"}),
    ("rhode_island", {}, {"2c", "As"}),
])
def test_cards_are_named_as_the_acpc_dealer_deals_them(name, params, some):
    """Every card id of the game, named in a match state and in strategy keys, is one the ACPC
    dealer deals (the top of the deck), parses back to the same id, and the rest are refused."""
    from solverkit.poker.cards import card_name, parse_card

    gd = load_game(name, **params).gd
    names = [card_name(c, gd.num_suits, gd.num_ranks) for c in range(gd.deck_size)]
    assert set(names) == _acpc_dealer_deck(gd) and some <= set(names) and len(set(names)) == gd.deck_size
    assert [parse_card(n, gd.num_suits, gd.num_ranks) for n in names] == list(range(gd.deck_size))
    outside = sorted({r + s for r in "23456789TJQKA" for s in "cdhs"} - set(names))
    for bad in outside[:5]:
        with pytest.raises(ValueError, match=f"bad card '{bad}': not a card of the game's deck of {gd.deck_size} "
                                             "cards"):
            parse_card(bad, gd.num_suits, gd.num_ranks)
    with pytest.raises(ValueError, match=f"card id {gd.deck_size} is not in the game's deck"):
        card_name(gd.deck_size, gd.num_suits, gd.num_ranks)


def test_dealer_lines_and_strategy_keys_use_the_acpc_names(leduc):
    """solverkit's dealer writes, and the agent and the strategy keys read, the ACPC dealer's
    names: a Leduc line with Ks and Ah is played, one with 2c is refused naming the deck."""
    rules = Rules(leduc)
    deck = _acpc_dealer_deck(leduc.gd)
    for index in range(20):
        deal = rules.deal(3, index)
        line = rules.state(index, int(np.flatnonzero(rules.bet.kind == SHOWDOWN)[0]), deal, 0, True).line(leduc.gd)
        cards = line.rsplit(":", 1)[1].replace("|", "").replace("/", "")
        assert {cards[i:i + 2] for i in range(0, len(cards), 2)} <= deck
        assert parse_matchstate(line, leduc.gd).line(leduc.gd) == line
    keys = leduc.infoset_keys(0)
    assert {k.split("|")[0] for k in keys} == deck and "Ks|Ah|cc/" in keys
    player = Player(leduc, baseline_strategy(leduc, "call"), "call")
    port = _fake_dealer(["MATCHSTATE:0:0::Ks|", "MATCHSTATE:0:0:cc/:Ks|/Ah"])
    assert play_agent(player, "127.0.0.1", port, timeout=5) == {"hands": 1, "actions": 2}
    port = _fake_dealer(["MATCHSTATE:0:0::2c|"])
    with pytest.raises(ProtocolMismatch, match="bad card '2c': not a card of the game's deck of 6 cards: "
                                               "ranks QKA, suits hs"):
        play_agent(player, "127.0.0.1", port, timeout=5)


def test_agent_reads_whole_lines_of_any_split(leduc):
    """Lines arrive split anywhere, '\\r\\n'-terminated, a long comment (over the old 4096-byte
    read) before a state: each is read whole and the state is played."""
    player = Player(leduc, baseline_strategy(leduc, "call"), "call")
    state = b"MATCHSTATE:0:0::Ks|\r\n"
    chunks = [(b"#" + b"x" * 6000 + b"\r\n", 0.0), (state[:7], 0.0), (state[7:15], 0.1), (state[15:], 0.1),
              (b"MATCHSTATE:0:1::Ah|\r\nMATCHSTATE:0:1:c:Ah|", 0.0), (b"\r\n", 0.1)]
    assert play_agent(player, "127.0.0.1", _raw_dealer(chunks), timeout=5) == {"hands": 2, "actions": 2}


def test_a_trickle_cannot_stretch_the_timeout_nor_a_long_line_the_memory(leduc):
    """--timeout is a deadline per line: a dealer sending one byte every 0.1 s fails after the
    timeout, not after the line; a line past MAX_LINE bytes is refused naming its size."""
    import time

    from solverkit.poker.dealer import MAX_LINE

    player = Player(leduc, baseline_strategy(leduc, "call"), "call")
    trickle = [(bytes([b]), 0.1) for b in b"MATCHSTATE:0:0::Ks|\r\n" * 3]
    start = time.monotonic()
    with pytest.raises(MatchError, match=r"sent no whole line within 0.6 s \(waiting for its next match state; "
                                         r"it sent only b'MATC"):
        play_agent(player, "127.0.0.1", _raw_dealer(trickle), timeout=0.6)
    assert time.monotonic() - start < 2.0  # the trickle lasts 6.3 s
    huge = [(b"MATCHSTATE:0:0::Ks|" + b"c" * (MAX_LINE + 10) + b"\r\n", 0.0)]
    with pytest.raises(MatchError, match=f"sent a line of more than {MAX_LINE} bytes starting b'MATCHSTATE:0:0::Ks"):
        play_agent(player, "127.0.0.1", _raw_dealer(huge), timeout=5)
    endless = [(b"#" + b"x" * 65536, 0.0)] * 4  # no line end: refused once past the limit, not buffered
    with pytest.raises(MatchError, match=f"sent a line of more than {MAX_LINE} bytes starting b'#xxx"):
        play_agent(player, "127.0.0.1", _raw_dealer(endless), timeout=5)
    cut = [(b"MATCHSTATE:0:0::K", 0.0)]
    with pytest.raises(MatchError, match="closed the connection in the middle of a line b'MATCHSTATE:0:0::K'"):
        play_agent(player, "127.0.0.1", _raw_dealer(cut), timeout=5)


def test_the_dealer_times_a_trickling_seat_per_line(leduc):
    """A seat that sends its version line one byte every 0.1 s is dropped after the action
    timeout, naming the seat."""
    import time

    from solverkit.poker.dealer import Dealer

    dealer = Dealer(leduc, 2, action_timeout=0.5, connect_timeout=5)

    def seat(port, trickle):
        with socket.create_connection(("127.0.0.1", port)) as s, contextlib.suppress(OSError):  # the dealer hangs up
            for b in b"VERSION:2.0.0\r\n":
                s.sendall(bytes([b]))
                if trickle:
                    time.sleep(0.1)
            time.sleep(2.0)

    for port, trickle in zip(dealer.ports, (True, False)):
        threading.Thread(target=seat, args=(port, trickle), daemon=True).start()
    start = time.monotonic()
    with pytest.raises(MatchError, match=r"seat 0 sent no whole line within 0.5 s \(waiting for its version line; "
                                         r"it sent only b'VERS"):
        dealer.run()
    assert time.monotonic() - start < 1.5


@pytest.mark.parametrize("args, message", [
    (["--connect", "localhost:70000"], "--connect 'localhost:70000': port '70000' is invalid: expected a number "
                                       "from 1 to 65535"),
    (["--connect", "localhost:0"], "port '0' is invalid: expected a number from 1 to 65535"),
    (["--connect", "localhost:-1"], "port '-1' is invalid"),
    (["--connect", "localhost"], "--connect 'localhost' is invalid: expected HOST:PORT"),
    (["--connect", "::1:5555"], "IPv6 addresses go in brackets"),
])
def test_play_refuses_bad_addresses_before_loading(tmp_path, args, message):
    res = CliRunner().invoke(cli, ["play", str(tmp_path), *args])
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output


def test_dealer_and_agent_ports_are_checked(leduc):
    from solverkit.errors import SolverkitError
    from solverkit.poker.dealer import Dealer

    player = Player(leduc, baseline_strategy(leduc, "call"), "call")
    with pytest.raises(SolverkitError, match="port '70000' is invalid: expected a number from 1 to 65535"):
        play_agent(player, "127.0.0.1", 70000, timeout=1)
    with pytest.raises(MatchError, match="cannot connect to a dealer at no-such-host.invalid:5"):
        play_agent(player, "no-such-host.invalid", 5, timeout=1)
    with pytest.raises(SolverkitError, match="the dealer's seat 1: port '65536' is invalid: expected a number from 0"):
        Dealer(leduc, 2, ports=(0, 65536))
    with pytest.raises(MatchError, match="the dealer cannot listen on no-such-host.invalid:0"):
        Dealer(leduc, 2, host="no-such-host.invalid")
    for bad, message in ((3, r"hands = 3 is invalid: expected an integer >= 1 \(an even number"), ("8", "hands = .8.")):
        with pytest.raises(SolverkitError, match=message):
            Dealer(leduc, bad)
    with pytest.raises(SolverkitError, match="seed = -1 is invalid: expected an integer >= 0"):
        Dealer(leduc, 2, seed=-1)
    for bad in (0, -1.0, float("nan"), float("inf"), "x"):  # sockets: non-blocking, ValueError, OverflowError
        with pytest.raises(SolverkitError, match="timeout = .* is invalid: expected seconds > 0"):
            play_agent(player, "127.0.0.1", 5, timeout=bad)
        with pytest.raises(SolverkitError, match="action_timeout = .* is invalid: expected seconds > 0"):
            Dealer(leduc, 2, action_timeout=bad)
    res = CliRunner().invoke(cli, ["dealer", "leduc", "--ports", "1,99999"])
    assert res.exit_code == 2 and "--ports '1,99999': port '99999' is invalid" in res.output
    res = CliRunner().invoke(cli, ["dealer", "leduc", "--ports", "1"])
    assert res.exit_code == 2 and "expected two ports P1,P2" in res.output


def test_dealer_and_agent_hosts_are_checked(leduc):
    from solverkit.errors import SolverkitError
    from solverkit.poker.dealer import Dealer

    for bad in ("", "a b", "a." * 40_000):  # '' bound every interface; a long one made an error line of its length
        with pytest.raises(SolverkitError, match="host .* is not a host name or address") as err:
            Dealer(leduc, 2, host=bad)
        assert len(str(err.value)) < 300
        res = CliRunner().invoke(cli, ["play", "no-such-run", "--connect", f"{bad}:5"])
        assert res.exit_code == 2 and len(res.output) < 300 and "Traceback" not in res.output
    try:
        dealer = Dealer(leduc, 2, host="[::1]", connect_timeout=0.5)  # as --connect writes an IPv6 address
    except MatchError as exc:
        pytest.skip(f"no IPv6 loopback here: {exc}")
    assert dealer._listen[0].getsockname()[0] == "::1"
    for s in dealer._listen:
        s.close()


# --- fuzzing: random match-state lines and random dealer bytes -----------------------------------

EXAMPLES = fuzz_examples(60)
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES < 100,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
CARD = st.sampled_from(sorted({r + s for r in "23456789TJQKA" for s in "cdhs"}))
PART = st.one_of(st.text("0123456789", max_size=3), st.text("fcr/", max_size=8), st.text(max_size=4),
                 st.lists(CARD, max_size=3).map("".join))


@FUZZ
@given(pos=PART, hand=PART, betting=st.one_of(st.text("fcr/", max_size=9), PART), holes=st.lists(PART, max_size=3),
       boards=st.lists(PART, max_size=3), extra=st.lists(PART, max_size=2))
def test_any_match_state_parses_and_plays_or_is_refused_naming_it(leduc, pos, hand, betting, holes, boards, extra):
    """A line built from protocol-like pieces is a state that round-trips and that a player
    answers with probabilities summing to 1, or a ProtocolMismatch: nothing else escapes."""
    line = ":".join(["MATCHSTATE", pos, hand, betting, "|".join(holes) + "".join("/" + b for b in boards), *extra])
    try:
        state = parse_matchstate(line, leduc.gd)
    except ProtocolMismatch as exc:
        assert "\n" not in str(exc)
        return
    assert parse_matchstate(state.line(leduc.gd), leduc.gd) == state
    player = Player(leduc, baseline_strategy(leduc, "random"), "random")
    try:
        if player.to_act(state):
            probs, labels = player.probabilities(state)
            assert len(probs) == len(labels) and abs(float(probs.sum()) - 1.0) < 1e-12
    except ProtocolMismatch as exc:
        assert "\n" not in str(exc)


@FUZZ
@given(chunks=st.lists(st.one_of(st.binary(max_size=40), st.sampled_from([
    b"MATCHSTATE:0:0::Ks|\r\n", b"MATCHSTATE:1:3:r:|Ah\r\n", b"# hi\r\n", b"\r\n", b"\n", b"MATCHSTATE:0:0:c",
    b"MATCHSTATE:0:0::2c|\r\n", b"\xff\xfe\r\n"])), max_size=6))
def test_a_dealer_sending_anything_ends_the_match_or_a_solverkit_error(leduc, chunks):
    """Whatever bytes a dealer sends, the agent ends cleanly or raises a one-line SolverkitError
    (never another exception, never a hang past its timeout)."""
    from solverkit.errors import SolverkitError

    player = Player(leduc, baseline_strategy(leduc, "call"), "call")
    try:
        stats = play_agent(player, "127.0.0.1", _raw_dealer([(c, 0.0) for c in chunks], linger=0.05), timeout=2)
    except SolverkitError as exc:
        assert "\n" not in str(exc)
        return
    assert stats["hands"] <= len(chunks) and stats["actions"] <= stats["hands"] * 4


@settings(max_examples=min(EXAMPLES, 25), deadline=None, derandomize=EXAMPLES < 100,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(sent=st.lists(st.one_of(st.binary(max_size=30), st.sampled_from([
    b"VERSION:2.0.0\r\n", b"VERSION:2.0.0\n", b"MATCHSTATE:0:0::Ks|:c\r\n", b"MATCHSTATE:1:0::|Ks:r\r\n", b"\r\n"])),
    max_size=5))
@pytest.mark.slow  # (CI time)
def test_a_seat_sending_anything_plays_on_or_ends_the_match_with_a_match_error(leduc, sent):
    """Whatever seat 0 sends (seat 1 is a real agent), the dealer finishes its hands or raises a
    one-line MatchError naming seat 0, within its timeout."""
    from solverkit.poker.dealer import Dealer

    dealer = Dealer(leduc, 2, action_timeout=0.5, connect_timeout=5)
    agent = Player(leduc, baseline_strategy(leduc, "call"), "call")

    def seat0():
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", dealer.ports[0])) as s:
            for data in sent:
                s.sendall(data)
            s.settimeout(1.0)
            while s.recv(4096):
                pass

    def seat1():
        with contextlib.suppress(Exception):
            play_agent(agent, "127.0.0.1", dealer.ports[1], timeout=5)

    threads = [threading.Thread(target=f, daemon=True) for f in (seat0, seat1)]
    for t in threads:
        t.start()
    try:
        result = dealer.run()
    except MatchError as exc:
        assert "\n" not in str(exc) and "seat 0" in str(exc)
    else:  # only a seat that answered every state of its hands can finish the match
        assert len(result.seat_chips) == 2
    for t in threads:
        t.join(5)
