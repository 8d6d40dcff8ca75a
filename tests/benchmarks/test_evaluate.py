"""evaluate (a player's win rate in one call) and EvaluationCallback (the same inside SB3's learn)."""

from __future__ import annotations

import csv

import gymnasium
import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure

import go_env  # noqa: F401 - registers goarena/Go-v0
from go_env import BLACK, WHITE, Game
from go_env.gym_env import ENV_ID
from go_env.sgf import read_sgf
from goarena.agents.nets.sb3_extractor import GoResNetExtractor
from goarena.agents.players.policy_player import PolicyPlayer
from goarena.agents.players.random import RandomAgent
from goarena.agents.players.sb3 import SB3Agent
from goarena.agents.specs import AgentSpecError
from goarena.benchmarks.evaluate import EvaluationCallback, EvaluationError, evaluate

SIZE = 5


class Greedy:
    """Plays the first legal point, and passes once the opponent has passed (or nothing is left)."""

    name = "greedy"

    def reset(self, context) -> None:
        self.color = context.color

    def select_move(self, game: Game) -> int:
        if game.moves and game.moves[-1] == game.pass_move:
            return game.pass_move
        return int(game.legal_moves()[0])


def test_counts_and_interval_are_consistent():
    result = evaluate("random", "random", games=7, size=SIZE, seed=3)
    assert result.games == 7 == result.wins + result.losses + result.draws == len(result.records)
    assert result.win_rate == pytest.approx((result.wins + result.draws / 2) / 7)
    low, high = result.interval
    assert 0.0 <= low <= result.win_rate <= high <= 1.0 and high - low > 0.3  # 7 games say little
    assert f"= {result.win_rate:.0%}" in str(result)


def test_the_player_alternates_colours_and_its_wins_are_counted_from_its_side():
    result = evaluate(Greedy(), RandomAgent(seed=0), games=4, size=SIZE, komi=0.5)
    assert [(r.black, r.white) for r in result.records] == [("greedy", "random"), ("random", "greedy")] * 2
    ours = [BLACK, WHITE, BLACK, WHITE]
    expected = sum(record.winner == color for record, color in zip(result.records, ours, strict=True))
    assert result.wins == expected and result.losses == 4 - expected and result.draws == 0


def test_games_are_reproducible_from_the_seed_and_differ_across_seeds():
    def moves(seed: int) -> list[tuple[int, ...]]:
        return [
            record.moves for record in evaluate("random", "random", games=2, size=SIZE, seed=seed).records
        ]

    assert moves(1) == moves(1)
    assert moves(1) != moves(2)


def test_sgfs_parse_and_are_written_to_the_folder(tmp_path):
    result = evaluate(
        "random", "uct:simulations=8", games=2, size=SIZE, komi=2.5, opening_moves=3, sgf_dir=tmp_path
    )
    assert [path.name for path in result.sgf_paths] == [
        "0000-random-vs-uct-simulations-8.sgf",
        "0001-uct-simulations-8-vs-random.sgf",
    ]
    for text, path, record in zip(result.sgfs, result.sgf_paths, result.records, strict=True):
        assert path.read_text() == text
        parsed = read_sgf(text)
        assert parsed.game.rules.komi == 2.5 and parsed.game.size == SIZE
        assert tuple(parsed.game.moves) == record.moves
    assert result.records[0].moves[:3] == result.records[1].moves[:3]  # one opening per pair of games


def test_a_policy_player_object_is_evaluated(tmp_path):
    torch.manual_seed(0)
    network = torch.nn.Linear(17 * SIZE * SIZE, SIZE * SIZE + 1)
    player = PolicyPlayer(lambda planes, mask: network(planes.flatten(1)), name="linear")
    result = evaluate(player, "random", games=2, size=SIZE)
    assert result.player == "linear" and result.games == 2


def test_the_players_own_failure_is_raised_not_counted():
    def broken(planes, mask):
        raise RuntimeError("the network is broken")

    with pytest.raises(EvaluationError, match="the network is broken"):
        evaluate(PolicyPlayer(broken, board_size=SIZE), "random", games=2, size=SIZE)  # at its first move
    with pytest.raises(EvaluationError, match="unsupported game: .*plays 9x9, not 5x5"):
        evaluate(PolicyPlayer(broken, board_size=9), "random", games=2, size=SIZE)
    with pytest.raises(AgentSpecError):
        evaluate("nonesuch", "random", games=1, size=SIZE)
    with pytest.raises(ValueError, match="games"):
        evaluate("random", "random", games=0)


def test_the_callback_logs_win_rates_and_keeps_the_best_model_during_learning(tmp_path):
    env = gymnasium.make(
        ENV_ID, board_size=SIZE, learner="alternate", channels_first=True, observation_dtype="float32"
    )
    tiny = dict(
        features_extractor_class=GoResNetExtractor, features_extractor_kwargs=dict(blocks=1, filters=8)
    )
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, policy_kwargs=tiny, seed=0)
    model.set_logger(configure(str(tmp_path / "logs"), ["csv"]))
    callback = EvaluationCallback("random", eval_freq=64, games=4, best_model_save_path=tmp_path / "best")
    model.learn(192, callback=callback)
    with open(tmp_path / "logs" / "progress.csv") as file:
        rates = [row["eval/win_rate_vs_random"] for row in csv.DictReader(file)]
    logged = [float(rate) for rate in rates if rate]
    assert len(logged) == 3 and all(0.0 <= rate <= 1.0 for rate in logged)
    assert callback.last_result.games == 4 and callback.best_win_rate == max(logged)
    best = SB3Agent(tmp_path / "best" / "best_model.zip")  # a model that plays
    assert best.board_size == SIZE
    assert callback.last_result.player == "sb3" and callback.last_result.records[0].size == SIZE
