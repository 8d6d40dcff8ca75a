"""A Gymnasium vector env of ``goarena/Go-v0`` as a Stable-Baselines3 ``VecEnv``, for MaskablePPO.

SB3 steps its own ``VecEnv`` class, not Gymnasium's vector envs. ``SB3VecEnv`` adapts one:
``GoVectorEnv`` (all the games in one batch, a few kernel calls a step), or Gymnasium's
``SyncVectorEnv`` of ``GoEnv``\\ s made with same-step auto-reset. Wrap it in SB3's
``VecMonitor`` so that SB3 logs the episodes' returns (``rollout/ep_rew_mean``)::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from go_env import GoVectorEnv
    from goarena.agents.training.vec_env import SB3VecEnv

    envs = GoVectorEnv(64, board_size=9, opponent="random", learner="alternate",
                       channels_first=True, observation_dtype="float32")
    model = MaskablePPO("MlpPolicy", VecMonitor(SB3VecEnv(envs)))
    model.learn(100_000)

MaskablePPO reads the legal moves with ``env_method("action_masks")``, which answers from one
array of the batch (``go_env.action_masks``), not a call per sub-env. In SB3's layout, a step
returns ``dones = terminated | truncated``; the info of a sub-env whose episode ended holds its
last observation (``terminal_observation``), ``TimeLimit.truncated`` (the move cap stopped it)
and how it ended (``reason``, ``winner``, ``score``, ``result``, ``rewards``, as the vector
env's infos say); the other infos are empty. ``GoVectorEnv`` has no sub-env objects: its
attributes and methods (``get_attr``, ``set_attr``, ``env_method``) are the vector env's,
the same for every index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.env_util import is_wrapped
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from go_env import action_masks


class SB3VecEnv(VecEnv):
    """``envs``, a Gymnasium vector env of ``goarena/Go-v0`` with same-step auto-reset, as an SB3 ``VecEnv``.

    SB3 seeds a ``VecEnv`` with one seed per sub-env (``seed(s)`` gives ``s, s+1, ...``); the
    vector env takes the first, which seeds all its sub-envs.

    Raises:
        ValueError: ``envs`` resets episodes otherwise than in the step that ends them
            (``SyncVectorEnv``'s default: make it with ``autoreset_mode=AutoresetMode.SAME_STEP``).
    """

    def __init__(self, envs: gymnasium.vector.VectorEnv):
        if envs.metadata.get("autoreset_mode") != AutoresetMode.SAME_STEP:
            raise ValueError(
                "SB3VecEnv needs a vector env that resets episodes in the step that ends them: "
                "autoreset_mode=AutoresetMode.SAME_STEP (GoVectorEnv's)"
            )
        self.envs = envs
        self._actions = np.zeros(envs.num_envs, np.int64)
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)

    def reset(self) -> VecEnvObs:
        options = self._options[0] or None
        observations, infos = self.envs.reset(seed=self._seeds[0], options=options)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, terminated, truncated, infos = self.envs.step(self._actions)
        dones = terminated | truncated
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for b in np.flatnonzero(dones).tolist():
            info = out[b] = _item(infos["final_info"], b)
            info["terminal_observation"] = infos["final_obs"][b]
            info["TimeLimit.truncated"] = bool(truncated[b] and not terminated[b])
        return observations, np.asarray(rewards, np.float32), dones, out

    def close(self) -> None:
        self.envs.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        values = self._per_env("get_attr", attr_name)
        return [values[i] for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if indices is not None and sorted(self._get_indices(indices)) != list(range(self.num_envs)):
            raise NotImplementedError("SB3VecEnv sets an attribute of every sub-env at once only")
        envs = self.envs.unwrapped
        if hasattr(envs, "set_attr"):
            envs.set_attr(attr_name, value)
        else:
            setattr(envs, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":  # one array for every sub-env
            return list(action_masks(self.envs)[chosen])
        answers = self._per_env("call", method_name, *method_args, **method_kwargs)
        return [answers[i] for i in chosen]

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        envs = getattr(self.envs.unwrapped, "envs", None)  # a SyncVectorEnv's sub-envs
        return [envs is not None and is_wrapped(envs[i], wrapper_class) for i in self._get_indices(indices)]

    def _per_env(self, how: str, name: str, *args: Any, **kwargs: Any) -> Sequence[Any]:
        """Each sub-env's attribute ``name`` (``how="get_attr"``) or answer to the method
        ``name`` (``how="call"``): a Sync or Async vector env asks its sub-envs; a batched env
        answers once, for all of them."""
        envs = self.envs.unwrapped
        if hasattr(envs, how):
            return getattr(envs, how)(name, *args, **kwargs)
        value = getattr(envs, name)
        return [value(*args, **kwargs) if how == "call" else value] * self.num_envs


def _item(infos: dict[str, Any], b: int) -> dict[str, Any]:
    """Sub-env ``b``'s info, from a vector env's (Gymnasium's layout: an array per key, a
    ``"_key"`` mask of the sub-envs that have it, dicts within dicts)."""
    return {
        key: _item(value, b) if isinstance(value, dict) else value[b]
        for key, value in infos.items()
        if key[0] != "_" and infos[f"_{key}"][b]
    }
