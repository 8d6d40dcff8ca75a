"""The games a league plays (``schedule``): round robin or gauntlet, colours alternating."""

from __future__ import annotations

from collections.abc import Sequence

from goarena.benchmarks.league.config import LeagueConfig, pairs
from goarena.benchmarks.league.runner import ScheduledGame


def schedule(config: LeagueConfig, grown_from: Sequence[LeagueConfig] = ()) -> list[ScheduledGame]:
    """Every game of the league, in the order they are started.

    Within a pairing colours alternate; the games go round by round, so a league stopped
    half way has played every pairing about equally. A league that grew keeps the games of
    the configurations it grew from (``grown_from``, the first first), with their numbers
    and colours; the games it gained follow them. The players' order is ``config``'s.
    """
    games: list[ScheduledGame] = []
    planned: set[tuple[int, frozenset[str]]] = set()  # (round, pair) of the games so far
    rules = config.game_rules()
    for stage in (*grown_from, config):
        names = [name for name in config.players if name in stage.players]
        for round_ in range(stage.games_per_pair):
            for first, second in pairs(stage, names):
                if (round_, frozenset((first, second))) in planned:
                    continue
                planned.add((round_, frozenset((first, second))))
                black, white = (first, second) if round_ % 2 == 0 else (second, first)
                game_id = len(games)
                games.append(
                    ScheduledGame(
                        id=game_id,
                        black=black,
                        white=white,
                        black_spec=config.players[black],
                        white_spec=config.players[white],
                        size=config.size,
                        rules=rules,
                        seed=config.seed * 1_000_003 + game_id,
                        seconds_per_move=config.seconds_per_move,
                        settle=config.settle,
                        arbiter=config.arbiter,
                    )
                )
    return games
