"""Where an ACPC match state is in a tree game: the keys of the tree engine, OpenSpiel's kuhn and universal_poker."""

from __future__ import annotations



from ..errors import SolverkitError
from .acpc_protocol import MatchState, ProtocolMismatch
from .cards import card_name
from .nplayer import TableDef, tree_table


class AcpcKeys:
    """Information sets of ``kuhn_tree`` / ``leduc_tree`` and of ``acpc`` games of 3+ players:
    ``<hole>|<board>|<betting>`` in ACPC card names (the hole cards and each round's board sorted)
    and f/c/r, so a match state is its own key and actions are ACPC letters."""

    def key(self, state: MatchState, gd: TableDef) -> str:
        S, R = gd.num_suits, gd.num_ranks
        hole = "".join(card_name(c, S, R) for c in sorted(state.hole[state.position]))
        board = "".join(card_name(c, S, R) for b in state.board for c in sorted(b))
        return f"{hole}|{board}|{state.betting}"

    def letters(self, key: str, labels) -> list[str]:
        return list(labels)


class OpenSpielKuhnKeys:
    """Information sets of OpenSpiel's ``kuhn_poker(players=N)``: the player's card id (the ACPC
    card id: one suit, ranks from the lowest) and the history of passes ``p`` and bets ``b``; a
    check or a fold is a pass, a bet or a call a bet. Action 0 passes, 1 bets."""

    def key(self, state: MatchState, gd: TableDef) -> str:
        hist, bet = [], False
        for ch in state.betting:
            if ch == "r":
                hist.append("b")
                bet = True
            elif ch == "c":
                hist.append("b" if bet else "p")
            elif ch == "f":
                hist.append("p")
        return f"{state.hole[state.position][0]}{''.join(hist)}"

    def letters(self, key: str, labels) -> list[str]:
        bet = "b" in key.lstrip("0123456789")
        return [("c" if bet else "r") if str(a) == "1" else ("f" if bet else "c") for a in labels]


class UniversalPokerKeys:
    """Information sets of OpenSpiel's ``universal_poker`` (limit betting): the match state
    replayed in OpenSpiel's game (which runs the ACPC server's game.c): the agent's own hole
    cards dealt to its position, cards no one shows to the others, the betting (fold 0, call 1,
    raise 2) and each round's board; its information-state string is the key. Card ids are the
    same in both decks (OpenSpiel names a small deck from the bottom, the ACPC dealer from the top)."""

    def __init__(self, os_game):
        self.os_game = os_game

    def key(self, state: MatchState, gd: TableDef) -> str:
        P, k = gd.num_players, gd.num_hole_cards
        own = list(state.hole[state.position])
        board = [c for b in state.board for c in b]
        spare = iter(c for c in range(gd.deck_size) if c not in own and c not in board)
        holes = [own if p == state.position else [next(spare) for _ in range(k)] for p in range(P)]
        cards = iter([c for h in holes for c in h])
        boards = iter(board)
        s = self.os_game.new_initial_state()
        rounds = state.betting.split("/")
        for r, text in enumerate(rounds):
            while s.is_chance_node():
                s.apply_action(next(cards) if r == 0 else next(boards))
            for ch in text:
                s.apply_action("fcr".index(ch))
        while s.is_chance_node():  # a new round's board, before anyone acts
            s.apply_action(next(boards))
        if s.is_terminal() or s.current_player() != state.position:
            raise ProtocolMismatch(f"hand {state.hand}: {state.betting!r} does not leave position {state.position} to "
                                   f"act in OpenSpiel's {self.os_game}")
        return s.information_state_string(state.position)

    def letters(self, key: str, labels) -> list[str]:
        return ["fcr"[int(a)] for a in labels]


def _openspiel_kind(game) -> str:
    """The OpenSpiel game name of an ``openspiel`` game ("" for another game)."""
    if getattr(game, "name", "") != "openspiel":
        return ""
    return str(getattr(game, "spec", "")).replace(" ", "").split("(")[0]


def key_map(game):
    """How match states of `game`'s table are found among its information sets; SolverkitError
    for a game that has no ACPC table."""
    if getattr(game, "name", "") in ("kuhn_tree", "leduc_tree") or getattr(game, "acpc_table", None) is not None:
        return AcpcKeys()
    kind = _openspiel_kind(game)
    if kind == "kuhn_poker":
        return OpenSpielKuhnKeys()
    if kind == "universal_poker" and str(game.os_game.get_parameters().get("betting")) == "limit":
        return UniversalPokerKeys(game.os_game)
    raise SolverkitError(f"game {getattr(game, 'name', game)!r} {getattr(game, 'spec', '')!s:.60} has no ACPC table: "
                         "N-player matches play kuhn_tree, leduc_tree (players = N), acpc limit files of 3+ players "
                         "and openspiel's "
                         "kuhn_poker(players=N) and universal_poker(betting=limit, ...)")


def game_table(game) -> TableDef:
    """The ACPC limit game definition a tree game's strategies play at the dealer."""
    if getattr(game, "name", "") in ("kuhn_tree", "leduc_tree"):
        return tree_table(game)
    if getattr(game, "acpc_table", None) is not None:  # an acpc file of 3+ players on the tree engine
        return game.acpc_table
    key_map(game)  # refuses other games by name
    P = game.num_players
    if _openspiel_kind(game) == "universal_poker":
        from .nplayer import parse_table

        params = game.os_game.get_parameters()
        fields = ("numPlayers", "numRounds", "blind", "raiseSize", "firstPlayer", "maxRaises", "numSuits",
                  "numRanks", "numHoleCards", "numBoardCards")
        text = "\n".join(["GAMEDEF", "limit", *(f"{f} = {params[f]}" for f in fields if str(params.get(f, ""))),
                          "END GAMEDEF"])
        return parse_table(text, game.spec)
    return TableDef(P, 1, (1,) * P, (1,), (0,), (1,), num_suits=1, num_ranks=P + 1, num_hole_cards=1,
                    num_board_cards=(0,), source=f"kuhn_poker(players={P})").validate()
