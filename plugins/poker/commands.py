"""The poker plugin's commands, added through register_commands: ``plot preflop`` (the 13x13
preflop chart of a hold'em strategy), ``play`` (an ACPC agent), ``match`` (duplicate matches)
and ``dealer`` (an ACPC-protocol dealer)."""

from __future__ import annotations

from pathlib import Path

import click

from solverkit.core.params import UserPath, option_type
from solverkit.errors import SolverkitError

#: longest --timeout accepted, seconds (a year: sockets refuse timeouts beyond their clock's range)
MAX_TIMEOUT = 365 * 86400.0


def is_poker_game(game) -> bool:
    """Whether `game` is a game of the poker engine (see solverkit.poker.players.is_poker_game)."""
    from solverkit.poker.players import is_poker_game as poker

    return poker(game)


def add_commands(cli: click.Group) -> None:
    """Add ``preflop`` to the ``plot`` group of the ``solverkit`` command line `cli`, and the
    ``play``, ``match`` and ``dealer`` commands."""
    add_play_commands(cli)

    @cli.commands["plot"].command("preflop")
    @click.argument("run_dir", type=UserPath(file_okay=False))
    @click.option("--output", "-o", type=UserPath(dir_okay=False), help="PNG to write (default RUN_DIR/preflop.png).")
    def plot_preflop_cmd(run_dir, output):
        """The 13x13 preflop chart of a hold'em strategy (fold red, call blue, raise green)."""
        from solverkit.cli import run_config
        from solverkit.core.config import load_config
        from solverkit.core.strategy_file import load_strategy
        from solverkit.poker.preflop import plot_preflop

        from solverkit.cli import _check_not_a_run_file

        if output is not None:  # before the strategy is read: a typo costs nothing
            _check_not_a_run_file(output, "RUN_DIR/preflop.png")
            _check_image_suffix(output)
        run_dir = Path(run_dir)
        assembly = load_config(run_config(run_dir))
        if not is_poker_game(assembly.game):
            raise SolverkitError(f"game {assembly.game.name!r} is not a poker game; a preflop chart needs hold'em")
        strategy, layouts, meta = load_strategy(run_dir / "strategy.npz", assembly.game, str(run_config(run_dir)))
        path = Path(output) if output else run_dir / "preflop.png"
        try:
            plot_preflop(assembly.game, strategy, path,
                         title=f"{assembly.game.name}: {meta['kind']} strategy after {meta['iteration']} iterations "
                               "(fold red, call blue, raise green)")
        except OSError as exc:  # no such folder, no permission, a full disk
            raise SolverkitError(f"cannot write {path}: {exc.strerror or exc}") from None
        click.echo(f"wrote {path}")


def _check_image_suffix(output: str) -> None:
    """Refuse a plot --output whose extension names no image format matplotlib writes (-o chart.toml
    was a ValueError traceback from savefig); no extension: PNG."""
    suffix = Path(output).suffix.lower().lstrip(".")
    if suffix:
        from matplotlib.figure import Figure

        formats = Figure().canvas.get_supported_filetypes()
        if suffix not in formats:
            raise SolverkitError(f"--output {output}: '.{suffix}' is no image format; valid: "
                                 f"{', '.join(sorted(formats))} (e.g. preflop.png)")


def _player_game(specs, game_name, sets):
    """The game of a match or a dealer: --game (with --set), else the first run directory's."""
    from solverkit.cli import run_config
    from solverkit.core.config import load_config
    from solverkit.poker.players import BASELINES

    if sets and not game_name:  # it would be ignored: the game is the first run's, as it solved it
        raise click.BadParameter(f"{sets[0]!r:.60} needs --game NAME (without it the game is the first run "
                                 "directory's, with the parameters it was solved with)", param_hint="--set")
    if game_name:
        from solverkit.api import load_game

        params = _parse_sets(sets)
        table = _nolimit_table(game_name, params, specs)
        if table is not None:
            return table
        game = load_game(game_name, **params)
    else:
        runs = [s for s in specs if s not in BASELINES]
        if not runs:
            raise SolverkitError(f"{' and '.join(specs)} are baselines: name the game with --game")
        if not (Path(runs[0]) / "config.toml").is_file():
            raise SolverkitError(f"{runs[0]!r} is neither a solve output directory (no config.toml) nor a baseline "
                                 f"({', '.join(sorted(BASELINES))})")
        game = load_config(run_config(Path(runs[0]))).game
    if not is_poker_game(game):
        raise SolverkitError(f"game {game.name!r} is not a poker game of the poker engine")
    return game


def _nolimit_table(game_name, params, specs):
    """A no-limit ``acpc`` game definition for a dealer or a match of baselines only (NoLimitTable:
    they play the real game, so no abstraction's tree is built, and full no-limit hold'em fits);
    None for anything else."""
    from solverkit.poker.dealer import NoLimitTable
    from solverkit.poker.gamedef import load_any_gamedef
    from solverkit.poker.gamedef_nolimit import NoLimitGameDef
    from solverkit.poker.players import BASELINES
    from .games import AcpcGame

    if game_name != "acpc" or not isinstance(params.get("gamedef"), str) or any(s not in BASELINES for s in specs):
        return None
    unknown = [k for k in params if k not in AcpcGame.params]
    if unknown:
        return None  # the game's own check names it
    gd = load_any_gamedef(params["gamedef"])
    return NoLimitTable(gd) if isinstance(gd, NoLimitGameDef) else None


def _parse_sets(sets):
    from solverkit.core.config import parse_value

    out = {}
    for item in sets:
        key, sep, value = item.partition("=")
        if not sep:
            raise SolverkitError(f"--set {item!r}: expected PARAM=VALUE")
        out[key.strip()] = parse_value(value.strip())
    return out


def add_play_commands(cli: click.Group) -> None:
    """``play`` (an ACPC agent), ``match`` (duplicate matches) and ``dealer`` (an ACPC dealer)."""

    @cli.command("play")
    @click.argument("run_dir", type=UserPath(file_okay=False))
    @click.option("--connect", "address", required=True, metavar="HOST:PORT", help="The dealer's seat to play.")
    @click.option("--seed", type=option_type("int", 0), default=0, show_default=True, help="Seed of the action sampling.")
    @click.option("--timeout", type=option_type("float", 0.1, MAX_TIMEOUT), default=30.0, show_default=True,
                  help="Seconds to wait for each whole line from the dealer before giving up.")
    def play_cmd(run_dir, address, seed, timeout):
        """Play the strategy in RUN_DIR at an ACPC dealer (protocol 2.0.0) until the match ends.

        No-limit games: the opponent's bets of sizes the strategy's abstraction lacks are mapped
        by the pseudo-harmonic mapping (seeded by --seed); the agent bets its tree's sizes."""
        from solverkit.poker.dealer import play_agent
        from solverkit.poker.players import load_player

        from solverkit.core.address import split_host_port

        host, port = split_host_port(address, "--connect")  # before loading: a typo costs nothing
        player = load_player(run_dir)
        click.echo(f"playing {player.name} at {host}:{port}", err=True)
        stats = play_agent(player, host, port, seed=seed, timeout=timeout)
        click.echo(f"match over: {stats['hands']} hands, {stats['actions']} actions")
        counts = getattr(player, "stats", None)  # a no-limit agent's translation
        if counts:
            click.echo(f"translation: {counts['translated']} opponent sizes off the tree mapped (pseudo-harmonic), "
                       f"{counts['off_tree_hands']} hands finished off the tree (check/call), {counts['clamped']} "
                       "own bets clamped to the legal sizes")

    @cli.command("match")
    @click.argument("a")
    @click.argument("b")
    @click.option("--hands", type=option_type("int", 0), default=0, show_default=True,
                  help="Hands of a sampled duplicate match through the dealer (even; 0: exact value only).")
    @click.option("--seed", type=option_type("int", 0), default=0, show_default=True, help="Seed of the deals.")
    @click.option("--game", "game_name", metavar="NAME", help="The game, when both players are baselines.")
    @click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE", help="A parameter of --game.")
    @click.option("--no-exact", is_flag=True, help="Skip the exact expected value.")
    def match_cmd(a, b, hands, seed, game_name, sets, no_exact):
        """A against B: each a solve's output directory or a baseline (random, call, raise; in
        no-limit games the baselines bet any legal size and there is no exact value).

        Prints A's expected winnings in mbb/g computed exactly over every deal, both seatings,
        and with --hands N a sampled duplicate match through solverkit's ACPC dealer (each deal
        played twice with the seats swapped) with its 95% interval."""
        from solverkit.poker.match import run_match
        from solverkit.poker.players import load_player

        if hands % 2:
            raise click.BadParameter(f"{hands} is odd: a duplicate match plays each deal twice", param_hint="--hands")
        if no_exact and not hands:  # it printed the two players' names and exited 0, having measured nothing
            raise click.BadParameter("with --hands 0 (the default) there is nothing left to measure: give --hands N "
                                     "(even, >= 2) for a sampled match, or drop --no-exact", param_hint="--no-exact")
        game = _player_game([a, b], game_name, sets)
        pa, pb = load_player(a, game), load_player(b, game)
        report = run_match(game, pa, pb, hands=hands, seed=seed, exact=not no_exact)
        for line in report.lines():
            click.echo(line)

    @cli.command("dealer")
    @click.argument("game_name", metavar="GAME")
    @click.option("--hands", type=option_type("int", 1), default=1000, show_default=True, help="Hands to deal.")
    @click.option("--seed", type=option_type("int", 0), default=0, show_default=True, help="Seed of the deals.")
    @click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE", help="A game parameter.")
    @click.option("--duplicate/--no-duplicate", default=True, show_default=True,
                  help="Play each deal twice with the seats swapped.")
    @click.option("--timeout", type=option_type("float", 0.1, MAX_TIMEOUT), default=60.0, show_default=True,
                  help="Seconds to wait for a seat to connect or to act.")
    @click.option("--ports", default="0,0", show_default=True, metavar="P1,P2",
                  help="The seats' ports (0: a free port picked by the system).")
    @click.option("--host", default="127.0.0.1", show_default=True,
                  help="The address to listen on (0.0.0.0: every interface).")
    def dealer_cmd(game_name, hands, seed, sets, duplicate, timeout, ports, host):
        """Deal a match of GAME over the ACPC protocol: prints one port per seat, then each seat's
        winnings when the match ends."""
        from solverkit.poker.dealer import Dealer
        from solverkit.poker.match import mbb

        from solverkit.core.address import check_port

        seat_ports = ports.split(",")
        if len(seat_ports) != 2:
            raise SolverkitError(f"--ports {ports!r:.60}: expected two ports P1,P2 (0: a free port), e.g. 18791,18792")
        seat_ports = [check_port(p, f"--ports {ports!r:.60}", allow_zero=True) for p in seat_ports]
        game = _player_game([], game_name, sets)
        dealer = Dealer(game, hands, seed=seed, duplicate=duplicate, action_timeout=timeout, connect_timeout=timeout,
                        host=host, ports=seat_ports)
        click.echo(" ".join(str(p) for p in dealer.ports), err=False)
        result = dealer.run()
        for seat in (0, 1):
            mean, half, n = result.per_game(seat, mbb(game))
            click.echo(f"seat {seat}: {mean:+.2f} +/- {half:.2f} mbb/g over {n} hands")
