"""OpenSpielGame: an OpenSpiel game as a TreeGame: two-player zero-sum, or three to six players
(any utilities: the engine then reports NashConv, docs/players.md).

pyspiel is imported only when the game's rules are needed (the tree enumerated, an OpenSpiel
TabularPolicy made, a state played), never at registration, so solverkit runs without OpenSpiel
installed; a game whose enumerated tree is in the disk cache (solverkit.efg.tree_cache, keyed by
the game string and the installed open_spiel version) is solved without importing it (issue 30:
its import adds 15 MB to a solve process). Information-set keys are OpenSpiel's
information-state strings and actions its action ids, so a solved strategy exports as an
OpenSpiel tabular policy unchanged.
Simultaneous-move games go through ``pyspiel.convert_to_turn_based``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys

from solverkit.core.params import Param
from solverkit.efg import TreeGame
from solverkit.errors import ConfigError


def import_pyspiel():
    """pyspiel, or a ConfigError that says how to install it."""
    try:
        import pyspiel
    except ImportError:
        raise ConfigError("game 'openspiel' needs OpenSpiel, which is not installed: pip install open-spiel "
                          "(or pip install 'solverkit[openspiel]')") from None
    return pyspiel


def openspiel_version() -> str | None:
    """The installed open_spiel distribution's version, read from its package metadata without
    importing pyspiel (None: pyspiel cannot be found, or its version cannot be read)."""
    from importlib import metadata, util

    try:
        if util.find_spec("pyspiel") is None:
            return None
        return metadata.version("open_spiel")
    except (ValueError, metadata.PackageNotFoundError):
        return None


@functools.cache
def _code_digest() -> str:
    """SHA-256 of the code that decides an OpenSpiel tree's nodes and keys (this bridge and the
    enumeration), read once a process: an edit of either is a new cache key."""
    from solverkit.core.identity import files_digest
    from solverkit.efg import build

    return files_digest((__file__, build.__file__))


#: the most players the engine takes (its kernels take any number; the platform's tables stop here)
MAX_PLAYERS = 6


def load_openspiel(spec: str):
    """The pyspiel game for `spec`, turn-based, after checking that the engine can solve it."""
    pyspiel = import_pyspiel()
    name = spec.split("(", 1)[0].strip()
    names = list(pyspiel.registered_names())
    if name not in names:  # before load_game, whose message lists every game
        import difflib

        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        hint = f"close matches: {', '.join(close)}" if close else f"{len(names)} games: pyspiel.registered_names()"
        raise ConfigError(f"[game] game = {spec!r:.80}: OpenSpiel cannot load it: no game {name!r:.60}; {hint}")
    try:
        with _quiet_stderr():  # OpenSpiel's C++ also prints its message there
            game = pyspiel.load_game(spec)
    except Exception as exc:  # pyspiel raises its own SpielError (or RuntimeError) here
        text = " ".join(str(exc).split())
        raise ConfigError(f"[game] game = {spec!r:.80}: OpenSpiel cannot load it: {text[:300]}") from None
    t = game.get_type()
    if not 2 <= game.num_players() <= MAX_PLAYERS:
        raise ConfigError(f"[game] game = {spec!r:.80} has {game.num_players()} players; the engine solves games "
                          f"of 2 to {MAX_PLAYERS} players")
    if game.num_players() == 2 and t.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise ConfigError(f"[game] game = {spec!r:.80} has utility {t.utility.name}; the engine solves zero-sum "
                          "games (ZERO_SUM) of two players (of 3 to 6 players: any utilities)")
    if t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise ConfigError(f"[game] game = {spec!r:.80} has sampled chance (SAMPLED_STOCHASTIC); the tree needs "
                          "explicit chance outcomes")
    if not t.provides_information_state_string:
        raise ConfigError(f"[game] game = {spec!r:.80} provides no information-state strings; the engine keys "
                          "information sets by them (perfect recall)")
    if t.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    return game


@contextlib.contextmanager
def _quiet_stderr():
    """File descriptor 2 sent to /dev/null for the block: the error then reaches the user once, as
    solverkit's one line, not also as OpenSpiel's own print."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class OpenSpielGame(TreeGame):
    """Any OpenSpiel game with perfect recall (``pyspiel.load_game`` string): two-player zero-sum,
    or three to six players."""

    name = "openspiel"
    description = ("an OpenSpiel game (game = pyspiel.load_game string): two-player zero-sum, or 3 to 6 players; "
                   "generic tree engine")
    params = {
        **TreeGame.params,
        "game": Param("str", None, "pyspiel.load_game string, e.g. \"kuhn_poker\" or \"liars_dice(dice_sides=3)\"",
                      required=True),
    }

    @classmethod
    def local_files(cls, params):
        """The game string when it names a file (``efg_game(filename=...)`` and the like):
        pyspiel reads it, so it cannot travel as content."""
        spec = params.get("game")
        return {"game": spec} if isinstance(spec, str) and "filename" in spec else {}

    def __init__(self, **params):
        self.spec = str(params["game"])
        super().__init__(**params)

    @functools.cached_property
    def os_game(self):
        """The pyspiel game, loaded (and checked: :func:`load_openspiel`) on first use: on a tree
        cache miss when the enumeration first asks :attr:`num_players`, before it walks anything, so
        a bad game string still fails in one line first; on a cache hit only when something needs
        OpenSpiel's rules (an OpenSpiel TabularPolicy, playing states)."""
        return load_openspiel(self.spec)

    @property
    def num_players(self) -> int:
        """From the tree once it is built (a cached tree: without pyspiel), else from OpenSpiel."""
        tree = self.__dict__.get("tree")
        return tree.num_players if tree is not None else int(self.os_game.num_players())

    def tree_cache_key(self):
        """The game string, the installed open_spiel version (from its package metadata: pyspiel is
        not imported) and a digest of the bridge's code. A game read from a file is not cached (its
        file may change under the same string), nor is one whose OpenSpiel version cannot be read.
        A key is only ever written after the string loaded and passed :func:`load_openspiel`'s
        checks, so a cache hit means the string was valid, for this version, when it was cached."""
        if "filename" in self.spec:
            return None
        version = openspiel_version()
        return None if version is None else f"openspiel|{self.spec}|open_spiel={version}|code={_code_digest()}"

    def initial_state(self):
        return self.os_game.new_initial_state()

    def is_terminal(self, state):
        return state.is_terminal()

    def returns(self, state):
        return tuple(state.returns())

    def player(self, state):
        return self.CHANCE if state.is_chance_node() else state.current_player()

    def legal_actions(self, state):
        return state.legal_actions()

    def chance_outcomes(self, state):
        return state.chance_outcomes()

    def child(self, state, action):
        return state.child(action)

    def infoset_key(self, state, player):
        return state.information_state_string(player)

    def openspiel_table(self, strategy):
        """OpenSpiel information-state string -> {action id: probability}."""
        table = {}
        for p in range(self.num_players):
            lay = self.layout(p)
            for key, acts, (start, _n) in zip(self.tree.keys[p], self.tree.actions[p], lay.infoset_slices()):
                table[key] = {int(a): float(strategy[p][start + i]) for i, a in enumerate(acts)}
        return table

    def openspiel_policy(self, strategy):
        """An OpenSpiel TabularPolicy of `strategy` over this game (for OpenSpiel's own tools)."""
        from open_spiel.python import policy as os_policy

        pol = os_policy.TabularPolicy(self.os_game)
        for key, probs in self.openspiel_table(strategy).items():
            row = pol.state_lookup[key]
            pol.action_probability_array[row] = 0.0
            for a, pr in probs.items():
                pol.action_probability_array[row, a] = pr
        return pol
