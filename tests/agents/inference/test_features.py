"""One builder per kind of features: its planes are the kernels' own, each network's view is the
layout it declares, and the buffer is reused."""

import numpy as np
import pytest

from go_env import Game, Rules
from go_env.features import planes_in_layout
from go_env.features.alphago import game_planes
from goarena.agents.inference.features import FeatureBuilder, arrange, planes_of
from goarena.agents.nets.features import HISTORY, Features
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.value import ValueNet
from goarena.agents.nets.zero import ZeroNet

SIZE = 5


def games() -> list[Game]:
    rng = np.random.default_rng(0)
    found = []
    for length in (0, 3, 8):
        game = Game(SIZE, Rules(komi=7))
        for _ in range(length):
            game.play(int(rng.choice(game.legal_moves())))
        found.append(game)
    return found


def batched(found: list[Game]):
    return type(found[0].state)(*(np.stack(field) for field in zip(*(g.state for g in found), strict=True)))


def test_each_network_declares_what_it_reads():
    assert PolicyNet(SIZE, layers=2, filters=4).features == Features("alphago", 48)
    assert ValueNet(SIZE, layers=2, filters=4).features == Features("alphago", 49)
    assert PolicyNet(SIZE, planes=49, layers=2, filters=4).features.planes == 49
    for network in (ZeroNet(SIZE, 1, 4), OwnershipNet(SIZE, 1, 4), WinNet(SIZE, 1, 4)):
        assert network.features == HISTORY == Features("history", 17, "goarena", True, None)


@pytest.mark.parametrize(
    ("kind", "planes", "layout", "channels_first"),
    [("nine", 48, "goarena", True), ("alphago", 50, "goarena", True), ("alphago", 48, "pgx", True),
     ("alphago", 48, "goarena", False), ("history", 16, "goarena", True), ("history", 17, "chess", True)],
)  # fmt: skip
def test_bad_declarations_are_refused(kind, planes, layout, channels_first):
    with pytest.raises(ValueError):
        Features(kind, planes, layout, channels_first)


def test_alphagos_planes_are_the_kernels_in_one_call_and_a_network_reads_the_first_ones():
    found = games()
    builder = FeatureBuilder("alphago", 49)
    raw = builder.build(batched(found), found[0].geometry)
    expected = np.stack([game_planes(g, player_colour=True) for g in found])
    np.testing.assert_array_equal(raw, expected)
    np.testing.assert_array_equal(arrange(raw, Features("alphago", 48)), expected[:, :48])
    assert builder.calls == 1
    again = builder.build(batched(found[:2]), found[0].geometry)
    assert np.shares_memory(again, raw)  # the buffer reused


@pytest.mark.parametrize("layout", ["goarena", "pgx", "go_v5"])
@pytest.mark.parametrize("channels_first", [True, False])
def test_history_planes_in_each_layout_are_the_observations(layout, channels_first):
    found = games()
    features = Features("history", 17, layout, channels_first, "float32")
    planes = planes_of(batched(found), found[0].geometry, features)
    expected = np.stack(
        [planes_in_layout(g.observation(), channels_first, np.float32, layout) for g in found]
    )
    np.testing.assert_array_equal(planes, expected)
    assert planes.dtype == np.float32


def test_the_history_planes_zero_reads_are_the_old_evaluators():
    found = games()
    planes = planes_of(batched(found), found[0].geometry, ZeroNet.features)
    old = np.stack([np.moveaxis(g.observation(), -1, 0) for g in found])  # what the zero network read
    assert planes.dtype == np.int8 and planes.flags.c_contiguous
    np.testing.assert_array_equal(planes, old)


def test_the_rules_planes_hold_the_komi_for_the_side_to_move_and_the_scoring():
    found = [Game(SIZE, Rules(komi=24.5)), Game(SIZE, Rules(komi=7, scoring="territory"))]
    found[1].play(12)  # White to move: receives the komi
    raw = FeatureBuilder("history", 19).build(batched(found), found[0].geometry)
    assert raw.shape == (2, SIZE, SIZE, 19)
    np.testing.assert_array_equal(raw[..., :17], np.stack([g.observation() for g in found]))
    assert (raw[0, ..., 17] == -49).all() and (raw[0, ..., 18] == 0).all()  # Black gives 24.5
    assert (raw[1, ..., 17] == 14).all() and (raw[1, ..., 18] == 1).all()


@pytest.mark.parametrize("layout", ["goarena", "pgx"])
@pytest.mark.parametrize("channels_first", [True, False])
def test_a_network_reading_the_rules_gets_them_after_the_history_planes_in_its_layout(layout, channels_first):
    found = games()
    raw = FeatureBuilder("history", 19).build(batched(found), found[0].geometry)
    features = Features("history", 19, layout, channels_first, "float32")
    planes = arrange(raw, features)
    history = arrange(raw, Features("history", 17, layout, channels_first, "float32"))
    axis = 1 if channels_first else -1
    assert planes.shape[axis] == 19 and planes.dtype == np.float32
    np.testing.assert_array_equal(np.take(planes, range(17), axis=axis), history)
    np.testing.assert_array_equal(
        np.take(planes, 17, axis=axis), np.full((3, SIZE, SIZE), -14.0) * [[[1]], [[-1]], [[1]]]
    )
    assert (arrange(raw, HISTORY) == planes_of(batched(found), found[0].geometry, HISTORY)).all()


def test_a_komi_beyond_the_planes_range_is_refused():
    game = Game(SIZE, Rules(komi=70))
    with pytest.raises(ValueError, match="komi within"):
        FeatureBuilder("history", 19).build(batched([game]), game.geometry)
    with pytest.raises(ValueError, match="17, or 19"):
        FeatureBuilder("history", 18)
