"""goarena's players as opponents in the Gymnasium env, and a pool of them for self-play.

``gymnasium.make("goarena/Go-v0", opponent="uct:simulations=200")`` reaches ``as_opponent``
through the ``go_env.opponents`` entry point: a spec string or a player object becomes a
``PlayerOpponent``, which drives the player as a league would (``reset`` with a
``GameContext`` at every episode, ``observe_move`` after every move, ``close``). A player that
can play many games at once (``BatchAgent``) becomes a ``BatchPlayerOpponent``, whose
``select_moves(batch)`` ``GoVectorEnv`` calls once a step for all its games.

``OpponentPool`` is itself a player: each game it plays as one of its members, drawn at
random. A single-agent learner that adds frozen copies of itself to the pool as it trains
(``goarena train sb3 --self-play``) meets its own earlier snapshots::

    pool = OpponentPool(["random"])
    env = gymnasium.make("goarena/Go-v0", board_size=5, opponent=pool, learner="alternate")
    ...
    pool.add(frozen_copy_of_the_learner)  # from the next episode on
"""

from __future__ import annotations

from typing import cast

import numpy as np

from go_env import Game, GameBatch
from goarena.agents.protocols import Agent, BatchAgent, Closeable, GameContext, MoveObserver
from goarena.agents.specs import make_agent


class PlayerOpponent:
    """A player as the Gymnasium env's ``Opponent`` (see ``go_env.gym_env``)."""

    def __init__(self, player: Agent):
        self.player = player

    def new_game(self, game: Game, color: int, seed: int | None) -> None:
        self.player.reset(GameContext(game.size, game.rules, seed=seed, color=color))

    def __call__(self, game: Game) -> int:
        return self.player.select_move(game)

    def observe_move(self, game: Game, move: int) -> None:
        if isinstance(self.player, MoveObserver):
            self.player.observe_move(game, move)

    def close(self) -> None:
        if isinstance(self.player, Closeable):
            self.player.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.player.name!r})"


class BatchPlayerOpponent(PlayerOpponent):
    """A player that plays many games at once (``BatchAgent``) as the env's opponent: one
    game at a time for ``GoEnv``, every game of a step at once for ``GoVectorEnv``."""

    def select_moves(self, batch: GameBatch) -> np.ndarray:
        return cast(BatchAgent, self.player).select_moves(batch)


def as_opponent(opponent: str | Agent) -> PlayerOpponent:
    """A spec string or a player as the env's opponent (the ``go_env.opponents`` entry point).

    Raises:
        AgentSpecError: a spec string that names no player.
        TypeError: an object that is not a player.
    """
    player = make_agent(opponent) if isinstance(opponent, str) else opponent
    if not isinstance(player, Agent):
        raise TypeError(
            f"opponent {opponent!r} is not a player (name, reset, select_move), a spec string, "
            "or a callable(game) -> move"
        )
    return BatchPlayerOpponent(player) if isinstance(player, BatchAgent) else PlayerOpponent(player)


class OpponentPool:
    """A player that, each game, plays as one of its members drawn uniformly at random.

    Args:
        players: the first members: players or spec strings.
        seed: seed of the draws (a game's context seed is used when it has one).

    Members join with ``add``; a league or env that resets the pool draws from all of them.
    """

    name = "pool"

    def __init__(self, players: list[Agent | str] | None = None, seed: int | None = None):
        self.players: list[Agent] = []
        self._rng = np.random.default_rng(seed)
        self.current: Agent | None = None
        for player in players or []:
            self.add(player)

    def add(self, player: Agent | str) -> None:
        """A new member, from the next game on."""
        self.players.append(make_agent(player) if isinstance(player, str) else player)

    def reset(self, context: GameContext) -> None:
        if not self.players:
            raise ValueError("the opponent pool is empty: add a player first")
        rng = np.random.default_rng(context.seed) if context.seed is not None else self._rng
        self.current = self.players[int(rng.integers(len(self.players)))]
        self.current.reset(context)

    def select_move(self, game: Game) -> int:
        if self.current is None:
            raise RuntimeError("the pool plays no game: reset it first")
        return self.current.select_move(game)

    def observe_move(self, game: Game, move: int) -> None:
        if isinstance(self.current, MoveObserver):
            self.current.observe_move(game, move)

    def close(self) -> None:
        for player in self.players:
            if isinstance(player, Closeable):
                player.close()
