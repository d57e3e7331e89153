"""Strategy export as plain JSON for small games."""

from __future__ import annotations

from ..errors import SolverkitError


def export_json(game, strategy) -> dict:
    """``{"game": name, "players": [{infoset_key: [probabilities]}, ...],
    "actions": [names or null, ...]}``, one entry per player in ``players`` and ``actions``."""
    total = sum(game.layout(p).num_infosets for p in (0, 1))
    if total > game.export_limit:
        raise SolverkitError(
            f"game {game.name!r} has {total:,} information sets; JSON export is limited to "
            f"{game.export_limit:,} (use the strategy.npz file directly)"
        )
    players = []
    for p in (0, 1):
        keys = game.infoset_keys(p)
        table = {}
        for key, (start, n) in zip(keys, game.layout(p).infoset_slices()):
            table[key] = [float(v) for v in strategy[p][start : start + n]]
        players.append(table)
    return {"game": game.name, "players": players, "actions": [game.action_names(p) for p in (0, 1)]}
