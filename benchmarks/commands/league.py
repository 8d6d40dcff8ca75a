"""``goarena league [CONFIG] [options]``: play a league (or resume it) and print its standings;
``goarena league table DIR``: the standings of a league again. The league parses its own
options (``parser()`` and ``main(argv)``)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from goarena.benchmarks.commands import device_name, missing_extra, needs_extra, plain_text

if TYPE_CHECKING:
    from goarena.benchmarks.league.config import LeagueConfig


def main(argv: list[str]) -> None:
    """``goarena league ...``; Ctrl-C outside the games (which the league stops itself, keeping
    every finished one) exits 130 too."""
    try:
        league(argv)
    except KeyboardInterrupt:
        print("\ngoarena league: stopped.", file=sys.stderr)
        sys.exit(130)


def _player_option(text: str) -> tuple[str, str]:
    name, sep, spec = text.partition("=")
    if sep and name and ":" not in name and " " not in name:
        return name, spec
    return text, text


def player_specs() -> str:
    """The player specs ``--player`` takes, one line each: the built-ins from their registry,
    then the plug-ins' forms."""
    from goarena.agents.specs import BUILTIN_AGENTS, ENTRY_POINT_GROUP, PATH_SPECS

    forms = {"gtp": "gtp:COMMAND", **{name: f"{name}:PATH" for name in PATH_SPECS}}
    rows = [(forms.get(name, name), built_in.summary) for name, built_in in BUILTIN_AGENTS.items()]
    rows += [
        ("module:factory", "a factory of your own; options after a second colon"),
        ("NAME", f"a factory installed as a {ENTRY_POINT_GROUP} entry point"),
    ]
    width = max(len(spec) for spec, _ in rows) + 2
    lines = [f"  {spec:<{width}}{summary}" for spec, summary in rows]
    lines.append("goarena players [NAME ...] lists each built-in's options with what each does.")
    return "\n".join(["players (SPEC, options after a colon: uct:simulations=1000,c=0.7):", *lines])


def parser() -> argparse.ArgumentParser:
    """The options of ``goarena league``."""
    from goarena.benchmarks.league.config import SCHEDULES
    from goarena.search.settle import SETTLE_MODES

    default = (
        "Without CONFIG and --player options the default league is played: random, UCT at 30, 300 "
        "and 3000 playouts, and GNU Go at levels 1 and 10 when it is installed."
    )
    parser = argparse.ArgumentParser(
        prog="goarena league",
        description=plain_text(league.__doc__ or ""),
        epilog=f"{player_specs()}\n\n{plain_text(default)}",
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the lines of the list of players
    )
    parser.add_argument("config", nargs="?", type=Path, help="league TOML file (see the module docs)")
    parser.add_argument(
        "--player",
        action="append",
        metavar="[NAME=]SPEC",
        help="a player (repeat; the specs are listed below); replaces the file's players. "
        "e.g. --player uct-1k=uct:simulations=1000",
    )
    parser.add_argument(
        "--dir", type=Path, default=None, help="the league's directory (default runs/league/NAME)"
    )
    parser.add_argument("--name", help="the league's name")
    parser.add_argument("--size", type=int, help="board size (default 9)")
    parser.add_argument("--rules", help="rules preset (goarena, tromp-taylor, chinese, japanese-like)")
    parser.add_argument(
        "--komi",
        type=float,
        help="komi (default: the board size's, go_env.default_komi: 7 on 9x9 as CGOS, 7.5 on others)",
    )
    parser.add_argument("--games-per-pair", type=int, help="games per pairing, colours alternating")
    parser.add_argument("--schedule", choices=SCHEDULES, help="round-robin (default) or gauntlet")
    parser.add_argument("--challenger", help="the gauntlet's challenger (a player name)")
    parser.add_argument("--seconds-per-move", type=float, help="a slower move loses on time")
    parser.add_argument("--seed", type=int, help="the league's seed")
    parser.add_argument(
        "--opening-moves",
        type=int,
        metavar="M",
        help="start each pair of games (one with each colour) from M random moves, so that "
        "deterministic players play different games (default 0)",
    )
    parser.add_argument("--anchor", metavar="NAME[=ELO]", help="the player whose rating is fixed")
    parser.add_argument(
        "--settle",
        choices=SETTLE_MODES,
        help="score two passes: count, cleanup (default with engines), status",
    )
    parser.add_argument(
        "--arbiter", metavar="SPEC", help="with --settle status: the engine that names dead stones"
    )
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="games at once (default: cores)"
    )
    parser.add_argument(
        "--device",
        type=device_name,
        default="cpu",
        help="where the players' networks run unless their specs say: cpu (default), cuda, cuda:N",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run the games on Ray (local without ADDRESS)",
    )
    parser.add_argument("--json", action="store_true", help="print the final standings as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no live progress display")
    return parser


def league_config(args: argparse.Namespace) -> LeagueConfig:
    """The league that ``goarena league``'s options describe (a file's, changed by the options)."""
    from goarena.benchmarks.league.config import LeagueConfig, LeagueConfigError
    from goarena.benchmarks.league.play import default_config, load_config

    base = load_config(args.config) if args.config else None
    data = base.to_dict() if base else default_config().to_dict()
    if base is None:
        data["komi"] = None  # the board size's (go_env.default_komi), --size included
    if args.player:
        data["players"] = {}
        for name, spec in map(_player_option, args.player):
            if name in data["players"]:
                raise LeagueConfigError(
                    f"--player: two players are named {name!r} ({data['players'][name]} and {spec}); "
                    "give each a name of its own (NAME=SPEC)"
                )
            data["players"][name] = spec
        if base is None:
            data["name"] = "league"
    for option in LeagueConfig.__dataclass_fields__.keys() - {"players", "anchor", "anchor_elo"}:
        value = getattr(args, option)
        if value is not None:
            data[option] = value
    if args.anchor:
        name, _, elo = args.anchor.partition("=")
        try:
            data["anchor"], data["anchor_elo"] = name, float(elo) if elo else 0.0
        except ValueError:
            raise LeagueConfigError(f"--anchor takes NAME or NAME=ELO, got {args.anchor!r}") from None
    return LeagueConfig.from_dict(data)


def league(argv: list[str]) -> None:
    """``goarena league [CONFIG] [options]``: play a league (or resume it) and print its standings;
    ``goarena league table DIR``: the standings of a league again."""
    from goarena.benchmarks.commands.gtp import private_stdout

    if argv[:1] == ["table"]:
        league_table(argv[1:])
        return
    args = parser().parse_args(argv)
    # With --json, stdout is the JSON's alone: what players write there goes to stderr.
    with private_stdout() if args.json else contextlib.nullcontext(sys.stdout) as out:
        _league(args, out)


def _league(args: argparse.Namespace, out: TextIO) -> None:
    """Play the league of ``args``, printing its standings to ``out``."""
    from goarena.benchmarks.league import standings
    from goarena.benchmarks.league.config import LeagueConfigError
    from goarena.benchmarks.league.play import (
        LeagueSetupError,
        check_players,
        open_league,
        play_league,
        slug,
        warm_up,
    )
    from goarena.benchmarks.league.runner import LeagueRunError
    from goarena.benchmarks.league.store import LeagueStoreError

    try:  # everything is checked before anything is written
        config = league_config(args)
        check_players(config, args.device)
        directory = args.dir or Path("runs") / "league" / slug(config.name)
        store, games = open_league(config, directory)
    except (LeagueConfigError, LeagueStoreError) as error:
        extra = missing_extra(error)  # a player of an extra that is not installed (sb3)
        sys.exit(f"goarena league: {error}" + (f"; {needs_extra('it', extra)}" if extra else ""))
    with store:
        try:
            warm_up(config)
            progress = standings.LiveProgress(
                config, len(games), enabled=not args.no_progress and not args.json, finished=store.games()
            )
            with progress:
                unplayed = play_league(
                    store,
                    games,
                    workers=max(1, args.workers),
                    use_ray=args.ray is not None,
                    ray_address=args.ray or None,
                    on_game=progress.update,
                    device=args.device,
                )
            report = standings.build_report(store)
        except (LeagueRunError, RuntimeError) as error:
            sys.exit(f"goarena league: {error}")
        except KeyboardInterrupt:  # the workers are stopped; every finished game is stored
            kept = f"{len(store.finished_ids())} of {len(games)} games kept in {directory}"
            print(f"\ngoarena league: stopped; {kept}. Run the same command to resume.", file=sys.stderr)
            sys.exit(130)
    if args.json:
        print(json.dumps(report.to_json(), indent=2), file=out, flush=True)
        if report.crashes:
            print(f"goarena league: {standings.crash_summary(report)}", file=sys.stderr)
    else:
        standings.print_report(report)
        try:
            png = standings.plot_ladder(report, directory / "ladder.png")
        except OSError as error:
            sys.exit(f"goarena league: cannot write the ladder plot: {error}")
        print(f"\n{next_steps(directory, png)}")
    if unplayed:  # after the standings of the games that were played
        sys.exit(f"goarena league: {LeagueSetupError(unplayed, directory)}")


def next_steps(directory: Path, png: Path) -> str:
    """The league's last lines: where its games are and how to look at them."""
    return "\n".join(
        [
            f"Games (SGF) and results in {directory}; ladder plot {png}.",
            f"Watch and replay the games in a browser: goarena serve --dir {directory}",
            f"The tables again: goarena league table {directory}  (--json for machines)",
        ]
    )


def league_table(argv: list[str]) -> None:
    """``goarena league table DIR``: the standings of a league, finished or not."""
    parser = argparse.ArgumentParser(
        prog="goarena league table", description=plain_text(league_table.__doc__ or "")
    )
    parser.add_argument("directory", type=Path, help="the league's directory")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--plot", type=Path, help="also write the ladder plot here (PNG)")
    args = parser.parse_args(argv)
    from goarena.benchmarks.league.standings import build_report, plot_ladder, print_report
    from goarena.benchmarks.league.store import LeagueStore, LeagueStoreError

    try:
        store = LeagueStore.open_existing(args.directory)
        report = build_report(store)
        store.close()
    except LeagueStoreError as error:
        raise SystemExit(f"goarena league table: {error}") from None
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print_report(report)
    if args.plot:
        plot_ladder(report, args.plot)
