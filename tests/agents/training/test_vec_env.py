"""``SB3VecEnv``: a Gymnasium vector env of goarena/Go-v0 as an SB3 ``VecEnv`` (reset, steps,
dones and their infos, masks, attributes and methods, seeds), and MaskablePPO learning on it."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecMonitor

from go_env import GoVectorEnv, Rules
from go_env.gym_env import ENV_ID
from goarena.agents.nets.sb3_extractor import GoResNetExtractor
from goarena.agents.training.vec_env import SB3VecEnv

SIZE = 5
PASS = SIZE * SIZE


def passing(observations, masks):
    return np.full(len(masks), PASS)


def test_reset_and_steps_keep_sb3s_contract():
    envs = SB3VecEnv(GoVectorEnv(3, board_size=SIZE, learner="alternate", opponent=passing))
    assert envs.num_envs == 3 and envs.observation_space.shape == (SIZE, SIZE, 17)
    assert envs.action_space == gymnasium.spaces.Discrete(PASS + 1)
    envs.seed(0)
    observations = envs.reset()
    assert observations.shape == (3, SIZE, SIZE, 17) and envs.reset_infos == [{}, {}, {}]
    observations, rewards, dones, infos = envs.step(np.array([PASS, 12, 12]))
    # Sub-env 0: Black passes after White's pass, the game ends on an empty board (komi 7.5 on 5x5).
    assert rewards.dtype == np.float32 and rewards.tolist() == [-1.0, 0.0, 0.0]
    assert dones.tolist() == [True, False, False]
    assert infos[1] == {} == infos[2]
    assert not infos[0]["terminal_observation"][..., :16].any()
    assert infos[0]["TimeLimit.truncated"] is False
    assert (infos[0]["reason"], infos[0]["winner"], infos[0]["result"]) == ("passes", "white", "W+7.5")
    assert infos[0]["rewards"].tolist() == [-1.0, 1.0]
    assert not observations[0, ..., :16].any()  # the next episode's first, White after Black's pass


def test_the_move_cap_is_a_time_limit_truncation():
    envs = SB3VecEnv(GoVectorEnv(2, board_size=SIZE, rules=Rules(max_moves=2), opponent=passing))
    envs.reset()
    _, _, dones, infos = envs.step(np.array([0, 1]))
    assert dones.all() and all(info["TimeLimit.truncated"] for info in infos)
    assert all(info["reason"] == "move_cap" for info in infos)


def test_masks_come_from_the_batch_and_maskable_ppo_finds_them():
    vector = GoVectorEnv(4, board_size=SIZE, learner="alternate")
    envs = VecMonitor(SB3VecEnv(vector))
    envs.reset()
    assert is_masking_supported(envs)
    rng = np.random.default_rng(0)
    for _ in range(20):
        masks = get_action_masks(envs)
        assert masks.dtype == bool and masks.shape == (4, PASS + 1)
        np.testing.assert_array_equal(masks, vector.action_masks())
        envs.step(np.array([rng.choice(np.flatnonzero(row)) for row in masks]))
    assert envs.env_method("action_masks", indices=[2])[0].tolist() == vector.action_masks()[2].tolist()


def test_attributes_and_methods_are_the_vector_envs_for_every_index():
    vector = GoVectorEnv(3, board_size=SIZE)
    envs = SB3VecEnv(vector)
    assert envs.get_attr("board_size") == [SIZE] * 3 and envs.get_attr("learner", indices=1) == ["black"]
    envs.set_attr("learner", "white")
    assert vector.learner == "white"
    with pytest.raises(NotImplementedError):
        envs.set_attr("learner", "black", indices=[0])
    assert envs.env_method("action_masks")[0].shape == (PASS + 1,)
    assert envs.env_is_wrapped(Monitor) == [False] * 3
    with pytest.raises(AttributeError):
        envs.get_attr("nonesuch")


def test_seeds_replay_the_same_episodes():
    def trace(seed):
        envs = SB3VecEnv(GoVectorEnv(2, board_size=SIZE, learner="random"))
        envs.seed(seed)
        observations = [envs.reset()]
        for _ in range(10):
            observations.append(envs.step(np.array([PASS, PASS]))[0])
        return np.stack(observations)

    np.testing.assert_array_equal(trace(5), trace(5))
    assert not np.array_equal(trace(5), trace(6))


def test_a_sync_vector_env_of_goenvs_adapts_too_if_it_resets_in_the_same_step():
    with pytest.raises(ValueError, match="SAME_STEP"):
        SB3VecEnv(gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", board_size=SIZE))
    sync = gymnasium.make_vec(
        ENV_ID,
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        wrappers=[Monitor],
        board_size=SIZE,
    )
    envs = SB3VecEnv(sync)
    envs.reset()
    assert envs.env_is_wrapped(Monitor) == [True, True]
    assert envs.get_attr("board_size") == [SIZE, SIZE]
    for _ in range(200):
        masks = get_action_masks(envs)
        _, _, dones, infos = envs.step(masks[:, :-1].argmax(axis=1) * masks[:, :-1].any(axis=1))
        if dones.any():
            b = int(np.flatnonzero(dones)[0])
            assert infos[b]["terminal_observation"].shape == (SIZE, SIZE, 17) and "reason" in infos[b]
            break
    else:
        pytest.fail("no episode ended")


def test_maskable_ppo_learns_on_the_batched_env_and_logs_its_episodes():
    vector = GoVectorEnv(
        4,
        board_size=SIZE,
        learner="alternate",
        opponent="random",
        channels_first=True,
        observation_dtype="float32",
    )
    envs = VecMonitor(SB3VecEnv(vector))
    model = MaskablePPO(
        "MlpPolicy",
        envs,
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        policy_kwargs=dict(
            features_extractor_class=GoResNetExtractor,
            features_extractor_kwargs=dict(blocks=1, filters=8),
            net_arch=[],
        ),
        seed=0,
    )
    model.learn(256)
    assert model.num_timesteps == 256
    assert model.ep_info_buffer and all(episode["r"] in (-1.0, 0.0, 1.0) for episode in model.ep_info_buffer)
