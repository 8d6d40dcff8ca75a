"""The rollout policy: its training job, its network and the ``rollout-policy`` player."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch

from go_env import Game, Rules, coords
from go_env.features import patterns as pt
from goarena.agents.nets.rollout import RolloutPolicy
from goarena.agents.players.rollout import RolloutPolicyAgent
from goarena.agents.protocols import GameContext, UnsupportedGame
from goarena.agents.specs import AgentSpecError, check_spec, make_agent
from goarena.agents.training.rollout import RolloutConfig, RolloutJob, train_rollout
from tests.boards import CAPTURE, position


@dataclass(frozen=True)
class Records:
    boards: np.ndarray
    to_play: np.ndarray
    last_moves: np.ndarray
    moves: np.ndarray


class GameRecords:
    """Every position of a few random games, as a data set the job reads."""

    board_size = 7

    def __init__(self, games: int = 4, seed: int = 0):
        rng = np.random.default_rng(seed)
        boards, to_play, last, moves, game_ids = [], [], [], [], []
        for game_id in range(games):
            game = Game(self.board_size)
            for _ in range(30):
                move = self.answer(game, rng)
                boards.append(game.state.board[: self.board_size**2].copy())
                to_play.append(game.to_play)
                last.append(-1 if game.last_move is None else game.last_move)
                moves.append(move)
                game_ids.append(game_id)
                game.play(move)
        self.records = Records(np.array(boards), np.array(to_play), np.array(last), np.array(moves))
        self.game_ids = np.array(game_ids)

    def answer(self, game: Game, rng: np.random.Generator) -> int:
        """A move next to the last one when there is one: a habit the policy can learn."""
        legal = game.legal_moves()[:-1]
        if game.last_move is not None:
            row, col = coords.to_rowcol(game.last_move, self.board_size)
            near = [
                p
                for p in legal
                if sum(map(abs, np.subtract(coords.to_rowcol(p, self.board_size), (row, col)))) == 1
            ]
            if near:
                return int(rng.choice(near))
        return int(rng.choice(legal))

    def __len__(self) -> int:
        return len(self.game_ids)

    def split_by_game(self, held_out_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
        held_out = self.game_ids == 0
        return np.flatnonzero(~held_out), np.flatnonzero(held_out)

    def batch(self, indices: np.ndarray) -> Records:
        r = self.records
        return Records(r.boards[indices], r.to_play[indices], r.last_moves[indices], r.moves[indices])


def save_policy(
    path: Path, size: int, weights: dict[int, float] | None = None, seed: int | None = None
) -> Path:
    """Rollout weights: noise from ``seed`` (else zeros), then the given features' weights."""
    num_features = pt.pattern_tables().num_features
    vector = np.zeros(num_features, np.float32)
    if seed is not None:
        vector = np.random.default_rng(seed).normal(0, 1, num_features).astype(np.float32)
    for feature, weight in (weights or {}).items():
        vector[feature] = weight
    pt.save_weights(path, vector, size)
    return path


@pytest.mark.slow
def test_training_lowers_the_loss() -> None:
    data = GameRecords()
    job = RolloutJob(data, RolloutConfig(data="", batch_size=32, lr=0.05), torch.device("cpu"))
    before = job.evaluate(np.flatnonzero(data.game_ids > 0))["loss"]
    for step in range(30):
        job.train_step(step)
    after = job.evaluate(np.flatnonzero(data.game_ids > 0))["loss"]
    assert after < before - 0.3


def test_the_network_masks_illegal_moves_and_exports(tmp_path: Path) -> None:
    model = RolloutPolicy(pt.pattern_tables().num_features, 5)
    game = position(CAPTURE)
    features, legal = pt.position_features(game.state, game.geometry)
    with torch.no_grad():
        model.weights.weight[pt.CAPTURE + 1] = 3.0
        logits = model(torch.as_tensor(features[None]), torch.as_tensor(legal[None] == 1))[0]
    assert torch.isinf(logits[legal == 0]).all()
    assert int(logits.argmax()) == coords.from_gtp("C2", 5)
    model.export_weights(tmp_path / "rollout.npz")
    policy, size = pt.load_weights(tmp_path / "rollout.npz")
    assert size == 5
    assert policy.weights[pt.CAPTURE + 1] == 3.0
    with pytest.raises(ValueError, match="expected features"):
        model(torch.as_tensor(features), torch.as_tensor(legal == 1))


def test_the_player_never_plays_an_illegal_move(tmp_path: Path) -> None:
    weights = save_policy(tmp_path / "rollout.npz", 7, seed=0)
    player = make_agent(f"rollout-policy:weights='{weights}'", seed=1)
    player.reset(GameContext(7, Rules()))
    game = Game(7)
    while not game.is_over:
        game.play(player.select_move(game))  # raises if illegal
    assert len(game.moves) > 10


def test_temperature_0_plays_the_best_move_and_the_policy_weighs_legal_moves_only(tmp_path: Path) -> None:
    weights = save_policy(tmp_path / "rollout.npz", 5, {pt.CAPTURE + 1: 5.0})
    game = position(CAPTURE)
    greedy = RolloutPolicyAgent(weights, temperature=0)
    assert coords.to_gtp(greedy.select_move(game), 5) == "C2"
    action = RolloutPolicyAgent(weights, temperature=2.0).act(game)
    assert action.policy is not None
    assert action.policy.sum() == pytest.approx(1.0)
    assert (action.policy[game.legal_mask() == 0] == 0).all()
    assert action.policy.argmax() == coords.from_gtp("C2", 5)


def test_other_board_sizes_are_refused(tmp_path: Path) -> None:
    weights = save_policy(tmp_path / "rollout.npz", 9)
    player = RolloutPolicyAgent(weights)
    with pytest.raises(UnsupportedGame, match="9x9"):
        player.reset(GameContext(19, Rules()))
    with pytest.raises(AgentSpecError, match="cannot play"):
        check_spec(f"rollout-policy:weights='{weights}'", GameContext(19, Rules()))
    check_spec(f"rollout-policy:weights='{weights}',temperature=0", GameContext(9, Rules()))


@pytest.mark.parametrize("temperature", [-1.0, "hot", float("nan"), float("inf"), True])
def test_bad_temperatures_are_refused(tmp_path: Path, temperature: object) -> None:
    weights = save_policy(tmp_path / "rollout.npz", 9)
    with pytest.raises(ValueError, match="temperature"):
        RolloutPolicyAgent(weights, temperature=temperature)  # type: ignore[arg-type]


def test_a_run_exports_weights_the_player_reads(tmp_path: Path) -> None:
    config = RolloutConfig(data="", steps=20, batch_size=32, lr=0.05, checkpoint_every=10, log_every=10)
    metrics = train_rollout(config, tmp_path / "run", dataset=GameRecords(), progress=False)
    assert metrics["held_out_positions"] == 30
    assert 0.0 <= metrics["held_out"]["top1"] <= 1.0
    player = RolloutPolicyAgent(tmp_path / "run" / "rollout.npz", temperature=0)
    assert player.size == 7
    assert player.policy_weights.weights.any()  # trained, not the zeros it started from
