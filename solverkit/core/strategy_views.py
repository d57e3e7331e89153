"""How a game's information sets and strategies are named and shown: keys, action labels, where one
information set is stored, and the report's default tables. Every game has these (the defaults
here serve small games; the poker engine parses keys instead of listing them): the base of
:class:`~.game.Game`."""

from __future__ import annotations

import numpy as np

from ..errors import SolverkitError
from .infoset_place import InfosetPlace, unknown_infoset


class StrategyViews:
    """Keys, labels and views of a game's information sets (see the module); uses the game's
    ``name``, ``num_players`` and ``layout``."""

    def infoset_place(self, key: str, player: int | None = None) -> "InfosetPlace":
        """Where information set `key` (as :meth:`infoset_keys` names it) of `player` (None:
        whichever has it) is stored: its offset in the flat policy and in its segment's policy
        (:meth:`segment_policy`), and its action labels. A SolverkitError names an unknown key
        with close matches. Default: a lookup in the keys of both players (small games)."""
        if not isinstance(key, str):
            raise SolverkitError(f"information set key {key!r:.60} of game {self.name!r} is invalid: expected a "
                                 f"string, like {self.infoset_keys(0)[0]!r}")
        index = self.__dict__.get("_infoset_index")
        if index is None:
            index = {}
            for p in range(self.num_players):
                for i, k in enumerate(self.infoset_keys(p)):
                    index.setdefault(k, []).append((p, i))
            self._infoset_index = index
        found = [(p, i) for p, i in index.get(key, ()) if player in (None, p)]
        if not found:  # close matches among `player`'s own keys when one is given (another's would not do)
            names = index if player is None else [k for k, where in index.items() if any(q == player for q, _ in where)]
            raise unknown_infoset(self, key, player, names)
        if len(found) > 1:
            who = ", ".join(str(p) for p, _ in found)
            raise SolverkitError(f"information set {key!r} exists for players {who} of game {self.name!r}; pass "
                                 f"one of them (--player {found[0][0]})")
        p, i = found[0]
        lay = self.layout(p)
        first = np.concatenate(([0], np.cumsum(lay.block_count)))
        b = int(np.searchsorted(first, i, side="right") - 1)
        actions = int(lay.block_actions[b])
        offset = int(lay.block_start[b]) + (i - int(first[b])) * actions
        return InfosetPlace(key, p, offset, tuple(self.infoset_actions(p)[i]), "root", offset)

    def report_strategy(self, strategy: list[np.ndarray], limit: int = 40) -> list[tuple[str, object]]:
        """What ``solverkit report`` shows of a strategy: (title, HTML fragment or PNG bytes)
        items. Here: each player's first `limit` information sets and their action
        probabilities; games override it with views of their own (poker: per-hand tables, the
        preflop chart)."""
        from .html_table import table

        out = []
        for p in range(self.num_players):
            lay = self.layout(p)
            keys = self.infoset_keys(p)[:limit]
            acts = self.infoset_actions(p)[: len(keys)]
            rows, pos = [], 0
            for key, labels in zip(keys, acts):
                probs = strategy[p][pos: pos + len(labels)]
                pos += len(labels)
                rows.append((key, "  ".join(f"{a} {x:.3f}" for a, x in zip(labels, probs))))
            more = f" (first {len(keys)} of {lay.num_infosets:,})" if lay.num_infosets > len(keys) else ""
            out.append((f"player {p}: information sets{more}", table(("information set", "policy"), rows)))
        return out

    def impossible_infosets(self, player: int) -> np.ndarray:
        """One bool per information set of `player` (layout order): True where the layout keeps
        a slot that no deal reaches (poker: a hand sharing a card with the board). Exports and
        policy tables leave them out; a user's policy need not give them. Default: none."""
        return np.zeros(self.layout(player).num_infosets, dtype=bool)

    def infoset_keys(self, player: int) -> list[str]:
        """Human-readable key of each information set of `player`, in layout order."""
        return [f"p{player}/i{i}" for i in range(self.layout(player).num_infosets)]

    def action_names(self, player: int) -> list[str] | None:
        """Action labels when every information set of `player` shares them, else None."""
        return None

    def infoset_actions(self, player: int) -> list[list[str]]:
        """Action labels of each information set of `player`, in layout order (the shared
        :meth:`action_names`, else the action indices)."""
        names = self.action_names(player)
        return [list(names) if names is not None else [str(a) for a in range(n)]
                for _, n in self.layout(player).infoset_slices()]
