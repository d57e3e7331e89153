"""The poker plugin's commands, added through register_commands: ``plot preflop`` (the 13x13
preflop chart of a hold'em strategy), ``play`` (an ACPC agent), ``match`` (duplicate matches),
``lbr`` (local best response) and ``dealer`` (an ACPC-protocol dealer)."""

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
    from solverkit.poker.players import BASELINES, BLUEPRINT_PREFIX

    specs = [s[len(BLUEPRINT_PREFIX):] if s.startswith(BLUEPRINT_PREFIX) else s for s in specs]
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
        if game.name == "blueprint" and game.num_players == 2:  # the real game's rules: the blueprint translates
            from solverkit.blueprint.player import table_rules

            return table_rules(game)
    if not is_poker_game(game):
        if game.num_players > 2:  # a tree game of N players: its matches are table matches, led by a run
            raise SolverkitError(f"game {game.name!r} has {game.num_players} players: a match of it names "
                                 f"{game.num_players} players, the first a run directory of that game (solverkit solve "
                                 f"with [game] players = {game.num_players}), the others run directories or baselines; "
                                 f"got {len(specs)}: {' '.join(specs)}")
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


def _table_run(specs):
    """The tree game of the first run directory in `specs` when it is of 3 or more players and has
    an ACPC table (N-player matches, solverkit.poker.table), else None."""
    from solverkit.cli import run_config
    from solverkit.core.config import load_config
    from solverkit.poker.table import is_table_baseline, key_map

    runs = [s for s in specs if not is_table_baseline(s)]
    if not runs or not (Path(runs[0]) / "config.toml").is_file():
        return None
    game = load_config(run_config(Path(runs[0]))).game
    if is_poker_game(game) or game.num_players == 2:  # two players: the poker engine's matches
        return None
    if game.name == "blueprint":  # its policy mapped onto the tree game of its rules (or refused by name)
        from solverkit.poker.table import blueprint_tree_game

        return blueprint_tree_game(game)
    try:
        key_map(game)
    except SolverkitError:
        return None
    return game


def _table_match(specs, hands, seed, game_name, sets, no_exact) -> bool:
    """Run and print an N-player table match when the players' game is a tree game with an
    ACPC table; False (nothing done) for the poker engine's two-player matches."""
    from solverkit.poker.table import load_table_player, run_table_match

    game = _table_run(specs)
    if game is None:
        return False
    if game_name or sets:
        raise click.BadParameter("the game of a table match is its first run directory's", param_hint="--game")
    if no_exact and not hands:
        raise click.BadParameter("with --hands 0 (the default) there is nothing left to measure: give --hands N",
                                 param_hint="--no-exact")
    players = [load_table_player(s, game) for s in specs]
    for line in run_table_match(players, hands=hands, seed=seed, exact=not no_exact).lines():
        click.echo(line)
    return True


def _nplayer_gamedef(game_name, sets):
    """The TableDef of ``acpc --set gamedef=FILE`` when FILE is a limit game of 3 or more players
    (the N-player dealer deals it from the rules alone), else None."""
    from solverkit.poker.gamedef import gamedef_text, read_gamedef
    from solverkit.poker.nplayer import parse_table

    params = _parse_sets(sets)
    if game_name != "acpc" or set(params) != {"gamedef"} or not isinstance(params["gamedef"], str):
        return None
    text, source = gamedef_text(params["gamedef"])
    betting, _, fields = read_gamedef(text, source)
    if betting != "limit" or fields.get("numplayers", (0, [2]))[1][0] == 2:
        return None
    return parse_table(text, source)


def _table_dealer(gd, hands, seed, duplicate, timeout, ports, host):
    """`solverkit dealer` of an N-player limit table: one port per seat, then each seat's chips/game."""
    from solverkit.core.address import check_port
    from solverkit.poker.table import TableDealer

    P = gd.num_players
    seat_ports = ["0"] * P if ports == "0,0" else ports.split(",")
    if len(seat_ports) != P:
        raise SolverkitError(f"--ports {ports!r:.60}: expected {P} ports, one per seat of {gd.source} (0: a free port)")
    seat_ports = [check_port(p, f"--ports {ports!r:.60}", allow_zero=True) for p in seat_ports]
    dealer = TableDealer(gd, hands, seed=seed, duplicate=duplicate, action_timeout=timeout, connect_timeout=timeout,
                         host=host, ports=seat_ports)
    click.echo(" ".join(str(p) for p in dealer.ports))
    result = dealer.run()
    for seat in range(P):
        mean, half, n = result.per_game(seat)
        click.echo(f"seat {seat}: {mean:+.4f} +/- {half:.4f} chips/game over {len(result.seat_chips)} hands")


def _bundled_game(game_name, sets):
    """(game, sets) of --game: a bundled game definition's name that is no game's is the acpc game
    of that file (holdem.nolimit.2p.reverse_blinds)."""
    from solverkit.core.registry import get_registry
    from solverkit.poker.gamedef import bundled_names

    if game_name not in get_registry().names("game") and game_name in bundled_names("any"):
        if any(s.partition("=")[0].strip() == "gamedef" for s in sets):
            raise click.BadParameter(f"--game {game_name} is a bundled game definition: drop --set gamedef=...",
                                     param_hint="--set")
        return "acpc", (*sets, f"gamedef={game_name}")
    return game_name, sets


def _parse_sets(sets):
    from solverkit.core.config_text import parse_value

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
        if _table_run([run_dir]) is not None:  # an N-player strategy of a tree game: its ACPC table
            from solverkit.poker.table import load_table_player

            player = load_table_player(run_dir)
        else:
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
    @click.argument("players", nargs=-1, required=True, metavar="A B [C ...]")
    @click.option("--hands", type=option_type("int", 0), default=0, show_default=True,
                  help="Hands of a sampled duplicate match through the dealer (even; N players: a multiple of "
                       "N!; 0: exact value only).")
    @click.option("--seed", type=option_type("int", 0), default=0, show_default=True, help="Seed of the deals.")
    @click.option("--game", "game_name", metavar="NAME", help="The game, when both players are baselines.")
    @click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE", help="A parameter of --game.")
    @click.option("--no-exact", is_flag=True, help="Skip the exact expected value.")
    def match_cmd(players, hands, seed, game_name, sets, no_exact):
        """A against B (and C ...): each a solve's output directory or a baseline (random, call,
        raise; in no-limit games the baselines bet any legal size and there is no exact value).
        A run whose config has [search] plays with search (docs/search.md); blueprint:RUN_DIR
        plays the same run's blueprint alone.

        Prints A's expected winnings in mbb/g computed exactly over every deal, both seatings,
        and with --hands N a sampled duplicate match through solverkit's ACPC dealer (each deal
        played twice with the seats swapped) with its 95% interval.

        Three to six players (strategies of kuhn_tree / leduc_tree with players = N, or of
        openspiel's kuhn_poker(players=N) or limit universal_poker; baselines random, call,
        raise, fold, example, and in 3-player Kuhn kuhn3p_eq[:c11=V,b11=V,...], the ACPC
        server's equilibrium player, docs/play.md): every player's
        chips per game, exact over every deal and seating, and sampled over N! seatings a deal."""
        from solverkit.poker.match import run_match
        from solverkit.poker.players import load_player

        if not 2 <= len(players) <= 6:
            raise click.BadParameter(f"{len(players)} player(s) {' '.join(players)!r:.80}: expected 2 to 6",
                                     param_hint="A B [C ...]")
        if _table_match(players, hands, seed, game_name, sets, no_exact):
            return
        if len(players) != 2:
            raise SolverkitError(f"{len(players)} players: matches of more than two play strategies of tree games with "
                                 "an ACPC table (kuhn_tree, leduc_tree with players = N, openspiel kuhn_poker(players=N) or "
                                 "universal_poker(betting=limit, ...)); give a run directory of one first")
        a, b = players
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

    @cli.command("lbr")
    @click.argument("run_dir", required=False, type=UserPath(file_okay=False))
    @click.option("--opponent", type=click.Choice(["call", "raise", "random"]),
                  help="Evaluate a baseline of the run's game or of --game instead of the run's strategy.")
    @click.option("--game", "game_name", metavar="NAME",
                  help="The game of --opponent without a run: a game name (acpc with --set gamedef=...) or a bundled "
                       "game definition (holdem.nolimit.2p.reverse_blinds, leduc.nolimit, ...).")
    @click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE", help="A parameter of --game.")
    @click.option("--hands", type=option_type("int", 2, 10**8), default=2000, show_default=True,
                  help="Hands to play (even: each deal twice, LBR in each seat).")
    @click.option("--seed", type=option_type("int", 0), default=0, show_default=True,
                  help="Seed of the deals, the opponent's actions and LBR's sampled rollouts.")
    @click.option("--sizes", metavar="LIST", help="No-limit bets/raises of LBR: <x>p (x pots), <x>% or a (all-in), "
                                                  "comma-separated  [default: 1p,a]")
    @click.option("--preflop", type=click.Choice(["auto", "call", "lbr"]), default="auto", show_default=True,
                  help="LBR's first round: call (check/call, the paper's hold'em setting), lbr, or auto (call when "
                       "an exact first-round rollout would be costly, i.e. hold'em).")
    def lbr_cmd(run_dir, opponent, game_name, sets, hands, seed, sizes, preflop):
        """Local best response (Lisy & Bowling 2017) against the strategy in RUN_DIR (or a baseline):
        a lower bound on its exploitability, from hands LBR plays against it in the real game.

        Prints LBR's winnings per game with a 95% interval (over deals) in chips and mbb/g, and
        writes RUN_DIR/lbr.json when it evaluates the run's strategy (docs/lbr.md)."""
        from solverkit.poker.lbr import (LocalBestResponse, opponent_for, parse_sizes, real_player, table_game,
                                         write_result)
        from solverkit.poker.players import load_player

        if hands % 2:
            raise click.BadParameter(f"{hands} is odd: each deal is played twice, LBR in each seat", param_hint="--hands")
        if sizes is not None:
            parse_sizes(sizes)  # a typo costs nothing
        if run_dir is None and opponent is None:
            raise click.BadParameter("give RUN_DIR (a solve's output) or --opponent call|raise|random with --game NAME",
                                     param_hint="RUN_DIR")
        if run_dir is not None and game_name:
            raise click.BadParameter("the game is RUN_DIR's; --game names the game of --opponent without a run",
                                     param_hint="--game")
        if run_dir is None and not game_name:
            raise click.BadParameter(f"--opponent {opponent} needs a game: RUN_DIR or --game NAME", param_hint="--game")
        if game_name:
            game_name, sets = _bundled_game(game_name, sets)
        if opponent is None:
            player = real_player(load_player(run_dir))
            game = player.game
        else:
            player = opponent
            game = table_game(game_name, _parse_sets(sets)) if game_name else None
            if game is None:
                game = _player_game([run_dir] if run_dir else [opponent], game_name, sets)
        evaluator = LocalBestResponse(game, opponent_for(game, player), sizes=sizes, preflop=preflop)
        result = evaluator.run(hands, seed)
        for line in result.lines():
            click.echo(line)
        if run_dir is not None and opponent is None:
            click.echo(f"wrote {write_result(result, Path(run_dir))}")

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

        table = _nplayer_gamedef(game_name, sets)
        if table is not None:
            _table_dealer(table, hands, seed, duplicate, timeout, ports, host)
            return
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
