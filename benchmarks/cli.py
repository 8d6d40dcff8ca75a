"""The ``goarena`` command line."""

from __future__ import annotations

import argparse
import sys
import threading
import traceback

import numpy as np

from go_env import Game, Rules
from go_env.rules import RULES_PRESETS


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
    if args.what == "env":
        from benchmarks.bench import env_speed

        env_speed.main(args.rest)
    elif args.what == "search":
        from benchmarks.bench import search_speed

        search_speed.main(args.rest)
    elif args.what == "league":
        from benchmarks.bench import league_speed

        league_speed.main(args.rest)
    elif args.what == "strength":
        from benchmarks.bench import strength

        strength.main(args.rest)


def gtp(args: argparse.Namespace) -> None:
    """Serve a player as a GTP engine on stdin and stdout."""
    from agents.base import Closeable, make_agent
    from agents.gtp.engine import GTPEngine

    rules = Rules.preset(args.rules, komi=args.komi) if args.komi is not None else Rules.preset(args.rules)
    agent = make_agent(args.agent)
    # Compiling in the background: protocol commands answer at once, moves wait for it.
    ready = _warm_up_in_background(args.agent.partition(":")[0], args.size)
    try:
        GTPEngine(agent, size=args.size, rules=rules, ready=ready).run(sys.stdin, sys.stdout)
    finally:
        if isinstance(agent, Closeable):
            agent.close()


def warmup(args: argparse.Namespace) -> None:
    """Compile every kernel ahead of time (numba keeps them in its cache)."""
    from search.warmup import warmup as warm_up

    seconds = warm_up(args.size, log=_log)
    print(f"kernels ready in {seconds:.1f} s")


def _log(line: str) -> None:
    print(f"goarena: {line}", file=sys.stderr, flush=True)


def _warm_up_in_background(player: str, size: int) -> threading.Event:
    """Warm up the kernels of the game and of ``player`` (a built-in's name) in a thread; the
    event is set when it is done, failed or not (kernels left cold compile when first used)."""
    from search.warmup import warmup as warm_up

    ready = threading.Event()

    def run() -> None:
        compiled = False

        def log(line: str) -> None:
            nonlocal compiled
            compiled = True
            _log(line)

        try:
            seconds = warm_up(size, log=log, players=[player])
            if compiled:
                _log(f"kernels ready in {seconds:.1f} s")
        except Exception:
            traceback.print_exc(file=sys.stderr)
        finally:
            ready.set()

    threading.Thread(target=run, name="warmup", daemon=True).start()
    return ready


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["league"]:  # the league parses its own options
        try:
            from benchmarks.league.play import main as league

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
        "bench", help="a benchmark: env (random play), search, strength (vs GNU Go), league (throughput)"
    )
    benchmark.add_argument("what", choices=["env", "search", "strength", "league"])
    benchmark.add_argument("rest", nargs=argparse.REMAINDER, help="options for the benchmark")
    benchmark.set_defaults(run=bench)

    engine = commands.add_parser("gtp", help="serve a player as a GTP engine on stdin/stdout")
    engine.add_argument("--agent", default="random", help="player spec, e.g. random or uct:playouts=800")
    engine.add_argument("--size", type=int, default=19, help="initial board size (default 19)")
    engine.add_argument("--rules", choices=sorted(RULES_PRESETS), default="goarena", help="rules preset")
    engine.add_argument("--komi", type=float, default=None, help="komi (default: the preset's)")
    engine.set_defaults(run=gtp)

    warm = commands.add_parser("warmup", help="compile the kernels now, so that no player waits for it later")
    warm.add_argument("--size", type=int, default=9, help="board size of the position used (default 9)")
    warm.set_defaults(run=warmup)

    args = parser.parse_args(argv)
    try:
        args.run(args)
    except (ValueError, OSError) as error:
        sys.exit(f"goarena: {error}")


if __name__ == "__main__":
    main()
