"""The ``goarena`` command line."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from go_env import Game, Rules
from go_env.rules import RULES_PRESETS

if TYPE_CHECKING:
    from goarena.benchmarks.league.config import LeagueConfig


def demo(args: argparse.Namespace) -> None:
    """Random against random: the games, their results, and optionally their SGF."""
    rules = Rules.preset(args.rules, komi=args.komi) if args.komi is not None else Rules.preset(args.rules)
    rng = np.random.default_rng(args.seed)
    black_wins = 0
    for index in range(args.games):
        game = Game(args.size, rules)
        while not game.is_over:
            game.play(int(rng.choice(game.legal_moves())))
        black_wins += game.winner() == 1
        how = "two passes" if game.is_terminated else "move cap"
        print(f"game {index + 1}: {game.result():>8s} after {game.move_number} moves ({how})")
        if args.games == 1 or args.show:
            print(game, end="\n\n")
        if args.sgf:
            from go_env.sgf import save_sgf

            path = f"{args.sgf}-{index + 1}.sgf" if args.games > 1 else f"{args.sgf}.sgf"
            save_sgf(path, game, black="random", white="random")
            print(f"  wrote {path}")
    print(f"Black won {black_wins} of {args.games} under {rules.name} rules, komi {rules.komi:g}")


def bench(args: argparse.Namespace) -> None:
    """``goarena bench WHAT [options]``: run one benchmark and print its figures."""
    if args.what == "env":
        from goarena.benchmarks.bench import env_speed

        env_speed.show(args.sizes, args.seconds, args.json)
    elif args.what == "vector":
        from goarena.benchmarks.bench import vector_speed

        vector_speed.show(args.sizes, args.num_envs, args.seconds)
    elif args.what == "search":
        from goarena.benchmarks.bench import search_speed

        search_speed.show(args.size, args.simulations, args.repeat, args.batched_simulations)
    elif args.what == "league":
        from goarena.benchmarks.bench import league_speed

        league_speed.show(args.games_per_pair, args.workers, not args.no_ray)
    elif args.what == "strength":
        from goarena.benchmarks.bench import strength

        strength.show(
            args.agent, args.opponent, args.level, args.games, args.size, args.komi, args.out, args.workers
        )
    elif args.what == "networks":
        from goarena.benchmarks.bench import network_speed

        network_speed.show(args.policy, args.rollout, args.seconds, args.threads, args.device)
    elif args.what == "value":
        from goarena.benchmarks.bench import value

        rollout_weights = args.rollout_weights or value.ROLLOUT_9X9
        value.show(
            args.data, args.weights, args.positions, args.rollouts, rollout_weights, args.held_out, args.seed
        )
    elif args.what == "alphago":
        from goarena.benchmarks.bench import alphago_speed

        alphago_speed.show(args.seconds, args.positions, args.spacing, args.compare_threads)
    elif args.what == "threads":
        from goarena.benchmarks.bench import threads

        threads.show(args.size, args.batches, args.seconds)
    elif args.what == "ablation":
        from goarena.agents.weights import VALUE_9X9
        from goarena.benchmarks.bench import ablation
        from goarena.benchmarks.league.runner import LeagueRunError
        from goarena.benchmarks.league.store import LeagueStoreError

        try:
            ablation.show(
                args.value or VALUE_9X9,
                args.simulations,
                args.seconds,
                args.games_per_pair,
                args.komi,
                args.out,
                args.workers,
            )
        except (ValueError, LeagueStoreError, LeagueRunError) as error:
            sys.exit(f"goarena bench ablation: {error}")


def add_bench_parsers(benchmark: argparse.ArgumentParser) -> None:
    """The options of each benchmark (the modules in benchmarks/bench/ take them as arguments)."""
    kinds = benchmark.add_subparsers(dest="what", required=True)
    env = kinds.add_parser("env", help="random-play steps per second against PettingZoo, OpenSpiel, pgx")
    env.add_argument("--sizes", type=int, nargs="+", default=[9, 19], help="board sizes (default 9 19)")
    env.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    env.add_argument("--json", action="store_true", help="print the measurements as JSON")
    vector = kinds.add_parser("vector", help="learner steps per second: GoEnv, SyncVectorEnv, GoVectorEnv")
    vector.add_argument("--sizes", type=int, nargs="+", default=[9, 19], help="board sizes (default 9 19)")
    vector.add_argument("--num-envs", type=int, default=64, help="sub-envs of the vector envs (default 64)")
    vector.add_argument("--seconds", type=float, default=2.0, help="time per measurement (default 2)")
    search = kinds.add_parser("search", help="UCT playouts, PUCT and batched PUCT simulations per second")
    search.add_argument("--size", type=int, default=9, help="board size (default 9)")
    search.add_argument("--simulations", type=int, default=20000, help="per timed search (default 20000)")
    search.add_argument("--repeat", type=int, default=3, help="timed searches per row (default 3)")
    search.add_argument(
        "--batched-simulations", type=int, default=400, help="per game in batched PUCT (default 400)"
    )
    league = kinds.add_parser("league", help="league throughput: games per minute by worker count")
    league.add_argument("--games-per-pair", type=int, default=40, help="games per pairing (default 40)")
    league.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (default 1 2)")
    league.add_argument("--no-ray", action="store_true", help="leave out the Ray run")
    strength = kinds.add_parser("strength", help="a player against GNU Go, with a Wilson interval")
    strength.add_argument("--agent", required=True, help="our player's spec, e.g. 'uct:seconds=1.5'")
    strength.add_argument("--opponent", default=None, help="opponent spec (default: GNU Go at --level)")
    strength.add_argument(
        "--level", type=int, default=1, help="GNU Go's level without --opponent (default 1)"
    )
    strength.add_argument("--games", type=int, default=20, help="games, colours alternating (default 20)")
    strength.add_argument("--size", type=int, default=9, help="board size (default 9)")
    strength.add_argument("--komi", type=float, default=7.0, help="komi (default 7)")
    strength.add_argument("--out", type=Path, default=None, help="folder for the league (resumable)")
    strength.add_argument("--workers", type=int, default=1, help="games at once (default 1: a core a move)")
    networks = kinds.add_parser(
        "networks", help="feature planes, SL policy evaluations and pattern playouts per second"
    )
    networks.add_argument("--policy", type=Path, default=None, help="policy.pt (default: the shipped 9x9)")
    networks.add_argument("--rollout", type=Path, default=None, help="rollout.npz (default: the shipped 9x9)")
    networks.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    networks.add_argument("--threads", type=int, default=1, help="torch's CPU threads (default 1)")
    networks.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    value = kinds.add_parser("value", help="the value net's MSE and time against pattern-rollout estimates")
    value.add_argument("--data", type=Path, required=True, help="value positions (goarena data value)")
    value.add_argument("--weights", type=Path, required=True, help="the value net (value.pt)")
    value.add_argument("--positions", type=int, default=256, help="held-out positions scored (default 256)")
    value.add_argument(
        "--rollouts", type=int, default=100, help="pattern rollouts per position (default 100)"
    )
    value.add_argument(
        "--rollout-weights", type=Path, default=None, help="rollout policy (default: the shipped 9x9 one)"
    )
    value.add_argument(
        "--held-out", type=float, default=0.05, help="fraction held out in training (default 0.05)"
    )
    value.add_argument(
        "--seed", type=int, default=0, help="the training run's seed, for its split (default 0)"
    )
    alphago = kinds.add_parser(
        "alphago", help="AlphaGo's simulations per second: expansion threshold, bfloat16, the default"
    )
    alphago.add_argument("--seconds", type=float, default=1.0, help="search time per position (default 1)")
    alphago.add_argument("--positions", type=int, default=6, help="positions searched (default 6)")
    alphago.add_argument("--spacing", type=int, default=10, help="moves between positions (default 10)")
    alphago.add_argument(
        "--compare-threads",
        action="store_true",
        help="also the default configuration with numba's default threads and with NUMBA_NUM_THREADS=1",
    )
    threads = kinds.add_parser("threads", help="each batch kernel serial against parallel, by batch size")
    threads.add_argument("--size", type=int, default=9, help="board size (default 9)")
    threads.add_argument(
        "--batches", type=int, nargs="+", default=None, help="batch sizes (default 1 2 4 ... 256)"
    )
    threads.add_argument(
        "--seconds", type=float, default=0.2, help="time per variant and batch size (default 0.2)"
    )
    ablation = kinds.add_parser(
        "ablation", help="AlphaGo's ablation: rollouts, value net, mixed, no prior, raw policies"
    )
    ablation.add_argument("--value", type=Path, default=None, help="value.pt (default: the shipped 9x9)")
    ablation.add_argument(
        "--simulations", type=int, default=200, help="per move in the equal-simulations league (0: skip)"
    )
    ablation.add_argument(
        "--seconds", type=float, default=0.5, help="per move in the equal-time league (0: skip)"
    )
    ablation.add_argument("--games-per-pair", type=int, default=10, help="games per pairing (default 10)")
    ablation.add_argument("--komi", type=float, default=7.0, help="komi (default 7)")
    ablation.add_argument(
        "--out", type=Path, default=Path("runs/ablation"), help="folder of the leagues (resumable)"
    )
    ablation.add_argument("--workers", type=int, default=1, help="games at once (default 1: a core a move)")


def gtp(args: argparse.Namespace) -> None:
    """Serve a player as a GTP engine on stdin and stdout."""
    from goarena.agents.base import AgentSpecError, Closeable, make_agent
    from goarena.agents.gtp.engine import GTPEngine, warm_up_in_background

    rules = Rules.preset(args.rules, komi=args.komi) if args.komi is not None else Rules.preset(args.rules)
    set_threads(args.threads)  # this process serves one game: its threads are the command's to set
    try:
        agent = make_agent(args.agent)
    except AgentSpecError as error:  # a bad spec or a bad network file: a message, not a traceback
        sys.exit(f"goarena gtp: {error}")
    # Compiling in the background: protocol commands answer at once, moves wait for it.
    ready = warm_up_in_background(agent, args.size, _log)
    try:
        engine = GTPEngine(agent, size=args.size, rules=rules, ready=ready, device=args.device)
        engine.run(sys.stdin, sys.stdout)
    finally:
        if isinstance(agent, Closeable):
            agent.close()


def set_threads(threads: int) -> None:
    """torch's CPU threads for this process, when torch is installed (a player that loads a
    network runs on them); numba's are left to their kernels."""
    try:
        from goarena.agents.nets.predict import set_torch_threads
    except ImportError:  # goarena without its agents extra: no network player to run
        return
    set_torch_threads(threads)


def warmup(args: argparse.Namespace) -> None:
    """Compile the kernels of the game and of the players ahead of time (numba keeps them in
    its cache): those of ``--player`` SPECs, else of every built-in player."""
    from goarena.agents.base import BUILTIN_AGENTS, AgentSpecError, player_warmup
    from goarena.search.warmup import warmup as warm_up

    warmups = []
    for spec in args.player or BUILTIN_AGENTS:
        try:
            warm = player_warmup(spec)
        except AgentSpecError as error:  # a built-in whose extra is not installed (sb3)
            if args.player:
                raise
            _log(f"skipping {spec}: {error}")
            continue
        if warm is not None:
            warmups.append(warm)
    seconds = warm_up(args.size, log=_log, warmups=warmups)
    print(f"kernels ready in {seconds:.1f} s")


def data(args: argparse.Namespace) -> None:
    """Training data: GNU Go's self-play records, SGF folders as training shards, value positions."""
    if args.what == "value":
        from goarena.agents.data import value

        value.main(args.rest)
    elif args.what == "gnugo":
        from goarena.agents.data import gnugo

        config = gnugo.GnuGoConfig(args.out, args.size, args.games, args.level, args.komi, args.seed)
        gnugo.run(config, workers=args.workers)
    else:
        from goarena.agents.data import shards

        shards.run(args.sgf_dir, args.out_dir, size=args.size, workers=args.workers)


def train(args: argparse.Namespace) -> None:
    """Train a network: the job parses its own options."""
    from goarena.agents.training import rl, rollout, sb3, sl, value

    {"sl": sl, "rollout": rollout, "rl": rl, "value": value, "sb3": sb3}[args.job].main(args.rest)


def _log(line: str) -> None:
    print(f"goarena: {line}", file=sys.stderr, flush=True)


def _player_option(text: str) -> tuple[str, str]:
    name, sep, spec = text.partition("=")
    if sep and name and ":" not in name and " " not in name:
        return name, spec
    return text, text


def league_parser() -> argparse.ArgumentParser:
    """The options of ``goarena league``."""
    from goarena.benchmarks.league.config import SCHEDULES
    from goarena.benchmarks.match.settle import SETTLE_MODES

    parser = argparse.ArgumentParser(
        prog="goarena league",
        description="Play a league (round robin or gauntlet) and rate its players. "
        "`goarena league table DIR` prints the standings of a league again.",
        epilog="Without CONFIG and --player options the default league is played: random, "
        "UCT at 30, 300 and 3000 playouts, and GNU Go at levels 1 and 10 when it is installed.",
    )
    parser.add_argument("config", nargs="?", type=Path, help="league TOML file (see the module docs)")
    parser.add_argument(
        "--player",
        action="append",
        metavar="[NAME=]SPEC",
        help="a player (repeat); replaces the file's players. e.g. --player uct-1k=uct:playouts=1000",
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
        help="komi (default 7, as 9x9 CGOS; the envs default to 7.5, which allows no draw)",
    )
    parser.add_argument("--games-per-pair", type=int, help="games per pairing, colours alternating")
    parser.add_argument("--schedule", choices=SCHEDULES, help="round-robin (default) or gauntlet")
    parser.add_argument("--challenger", help="the gauntlet's challenger (a player name)")
    parser.add_argument("--seconds-per-move", type=float, help="a slower move loses on time")
    parser.add_argument("--seed", type=int, help="the league's seed")
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
    if args.player:
        data["players"] = dict(_player_option(p) for p in args.player)
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


def device_name(text: str) -> str:
    """A device name, checked by its form here (without importing torch); whether it is there
    is checked before the first game (``league.play.check_players``) or at the player's reset."""
    if not re.fullmatch(r"cpu|cuda(:\d+)?", text):
        raise argparse.ArgumentTypeError(f"unsupported device {text!r}: use cpu, cuda or cuda:N")
    return text


def league(argv: list[str]) -> None:
    """``goarena league [CONFIG] [options]``: play a league (or resume it) and print its standings;
    ``goarena league table DIR``: the standings of a league again."""
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

    if argv[:1] == ["table"]:
        league_table(argv[1:])
        return
    args = league_parser().parse_args(argv)
    try:  # everything is checked before anything is written
        config = league_config(args)
        check_players(config, args.device)
        directory = args.dir or Path("runs") / "league" / slug(config.name)
        store, games = open_league(config, directory)
    except (LeagueConfigError, LeagueStoreError) as error:
        sys.exit(f"goarena league: {error}")
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
        print(json.dumps(report.to_json(), indent=2))
        if report.crashes:
            print(f"goarena league: {standings.crash_summary(report)}", file=sys.stderr)
    else:
        standings.print_report(report)
        try:
            png = standings.plot_ladder(report, directory / "ladder.png")
        except OSError as error:
            sys.exit(f"goarena league: cannot write the ladder plot: {error}")
        print(f"\nGames (SGF) and results in {directory}; ladder plot {png}")
    if unplayed:  # after the standings of the games that were played
        sys.exit(f"goarena league: {LeagueSetupError(unplayed, directory)}")


def league_table(argv: list[str]) -> None:
    """``goarena league table DIR``: the standings of a league, finished or not."""
    parser = argparse.ArgumentParser(prog="goarena league table", description=league_table.__doc__)
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


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["league"]:  # the league parses its own options
        try:
            league(argv[1:])
        except KeyboardInterrupt:  # outside its games (those it stops itself): nothing to keep
            print("\ngoarena league: stopped.", file=sys.stderr)
            sys.exit(130)
        return
    parser = argparse.ArgumentParser(prog="goarena", description="An AlphaGo-style arena for the game of Go.")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser(
        "league", help="play a league and rate its players (goarena league --help); goarena league table DIR"
    )

    play = commands.add_parser("demo", help="play random games and show them")
    play.add_argument("--size", type=int, default=9, help="board size (default 9)")
    play.add_argument("--games", type=int, default=1, help="number of games (default 1)")
    play.add_argument("--rules", choices=sorted(RULES_PRESETS), default="goarena", help="rules preset")
    play.add_argument("--komi", type=float, default=None, help="komi (default: the preset's)")
    play.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    play.add_argument("--show", action="store_true", help="print every final board")
    play.add_argument("--sgf", metavar="PREFIX", help="write each game to PREFIX[-n].sgf")
    play.set_defaults(run=demo)

    benchmark = commands.add_parser(
        "bench",
        help="a benchmark: env, vector, search, networks, alphago, threads, league, strength, value,"
        " ablation",
    )
    add_bench_parsers(benchmark)
    benchmark.set_defaults(run=bench)

    engine = commands.add_parser("gtp", help="serve a player as a GTP engine on stdin/stdout")
    engine.add_argument("--agent", default="random", help="player spec, e.g. random or uct:playouts=800")
    engine.add_argument("--size", type=int, default=19, help="initial board size (default 19)")
    engine.add_argument("--rules", choices=sorted(RULES_PRESETS), default="goarena", help="rules preset")
    engine.add_argument("--komi", type=float, default=None, help="komi (default: the preset's)")
    engine.add_argument(
        "--device", type=device_name, default="cpu", help="where a network player runs: cpu (default), cuda"
    )
    engine.add_argument("--threads", type=int, default=1, help="torch's CPU threads (default 1)")
    engine.set_defaults(run=gtp)

    warm = commands.add_parser("warmup", help="compile the kernels now, so that no player waits for it later")
    warm.add_argument("--size", type=int, default=9, help="board size of the position used (default 9)")
    warm.add_argument(
        "--player",
        action="append",
        metavar="SPEC",
        help="warm up this player's kernels (repeat); default: every built-in player's",
    )
    warm.set_defaults(run=warmup)

    expert = commands.add_parser(
        "data", help="training data: gnugo (self-play SGF), shards (SGF -> shards), value"
    )
    kinds = expert.add_subparsers(dest="what", required=True)
    gnugo = kinds.add_parser("gnugo", help="GNU Go plays itself: one SGF per game (rerun to resume)")
    gnugo.add_argument("--out", type=Path, required=True, help="folder of the games (game-000000.sgf, ...)")
    gnugo.add_argument("--games", type=int, required=True, help="number of games")
    gnugo.add_argument("--size", type=int, default=9, help="board size (default 9)")
    gnugo.add_argument("--level", type=int, default=1, help="GNU Go's level, 0 to 10 (default 1)")
    gnugo.add_argument("--komi", type=float, default=7.0, help="komi (default 7)")
    gnugo.add_argument("--seed", type=int, default=0, help="seed of the games (default 0)")
    gnugo.add_argument("--workers", type=int, default=1, help="games at once, one GNU Go each (default 1)")
    gnugo.set_defaults(run=data)
    shard = kinds.add_parser("shards", help="a folder tree of SGF files as training shards (rerun to resume)")
    shard.add_argument("sgf_dir", type=Path, help="folder searched for .sgf files")
    shard.add_argument("out_dir", type=Path, help="folder of the shards, manifest.json and report.json")
    shard.add_argument("--size", type=int, default=9, help="board size of the games kept (default 9)")
    shard.add_argument("--workers", type=int, default=1, help="processes reading files (default 1)")
    shard.set_defaults(run=data)
    positions = kinds.add_parser(
        "value",
        add_help=False,  # the job's own parser answers -h
        help="self-play positions for the value network, one per game (rerun to resume)",
    )
    positions.set_defaults(run=data, passes_options_on=True)  # to the job's parser

    trainer = commands.add_parser(
        "train",
        help="train a network: sl (policy net on expert moves), rollout (fast rollout policy), "
        "rl (policy net by self-play), value (value net on self-play positions), "
        "sb3 (MaskablePPO on the Gymnasium env)",
    )
    trainer.add_argument("job", choices=["sl", "rollout", "rl", "value", "sb3"])
    trainer.add_argument("rest", nargs=argparse.REMAINDER, help="the job's options (goarena train JOB -h)")
    trainer.set_defaults(run=train)

    args, rest = parser.parse_known_args(argv)
    if getattr(args, "passes_options_on", False):
        args.rest = rest
    elif rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        args.run(args)
    except (ValueError, OSError) as error:
        sys.exit(f"goarena: {error}")


if __name__ == "__main__":
    main()
