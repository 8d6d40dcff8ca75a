"""The games a league plays (``schedule``): round robin or gauntlet, colours alternating,
from random openings when asked."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from go_env import Game, Rules
from goarena.benchmarks.league.config import LeagueConfig, pairs
from goarena.benchmarks.league.runner import ScheduledGame


def schedule(config: LeagueConfig, grown_from: Sequence[LeagueConfig] = ()) -> list[ScheduledGame]:
    """Every game of the league, in the order they are started.

    Within a pairing colours alternate; the games go round by round, so a league stopped
    half way has played every pairing about equally. With ``opening_moves`` M, rounds 2k and
    2k + 1 of a pairing start from the same M random moves (``random_opening``), one game with
    each colour: deterministic players then play different games, and neither side gains
    from an opening that favours one colour. A league that grew keeps the games of
    the configurations it grew from (``grown_from``, the first first), with their numbers
    and colours; the games it gained follow them. The players' order is ``config``'s.
    """
    games: list[ScheduledGame] = []
    planned: set[tuple[int, frozenset[str]]] = set()  # (round, pair) of the games so far
    openings: dict[tuple[str, str, int], tuple[int, ...]] = {}  # one per pair of rounds
    rules = config.game_rules()
    for stage in (*grown_from, config):
        names = [name for name in config.players if name in stage.players]
        for round_ in range(stage.games_per_pair):
            for first, second in pairs(stage, names):
                if (round_, frozenset((first, second))) in planned:
                    continue
                planned.add((round_, frozenset((first, second))))
                black, white = (first, second) if round_ % 2 == 0 else (second, first)
                opening: tuple[int, ...] = ()
                if config.opening_moves:
                    key = (first, second, round_ // 2)
                    if key not in openings:
                        seed = (config.seed, zlib.crc32(f"{first}\0{second}".encode()), round_ // 2)
                        openings[key] = random_opening(config.size, rules, config.opening_moves, seed)
                    opening = openings[key]
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
                        opening=opening,
                    )
                )
    return games


def random_opening(size: int, rules: Rules, moves: int, seed: Sequence[int]) -> tuple[int, ...]:
    """``moves`` moves drawn uniformly among the legal points (never a pass) from ``seed``,
    fewer if the board runs out of them."""
    rng = np.random.default_rng(list(seed))
    game = Game(size, rules)
    for _ in range(moves):
        points = game.legal_moves()
        points = points[points != game.pass_move]
        if len(points) == 0:
            break
        game.play(int(rng.choice(points)))
    return tuple(game.moves)
