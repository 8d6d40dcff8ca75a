"""The policy players' passing rule, ``playing_on``.

The network learned to pass where the games it learned from ended, dead stones and all,
and to answer a pass with a pass; under area scoring either can end a game that the board's
count loses (a second pass ends it). So a policy player (``players.network.NetworkPlayer``
with ``play=policy``: ``sl-policy``, ``rl-policy``) passes only when the count of the board as
it stands wins for it; otherwise it plays on among its moves that fill no own eye, and passes
when there is none left.
"""

from __future__ import annotations

import numpy as np

from go_env import Game
from go_env import core as K


def playing_on(game: Game, legal: np.ndarray) -> np.ndarray:
    """The moves of ``legal`` (a legal-move mask) a policy player weighs: all of them while the
    board's count wins for the player to move; else no pass and no move that fills its own
    eye, unless nothing else is left."""
    passing = game.num_points
    if game.outcome(game.to_play) == 1.0:
        return legal
    moves = legal.copy()
    moves[passing] = 0
    for point in np.flatnonzero(moves):
        if K.is_eye(game.state, game.geometry, point, game.to_play):
            moves[point] = 0
    return moves if moves.any() else legal
