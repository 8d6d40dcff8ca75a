"""The Gymnasium vector env over one ``GameBatch``: spaces, same-step auto-reset, rewards and
end infos, illegal moves, colours, seeds, the opponent's calls (batched callables and players,
one per sub-env or one for all), agreement with ``GoEnv``, masks in every vectorisation mode,
and two learners in self-play."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from go_env import GoEnv, GoVectorEnv, OpponentError, Rules, action_masks
from go_env.batch import GameBatch
from go_env.game import BLACK, RESIGN, WHITE, Game, other_color
from go_env.gym_env import ENV_ID

SIZE = 5
PASS = SIZE * SIZE
BLACK_TO_PLAY = -1  # the last plane: 1 where Black is to move


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])


def passing(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.full(len(masks), masks.shape[1] - 1)


def pick(observation: np.ndarray, mask: np.ndarray) -> int:
    """A legal move that depends on the position: the same for ``GoEnv`` and ``GoVectorEnv``."""
    legal = np.flatnonzero(mask)
    return int(legal[int(observation.sum()) * 7 % len(legal)])


def picking(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.array([pick(o, m) for o, m in zip(observations, masks, strict=True)], np.int64)


def first_point(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The first legal point (not pass) of each game."""
    return masks[:, :-1].argmax(axis=1)


def run(envs: GoVectorEnv, steps: int, seed: int) -> list[tuple[np.ndarray, ...]]:
    """Observations, rewards, ends and colours of ``steps`` random steps after ``reset(seed)``."""
    observations, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = [(observations, envs.learner_colors.copy())]
    for _ in range(steps):
        observations, rewards, terminated, truncated, infos = envs.step(
            random_actions(infos["action_mask"], rng)
        )
        trace.append((observations, rewards, terminated, truncated, envs.learner_colors.copy()))
    return trace


def assert_same_trace(a: list[tuple[np.ndarray, ...]], b: list[tuple[np.ndarray, ...]]) -> None:
    assert len(a) == len(b)
    for step_a, step_b in zip(a, b, strict=True):
        for x, y in zip(step_a, step_b, strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("channels_first, dtype", [(False, "int8"), (True, "int8"), (True, "float32")])
def test_spaces_shapes_and_dtypes(channels_first, dtype):
    envs = GoVectorEnv(4, board_size=SIZE, channels_first=channels_first, observation_dtype=dtype)
    shape = (17, SIZE, SIZE) if channels_first else (SIZE, SIZE, 17)
    assert envs.single_observation_space == gymnasium.spaces.Box(0, 1, shape, np.dtype(dtype))
    assert envs.observation_space.shape == (4, *shape)
    assert envs.single_action_space == gymnasium.spaces.Discrete(PASS + 1)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([PASS + 1] * 4)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP

    observations, infos = envs.reset(seed=0)
    assert observations.dtype == np.dtype(dtype) and observations.flags.c_contiguous
    assert envs.observation_space.contains(observations)
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = envs.action_masks()
        assert masks.dtype == bool and masks.shape == (4, PASS + 1)
        np.testing.assert_array_equal(infos["action_mask"], masks)
        assert infos["action_mask"].dtype == np.int8 and infos["_action_mask"].all()
        assert masks[:, PASS].all()  # every observation is a running game's
        observations, rewards, terminated, truncated, infos = envs.step(random_actions(masks, rng))
        assert envs.observation_space.contains(observations)
        assert rewards.dtype == np.float64 and rewards.shape == (4,)
        assert terminated.dtype == truncated.dtype == bool and terminated.shape == (4,)
        for b in np.flatnonzero(infos.get("_final_obs", [])):
            assert envs.single_observation_space.contains(infos["final_obs"][b])


def test_layouts_and_dtypes_are_the_same_planes():
    plain = run(GoVectorEnv(3, board_size=SIZE), 20, seed=5)
    torch_like = run(
        GoVectorEnv(3, board_size=SIZE, channels_first=True, observation_dtype="float32"), 20, seed=5
    )
    for a, b in zip(plain, torch_like, strict=True):
        np.testing.assert_array_equal(np.moveaxis(a[0], -1, 1).astype(np.float32), b[0])


@pytest.mark.parametrize("learner", ["black", "white"])
def test_every_observation_is_the_learners_turn(learner):
    envs = GoVectorEnv(6, board_size=SIZE, learner=learner)
    observations, infos = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    color = BLACK if learner == "black" else WHITE
    for _ in range(40):
        assert (envs.learner_colors == color).all()
        np.testing.assert_array_equal(envs.batch.to_play, color)
        assert (observations[..., BLACK_TO_PLAY] == (color == BLACK)).all()
        observations, _, _, _, infos = envs.step(random_actions(infos["action_mask"], rng))


@pytest.mark.parametrize("learner", ["black", "white"])
def test_a_sub_env_sees_what_a_goenv_playing_the_same_moves_sees(learner):
    """Each sub-env against a ``GoEnv`` twin: same opponent policy, same learner actions (some
    illegal), same observations, rewards, ends and masks, final observations included."""
    num_envs = 3
    envs = GoVectorEnv(num_envs, board_size=SIZE, learner=learner, opponent=picking)
    twins = [
        GoEnv(
            board_size=SIZE,
            learner=learner,
            opponent=lambda game: pick(game.observation(), game.legal_mask()),
        )
        for _ in range(num_envs)
    ]
    observations, infos = envs.reset(seed=0)
    for b, twin in enumerate(twins):
        observation, info = twin.reset(seed=0)
        np.testing.assert_array_equal(observations[b], observation)
        np.testing.assert_array_equal(infos["action_mask"][b], info["action_mask"])
    rng = np.random.default_rng(2)
    episodes = 0
    for _ in range(150):
        actions = random_actions(infos["action_mask"], rng)
        occupied = np.flatnonzero(
            observations[:, :, :, [0, 8]].any(axis=-1).reshape(num_envs, -1).any(axis=0)
        )
        if occupied.size and rng.random() < 0.05:
            actions[rng.integers(num_envs)] = occupied[0]  # illegal in some sub-env, maybe all
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        for b, twin in enumerate(twins):
            observation, reward, twin_terminated, twin_truncated, info = twin.step(int(actions[b]))
            assert (reward, twin_terminated, twin_truncated) == (rewards[b], terminated[b], truncated[b])
            if twin_terminated or twin_truncated:
                episodes += 1
                np.testing.assert_array_equal(infos["final_obs"][b], observation)
                assert (infos["reason"][b] == "illegal_move") == ("illegal_move" in info)
                observation, info = twin.reset()
            np.testing.assert_array_equal(observations[b], observation)
            np.testing.assert_array_equal(infos["action_mask"][b], info["action_mask"])
    assert episodes >= 6


def test_two_passes_end_both_colours_episodes_with_results_in_the_infos():
    envs = GoVectorEnv(3, board_size=SIZE, learner="alternate", opponent=passing)
    _, infos = envs.reset(seed=0)
    np.testing.assert_array_equal(envs.learner_colors, [BLACK, WHITE, BLACK])
    observations, rewards, terminated, truncated, infos = envs.step(np.array([PASS, PASS, 12]))
    # Empty boards, komi 7.5: White wins. Sub-env 2 played a stone and goes on.
    np.testing.assert_array_equal(rewards, [-1.0, 1.0, 0.0])
    np.testing.assert_array_equal(terminated, [True, True, False])
    assert not truncated.any()
    ended = np.array([True, True, False])
    for info in (infos, infos["final_info"]):
        for key in ("score", "winner", "reason", "result"):
            np.testing.assert_array_equal(info[f"_{key}"], ended)
        np.testing.assert_array_equal(info["score"][:2], [-7.5, -7.5])
        assert list(info["winner"]) == ["white", "white", None]
        assert list(info["reason"]) == ["passes", "passes", None]
        assert list(info["result"]) == ["W+7.5", "W+7.5", None]
        assert "illegal_move" not in info
    np.testing.assert_array_equal(infos["_final_obs"], ended)
    assert infos["final_obs"][2] is None
    # The final boards are empty and seen by the learner: Black to play in sub-env 0 (two
    # passes since Black's turn), after White's (the learner's) pass in sub-env 1.
    assert not infos["final_obs"][0][..., :16].any() and infos["final_obs"][0][..., BLACK_TO_PLAY].all()
    assert not infos["final_obs"][1][..., :16].any() and not infos["final_obs"][1][..., BLACK_TO_PLAY].any()
    # Reset in the same step, colours swapped: sub-env 0's learner is White, Black passed first.
    np.testing.assert_array_equal(envs.learner_colors, [WHITE, BLACK, BLACK])
    assert not observations[:2, ..., :16].any()
    np.testing.assert_array_equal(observations[:, 0, 0, BLACK_TO_PLAY], [0, 1, 1])
    np.testing.assert_array_equal(envs.batch.state.info[:, 3], [1, 0, 2])  # moves played so far
    assert observations[2, 2, 2, 0] == 1  # sub-env 2's stone, the learner's own


def test_a_draw_rewards_zero():
    envs = GoVectorEnv(2, board_size=SIZE, komi=0, opponent=passing)
    envs.reset(seed=0)
    _, rewards, terminated, _, infos = envs.step(np.array([PASS, PASS]))
    np.testing.assert_array_equal(rewards, [0.0, 0.0])
    assert (
        terminated.all() and list(infos["winner"]) == ["draw", "draw"] and list(infos["result"]) == ["0", "0"]
    )


def test_the_move_cap_truncates_and_scores_the_board():
    envs = GoVectorEnv(2, board_size=SIZE, rules=Rules(max_moves=4), opponent=first_point)
    _, infos = envs.reset(seed=0)
    _, rewards, terminated, truncated, infos = envs.step(np.array([0, 6]))
    assert not (terminated | truncated).any()
    game = envs.batch.game(0)
    _, rewards, terminated, truncated, infos = envs.step(np.array([12, 18]))
    assert truncated.all() and not terminated.any()
    assert list(infos["reason"]) == ["move_cap", "move_cap"]
    assert game.move_number == 2 and envs.batch.game(0).move_number == 0  # reset in the step
    for b in range(2):
        margin = infos["score"][b]
        assert rewards[b] == (1.0 if margin > 0 else -1.0)  # the learner is Black
        assert infos["winner"][b] == ("black" if margin > 0 else "white")


def test_an_illegal_action_ends_that_episode_as_a_loss_without_playing_it():
    envs = GoVectorEnv(4, board_size=SIZE, learner="alternate", opponent=first_point)
    envs.reset(seed=0)
    observations, *_ = envs.step(np.array([12, 12, 12, 12]))
    before = [envs.batch.game(b) for b in range(4)]
    # Occupied (after the learner's own stone), off the board both ways, and a legal move.
    legal = int(np.flatnonzero(envs.action_masks()[3])[0])
    new_observations, rewards, terminated, truncated, infos = envs.step(np.array([12, PASS + 1, -1, legal]))
    np.testing.assert_array_equal(rewards[:3], [-1.0, -1.0, -1.0])
    np.testing.assert_array_equal(terminated, [True, True, True, False])
    assert not truncated.any()
    assert list(infos["reason"][:3]) == ["illegal_move"] * 3
    assert list(infos["illegal_move"]) == ["occupied", "off board", "off board", None]
    np.testing.assert_array_equal(infos["_illegal_move"], [True, True, True, False])
    assert list(infos["winner"][:3]) == ["white", "black", "white"]  # the learners were B, W, B
    assert list(infos["result"][:3]) == ["W+F", "B+F", "W+F"]
    for b in range(3):  # the board is as it was: the move was not played
        np.testing.assert_array_equal(infos["final_obs"][b], observations[b])
    assert envs.batch.game(3).move_number == before[3].move_number + 2


def test_actions_that_are_not_integers_or_not_one_per_env_change_nothing():
    envs = GoVectorEnv(2, board_size=SIZE)
    envs.reset(seed=0)
    with pytest.raises(TypeError, match="integers"):
        envs.step(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="expected 2 actions"):
        envs.step(np.array([1, 2, 3]))
    assert (envs.batch.state.info[:, 3] == 0).all()
    envs.step([1, 2])  # a list of ints is fine
    assert (envs.batch.state.info[:, 3] == 2).all()


def test_step_before_reset_needs_a_reset():
    with pytest.raises(gymnasium.error.ResetNeeded):
        GoVectorEnv(2, board_size=SIZE).step(np.array([0, 0]))


def test_seeded_resets_replay_the_same_episodes():
    for learner in ("random", "alternate"):
        first = run(GoVectorEnv(5, board_size=SIZE, learner=learner), 60, seed=11)
        envs = GoVectorEnv(5, board_size=SIZE, learner=learner)
        run(envs, 13, seed=3)
        assert_same_trace(run(envs, 60, seed=11), first)
        assert_same_trace(
            run(GoVectorEnv(5, board_size=SIZE, learner=learner, threads=2), 60, seed=11), first
        )
        other = run(GoVectorEnv(5, board_size=SIZE, learner=learner), 60, seed=12)
        assert any(not np.array_equal(a[0], b[0]) for a, b in zip(first, other, strict=True))
    # The constructor's seed seeds the first reset that is given none.
    seeded = GoVectorEnv(5, board_size=SIZE, seed=4)
    np.testing.assert_array_equal(seeded.reset()[0], GoVectorEnv(5, board_size=SIZE).reset(seed=4)[0])


def test_alternate_colours_flip_at_each_reset_of_each_sub_env():
    envs = GoVectorEnv(4, board_size=SIZE, learner="alternate", opponent=passing)
    observations, _ = envs.reset(seed=0)
    np.testing.assert_array_equal(envs.learner_colors, [BLACK, WHITE, BLACK, WHITE])
    np.testing.assert_array_equal(observations[:, 0, 0, BLACK_TO_PLAY], [1, 0, 1, 0])
    envs.step(np.array([PASS, PASS, 0, 0]))  # sub-envs 0 and 1 end and reset
    np.testing.assert_array_equal(envs.learner_colors, [WHITE, BLACK, BLACK, WHITE])
    observations, _ = envs.reset(options={"reset_mask": np.array([False, False, True, False])})
    np.testing.assert_array_equal(envs.learner_colors, [WHITE, BLACK, WHITE, WHITE])
    np.testing.assert_array_equal(observations[:, 0, 0, BLACK_TO_PLAY], [0, 1, 0, 0])
    envs.reset()
    np.testing.assert_array_equal(envs.learner_colors, [BLACK, WHITE, BLACK, BLACK])
    envs.reset(seed=1)  # a seeded reset starts again
    np.testing.assert_array_equal(envs.learner_colors, [BLACK, WHITE, BLACK, WHITE])
    random_colors = GoVectorEnv(64, board_size=SIZE, learner="random")
    random_colors.reset(seed=0)
    assert 10 < (random_colors.learner_colors == BLACK).sum() < 54


def test_a_partial_reset_leaves_the_other_sub_envs_alone():
    envs = GoVectorEnv(3, board_size=SIZE)
    envs.reset(seed=0)
    observations, *_ = envs.step(np.array([6, 7, 8]))
    new_observations, infos = envs.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(new_observations[[0, 2]], observations[[0, 2]])
    assert not new_observations[1, ..., :16].any()
    np.testing.assert_array_equal(envs.batch.state.info[:, 3], [2, 0, 2])
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.array([1, 0, 1])})


def test_the_random_opponent_plays_every_legal_move_and_pass_alike():
    envs = GoVectorEnv(2000, board_size=3, learner="white")
    observations, _ = envs.reset(seed=0)
    # Black's first move, seen by White: the opponent's stones are plane 8.
    stones = observations[..., 8].reshape(2000, 9)
    passes = ~stones.any(axis=1)
    counts = np.append(stones.sum(axis=0), passes.sum())
    assert stones.sum(axis=1).max() == 1 and counts.sum() == 2000
    assert (np.abs(counts - 200) < 60).all(), counts  # ten moves alike: 200 each, sd 13


def test_a_batched_opponent_gets_only_its_games_from_its_side():
    calls = []

    def opponent(observations, masks):
        calls.append((observations.copy(), masks.copy()))
        return picking(observations, masks)

    envs = GoVectorEnv(4, board_size=SIZE, learner="alternate", opponent=opponent)
    envs.reset(seed=0)
    [(observations, masks)] = calls  # the games where the learner is White: sub-envs 1 and 3
    assert observations.shape == (2, SIZE, SIZE, 17) and observations.dtype == np.int8
    assert masks.shape == (2, PASS + 1) and masks.dtype == np.int8 and masks.all()
    assert observations[..., BLACK_TO_PLAY].all() and not observations[..., :16].any()
    envs.step(np.array([0, 1, 2, 3]))
    observations, masks = calls[1]  # every game now has the opponent to move
    assert len(observations) == 4
    np.testing.assert_array_equal(observations[:, 0, 0, BLACK_TO_PLAY], [0, 1, 0, 1])
    assert observations[0, 0, 0, 8] == 1 and masks[0, 0] == 0  # the learner's stone, seen as the enemy's


@pytest.mark.parametrize(
    "opponent, message",
    [
        (lambda observations, masks: 1 / 0, "raised ZeroDivisionError"),
        (lambda observations, masks: np.zeros(len(masks) + 1, np.int64), "must answer"),
        (lambda observations, masks: np.zeros(len(masks)) + 0.5, "must answer"),
        (lambda observations, masks: np.full(len(masks), 99), "refused: off board"),
    ],
)
def test_a_failing_opponent_breaks_the_env_until_reset(opponent, message):
    envs = GoVectorEnv(2, board_size=SIZE, opponent=opponent)
    envs.opponent = passing
    envs.reset(seed=0)
    envs.opponent = opponent
    with pytest.raises(OpponentError, match=message):
        envs.step(np.array([0, 1]))
    assert not envs.action_masks().any()
    with pytest.raises(gymnasium.error.ResetNeeded):
        envs.step(np.array([PASS, PASS]))
    envs.opponent = passing
    envs.reset()
    envs.step(np.array([PASS, PASS]))


def test_an_occupied_answer_is_refused():
    envs = GoVectorEnv(1, board_size=SIZE, opponent=lambda observations, masks: np.array([0]))
    envs.reset(seed=0)
    with pytest.raises(OpponentError, match="sub-env 0 is refused: occupied"):
        envs.step(np.array([0]))


def test_records_episode_statistics_as_gymnasium_counts_them():
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        GoVectorEnv(4, board_size=SIZE, opponent=passing)
    )
    envs.reset(seed=0)
    envs.step(np.array([0, 1, 2, 3]))
    _, rewards, _, _, infos = envs.step(np.array([PASS, PASS, 5, 6]))
    np.testing.assert_array_equal(infos["_episode"], [True, True, False, False])
    np.testing.assert_array_equal(infos["episode"]["l"][:2], [2, 2])
    np.testing.assert_array_equal(infos["episode"]["r"][:2], rewards[:2])


def test_make_vec_builds_the_vector_env_and_sync_still_works():
    envs = gymnasium.make_vec(ENV_ID, num_envs=3, board_size=SIZE, learner="alternate")
    assert isinstance(envs.unwrapped, GoVectorEnv)
    observations, _ = envs.reset(seed=0)
    assert observations.shape == (3, SIZE, SIZE, 17)
    np.testing.assert_array_equal(envs.unwrapped.learner_colors, [BLACK, WHITE, BLACK])
    sync = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", board_size=SIZE)
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    assert sync.reset(seed=0)[0].shape == (2, SIZE, SIZE, 17)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="learner"):
        GoVectorEnv(2, learner="random-ish")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="observation_dtype"):
        GoVectorEnv(2, observation_dtype="uint16")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="observation_layout"):
        GoVectorEnv(2, observation_layout="minigo")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size"):
        GoVectorEnv(0)
    with pytest.raises(TypeError, match="not a player"):
        GoVectorEnv(2, opponent=42)
    with pytest.raises(ValueError, match="one for each of the 3 sub-envs"):
        GoVectorEnv(3, opponent=["random", "random"])
    with pytest.raises(ValueError, match="no opponent"):
        GoVectorEnv(2, learner="both", opponent=passing)


def test_game_batch_resets_only_the_games_asked():
    batch = GameBatch(SIZE, 3, seed=0)
    batch.play(np.array([0, 1, 2]))
    batch.reset(np.array([True, False, True]))
    np.testing.assert_array_equal(batch.state.info[:, 3], [0, 1, 0])
    assert batch.game(1).board.sum() == BLACK and batch.game(0).board.sum() == 0 == batch.game(2).board.sum()
    batch.play(np.array([0, 0, 2]))  # the reset games play from scratch, superko history included
    with pytest.raises(ValueError, match="mask of 3 games"):
        batch.reset(np.array([True, False]))
    batch.reset()
    assert not batch.state.info[:, 3].any()


# -- players as the opponent ----------------------------------------------------------------


class Quirky:
    """A deterministic player: ``pick``'s move, except that it resigns at some moves and plays
    on an occupied point at others, so that both forfeits come up."""

    name = "quirky"

    def __init__(self):
        self.contexts = []
        self.observed = []
        self.closed = False

    def reset(self, context):
        self.contexts.append(context)

    def select_move(self, game):
        played, chance = len(game.moves), int(game.observation().sum()) % 8
        if played >= 16 and chance == 0:
            return RESIGN
        if played >= 10 and chance == 1:
            return int(np.flatnonzero(game.board)[0])  # occupied
        return pick(game.observation(), game.legal_mask())

    def observe_move(self, game, move):
        assert game.moves[-1] == move
        self.observed.append(move)

    def close(self):
        self.closed = True


class FirstPoints:
    """A player of many games at once: the first legal point (pass when none) of each."""

    name = "first-points"

    def __init__(self):
        self.contexts = []
        self.batches = []

    def reset(self, context):
        self.contexts.append(context)

    def select_move(self, game):
        raise AssertionError("asked one game at a time")

    def select_moves(self, batch):
        self.batches.append((batch.batch_size, batch.to_play))
        masks = batch.legal_masks()
        moves = np.where(masks[:, :-1].any(axis=1), masks[:, :-1].argmax(axis=1), PASS)
        batch.play(moves)  # the batch holds copies: the env's games are left alone
        return moves


@pytest.mark.parametrize("opponent", ["players", "uct:simulations=8,seed=1"])
def test_sub_envs_against_players_see_what_goenvs_against_the_same_players_see(opponent):
    """Each sub-env against a ``GoEnv`` twin with the same deterministic player: same
    observations, rewards, ends (resignations and the player's illegal moves included), infos
    and final observations; the players are reset and told of the moves alike."""
    num_envs = 3
    players = [Quirky() for _ in range(num_envs)]
    twin_players = [Quirky() for _ in range(num_envs)]
    envs = GoVectorEnv(
        num_envs, board_size=SIZE, learner="white", opponent=players if opponent == "players" else opponent
    )
    twins = [
        GoEnv(
            board_size=SIZE, learner="white", opponent=twin_players[b] if opponent == "players" else opponent
        )
        for b in range(num_envs)
    ]
    observations, infos = envs.reset(seed=0)
    for b, twin in enumerate(twins):
        observation, info = twin.reset(seed=0)
        np.testing.assert_array_equal(observations[b], observation)
    rng = np.random.default_rng(3)
    reasons = []
    for _ in range(120):
        actions = random_actions(infos["action_mask"], rng)
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        for b, twin in enumerate(twins):
            observation, reward, twin_terminated, twin_truncated, info = twin.step(int(actions[b]))
            assert (reward, twin_terminated, twin_truncated) == (rewards[b], terminated[b], truncated[b])
            if twin_terminated or twin_truncated:
                reasons.append(info["reason"])
                np.testing.assert_array_equal(infos["final_obs"][b], observation)
                for key in ("reason", "winner", "result", "illegal_move"):
                    assert infos.get(key, [None] * num_envs)[b] == info.get(key), key
                observation, info = twin.reset()
            np.testing.assert_array_equal(observations[b], observation)
            np.testing.assert_array_equal(infos["action_mask"][b], info["action_mask"])
    assert len(reasons) >= 6
    if opponent == "players":
        assert {"resign", "opponent_illegal_move"} <= set(reasons)
        for player, twin_player in zip(players, twin_players, strict=True):
            assert player.observed == twin_player.observed
            assert [c.color for c in player.contexts] == [c.color for c in twin_player.contexts]
            assert {c.color for c in player.contexts} == {BLACK}
        envs.close()
        assert all(player.closed for player in players)


def test_a_player_of_many_games_is_asked_once_a_step_with_copies_of_its_games():
    player = FirstPoints()
    envs = GoVectorEnv(4, board_size=SIZE, learner="alternate", opponent=player)
    envs.reset(seed=0)
    assert [context.color for context in player.contexts] == [None]  # once for every game
    assert [size for size, _ in player.batches] == [2]  # the games where the learner is White
    np.testing.assert_array_equal(envs.batch.state.info[:, 3], [0, 1, 0, 1])
    observations, *_ = envs.step(np.array([PASS, 12, PASS, 12]))
    assert [size for size, _ in player.batches] == [2, 4]
    np.testing.assert_array_equal(player.batches[1][1], [WHITE, BLACK, WHITE, BLACK])
    np.testing.assert_array_equal(envs.batch.state.info[:, 3], [2, 3, 2, 3])  # each game's moves, once
    assert observations[0, 0, 0, 8] == 1  # White's first point, seen by Black
    envs.reset(options={"reset_mask": np.array([True, False, False, False])})
    assert len(player.contexts) == 1  # a partial reset does not reset it
    envs.reset()
    assert len(player.contexts) == 2


def test_spec_opponents_play_each_sub_env_or_all_at_once():
    for spec in ("random", "puct:simulations=8", "uct:simulations=8"):
        envs = GoVectorEnv(3, board_size=SIZE, learner="alternate", opponent=spec)
        _, infos = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(60):
            assert (infos["action_mask"][:, PASS] == 1).all()
            _, _, terminated, truncated, infos = envs.step(random_actions(infos["action_mask"], rng))
            ended += int((terminated | truncated).sum())
        assert ended >= 2, spec
        envs.close()


def test_a_player_of_one_game_at_a_time_plays_one_sub_env_or_comes_in_a_list():
    with pytest.raises(TypeError, match="one game at a time"):
        GoVectorEnv(2, board_size=SIZE, opponent=Quirky())
    envs = GoVectorEnv(1, board_size=SIZE, learner="white", opponent=Quirky())
    envs.reset(seed=0)
    assert envs.batch.state.info[0, 3] == 1
    envs = GoVectorEnv(2, board_size=SIZE, learner="white", opponent=[Quirky(), "random"])
    envs.reset(seed=0)
    np.testing.assert_array_equal(envs.batch.state.info[:, 3], [1, 1])


def test_a_failing_player_breaks_the_env_until_reset():
    class Broken(Quirky):
        def select_move(self, game):
            if len(game.moves) > 2:
                raise RuntimeError("out of time")
            return super().select_move(game)

    envs = GoVectorEnv(1, board_size=SIZE, learner="white", opponent=Broken())
    envs.reset(seed=0)
    with pytest.raises(OpponentError, match="raised RuntimeError: out of time"):
        for _ in range(3):
            envs.step(np.array([int(np.flatnonzero(envs.action_masks()[0][:-1])[0])]))
    with pytest.raises(gymnasium.error.ResetNeeded):
        envs.step(np.array([PASS]))


def test_action_masks_reads_every_vectorisation_mode():
    sync = gymnasium.make_vec(
        ENV_ID,
        num_envs=3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        board_size=SIZE,
        opponent=passing_game,
    )
    batched = gymnasium.make_vec(ENV_ID, num_envs=3, board_size=SIZE)
    wrapped = gymnasium.wrappers.vector.RecordEpisodeStatistics(GoVectorEnv(3, board_size=SIZE))
    for envs in (sync, batched, wrapped):
        _, infos = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(4):
            masks = action_masks(envs)
            assert masks.dtype == bool and masks.shape == (3, PASS + 1)
            np.testing.assert_array_equal(masks, infos["action_mask"].astype(bool))
            _, _, _, _, infos = envs.step(random_actions(infos["action_mask"], rng))
    assert not action_masks(sync)[:, :-1].all()  # stones on the boards: not every point is legal


def passing_game(game):
    return game.pass_move


# -- two learners -----------------------------------------------------------------------------


def test_two_learners_alternate_colours_rewards_are_zero_sum_and_scores_replay():
    num_envs = 4
    envs = GoVectorEnv(num_envs, board_size=SIZE, learner="both")
    observations, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    records = [[] for _ in range(num_envs)]
    to_play = np.full(num_envs, BLACK)
    endings = set()
    for _ in range(250):
        np.testing.assert_array_equal(infos["to_play"], to_play)
        np.testing.assert_array_equal(envs.batch.to_play, to_play)
        assert (observations[..., BLACK_TO_PLAY] == (to_play == BLACK)[:, None, None]).all()
        actions = random_actions(infos["action_mask"], rng)
        if rng.random() < 0.02:
            actions[0] = PASS + 1  # off the board: the mover loses
        for b in range(num_envs):
            records[b].append(int(actions[b]))
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        for b in range(num_envs):
            mover = to_play[b]
            if not (terminated[b] or truncated[b]):
                assert rewards[b] == 0.0
                to_play[b] = other_color(mover)
                continue
            both = infos["rewards"][b]
            assert both.sum() == 0.0 and rewards[b] == both[0 if mover == BLACK else 1]
            endings.add(infos["reason"][b])
            game = Game(SIZE, envs.rules)
            if infos["reason"][b] == "illegal_move":
                game.replay(records[b][:-1])
                assert rewards[b] == -1.0
            else:
                game.replay(records[b])
                assert game.is_over
                assert both[0] == game.outcome(BLACK)
            assert infos["score"][b] == game.score()
            records[b] = []
            to_play[b] = BLACK
    assert "illegal_move" in endings and len(endings) >= 2
