"""Strategy export as plain JSON for small games."""

from __future__ import annotations

from ..errors import SolverkitError


def export_json(game, strategy) -> dict:
    """``{"game": name, "players": [{infoset_key: [probabilities]}, ...], "actions":
    [{infoset_key: [action labels]}, ...]}``, one table per player: every information set's
    probabilities and the labels of its actions in the same order (tree games give each
    information set its own actions, so labels are per key, never a shared list or null).
    Slots no deal reaches (:meth:`Game.impossible_infosets`) are left out."""
    total = sum(game.layout(p).num_infosets for p in range(game.num_players))
    if total > game.export_limit:
        raise SolverkitError(
            f"game {game.name!r} has {total:,} information sets; JSON export is limited to "
            f"{game.export_limit:,} (use the strategy.npz file directly)"
        )
    players, actions = [], []
    for p in range(game.num_players):
        keys = game.infoset_keys(p)
        labels = game.infoset_actions(p)
        probs, names = {}, {}
        impossible = game.impossible_infosets(p)
        for key, (start, n), acts, skip in zip(keys, game.layout(p).infoset_slices(), labels, impossible):
            if skip:  # no deal reaches it: its stored values are no policy
                continue
            if len(acts) != n:
                raise SolverkitError(f"game {game.name!r}: information set {key!r} has {n} actions but "
                                     f"{len(acts)} labels {list(acts)!r}; a game plugin's infoset_actions is wrong")
            probs[key] = [float(v) for v in strategy[p][start : start + n]]
            names[key] = [str(a) for a in acts]
        if len(probs) != len(keys) - int(impossible.sum()):
            seen = set()
            twice = next(k for k in keys if k in seen or seen.add(k))
            raise SolverkitError(f"game {game.name!r}: player {p} names two information sets {twice!r}; JSON "
                                 "maps keys to probabilities and would lose one (use the strategy.npz file)")
        players.append(probs)
        actions.append(names)
    return {"game": game.name, "players": players, "actions": actions}
