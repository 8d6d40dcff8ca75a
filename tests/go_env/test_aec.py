"""The PettingZoo AEC environment: PettingZoo's own checks, game ends, illegal moves, the
documented observation planes and rendering. Moves are written as GTP vertices."""

from __future__ import annotations

import pickle
import re
import sys
import warnings

import numpy as np
import pytest
from gymnasium.error import DependencyNotInstalled
from pettingzoo.test import api_test, seed_test

from go_env import aec, coords
from go_env.aec import env, raw_env
from go_env.game import BLACK, WHITE, Game
from go_env.render import Renderer, ansi, rgb_array
from go_env.rules import Rules

# White's B4 takes the black stone at C4; Black may not retake at once.
#   5 . X O . .
#   4 X O . O .
#   3 . X O . .
KO_FIGHT = ["B5", "C5", "A4", "D4", "C4", "C3", "B3", "B4"]


def play(game_env, *vertices: str) -> None:
    size = game_env.unwrapped.board_size
    for vertex in vertices:
        game_env.step(coords.from_gtp(vertex, size))


@pytest.fixture(autouse=True)
def _quiet_pettingzoo_name_warnings():
    # api_test knows go_v5 by name and warns that go_v0's dict observations are unusual.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        yield


@pytest.mark.parametrize("size", [5, 9, 19])
def test_pettingzoo_api_and_seed_tests(size):
    api_test(env(board_size=size), num_cycles=1000)
    seed_test(lambda: env(board_size=size))


def test_spaces_metadata_and_game():
    game_env = env(board_size=9)
    game_env.reset(seed=7)
    assert game_env.possible_agents == ["black_0", "white_0"]
    assert game_env.agent_selection == "black_0"
    for agent in game_env.possible_agents:
        assert game_env.observation_space(agent) is game_env.observation_space(agent)
        assert game_env.action_space(agent) is game_env.action_space(agent)
        assert game_env.action_space(agent).n == 82
        assert game_env.observation_space(agent)["observation"].shape == (9, 9, 17)
    assert raw_env.metadata == {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "go_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    assert isinstance(game_env.unwrapped.game, Game)
    assert str(game_env) == "go_v0"


def test_masks_follow_the_turn():
    game_env = env(board_size=5)
    game_env.reset()
    play(game_env, "C3")
    mover = game_env.observe("white_0")["action_mask"]
    waiting = game_env.observe("black_0")["action_mask"]
    np.testing.assert_array_equal(mover, game_env.unwrapped.game.legal_mask())
    assert mover[coords.from_gtp("C3", 5)] == 0 and mover[25] == 1
    assert not waiting.any()


def test_komi_and_rules_arguments():
    game_env = raw_env(board_size=9, rules=Rules.preset("chinese"), komi=5)
    assert game_env.game.rules.komi == 5 and game_env.game.rules.ko == "simple"


def test_handicap_white_moves_first():
    game_env = env(board_size=9, handicap=2)
    game_env.reset()
    assert game_env.agent_selection == "white_0"
    observation = game_env.last()[0]["observation"]
    assert observation[:, :, 8].sum() == 2  # the opponent's handicap stones
    assert not observation[:, :, 16].any()


def test_two_passes_terminate_and_the_winner_gets_one():
    game_env = env(board_size=5)
    game_env.reset()
    play(game_env, "C3", "pass", "pass")
    assert game_env.terminations == {"black_0": True, "white_0": True}
    assert game_env.truncations == {"black_0": False, "white_0": False}
    assert game_env.unwrapped.game.result() == "B+17.5"  # 25 points of area, komi 7.5
    assert game_env._cumulative_rewards == {"black_0": 1.0, "white_0": -1.0}
    finished = []
    for agent in game_env.agent_iter():
        _, reward, terminated, _, _ = game_env.last()
        assert terminated
        finished.append((agent, reward))
        game_env.step(None)
    assert sorted(finished) == [("black_0", 1.0), ("white_0", -1.0)]
    assert game_env.agents == []


def test_integer_komi_draw_scores_zero():
    game_env = env(board_size=5, komi=0)
    game_env.reset()
    play(game_env, "pass", "pass")
    assert game_env.unwrapped.game.result() == "0"
    assert game_env.terminations == {"black_0": True, "white_0": True}
    assert game_env._cumulative_rewards == {"black_0": 0.0, "white_0": 0.0}


def test_move_cap_truncates_and_scores_the_board():
    game_env = env(board_size=5, rules=Rules(komi=0, max_moves=3))
    game_env.reset()
    play(game_env, "A1", "E5", "C3")
    assert game_env.truncations == {"black_0": True, "white_0": True}
    assert game_env.terminations == {"black_0": False, "white_0": False}
    game = game_env.unwrapped.game
    assert game.winner() == BLACK
    assert game_env._cumulative_rewards == {"black_0": 1.0, "white_0": -1.0}


@pytest.mark.parametrize(
    "moves, offender, reason",
    [
        (["C3", "C3"], "white_0", "occupied"),
        (["A4", "E1", "B5", "A5"], "white_0", "suicide"),
        ([*KO_FIGHT, "C4"], "black_0", "ko"),
        (["C3", "E1", "Z9"], "black_0", "off board"),
    ],
)
def test_illegal_move_loses_and_says_why(moves, offender, reason):
    game_env = env(board_size=5)
    game_env.reset()
    *legal, illegal = moves
    play(game_env, *legal)
    game = game_env.unwrapped.game
    action = 99 if illegal == "Z9" else coords.from_gtp(illegal, 5)
    if illegal != "Z9":
        assert game.move_status(action) == reason
    moves_before = list(game.moves)
    game_env.step(action)

    other = "black_0" if offender == "white_0" else "white_0"
    assert game_env.terminations == {"black_0": True, "white_0": True}
    assert game_env._cumulative_rewards == {offender: -1.0, other: 0.0}
    assert game.moves == moves_before  # the illegal move is not played
    for agent in (offender, other):
        info = game_env.infos[agent]
        assert info["illegal_move"] == reason
        assert reason in info["error"] and "illegal move" in info["error"]
    assert not game_env.observe(offender)["action_mask"].any()
    rewards = {}
    for agent in game_env.agent_iter():
        rewards[agent] = game_env.last()[1]
        game_env.step(None)
    assert rewards == {offender: -1.0, other: 0.0}


def test_error_names_the_move():
    game_env = env(board_size=5)
    game_env.reset()
    play(game_env, "C3", "C3")
    assert game_env.infos["white_0"]["error"] == "illegal move C3 (point 12) by white: occupied"


def _documented_planes() -> dict[str, str]:
    """The plane table of the module documentation: {"0": "own stones now", ...}."""
    table = aec.__doc__.split("|  Plane  |")[1].split("\n\n")[0]
    rows = re.findall(r"^\|\s*([\d -]+?)\s*\|\s*(.+?)\s*\|$", table, re.MULTILINE)
    return dict(rows)


def test_documented_planes_match_observations():
    assert _documented_planes() == {
        "0": "own stones now",
        "1 - 7": "own stones 1 to 7 moves ago",
        "8": "opponent's stones now",
        "9 - 15": "opponent's stones 1 to 7 moves ago",
        "16": "all 1 if the observing agent plays Black, all 0 if White",
    }
    game_env = env(board_size=5)
    game_env.reset()
    boards = [game_env.unwrapped.game.board.copy()]
    for move in [*KO_FIGHT, "pass", "E1"]:
        play(game_env, move)
        boards.append(game_env.unwrapped.game.board.copy())
    assert len(boards) > 8
    for agent, color in (("black_0", BLACK), ("white_0", WHITE)):
        planes = game_env.observe(agent)["observation"]
        assert planes.dtype == np.bool_ and planes.shape == (5, 5, 17)
        for ago in range(8):
            board = boards[-1 - ago]
            np.testing.assert_array_equal(planes[:, :, ago], board == color, err_msg=f"{agent} plane {ago}")
            np.testing.assert_array_equal(planes[:, :, 8 + ago], board == 3 - color)
        assert (planes[:, :, 16] == (color == BLACK)).all()
    # The side to move sees what Game.observation shows.
    planes = game_env.observe(game_env.agent_selection)["observation"]
    np.testing.assert_array_equal(planes, game_env.unwrapped.game.observation())


def test_history_before_the_first_position_is_empty():
    game_env = env(board_size=5)
    game_env.reset()
    play(game_env, "C3")
    planes = game_env.observe("white_0")["observation"]
    assert planes[:, :, 8].sum() == 1 and not planes[:, :, 9:16].any() and not planes[:, :, :8].any()


def test_observations_are_not_shared_between_steps():
    game_env = env(board_size=5)
    game_env.reset()
    first = game_env.last()[0]
    play(game_env, "C3")
    assert not first["observation"][:, :, 0].any() and first["action_mask"].all()


def test_ansi_shows_the_stones():
    game_env = env(board_size=9, render_mode="ansi")
    game_env.reset()
    play(game_env, "C3", "G7", "E5")
    text = game_env.render()
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDEFGHJ")
    row = {line.split()[0]: line for line in lines[1:-1]}
    assert row["3"].startswith(" 3 . . X . . . + . . 3")
    assert row["7"].startswith(" 7 . . + . . . O . . 7")
    assert row["5"].startswith(" 5 . . . .(X). . . . 5")  # the last move in parentheses
    assert "captured 0 stones" in text


def test_rgb_array_draws_dark_black_and_light_white_stones():
    cell = 32
    game = Game(9)
    for vertex in ["C3", "G7", "E5"]:
        game.play(coords.from_gtp(vertex, 9))
    image = rgb_array(game, cell)
    assert image.shape == (10 * cell, 10 * cell, 3) and image.dtype == np.uint8

    def pixel(vertex: str, dy: int = 0, dx: int = 0) -> np.ndarray:
        row, col = coords.to_rowcol(coords.from_gtp(vertex, 9), 9)
        return image[(row + 1) * cell + dy, (col + 1) * cell + dx].astype(int)

    for vertex in ["C3", "E5"]:  # E5 is ringed as the last move; its centre stays black
        assert pixel(vertex).max() < 60 and pixel(vertex, 10, 0).max() < 60
    assert pixel("G7").min() > 200 and pixel("G7", 0, -10).min() > 200
    wood = pixel("B2", 8, 8)  # off the grid lines
    assert wood[0] > wood[2] + 60 and 120 < wood.mean() < 200
    assert pixel("B2").max() < 100  # a grid intersection


def test_rgb_array_through_the_env():
    game_env = env(board_size=5, render_mode="rgb_array")
    game_env.reset()
    image = game_env.render()
    assert image.shape == (192, 192, 3) and image.dtype == np.uint8


def test_human_render_opens_a_window(monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    game_env = env(board_size=5, render_mode="human")
    game_env.reset()
    play(game_env, "C3")
    assert game_env.render() is None
    game_env.close()


def test_human_render_without_pygame_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(DependencyNotInstalled, match="pip install"):
        Renderer("human")


def test_unknown_render_mode_is_refused():
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(board_size=5, render_mode="svg")


def test_ansi_of_a_fresh_19x19_board_has_nine_star_points():
    assert ansi(Game(19)).count("+") == 9


def test_none_is_no_move_for_an_agent_still_playing():
    game_env = env(board_size=5)
    game_env.reset()
    with pytest.raises(ValueError, match="black_0 is still playing"):
        game_env.step(None)


@pytest.mark.parametrize("action", [40.7, -0.5, 12.0, "12", True, [12]], ids=repr)
def test_non_integer_actions_are_refused_and_change_nothing(action):
    game_env = env(board_size=5)
    game_env.reset()
    with pytest.raises(TypeError, match="a move must be an integer"):
        game_env.step(action)
    assert game_env.unwrapped.game.moves == [] and game_env.agent_selection == "black_0"
    game_env.step(np.int64(12))
    assert game_env.unwrapped.game.moves == [12]


@pytest.mark.parametrize("action", [2**63, -(2**63) - 1, 10**30])
def test_huge_actions_are_off_the_board(action):
    game_env = env(board_size=5)
    game_env.reset()
    game_env.step(action)
    assert game_env.terminations == {"black_0": True, "white_0": True}
    assert game_env.infos["black_0"]["illegal_move"] == "off board"
    assert game_env._cumulative_rewards == {"black_0": -1.0, "white_0": 0.0}


def test_the_env_pickles_as_its_arguments_and_plays_on_after_unpickling():
    """PettingZoo's convention (``EzPickle``): a pickled env is rebuilt from its arguments,
    as Ray and Gymnasium's async vector envs need; the game in progress is not carried."""
    original = env(board_size=5, komi=0.5)
    original.reset(seed=0)
    original.step(12)
    copy = pickle.loads(pickle.dumps(original))
    copy.reset(seed=0)
    assert copy.unwrapped.game.rules.komi == 0.5 and copy.unwrapped.game.size == 5
    copy.step(12)
    assert copy.unwrapped.game.moves == original.unwrapped.game.moves


def test_a_game_pickles_with_its_position_and_record():
    game = Game(5)
    game.replay([12, 7, 13])
    copy = pickle.loads(pickle.dumps(game))
    assert copy.moves == game.moves and copy.key == game.key
    np.testing.assert_array_equal(copy.legal_mask(), game.legal_mask())
    copy.play(copy.pass_move)
    assert game.moves == [12, 7, 13]


@pytest.mark.parametrize("size", [5, 9])
def test_go_v5_layout_is_pettingzoos_go_v5_move_by_move(size):
    """``observation_layout="go_v5"`` gives PettingZoo's own Go planes exactly, for both agents,
    through random games with passes."""
    go_v5 = pytest.importorskip("pettingzoo.classic.go_v5")
    theirs = go_v5.env(board_size=size, komi=7.5)
    ours = env(board_size=size, komi=7.5, observation_layout="go_v5")
    theirs.reset(seed=0)
    ours.reset()
    space = ours.observation_space("black_0")["observation"]
    assert space == theirs.observation_space("black_0")["observation"]
    rng = np.random.default_rng(size)
    for turn in range(3 * size * size):
        for agent in ("black_0", "white_0"):
            expected, got = theirs.observe(agent), ours.observe(agent)
            assert got["observation"].dtype == expected["observation"].dtype
            message = f"{agent}, move {turn}"
            np.testing.assert_array_equal(got["observation"], expected["observation"], err_msg=message)
            if not ours.unwrapped.game.is_over:  # at our move cap go_v5 (which has none) goes on
                np.testing.assert_array_equal(got["action_mask"], expected["action_mask"])
        if theirs.terminations[theirs.agent_selection] or ours.unwrapped.game.is_over:
            break
        legal = np.flatnonzero(theirs.observe(theirs.agent_selection)["action_mask"])
        stones = legal[legal != size * size]
        move = int(rng.choice(stones)) if len(stones) and turn % 13 else size * size
        theirs.step(move)
        ours.step(move)
    assert turn > 8


def test_pgx_layout_interleaves_own_and_opponents_stones():
    game_env = env(board_size=5, observation_layout="pgx", observation_dtype="uint8")
    plain = env(board_size=5)
    game_env.reset()
    plain.reset()
    for move in [*KO_FIGHT, "pass", "E1"]:
        play(game_env, move)
        play(plain, move)
    for agent in ("black_0", "white_0"):
        pgx = game_env.observe(agent)["observation"]
        own = plain.observe(agent)["observation"]
        assert pgx.dtype == np.uint8
        for ago in range(8):
            np.testing.assert_array_equal(pgx[:, :, 2 * ago], own[:, :, ago])
            np.testing.assert_array_equal(pgx[:, :, 2 * ago + 1], own[:, :, 8 + ago])
        np.testing.assert_array_equal(pgx[:, :, 16], 1 - own[:, :, 16])  # pgx: 1 for White


def test_unknown_layout_or_dtype_is_refused():
    with pytest.raises(ValueError, match="observation_layout must be one of goarena, pgx, go_v5"):
        raw_env(observation_layout="minigo")
    with pytest.raises(ValueError, match="observation_dtype must be one of"):
        raw_env(observation_dtype="int64")
