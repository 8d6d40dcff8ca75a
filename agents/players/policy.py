"""Players that move straight from a policy network, with no search.

``SLPolicyAgent`` plays the SL policy network (``goarena train sl`` exports one as
``policy.pt``): its best legal move at temperature 0, else a move drawn from ``p^(1/T)`` over
the legal moves. Its ``policy(game)`` is the network's distribution over the legal moves
(temperature 1), the prior a search or an analysis board shows.

The network learned to pass where the games it learned from ended, dead stones and all,
and to answer a pass with a pass; under area scoring either can end a game that the board's
count loses (a second pass ends it). So a policy player passes only when the count of the
board as it stands wins for it; otherwise it plays on among its moves that fill no own eye,
and passes when there is none left. ``RLPolicyAgent`` is the same
player for the RL policy network (``goarena train rl`` exports one; a 9x9 one ships). Both
are ``BatchAgent``: ``select_moves(batch)`` moves in many games with one forward pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from go_env import Game, GameBatch
from go_env import core as K
from go_env.features.alphago import batch_alphago_planes, game_planes, new_alphago_planes
from goarena.agents.nets.load import check_sizes, load_network
from goarena.agents.nets.predict import masked_softmax, move_networks, player_device, policy_logits
from goarena.agents.protocols import (
    Action,
    GameContext,
    MoveInfo,
    analyze_policy,
    check_board_size,
    game_context,
    restart_seed,
)
from goarena.agents.weights import RL_POLICY_9X9, SL_POLICY_9X9
from goarena.search.warmup import warmup_game


class SLPolicyAgent:
    """The SL policy network as a player.

    Args:
        weights: a policy network's weights file (``policy.pt``), read once, here; by
            default the shipped 9x9 network.
        temperature: 0 plays the most probable legal move; above 0, moves are drawn in
            proportion to ``p ** (1 / temperature)``.
        device: where the network runs (cpu, cuda, cuda:N); None runs it where the game's
            context says (``GameContext.device``). Resolved, and the network moved there, at
            ``reset``; on the CPU until then.
        seed: seed of the move draws.

    Raises:
        CheckpointError: the file is no readable checkpoint.
        ValueError: a bad temperature or device, or weights that are not a policy network.
    """

    def __init__(
        self,
        weights: Path | str = SL_POLICY_9X9,
        temperature: float = 0.0,
        device: str | None = None,
        seed: int | None = None,
    ):
        _check_temperature(temperature)
        self.device = device
        self.network = load_network(weights, "policy", device or "cpu")
        self.model = self.network.model
        self.board_size = self.network.board_size
        self.name = "sl-policy"
        self.temperature = float(temperature)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self._digest = self.network.digest

    @staticmethod
    def check_options(
        context: GameContext | None,
        weights: Path | str = SL_POLICY_9X9,
        temperature: float = 0.0,
        device: str | None = None,
        seed: int | None = None,
    ) -> None:
        """Check the options and the weights file as the player reads it (and, given a
        context, the board size and device)."""
        _check_temperature(temperature)
        player_device(device, context)
        network = load_network(weights, "policy")
        if context is not None:
            check_sizes([network], context.size)

    def reset(self, context: GameContext) -> None:
        """A new game: refuses a board size the network was not trained for; moves the
        network to the player's device (its own, else the context's)."""
        check_board_size(self.board_size, game_context(context).size)
        move_networks([self.model], self.device, context)
        seed = restart_seed(self.seed, context)
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def weights_digest(self) -> str:
        return self._digest

    @staticmethod
    def warmup(size: int) -> None:
        """Compile the feature planes' kernels (ladders included) and the eye test the
        player runs on every move (see ``agents.protocols.Warmable``)."""
        game = warmup_game(size)
        game_planes(game)
        playing_on(game, game.legal_mask())
        K.is_eye(game.state, game.geometry, 0, game.to_play)  # playing_on's, when it is behind

    def _logits(self, game: Game) -> tuple[np.ndarray, np.ndarray]:
        check_board_size(self.board_size, game.size)
        logits = policy_logits(self.model, game_planes(game)[None])
        return logits, game.legal_mask()[None]

    def policy(self, game: Game) -> np.ndarray:
        """float64[N*N+1]: the network's distribution over the legal moves (pass last)."""
        logits, legal = self._logits(game)
        return masked_softmax(logits, legal)[0]

    def act(self, game: Game) -> Action:
        """The move ``select_move`` plays, with the network's distribution (no value)."""
        logits, legal = self._logits(game)
        choice = masked_softmax(logits, playing_on(game, legal[0])[None], self.temperature)[0]
        move = int(choice.argmax()) if self.temperature == 0 else int(self.rng.choice(len(choice), p=choice))
        return Action(move, masked_softmax(logits, legal)[0])

    def analyze(
        self, game: Game, stop: Callable[[], bool], report: Callable[[list[MoveInfo]], None], interval: float
    ) -> int:
        """GTP ``lz-analyze``: the policy's candidates (no search: 0 visits, no win rate)."""
        return analyze_policy(self.policy(game), report)

    def select_move(self, game: Game) -> int:
        return self.act(game).move

    def select_moves(self, batch: GameBatch) -> np.ndarray:
        """The move ``select_move`` would play in each game of ``batch``, from one forward
        pass over all of them (``BatchAgent``)."""
        check_board_size(self.board_size, batch.size)
        planes = new_alphago_planes(batch.size, batch=batch.batch_size)
        batch_alphago_planes(batch.state, batch.geometry, planes)
        logits = policy_logits(self.model, planes)
        legal = batch.legal_masks()
        weighed = np.stack([playing_on(batch.game(b), legal[b]) for b in range(batch.batch_size)])
        choice = masked_softmax(logits, weighed, self.temperature)
        if self.temperature == 0:
            return choice.argmax(axis=1)
        return np.array([self.rng.choice(choice.shape[1], p=row) for row in choice], np.int64)


class RLPolicyAgent(SLPolicyAgent):
    """The RL policy network as a player: ``SLPolicyAgent`` with its own name, and by default
    the shipped 9x9 RL policy (``goarena train rl`` makes others)."""

    def __init__(
        self,
        weights: Path | str = RL_POLICY_9X9,
        temperature: float = 0.0,
        device: str | None = None,
        seed: int | None = None,
    ):
        super().__init__(weights, temperature, device, seed)
        self.name = "rl-policy"

    @staticmethod
    def check_options(
        context: GameContext | None,
        weights: Path | str = RL_POLICY_9X9,
        temperature: float = 0.0,
        device: str | None = None,
        seed: int | None = None,
    ) -> None:
        """Check the options as ``SLPolicyAgent.check_options`` does."""
        SLPolicyAgent.check_options(context, weights, temperature, device, seed)


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


def _check_temperature(temperature: float) -> None:
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
        raise ValueError(f"temperature must be a number, got {temperature!r}")
    if not 0 <= temperature < math.inf:
        raise ValueError(f"temperature must be finite and >= 0, got {temperature!r}")
