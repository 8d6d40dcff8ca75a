"""Stable-Baselines3 models as Go players.

``SB3Agent`` plays a saved ``MaskablePPO`` or ``PPO`` model (spec ``sb3:PATH[,key=value]``):
the policy's most likely legal move (``temperature=0``, the default), a move drawn from it
(``temperature=1``; ``deterministic=false``, the old spelling, is deprecated), or, with
``simulations`` or ``seconds``, PUCT over the model (``SB3Evaluator``: the policy's
probabilities over the legal moves as priors, the critic's value as the leaf value)::

    sb3:runs/ppo5/model.zip
    sb3:runs/ppo5/model.zip,temperature=1,seed=3
    sb3:runs/ppo5/model.zip,simulations=200,c_puct=1.5

The critic estimates the learner's return against the opponent it trained with, so as a
search value it is the win expectation against that opponent, clipped to [-1, 1].

The features extractor these models are trained with is ``goarena.agents.nets.sb3_extractor``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.base_class import BaseAlgorithm

from go_env import Game
from goarena.agents.inference.sb3 import SB3Evaluator, model_outputs, planes_for_space
from goarena.agents.nets.predict import player_device
from goarena.agents.nets.sb3 import SB3Model, SB3ModelError, layout_of, load_sb3_model
from goarena.agents.nets.sb3_extractor import board_size_of
from goarena.agents.players.search import PUCTAgent, SearchedNetwork
from goarena.agents.protocols import (
    Action,
    GameContext,
    check_board_size,
    files_digest,
    game_context,
)
from goarena.agents.specs import Renamed, renamed_options

__all__ = ["SB3Agent", "SB3ModelError"]


class SB3Agent(SearchedNetwork):
    """A saved MaskablePPO or PPO model as a player (see the module docs).

    Args:
        path: the model's zip file (``model.save``; ``goarena train sb3`` writes ``model.zip``),
            or a model in memory (a ``BaseAlgorithm``, such as one being trained: the player
            reads its policy as it is now, and never moves it from its device).
        temperature: 0 plays the most likely legal move (the search's most visited one);
            above 0, moves are drawn in proportion to ``p ** (1 / temperature)`` (the
            search's visits, likewise). ``deterministic``, its old spelling, is deprecated:
            ``deterministic=True`` is ``temperature=0``, ``False`` is ``temperature=1``.
        simulations: search with PUCT over the model, this many simulations per move.
        seconds: search with PUCT over the model, this long per move.
        c_puct: PUCT's exploration constant.
        batch: leaves per forward pass in the search.
        device: where the model runs (cpu, cuda, cuda:N); None runs it where the game's
            context says (``GameContext.device``). Resolved, and the model moved there, at
            ``reset``; on the CPU until then.
        seed: seed of the move draws and of the search.
        search_options: more ``PUCTAgent`` options for the search (``fpu``, ``noise``,
            ``temperature_moves``, ``reuse``, ``resign_threshold``, ...).

    Raises:
        SB3ModelError: the file is no playable SB3 model (missing, corrupt, not over Go planes).
        ValueError: bad options.
    """

    def __init__(
        self,
        path: Path | str | BaseAlgorithm,
        temperature: float | None = None,
        simulations: int | None = None,
        seconds: float | None = None,
        c_puct: float = 1.5,
        batch: int = 8,
        device: str | None = None,
        seed: int | None = None,
        **search_options: Any,
    ):
        temperature = _check_options(temperature, simulations, seconds, search_options)
        self.device = device
        self.path: Path | None = None
        self.model: BaseAlgorithm | SB3Model
        if isinstance(path, BaseAlgorithm):
            self.model = path
        else:
            self.path = Path(path)
            self.model = load_sb3_model(self.path, device or "cpu")
        self.layout = layout_of(self.model)
        self.board_size = board_size_of(self.model.observation_space, self.layout)
        self.name = "sb3"
        self.temperature = temperature
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.search: PUCTAgent | None = None
        if simulations is not None or seconds is not None:
            self.search = PUCTAgent(
                simulations=simulations,
                seconds=seconds,
                evaluator=SB3Evaluator(self.model),
                c_puct=c_puct,
                batch=batch,
                temperature=temperature,
                seed=seed,
                **search_options,
            )
        self._digest = files_digest([self.path]) if self.path is not None else None

    @staticmethod
    def check_options(
        context: GameContext | None,
        path: Path | str | None = None,
        temperature: float | None = None,
        simulations: int | None = None,
        seconds: float | None = None,
        c_puct: float = 1.5,
        batch: int = 8,
        device: str | None = None,
        seed: int | None = None,
        **search_options: Any,
    ) -> None:
        """Check the options and, given the path, the model's file as the player reads it
        (and, given a context, its board size)."""
        temperature = _check_options(temperature, simulations, seconds, search_options)
        player_device(device, context)
        if simulations is not None or seconds is not None:
            PUCTAgent(
                simulations=simulations,
                seconds=seconds,
                c_puct=c_puct,
                batch=batch,
                temperature=temperature,
                **search_options,
            )
        if path is not None:
            model = load_sb3_model(path)
            size = board_size_of(model.observation_space, layout_of(model))
            if context is not None:
                check_board_size(size, context.size, "the model was")

    def reset(self, context: GameContext) -> None:
        """A new game: refuses a board size the model was not trained for; moves a model read
        from a file to the player's device (its own, else the context's)."""
        check_board_size(self.board_size, game_context(context).size, "the model was")
        device = player_device(self.device, context)
        if self.path is not None and self.model.policy.device != device:
            self.model.policy.to(device)
        self.restart(context)

    def weights_digest(self) -> str | None:
        """The sha256 of the model's file (None for a model in memory)."""
        return self._digest

    def evaluate(self, game: Game) -> tuple[np.ndarray, float]:
        """(float64[N*N+1]: the policy over the legal moves, the critic's value in [-1, 1])
        of ``game`` for its side to move, without search."""
        check_board_size(self.board_size, game.size, "the model was")
        observation = planes_for_space(game.observation(), self.model.observation_space, self.layout)
        probabilities, values = model_outputs(self.model, observation[None], game.legal_mask()[None])
        return probabilities[0], float(values[0])

    def act(self, game: Game) -> Action:
        """The move ``select_move`` plays, with the policy behind it (the search's visit
        distribution when searching) and the value."""
        if self.search is not None:
            return self.search.act(game)
        probabilities, value = self.evaluate(game)
        if self.temperature == 0:
            move = int(probabilities.argmax())
        else:
            weights = probabilities if self.temperature == 1 else probabilities ** (1 / self.temperature)
            move = int(self.rng.choice(len(weights), p=weights / weights.sum()))
        return Action(move, probabilities, value)


def _deterministic(value: object) -> float:
    """``deterministic``'s value as the temperature it meant."""
    if not isinstance(value, bool):
        raise ValueError(f"deterministic must be true or false, got {value!r}")
    return 0.0 if value else 1.0


RENAMES: dict[str, Renamed] = {"deterministic": ("temperature", _deterministic)}  # deprecated spellings


def _check_options(
    temperature: float | None, simulations: int | None, seconds: float | None, search_options: dict[str, Any]
) -> float:
    """The temperature (from ``deterministic`` where it is given so, taken out of
    ``search_options``), once the options are checked."""
    old = {name: search_options.pop(name) for name in RENAMES.keys() & search_options.keys()}
    temperature = renamed_options("sb3", old, RENAMES, temperature=temperature)["temperature"]
    temperature = 0.0 if temperature is None else temperature
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
        raise ValueError(f"temperature must be a number, got {temperature!r}")
    if not 0 <= temperature < np.inf:
        raise ValueError(f"temperature must be finite and >= 0, got {temperature!r}")
    if search_options and simulations is None and seconds is None:
        raise ValueError(f"{', '.join(sorted(search_options))}: search options need simulations= or seconds=")
    return float(temperature)
