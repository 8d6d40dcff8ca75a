"""Playing strength: one of our players against an external GTP engine, GNU Go by default.

The match is a gauntlet league of two players, ``agent`` (the challenger) and ``opponent``,
played, settled and stored as every league is (``goarena league --help``): N games on 9x9 by
default, colours alternating, each committed to ``league.sqlite`` and written as SGF in the
run's folder, so a run that is stopped and started again with the same ``--out`` plays only
the games still missing. Games that end by two passes are settled by a clean-up phase, the
league's way with engines such as GNU Go that pass with dead stones still on the board. At
the end it prints the win rate with a 95% Wilson interval and our seconds per move::

    goarena bench strength --agent "uct:seconds=1.5" --games 20 --level 1
    goarena bench strength --agent "uct:seconds=1.5" --games 20 --level 10 --out runs/vs-gnugo-10
"""

from __future__ import annotations

import argparse
import math
import shlex
from pathlib import Path

from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.play import run_league
from goarena.benchmarks.league.store import StoredGame

GNUGO = "gnugo --mode gtp --chinese-rules --positional-superko"  # area scoring and superko, as Rules()
AGENT, OPPONENT = "agent", "opponent"  # the players' names in the league


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (draws counted as half a win)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def strength_league(
    agent_spec: str, opponent_spec: str, games: int, size: int, komi: float | None
) -> LeagueConfig:
    """The match as a league: a gauntlet of ``agent`` against ``opponent``, ``games`` games."""
    return LeagueConfig(
        name="strength",
        players={AGENT: agent_spec, OPPONENT: opponent_spec},
        size=size,
        komi=komi,
        games_per_pair=games,
        schedule="gauntlet",
        challenger=AGENT,
        anchor=OPPONENT,
        anchor_elo=0.0,
    )


def run(
    agent_spec: str, opponent_spec: str, games: int, size: int, komi: float | None, out: Path, workers: int
) -> list[StoredGame]:
    """Play the match's games not yet stored in ``out``; return all of them, in order."""
    config = strength_league(agent_spec, opponent_spec, games, size, komi)
    with run_league(config, out, workers=workers, on_game=_show) as store:
        return sorted(store.games(), key=lambda game: game.id)


def _show(game: StoredGame, finished: int, total: int) -> None:
    our_color = "black" if game.black == AGENT else "white"
    print(
        f"game {game.id + 1:3d}: ours {our_color:5s} {game.result:>7s} ({game.reason}), {finished}/{total}",
        flush=True,
    )


def our_score(game: StoredGame) -> float:
    """1 for our win, 0.5 for a draw, 0 for a loss."""
    return game.black_score if game.black == AGENT else 1.0 - game.black_score


def our_turns(game: StoredGame) -> int:
    """The times we were asked for a move: the moves we played, and the one we resigned (or
    lost on time or by forfeit) at, whose thinking time is ours too."""
    played = len(game.moves.split()[0 if game.black == AGENT else 1 :: 2])
    return played + (game.result[2:] in ("R", "T", "F") and our_score(game) == 0.0)


def report(games: list[StoredGame], agent_spec: str, opponent_spec: str) -> str:
    """The win rate with its 95% Wilson interval, by colour, and our seconds per move."""
    wins = sum(our_score(game) for game in games)
    low, high = wilson_interval(wins, len(games))
    moves = sum(our_turns(game) for game in games)
    seconds = sum(game.black_seconds if game.black == AGENT else game.white_seconds for game in games)
    by_color = {
        color: (
            sum(our_score(g) == 1.0 for g in games if (g.black == AGENT) == (color == "black")),
            sum((g.black == AGENT) == (color == "black") for g in games),
        )
        for color in ("black", "white")
    }
    return (
        f"{agent_spec} vs {opponent_spec}: {wins:g}/{len(games)} = {wins / max(len(games), 1):.0%} "
        f"(95% CI {low:.0%}-{high:.0%}); as Black {by_color['black'][0]}/{by_color['black'][1]}, "
        f"as White {by_color['white'][0]}/{by_color['white'][1]}; {seconds / max(moves, 1):.2f} s per move"
    )


def show(
    agent: str,
    opponent: str | None,
    level: int,
    games: int,
    size: int,
    komi: float | None,
    out: Path | None,
    workers: int,
) -> None:
    """``goarena bench strength``: play (or resume) the gauntlet and print its summary."""
    opponent = opponent or f"gtp:{GNUGO} --level {level}"
    slug = "".join(c if c.isalnum() else "-" for c in shlex.join([agent, opponent]))[:80]
    out = out or Path("runs") / "strength" / slug
    played = run(agent, opponent, games, size, komi, out, workers)
    print(report(played, agent, opponent))
    print(f"SGF and results in {out}")


# -- the command: ``goarena bench strength`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench strength``."""
    parser.add_argument("--agent", required=True, help="our player's spec, e.g. 'uct:seconds=1.5'")
    parser.add_argument("--opponent", default=None, help="opponent spec (default: GNU Go at --level)")
    parser.add_argument("--level", type=int, default=1, help="GNU Go's level without --opponent (default 1)")
    parser.add_argument("--games", type=int, default=20, help="games, colours alternating (default 20)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=None, help="komi (default: the board size's, 7 on 9x9)")
    parser.add_argument("--out", type=Path, default=None, help="folder for the league (resumable)")
    parser.add_argument("--workers", type=int, default=1, help="games at once (default 1: a core a move)")


def command(args: argparse.Namespace) -> None:
    """``goarena bench strength``: play and print the win rate."""
    show(args.agent, args.opponent, args.level, args.games, args.size, args.komi, args.out, args.workers)
