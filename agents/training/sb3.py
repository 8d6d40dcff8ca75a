"""``goarena train sb3``: MaskablePPO (sb3-contrib) with ``GoResNetExtractor`` on ``goarena/Go-v0``.

The learner plays ``--opponent`` (a player spec, ``random`` by default) in ``--n-envs`` games at
once, its colour alternating from game to game, and sees channels-first float32 planes. The
games are one ``GoVectorEnv`` (made an SB3 ``VecEnv`` by ``vec_env.SB3VecEnv``, its episodes
recorded by ``VecMonitor``): an opponent that plays many games at once (``random``, ``puct``,
the policy networks) moves in all of them in one call. With ``--self-play`` each game's
opponent is an ``OpponentPool`` of its own that starts with ``--opponent``; every
``--snapshot-every`` steps a frozen copy of the learner (moves drawn from its policy) joins
every pool, so a game's opponent is ``--opponent`` or one of the snapshots, drawn uniformly.

A run directory holds::

    config.json              the run's config; the run resumes only with the same one
    checkpoints/last.zip     the latest model (SB3 zip, optimizer included): every
                             ``--checkpoint-every`` steps, between rollouts, and at the end
    pool/step-NNNNNNNN.zip   the self-play snapshots
    tensorboard/ppo_0/       SB3's rollout/* and train/* scalars, and eval/win_rate_vs_OPPONENT
    model.zip                the final model: ``sb3:RUN/model.zip``
    metrics.json             the final evaluation

Every ``--eval-every`` steps the learner plays ``--eval-games`` games (its most likely legal
move, colours alternating) against each of ``--eval-opponents`` and logs its win rates. Files
are written atomically; a run that is killed resumes from its last checkpoint with its
timesteps when the same command runs again (the rollout in progress is lost, and the random
streams restart from the seed and the timesteps: a resumed run is not the same, bit for bit,
as one that never stopped).
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import gymnasium
import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from go_env import GoVectorEnv
from go_env.gym_env import ENV_ID
from goarena.agents.atomic import replacing
from goarena.agents.declared import one_of, option, positive, redefault
from goarena.agents.nets.predict import resolve_device, set_torch_threads
from goarena.agents.nets.sb3_extractor import GoResNetExtractor
from goarena.agents.players.pool import OpponentPool
from goarena.agents.players.sb3 import SB3Agent
from goarena.agents.protocols import GameContext
from goarena.agents.specs import check_spec
from goarena.agents.training.config import BoardConfig, at_least_zero, unit_interval
from goarena.agents.training.loop import Command, Run, process_threads, storage, write_json
from goarena.agents.training.vec_env import SB3VecEnv

DESCRIPTION = "Train MaskablePPO with a residual CNN on goarena/Go-v0 (resumable)."
LEARNERS = ("alternate", "random", "black", "white")
TB_LOG_NAME = "ppo"  # SB3 logs to tensorboard/ppo_0; a resumed run appends to the same folder


@dataclass(frozen=True, kw_only=True)
class SB3Config(BoardConfig):
    """A run of the SB3 job (the run's config.json): ``BoardConfig``'s fields (``lr`` Adam's, the
    seed the networks', the envs' and the opponents') and these. The defaults train 5x5
    against random: about 7 minutes on one CPU thread, and 96% of 200 games against random after.

    Attributes:
        size: board size.
        opponent: the opponent's player spec.
        learner: the learner's colour: alternate, random, black or white.
        komi: White's komi (area scoring, ``Rules()``'s other rules); None: the board size's.
        steps: environment steps (the learner's moves) to train for.
        n_envs: envs stepped together; a rollout is ``n_envs * n_steps`` steps.
        self_play: add frozen snapshots of the learner to each env's opponent pool.
        snapshot_every: steps between snapshots (with ``self_play``).
        eval_every: steps between evaluations.
        eval_games: games against each evaluation opponent (colours alternating).
        eval_opponents: player specs, separated by commas (``random,uct:simulations=100,c=1``:
            a ``key=value`` part is an option of the spec before it).
        blocks, filters: the extractor's residual blocks and their channels.
        n_steps, batch_size, n_epochs, gamma, gae_lambda, clip_range, ent_coef: PPO's.
    """

    size: int = redefault(BoardConfig, "size", 5)
    opponent: str = option("random", "the opponent's player spec")
    learner: str = option(
        "alternate", "the learner's colour: alternate, random, black or white", check=one_of(*LEARNERS)
    )
    steps: int = option(400_000, "environment steps (learner moves) to train for", check=positive)
    n_envs: int = option(8, "envs stepped together", check=positive)
    self_play: bool = option(
        False, "add frozen snapshots of the learner to the opponent pool, with --opponent"
    )
    snapshot_every: int = option(20_000, "steps between self-play snapshots", check=positive)
    eval_every: int = option(50_000, "steps between evaluations", check=positive)
    eval_games: int = option(100, "games against each evaluation opponent", check=positive)
    eval_opponents: str = option("random", "evaluation opponents' specs, separated by commas")
    checkpoint_every: int = redefault(BoardConfig, "checkpoint_every", 50_000)
    blocks: int = option(4, "residual blocks", check=at_least_zero)
    filters: int = option(32, "channels of the convolutions", check=positive)
    n_steps: int = option(128, "steps per env per rollout", check=positive)
    batch_size: int = option(256, "minibatch size", check=positive)
    n_epochs: int = option(4, "passes over each rollout", check=positive)
    gamma: float = option(1.0, "discount", check=unit_interval)
    gae_lambda: float = option(0.95, "GAE's lambda", check=unit_interval)
    clip_range: float = option(0.2, "PPO's clip range", check=unit_interval)
    ent_coef: float = option(0.01, "entropy bonus")

    def evaluation_opponents(self) -> list[str]:
        return split_specs(self.eval_opponents)


def split_specs(text: str) -> list[str]:
    """Comma-separated player specs as a list: a part of the form ``key=value`` is an option
    of the spec before it (``"random,uct:simulations=100,c=1"`` is ``random`` and
    ``uct:simulations=100,c=1``)."""
    specs: list[str] = []
    for part in filter(None, (part.strip() for part in text.split(","))):
        key, equals, _ = part.partition("=")
        if equals and key.isidentifier() and specs:
            specs[-1] += f",{part}"
        else:
            specs.append(part)
    return specs


def make_vec_env(config: SB3Config, opponent: str | list[OpponentPool]) -> VecEnv:
    """The training envs: ``config.n_envs`` games of ``goarena/Go-v0`` in one ``GoVectorEnv``
    against ``opponent`` (a spec, or one player for each game), channels-first float32 planes,
    as an SB3 ``VecEnv`` whose episodes' returns are recorded (``VecMonitor``)."""
    envs = GoVectorEnv(
        config.n_envs,
        board_size=config.size,
        komi=config.komi,
        # ``random`` is the env's own opponent, the same uniform legal moves drawn inside numba.
        opponent=None if opponent == "random" else opponent,
        learner=config.learner,  # type: ignore[arg-type]  # checked by the config
        channels_first=True,
        observation_dtype="float32",
    )
    return VecMonitor(SB3VecEnv(envs))


def make_env(config: SB3Config, opponent: str | object, learner: str | None = None) -> gymnasium.Env:
    """One env as the evaluations play it: ``goarena/Go-v0`` against ``opponent`` (a spec or
    a player), channels-first float32 planes, its episodes' returns recorded (``Monitor``)."""
    env = gymnasium.make(
        ENV_ID,
        board_size=config.size,
        komi=config.komi,
        opponent=opponent,
        learner=learner or config.learner,
        channels_first=True,
        observation_dtype="float32",
    )
    return Monitor(env)


def new_model(config: SB3Config, env: VecEnv, device: str, log_dir: Path | None = None) -> MaskablePPO:
    """A MaskablePPO learner with ``GoResNetExtractor`` whose features feed both heads, logging
    to TensorBoard in ``log_dir`` if given."""
    policy_kwargs = dict(
        features_extractor_class=GoResNetExtractor,
        features_extractor_kwargs=dict(blocks=config.blocks, filters=config.filters),
        net_arch=[],
    )
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=config.lr,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        policy_kwargs=policy_kwargs,
        tensorboard_log=str(log_dir) if log_dir is not None else None,
        seed=config.seed,
        device=device,
        verbose=0,
    )


def save_atomically(model: BaseAlgorithm, path: Path) -> None:
    """``model.save`` to a temporary file beside ``path`` (a name of its own: two processes
    never share one), then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path, suffix=".tmp.zip") as temporary:  # SB3 adds .zip to a name without it
        model.save(temporary)


def evaluate(model: MaskablePPO, config: SB3Config, opponent: str, games: int, seed: int) -> float:
    """The model's win rate (a draw counting half) in ``games`` games against ``opponent``,
    playing its most likely legal move, colours alternating (Black first)."""
    env = make_env(config, opponent, learner="alternate")
    legal_moves = env.get_wrapper_attr("action_masks")
    points = 0.0
    try:
        observation, _ = env.reset(seed=seed)
        for game in range(games):
            if game:
                observation, _ = env.reset()
            over = False
            while not over:
                action, _ = model.predict(observation, action_masks=legal_moves(), deterministic=True)
                observation, reward, terminated, truncated, _ = env.step(int(action))
                over = terminated or truncated
            points += (float(reward) + 1.0) / 2.0
    finally:
        env.close()
    return points / games


def progress_line(steps: int, total: int, rate: float, mean_return: float | None) -> str:
    """Where training is, first the step of all and the time left, as every training job shows
    it: ``step 2,048/50,000 left 0:01:16 640 steps/s return +0.12``."""
    left = datetime.timedelta(seconds=round(max(total - steps, 0) / rate)) if rate > 0 else "?"
    returns = "" if mean_return is None else f" return {mean_return:+.2f}"
    return f"step {steps:,}/{total:,} left {left} {rate:.0f} steps/s{returns}"


class _Progress(BaseCallback):
    """Checkpoints, self-play snapshots, evaluations and progress lines as training goes.

    Checkpoints and snapshots are taken when a rollout starts, after the last update, so a
    checkpoint holds whole iterations; evaluations run when a rollout ends, just before SB3
    writes the iteration's logs.
    """

    def __init__(
        self,
        config: SB3Config,
        run: Run,
        pools: list[OpponentPool],
        add_snapshot: Callable[[Path], None],
        progress: bool,
    ):
        super().__init__()
        self.progress = progress
        self.config = config
        self.run = run
        self.pools = pools
        self.add_snapshot = add_snapshot
        self.last_evaluation: dict[str, float] = {}
        self._started = time.perf_counter()
        self._start_steps = 0
        self._printed = 0.0

    def _on_training_start(self) -> None:
        self._started = time.perf_counter()
        self._start_steps = self.num_timesteps
        self._marks = {name: self.num_timesteps // every for name, every in self._schedule().items()}

    def _schedule(self) -> dict[str, int]:
        schedule = {"checkpoint": self.config.checkpoint_every, "eval": self.config.eval_every}
        if self.config.self_play:
            schedule["snapshot"] = self.config.snapshot_every
        return schedule

    def _due(self, name: str) -> bool:
        """Whether the steps have passed another multiple of ``name``'s interval since it last ran."""
        mark = self.num_timesteps // self._schedule()[name]
        due = mark > self._marks[name]
        self._marks[name] = mark
        return due

    def _on_step(self) -> bool:
        return True

    def _on_rollout_start(self) -> None:
        if "snapshot" in self._marks and self._due("snapshot"):
            path = snapshot_path(self.run.directory, self.num_timesteps)
            save_atomically(self.model, path)
            self.add_snapshot(path)
            self._say(f"snapshot {path.name} joins the opponent pool ({len(self.pools[0].players)} players)")
        if self._due("checkpoint"):
            save_atomically(self.model, checkpoint_path(self.run))

    def _on_rollout_end(self) -> None:
        if self._due("eval"):
            self.last_evaluation = self.evaluate()
            for opponent, rate in self.last_evaluation.items():
                self.logger.record(f"eval/win_rate_vs_{opponent}", rate)
            rates = ", ".join(f"{rate:.1%} vs {opponent}" for opponent, rate in self.last_evaluation.items())
            self._say(f"eval ({self.config.eval_games} games each): {rates}")
        elif time.perf_counter() - self._printed > 10:
            self._say("")

    def evaluate(self) -> dict[str, float]:
        seed = self.config.seed + self.num_timesteps
        games = self.config.eval_games
        return {
            spec: evaluate(cast(MaskablePPO, self.model), self.config, spec, games, seed)
            for spec in self.config.evaluation_opponents()
        }

    def _say(self, message: str) -> None:
        if not self.progress:
            return
        elapsed = time.perf_counter() - self._started
        rate = (self.num_timesteps - self._start_steps) / max(elapsed, 1e-9)
        episodes: list[dict[str, float]] = list(self.model.ep_info_buffer or [])
        mean_return = float(np.mean([episode["r"] for episode in episodes])) if episodes else None
        line = progress_line(self.num_timesteps, self.config.steps, rate, mean_return)
        print(f"{line}  {message}" if message else line, flush=True)
        self._printed = time.perf_counter()


def checkpoint_path(run: Run) -> Path:
    return run.directory / "checkpoints" / "last.zip"


def snapshot_path(run_dir: Path, steps: int) -> Path:
    return run_dir / "pool" / f"step-{steps:08d}.zip"


def train_sb3(
    config: SB3Config,
    run_dir: Path | str,
    *,
    device: str = "cpu",
    threads: int = 1,
    progress: bool = True,
) -> dict[str, Any]:
    """Train (or resume) the run in ``run_dir``; write ``model.zip`` and return (and save as
    metrics.json) its evaluation against ``config``'s evaluation opponents. The run directory
    is held as every job's is (``loop.run_training``'s order: the players and the envs are
    built, so checked, before ``loop.Run`` locks the directory and writes its config);
    SB3's ``learn`` is the loop."""
    resolve_device(device)
    with process_threads(threads):
        context = GameContext(config.size, config.rules())
        for spec in (config.opponent, *config.evaluation_opponents()):
            check_spec(spec, context)
        pools = [OpponentPool([config.opponent]) for _ in range(config.n_envs)] if config.self_play else []
        env = make_vec_env(config, pools or config.opponent)
        try:
            with Run(run_dir, asdict(config)) as run, storage(run.directory, "write the run"):
                return _train(config, run, env, pools, device, threads, progress)
        finally:
            env.close()


def _train(
    config: SB3Config,
    run: Run,
    env: VecEnv,
    pools: list[OpponentPool],
    device: str,
    threads: int,
    progress: bool,
) -> dict[str, Any]:
    pooled: set[Path] = set()

    def add_snapshot(path: Path) -> None:
        if path in pooled:  # written again after a resume from an earlier checkpoint
            return
        pooled.add(path)
        snapshot = SB3Agent(path, temperature=1.0, device=device)
        set_torch_threads(threads)  # the player sets one thread for itself
        for pool in pools:
            pool.add(snapshot)

    for path in sorted((run.directory / "pool").glob("step-*.zip")) if config.self_play else []:
        add_snapshot(path)  # a resumed run's pool
    last = checkpoint_path(run)
    if last.exists():
        model = MaskablePPO.load(last, env=env, device=device, tensorboard_log=str(run.log_dir))
        model.set_random_seed(config.seed + model.num_timesteps)
        if progress:
            print(f"resuming {run.directory} at step {model.num_timesteps:,}", flush=True)
    else:
        model = new_model(config, env, device, run.log_dir)
    env.seed(config.seed + model.num_timesteps)
    callback = _Progress(config, run, pools, add_snapshot, progress)
    started = time.perf_counter()
    remaining = config.steps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=False, tb_log_name=TB_LOG_NAME)
        save_atomically(model, last)
    save_atomically(model, run.directory / "model.zip")
    evaluation = {
        spec: evaluate(model, config, spec, config.eval_games, config.seed + 1)
        for spec in config.evaluation_opponents()
    }
    metrics = {
        "steps": int(model.num_timesteps),
        "seconds": round(time.perf_counter() - started, 1),
        "eval_games": config.eval_games,
        "win_rates": evaluation,
        "model": "model.zip",
    }
    write_json(run.directory / "metrics.json", metrics)
    return metrics


def summary(metrics: dict[str, Any], run: Path) -> list[str]:
    rates = metrics["win_rates"].items()
    lines = [
        f"against {opponent} ({metrics['eval_games']} games): win rate {rate:.1%}" for opponent, rate in rates
    ]
    model = run / metrics["model"]
    lines.append(f"model {model} (play it as sb3:{model}) after {metrics['steps']:,} steps")
    return lines


COMMAND = Command("sb3", DESCRIPTION, SB3Config, train_sb3, summary)

main = COMMAND.main  # ``goarena train sb3 ...``: train, then print the final model's win rates.
parser = COMMAND.parser
