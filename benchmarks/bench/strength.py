"""Playing strength: one of our players against an external GTP engine, GNU Go by default.

The match is a gauntlet league of two players, ``agent`` (the challenger) and ``opponent``,
played, settled and stored as every league is (``goarena league --help``): N games on 9x9 by
default, colours alternating, each committed to ``league.sqlite`` and written as SGF in the
run's folder, so a run that is stopped and started again with the same ``--out`` plays only
the games still missing. Games that end by two passes are settled by a clean-up phase, the
league's way with engines such as GNU Go that pass with dead stones still on the board. At
the end it prints the win rate with a 95% Wilson interval and our seconds per move, and how
the games were counted: those that ended by two passes, those of them we lost though the raw
count at the passes called them ours (dead stones of ours left on the board), and our forfeits
for an illegal move (a position repeated under superko among them)::

    goarena bench strength --agent "uct:seconds=1.5" --games 20 --level 1
    goarena bench strength --agent "uct:seconds=1.5" --games 20 --level 10 --out runs/vs-gnugo-10

``--rules`` picks the preset, ``--settle status --arbiter "gtp:gnugo --mode gtp"`` settles
two-pass games by the dead stones GNU Go names instead of a clean-up phase. Our own engine can
play as the challenger through GTP, as a GTP match referee sees it, told nothing of the count::

    goarena bench strength --agent "gtp:goarena gtp --agent zero:simulations=400" --level 10
"""

from __future__ import annotations

import argparse
import math
import shlex
from dataclasses import dataclass
from pathlib import Path

from go_env import Game, Rules
from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.play import run_league
from goarena.benchmarks.league.store import StoredGame
from goarena.search.settle import SETTLE_MODES

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


@dataclass(frozen=True)
class Venue:
    """How the match's games are played and scored: the rules preset, how a game that ends by
    two passes is settled (``search.settle``: count, cleanup, status; None: a clean-up phase
    with an engine), the engine that names disputed dead stones with ``status``, and the
    random moves that open each pair of games (two deterministic players otherwise replay
    their games: 40 games of ``zero:seconds=0.5`` against GNU Go were 29 distinct)."""

    rules: str = "goarena"
    settle: str | None = None
    arbiter: str | None = None
    opening_moves: int = 0


def strength_league(
    agent_spec: str, opponent_spec: str, games: int, size: int, komi: float | None, venue: Venue = Venue()
) -> LeagueConfig:
    """The match as a league: a gauntlet of ``agent`` against ``opponent``, ``games`` games."""
    return LeagueConfig(
        name="strength",
        players={AGENT: agent_spec, OPPONENT: opponent_spec},
        rules=venue.rules,
        settle=venue.settle,
        arbiter=venue.arbiter,
        size=size,
        komi=komi,
        games_per_pair=games,
        schedule="gauntlet",
        challenger=AGENT,
        anchor=OPPONENT,
        anchor_elo=0.0,
        opening_moves=venue.opening_moves,
    )


def run(
    agent_spec: str,
    opponent_spec: str,
    games: int,
    size: int,
    komi: float | None,
    out: Path,
    workers: int,
    venue: Venue = Venue(),
) -> list[StoredGame]:
    """Play the match's games not yet stored in ``out``; return all of them, in order."""
    config = strength_league(agent_spec, opponent_spec, games, size, komi, venue)
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


def raw_margin_at_passes(game: StoredGame, size: int, rules: Rules) -> float | None:
    """Our margin by the raw count (every stone on the board) when the game first ended by
    two passes, before any clean-up or dead stones taken off; None for other endings."""
    if not game.reason.startswith("two passes"):
        return None
    moves = [int(move) for move in game.moves.split()]
    played = Game(size, rules)
    for move in moves[: game.cleanup_from] if game.cleanup_from is not None else moves:
        played.play(move)
    margin = played.score()
    return margin if game.black == AGENT else -margin


def misjudged(games: list[StoredGame], size: int, rules: Rules) -> str:
    """The games that ended by two passes, those of them we lost though the raw count at the
    passes called them ours (dead stones of ours on the board, or a count misread), and our
    forfeits for an illegal move (a repeated position under superko among them)."""
    margins = [raw_margin_at_passes(game, size, rules) for game in games]
    passed = [(game, margin) for game, margin in zip(games, margins, strict=True) if margin is not None]
    lost = sum(margin > 0 and our_score(game) == 0.0 for game, margin in passed)
    forfeits = sum(
        game.result[2:] == "F" and our_score(game) == 0.0 and "illegal move" in game.reason for game in games
    )
    return (
        f"two-pass games {len(passed)}, lost though the raw count at the passes said won {lost}; "
        f"our illegal-move forfeits {forfeits}"
    )


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
    venue: Venue = Venue(),
) -> None:
    """``goarena bench strength``: play (or resume) the gauntlet and print its summary."""
    opponent = opponent or f"gtp:{GNUGO} --level {level}"
    slug = "".join(c if c.isalnum() else "-" for c in shlex.join([agent, opponent]))[:80]
    out = out or Path("runs") / "strength" / slug
    played = run(agent, opponent, games, size, komi, out, workers, venue)
    print(report(played, agent, opponent))
    print(misjudged(played, size, strength_league(agent, opponent, games, size, komi, venue).game_rules()))
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
    parser.add_argument("--rules", default="goarena", help="the rules preset (default goarena: Tromp-Taylor)")
    parser.add_argument(
        "--settle",
        choices=SETTLE_MODES,
        default=None,
        help="how two-pass games are settled (default: a clean-up phase with an engine)",
    )
    parser.add_argument(
        "--arbiter", default=None, help="with --settle status: the engine that names disputed dead stones"
    )
    parser.add_argument(
        "--opening-moves",
        type=int,
        default=0,
        metavar="M",
        help="open each pair of games (one with each colour) with M random moves (default 0)",
    )


def command(args: argparse.Namespace) -> None:
    """``goarena bench strength``: play and print the win rate."""
    venue = Venue(args.rules, args.settle, args.arbiter, args.opening_moves)
    show(
        args.agent, args.opponent, args.level, args.games, args.size, args.komi, args.out, args.workers, venue
    )
