"""The Python API for notebooks and scripts: load a game, solve an assembly, read the policy by
information-set key, and measure the exploitability of any policy a user builds.

    >>> import solverkit
    >>> sol = solverkit.solve({"game": "kuhn_tree", "preset": "cfr_plus"}, iterations=200)
    >>> sol.policy("Ks||c")         # {action: probability}
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import ConfigError, SolverkitError

#: a user policy's probabilities must sum to 1 within this tolerance per information set
SUM_TOLERANCE = 1e-6


def load_game(name: str, /, **params):
    """The game plugin `name` built with `params` (checked like a config's ``[game]`` table)."""
    from .core.config import load_config

    if "name" in params:
        raise ConfigError(f"load_game({name!r}, name={params['name']!r}): the game is named once, by the first "
                          "argument; its parameters follow as keywords")

    # the game table is checked as in a config; the preset only fills the other sections
    return load_config({"preset": "cfr_plus", "game": {"name": name, **params}}).game


def _override_strings(overrides: dict) -> list[str]:
    """Keyword overrides as ``--set`` strings: ``preset="cfr"`` or ``solver={"update": ...}``."""
    import tomli_w

    from .core.params import plain_value

    def text(where, v):
        try:
            return tomli_w.dumps({"v": plain_value(v)})[4:].strip()
        except (TypeError, ValueError):  # None, sets, objects: nothing a config can hold
            raise ConfigError(f"solve(..., {where}={_short(v)}) is invalid: expected a TOML value (a string, "
                              "number, boolean, or a list or table of them)") from None

    from .core.config_text import PLUGIN_SECTIONS, TOP_KEYS

    named = (*PLUGIN_SECTIONS, "sampler")  # a plugin name stands for its table, as in a config: game="leduc"
    out = []
    for section, value in overrides.items():
        if isinstance(value, dict):
            for key, v in value.items():
                out.append(f"{section}.{key}={text(f'{section}.{key}', v)}")
        elif section in named and isinstance(value, str):
            out.append(f"{section}.name={text(section, value)}")
        elif section in TOP_KEYS and section != "preset":  # it said "--set key 'solver' is not SECTION.PARAM"
            what = " or a plugin name (a string)" if section in named else ""
            raise ConfigError(f"solve(..., {section}={_short(value)}) is invalid: expected a dict of [{section}] "
                              f"values{what}, e.g. {section}={{...}}")
        else:
            out.append(f"{section}={text(section, value)}")
    return out


def _short(value, limit: int = 60) -> str:
    """repr of a bad argument, shortened so that an error stays one readable line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Solution:
    """A finished solve: the :class:`~solverkit.core.solver.Result` (its fields are readable
    here too: ``exploitability``, ``iterations``, ``br``, ``metrics`` ..., and ``fields``, the
    game's own: a spot's ``ev`` and ``equity``), the game, and the output strategy readable by
    information-set key (a spot's nodes by :meth:`node`)."""

    def __init__(self, result, game):
        self.result = result
        self.game = game

    def __getattr__(self, name):
        if name in ("result", "game"):
            raise AttributeError(name)
        return getattr(self.result, name)

    def _strategy(self):
        if self.result.strategy is None:
            where = f" (read {self.result.out}/strategy.npz)" if self.result.out else ""
            raise SolverkitError(f"game {self.game.name!r}: this solve kept no strategy in memory, it is too "
                                 f"large{where}")
        return self.result.strategy

    def node(self, path: str = ""):
        """A spot's node by the line to it (as ``solverkit strategy --node``): a
        :class:`solverkit.poker.node_view.NodeView` with each combo's weight, strategy, EV, equity and EQR."""
        if not hasattr(self.game, "node_view"):
            raise SolverkitError(f"game {self.game.name!r} has no node view (holdem_spot has)")
        return self.game.node_view(self._strategy(), path)

    @property
    def policy_tables(self) -> list[dict[str, dict[str, float]]]:
        """Per player: information-set key -> {action label: probability}."""
        tables = self.__dict__.get("_tables")
        if tables is None:
            strategy = self._strategy()
            tables = [policy_dict(self.game, strategy, p) for p in range(self.game.num_players)]
            self.__dict__["_tables"] = tables
        return tables

    @property
    def policy_table(self) -> dict[str, dict[str, float]]:
        """Every player's information-set keys -> {action label: probability}."""
        merged: dict[str, dict[str, float]] = {}
        for table in self.policy_tables:
            both = set(merged) & set(table)
            if both:
                raise SolverkitError(f"game {self.game.name!r}: key {sorted(both)[0]!r} names information sets of "
                                     "two players; use policy_tables[player]")
            merged.update(table)
        return merged

    def policy(self, key: str, player: int | None = None) -> dict[str, float]:
        """{action label: probability} at the information set `key` (of `player` when both
        players have a set with that key), found as the game finds it (:meth:`Game.infoset_place`:
        poker keys in any suits map to the canonical set stored; an impossible or unknown key is
        a SolverkitError naming it)."""
        _check_query(key, player)
        place = self.game.infoset_place(key, player)
        values = self._strategy()[place.player][place.offset: place.offset + len(place.labels)]
        return {label: float(x) for label, x in zip(place.labels, values)}

    def __repr__(self):
        return (f"Solution(game={self.game.name!r}, iterations={self.result.iterations}, "
                f"exploitability={self.result.exploitability:.6g})")


def solve(config, iterations=None, target=None, out=None, progress=False, **overrides) -> Solution:
    """Solve an assembly: `config` is a TOML path, a config dict, or an Assembly; keyword
    `overrides` change it first (``preset="cfr"``, ``solver={"update": "simultaneous"}``,
    ``game={"name": "leduc_tree"}``). Returns a :class:`Solution`."""
    from .core.config import Assembly, load_config
    from .core.solver import run_solve

    if isinstance(config, Assembly):  # (a Solution has a .game too: it is no assembly)
        if overrides:
            raise ConfigError("solve(assembly, ...): overrides apply to a TOML path or a dict, not to a built "
                              "Assembly")
        assembly = config
    elif isinstance(config, (str, Path, dict)):
        source = config  # a str stays a str: Path("") would be the working directory
        assembly = load_config(source, overrides=_override_strings(overrides))
    else:
        raise ConfigError(f"solve(config={_short(config)}): expected a TOML path, a config dict or an Assembly")
    if out is not None:
        from .core.params import expand_path

        if isinstance(out, str) and not out.strip():  # Path("") is the working directory
            raise ConfigError(f"solve(..., out={out!r}) is empty: give a directory for the run's outputs "
                              "(e.g. out='runs/mine'), or leave out=None to write nothing")
        out = expand_path(out, "solve(..., out)")
    made = _check_out_dir(out) if out is not None else []
    try:
        result = run_solve(assembly, iterations=iterations, target=target, out=out, progress=progress,
                           notice=_notice)
    except BaseException:  # refused (iterations=0 ...) or failed: the folders made for it go if still empty
        for path in reversed(made):
            try:
                path.rmdir()
            except OSError:
                break
        raise
    return Solution(result, assembly.game)


#: whether this process has said that the kernels are compiling (the API says it once)
_compiling_said = False


def _notice(line: str) -> None:
    """A solve's notice on stderr: the kernels compiling (a first solve can sit ~20 s before its
    first iteration), once per process, and anything else the solver has to say."""
    import sys

    from .core.solver import COMPILE_NOTICE

    global _compiling_said
    if line == COMPILE_NOTICE:
        if _compiling_said:
            return
        _compiling_said = True
    print(line, file=sys.stderr, flush=True)


def _check_out_dir(out: Path) -> list[Path]:
    """Make the output directory `out` if it does not exist yet, or a ConfigError naming it and
    why (a file on its way, no permission, a read-only file system) before anything runs; returns
    the directories it made, outermost first."""
    if out.exists():
        return []  # a directory, or a file that the solve's own check names
    made = [p for p in [out, *out.parents] if not p.exists()][::-1]
    try:
        out.mkdir(parents=True)
        return made
    except OSError as exc:
        raise ConfigError(f"solve(..., out={str(out)!r}): cannot make the directory: "
                          f"{exc.strerror or exc}") from None


def read_policy(run_dir, key: str, player: int | None = None) -> dict[str, float]:
    """{action label: probability} at information set `key` (as the game's ``infoset_keys`` name
    it, poker ``'<hand>|<board>|<betting>'``) of the strategy a solve saved in `run_dir`, read
    without loading the strategy: from the part of a distributed strategy (``strategy.skm``)
    that holds it, or from its slice of ``strategy.npz``. `player`: when both players have a
    set with that key. A SolverkitError names an unknown key (with close matches) or a missing
    part (its file and the worker that wrote it)."""
    from .core.params import expand_path
    from .core.strategy_query import read_infoset

    _check_query(key, player)
    return read_infoset(expand_path(run_dir, "read_policy(run_dir)"), key, player).probabilities


def _check_query(key, player) -> None:
    """An information-set query's key is a string and its player None, 0 or 1 (a ConfigError
    otherwise, before a look-up that would fail with a TypeError)."""
    if not isinstance(key, str):
        raise ConfigError(f"information-set key {_short(key)} is invalid: expected a string, as the game's "
                          "infoset_keys(player) give them")
    if player is not None and (isinstance(player, bool) or player not in (0, 1)):
        raise ConfigError(f"player = {_short(player)} is invalid: expected 0, 1 or None (whichever has the key)")


def policy_dict(game, strategy, player: int) -> dict[str, dict[str, float]]:
    """Player `player`'s flat policy as information-set key -> {action label: probability}
    (slots no deal reaches, :meth:`Game.impossible_infosets`, left out)."""
    table = {}
    lay = game.layout(player)
    for key, labels, (start, _n), skip in zip(game.infoset_keys(player), game.infoset_actions(player),
                                             lay.infoset_slices(), game.impossible_infosets(player)):
        if not skip:
            table[key] = {label: float(strategy[player][start + i]) for i, label in enumerate(labels)}
    return table


def flat_policy(game, policy) -> list[np.ndarray]:
    """Per-player flat arrays (the game's layout) from a user policy: one flat array per player, or
    a dict information-set key -> {action label: probability} (OpenSpiel games: the label is the action
    id, given as an int or a string) or a sequence of probabilities in the game's action order.
    Every information set must be given (not slots no deal reaches, :meth:`Game.impossible_infosets`);
    ConfigErrors name the key and the bad value."""
    if (isinstance(policy, (list, tuple)) and len(policy) == game.num_players
            and not isinstance(policy[0], (dict, str))):
        out = []
        for p in range(game.num_players):
            x = _real_numbers(policy[p], f"policy of player {p}")
            size = game.layout(p).size
            if x.size != size:
                raise ConfigError(f"policy of player {p} has {x.size} values; game {game.name!r} lays out {size} "
                                  "(information sets x actions, see game.layout(p))")
            for key, (start, n) in zip(game.infoset_keys(p), game.layout(p).infoset_slices()):
                _check_probs(game, key, x[start : start + n])
            out.append(x)
        return out
    if not isinstance(policy, dict):
        raise ConfigError(f"policy must be a dict (information-set key -> action probabilities) or two flat "
                          f"arrays, got {type(policy).__name__}")
    used = set()
    out = []
    for p in range(game.num_players):
        lay = game.layout(p)
        x = np.zeros(lay.size)
        missing = []
        for key, labels, (start, n), impossible in zip(game.infoset_keys(p), game.infoset_actions(p),
                                                       lay.infoset_slices(), game.impossible_infosets(p)):
            if key not in policy:
                if impossible:  # no deal reaches it: any policy there is the same, uniform
                    x[start : start + n] = 1.0 / n
                else:
                    missing.append(key)
                continue
            used.add(key)
            x[start : start + n] = _probs_of(game, key, labels, policy[key])
        if missing:
            raise ConfigError(f"policy gives no probabilities for {len(missing)} information set(s) of player {p}, "
                              f"first {missing[0]!r}; every information set needs them")
        out.append(x)
    extra = [k for k in policy if k not in used]
    if extra:
        raise ConfigError(f"policy key {extra[0]!r} is not an information set of game {game.name!r} "
                          f"({len(extra)} unknown key(s)); keys look like {game.infoset_keys(0)[0]!r}")
    return out


def _probs_of(game, key, labels, probs) -> np.ndarray:
    n = len(labels)
    if isinstance(probs, dict):
        x = np.zeros(n)
        index = {label: i for i, label in enumerate(labels)}
        for a, pr in probs.items():
            i = index.get(str(a)) if isinstance(a, (str, int, np.integer)) and not isinstance(a, bool) else None
            if i is None:
                raise ConfigError(f"information set {key!r}: action {_short(a)} is not legal; valid: {', '.join(labels)} "
                                  "(its action labels; or give a list of probabilities in this order)")
            x[i] = _real_numbers([pr], f"information set {key!r}: probability of action {a!r}")[0]
    else:
        x = _real_numbers(probs, f"information set {key!r}: probabilities")
        if x.size != n:
            raise ConfigError(f"information set {key!r}: {x.size} probabilities for {n} actions ({', '.join(labels)})")
    _check_probs(game, key, x)
    return x


def _real_numbers(values, where: str) -> np.ndarray:
    """`values` (a number or a flat sequence of them) as float64, or a ConfigError naming `where`:
    complex numbers (whose imaginary part a cast drops), booleans, strings, None and nested
    lists are refused rather than converted."""
    try:
        x = np.asarray(values)
    except ValueError:  # a ragged nested sequence
        raise ConfigError(f"{where} = {_short(values)} is invalid: expected a flat list of numbers") from None
    if x.dtype.kind not in "iuf" or x.ndim > 1:
        what = {"c": "complex numbers", "b": "booleans", "U": "strings", "S": "bytes"}.get(x.dtype.kind)
        what = what or ("nested lists" if x.ndim > 1 else f"values of type {x.dtype}")
        raise ConfigError(f"{where} = {_short(values)} is invalid: expected real numbers (int or float), got {what}")
    return x.astype(np.float64).ravel()


def _check_probs(game, key, x) -> None:
    if not np.all(np.isfinite(x)) or np.any(x < 0.0) or abs(float(x.sum()) - 1.0) > SUM_TOLERANCE:
        raise ConfigError(f"information set {key!r}: probabilities {x.tolist()} must be finite, >= 0 and sum to 1")


def exploitability(game, policy) -> float:
    """Exploitability (br_0 + br_1) / 2 of a policy profile in the game's utility unit (NashConv /
    players with more than two); `game` is a Game or a game name, `policy` as :func:`flat_policy`
    takes it."""
    from .core.game import Game

    if isinstance(game, str):
        game = load_game(game)
    elif not isinstance(game, Game):
        raise ConfigError(f"exploitability(game={_short(game)}): expected a game (solverkit.load_game) or a game name")
    if game.num_players != 2:  # NashConv / players (docs/players.md)
        from .core.solver import exploitability as of_profile

        return of_profile(game, flat_policy(game, policy))[0]
    br0, br1 = game.best_response(flat_policy(game, policy))
    return (br0 + br1) / 2.0
