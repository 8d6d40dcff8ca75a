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
    return playing_on_state(game.state, game.geometry, legal)


def playing_on_state(state: K.GoState, geometry: K.Geometry, legal: np.ndarray) -> np.ndarray:
    """``playing_on`` for a rules-core state: a game of a batch (``core.state_item``) needs no
    ``Game`` built around it. The eye test is one kernel call over the board."""
    to_play = int(state.info[K.INFO_TO_PLAY])
    margin = float(K.score(state, geometry))  # Black's
    if (margin > 0 and to_play == K.BLACK) or (margin < 0 and to_play == K.WHITE):
        return legal
    moves = legal.copy()
    moves[geometry.size * geometry.size] = 0
    K.clear_own_eyes(state, geometry, moves, to_play)
    return moves if moves.any() else legal
