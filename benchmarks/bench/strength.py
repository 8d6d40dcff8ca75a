"""Playing strength: one of our players against an external GTP engine, GNU Go by default.

Plays N games on 9x9 (by default), alternating colours, writes every game as SGF, and
prints the win rate with a 95% Wilson interval and our seconds per move::

    goarena bench strength --agent "uct:seconds=1.5" --games 20 --level 1
    goarena bench strength --agent "uct:seconds=1.5" --games 20 --level 10 --out runs/vs-gnugo-10

Games that end by two passes are settled by the engine's own ``final_score``: engines such
as GNU Go pass with dead stones still on the board, and counting such a board by
Tromp-Taylor would name the wrong winner. Both counts are kept in ``results.jsonl``. A run
that is stopped can be started again with the same ``--out``: finished games are kept.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from agents.base import Closeable, make_agent
from agents.gtp import GTPAgent
from benchmarks.match.referee import play_game
from go_env import BLACK, WHITE, Game, Rules
from go_env.game import result_string

GNUGO = "gnugo --mode gtp --chinese-rules --positional-superko"  # area scoring and superko, as Rules()


@dataclass(frozen=True)
class MatchGame:
    """One game of the match, from our player's side."""

    index: int
    our_color: str
    result: str  # the settled result (SGF RE)
    board_count: str  # the plain area count of the final board (or the forfeit result)
    reason: str
    won: bool
    moves: int
    our_seconds_per_move: float


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (draws counted as half a win)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_one(
    index: int, agent_spec: str, opponent_spec: str, size: int, rules: Rules, out: Path
) -> MatchGame:
    """Game ``index``: our player takes Black in even games, White in odd ones."""
    ours, theirs = make_agent(agent_spec), make_agent(opponent_spec)
    our_color = BLACK if index % 2 == 0 else WHITE
    black, white = (ours, theirs) if our_color == BLACK else (theirs, ours)
    try:
        record = play_game(black, white, size, rules)
        result = record.result
        if record.reason == "two passes" and isinstance(theirs, GTPAgent):
            game = Game(size, rules)
            game.replay(record.moves)
            result = result_string(theirs.final_score(game))
    finally:
        for player in (ours, theirs):
            if isinstance(player, Closeable):
                player.close()
    sgf = record.sgf or ""
    if result != record.result and sgf:
        sgf = sgf.replace(f"RE[{record.result}]", f"RE[{result}]", 1)
    (out / f"game-{index:03d}.sgf").write_text(sgf)
    seconds = record.black_seconds if our_color == BLACK else record.white_seconds
    winner = result[0] if result != "0" else ""
    return MatchGame(
        index=index,
        our_color="black" if our_color == BLACK else "white",
        result=result,
        board_count=record.result,
        reason=record.reason,
        won=winner == ("B" if our_color == BLACK else "W"),
        moves=len(record.moves),
        our_seconds_per_move=statistics.fmean(seconds) if seconds else 0.0,
    )


def run(
    agent_spec: str, opponent_spec: str, games: int, size: int, rules: Rules, out: Path, workers: int
) -> list[MatchGame]:
    """Play the games not yet in ``out/results.jsonl``; return all of them."""
    out.mkdir(parents=True, exist_ok=True)
    results_file = out / "results.jsonl"
    done = {}
    if results_file.exists():
        for line in results_file.read_text().splitlines():
            game = MatchGame(**json.loads(line))
            done[game.index] = game
    todo = [i for i in range(games) if i not in done]
    with ProcessPoolExecutor(max_workers=workers) as pool, results_file.open("a") as log:
        futures = [pool.submit(play_one, i, agent_spec, opponent_spec, size, rules, out) for i in todo]
        for future in futures:
            game = future.result()
            done[game.index] = game
            log.write(json.dumps(asdict(game)) + "\n")
            log.flush()
            print(
                f"game {game.index + 1:3d}: ours {game.our_color:5s} {game.result:>7s} "
                f"({game.reason}; board count {game.board_count}) {'won' if game.won else 'lost'}, "
                f"{game.moves} moves, {game.our_seconds_per_move:.2f} s/move",
                flush=True,
            )
    return [done[i] for i in range(games)]


def report(games: list[MatchGame], agent_spec: str, opponent_spec: str) -> str:
    wins = sum(g.won for g in games) + 0.5 * sum(g.result == "0" for g in games)
    low, high = wilson_interval(wins, len(games))
    seconds = statistics.fmean(g.our_seconds_per_move for g in games) if games else 0.0
    by_color = {
        color: (sum(g.won for g in games if g.our_color == color), sum(g.our_color == color for g in games))
        for color in ("black", "white")
    }
    return (
        f"{agent_spec} vs {opponent_spec}: {wins:g}/{len(games)} = {wins / max(len(games), 1):.0%} "
        f"(95% CI {low:.0%}-{high:.0%}); as Black {by_color['black'][0]}/{by_color['black'][1]}, "
        f"as White {by_color['white'][0]}/{by_color['white'][1]}; {seconds:.2f} s per move"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="goarena bench strength", description=__doc__.splitlines()[0])
    parser.add_argument("--agent", required=True, help="our player's spec, e.g. 'uct:seconds=1.5'")
    parser.add_argument("--opponent", default=None, help=f"opponent spec (default: 'gtp:{GNUGO} --level L')")
    parser.add_argument("--level", type=int, default=1, help="GNU Go's level when no --opponent (default 1)")
    parser.add_argument("--games", type=int, default=20, help="games, colours alternating (default 20)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.0, help="komi (default 7)")
    parser.add_argument("--out", type=Path, default=None, help="folder for SGF and results (resumable)")
    parser.add_argument("--workers", type=int, default=1, help="games at once (default 1: one core per move)")
    args = parser.parse_args(argv)
    opponent = args.opponent or f"gtp:{GNUGO} --level {args.level}"
    rules = Rules(komi=args.komi)
    slug = "".join(c if c.isalnum() else "-" for c in shlex.join([args.agent, opponent]))[:80]
    out = args.out or Path("runs") / "strength" / slug
    games = run(args.agent, opponent, args.games, args.size, rules, out, args.workers)
    print(report(games, args.agent, opponent))
    print(f"SGF and results in {out}")


if __name__ == "__main__":
    main()
