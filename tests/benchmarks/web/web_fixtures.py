"""What the web board's tests share: small leagues played here, and players built by spec
(``web_fixtures:Slow``, ``web_fixtures:Scripted``; this folder is on the path when its tests run)."""

from __future__ import annotations

import threading
from pathlib import Path

from go_env import Game, coords
from goarena.agents.protocols import RESIGN, GameContext
from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.play import open_league, store_game
from goarena.benchmarks.league.runner import play_kept

SMALL = {"random": "random", "uct-20": "uct:simulations=20"}


def make_league(
    directory: Path, players: dict[str, str] = SMALL, games: int | None = None, **options: object
) -> Path:
    """A 5x5 league (two games a pair unless ``options`` say) in ``directory``, its first
    ``games`` games played (all by default) in this process."""
    config = LeagueConfig(players=players, **{"size": 5, "games_per_pair": 2, **options})
    store, schedule = open_league(config, directory)
    with store:
        finished = store.finished_ids()
        todo = [game for game in schedule if game.id not in finished]
        for game in todo[:games]:
            store_game(store, play_kept(game))
    return directory


RELEASE = threading.Event()  # lets a Slow player answer
ANSWERED = threading.Event()  # set once a Slow player has answered


class Slow:
    """Waits for ``RELEASE`` (at most ``seconds``), then plays its first legal point."""

    def __init__(self, seconds: float = 30.0):
        self.name = "slow"
        self.seconds = seconds

    def reset(self, context: GameContext) -> None:
        pass

    def select_move(self, game: Game) -> int:
        RELEASE.wait(self.seconds)
        ANSWERED.set()
        return int(game.legal_moves()[0])


class Misbehaving:
    """Resigns (``how="resign"``), raises (``"crash"``) or answers an occupied point
    (``"illegal"``) at its first move."""

    def __init__(self, how: str):
        self.name = f"misbehaving-{how}"
        self.how = how

    def reset(self, context: GameContext) -> None:
        pass

    def select_move(self, game: Game) -> int:
        if self.how == "resign":
            return RESIGN
        if self.how == "crash":
            raise RuntimeError("the player broke")
        occupied = (game.board.ravel() != 0).nonzero()[0]
        return int(occupied[0]) if len(occupied) else game.num_points + 1


class Scripted:
    """Plays White's ``moves`` (GTP vertices, space-separated), one a turn, then passes."""

    def __init__(self, moves: str):
        self.name = "scripted"
        self.moves = moves.split()

    def reset(self, context: GameContext) -> None:
        pass

    def select_move(self, game: Game) -> int:
        turn = len(game.moves) // 2  # Black moved first
        return coords.from_gtp(self.moves[turn], game.size) if turn < len(self.moves) else game.pass_move
