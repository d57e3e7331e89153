"""ACPC games of 3 to 6 players as tree-engine games: ``[game] name = "acpc"`` with a file of
``numPlayers`` 3+ (limit, or no-limit under ``abstraction = "fcpa"``), and the engine choice
that sends ``kuhn`` / ``leduc`` with ``players = N`` to the tree engine's N-player rules.

Why the tree engine: the poker engine's public-tree vectors rest on a two-player matrix form
(each hand against the opponent's range); for N players a terminal couples N ranges, and the
small games people compare algorithms on (3-6 player Kuhn and Leduc, small ACPC files) solve
faster per information set on the tree engine (58-67x OpenSpiel C++ on 3-player Leduc,
bench/results/nplayer_vs_openspiel.md). Games whose full tree does not fit (three-player
hold'em) are refused before anything is built, pointing to the blueprint engine.

The tree deals one card per chance node in the ACPC order (each player's hole cards, player 0
first, then each round's board), as OpenSpiel's universal_poker does, so that an exported policy
walks OpenSpiel's tree node for node. Information sets are ``<hole>|<board>|<betting>`` with the
hole cards and each round's board cards sorted (the order a round's cards came in tells nothing),
the key ACPC match states map to at an N-seat table (solverkit.poker.table.AcpcKeys).
"""

from __future__ import annotations

import math

from solverkit.blueprint.betting import DECISION, BettingTree, limit_tree
from solverkit.blueprint.nolimit import ABSTRACTIONS, NoLimitTable, nolimit_tree, parse_nolimit_table
from solverkit.core.params import Param
from solverkit.efg import TreeGame
from solverkit.errors import ConfigError
from solverkit.poker import nolimit_game
from solverkit.poker.cards import card_name
from solverkit.poker.evaluator import acpc_strengths
from solverkit.poker.game import PokerGame
from solverkit.poker.gamedef import bundled_names, gamedef_text, read_gamedef
from solverkit.poker.nplayer import parse_table

#: the poker engine's parameters that mean nothing on the tree engine (refused when set)
POKER_ONLY = {k: PokerGame.engine_params[k].default for k in ("split_round", "chunks", "trunk_only")}
#: refused when set too (true would run one thread in silence where the user asked for more), but
#: passed on at its default as before: saved runs' game identity holds it
REFUSED = {**POKER_ONLY, "parallel_deals": PokerGame.engine_params["parallel_deals"].default}


def tree_params(config: dict, game: str, players: int) -> dict:
    """The tree engine's parameters of a poker-engine [game] table of `players` players: the
    poker engine's own refused when set away from their defaults (isomorphism is lossless and
    dropped), the rest passed on."""
    for key, default in REFUSED.items():
        if config.get(key, default) not in (default, None):
            raise ConfigError(f"[game] {key} = {config[key]!r} is invalid for {game} with {players} players: games of "
                              f"3 or more players run on the tree engine, which has no {key} (it cuts trees with "
                              f"[game] split_actions); remove {key}")
    return {k: v for k, v in config.items() if k not in POKER_ONLY and k != "isomorphism"}


def players_of(gamedef) -> int:
    """numPlayers of an ACPC file or bundled name (2 when it cannot be read: the poker engine's
    own reading then names what is wrong)."""
    try:
        text, source = gamedef_text(gamedef)
        fields = read_gamedef(text, source)[2]
        return int(fields["numplayers"][1][0])
    except Exception:  # noqa: BLE001 - any malformed value is reported by the two-player path
        return 2


def acpc_game(config: dict) -> "AcpcTreeGame":
    """The tree-engine game of an acpc [game] table whose file has 3+ players; ConfigError for
    what such a game cannot take (bet-size lists, the poker engine's cut), before building."""
    text, source = gamedef_text(config["gamedef"])
    betting, _, fields = read_gamedef(text, source)
    if betting == "nolimit":
        table = parse_nolimit_table(text, source)
        extra = [k for k in nolimit_game.given(config) if k != "abstraction"]
        kind = config.get("abstraction", "auto")
        if extra or kind == "sizes":
            key = extra[0] if extra else "abstraction"
            raise ConfigError(f"[game] {key} = {config[key]!r}: {source} has {table.num_players} players; bet-size "
                              "lists are for two-player games; N-player no-limit files take abstraction = \"fcpa\" "
                              "(fold, call, pot, all-in; OpenSpiel's)")
        caps = fields.get("maxraises", (0, []))[1][:table.num_rounds]
        if len(set(caps)) > 1:
            raise ConfigError(f"{source}: maxRaises = {caps}: N-player no-limit games take one raise cap for every "
                              "round (or none)")
    else:
        table = parse_table(text, source)
        nolimit_game.check_params(table, config)
        caps = []
    params = tree_params(config, "acpc", table.num_players)
    return AcpcTreeGame(table, source, max_raises=int(caps[0]) if caps else 0, **params)


class AcpcTreeGame(TreeGame):
    """An N-player ACPC game (3 to 6 players) on the tree engine; see the module docstring."""

    name = "acpc"
    description = "N-player poker from an ACPC game file, on the tree engine"
    unit_name = "chips"
    params = {
        **TreeGame.engine_params,
        "gamedef": Param("str", None, "bundled name or .game path", required=True, file=True),
        **nolimit_game.PARAMS,
    }

    @classmethod
    def local_files(cls, params):
        """`gamedef` when it is a file, not a bundled name."""
        name = params.get("gamedef")
        return {} if name in bundled_names("any", None) else super().local_files(params)

    def __init__(self, table, source: str, max_nodes: int | None = None, max_raises: int = 0, sizes=None,
                 **params):
        abstraction = params.get("abstraction", "auto")
        limit = int(max_nodes or self.params["max_nodes"].default)
        self.set_rules(table, "fcpa" if abstraction == "auto" else abstraction, limit, source, max_raises, sizes)
        total = self.count_nodes()
        if total > limit:
            raise ConfigError(self._too_big(f"{total:,} nodes", limit, source))
        super().__init__(max_nodes=max_nodes, **params)

    def set_rules(self, table, abstraction: str, limit: int, source: str, max_raises: int = 0, sizes=None) -> None:
        """The rules of `table` under `abstraction` (its betting tree; no-limit: at most
        `max_raises` raises a round, 0 none; abstraction "sizes": the per-round lists `sizes` of
        solverkit.blueprint.sizes), without the game tree: what the description methods read
        (tests walk them beside OpenSpiel's)."""
        self.gd = table
        self.gd_max_raises = int(max_raises) if isinstance(table, NoLimitTable) else 0
        self.gd_sizes = sizes
        self.num_players = table.num_players
        self.nolimit = isinstance(table, NoLimitTable)
        self._check_deal_fits(limit, source)
        self.bet: BettingTree = self._betting(abstraction, limit, source)
        self._need = self._cards_needed()
        self._hole = table.num_players * table.num_hole_cards
        self._strength_cache: dict = {}

    # --- sizes, checked before anything is enumerated ---------------------------------------

    def _too_big(self, what: str, limit: int, source: str) -> str:
        return (f"game acpc ({source}, {self.num_players} players) has {what} as a tree, more than [game] max_nodes = "
                f"{limit:,}: the tree engine enumerates games of 3+ players whole. Solve it with the blueprint engine "
                "under a card abstraction ([game] name = \"blueprint\" with an [abstraction] table, docs/blueprint.md) "
                "or a game with fewer cards or rounds")

    def _check_deal_fits(self, limit: int, source: str) -> None:
        """Refuse at once a deck whose hole-card deals alone exceed `limit` (hold'em), before the
        betting tree (millions of sequences for three-player limit hold'em) is enumerated."""
        gd = self.gd
        deals = math.perm(gd.deck_size, gd.num_players * gd.num_hole_cards)
        if deals > limit:
            raise ConfigError(self._too_big(f"over {deals:,} hole-card deals", limit, source))

    def _betting(self, abstraction: str, limit: int, source: str) -> BettingTree:
        try:
            if self.nolimit:
                if abstraction not in ABSTRACTIONS:
                    raise ConfigError(f"[game] abstraction = {abstraction!r} is invalid for {source} with "
                                      f"{self.num_players} players: expected one of {', '.join(ABSTRACTIONS)}")
                return nolimit_tree(self.gd, abstraction, limit, self.gd_max_raises, self.gd_sizes)
            return limit_tree(self.gd, limit)
        except ConfigError as exc:
            if "more than" in str(exc) and "nodes" in str(exc):
                raise ConfigError(self._too_big("a betting tree of over " f"{limit:,} sequences", limit, source)) from None
            raise

    def _cards_needed(self) -> list[int]:
        """Cards dealt before each betting node is reached: every hole card and the boards up to
        its round at a decision; the whole board at a showdown; the parent's at a fold."""
        gd, bet = self.gd, self.bet
        hole = gd.num_players * gd.num_hole_cards
        through = [hole]
        for r in range(1, gd.num_rounds):
            through.append(through[-1] + gd.num_board_cards[r])
        need = [0] * bet.num_nodes
        for n in range(bet.num_nodes):
            if bet.kind[n] == DECISION:
                need[n] = through[int(bet.round[n])]
                for a in range(int(bet.nact[n])):
                    c = int(bet.first[n]) + a
                    if bet.kind[c] != DECISION:
                        need[c] = through[-1] if bet.alive[c].sum() > 1 else need[n]
        return need

    def count_nodes(self) -> int:
        """Nodes of the tree (decisions, chance and terminals), counted from the betting tree."""
        D = self.gd.deck_size
        total, parent_need = 0, {0: 0}
        bet = self.bet
        for n in range(bet.num_nodes):
            have = parent_need.get(n, 0)
            need = self._need[n]
            total += sum(math.perm(D, m) for m in range(have, need)) + math.perm(D, need)
            if bet.kind[n] == DECISION:
                for a in range(int(bet.nact[n])):
                    parent_need[int(bet.first[n]) + a] = need
        return total

    # --- the description ------------------------------------------------------------------------

    def initial_state(self):
        return ((), 0)

    def is_terminal(self, state) -> bool:
        cards, n = state
        return self.bet.kind[n] != DECISION and len(cards) >= self._need[n]

    def player(self, state) -> int:
        cards, n = state
        return self.CHANCE if len(cards) < self._need[n] else int(self.bet.player[n])

    def chance_outcomes(self, state):
        cards = state[0]
        left = [c for c in range(self.gd.deck_size) if c not in cards]
        return [(c, 1.0 / len(left)) for c in left]

    def legal_actions(self, state):
        n = state[1]
        first = int(self.bet.first[n])
        return self.bet.labels[first:first + int(self.bet.nact[n])]

    def child(self, state, action):
        cards, n = state
        if len(cards) < self._need[n]:
            return (cards + (action,), n)
        first = int(self.bet.first[n])
        return (cards, first + self.bet.labels[first:first + int(self.bet.nact[n])].index(action))

    def returns(self, state):
        cards, n = state
        P = self.num_players
        spent = self.bet.spent[n]
        alive = self.bet.alive[n]
        winners = [p for p in range(P) if alive[p]]
        if len(winners) > 1:
            strength = self._strengths(cards)
            best = max(strength[p] for p in winners)
            winners = [p for p in winners if strength[p] == best]
        pot = float(spent.sum())
        return tuple((pot / len(winners) if p in winners else 0.0) - float(spent[p]) for p in range(P))

    def _strengths(self, cards):
        got = self._strength_cache.get(cards)
        if got is None:
            import numpy as np

            k, h = self.gd.num_hole_cards, self._hole
            hands = np.array(cards[:h], dtype=np.int64).reshape(self.num_players, k)
            board = np.array(cards[h:], dtype=np.int64)
            out = np.empty(self.num_players, dtype=np.int64)
            acpc_strengths(hands, board, self.gd.num_suits, out)
            got = self._strength_cache[cards] = [int(x) for x in out]
        return got

    def _names(self, cards) -> str:
        S, R = self.gd.num_suits, self.gd.num_ranks
        return "".join(card_name(c, S, R) for c in sorted(cards))

    def infoset_key(self, state, player):
        cards, n = state
        gd, k, h = self.gd, self.gd.num_hole_cards, self._hole
        board, pos = [], h
        for r in range(1, gd.num_rounds):
            m = gd.num_board_cards[r]
            if pos + m > len(cards):
                break
            board.append(self._names(cards[pos:pos + m]))
            pos += m
        return f"{self._names(cards[player * k:(player + 1) * k])}|{''.join(board)}|{self.bet.betting[n]}"

    def action_label(self, action, player):
        return card_name(action, self.gd.num_suits, self.gd.num_ranks) if player is None else str(action)

    def units(self):
        """mbb/g: 1000 milli-big-blinds per big blind of the file (with antes, the first bet)."""
        from solverkit.core.units import Unit

        return (Unit("mbb/g", "mbb", 1000.0 / self.gd.big_blind, "milli-big-blinds per game"),)

    @property
    def acpc_table(self):
        """The limit TableDef an N-seat table plays (None for a no-limit file: N-player tables
        play limit games)."""
        return None if self.nolimit else self.gd

    def openspiel_table(self, strategy):
        """OpenSpiel information-state string -> {action id: probability} over universal_poker
        of the same file (limit, or no-limit under fcpa), its tree walked beside this one."""
        from solverkit_openspiel.games import import_pyspiel

        from solverkit_efg.games import twin_table

        pyspiel = import_pyspiel()
        os_game = pyspiel.load_game("universal_poker", self.universal_poker_params())
        return twin_table(self.tree, strategy, os_game.new_initial_state())

    def universal_poker_params(self) -> dict:
        """pyspiel.load_game("universal_poker", params) of this game."""
        gd = self.gd

        def words(values):
            return " ".join(str(int(v)) for v in values)

        out = {"numPlayers": gd.num_players, "numRounds": gd.num_rounds, "blind": words(gd.blind),
               "firstPlayer": words(f + 1 for f in gd.first_player), "numSuits": gd.num_suits,
               "numRanks": gd.num_ranks, "numHoleCards": gd.num_hole_cards, "numBoardCards": words(gd.num_board_cards)}
        if self.nolimit:
            if self.config.get("abstraction", "auto") not in ("auto", "fcpa"):
                from solverkit.errors import SolverkitError

                raise SolverkitError("an N-player no-limit game exports to OpenSpiel under abstraction = \"fcpa\" only "
                                     "(universal_poker's own)")
            out.update(betting="nolimit", bettingAbstraction="fcpa", stack=words(gd.stack))
            if self.gd_max_raises:
                out["maxRaises"] = words([self.gd_max_raises] * gd.num_rounds)
        else:
            out.update(betting="limit", raiseSize=words(gd.raise_size), maxRaises=words(gd.max_raises))
        return out


def tree_game_of(table, source: str, abstraction: str = "fcpa", max_raises: int = 0,
                 max_nodes: int | None = None, sizes=None) -> AcpcTreeGame:
    """The tree-engine game of an already-read table of 2 to 6 players, its no-limit betting
    under `abstraction` with at most `max_raises` raises a round (0: none), so its betting tree
    is the blueprint's of the same table (the blueprint's exact evaluation). ConfigError when it
    has more than `max_nodes` nodes, before the game tree is enumerated (hold'em at once)."""
    params = {"gamedef": source, **({"abstraction": abstraction} if isinstance(table, NoLimitTable) else {})}
    return AcpcTreeGame(table, source, max_nodes=max_nodes, max_raises=max_raises, sizes=sizes, **params)
