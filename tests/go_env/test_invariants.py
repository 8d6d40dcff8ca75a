"""``check_state``: sound states pass, and each invariant broken by hand is named."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from go_env import coords
from go_env import core as K
from go_env.game import Game
from go_env.invariants import InvariantError, check_state
from tests.boards import CAPTURE, HALF_POINT_KOMI, position

# After C2 takes the two white stones of CAPTURE: chains, captures and empties all moved.
CAPTURED = position(CAPTURE, HALF_POINT_KOMI)
CAPTURED.play(coords.from_gtp("C2", 5))
BLACK_WALL = coords.from_gtp("B4", 5)  # B4-B3, a chain of two
EMPTY_POINT = coords.from_gtp("C3", 5)  # emptied by the capture


def head(state: K.GoState) -> int:
    return int(state.chain_head[BLACK_WALL])


CORRUPTIONS: dict[str, tuple[str, Callable[[K.GoState], None]]] = {}


def breaks(invariant: str) -> Callable[[Callable[[K.GoState], None]], Callable[[K.GoState], None]]:
    """Register a corruption of a sound state, which ``invariant`` must catch."""

    def register(corrupt: Callable[[K.GoState], None]) -> Callable[[K.GoState], None]:
        CORRUPTIONS[corrupt.__name__] = (invariant, corrupt)
        return corrupt

    return register


@breaks("board")
def wall_removed(s: K.GoState) -> None:
    s.board[25] = K.EMPTY


@breaks("board")
def unknown_colour(s: K.GoState) -> None:
    s.board[EMPTY_POINT] = 7


@breaks("chain_head")
def two_heads(s: K.GoState) -> None:
    other = coords.from_gtp("B3", 5) if head(s) == BLACK_WALL else BLACK_WALL
    s.chain_head[other] = other


@breaks("chain_size")
def size_off(s: K.GoState) -> None:
    s.chain_size[head(s)] = 3


@breaks("chain_libs")
def liberty_too_many(s: K.GoState) -> None:
    s.chain_libs[head(s)] += 1


@breaks("chain_key")
def chain_key_off(s: K.GoState) -> None:
    s.chain_key[head(s)] ^= np.uint64(1)


@breaks("chain_next")
def ring_cut(s: K.GoState) -> None:
    s.chain_next[head(s)] = head(s)


@breaks("key")
def key_off(s: K.GoState) -> None:
    s.key[0] ^= np.uint64(1)


@breaks("seen")
def history_forgotten(s: K.GoState) -> None:
    s.seen[:] = 0


@breaks("empties")
def empty_point_unlisted(s: K.GoState) -> None:
    s.info[K.INFO_NUM_EMPTY] -= 1


@breaks("empty_index")
def empty_slots_swapped(s: K.GoState) -> None:
    a, b = s.empties[:2]
    s.empty_index[a], s.empty_index[b] = s.empty_index[b], s.empty_index[a]


@breaks("placed_at")
def empty_point_placed(s: K.GoState) -> None:
    s.placed_at[EMPTY_POINT] = 1


@breaks("recent")
def history_board_off(s: K.GoState) -> None:
    s.recent[1, EMPTY_POINT] = K.WHITE


@breaks("to_play")
def nobody_to_play(s: K.GoState) -> None:
    s.info[K.INFO_TO_PLAY] = K.EMPTY


@breaks("ko_point")
def ko_on_a_stone(s: K.GoState) -> None:
    s.info[K.INFO_KO_POINT] = BLACK_WALL


@breaks("captures")
def negative_captures(s: K.GoState) -> None:
    s.info[K.INFO_CAPTURES] = -1


@breaks("komi")
def komi_past_the_largest(s: K.GoState) -> None:
    s.info[K.INFO_KOMI] = 2 * 1000 + 1


@breaks("scoring")
def unknown_scoring(s: K.GoState) -> None:
    s.info[K.INFO_SCORING] = 2


@breaks("passes")
def pass_never_played(s: K.GoState) -> None:
    s.info[K.INFO_PASSES] = 1


@breaks("over")
def over_too_soon(s: K.GoState) -> None:
    s.info[K.INFO_OVER] = K.ENDED_BY_PASSES


def test_a_sound_state_passes():
    check_state(CAPTURED.state, CAPTURED.geometry)


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_a_broken_invariant_is_named(name):
    invariant, corrupt = CORRUPTIONS[name]
    state = K.copy_state(CAPTURED.state)
    corrupt(state)
    with pytest.raises(InvariantError, match=f"^{invariant}: "):
        check_state(state, CAPTURED.geometry)


@pytest.mark.parametrize(
    ("slot", "value", "invariant"),
    [
        (K.INFO_KOMI, 2 * 7, "komi"),  # the rules say 0.5
        (K.INFO_SCORING, K.SCORING_TERRITORY, "scoring"),
        (K.INFO_KO_RULE, K.KO_SIMPLE, "ko_rule"),
        (K.INFO_SUICIDE, 1, "suicide"),
        (K.INFO_MAX_MOVES, 3, "max_moves"),
    ],
)
def test_the_rules_slots_are_checked_against_the_rules(slot, value, invariant):
    check_state(CAPTURED.state, CAPTURED.geometry, rules=CAPTURED.rules)
    state = K.copy_state(CAPTURED.state)
    state.info[slot] = value
    check_state(state, CAPTURED.geometry)  # sound on its own: only the rules tell
    with pytest.raises(InvariantError, match=f"^{invariant}: .*but the rules give"):
        check_state(state, CAPTURED.geometry, rules=CAPTURED.rules)


def test_a_batch_is_checked_game_by_game():
    size = 5
    geometry = K.make_geometry(size)
    states = K.new_state(size, K.KO_POSITIONAL, 0, 100, 15, K.SCORING_AREA, batch=3)
    rng = np.random.default_rng(0)
    masks = np.empty((3, size * size + 1), np.int8)
    statuses = np.empty(3, np.int64)
    for _ in range(12):
        K.batch_legal_mask(states, geometry, masks)
        moves = np.array([rng.choice(np.flatnonzero(mask[:-1])) for mask in masks])  # no pass: no end
        K.batch_play(states, geometry, moves, statuses)
        check_state(states, geometry)
    states.key[1, 0] ^= np.uint64(1)
    with pytest.raises(InvariantError, match="^game 1 of the batch: key: "):
        check_state(states, geometry)


@pytest.mark.parametrize("size", [2, 5, 9])
def test_random_games_keep_every_invariant(size):
    """Seeded games played to the end; ``tests/go_env/core/test_rules.py`` checks many more."""
    rng = np.random.default_rng(size)
    for _ in range(3):
        game = Game(size)
        while not game.is_over:
            game.play(int(rng.choice(game.legal_moves())))
            check_state(game.state, game.geometry, rules=game.rules)
