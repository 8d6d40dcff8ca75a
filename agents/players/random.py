"""The uniformly random player: the floor of every ladder."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from go_env import Game, GameBatch
from goarena.agents.declared import option
from goarena.agents.players.options import OptionsPlayer, PlayerOptions
from goarena.agents.protocols import Action, GameContext, restart_seed


@dataclass(frozen=True, kw_only=True)
class RandomOptions(PlayerOptions):
    seed: int | None = option(None, "seed of its random generator")
    pass_only_when_forced: bool = option(
        False,
        "never pass while another legal move exists (games then end by the move cap or when the "
        "board fills with eyes)",
    )


class RandomAgent(OptionsPlayer):
    """Plays a uniformly random legal move; its options are ``RandomOptions``'."""

    Options = RandomOptions
    positional = ("seed", "pass_only_when_forced")  # as it took them before its declaration
    options: RandomOptions
    name = "random"

    def __init__(self, *args: Any, **options: Any):
        super().__init__(*args, **options)
        self.seed = self.options.seed
        self.pass_only_when_forced = self.options.pass_only_when_forced
        self.rng = np.random.default_rng(self.seed)

    def reset(self, context: GameContext) -> None:
        seed = restart_seed(self.seed, context)
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def policy(self, game: Game) -> np.ndarray:
        mask = game.legal_mask().astype(np.float64)
        if self.pass_only_when_forced and mask[:-1].any():
            mask[-1] = 0.0
        return mask / mask.sum()

    def select_move(self, game: Game) -> int:
        legal = game.legal_moves()
        if self.pass_only_when_forced and len(legal) > 1:
            legal = legal[:-1]  # pass is the last move index
        return int(legal[self.rng.integers(len(legal))])

    def select_moves(self, batch: GameBatch) -> np.ndarray:
        """A uniformly random legal move in every game of ``batch`` (``BatchAgent``)."""
        legal = batch.legal_masks().astype(bool)
        if self.pass_only_when_forced:
            legal[:, -1] &= ~legal[:, :-1].any(axis=1)
        # The k-th legal move of each game, k drawn below its number of legal moves.
        counts = np.cumsum(legal, axis=1)
        picks = self.rng.integers(counts[:, -1])
        return (counts > picks[:, None]).argmax(axis=1)

    def act(self, game: Game) -> Action:
        """The move, with the uniform policy it was drawn from (and no value)."""
        return Action(self.select_move(game), self.policy(game))
