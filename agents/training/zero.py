"""``goarena train zero``: AlphaZero from zero knowledge, one network improved by its own search.

Each step of the run is one round: ``games`` self-play games of the current network
(``selfplay.play_selfplay``: PUCT or Gumbel search, noise, resignation, playout caps), written
to the replay buffer as one chunk (``replay``), then ``updates`` minibatches drawn from the
buffer's growing window, each position under a random symmetry, on the loss

    (v - z')^2  -  pi . log p  +  ownership_weight * mean over points (o - o*)^2
                + score_weight * huber((s - s*) / N)                       (+ L2, as weight decay)

with Adam. The value target z' = (1 - root_value_weight) z + root_value_weight q mixes the game's
outcome z with the search's root value q there; s* is the final margin for the side to move
(played-out games only).

The value loss stalls near 0.66 on 9x9 because that is the outcomes' own noise (measured in
docs/alphazero.md): the outcome is one draw shared by every position of its game, so half of
the target is the search's root value (``root_value_weight`` 0.5).

The network (``ZeroNet``) has every head and reads the komi by default (``--rules-input``,
``--score-head``); self-play draws each game's komi around ``--komi`` (``--komi-sd``) so that
the network learns what the komi is worth, and plays in bfloat16 where the CPU computes it
natively (``--precision auto``). ``--init FILE`` starts from an older zero network's weights
(``nets.zero.widen_from``: the new inputs and heads zeroed, so it starts playing as that one).

Warm start (``--expert DIR``): before its first round the network learns the expert games of
``DIR`` (``goarena data gnugo --level 10``, AlphaGo's data; ``expert.expert_positions``) for
``expert_epochs`` passes on the same loss, the expert's move as the policy target and the
record's territory marks as the ownership and score targets; generation 0 is the network so
taught, at the seconds it took. Self-play then improves it as it would a network from zero.

Before each round trains, the network's value is measured on the round's fresh games, which
it has not trained on: ``held_out_value_loss`` and the calibration error
``value_calibration_error`` (``calibration``: predicted win probability in buckets against the
share won), logged every round; each generation's table is kept in ``generations.json`` and
the last one printed at the end.

Every ``generation_every`` rounds the network is saved as a generation
(``generations/gen-NNNN.pt``, listed with its step, games and training time in
``generations.json``; generation 0 is the network it starts from). At the end of ``goarena train
zero``, unless ``--rate-games 0``, the generations meet fixed anchors in a league
(``benchmarks.league.zero_rating``), whose Elo table is the run's learning curve
(``elo.json``, ``elo.png``).

The komi check (``empty_board_win_rates``): on 5x5, whose solved value is B+25, Black's win
probability from the empty board must be above one half at komi 24.5 and below at 25.5; its
command and figures are in docs/alphazero.md.

Self-play is split into ``shards`` batches of games, each seeded by the run's seed, the round
and the shard alone, so a round's games do not depend on where they are played: in the
training process, in ``--workers`` local processes, or on Ray actors (``--ray``). A round is
checkpointed when it ends (``checkpoint_every`` 1): a run killed at any moment (even
``kill -9``) and started again replays the round it was in, identically, and overwrites its
chunk; no game is lost or counted twice.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from go_env import BLACK, GameBatch, Rules
from go_env import core as K
from goarena.agents.declared import one_of, option, positive, redefault
from goarena.agents.inference import NetworkEvaluator
from goarena.agents.nets.checkpoint import read_checkpoint, save_model
from goarena.agents.nets.predict import PRECISION_NAMES
from goarena.agents.nets.zero import ZeroNet, widen_from
from goarena.agents.training import loop
from goarena.agents.training.config import BoardConfig, at_least_zero
from goarena.agents.training.expert import expert_positions, read_expert_folder
from goarena.agents.training.loop import as_begun, run_training, step_rng, write_json
from goarena.agents.training.replay import ReplayBuffer
from goarena.agents.training.selfplay import (
    SEARCHES,
    SelfPlayGames,
    SelfPlaySettings,
    merge_games,
)
from goarena.agents.training.workers import SelfPlayWorkers
from goarena.search import Leaves

DESCRIPTION = "Teach a network Go from zero knowledge by self-play (AlphaZero; resumable)."
WEIGHTS = "zero.pt"
GENERATIONS = "generations.json"
EXPERT = "expert"  # the run's folder of the expert games' positions (one replay chunk)
EXPERT_STREAM = 0xE  # the expert training's random stream, apart from the rounds' (step_rng)
TIMELINE = "timeline.json"
CALIBRATION_BUCKETS = 10


def _probability(name: str, value: float) -> str | None:
    return None if 0.0 <= value <= 1.0 else f"{name} must be in [0, 1], got {value}"


@dataclass(frozen=True, kw_only=True)
class ZeroConfig(BoardConfig):
    """A run of the zero job (the run's config.json): ``BoardConfig``'s fields (a 9x9 board by
    default) and these."""

    blocks: int = option(4, "residual blocks of the network", check=positive)
    filters: int = option(32, "channels of the network", check=positive)
    rules_input: bool = option(True, "the network reads the komi and the scoring rule", before=False)
    score_head: bool = option(
        True, "the network predicts the final margin (trained on the games' margins)", before=False
    )
    init: str | None = option(
        None, "start from this zero network's weights file (its new inputs and heads zeroed)", parse=str
    )
    expert: str | None = option(
        None,
        "warm start: a folder of expert SGF games (goarena data gnugo) learnt before the first round",
        parse=str,
    )
    expert_epochs: float = option(
        8.0, "passes over the expert games' positions (with --expert)", check=positive
    )
    rounds: int = option(200, "rounds of self-play and training: the run's steps", check=positive)
    games: int = option(64, "self-play games per round", check=positive)
    shards: int = option(2, "batches a round's games are played in (the unit of --workers)", check=positive)
    search: str = option("gumbel", "self-play search: gumbel or puct", check=one_of(*SEARCHES))
    simulations: int = option(16, "simulations of a full search", check=positive)
    cheap_simulations: int = option(
        4, "simulations of a cheap search (playout cap randomization)", check=positive
    )
    full_search_probability: float = option(
        1.0, "share of moves searched fully and recorded; 1: no playout cap randomization", check=_probability
    )
    noise: float = option(0.25, "weight of the root's Dirichlet noise (puct)", check=_probability)
    temperature_moves: int = option(
        8, "opening moves drawn in proportion to the visits (puct)", check=at_least_zero
    )
    max_considered: int = option(16, "root moves Gumbel search considers", check=positive)
    resign_value: float = option(
        0.9, "resign when the root value is below minus this; 0: never", check=_probability
    )
    no_resign_fraction: float = option(0.2, "share of games never resigned", check=_probability)
    tree_reuse: bool = option(
        False, "keep the played move's subtree and top its root up to --simulations visits (puct)"
    )
    updates: int = option(16, "minibatches trained per round", check=positive)
    batch_size: int = option(256, "positions per minibatch", check=positive)
    window: int = option(20000, "positions the replay window holds before it grows slower", check=positive)
    ownership_weight: float = option(1.5, "weight of the ownership loss", check=at_least_zero)
    score_weight: float = option(0.5, "weight of the score loss (with --score-head)", check=at_least_zero)
    root_value_weight: float = option(
        0.5,
        "share of the search's root value in the value target (the rest: the outcome)",
        check=_probability,
        before=0.0,
    )
    komi_sd: float = option(
        1.0,
        "each self-play game's komi is drawn around --komi, this deviation in points (needs --rules-input)",
        check=at_least_zero,
        before=0.0,
    )
    precision: str = option(
        "auto", "self-play's arithmetic: float32, bfloat16, or auto (bfloat16 with AVX512-BF16)",
        check=one_of(*PRECISION_NAMES), before="float32",
    )  # fmt: skip
    weight_decay: float = option(1e-4, "L2 weight decay", check=at_least_zero)
    generation_every: int = option(10, "rounds between generations", check=positive)
    checkpoint_every: int = redefault(BoardConfig, "checkpoint_every", 1)
    log_every: int = option(1, "rounds between TensorBoard points", check=positive)

    def check(self) -> None:
        super().check()
        if self.games % self.shards:
            raise ValueError(f"games ({self.games}) must divide into shards ({self.shards})")
        if self.komi_sd > 0 and not self.rules_input:
            raise ValueError(
                "komi_sd draws each game's komi, which a network without rules_input cannot see: "
                "--komi-sd 0 with --no-rules-input"
            )
        self.settings()

    @property
    def steps(self) -> int:
        return self.rounds

    def settings(self) -> SelfPlaySettings:
        return SelfPlaySettings(
            search=self.search,
            simulations=self.simulations,
            cheap_simulations=self.cheap_simulations,
            full_search_probability=self.full_search_probability,
            noise=self.noise,
            temperature_moves=self.temperature_moves,
            max_considered=self.max_considered,
            resign_value=self.resign_value,
            no_resign_fraction=self.no_resign_fraction,
            tree_reuse=self.tree_reuse,
            komi_sd=self.komi_sd,
            precision=self.precision,
        )


@dataclass(frozen=True)
class LossWeights:
    """The weights of the loss's parts beside the policy's and the value's (``ZeroConfig``'s)."""

    ownership: float = 1.5
    score: float = 0.5
    root_value: float = 0.5  # the root value's share in the value target


def zero_loss(
    model: ZeroNet, batch: dict[str, np.ndarray], weights: LossWeights = LossWeights()
) -> dict[str, torch.Tensor]:
    """The AlphaZero loss of a minibatch (``ReplayBuffer.sample``'s), with its parts and the
    policy's entropy; the score loss where the model has a score head."""
    device = next(model.parameters()).device

    def tensor(name: str) -> torch.Tensor:
        return torch.as_tensor(batch[name], dtype=torch.float32, device=device)

    output = model(tensor("planes"))
    log_p = F.log_softmax(output.logits, dim=1)
    policy_loss = -(tensor("policy") * log_p).sum(dim=1).mean()
    z = tensor("value")
    if weights.root_value > 0 and "root_value" in batch:
        mixed = (1.0 - weights.root_value) * z + weights.root_value * tensor("root_value")
        z = torch.where(tensor("searched") > 0, mixed, z)
    value_loss = ((output.value - z) ** 2).mean()
    owned = tensor("owned")
    per_position = ((output.ownership - tensor("ownership")) ** 2).mean(dim=1)
    ownership_loss = (per_position * owned).sum() / owned.sum().clamp(min=1.0)
    entropy = -(log_p.exp() * log_p).sum(dim=1).mean()
    loss = value_loss + policy_loss + weights.ownership * ownership_loss
    parts = {
        "loss": loss,
        "policy_loss": policy_loss,
        "value_loss": value_loss,
        "ownership_loss": ownership_loss,
        "policy_entropy": entropy,
    }
    if output.score is not None and "score" in batch:
        scored = tensor("scored")
        size = float(model.board_size)
        per_score = F.smooth_l1_loss(output.score / size, tensor("score") / size, reduction="none")
        score_loss = (per_score * scored).sum() / scored.sum().clamp(min=1.0)
        parts["loss"] = loss + weights.score * score_loss
        parts["score_loss"] = score_loss
    return parts


def calibration(
    values: np.ndarray, outcomes: np.ndarray, buckets: int = CALIBRATION_BUCKETS
) -> tuple[float, list[dict[str, float]]]:
    """How well predicted values match the outcomes: positions put in ``buckets`` equal bins of
    the predicted win probability (1 + v) / 2; in each, the mean prediction against the share
    won (a draw counts half).

    Args:
        values: predicted values for the side to move, float[n] in [-1, 1].
        outcomes: the games' results for the side to move, +1, 0 or -1, float[n].

    Returns:
        The expected calibration error (the bins' |prediction - share won| weighted by their
        positions; 0 is perfect), and a row per non-empty bin: ``low``, ``high``, ``positions``,
        ``predicted``, ``won``.
    """
    p = (1.0 + np.clip(np.asarray(values, np.float64), -1.0, 1.0)) / 2.0
    won = (1.0 + np.asarray(outcomes, np.float64)) / 2.0
    which = np.minimum((p * buckets).astype(np.int64), buckets - 1)
    rows, error = [], 0.0
    for b in range(buckets):
        here = which == b
        count = int(here.sum())
        if not count:
            continue
        predicted, share = float(p[here].mean()), float(won[here].mean())
        error += count * abs(predicted - share)
        rows.append(
            {
                "low": b / buckets,
                "high": (b + 1) / buckets,
                "positions": count,
                "predicted": predicted,
                "won": share,
            }
        )
    return (error / len(p) if len(p) else 0.0), rows


def calibration_line(rows: list[dict[str, float]]) -> str:
    """A calibration table on one line: ``predicted -> won (positions)`` per bin."""
    return ", ".join(f"{row['predicted']:.2f}->{row['won']:.2f} ({row['positions']:.0f})" for row in rows)


def empty_board_win_rates(model: ZeroNet, komis: list[float]) -> np.ndarray:
    """float64[K]: the network's probability that Black wins from the empty board under area
    scoring at each of ``komis``, (1 + v) / 2 of its value there (Black to move)."""
    batch = GameBatch(model.board_size, len(komis), Rules(komi=komis[0], scoring="area"))
    batch.state.info[:, K.INFO_KOMI] = np.round(2.0 * np.asarray(komis, np.float64)).astype(np.int64)
    leaves = Leaves(batch.state, batch.legal_masks(), batch.geometry)
    values = NetworkEvaluator(policy=model, value=model, cache=0).outputs(leaves).values
    return (1.0 + values) / 2.0


def held_out_value(model: ZeroNet, games: SelfPlayGames, batch: int = 1024) -> dict[str, Any]:
    """The value head on positions it has not trained on (a round's fresh games): its squared
    error against the outcomes, and ``calibration``'s error and rows."""
    device = next(model.parameters()).device
    values = []
    with torch.inference_mode():
        for start in range(0, len(games), batch):
            planes = torch.as_tensor(games.planes[start : start + batch], dtype=torch.float32, device=device)
            values.append(model(planes).value.float().cpu().numpy())
    predicted = np.concatenate(values) if values else np.zeros(0)
    outcomes = games.value.astype(np.float64)
    error, rows = calibration(predicted, outcomes)
    loss = float(np.mean((predicted - outcomes) ** 2)) if len(predicted) else 0.0
    return {"value_loss": loss, "calibration_error": error, "calibration": rows}


class ZeroJob:
    """Self-play rounds and training steps, for ``loop.train``."""

    def __init__(
        self,
        model: ZeroNet,
        config: ZeroConfig,
        directory: Path,
        workers: SelfPlayWorkers,
        on_generation: Callable[[], float] | None = None,
    ):
        self.model = model
        self.config = config
        self.directory = directory
        self.workers = workers
        self.rules = config.rules()
        self.settings = config.settings()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.buffer = ReplayBuffer(directory / "buffer", config.window)
        self._rounds_done = 0
        self._timeline: dict[int, float] | None = None  # step -> training seconds when it ended
        self.on_generation = on_generation  # rates the generations so far; the newest one's Elo
        self._latest_elo = math.nan
        self.weights = LossWeights(config.ownership_weight, config.score_weight, config.root_value_weight)
        self._calibration: list[dict[str, float]] = []  # the latest round's (held_out_value)

    # -- the run's record of time, kept beside the checkpoints --------------------------

    def _seconds_at(self, step: int) -> float:
        if self._timeline is None:
            path = self.directory / TIMELINE
            saved = json.loads(path.read_text()) if path.exists() else {}
            self._timeline = {int(k): float(v) for k, v in saved.items() if int(k) <= step}
        return self._timeline.get(step, 0.0)

    def _record_time(self, done: int, seconds: float) -> None:
        assert self._timeline is not None
        self._timeline = {k: v for k, v in self._timeline.items() if k < done}
        self._timeline[done] = seconds
        write_json(self.directory / TIMELINE, {str(k): v for k, v in sorted(self._timeline.items())})

    def _save_generation(self, done: int, seconds: float) -> None:
        number = done // self.config.generation_every
        weights = f"generations/gen-{number:04d}.pt"
        save_model(self.directory / weights, self.model)
        path = self.directory / GENERATIONS
        entries = json.loads(path.read_text()) if path.exists() else []
        entries = [entry for entry in entries if entry["step"] < done]
        games = done * self.config.games
        entries.append(
            {
                "generation": number,
                "step": done,
                "games": games,
                "seconds": seconds,
                "weights": weights,
                "calibration": self._calibration,  # of the value before its last round's training
            }
        )
        write_json(path, entries)  # type: ignore[arg-type]

    # -- the warm start ---------------------------------------------------------------------

    def _learn_expert_games(self) -> dict[str, float]:
        """Train on the expert games' positions (``expert.expert_positions``, kept in the run's
        ``expert/`` folder) for ``expert_epochs`` passes; their mean losses, as metrics."""
        assert self.config.expert is not None
        positions = ReplayBuffer(self.directory / EXPERT, window=2**62)
        if not positions.chunks(0):
            games, _ = read_expert_folder(self.config.expert, self.config.size)
            positions.add(0, expert_positions(games, self.model.features))
        count = len(positions.chunks(0)[0])
        updates = max(1, math.ceil(self.config.expert_epochs * count / self.config.batch_size))
        rng = np.random.default_rng([self.config.seed, EXPERT_STREAM])
        sums = self._train(lambda: positions.sample(0, self.config.batch_size, rng), updates)
        metrics = {f"expert_{name}": total / updates for name, total in sums.items()}
        return {"expert_positions": float(count), "expert_updates": float(updates), **metrics}

    def _train(self, draw: Callable[[], dict[str, np.ndarray] | None], updates: int) -> dict[str, float]:
        """``updates`` minibatches from ``draw`` (fewer if it gives None) on the zero loss; the
        sums of the loss's parts."""
        self.model.train()
        sums: dict[str, float] = {}
        for _ in range(updates):
            batch = draw()
            if batch is None:
                break
            parts = zero_loss(self.model, batch, self.weights)
            self.optimizer.zero_grad(set_to_none=True)
            parts["loss"].backward()
            self.optimizer.step()
            for name, value in parts.items():
                sums[name] = sums.get(name, 0.0) + float(value.detach())
        return sums

    # -- one round ----------------------------------------------------------------------

    def train_step(self, step: int) -> dict[str, float]:
        began = time.perf_counter()
        elapsed = self._seconds_at(step)
        expert: dict[str, float] = {}
        if step == 0:
            if self.config.expert is not None:
                expert = self._learn_expert_games()
            self._save_generation(0, time.perf_counter() - began)
        rng = step_rng(self.config.seed, step)
        shard_seeds = [int(seed) for seed in rng.integers(2**63, size=self.config.shards)]
        self.model.eval()
        games = self.workers.play(
            self.model, self.config.games // self.config.shards, self.rules, self.settings, shard_seeds
        )
        played = merge_games(games)
        self.buffer.add(step, played)
        fresh = held_out_value(self.model, played)
        self._calibration = fresh["calibration"]
        sums = self._train(lambda: self.buffer.sample(step, self.config.batch_size, rng), self.config.updates)
        done = step + 1
        self._rounds_done = done
        round_seconds = time.perf_counter() - began
        seconds = elapsed + round_seconds
        self._record_time(done, seconds)
        if done % self.config.generation_every == 0:
            self._save_generation(done, seconds)
            if self.on_generation is not None:
                self._latest_elo = self.on_generation()
        metrics = {name: total / self.config.updates for name, total in sums.items()}
        checks = sum(g.resign_checks for g in games)
        metrics.update(
            generation=float(done // self.config.generation_every),
            games=float(done * self.config.games),
            game_length=float(played.lengths.mean()),
            positions=float(len(played)),
            false_resignation_rate=sum(g.false_resignations for g in games) / checks if checks else 0.0,
            resigned=float(played.resigned.mean()),
            black_wins=float(np.mean(played.winners == BLACK)),
            held_out_value_loss=fresh["value_loss"],
            value_calibration_error=fresh["calibration_error"],
            games_per_hour=self.config.games * 3600.0 / round_seconds,
            evaluations_per_second=sum(g.evaluations for g in games) / round_seconds,
        )
        metrics.update(expert)
        if self.on_generation is not None:
            metrics["latest_elo"] = self._latest_elo  # NaN until the first generation is rated
        return metrics

    def evaluate(self) -> dict[str, float]:
        """The round: the newest network is the run's best (generations are rated in a league)."""
        return {"round": float(self._rounds_done)}

    def export(self, directory: Path, best: dict[str, Any]) -> dict[str, Any]:
        save_model(directory / WEIGHTS, self.model)
        generations = json.loads((directory / GENERATIONS).read_text())
        return {
            "weights": WEIGHTS,
            "generations": len(generations),
            "games": self.config.rounds * self.config.games,
            "seconds": self._seconds_at(self.config.rounds),
        }


def build_network(config: ZeroConfig) -> ZeroNet:
    """The config's network, from ``init``'s weights when it names a file (``widen_from``).

    Raises:
        ValueError: ``init`` is no readable zero network of the config's board, blocks and filters.
    """
    model = ZeroNet(
        config.size,
        blocks=config.blocks,
        filters=config.filters,
        rules_input=config.rules_input,
        score_head=config.score_head,
    )
    if config.init is not None:
        contents = read_checkpoint(config.init)
        if contents["arch"] != ZeroNet.arch:
            raise ValueError(f"--init {config.init}: a {contents['arch']} network, not a zero network")
        try:
            widen_from(model, contents["state_dict"])
        except ValueError as error:
            raise ValueError(
                f"--init {config.init}: its weights do not fit {config.blocks} x {config.filters} on "
                f"{config.size}x{config.size}: {error}"
            ) from None
    return model


def train_zero(
    config: ZeroConfig,
    run_dir: Path | str,
    *,
    workers: int = 1,
    ray: str | None = None,
    on_generation: Callable[[], float] | None = None,
    **run: Any,
) -> dict[str, Any]:
    """Train (or resume) the zero run in ``run_dir`` and export ``zero.pt``; ``workers`` and
    ``ray`` say where self-play runs (``SelfPlayWorkers``), ``on_generation`` (if given) rates
    the generations after each new one and gives the newest one's Elo, shown as the run goes
    (``latest_elo``), and ``run`` holds ``run_training``'s keywords (device, threads,
    progress). A finished run resumed with more ``rounds`` goes on. The generations are rated by
    ``goarena.benchmarks.league.zero_rating`` (``goarena train zero`` does it at the end)."""
    directory = Path(run_dir)
    config = as_begun(config, directory)  # a run begun before an option goes on as it began
    pools: list[SelfPlayWorkers] = []

    def build(where: torch.device) -> ZeroJob:
        pools.append(SelfPlayWorkers(workers=workers, ray_address=ray))
        return ZeroJob(build_network(config).to(where), config, directory, pools[-1], on_generation)

    try:
        # the learning rate does not depend on the run's length, so --rounds may grow on resume
        return run_training(config, run_dir, build, "round", extendable=("rounds",), **run)
    finally:
        for pool in pools:
            pool.close()  # the worker processes end with the run


def summary(metrics: dict[str, Any], run: Path) -> list[str]:
    lines = [
        f"{metrics['generations']} generations, {metrics['games']} self-play games "
        f"in {metrics['seconds'] / 60:.1f} minutes of training"
    ]
    for row in metrics.get("elo", []):
        lines.append(
            f"  {row['name']} (after {row['games']} games): Elo {row['elo']:.0f}"
            f" ({row['elo_low']:.0f} to {row['elo_high']:.0f})"
        )
    if "elo_plot" in metrics:
        lines.append(f"Elo curve {run / metrics['elo_plot']}")
    generations = run / GENERATIONS
    rows = json.loads(generations.read_text())[-1].get("calibration") if generations.exists() else None
    if rows:
        lines.append(f"value calibration (predicted -> won, on fresh games): {calibration_line(rows)}")
    return lines


class ZeroCommand(loop.Command):
    """The zero job's command line: the config's options and the run's, and where self-play runs."""

    def parser(self) -> argparse.ArgumentParser:
        parser = super().parser()
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="local self-play processes (default 1: in the training process)",
        )
        parser.add_argument(
            "--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
            help="play the self-play shards on Ray (a local Ray without ADDRESS)",
        )  # fmt: skip
        return parser

    def run_options(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"workers": args.workers, "ray": args.ray}


COMMAND = ZeroCommand("zero", DESCRIPTION, ZeroConfig, train_zero, summary)
main = COMMAND.main  # trains only: ``goarena train zero`` (benchmarks.commands.train_zero) also rates
parser = COMMAND.parser
