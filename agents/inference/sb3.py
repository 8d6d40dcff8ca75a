"""Stable-Baselines3 models over Go planes in inference: their observations of a game or of a
batch of leaves, and one forward pass of the policy and critic (``model_outputs``).
``SB3Evaluator`` serves a model to search.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.base_class import BaseAlgorithm

from go_env import Game
from go_env.features import NUM_HISTORY_PLANES, batch_history_planes, planes_in_layout
from goarena.agents.nets.predict import masked_softmax
from goarena.agents.nets.sb3 import SB3Model, check_spaces, layout_of
from goarena.agents.nets.sb3_extractor import channels_first_of
from goarena.agents.protocols import check_board_size
from goarena.search import Leaves

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
    return masked_softmax(logits, legal), np.clip(values, -1.0, 1.0)


class SB3Evaluator:
    """A PPO or MaskablePPO model as a search evaluator: each leaf's history planes (from the
    leaf's side to move), one forward pass for the batch; the policy's probabilities over the
    legal moves as priors, the critic's value as the leaf's value.

    Args:
        model: a PPO or MaskablePPO model over Go planes.
    """

    def __init__(self, model: BaseAlgorithm | SB3Model):
        self.model = model
        self.layout = layout_of(model)
        self.board_size = check_spaces("the model", model.observation_space, model.action_space, self.layout)
        self._planes = np.empty((1, self.board_size, self.board_size, NUM_HISTORY_PLANES), np.int8)

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        size = leaves.geometry.size
        check_board_size(self.board_size, size, "the model was")
        count = len(leaves)
        if self._planes.shape[0] < count:
            self._planes = np.empty((count, size, size, NUM_HISTORY_PLANES), np.int8)
        planes = self._planes[:count]
        batch_history_planes(leaves.states, leaves.geometry, planes)
        observations = planes_for_space(planes, self.model.observation_space, self.layout)
        return model_outputs(self.model, observations, leaves.legal)
