"""metrics.csv: its columns, the measures of a profile its rows hold, and the writer that keeps them on disk."""

from __future__ import annotations

import csv
from contextlib import contextmanager

from ..errors import OutputError
from .atomic import reason
from .units import CURRENT, unit_columns

METRIC_COLUMNS = ("iteration", "seconds", "exploitability", "br_0", "br_1")
#: work done (nodes the passes visited, cumulative; empty for games that do not count), then store
#: and memory columns: last in every metrics.csv
STORE_COLUMNS = ("nodes_touched", "stored_bytes", "compression_ratio", "peak_rss_mb")
#: extra column of ``[solver] eval_current``: the current strategy's exploitability
CURRENT_COLUMN = CURRENT


def metric_columns(game, eval_current: bool = False) -> tuple[str, ...]:
    """metrics.csv columns for `game`: the base columns, one per display unit the game declares
    (``exploitability_<key>``), then the current strategy's exploitability when asked for. A game
    of more than two players adds ``nash_conv``, the other players' ``br_<p>`` and every
    player's ``gain_<p>`` after the base columns (docs/players.md)."""
    cols = METRIC_COLUMNS + nash_columns(game) + unit_columns(game)
    if eval_current:
        cols += (CURRENT_COLUMN,) + unit_columns(game, current=True)
    return cols + STORE_COLUMNS




def exploitability(game, strategy) -> tuple[float, float, float]:
    """(exploitability, br_0, br_1) of a profile: exploitability = (br_0 + br_1) / 2; in a game
    of more than two players NashConv / players (:func:`nash_conv`)."""
    if game.num_players != 2:
        conv, brs, _ = nash_conv(game, strategy)
        return conv / game.num_players, brs[0], brs[1]
    br0, br1 = game.best_response(strategy)
    return (br0 + br1) / 2.0, br0, br1


#: metrics column of a game of more than two players: the sum of the players' best-response gains
NASH_CONV = "nash_conv"


def nash_columns(game) -> tuple[str, ...]:
    """The columns a game of more than two players adds: ``nash_conv``, ``br_2`` .. and
    ``gain_0`` ..; none for two players."""
    P = game.num_players
    if P == 2:
        return ()
    return (NASH_CONV, *(f"br_{p}" for p in range(2, P)), *(f"gain_{p}" for p in range(P)))


def nash_conv(game, strategy) -> tuple[float, tuple[float, ...], tuple[float, ...]]:
    """(NashConv, best-response values, values) of a profile: each player's gain is its
    best-response value against the others less its value in the profile; NashConv is the sum
    of the gains (0 exactly at a Nash equilibrium)."""
    brs = tuple(float(x) for x in game.best_response(strategy))
    values = tuple(float(x) for x in game.expected_values(strategy))
    return sum(b - v for b, v in zip(brs, values)), brs, values


def nash_row(game, strategy) -> dict:
    """The metrics of a profile of a game of more than two players: exploitability (NashConv /
    players), br_<p>, nash_conv and gain_<p>."""
    conv, brs, values = nash_conv(game, strategy)
    row = {"exploitability": conv / len(brs), NASH_CONV: conv}
    row.update({f"br_{p}": b for p, b in enumerate(brs)})
    row.update({f"gain_{p}": b - v for p, (b, v) in enumerate(zip(brs, values))})
    return row



class MetricsWriter:
    """metrics.csv, flushed after every row so an interrupted run keeps what it measured."""

    def __init__(self, path, columns=METRIC_COLUMNS, rows=()):
        self.path = path
        with self._named():
            self.fh = open(path, "w", newline="")
            self.csv = csv.DictWriter(self.fh, fieldnames=columns)
            self.csv.writeheader()
        for row in rows:  # a resumed run starts from the checkpoint's rows
            self.write(row)

    @contextmanager
    def _named(self):
        """An OSError (a full disk, a directory in the file's place) as an OutputError naming the file."""
        try:
            yield
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {reason(exc)}") from None

    def restart(self, rows):
        """Start the file again with `rows` (a run rolled back to a checkpoint)."""
        with self._named():
            self.fh.seek(0)
            self.fh.truncate()
            self.csv.writeheader()
        for row in rows:
            self.write(row)

    def write(self, row):
        with self._named():
            self.csv.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
            self.fh.flush()

    def close(self):
        self.fh.close()
