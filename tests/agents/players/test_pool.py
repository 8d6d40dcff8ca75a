"""goarena's players as the Gymnasium env's opponents, and the self-play opponent pool."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, GameBatch, GoEnv, Rules
from goarena.agents.players.pool import BatchPlayerOpponent, OpponentPool, PlayerOpponent, as_opponent
from goarena.agents.protocols import GameContext
from goarena.agents.specs import AgentSpecError


class Recorder:
    """A player that passes and records its lifecycle."""

    def __init__(self, name: str):
        self.name = name
        self.contexts: list[GameContext] = []
        self.observed: list[int] = []
        self.closed = False

    def reset(self, context: GameContext) -> None:
        self.contexts.append(context)

    def select_move(self, game: Game) -> int:
        return game.pass_move

    def observe_move(self, game: Game, move: int) -> None:
        self.observed.append(move)

    def close(self) -> None:
        self.closed = True


def test_a_player_opponent_is_reset_with_the_game_its_colour_and_a_seed():
    player = Recorder("p")
    game_env = GoEnv(board_size=5, komi=0.5, learner="white", opponent=player)
    game_env.reset(seed=3)
    (context,) = player.contexts
    assert (context.size, context.rules, context.color) == (5, Rules(komi=0.5), BLACK)
    assert isinstance(context.seed, int)
    game_env.step(12)
    assert player.observed == [25, 12, 25]
    game_env.close()
    assert player.closed


def test_as_opponent_builds_spec_strings_and_refuses_what_is_no_player():
    assert as_opponent("random").player.name == "random"
    assert type(as_opponent(Recorder("r"))) is PlayerOpponent
    assert type(as_opponent("uct:simulations=8")) is PlayerOpponent
    for spec in ("random", "puct:simulations=8"):  # players of many games at once
        opponent = as_opponent(spec)
        assert isinstance(opponent, BatchPlayerOpponent)
        batch = GameBatch(5, 3, Rules())
        opponent.new_game(Game(5, Rules()), None, 0)
        moves = opponent.select_moves(batch)
        assert moves.shape == (3,) and batch.legal_masks()[np.arange(3), moves].all()
    with pytest.raises(AgentSpecError, match="unknown player"):
        as_opponent("nonesuch")
    with pytest.raises(TypeError, match="not a player"):
        as_opponent(42)  # type: ignore[arg-type]


def test_the_pool_plays_each_game_as_a_member_drawn_from_the_seed():
    members = [Recorder("a"), Recorder("b"), Recorder("c")]
    pool = OpponentPool(members)
    drawn = []
    for seed in range(30):
        pool.reset(GameContext(5, Rules(), seed=seed, color=WHITE))
        drawn.append(pool.current.name)
        pool.reset(GameContext(5, Rules(), seed=seed, color=WHITE))
        assert pool.current.name == drawn[-1]
    assert set(drawn) == {"a", "b", "c"}
    assert sum(len(member.contexts) for member in members) == 60


def test_members_join_the_pool_and_spec_strings_are_built():
    pool = OpponentPool(["random"], seed=0)
    late = Recorder("late")
    pool.add(late)
    names = set()
    for _ in range(20):
        pool.reset(GameContext(5, Rules()))
        names.add(pool.current.name)
    assert names == {"random", "late"}


def test_an_empty_pool_says_so():
    with pytest.raises(ValueError, match="empty"):
        OpponentPool().reset(GameContext(5, Rules()))


def test_a_learner_meets_the_pool_in_the_gymnasium_env():
    pool = OpponentPool(["random", Recorder("passer")], seed=1)
    game_env = GoEnv(board_size=5, opponent=pool, learner="alternate")
    rng = np.random.default_rng(0)
    for episode in range(6):
        game_env.reset(seed=None if episode else 0)
        terminated = truncated = False
        while not (terminated or truncated):
            action = rng.choice(np.flatnonzero(game_env.action_masks()))
            _, reward, terminated, truncated, info = game_env.step(action)
        assert info["reason"] in {"passes", "move_cap"}
    assert len(pool.players[1].contexts) >= 1
