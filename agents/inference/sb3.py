"""Stable-Baselines3 models over Go planes in inference: their observations of a game, one
forward pass of the policy and critic (``model_outputs``), and ``SB3Network``, the adapter that
serves a model to search through ``NetworkEvaluator``: it declares the model's features (the
history planes in the layout and dtype of its observation space) and heads (policy, value)::

    network = SB3Network(model)
    NetworkEvaluator(policy=network, value=network, cache=0)   # one forward pass for both
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.base_class import BaseAlgorithm
from torch import nn

from go_env import Game
from go_env.features import NUM_HISTORY_PLANES, planes_in_layout
from goarena.agents.nets.features import Features
from goarena.agents.nets.predict import masked_softmax
from goarena.agents.nets.sb3 import SB3Model, check_spaces, layout_of
from goarena.agents.nets.sb3_extractor import channels_first_of

# -- observations ------------------------------------------------------------------------


def planes_for_space(
    planes: np.ndarray, space: spaces.Space, channels_first: bool | None = None
) -> np.ndarray:
    """History planes int8 ``[..., N, N, 17]`` (as ``Game.observation`` and ``go_env.features``
    give them) in the layout and dtype of ``space``."""
    return planes_in_layout(planes, channels_first_of(space, channels_first), space.dtype)


def observation_for_model(model: BaseAlgorithm | SB3Model | spaces.Space, game: Game) -> np.ndarray:
    """The observation a model (or an observation space) expects of ``game``, from the side to
    move's view: ``game.observation()`` transposed and cast to the model's observation space."""
    space = model if isinstance(model, spaces.Space) else model.observation_space
    return planes_for_space(game.observation(), space, layout_of(model))


# -- forward passes -------------------------------------------------------------------------------


def model_outputs(
    model: BaseAlgorithm | SB3Model, observations: np.ndarray, legal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One forward pass of an actor-critic model.

    Args:
        model: a PPO or MaskablePPO model.
        observations: ``[B, ...]`` in the model's observation space.
        legal: ``[B, A]`` legal-move masks (nonzero: legal); every row has one (pass is).

    Returns:
        (float64[B, A]: the policy's probabilities over the legal moves, 0 elsewhere;
        float64[B]: the critic's values, clipped to [-1, 1]).
    """
    logits, values = _logits_and_values(model, observations)
    return masked_softmax(logits, legal), values


def _logits_and_values(
    model: BaseAlgorithm | SB3Model, observations: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(float32[B, A] logits, float64[B] values clipped to [-1, 1]) of one forward pass."""
    policy: Any = model.policy  # Maskable or not: no common base class declares the parts used
    policy.set_training_mode(False)
    with torch.inference_mode():
        obs = torch.as_tensor(observations, device=policy.device)
        # ActorCriticPolicy.forward's path, stopping at the logits and the value
        features = policy.extract_features(obs)
        if policy.share_features_extractor:
            latent_pi, latent_vf = policy.mlp_extractor(features)
        else:
            latent_pi = policy.mlp_extractor.forward_actor(features[0])
            latent_vf = policy.mlp_extractor.forward_critic(features[1])
        logits = policy.action_net(latent_pi).float().cpu().numpy()
        values = policy.value_net(latent_vf)[:, 0].double().cpu().numpy()
    return logits, np.clip(values, -1.0, 1.0)


class SB3Network(nn.Module):
    """A PPO or MaskablePPO model over Go planes as a network ``NetworkEvaluator`` serves: the
    history planes in its observation space's layout and dtype in, the policy's logits and the
    critic's value (clipped to [-1, 1]) out, by ``run(planes, legal)``.

    The model is held, not registered as a submodule: its mode is its own (``model_outputs``
    puts it in eval mode for each pass), and a model in training is read as it is now.

    Args:
        model: a PPO or MaskablePPO model, or an ``SB3Model``.
    """

    heads = ("policy", "value")
    model: BaseAlgorithm | SB3Model

    def __init__(self, model: BaseAlgorithm | SB3Model):
        super().__init__()
        object.__setattr__(self, "model", model)
        self.layout = layout_of(model)
        space = model.observation_space
        self.board_size = check_spaces("the model", space, model.action_space, self.layout)
        self.features = Features(
            "history",
            NUM_HISTORY_PLANES,
            channels_first=channels_first_of(space, self.layout),
            dtype=np.dtype(space.dtype).name,
        )

    def run(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(float32[B, A] logits, float64[B] values) of the observations ``planes``."""
        return _logits_and_values(self.model, planes)
