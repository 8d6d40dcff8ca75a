"""``goarena train rl``: AlphaGo's RL policy network, improved by self-play with REINFORCE.

The learner starts from a policy network (the SL policy: ``--initial``, by default the shipped
9x9 one) and plays against a randomly drawn earlier version of itself, as in the paper: the
initial network is the opponent pool's first member, and every ``snapshot_every`` iterations
the learner's weights join the pool (files under ``pool/`` in the run directory). One
iteration draws an opponent uniformly from the pool and plays ``games`` games at once over one
``GameBatch``, the learner Black in the first half and White in the second. At each ply the
learner moves in the games where it is to play (one batched forward pass) and the opponent in
the others (another); both draw their moves from ``softmax(logits / temperature)`` over the
legal moves. Own-eye filling is not masked out: the SL network passes at the end of its games
(64 games on 9x9 all ended by two passes, the longest after 72 moves), and a game that does not
stops at the rules' move cap, scored as it stands.

Each game's outcome ``z`` is +1 for the learner's win, -1 for its loss and 0 for a draw
(area scoring; by default the komi of the network's board size, ``go_env.default_komi``: 7 on
9x9, where an integer komi allows a draw). The update is one plain SGD
step, as in the paper, on ``-mean_t((z_t - b) * log p(a_t | s_t))`` over the learner's moves,
where the baseline ``b`` is the mean outcome of the iteration's games ("mean", the default:
when the learner wins most games against a weak snapshot, the outcomes alone push nearly all
its moves up; the mean keeps the step on what sets its wins apart from its losses, with less
variance) or 0 ("none", the paper's form). The log-probabilities
are recomputed with gradients in chunks of the recorded positions. The loss averages over the
learner's moves where the paper sums over each game's moves, so the same rate takes a smaller
step here; the default rate (0.01) is a starting point, not a tuned value.

Every draw comes from the seed and the iteration (``step_rng``), and the pool's files are
written at fixed iterations, so a run killed at any moment (even ``kill -9``) and started again
ends with the same weights, bit for bit on the CPU, as one that never stopped. Each checkpoint
plays ``eval_games`` games (both colours, sampled moves, the same games every time) against
the initial network; the best checkpoint by that win rate is exported as ``policy.pt`` (a
``PolicyNet`` as ``goarena train sl`` exports, for the ``rl-policy`` player), with its
metrics in ``metrics.json``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from go_env import GameBatch, Rules
from go_env.core import BLACK, INFO_MOVE_NUMBER, WHITE
from go_env.features.alphago import batch_alphago_planes, new_alphago_planes
from goarena.agents.declared import one_of, option, positive, redefault
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.load import load_network
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.predict import masked_softmax, policy_logits
from goarena.agents.training import loop
from goarena.agents.training.config import RunConfig, even, komi_for, komi_option, positive_finite
from goarena.agents.training.loop import run_training, step_rng
from goarena.agents.weights import SL_POLICY_9X9

BASELINES = ("mean", "none")
DESCRIPTION = (
    "Improve a policy network by self-play against its earlier versions (resumable)."  # goarena train rl -h
)
WEIGHTS = "policy.pt"
GRADIENT_CHUNK = 1024  # positions per forward pass with gradients
# The evaluation games' generator: [seed, 2**32] is a stream no iteration's [seed, step] reaches.
EVALUATION_STREAM = 2**32


@dataclass(frozen=True, kw_only=True)
class RLConfig(RunConfig):
    """A run of the RL job (the run's config.json): ``RunConfig``'s fields (``lr`` plain SGD's,
    the seed every draw's: opponents and moves) and these.

    Attributes:
        initial: the starting policy network's weights (a ``policy.pt``); the pool's first member.
        games: games per iteration, an even number: half with the learner Black, half White.
        iterations: iterations (one optimizer step each): the loop's steps.
        snapshot_every: iterations between the learner's snapshots joining the opponent pool.
        temperature: moves are drawn from ``softmax(logits / temperature)`` over the legal moves.
        baseline: "mean" (the iteration's mean outcome) or "none", subtracted from each outcome.
        komi: White's komi (area scoring); None: that of the initial network's board size.
        eval_games: games against the initial network at each checkpoint, an even number.
        log_every: iterations between TensorBoard points of the training metrics.
    """

    initial: str = option(
        str(SL_POLICY_9X9),
        "the starting policy network (default: the shipped 9x9 SL policy, sl-policy-9x9.pt)",
    )
    games: int = option(64, "games per iteration (even: half with each colour)", check=even)
    iterations: int = option(500, "iterations, one SGD step each", check=positive)
    lr: float = redefault(RunConfig, "lr", 0.01)
    snapshot_every: int = option(50, "iterations between snapshots joining the opponent pool", check=positive)
    temperature: float = option(1.0, "of the softmax moves are drawn from", check=positive_finite)
    baseline: str = option("mean", "mean (the iteration's mean outcome) or none", check=one_of(*BASELINES))
    komi: float | None = komi_option()
    eval_games: int = option(64, "games against the initial network at each checkpoint (even)", check=even)
    checkpoint_every: int = redefault(RunConfig, "checkpoint_every", 50)
    log_every: int = option(5, "iterations between TensorBoard points", check=positive)

    @property
    def steps(self) -> int:
        """The loop's steps: one an iteration."""
        return self.iterations

    def rules(self, size: int) -> Rules:
        """The games' rules on a ``size`` board (the networks' board size)."""
        return Rules(komi=komi_for(self.komi, size), scoring="area")


@dataclass(frozen=True)
class SelfPlay:
    """Games between a learner and an opponent, with the learner's moves when recorded.

    Attributes:
        outcomes: float64[G]: +1 where the learner won, -1 where it lost, 0 for a draw.
        lengths: int64[G]: moves played in each game, passes included.
        truncated: bool[G]: games stopped by the move cap.
        planes: uint8[T, 48, N, N]: the positions where the learner moved.
        moves: int64[T]: the moves it drew there.
        legal: bool[T, N*N+1]: the legal moves there.
        games: int64[T]: the game of each position.
    """

    outcomes: np.ndarray
    lengths: np.ndarray
    truncated: np.ndarray
    planes: np.ndarray
    moves: np.ndarray
    legal: np.ndarray
    games: np.ndarray

    @property
    def win_rate(self) -> float:
        """The learner's share of the points, a draw counting half."""
        return float(np.mean((self.outcomes + 1) / 2))


def play_games(
    learner: PolicyNet,
    opponent: PolicyNet,
    games: int,
    rules: Rules,
    *,
    seed: int,
    temperature: float = 1.0,
    record: bool = True,
) -> SelfPlay:
    """Play ``games`` games (the learner Black in the first half, White in the rest) with moves
    drawn from each network's softmax over the legal moves; ``seed`` seeds the draws."""
    size = learner.board_size
    batch = GameBatch(size, games, rules, seed=seed)
    learner_colour = np.where(np.arange(games) < games // 2, BLACK, WHITE)
    planes = new_alphago_planes(size, batch=games)
    actions = batch.num_actions
    probabilities = np.zeros((games, actions))
    nothing = (planes[:0], np.zeros(0, np.int64), np.zeros((0, actions), bool), np.zeros(0, np.int64))
    recorded = [nothing]  # (planes, moves, legal, games) at the learner's turns
    while not (over := batch.is_over).all():
        batch_alphago_planes(batch.state, batch.geometry, planes)
        legal = batch.legal_masks().astype(bool)
        learner_turn = ~over & (batch.to_play == learner_colour)
        probabilities[:] = 0
        for net, turn in ((learner, learner_turn), (opponent, ~over & ~learner_turn)):
            movers = np.flatnonzero(turn)
            if movers.size:
                logits = policy_logits(net, planes[movers])
                probabilities[movers] = masked_softmax(logits, legal[movers], temperature)
        moves = batch.sample_and_play(probabilities)
        if record:
            movers = np.flatnonzero(learner_turn)
            recorded.append((planes[movers].copy(), moves[movers], legal[movers], movers))
    margins = batch.scores()  # Black's points minus White's and komi
    outcomes = np.sign(margins) * np.where(learner_colour == BLACK, 1.0, -1.0)
    lengths = batch.state.info[:, INFO_MOVE_NUMBER].astype(np.int64)
    positions, moves, legal, games_of = (np.concatenate(parts) for parts in zip(*recorded, strict=True))
    return SelfPlay(outcomes, lengths, batch.is_truncated, positions, moves, legal, games_of)


def reinforce_step(
    model: PolicyNet,
    optimizer: torch.optim.Optimizer,
    play: SelfPlay,
    advantages: np.ndarray,
    temperature: float = 1.0,
) -> float:
    """One optimizer step on ``-mean_t(advantage_t * log p(move_t | position_t))`` over the
    recorded positions (``advantages`` float[T]), with ``p`` the tempered softmax over the legal
    moves; returns the loss."""
    device = next(model.parameters()).device
    count = len(play.moves)
    optimizer.zero_grad(set_to_none=True)
    total = 0.0
    for start in range(0, count, GRADIENT_CHUNK):
        chunk = slice(start, start + GRADIENT_CHUNK)
        planes = torch.as_tensor(play.planes[chunk], dtype=torch.float32, device=device)
        legal = torch.as_tensor(play.legal[chunk], device=device)
        moves = torch.as_tensor(play.moves[chunk], device=device)
        logits = model(planes).masked_fill(~legal, -torch.inf) / temperature
        log_p = F.log_softmax(logits, dim=1).gather(1, moves[:, None])[:, 0]
        weights = torch.as_tensor(advantages[chunk], dtype=torch.float32, device=device)
        loss = -(weights * log_p).sum() / count
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total


def snapshot_path(pool_dir: Path, iteration: int) -> Path:
    """The file of the learner's snapshot after ``iteration`` iterations (0: the initial network)."""
    return pool_dir / f"iteration-{iteration:06d}.pt"


class RLJob:
    """The learner against its pool of snapshots, for ``loop.train``.

    Args:
        model: the learner, starting as the initial network.
        config: the run's config.
        pool_dir: where the snapshots live; the initial network is written there first.
    """

    def __init__(self, model: PolicyNet, config: RLConfig, pool_dir: Path):
        self.model = model
        self.config = config
        self.rules = config.rules(model.board_size)
        self.pool_dir = pool_dir
        self.optimizer = torch.optim.SGD(model.parameters(), lr=config.lr)
        # The pool's first member, written when first drawn: nothing is written before the run
        # directory is locked and its config checked.
        self._initial = copy.deepcopy(model).eval()
        self._opponents: dict[int, PolicyNet] = {}

    def snapshot(self, iteration: int) -> Path:
        return snapshot_path(self.pool_dir, iteration)

    def pool(self, step: int) -> list[int]:
        """The snapshots (by iteration) that iteration ``step`` draws its opponent from."""
        return list(range(0, step + 1, self.config.snapshot_every))

    def opponent(self, iteration: int) -> PolicyNet:
        if iteration == 0 and not self.snapshot(0).exists():
            save_model(self.snapshot(0), self._initial)
        if iteration not in self._opponents:
            device = next(self.model.parameters()).device
            self._opponents[iteration] = load_network(self.snapshot(iteration), "policy", str(device)).model
        return self._opponents[iteration]

    def train_step(self, step: int) -> dict[str, float]:
        rng = step_rng(self.config.seed, step)
        pool = self.pool(step)
        drawn = pool[int(rng.integers(len(pool)))]
        play = play_games(
            self.model,
            self.opponent(drawn),
            self.config.games,
            self.rules,
            seed=int(rng.integers(2**63)),
            temperature=self.config.temperature,
        )
        baseline = play.outcomes.mean() if self.config.baseline == "mean" else 0.0
        advantages = play.outcomes[play.games] - baseline
        self.model.train()
        loss = reinforce_step(self.model, self.optimizer, play, advantages, self.config.temperature)
        done = step + 1
        if done % self.config.snapshot_every == 0:
            save_model(self.snapshot(done), self.model)
        return {
            "loss": loss,
            "win_rate": play.win_rate,
            "game_length": float(play.lengths.mean()),
            "truncated": float(play.truncated.mean()),
            "opponent": float(drawn),
            "pool": float(len(pool)),
        }

    def export(self, directory: Path, best: dict[str, Any]) -> dict[str, Any]:
        """``policy.pt`` and the best checkpoint's evaluation."""
        save_model(directory / WEIGHTS, self.model)
        return {
            "held_out": json.loads(best["held_out"]),
            "eval_games": self.config.eval_games,
            "pool": len(self.pool(self.config.iterations)),
            "weights": WEIGHTS,
        }

    def evaluate(self) -> dict[str, float]:
        """The learner's win rate against the initial network over the evaluation games."""
        seed = int(np.random.default_rng([self.config.seed, EVALUATION_STREAM]).integers(2**63))
        play = play_games(
            self.model,
            self.opponent(0),
            self.config.eval_games,
            self.rules,
            seed=seed,
            temperature=self.config.temperature,
            record=False,
        )
        return {"win_rate": play.win_rate, "game_length": float(play.lengths.mean())}


def train_rl(config: RLConfig, run_dir: Path | str, **run: Any) -> dict[str, Any]:
    """Train (or resume) the RL run in ``run_dir``, export ``policy.pt`` and return (and save as
    metrics.json) the exported network's evaluation. ``run``: ``loop.run_training``'s keywords
    (device, threads, progress)."""
    pool_dir = Path(run_dir) / "pool"

    def build(where: torch.device) -> RLJob:
        started = snapshot_path(pool_dir, 0)  # a resumed run starts from its own copy
        initial = load_network(started if started.exists() else config.initial, "policy", str(where))
        return RLJob(initial.model, config, pool_dir)

    return run_training(config, run_dir, build, "win_rate", **run)


def summary(metrics: dict[str, Any], run: Path) -> list[str]:
    return [
        f"against the initial network ({metrics['eval_games']} games, best checkpoint at iteration "
        f"{metrics['step']}): win rate {metrics['held_out']['win_rate']:.1%}",
    ]


COMMAND = loop.Command("rl", DESCRIPTION, RLConfig, train_rl, summary)

main = COMMAND.main  # ``goarena train rl ...``: train, then print the exported network's win rate.
parser = COMMAND.parser
