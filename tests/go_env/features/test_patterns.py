"""The rollout policy's pattern features on drawn positions."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, coords
from go_env.features import patterns as pt
from go_env.features.symmetry import SYMMETRIES, symmetry_maps
from tests.boards import CAPTURE, position

# Black C3 has one liberty, D3: D3 saves it.
IN_ATARI = """
. . . . .
. . O . .
. O X . .
. . O . .
. . . . .
"""
# B3 leaves a lone black stone with one liberty, C3.
SELF_ATARI = """
. . . . .
. O . . .
O . . . .
. O . . .
. . . . .
"""
# White A4 has two liberties: A5 and A3 take one each (A5 leaves Black with one liberty too).
ATARI = """
. . . . .
O X . . .
. . . . .
. . . . .
. . . . .
"""
# Black C4 takes White B4 and is left with one liberty, B4 (a ko); White C5 is left with one.
KO = """
. X O . .
X O . O .
. X O . .
. . . . .
. . . . .
"""


def features_at(game: Game, vertex: str) -> set[int]:
    features, legal = pt.position_features(game.state, game.geometry)
    move = coords.from_gtp(vertex, game.size)
    assert legal[move], f"{vertex} should be legal"
    return {int(f) for f in features[move] if f != pt.pattern_tables().num_features}


def tactical(features: set[int]) -> set[int]:
    return {f for f in features if f < pt.NUM_TACTICAL}


def random_game(size: int, moves: int, seed: int) -> Game:
    """A game of random moves (no passes) that ends with no ko point."""
    rng = np.random.default_rng(seed)
    game = Game(size)
    while len(game.moves) < moves or game.ko_point is not None:
        game.play(int(rng.choice(game.legal_moves()[:-1])))
    return game


def test_save_atari() -> None:
    assert tactical(features_at(position(IN_ATARI), "D3")) == {pt.SAVE_ATARI}


def test_capture_buckets_the_stones_taken() -> None:
    assert tactical(features_at(position(CAPTURE), "C2")) == {pt.CAPTURE + 1}  # two stones


def test_self_atari_of_one_stone() -> None:
    game = position(SELF_ATARI)
    assert tactical(features_at(game, "B3")) == {pt.SELF_ATARI}
    assert tactical(features_at(game, "C3")) == set()


def test_atari() -> None:
    game = position(ATARI)
    assert tactical(features_at(game, "A5")) == {pt.ATARI, pt.SELF_ATARI}
    assert tactical(features_at(game, "A3")) == {pt.ATARI}
    assert tactical(features_at(game, "E1")) == set()


def test_response_and_distance_follow_the_last_move() -> None:
    game = Game(9)
    game.play(coords.from_gtp("E5", 9))
    response_base = int(pt.pattern_tables().response_ids.min())
    near = features_at(game, "F6")  # a diagonal neighbour
    far = features_at(game, "A1")  # 8 points away
    assert tactical(near) == {pt.DISTANCE + 1}
    assert any(f >= response_base for f in near)
    assert tactical(far) == {pt.DISTANCE + 5}
    assert not any(f >= response_base for f in far)


def test_pass_has_only_its_own_feature() -> None:
    features, legal = pt.position_features(Game(5).state, Game(5).geometry)
    assert legal[25] == 1
    assert features[25, 0] == pt.PASS
    assert (features[25, 1:] == pt.pattern_tables().num_features).all()


def test_symmetric_positions_share_every_feature() -> None:
    game = random_game(7, 30, seed=3)
    board = game.state.board[:49]
    maps = symmetry_maps(7)
    original, _ = pt.record_features(board[None], [game.to_play], [game.last_move], 7)
    for k in range(SYMMETRIES):
        turned = np.empty_like(board)
        turned[maps[k, :49]] = board
        features, legal = pt.record_features(turned[None], [game.to_play], [maps[k, game.last_move]], 7)
        assert (legal[0, maps[k]] == game.legal_mask()).all()
        assert (np.sort(features[0, maps[k]], axis=1) == np.sort(original[0], axis=1)).all()


def test_records_and_states_agree() -> None:
    games = [random_game(9, moves, seed) for seed, moves in enumerate((0, 1, 25, 60, 90))]
    boards = np.stack([game.state.board[:81] for game in games])
    last = [-1 if game.last_move is None else game.last_move for game in games]
    features, legal = pt.record_features(boards, [game.to_play for game in games], last, 9)
    for b, game in enumerate(games):
        from_state, legal_in_state = pt.position_features(game.state, game.geometry)
        assert (legal[b] == legal_in_state).all()
        assert (features[b] == from_state).all()


def test_feature_lists_are_in_range() -> None:
    game = random_game(9, 70, seed=5)
    features, legal = pt.position_features(game.state, game.geometry)
    num_features = pt.pattern_tables().num_features
    assert ((features >= 0) & (features <= num_features)).all()
    assert (features[legal == 0] == num_features).all()  # illegal moves: padding only


def test_a_board_that_is_no_position_gets_no_moves() -> None:
    board = np.zeros(25, np.int8)
    board[0], board[1], board[5] = WHITE, BLACK, BLACK  # White A5 has no liberty
    _, legal = pt.record_features(board[None], [BLACK], [-1], 5)
    assert not legal.any()


@pytest.mark.parametrize(
    ("boards", "to_play", "last", "message"),
    [
        (np.zeros((1, 24), np.int8), [BLACK], [-1], "shaped"),
        (np.zeros((1, 25), np.int8), [3], [-1], "to_play"),
        (np.zeros((1, 25), np.int8), [BLACK], [26], "last_moves"),
        (np.full((1, 25), 3, np.int8), [BLACK], [-1], "EMPTY"),
    ],
)
def test_bad_records_are_refused(
    boards: np.ndarray, to_play: list[int], last: list[int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        pt.record_features(boards, to_play, last, 5)


def test_weights_round_trip(tmp_path) -> None:
    num_features = pt.pattern_tables().num_features
    weights = np.linspace(-1, 1, num_features, dtype=np.float32)
    pt.save_weights(tmp_path / "rollout.npz", weights, 9)
    policy, size = pt.load_weights(tmp_path / "rollout.npz")
    assert size == 9
    assert (policy.weights == weights).all()
    with pytest.raises(ValueError, match="shaped"):
        pt.save_weights(tmp_path / "short.npz", weights[:-1], 9)
    with pytest.raises(ValueError, match="within"):
        pt.save_weights(tmp_path / "sharp.npz", weights * 1000, 9)
    np.savez(tmp_path / "old.npz", weights=weights, layout_version=0, size=9)
    with pytest.raises(ValueError, match="layout 0"):
        pt.load_weights(tmp_path / "old.npz")


def test_a_ko_capture_leaves_one_liberty() -> None:
    game = position(KO)
    assert tactical(features_at(game, "C4")) == {pt.CAPTURE, pt.ATARI, pt.SELF_ATARI}
