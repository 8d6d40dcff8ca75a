"""Stable-Baselines3 models as Go players.

``SB3Agent`` plays a saved ``MaskablePPO`` or ``PPO`` model (spec ``sb3:PATH[,key=value]``): it
is the network player (``players.network.NetworkPlayer``) over the model, read as a network
with a policy and a value head (``inference.sb3.SB3Network``): the policy's most likely legal
move (``temperature=0``, the default), a move drawn from it (``temperature=1``;
``deterministic=false``, the old spelling, is deprecated), or, with ``simulations`` or
``seconds``, PUCT over the model (the policy's probabilities over the legal moves as priors,
the critic's value as the leaf value); ``play=gumbel`` and ``play=greedy`` too::

    sb3:runs/ppo5/model.zip
    sb3:runs/ppo5/model.zip,temperature=1,seed=3
    sb3:runs/ppo5/model.zip,simulations=200,c_puct=1.5

The critic estimates the learner's return against the opponent it trained with, so as a
search value it is the win expectation against that opponent, clipped to [-1, 1].

The features extractor these models are trained with is ``goarena.agents.nets.sb3_extractor``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stable_baselines3.common.base_class import BaseAlgorithm

from goarena.agents.declared import option
from goarena.agents.inference.sb3 import SB3Network
from goarena.agents.nets.predict import player_device
from goarena.agents.nets.sb3 import SB3Model, SB3ModelError, load_sb3_model
from goarena.agents.players.network import LoadedNetwork, NetworkOptions, NetworkPlayer
from goarena.agents.protocols import GameContext, files_digest
from goarena.agents.specs import Renamed

__all__ = ["SB3Agent", "SB3ModelError", "SB3Options"]


def _deterministic(value: object) -> float:
    """``deterministic``'s value as the temperature it meant."""
    if not isinstance(value, bool):
        raise ValueError(f"deterministic must be true or false, got {value!r}")
    return 0.0 if value else 1.0


@dataclass(frozen=True, kw_only=True)
class SB3Options(NetworkOptions):
    """``sb3``'s options: a network player's, its weights a model."""

    weights: Any = option(
        None,
        "the model's zip file (model.save; goarena train sb3 writes model.zip), or a model in memory "
        "(a BaseAlgorithm, read as it is now and never moved from its device)",
    )

    RENAMES = {**NetworkOptions.RENAMES, "deterministic": ("temperature", _deterministic)}
    FIXED = {"network": "its model is weights= (a path, or a model in memory)"}


RENAMES: dict[str, Renamed] = SB3Options.RENAMES  # deprecated spellings


class SB3Agent(NetworkPlayer):
    """A saved MaskablePPO or PPO model as a player (see the module docs); its options are
    ``SB3Options``', the model first: ``SB3Agent(path_or_model, temperature=1, simulations=50)``.

    Raises:
        SB3ModelError: the file is no playable SB3 model (missing, corrupt, not over Go planes).
        ValueError: bad options.
    """

    Options = SB3Options
    positional = ("weights", "temperature", "simulations", "seconds", "c_puct", "batch", "device", "seed")
    options: SB3Options
    name = "sb3"
    kind = "sb3"
    cache = 0  # a model in memory may be in training: its outputs are not kept

    def __init__(self, *args: Any, **options: Any):
        super().__init__(*args, **options)
        weights = self.options.weights
        self.path = None if isinstance(weights, BaseAlgorithm) else Path(weights)
        self.layout = self.network.model.layout

    @property  # type: ignore[override,misc]
    def model(self) -> BaseAlgorithm | SB3Model:
        """The SB3 model (its network for the evaluator: ``network.model``)."""
        return self.network.model.model

    @classmethod
    def _what(cls) -> str:
        return "the model"

    @classmethod
    def _load(cls, options: Any, device: str) -> LoadedNetwork:
        weights = options.weights
        if weights is None:
            raise ValueError("sb3 needs the model's path: sb3:runs/ppo/model.zip")
        if isinstance(weights, BaseAlgorithm):
            network = SB3Network(weights)
            return LoadedNetwork(network, network.board_size, None)
        network = SB3Network(load_sb3_model(Path(weights), device))
        cls._check_heads(network.heads, options.mode)
        return LoadedNetwork(network, network.board_size, files_digest([Path(weights)]))

    def _move(self, context: GameContext) -> None:
        """A model read from a file goes to the player's device (its own, else the
        context's); a model in memory stays where it is."""
        device = player_device(self.device, context)
        if self.path is not None and self.model.policy.device != device:
            self.model.policy.to(device)
