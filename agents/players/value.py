"""``value-greedy``: a player that looks one move ahead with a value network, with no search.

For every legal move (pass included) it plays the move on a copy of the position, and asks the
value network, in one forward pass over all the children, how good each resulting position is
for the opponent, who moves there; the move's value for the player is the negative. A move
that ends the game (a pass after a pass) is valued by the score instead: +1, 0 or -1. It
plays the move of the highest value (the first of equal ones), so its policy is one-hot on that
move, and its value is that move's: the position's value after one ply of lookahead.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from go_env import Game
from go_env import core as K
from go_env.features.alphago import batch_alphago_planes, new_alphago_planes
from goarena.agents.inference.value import ValueNetEvaluator
from goarena.agents.nets.load import check_sizes, load_network
from goarena.agents.nets.predict import move_networks, player_device
from goarena.agents.protocols import Action, GameContext, check_board_size, game_context
from goarena.agents.weights import VALUE_9X9
from goarena.search import Leaves
from goarena.search.warmup import warmup_game


class ValueGreedyAgent:
    """Plays the move whose resulting position the value network likes best for it.

    Args:
        weights: a value network's weights file (``goarena train value`` exports ``value.pt``),
            read once, here; the shipped 9x9 one by default.
        device: where the network runs (cpu, cuda, cuda:N); None runs it where the game's
            context says (``GameContext.device``). Resolved, and the network moved there, at
            ``reset``; on the CPU until then.

    Raises:
        CheckpointError: the file is no readable checkpoint.
        ValueError: a bad device, or weights that are not a value network.
    """

    def __init__(self, weights: Path | str = VALUE_9X9, device: str | None = None):
        self.device = device
        self.network = load_network(weights, "value", device or "cpu")
        self.model, self._digest = self.network.model, self.network.digest
        self.board_size = self.network.board_size
        self.evaluator = ValueNetEvaluator(self.model)
        self.name = "value-greedy"

    @staticmethod
    def check_options(
        context: GameContext | None, weights: Path | str = VALUE_9X9, device: str | None = None
    ) -> None:
        """Check the options and the weights file as the player reads it (and, given a
        context, the board size and device)."""
        player_device(device, context)
        network = load_network(weights, "value")
        if context is not None:
            check_sizes([network], context.size)

    def reset(self, context: GameContext) -> None:
        """A new game: refuses a board size the network was not trained for; moves the
        network to the player's device (its own, else the context's)."""
        check_board_size(self.board_size, game_context(context).size, "the value network was")
        move_networks([self.model], self.device, context)

    @staticmethod
    def warmup(size: int) -> None:
        """Compile the kernels that value every move: the children played in a batch, their
        legal moves, scores and feature planes (see ``agents.protocols.Warmable``)."""
        game = warmup_game(size)
        count = 2
        children = K.GoState(*(np.repeat(field[None], count, axis=0) for field in game.state))
        K.batch_play(
            children, game.geometry, game.legal_moves()[:count].astype(np.int64), np.empty(count, np.int64)
        )
        K.batch_legal_mask(children, game.geometry, np.empty((count, game.num_points + 1), np.int8))
        K.batch_score(children, game.geometry, np.empty(count, np.float64))
        batch_alphago_planes(
            children, game.geometry, new_alphago_planes(size, player_colour=True, batch=count)
        )

    def weights_digest(self) -> str:
        return self._digest

    def move_values(self, game: Game) -> tuple[np.ndarray, np.ndarray]:
        """The legal moves (int64[L], pass included) and the value of each for the side to move
        (float64[L] in [-1, 1]), all children evaluated in one forward pass."""
        check_board_size(self.board_size, game.size, "the value network was")
        if game.is_over:
            raise ValueError("the game is over: no move to value")
        moves = game.legal_moves().astype(np.int64)
        count = len(moves)
        children = K.GoState(*(np.repeat(field[None], count, axis=0) for field in game.state))
        status = np.empty(count, np.int64)
        K.batch_play(children, game.geometry, moves, status)
        legal = np.empty((count, game.num_points + 1), np.int8)
        K.batch_legal_mask(children, game.geometry, legal)
        values = -self.evaluator.values(Leaves(children, legal, game.geometry))
        over = children.info[:, K.INFO_OVER] != K.RUNNING
        if over.any():
            margins = np.empty(count, np.float64)
            K.batch_score(children, game.geometry, margins)
            black = 1.0 if game.to_play == K.BLACK else -1.0
            values[over] = np.sign(margins[over]) * black
        return moves, values

    def act(self, game: Game) -> Action:
        """The best move by value, its one-hot policy, and its value for the side to move."""
        moves, values = self.move_values(game)
        best = int(np.argmax(values))
        policy = np.zeros(game.num_points + 1)
        policy[moves[best]] = 1.0
        return Action(int(moves[best]), policy, float(values[best]))

    def select_move(self, game: Game) -> int:
        return self.act(game).move
