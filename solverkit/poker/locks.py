"""Node locking for spots (``[game.lock]``): fix the strategy of chosen combos at chosen nodes and
solve the rest, the most asked-for feature of postflop solvers' users.

```toml
[game.lock."check"]                 # a node by its line from the root (as `strategy --node`)
"bet 50" = 1.0                      # every combo of the player to act: always bet 50
[game.lock."check,bet 50%"]
"AA,KK" = { call = 1.0 }            # the combos of a range: this strategy
"QQ" = { fold = 0.5, call = 0.5 }
```

A line may skip the cards dealt at a street's end ("check,check,bet 50": every turn card) or name
them ("check,check,Kd,bet 50": that turn only; with suit isomorphism off, since a merged board
stands for its suit images too). Unnamed actions get probability 0; each strategy must sum to 1.
The kernels play a locked combo's policy, never update its regrets, and a best response moves
only where the strategy is free, so exploitability measures the locked game's solution.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ConfigError
from .betting import DECISION, FOLD, ROUND_END, SHOWDOWN
from .cards import parse_card
from .node_view import _match
from .ranges import parse_range


def _walk_path(game, path: str):
    """(node, {round: card}) of a lock's line; ConfigError naming a bad token."""
    bet = game.tree.bet
    tokens = [x.strip() for x in path.split(",") if x.strip()]
    node, cards = 0, {}
    for tok in tokens:
        if bet.kind[node] in (FOLD, SHOWDOWN):
            raise ConfigError(f"[game.lock.{path!r}]: {tok!r}: the hand is over before it")
        if bet.kind[node] == ROUND_END:
            nxt = int(bet.children[node, 0])
            try:
                card = parse_card(tok, 4, 13)
            except ValueError:
                node = nxt  # no card named: every card of the street
            else:
                if card in game.gd.board or card in cards.values():
                    raise ConfigError(f"[game.lock.{path!r}]: {tok!r} is already on the board")
                cards[int(bet.round[nxt])] = card
                node = nxt
                continue
        try:
            a = _match(game, node, tok)
        except ConfigError as exc:
            raise ConfigError(f"[game.lock.{path!r}]: {str(exc).removeprefix('--node: ')}") from None
        node = int(bet.children[node, a])
    while bet.kind[node] == ROUND_END:  # the line skips the card: the next street's first decision, every card
        node = int(bet.children[node, 0])
    if bet.kind[node] != DECISION:
        raise ConfigError(f"[game.lock.{path!r}]: the line ends at a terminal, not at a decision")
    return node, cards


def _strategy(game, node, spec, where) -> np.ndarray:
    labels = game.action_labels(node)
    if not isinstance(spec, dict) or not spec:
        raise ConfigError(f"{where} = {spec!r}: expected a table of action = probability, actions: {', '.join(labels)}")
    probs = np.zeros(len(labels))
    for name, value in spec.items():
        a = _match(game, node, name) if name not in labels else labels.index(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1 or not math.isfinite(value):
            raise ConfigError(f"{where}.{name!r} = {value!r}: expected a probability from 0 to 1")
        probs[a] = float(value)
    if abs(probs.sum() - 1.0) > 1e-9:
        raise ConfigError(f"{where}: the probabilities add up to {probs.sum():g}, not 1 (actions: {', '.join(labels)})")
    return probs


def _unlike_image(full: np.ndarray, perm) -> np.ndarray:
    """Combos whose lock row in `full` ([1326, actions], NaN: not locked) differs from that of
    their image under the suit permutation `perm`."""
    from .spot import combo_image

    image = combo_image(perm)
    same = (full == full[image]) | (np.isnan(full) & np.isnan(full[image]))
    return np.flatnonzero(~same.all(axis=1))


def _check_symmetric(game, combos, entries, where) -> None:
    """ConfigError when a lock on a later street tells apart combos that suit isomorphism merges:
    a merged board stands for its suit images, and with it each combo for its image, so the lock
    would hold for the image combo on the other boards (locking "AhAd" on the river would lock
    "AhAc" on the river cards isomorphism maps there)."""
    from .spot import combo_image

    perms = [p for p in game.board_perms() if not np.array_equal(p, np.arange(4))]
    if not perms:
        return
    full = np.full((1326, len(entries[0][1])), np.nan)
    for mask, probs in entries:
        full[combos[mask]] = probs
    for perm in perms:
        bad = _unlike_image(full, perm)
        if bad.size:
            from .ranges import combo_name

            c = int(bad[0])
            raise ConfigError(f"{where}: locks {combo_name(c)} and {combo_name(int(combo_image(perm)[c]))} differently on a later "
                              "street, where suit isomorphism merges the boards that map one onto the other: set "
                              "[game] isomorphism = false, or give both the same lock")


class _BettingOnly:
    """A spot before its public tree exists: the betting tree, its labels and the board, enough
    to read lock lines (the suit permutations isomorphism may use are needed to build the tree)."""

    def __init__(self, game, bet):
        from types import SimpleNamespace

        from .spot_views import SpotViews

        self.gd, self.config = game.gd, game.config
        self.tree = SimpleNamespace(bet=bet)
        self._views = SpotViews

    def action_labels(self, node):
        return self._views.action_labels(self, node)

    def _street_base(self, node):
        return self._views._street_base(self, node)


def first_street_perms(game, bet, perms, ranges) -> list:
    """The suit permutations of `perms` that map every first-street lock onto itself (each locked
    combo's image holds the same lock). A first-street lock that tells suit-symmetric combos apart
    (AhAd locked, AhAc free, on a monotone turn) makes their reaches into the next street differ,
    and a merged later board would play one's reach for the other's: isomorphism must not merge
    the boards those permutations map onto each other. (Later-street locks: _check_symmetric.)"""
    view = _BettingOnly(game, bet)
    fulls: dict[int, np.ndarray] = {}
    for path, spec in (game.config.get("lock") or {}).items():
        if not isinstance(spec, dict) or not spec or not all(isinstance(v, dict) for v in spec.values()):
            continue  # every combo alike (symmetric), or malformed (build_locks refuses it)
        node, _ = _walk_path(view, path)
        if int(bet.round[node]) != 0:
            continue
        q = int(bet.player[node])
        full = fulls.setdefault(node, np.full((1326, int(bet.num_actions[node])), np.nan))
        for rng, sub in spec.items():
            try:
                w = parse_range(rng, game.gd.board)
            except ConfigError:
                continue  # refused by build_locks with its message
            full[(w > 0) & (ranges[q] > 0)] = _strategy(view, node, sub, f"[game.lock.{path!r}].{rng!r}")
    return [perm for perm in perms if not any(_unlike_image(f, perm).size for f in fulls.values())]


def build_locks(game, table: dict):
    """(has_lock [nodes] uint8, lock_start [nodes] int64, lock0, lock1) of a spot's [game.lock]
    table: each locked node holds a block of policies per board of its round (kernels.PublicTree),
    NaN for the hands it leaves free; the same for a whole game or a split one."""
    t = game.tree
    bet = t.bet
    has = np.zeros(bet.num_nodes, dtype=np.uint8)
    start = np.full(bet.num_nodes, -1, dtype=np.int64)
    sizes = [0, 0]
    lines = []
    for path, spec in table.items():
        where = f"[game.lock.{path!r}]"
        if not isinstance(spec, dict) or not spec:
            raise ConfigError(f"{where}: expected a table: action = probability (every combo), or range = {{ action = "
                              "probability }}")
        node, cards = _walk_path(game, path)
        if cards and game.tree_isomorphic:
            raise ConfigError(f"{where} names a card dealt later ({', '.join(map(str, cards.values()))}); with suit "
                              "isomorphism a board stands for its suit images too: set [game] isomorphism = false")
        q = int(bet.player[node])
        side = t.side(q)
        combos = game.player_combos(q)
        tables = [isinstance(v, dict) for v in spec.values()]
        if all(tables):
            entries = []
            for rng, sub in spec.items():
                try:
                    w = parse_range(rng, game.gd.board)
                except ConfigError as exc:
                    raise ConfigError(f"{where}: {rng!r}: {exc}") from None
                held = w[combos] > 0
                if not held.any():
                    raise ConfigError(f"{where}: {rng!r} holds none of {'oop' if q == 0 else 'ip'}'s combos (player "
                                      f"{q} acts at this node; its range: {game.config[('oop_range', 'ip_range')[q]]!r})")
                entries.append((held, _strategy(game, node, sub, f"{where}.{rng!r}")))
        elif not any(tables):
            entries = [(np.ones(len(combos), dtype=bool), _strategy(game, node, spec, where))]
        else:
            raise ConfigError(f"{where}: mix of action = probability and range = {{...}} entries; use one form")
        r = int(bet.round[node])
        if r > 0 and game.tree_isomorphic:
            _check_symmetric(game, combos, entries, where)
        if start[node] < 0:
            lo, hi = int(t.boards.round_start[r]), int(t.boards.round_start[r + 1])
            start[node] = sizes[q]
            sizes[q] += (hi - lo) * side.num_hands * int(bet.num_actions[node])
        lines.append((node, q, r, cards, entries, side))
        has[node] = 1
    locks = [np.full(max(n, 1), np.nan) for n in sizes]
    for node, q, r, cards, entries, side in lines:
        A = int(bet.num_actions[node])
        H = side.num_hands
        lo, hi = int(t.boards.round_start[r]), int(t.boards.round_start[r + 1])
        for g in range(lo, hi):
            dealt = t.boards.cards[g, : t.boards.num_cards[g]]
            if any(int(dealt[len(game.gd.board) + rr - 1]) != c for rr, c in cards.items()):
                continue
            base = int(start[node]) + (g - lo) * H * A
            rows = locks[q][base: base + H * A].reshape(H, A)
            for mask, probs in entries:
                rows[mask & (side.valid[g] > 0)] = probs
    return has, start, locks[0], locks[1]


def write_locks(game, player: int, out: np.ndarray) -> np.ndarray:
    """`player`'s flat policy `out` (the unsplit layout) with every locked hand's lock written in:
    a locked hand's regrets never move and its average grows only where its own line reaches, so
    the stored values alone would show it uniform (a current strategy; an average it never
    reached). The locks are what the kernels play, and what the strategy file must hold."""
    kt = game.kernel_tree()
    if not kt.has_lock.any():
        return out
    t = game.tree
    bet = t.bet
    lock = kt.lock0 if player == 0 else kt.lock1
    H = t.side(player).num_hands
    for node in np.flatnonzero(kt.has_lock):
        if int(bet.player[node]) != player:
            continue
        A = int(bet.num_actions[node])
        r = int(bet.round[node])
        lo, hi = int(t.boards.round_start[r]), int(t.boards.round_start[r + 1])
        for g in range(lo, hi):  # a node's hands on board g are consecutive rows of A values
            block = lock[int(kt.lock_start[node]) + (g - lo) * H * A:][: H * A].reshape(H, A)
            held = ~np.isnan(block[:, 0])
            if held.any():
                at = game.value_offset(int(node), g, 0)
                out[at: at + H * A].reshape(H, A)[held] = block[held]
    return out
