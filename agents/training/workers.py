"""Where a self-play round's shards are played: in the training process, in local worker
processes, or on Ray actors. Each shard is seeded on its own, so the games are the same
wherever they are played; the network goes to the workers as its weights each round.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

import numba
import torch
from torch import nn

from go_env import Rules
from goarena.agents.training.selfplay import SelfPlayGames, SelfPlaySettings, play_selfplay


def _cpu_copy(model: nn.Module) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    return dict(model.kwargs), {k: v.detach().cpu() for k, v in model.state_dict().items()}  # type: ignore[arg-type]


def _play_shard(
    network: tuple[dict[str, Any], dict[str, torch.Tensor]],
    games: int,
    rules: Rules,
    settings: SelfPlaySettings,
    seed: int,
) -> SelfPlayGames:
    """One shard in a worker: the network rebuilt from its weights, on one CPU thread."""
    from goarena.agents.nets.zero import ZeroNet

    torch.set_num_threads(1)
    kwargs, state = network
    model = ZeroNet(**kwargs)
    model.load_state_dict(state)
    return play_selfplay(model.eval(), games, rules, settings, seed)


def _init_worker() -> None:
    numba.set_num_threads(1)  # a worker per core: the kernels' own threads would only compete


class SelfPlayWorkers:
    """Plays a round's shards.

    Args:
        workers: local processes (1: in this process, on its own threads).
        ray_address: play on Ray actors instead: "auto" starts or joins a local Ray, else
            the address of a running cluster.
    """

    def __init__(self, workers: int = 1, ray_address: str | None = None):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        self.workers = workers
        self.ray_address = ray_address
        self._pool: ProcessPoolExecutor | None = None
        self._ray_play: Any = None
        if ray_address is not None:
            self._start_ray(ray_address)

    def _start_ray(self, address: str) -> None:
        try:
            import ray
        except ImportError:
            raise ValueError("--ray needs the ray extra: pip install 'goarena[ray]'") from None
        if not ray.is_initialized():
            if address == "auto":
                ray.init(num_cpus=max(self.workers, 1), include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address, include_dashboard=False, log_to_driver=False)
        self._ray_play = ray.remote(num_cpus=1)(_play_shard)

    def play(
        self, model: nn.Module, games: int, rules: Rules, settings: SelfPlaySettings, seeds: list[int]
    ) -> list[SelfPlayGames]:
        """``games`` games in each of the shards seeded ``seeds``, in order."""
        if self._ray_play is not None:
            import ray

            shared = ray.put(_cpu_copy(model))
            return ray.get([self._ray_play.remote(shared, games, rules, settings, seed) for seed in seeds])
        if self.workers == 1:
            return [play_selfplay(model, games, rules, settings, seed) for seed in seeds]
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=get_context("spawn"), initializer=_init_worker
            )
        network = _cpu_copy(model)
        futures = [self._pool.submit(_play_shard, network, games, rules, settings, seed) for seed in seeds]
        return [future.result() for future in futures]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
