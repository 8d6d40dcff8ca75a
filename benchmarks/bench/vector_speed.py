"""Learner steps per second of goarena's Gymnasium envs, one env against a vector of them, in one run.

Every runner plays a random learner (a uniformly random legal action, from the env's masks)
against the envs' default opponent (a uniformly random legal move) for a fixed time, and
counts the learner's steps, episode resets included:

- ``GoEnv`` stepped in a Python loop, one env;
- Gymnasium's ``SyncVectorEnv`` of ``num_envs`` ``GoEnv``\\ s (same-step auto-reset, as
  ``GoVectorEnv``, so that every step of every sub-env is a learner's move);
- ``GoVectorEnv(num_envs)``: the same games over one ``GameBatch``, a few kernel calls a step,
  on one numba thread (its default) and on all of numba's.

    goarena bench vector
    goarena bench vector --sizes 9 --num-envs 256 --seconds 5

The vector envs' actions are drawn for all sub-envs at once (``random_legal_actions``), the
single env's with Python's ``random``, so that drawing costs little next to stepping.

With ``--ppo``, it measures instead MaskablePPO's learner steps per second (rollouts and
updates, as ``model.learn`` runs them; and of the rollouts alone, where the envs step) on
``--num-envs`` games against the ``random`` player, with ``goarena train sb3``'s network and
settings, on the two ways to step them: SB3's
``DummyVecEnv`` of ``GoEnv``\\ s (each in a ``Monitor``), and ``GoVectorEnv`` through
``SB3VecEnv`` (in a ``VecMonitor``), as ``goarena train sb3`` does::

    goarena bench vector --ppo --sizes 9 --num-envs 64 --ppo-steps 8192
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from functools import partial

import gymnasium
import numba
import numpy as np

from go_env import GoEnv, GoVectorEnv
from goarena.benchmarks.bench import add_seconds, rate

SINGLE = "GoEnv, Python loop"
DUMMY = "DummyVecEnv of {} GoEnv"
WARM_UP_STEPS = 20  # untimed steps before each measurement


@dataclass
class Measurement:
    name: str
    size: int
    steps_per_second: float


def random_legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """int64[B]: a uniformly random legal action for each row of ``masks`` ([B, A], each row
    with a legal action): the k-th legal action of each row, k drawn below its count."""
    counts = np.cumsum(masks != 0, axis=1)
    picks = rng.integers(counts[:, -1])
    return (counts > picks[:, None]).argmax(axis=1)


def single_env(size: int, seconds: float) -> float:
    """One ``GoEnv`` stepped from Python, reset at each episode's end."""
    env = GoEnv(board_size=size)
    rng = random.Random(0)
    _, info = env.reset(seed=0)

    def step() -> int:
        nonlocal info
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[rng.randrange(len(legal))]))
        if terminated or truncated:
            _, info = env.reset()
        return 1

    return rate(step, seconds, warm_up=WARM_UP_STEPS)


def sync_vector_env(size: int, num_envs: int, seconds: float) -> float:
    """Gymnasium's ``SyncVectorEnv`` of ``num_envs`` ``GoEnv``\\ s, resetting in the same step."""
    envs = gymnasium.vector.SyncVectorEnv(
        [partial(GoEnv, board_size=size)] * num_envs, autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP
    )
    return _vector_steps(envs, seconds)


def go_vector_env(size: int, num_envs: int, seconds: float, threads: int = 1) -> float:
    """``GoVectorEnv(num_envs)``, its kernels on ``threads`` numba threads."""
    return _vector_steps(GoVectorEnv(num_envs, board_size=size, threads=threads), seconds)


def _vector_steps(envs: gymnasium.vector.VectorEnv, seconds: float) -> float:
    rng = np.random.default_rng(0)
    _, infos = envs.reset(seed=0)

    def step() -> int:
        nonlocal infos
        _, _, _, _, infos = envs.step(random_legal_actions(infos["action_mask"], rng))
        return envs.num_envs

    try:
        return rate(step, seconds, warm_up=WARM_UP_STEPS)
    finally:
        envs.close()


def run(sizes: list[int], num_envs: int, seconds: float) -> list[Measurement]:
    results = []
    for size in sizes:
        results.append(Measurement(SINGLE, size, single_env(size, seconds)))
        speed = sync_vector_env(size, num_envs, seconds)
        results.append(Measurement(f"SyncVectorEnv of {num_envs} GoEnv", size, speed))
        for threads in sorted({1, numba.get_num_threads()}):
            speed = go_vector_env(size, num_envs, seconds, threads)
            name = f"GoVectorEnv, {num_envs} envs, {threads} thread{'s' if threads > 1 else ''}"
            results.append(Measurement(name, size, speed))
    return results


def report(results: list[Measurement]) -> str:
    lines = ["Random learner against the random opponent"]
    for size in sorted({m.size for m in results}):
        single = next((m.steps_per_second for m in results if m.size == size and m.name == SINGLE), None)
        lines.append(f"\n{size}x{size}")
        lines.append(f"  {'env':40s} {'learner steps/s':>16s} {'/ GoEnv':>9s}")
        for m in (m for m in results if m.size == size):
            ratio = f"{m.steps_per_second / single:.2f}x" if single else "-"
            lines.append(f"  {m.name:40s} {m.steps_per_second:16,.0f} {ratio:>9s}")
    return "\n".join(lines)


def show(sizes: list[int], num_envs: int, seconds: float) -> None:
    """``goarena bench vector``: measure and print the table."""
    print(report(run(sizes, num_envs, seconds)))


# -- MaskablePPO on the envs: ``goarena bench vector --ppo`` ---------------------------------


PPO_N_STEPS = 32  # steps per env per rollout


@dataclass
class PPOSpeed:
    learn: float  # learner steps per second of ``model.learn``: rollouts and updates
    rollouts: float  # ... of its rollouts alone: the env's steps and the policy's forward passes


def ppo_speed(size: int, num_envs: int, steps: int, batched: bool) -> PPOSpeed:
    """MaskablePPO's learner steps per second over ``steps`` steps (whole rollouts) on
    ``num_envs`` games against ``random``: ``GoVectorEnv`` through ``SB3VecEnv`` if ``batched``,
    else a ``DummyVecEnv`` of ``GoEnv``\\ s. One rollout and update first, untimed (numba and
    torch warm up)."""
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    from goarena.agents.training.sb3 import SB3Config, make_env, make_vec_env, new_model

    class RolloutClock(BaseCallback):
        """The time spent in rollouts, not in updates."""

        seconds = 0.0

        def _on_rollout_start(self) -> None:
            self.started = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.seconds += time.perf_counter() - self.started

        def _on_step(self) -> bool:
            return True

    config = SB3Config(
        size=size, n_envs=num_envs, n_steps=PPO_N_STEPS, batch_size=min(256, num_envs * PPO_N_STEPS)
    )
    envs = (
        make_vec_env(config, config.opponent)
        if batched
        else DummyVecEnv([partial(make_env, config, config.opponent)] * num_envs)
    )
    try:
        model = new_model(config, envs, "cpu")
        model.learn(1)  # one rollout and its update
        before, clock = model.num_timesteps, RolloutClock()
        start = time.perf_counter()
        model.learn(steps, callback=clock, reset_num_timesteps=False)
        elapsed = time.perf_counter() - start
        taken = model.num_timesteps - before
        return PPOSpeed(taken / elapsed, taken / clock.seconds)
    finally:
        envs.close()


def show_ppo(sizes: list[int], num_envs: int, steps: int) -> None:
    """``goarena bench vector --ppo``: measure MaskablePPO on both and print the table."""
    from goarena.agents.training.loop import process_threads
    from goarena.agents.training.sb3 import SB3Config

    config = SB3Config()
    print(
        f"MaskablePPO against random, {num_envs} envs, n_steps {PPO_N_STEPS}, {config.n_epochs} epochs, "
        f"{config.blocks} blocks x {config.filters} filters (goarena train sb3's network), "
        f"{steps:,} steps, on one CPU thread"
    )
    for size in sizes:
        with process_threads(1):
            dummy = ppo_speed(size, num_envs, steps, batched=False)
            batched = ppo_speed(size, num_envs, steps, batched=True)
        print(f"\n{size}x{size}")
        print(f"  {'env':36s} {'learner steps/s':>16s} {'ratio':>7s} {'in rollouts':>12s} {'ratio':>7s}")
        for name, speed in (
            (DUMMY.format(num_envs), dummy),
            (f"SB3VecEnv(GoVectorEnv), {num_envs} envs", batched),
        ):
            learn, rollouts = speed.learn / dummy.learn, speed.rollouts / dummy.rollouts
            print(f"  {name:36s} {speed.learn:16,.0f} {learn:6.2f}x {speed.rollouts:12,.0f} {rollouts:6.2f}x")


# -- the command: ``goarena bench vector`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench vector``."""
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19], help="board sizes (default 9 19)")
    parser.add_argument("--num-envs", type=int, default=64, help="sub-envs of the vector envs (default 64)")
    add_seconds(parser, 2.0)
    parser.add_argument(
        "--ppo",
        action="store_true",
        help="measure MaskablePPO's learner steps/s instead: DummyVecEnv vs GoVectorEnv",
    )
    parser.add_argument(
        "--ppo-steps", type=int, default=8192, help="timed steps of each --ppo run (default 8192)"
    )


def command(args: argparse.Namespace) -> None:
    """``goarena bench vector``: measure and print."""
    if args.ppo:
        show_ppo(args.sizes, args.num_envs, args.ppo_steps)
    else:
        show(args.sizes, args.num_envs, args.seconds)
