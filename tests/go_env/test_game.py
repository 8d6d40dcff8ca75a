"""``Game``'s handling of what a caller passes as a move: integers only, and any integer,
however large, is a legal move or an illegal one, never a crash; and a game that two passes
ended, resumed for a clean-up phase."""

from __future__ import annotations

import numpy as np
import pytest

from go_env.game import BLACK, WHITE, Game, IllegalMoveError, as_move
from go_env.rules import Rules

NOT_INTEGERS = [40.7, -0.5, 12.0, np.float64(12.0), "12", b"12", None, True, np.True_, [12], np.array([12])]
OFF_BOARD = [-1, 26, 10**6, 2**63, -(2**63) - 1, np.uint64(2**64 - 1)]


@pytest.mark.parametrize("value", [12, np.int64(12), np.int8(12), np.uint16(12), np.array(12)])
def test_integers_are_moves(value):
    assert as_move(value) == 12 and type(as_move(value)) is int


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
def test_anything_else_is_a_type_error(value):
    with pytest.raises(TypeError, match="a move must be an integer, not"):
        as_move(value)


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
def test_game_refuses_non_integers_and_stays_unchanged(value):
    game = Game(5)
    game.play(6)
    for method in (game.play, game.is_legal, game.move_status):
        with pytest.raises(TypeError, match="a move must be an integer"):
            method(value)
    assert game.moves == [6] and game.board.sum() == 1


@pytest.mark.parametrize("move", OFF_BOARD, ids=repr)
def test_integers_off_the_board_are_illegal_moves(move):
    game = Game(5)
    assert game.move_status(move) == "off board"
    assert not game.is_legal(move)
    with pytest.raises(IllegalMoveError, match="off board") as raised:
        game.play(move)
    assert raised.value.reason == "off board" and game.moves == []


def test_after_the_game_every_move_is_game_over():
    game = Game(5)
    game.replay([25, 25])
    for move in (0, 25, -1, 2**63):
        assert game.move_status(move) == "game over"
        with pytest.raises(IllegalMoveError, match="game over"):
            game.play(move)


def test_a_game_ended_by_two_passes_resumes_with_the_passes_kept():
    game = Game(5)
    game.replay([12, 25, 25])
    game.resume()
    assert not game.is_over and game.moves == [12, 25, 25] and game.move_number == 3
    assert game.to_play == WHITE and game.legal_mask()[6]
    game.replay([6, 25])  # one pass does not end it
    assert not game.is_over
    game.play(25)
    assert game.is_terminated and game.moves == [12, 25, 25, 6, 25, 25]
    with pytest.raises(ValueError, match="only a game that two passes ended"):
        Game(5).resume()


def test_replay_resumes_only_when_asked_and_undo_keeps_a_game_resumed():
    moves = [12, 25, 25, 6, 7]
    with pytest.raises(IllegalMoveError, match="game over"):
        Game(5).replay(moves)
    game = Game(5)
    game.replay(moves, resume=True)
    assert game.moves == moves and game.board.sum() == 2 * BLACK + WHITE
    assert game.undo() == 7 and game.undo() == 6
    assert game.moves == [12, 25, 25] and not game.is_over  # resumed, as before White's 6
    game.undo()
    assert game.moves == [12, 25] and not game.is_over


def test_a_game_resumed_at_the_move_cap_is_over():
    game = Game(5, Rules(max_moves=3))
    game.replay([12, 25, 25])
    game.resume()
    assert game.is_truncated and not game.is_terminated


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"size": 9.0}, TypeError, "the board size must be an integer, not float"),
        ({"size": "9"}, TypeError, "the board size must be an integer, not str"),
        ({"size": True}, TypeError, "the board size must be an integer, not bool"),
        ({"size": 26}, ValueError, "board size must be between 2 and 25"),
        ({"size": 9, "handicap": 2.5}, TypeError, "the handicap must be an integer, not float"),
        ({"size": 9, "handicap": -1}, ValueError, "takes 2 to 9 stones"),
    ],
    ids=repr,
)
def test_bad_sizes_and_handicaps_are_refused(arguments, error, message):
    with pytest.raises(error, match=message):
        Game(**arguments)


def test_numpy_sizes_and_handicaps_are_integers():
    game = Game(np.int64(9), handicap=np.int8(2))
    assert (type(game.size), game.size, game.handicap, len(game.setup_black)) == (int, 9, 2, 2)


@pytest.mark.parametrize(
    ("black", "to_play", "error", "message"),
    [
        ([1.5], 1, TypeError, "a setup point must be an integer, not float"),
        (["3"], 1, TypeError, "a setup point must be an integer, not str"),
        ([2**70], 1, ValueError, "setup point off a 5x5 board"),
        ([-1], 1, ValueError, "setup point off a 5x5 board"),
        ([3], 3, ValueError, "to_play must be BLACK or WHITE"),
    ],
    ids=repr,
)
def test_setup_refuses_what_is_not_a_point(black, to_play, error, message):
    game = Game(5)
    with pytest.raises(error, match=message):
        game.setup(black, [], to_play)
    assert not game.board.any() and game.setup_black == []


def test_an_unpickled_game_shares_the_read_only_tables_the_kernels_are_compiled_for():
    import pickle

    from go_env.core import make_geometry

    game = Game(9, Rules())
    game.play(40)
    again = pickle.loads(pickle.dumps(game))  # as a process pool or Ray sends it
    assert again.geometry is make_geometry(9) and not again.geometry.neighbors.flags.writeable
    assert again.legal_moves().tolist() == game.legal_moves().tolist()
    again.play(41)
    assert again.moves == [40, 41]


# -- what a move's kernel call writes: the legal moves, the mask, the live planes ------------------


def test_play_answers_the_legal_moves_it_leaves_and_none_once_the_game_is_over():
    game = Game(5)
    legal = game.play(12)
    np.testing.assert_array_equal(legal, game.legal_moves())
    assert 12 not in legal and legal[-1] == game.pass_move
    game.play(game.pass_move)
    assert len(game.play(game.pass_move)) == 0 and game.is_over


def test_legal_moves_are_new_arrays_and_a_mask_held_is_left_as_it_was():
    game = Game(5)
    moves, mask = game.legal_moves(), game.legal_mask()
    moves[:] = -1  # a caller's own array: the game's list is untouched
    assert game.legal_moves()[0] == 0
    game.play(0)
    assert mask[0] == 1 and game.legal_mask()[0] == 0  # the mask held keeps the position it was of
    assert mask is not game.legal_mask()


def test_the_live_planes_follow_every_move_and_whatever_else_changes_the_game():
    game = Game(5)
    live = game.live_observation()
    for move in (12, 7, 13, game.pass_move):
        game.play(move)
        np.testing.assert_array_equal(live, game.observation())
    game.undo()
    assert game.live_observation() is live
    np.testing.assert_array_equal(live, game.observation())
    copy = game.copy()  # a copy has planes of its own, made when asked for
    copy.play(0)
    np.testing.assert_array_equal(live, game.observation())


def test_a_replayed_or_unpickled_game_reads_the_legal_moves_of_its_position():
    game = Game(5)
    game.replay([12, 7, 13])
    other = Game(5)
    for move in (12, 7, 13):
        other.play(move)
    np.testing.assert_array_equal(game.legal_mask(), other.legal_mask())
    np.testing.assert_array_equal(game.legal_moves(), other.legal_moves())


def test_the_score_is_counted_again_after_each_change():
    game = Game(5, Rules(komi=0.5))
    assert game.score() == -0.5
    game.play(12)
    assert game.score() == 24.5  # the lone stone's area: the whole board
    game.undo()
    assert game.score() == -0.5
