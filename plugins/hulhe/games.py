"""HULHE: the ACPC game holdem.limit.2p.reverse_blinds, with a deck, rounds and raise caps to
choose, so that small members of the family run on the same code as the full game."""

from __future__ import annotations

from dataclasses import replace

from solverkit.core.params import Param
from solverkit.errors import ConfigError
from solverkit.poker.cards import card_name
from solverkit.poker.game import PokerGame
from solverkit.poker.gamedef import load_gamedef

FULL = "holdem.limit.2p.reverse_blinds"


class Hulhe(PokerGame):
    """Heads-up limit Texas hold'em as played in the ACPC: blinds 10 and 5, bets 10/10/20/20,
    the small blind acts first preflop and the big blind first afterwards, 4 bets per round
    counting the blind preflop; 2 hole cards, board 3/1/1, ACPC (best five of seven) ranking.

    ``ranks``, ``suits``, ``rounds`` and ``max_raises`` pick smaller members of the family (the
    top of the deck is kept, as the ACPC dealer deals it: ``ranks = 5, suits = 2`` plays T-A of
    hearts and spades). The full game does not fit on one machine;
    asking for it gives the memory it needs (``solverkit info hulhe``)."""

    name = "hulhe"
    description = "heads-up limit Texas hold'em (ACPC reverse blinds) and smaller members of the family"
    params = {
        **PokerGame.params,
        "split_round": Param("int", -1, "cut into trunk + subgames at the start of this round; -1: after the flop "
                             "(round 2), or at the last round in shorter games; 0: no cut", min=-1, max=3),
        "ranks": Param("int", 13, "ranks in the deck (the highest ones, as the ACPC dealer deals them: 5 is T-A)",
                       min=2, max=13),
        "suits": Param("int", 4, "suits in the deck (the last of c, d, h, s: 2 is h and s)", min=1, max=4),
        "rounds": Param("int", 4, "betting rounds: 1 preflop only, 2 to the flop, 3 to the turn, 4 the full game",
                        min=1, max=4),
        "max_raises": Param("int_list", [3, 4, 4, 4], "bets and raises per round after the blinds' (the ACPC "
                            "maxRaises; preflop 3 means 4 bets counting the big blind)", min=0, max=16, min_len=1),
        "flops": Param("str", "", "deal only these flops, e.g. 'AsKd7c,2c2d9h' (real full-deck subgames of a game "
                       "too large to build; each stands for its suit orbit); '': every flop"),
    }

    @staticmethod
    def prepare_params(params):
        """Resolve split_round = -1 and check max_raises against rounds."""
        params = dict(params)
        rounds = int(params.get("rounds", 4))
        if params.get("split_round", -1) == -1:
            params["split_round"] = min(2, rounds - 1)
        caps = params.get("max_raises", [3, 4, 4, 4])
        if len(caps) < rounds:
            raise ConfigError(
                f"[game] (hulhe) max_raises = {caps!r} has {len(caps)} values; rounds = {rounds} needs one per round"
            )
        return params

    def flop_sets(self) -> list[tuple[int, ...]]:
        """The `flops` parameter as card tuples (ConfigError naming a bad card or flop)."""
        from solverkit.poker.cards import parse_card

        text = str(self.config.get("flops") or "").replace(" ", "")
        if not text:
            return []
        S, R = int(self.config.get("suits", 4)), int(self.config.get("ranks", 13))
        out = []
        for item in text.split(","):
            if len(item) != 6:
                raise ConfigError(f"[game] (hulhe) flops: {item!r} is not three cards like 'AsKd7c'")
            try:
                cards = tuple(sorted(parse_card(item[i: i + 2], S, R) for i in (0, 2, 4)))
            except ValueError as exc:
                raise ConfigError(f"[game] (hulhe) flops: {item!r}: {exc}") from None
            if len(set(cards)) != 3:
                raise ConfigError(f"[game] (hulhe) flops: {item!r} repeats a card")
            out.append(cards)
        if int(self.config.get("rounds", 4)) < 2:
            raise ConfigError("[game] (hulhe) flops needs rounds >= 2 (there is no flop otherwise)")
        return out

    def subgame_config(self, keys):
        """Deal only the flops that `keys`' boards lie below (a worker's share): the subgames
        below a flop are the same whichever other flops are dealt. Never trunk-only."""
        if not self.split or self.split < 2:
            return super().subgame_config(keys)
        bd = self.tree.boards
        flops = set()
        for _, b, _ in keys:
            g = int(b)
            while bd.num_cards[g] > 3:  # up to the flop
                g = int(bd.parent[g])
            flops.add("".join(card_name(int(c), self.gd.num_suits, self.gd.num_ranks) for c in bd.cards[g, :3]))
        return {**super().subgame_config(keys), "flops": ",".join(sorted(flops))}

    def allowed_boards(self):
        flops = self.flop_sets()
        return {1: flops} if flops else None

    def size_fraction(self, size):
        """With `flops`, rounds from the flop on hold about that many flops' share of the boards."""
        flops = self.flop_sets()
        if not flops or size.rounds < 2:
            return [1.0] * size.rounds
        share = min(1.0, len(flops) / size.boards_iso[1])
        return [1.0] + [share] * (size.rounds - 1)

    def gamedef(self):
        cfg = self.config
        rounds = int(cfg.get("rounds", 4))
        full = load_gamedef(FULL)
        caps = list(cfg.get("max_raises") or full.max_raises)[:rounds]
        gd = replace(
            full,
            num_rounds=rounds,
            raise_size=full.raise_size[:rounds],
            first_player=full.first_player[:rounds],
            max_raises=tuple(int(c) for c in caps),
            num_board_cards=full.num_board_cards[:rounds],
            num_suits=int(cfg.get("suits", 4)),
            num_ranks=int(cfg.get("ranks", 13)),
            source=f"{FULL} with ranks={cfg.get('ranks', 13)}, suits={cfg.get('suits', 4)}, rounds={rounds}, "
                   f"max_raises={caps}",
        )
        return gd.validate()
