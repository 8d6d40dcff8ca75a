"""The Gymnasium single-agent environment: the checkers, masks, illegal moves, colours,
reward attribution, opponents (plain callables, goarena's players and spec strings), how an
episode ends, observation layouts, pickling, and a MaskablePPO smoke run. Moves are written
as GTP vertices."""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Iterator

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from go_env import coords
from go_env.features import planes_in_layout
from go_env.game import BLACK, EMPTY, RESIGN, WHITE, Game
from go_env.gym_env import ENV_ID, GoEnv, OpponentError, register_envs
from go_env.rules import Rules

# White's B4 takes the black stone at C4; Black may not retake at once (see test_aec).
BLACK_KO_MOVES = ["B5", "A4", "C4", "B3"]
WHITE_KO_MOVES = ["C5", "D4", "C3", "B4"]


def scripted(vertices: list[str], size: int = 5):
    """An opponent that plays ``vertices`` in order."""
    moves: Iterator[str] = iter(vertices)
    return lambda game: coords.from_gtp(next(moves), size)


def point(vertex: str, size: int = 5) -> int:
    return coords.from_gtp(vertex, size)


def test_gymnasium_check_env():
    check_env(GoEnv(board_size=5), skip_render_check=True)
    check_env(GoEnv(board_size=9, learner="random", komi=0), skip_render_check=True)
    check_env(gymnasium.make(ENV_ID, board_size=5).unwrapped, skip_render_check=True)


def test_stable_baselines3_check_env():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        # SB3 takes (N, N, 17) int8 planes for a badly scaled image; they are not one.
        warnings.filterwarnings("ignore", message=".*image.*")
        sb3_check_env(GoEnv(board_size=5))


def test_registered_once():
    register_envs()
    register_envs()
    game_env = gymnasium.make(ENV_ID, board_size=7, learner="white")
    observation, _ = game_env.reset(seed=0)
    assert observation.shape == (7, 7, 17)
    assert game_env.unwrapped.learner_color == WHITE


def test_action_masks_agree_with_the_game():
    game_env = GoEnv(board_size=5)
    observation, info = game_env.reset(seed=3)
    rng = np.random.default_rng(3)
    terminated = truncated = False
    while not (terminated or truncated):
        legal = game_env.unwrapped.game.legal_mask()
        masks = game_env.action_masks()
        assert masks.dtype == bool
        np.testing.assert_array_equal(masks, legal.astype(bool))
        np.testing.assert_array_equal(info["action_mask"], legal)
        assert info["action_mask"].dtype == np.int8
        action = rng.choice(np.flatnonzero(masks))
        observation, reward, terminated, truncated, info = game_env.step(action)
    assert not game_env.action_masks().any() and not info["action_mask"].any()


@pytest.mark.parametrize(
    "learner_moves, opponent_moves, illegal, reason",
    [
        (["C3"], ["E1"], "C3", "occupied"),
        (["E1", "E2"], ["A4", "B5"], "A5", "suicide"),
        (BLACK_KO_MOVES, WHITE_KO_MOVES, "C4", "ko"),
    ],
)
def test_illegal_action_is_a_loss_with_the_reason(learner_moves, opponent_moves, illegal, reason):
    game_env = GoEnv(board_size=5, opponent=scripted(opponent_moves))
    game_env.reset(seed=0)
    for vertex in learner_moves:
        _, reward, terminated, _, _ = game_env.step(point(vertex))
        assert reward == 0 and not terminated
    game = game_env.game
    assert game.move_status(point(illegal)) == reason
    moves_before = list(game.moves)
    observation, reward, terminated, truncated, info = game_env.step(point(illegal))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_move"] == reason
    assert info["error"] == f"illegal move {illegal} (point {point(illegal)}) by black: {reason}"
    assert game.moves == moves_before
    assert observation.shape == (5, 5, 17)
    with pytest.raises(gymnasium.error.ResetNeeded):
        game_env.step(0)


@pytest.mark.parametrize("action", [-1, 26, 10**6, 2**63, -(2**63) - 1])
def test_actions_off_the_board_are_a_loss_not_a_crash(action):
    game_env = GoEnv(board_size=5)
    game_env.reset(seed=0)
    _, reward, terminated, _, info = game_env.step(action)
    assert (reward, terminated, info["illegal_move"]) == (-1.0, True, "off board")


@pytest.mark.parametrize("action", [40.7, -0.5, 12.0, "12", None, True, [12]], ids=repr)
def test_non_integer_actions_are_refused_and_change_nothing(action):
    game_env = GoEnv(board_size=5, opponent=scripted(["pass"]))
    game_env.reset(seed=0)
    with pytest.raises(TypeError, match="a move must be an integer"):
        game_env.step(action)
    assert game_env.game.moves == []
    _, reward, terminated, _, _ = game_env.step(np.int64(12))  # the episode goes on
    assert game_env.game.moves == [12, 25] and (reward, terminated) == (0.0, False)


def raises(game: Game) -> int:
    raise RuntimeError("the network is down")


def plays_itself(game: Game) -> int:
    game.play(game.pass_move)
    return game.pass_move


# The opponent's failures at its first move, and what the error says.
BROKEN_OPPONENTS = [
    (raises, "the opponent raised RuntimeError: the network is down"),
    (lambda game: 12.0, "the opponent's answer is not a move: a move must be an integer, not float"),
    (lambda game: None, "the opponent's answer is not a move: a move must be an integer, not NoneType"),
    (plays_itself, "the opponent played on the game it was shown"),
]


@pytest.mark.parametrize(("opponent", "message"), BROKEN_OPPONENTS)
def test_an_opponent_failing_in_reset_raises_and_the_env_needs_a_reset(opponent, message):
    game_env = GoEnv(board_size=5, learner="white", opponent=opponent)
    with pytest.raises(OpponentError, match=message):
        game_env.reset(seed=0)
    assert not game_env.action_masks().any()
    with pytest.raises(gymnasium.error.ResetNeeded):
        game_env.step(12)
    assert 12 not in game_env.game.moves


@pytest.mark.parametrize(("opponent", "message"), BROKEN_OPPONENTS)
def test_an_opponent_failing_in_step_raises_and_the_env_needs_a_reset(opponent, message):
    first = {"done": False}

    def opponent_after_one_move(game: Game) -> int:
        if not first["done"]:
            first["done"] = True
            return coords.from_gtp("C3", 5)
        return opponent(game)

    game_env = GoEnv(board_size=5, opponent=opponent_after_one_move)
    game_env.reset(seed=0)
    game_env.step(point("B2"))
    with pytest.raises(OpponentError, match=message):
        game_env.step(point("D4"))
    with pytest.raises(gymnasium.error.ResetNeeded):
        game_env.step(point("B4"))
    # The learner's later action was never played as the opponent's colour.
    assert game_env.game.moves[:3] == [point("B2"), point("C3"), point("D4")]
    assert point("B4") not in game_env.game.moves
    game_env.opponent = scripted(["pass"])
    game_env.reset(seed=0)
    assert game_env.step(point("B4"))[1:3] == (0.0, False)


def test_playing_white():
    game_env = GoEnv(board_size=5, learner="white", opponent=scripted(["C3", "pass"]))
    observation, _ = game_env.reset(seed=0)
    assert game_env.learner_color == WHITE and game_env.game.to_play == WHITE
    assert observation[:, :, 8][2, 2] == 1 and observation[:, :, 8].sum() == 1  # Black's C3
    assert not observation[:, :, 0].any() and not observation[:, :, 16].any()
    observation, reward, terminated, _, _ = game_env.step(point("D4"))
    assert observation[:, :, 0][1, 3] == 1 and not terminated
    # White passes after Black's pass: game over, Black has 1 stone, White 1, komi 7.5 to White.
    _, reward, terminated, truncated, _ = game_env.step(25)
    assert (reward, terminated, truncated) == (1.0, True, False)


def test_handicap_opponent_moves_first_for_a_black_learner():
    game_env = GoEnv(board_size=9, handicap=3)
    observation, _ = game_env.reset(seed=1)
    assert game_env.game.move_number == 1 and game_env.game.to_play == BLACK
    assert observation[:, :, 0].sum() == 3 and observation[:, :, 8].sum() <= 1


def test_move_cap_truncates_with_the_score():
    game_env = GoEnv(board_size=5, rules=Rules(komi=0.5, max_moves=2), opponent=scripted(["pass"]))
    game_env.reset(seed=0)
    _, reward, terminated, truncated, _ = game_env.step(point("C3"))
    assert (reward, terminated, truncated) == (1.0, False, True)


def test_random_colour_is_drawn_from_the_seed():
    colours = []
    for seed in range(20):
        game_env = GoEnv(board_size=5, learner="random")
        game_env.reset(seed=seed)
        colours.append(game_env.learner_color)
        game_env.reset(seed=seed)
        assert game_env.learner_color == colours[-1]
    assert set(colours) == {BLACK, WHITE}


def test_reward_is_plus_one_exactly_when_the_learner_wins():
    """Random games with an integer komi on 5x5, so wins, losses and draws all happen."""
    rng = np.random.default_rng(11)
    game_env = GoEnv(board_size=5, komi=0, learner="random", rules=Rules(max_moves=30))
    outcomes = set()
    for episode in range(60):
        game_env.reset(seed=episode)
        terminated = truncated = False
        while not (terminated or truncated):
            action = rng.choice(np.flatnonzero(game_env.action_masks()))
            _, reward, terminated, truncated, _ = game_env.step(action)
        winner = game_env.game.winner()
        expected = 0.0 if winner == EMPTY else 1.0 if winner == game_env.learner_color else -1.0
        assert reward == expected, game_env.game.result()
        outcomes.add((game_env.learner_color, reward))
    assert {(BLACK, 1.0), (BLACK, -1.0), (WHITE, 1.0), (WHITE, -1.0)} <= outcomes
    assert any(reward == 0.0 for _, reward in outcomes)


def test_opponent_sees_the_game():
    seen: list[Game] = []

    def passer(game: Game) -> int:
        seen.append(game)
        return game.pass_move

    game_env = GoEnv(board_size=5, opponent=passer)
    game_env.reset(seed=0)
    game_env.step(point("C3"))
    assert seen == [game_env.game]


def test_render_modes():
    game_env = GoEnv(board_size=5, render_mode="ansi")
    game_env.reset(seed=0)
    game_env.step(point("C3"))
    assert "X" in game_env.render()
    game_env = GoEnv(board_size=5, render_mode="rgb_array")
    game_env.reset(seed=0)
    assert game_env.render().shape == (192, 192, 3)


def test_maskable_ppo_learns_a_few_hundred_steps():
    pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    game_env = GoEnv(board_size=5, learner="random")
    model = MaskablePPO("MlpPolicy", game_env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    observation, _ = game_env.reset(seed=1)
    action, _ = model.predict(observation, action_masks=game_env.action_masks())
    assert game_env.action_masks()[action]


@pytest.mark.parametrize("learner", ["black", "white"])
def test_an_illegal_opponent_move_ends_the_episode_as_a_win(learner):
    size = 5
    game_env = GoEnv(board_size=size, learner=learner, opponent=lambda game: point("C3"))
    if learner == "white":  # the opponent's C3 is legal at once; the learner replies elsewhere
        game_env.reset(seed=0)
        observation, reward, terminated, truncated, info = game_env.step(point("D4"))
    else:
        game_env.reset(seed=0)
        observation, reward, terminated, truncated, info = game_env.step(point("C3"))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["reason"] == "opponent_illegal_move" and info["illegal_move"] == "occupied"
    assert info["winner"] == learner and info["result"] == f"{learner[0].upper()}+F"
    assert not game_env.action_masks().any()
    with pytest.raises(gymnasium.error.ResetNeeded):
        game_env.step(0)


def test_the_opponent_resigning_ends_the_episode_as_a_win():
    game_env = GoEnv(board_size=5, opponent=lambda game: RESIGN)
    game_env.reset(seed=0)
    _, reward, terminated, truncated, info = game_env.step(point("C3"))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert {key: info[key] for key in ("reason", "winner", "result")} == {
        "reason": "resign",
        "winner": "black",
        "result": "B+R",
    }
    assert info["score"] == game_env.game.score()


def test_the_last_info_says_how_the_game_ended():
    game_env = GoEnv(board_size=5, opponent=scripted(["pass"]))
    game_env.reset(seed=0)
    *_, info = game_env.step(point("C3"))
    assert {"reason", "winner", "score", "result"}.isdisjoint(info)  # the game goes on
    *_, info = game_env.step(25)
    assert info["reason"] == "passes" and info["winner"] == "black"
    assert info["score"] == 25 - 7.5 and info["result"] == "B+17.5"
    game_env = GoEnv(board_size=5, rules=Rules(max_moves=2), opponent=scripted(["pass"]))
    game_env.reset(seed=0)
    *_, info = game_env.step(point("C3"))
    assert info["reason"] == "move_cap" and info["winner"] == "black"


def test_an_illegal_learner_move_ends_with_the_opponent_winning_by_forfeit():
    game_env = GoEnv(board_size=5, learner="white", opponent=scripted(["C3"]))
    game_env.reset(seed=0)
    *_, info = game_env.step(point("C3"))
    assert info["reason"] == "illegal_move" and info["winner"] == "black" and info["result"] == "B+F"


class RecordingOpponent:
    """A callable opponent with the optional lifecycle methods, recording the calls."""

    def __init__(self):
        self.calls: list[tuple] = []

    def new_game(self, game: Game, color: int, seed: int | None) -> None:
        self.calls.append(("new_game", color, len(game.moves), seed))

    def observe_move(self, game: Game, move: int) -> None:
        self.calls.append(("observe_move", move, game.moves[-1]))

    def close(self) -> None:
        self.calls.append(("close",))

    def __call__(self, game: Game) -> int:
        return game.pass_move


def test_the_opponents_lifecycle_is_honoured():
    opponent = RecordingOpponent()
    game_env = GoEnv(board_size=5, learner="white", opponent=opponent)
    game_env.reset(seed=4)
    game_env.step(point("C3"))
    game_env.close()
    (_, color, moves, seed), *rest = opponent.calls
    assert (color, moves, isinstance(seed, int)) == (BLACK, 0, True)
    assert rest == [("observe_move", 25, 25), ("observe_move", 12, 12), ("observe_move", 25, 25), ("close",)]
    again = RecordingOpponent()
    GoEnv(board_size=5, learner="white", opponent=again).reset(seed=4)
    assert again.calls[0] == opponent.calls[0]  # the opponent's seed comes from the env's


def test_a_spec_string_opponent_is_a_goarena_player_driven_through_its_lifecycle():
    game_env = gymnasium.make(ENV_ID, board_size=5, opponent="uct:simulations=30", learner="white")
    observation, info = game_env.reset(seed=0)
    opponent = game_env.unwrapped.opponent
    assert opponent.player.name == "uct" and len(game_env.unwrapped.game.moves) == 1
    rng = np.random.default_rng(0)
    terminated = truncated = False
    while not (terminated or truncated):
        action = rng.choice(np.flatnonzero(game_env.unwrapped.action_masks()))
        observation, reward, terminated, truncated, info = game_env.step(action)
    assert info["reason"] in {"passes", "move_cap", "resign"}
    assert reward == {"white": 1.0, "black": -1.0, "draw": 0.0}[info["winner"]]


class FirstLegal:
    """A player object (``name``, ``reset``, ``select_move``) of the env's own: it plays the
    first legal point."""

    name = "first-legal"

    def reset(self, context: object) -> None:
        pass

    def select_move(self, game: Game) -> int:
        return int(game.legal_moves()[0])


def test_a_player_object_is_an_opponent_and_a_non_player_is_refused():
    game_env = GoEnv(board_size=5, opponent=FirstLegal(), learner="white")
    game_env.reset(seed=0)
    assert len(game_env.game.moves) == 1
    with pytest.raises(TypeError, match="not a player"):
        GoEnv(board_size=5, opponent=object())
    with pytest.raises(ValueError, match="unknown player"):
        GoEnv(board_size=5, opponent="no-such-player")


def test_learner_colours_alternate_and_a_seeded_reset_starts_with_black():
    game_env = GoEnv(board_size=5, learner="alternate")
    game_env.reset(seed=1)
    colours = [game_env.learner_color]
    for _ in range(3):
        game_env.reset()
        colours.append(game_env.learner_color)
    assert colours == [BLACK, WHITE, BLACK, WHITE]
    game_env.reset(seed=1)
    assert game_env.learner_color == BLACK


@pytest.mark.parametrize("channels_first", [False, True])
@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_observation_layouts_and_dtypes(channels_first, dtype):
    game_env = GoEnv(board_size=5, channels_first=channels_first, observation_dtype=dtype)
    observation, _ = game_env.reset(seed=0)
    observation, *_ = game_env.step(point("C3"))
    assert observation in game_env.observation_space and observation.dtype == np.dtype(dtype)
    planes = game_env.game.observation_for(BLACK)
    expected = planes.transpose(2, 0, 1) if channels_first else planes
    np.testing.assert_array_equal(observation, expected)
    fresh = GoEnv(board_size=5, channels_first=channels_first, observation_dtype=dtype)
    check_env(fresh, skip_render_check=True)


def test_the_env_and_its_game_pickle():
    game_env = GoEnv(board_size=5, learner="alternate", channels_first=True)
    game_env.reset(seed=0)
    game_env.step(point("C3"))
    copy = pickle.loads(pickle.dumps(game_env))
    assert copy.game.moves == game_env.game.moves
    np.testing.assert_array_equal(copy.game.legal_mask(), game_env.game.legal_mask())
    copy.step(copy.action_masks().nonzero()[0][0])  # the copy plays on


@pytest.mark.slow
def test_gymnasium_async_vector_envs_run_it_in_worker_processes():
    """Async vector envs pickle the env's constructor and its spec-string opponent to their workers."""
    envs = gymnasium.make_vec(
        ENV_ID,
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"context": "spawn"},
        board_size=5,
        opponent="random",
        learner="alternate",
    )
    try:
        observations, infos = envs.reset(seed=0)
        assert observations.shape == (2, 5, 5, 17)
        ended = 0
        for _ in range(120):
            # The first legal move (pass when the episode just ended: the next step resets it).
            actions = [np.flatnonzero(mask)[0] if mask.any() else 25 for mask in infos["action_mask"]]
            observations, rewards, terminated, truncated, infos = envs.step(np.array(actions))
            ended += int((terminated | truncated).sum())
        assert ended >= 2 and observations in envs.observation_space
    finally:
        envs.close()


@pytest.mark.parametrize("layout", ["pgx", "go_v5"])
def test_observation_layouts_reorder_the_same_planes(layout):
    """The Gymnasium env gives the planes in the layout and dtype asked for."""
    plain = GoEnv(board_size=5, opponent=lambda game: game.pass_move)
    other = GoEnv(
        board_size=5,
        opponent=lambda game: game.pass_move,
        observation_layout=layout,
        observation_dtype="bool",
        channels_first=True,
    )
    observation, _ = plain.reset(seed=1)
    reordered, _ = other.reset(seed=1)
    for move in (6, 7, 12):
        assert reordered.dtype == np.bool_ and reordered.shape == (17, 5, 5)
        expected = planes_in_layout(observation, True, np.bool_, layout)
        np.testing.assert_array_equal(reordered, expected)
        observation, *_ = plain.step(move)
        reordered, *_ = other.step(move)
