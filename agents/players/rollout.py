"""``rollout-policy``: a player that plays AlphaGo's fast rollout policy alone, with no search.

It draws each move from the policy's softmax over the legal moves (``temperature`` sharpens or
flattens it), or plays the most likely move (``temperature=0``; ``temperature=greedy``, its old
spelling, is deprecated). The logits come from the
same numba kernels the pattern playouts run (``go_env.features.patterns``); no torch is needed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from go_env import Game
from go_env.features.patterns import move_logits, new_pattern_scratch
from goarena.agents.declared import option
from goarena.agents.nets.load import check_sizes, load_network
from goarena.agents.players.options import OptionsPlayer, PlayerOptions
from goarena.agents.protocols import (
    Action,
    GameContext,
    MoveInfo,
    analyze_policy,
    check_board_size,
    game_context,
    restart_seed,
)
from goarena.agents.weights import ROLLOUT_9X9
from goarena.search.warmup import warmup_game

GREEDY = "greedy"


def _temperature(value: float | str) -> float:
    """The temperature as a number (0.0: greedy); ValueError for anything else."""
    if value == GREEDY:
        warnings.warn(
            "rollout-policy: temperature=greedy is now temperature=0 (greedy goes in a later release)",
            DeprecationWarning,
            stacklevel=3,
        )
        return 0.0
    if isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value) and value >= 0:
        return float(value)
    raise ValueError(f"temperature must be a finite number >= 0 (0: the most likely move), got {value!r}")


@dataclass(frozen=True, kw_only=True)
class RolloutOptions(PlayerOptions):
    weights: str = option(
        str(ROLLOUT_9X9), "a rollout.npz (goarena train rollout); the shipped 9x9 one by default"
    )
    temperature: float | str = option(
        1.0,
        "a number >= 0: 1.0 draws from the policy as trained, 0 plays its most likely move",
    )
    seed: int | None = option(None, "seed of its random generator")


class RolloutPolicyAgent(OptionsPlayer):
    """Plays the rollout policy's moves; its options are ``RolloutOptions``'.

    Raises:
        ValueError: a bad temperature, or a file that is not rollout weights.
    """

    Options = RolloutOptions
    options: RolloutOptions
    positional = ("weights",)
    name = "rollout-policy"

    def __init__(self, *args: Any, **options: Any):
        super().__init__(*args, **options)
        self.temperature = _temperature(self.options.temperature)
        self.path = Path(self.options.weights)
        self.network = load_network(self.path, "rollout")
        self.policy_weights, self.size = self.network.model, self.network.board_size
        self.seed = self.options.seed
        self.rng = np.random.default_rng(self.seed)
        self._scratch = new_pattern_scratch(self.size)

    @classmethod
    def check_files(cls, context: GameContext | None, options: Any) -> None:
        """The temperature and the weights file as the player reads it (see ``check_spec``)."""
        _temperature(options.temperature)
        network = load_network(Path(options.weights), "rollout")
        if context is not None:
            check_sizes([network], context.size)

    def reset(self, context: GameContext) -> None:
        check_board_size(self.size, game_context(context).size, "the rollout weights were")
        seed = restart_seed(self.seed, context)
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @staticmethod
    def warmup(size: int) -> None:
        """Compile the rollout policy's kernels on a position of its shipped 9x9 weights (the
        kernels serve every size; see ``agents.protocols.Warmable``)."""
        from go_env.features.patterns import load_weights

        weights, trained = load_weights(ROLLOUT_9X9)
        game = warmup_game(trained)
        logits = np.empty(game.num_points + 1, np.float64)
        move_logits(game.state, game.geometry, weights, new_pattern_scratch(trained), logits)

    def policy(self, game: Game) -> np.ndarray:
        """float64[N*N+1]: the softmax over the legal moves at the player's temperature (greedy:
        all on the most likely moves, shared among ties)."""
        check_board_size(self.size, game.size, "the rollout weights were")
        logits = np.empty(game.num_points + 1, np.float64)
        move_logits(game.state, game.geometry, self.policy_weights, self._scratch, logits)
        if not np.isfinite(logits).any():
            raise ValueError("the game is over: no legal move to weigh")
        best = logits.max()
        if self.temperature == 0.0:
            weights = (logits == best).astype(np.float64)
        else:
            weights = np.exp((logits - best) / self.temperature)
        return weights / weights.sum()

    def analyze(
        self, game: Game, stop: Callable[[], bool], report: Callable[[list[MoveInfo]], None], interval: float
    ) -> int:
        """GTP ``lz-analyze``: the policy's candidates (no search: 0 visits, no win rate)."""
        return analyze_policy(self.policy(game), report)

    def select_move(self, game: Game) -> int:
        return self.act(game).move

    def act(self, game: Game) -> Action:
        """The move with the distribution it was drawn from (and no value)."""
        policy = self.policy(game)
        if self.temperature == 0.0:
            move = int(np.flatnonzero(policy)[0])
        else:
            move = int(self.rng.choice(len(policy), p=policy))
        return Action(move, policy)

    def weights_digest(self) -> str:
        return self.network.digest
