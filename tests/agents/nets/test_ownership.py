"""The ownership network of seed 002: v(s, i) per point, V = Σ v + the komi term, the
calibrated win probability, its checkpoint, and the head it shares with AlphaZero's network."""

import json

import numpy as np
import pytest
import torch

from go_env import Game, Rules
from go_env import core as K
from go_env.features import history_planes, new_history_planes
from goarena.agents.inference.features import FeatureBuilder
from goarena.agents.nets.blocks import ValueHead
from goarena.agents.nets.checkpoint import FORMAT, describe, read_checkpoint, save_model, state_digest
from goarena.agents.nets.load import load_network
from goarena.agents.nets.ownership import (
    OwnershipHead,
    OwnershipNet,
    WinNet,
    calibrate,
    fit_logistic,
    komi_term,
)
from goarena.agents.nets.zero import ZeroNet
from goarena.agents.weights import OWNERSHIP_9X9, ZERO_9X9


def planes_of(size, moves=()):
    game = Game(size, Rules())
    for move in moves:
        game.play(move)
    out = new_history_planes(size)
    history_planes(game.state, game.geometry, out)
    return np.moveaxis(out, -1, 0).astype(np.float32)


@pytest.mark.parametrize("size", [5, 9, 13])
def test_one_value_per_point_in_the_open_interval_for_any_board(size):
    torch.manual_seed(0)
    model = OwnershipNet(size, blocks=2, filters=8).eval()
    planes = torch.tensor(np.stack([planes_of(size), planes_of(size, [0, size + 1])]))
    ownership = model(planes)
    assert ownership.shape == (2, size * size)
    assert (ownership.abs() < 1).all()
    with pytest.raises(ValueError, match=rf"expected planes of shape \[B, 17, {size}, {size}\]"):
        model(torch.zeros(1, 17, size + 1, size + 1))


def test_the_komi_term_is_the_komi_from_the_side_to_moves_view():
    assert komi_term(7.5, True) == -7.5  # Black to move gives the komi
    assert komi_term(7.5, False) == 7.5  # White to move receives it
    np.testing.assert_array_equal(komi_term(np.array([7.0, 5.5]), np.array([True, False])), [-7.0, 5.5])


def test_v_is_the_sum_of_ownership_plus_the_komi_term_and_positive_means_the_mover_wins():
    ownership = torch.tensor([[1.0, 1.0, -1.0, 0.5], [1.0, 1.0, -1.0, 0.5]])
    komi = torch.tensor(komi_term(np.array([1.0, 1.0]), np.array([True, False])), dtype=torch.float32)
    scores = OwnershipNet.score(ownership, komi)
    np.testing.assert_allclose(scores.numpy(), [0.5, 2.5])  # Black gives a point, White gets one
    model = OwnershipNet(2, blocks=1, filters=2)
    p = model.win_probability(scores)
    assert (p > 0.5).all() and p[1] > p[0]
    assert model.win_probability(torch.tensor([0.0])).item() == pytest.approx(0.5)  # b = 0 uncalibrated


def test_calibration_recovers_a_known_logistic():
    rng = np.random.default_rng(0)
    scores = rng.uniform(-30, 30, 20_000)
    p = 1 / (1 + np.exp(-(0.15 * scores - 0.4)))
    outcomes = np.where(rng.random(len(p)) < p, 1.0, -1.0)
    a, b = fit_logistic(scores, outcomes)
    assert a == pytest.approx(0.15, abs=0.01)
    assert b == pytest.approx(-0.4, abs=0.06)


def test_calibrate_fits_the_networks_v_and_stores_the_map_in_its_weights(tmp_path):
    torch.manual_seed(0)
    model = OwnershipNet(5, blocks=1, filters=4)
    rng = np.random.default_rng(1)
    planes = np.stack([planes_of(5, rng.choice(25, 4, replace=False).tolist()) for _ in range(50)])
    planes = np.repeat(planes, 40, axis=0)
    komi_terms = rng.uniform(-25, 25, len(planes))
    with torch.inference_mode():
        scores = model.eval()(torch.tensor(planes)).sum(1).numpy() + komi_terms
    p = 1 / (1 + np.exp(-(0.2 * scores + 0.3)))
    outcomes = np.where(rng.random(len(p)) < p, 1.0, -1.0)
    model.train()
    a, b = calibrate(model, planes, komi_terms, outcomes, batch=300)
    assert model.training  # left as it was
    assert a == pytest.approx(0.2, abs=0.02) and b == pytest.approx(0.3, abs=0.1)
    assert model.calibration == (pytest.approx(a), pytest.approx(b))
    save_model(tmp_path / "own.pt", model)
    assert load_network(tmp_path / "own.pt", "ownership").model.calibration == model.calibration


def test_calibration_refuses_what_it_cannot_fit():
    with pytest.raises(ValueError, match="both wins and losses"):
        fit_logistic(np.arange(4.0), np.ones(4))
    with pytest.raises(ValueError, match=r"\+1 \(a win\), -1 \(a loss\)"):
        fit_logistic(np.arange(4.0), np.array([1.0, -1.0, 2.0, 0.0]))
    with pytest.raises(ValueError, match="komi_terms"):
        calibrate(OwnershipNet(5, blocks=1, filters=2), np.zeros((3, 17, 5, 5)), np.zeros(2), np.ones(3))
    a, b = fit_logistic(np.array([-2.0, -1.0, 1.0, 2.0]), np.array([-1.0, -1.0, 1.0, 1.0]))
    assert np.isfinite([a, b]).all() and a > 0  # separable: large, but finite


def test_checkpoint_round_trip_with_weights_only(tmp_path):
    torch.manual_seed(0)
    model = OwnershipNet(7, blocks=3, filters=8).eval()
    model.calibration_a.fill_(0.3)
    path = tmp_path / "ownership.pt"
    save_model(path, model)
    contents = torch.load(path, weights_only=True)
    assert contents["arch"] == "ownership"
    assert {"calibration_a", "calibration_b"} <= contents["state_dict"].keys()
    network = load_network(path, "ownership")
    assert network.board_size == 7 and network.model.calibration == pytest.approx((0.3, 0.0))
    planes = torch.tensor(planes_of(7, [3, 10])[None])
    with torch.inference_mode():
        torch.testing.assert_close(network.model(planes), model(planes))
    with pytest.raises(ValueError, match="holds a 'ownership' network, not a value network"):
        load_network(path, "value")
    kwargs = {"board_size": 7, "blocks": 3, "filters": 8, "global_pool": True}
    assert json.loads(read_checkpoint(path)["kwargs"]) == kwargs


def old_file(path, model, **kwargs):
    """``model`` saved as files were before the win network had its own class: arch
    "ownership", with ``kwargs`` added to its arguments."""
    state_dict = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    old = {**model.kwargs, **kwargs}
    contents = {"format": FORMAT, "arch": "ownership", "kwargs": json.dumps(old), "state_dict": state_dict}
    contents["sha256"] = state_digest(state_dict)
    torch.save(contents, path)
    return path


@pytest.mark.parametrize("head", [None, "ownership"])
def test_a_file_written_before_the_win_class_loads_as_an_ownership_network(tmp_path, head):
    torch.manual_seed(0)
    model = OwnershipNet(5, blocks=1, filters=4).eval()
    model.calibration_a.fill_(0.25)
    path = old_file(tmp_path / "old.pt", model, **({} if head is None else {"head": head}))
    loaded = load_network(path, "ownership").model
    assert type(loaded) is OwnershipNet and loaded.heads == ("ownership",)
    assert loaded.calibration == pytest.approx((0.25, 0.0))
    planes = torch.tensor(planes_of(5, [6, 12])[None])
    with torch.inference_mode():
        torch.testing.assert_close(loaded(planes), model(planes))


def test_a_win_network_saved_as_an_ownership_one_with_head_win_loads_as_a_win_network(tmp_path):
    torch.manual_seed(0)
    model = WinNet(5, blocks=1, filters=4).eval()
    path = old_file(tmp_path / "old-win.pt", model, head="win")
    assert describe(path) == ("win", {"board_size": 5, "blocks": 1, "filters": 4, "global_pool": True})
    for kind in ("ownership", "value"):  # a value of a position, wherever one is asked for
        loaded = load_network(path, kind).model
        assert type(loaded) is WinNet and loaded.heads == ("value",)
        planes = torch.tensor(planes_of(5, [6, 12])[None])
        with torch.inference_mode():
            torch.testing.assert_close(loaded(planes), model(planes))


def test_the_win_network_gives_one_value_per_position_on_the_same_trunk(tmp_path):
    torch.manual_seed(0)
    win = WinNet(9, blocks=2, filters=8).eval()
    ownership = OwnershipNet(9, blocks=2, filters=8)
    assert win.heads == ("value",) and ownership.heads == ("ownership",)
    assert win.features == ownership.features and win.features.kind == "history"
    assert type(win.win_head) is ValueHead and not hasattr(win, "ownership_head")
    trunk = {key for key in ownership.state_dict() if key.startswith(("stem", "tower"))}
    assert trunk == {key for key in win.state_dict() if key.startswith(("stem", "tower"))}
    assert {key for key in win.state_dict() if not key.startswith(("stem", "tower"))} == {
        "win_head.0.weight", "win_head.0.bias", "win_head.2.weight", "win_head.2.bias"
    }  # fmt: skip  # no calibration: its p is its own
    weights = [sum(p.numel() for p in net.parameters()) for net in (win, ownership)]
    assert weights[0] - weights[1] == (2 * 8 * 64 + 64 + 64 + 1) - (8 + 1)  # the heads' difference
    planes = torch.tensor(np.stack([planes_of(9), planes_of(9, [40, 30])]))
    with torch.inference_mode():
        w = win(planes)
    assert w.shape == (2,) and (w.abs() < 1).all()
    torch.testing.assert_close(win.probability(w, torch.tensor([7.0, -7.0])), (1 + w) / 2)  # komi unused
    assert win.calibration is None and not hasattr(win, "win_probability")  # no V
    with pytest.raises(ValueError, match="needs no calibration"):
        calibrate(win, planes.numpy(), np.zeros(2), np.array([1.0, -1.0]))
    with torch.inference_mode():  # an ownership network's probability is its calibrated V's
        v = ownership.eval()(planes)
        komi = torch.tensor([-7.0, 7.0])
        torch.testing.assert_close(ownership.probability(v, komi), ownership.win_probability(v.sum(1) + komi))
    path = tmp_path / "win.pt"
    save_model(path, win)
    assert describe(path) == ("win", {"board_size": 9, "blocks": 2, "filters": 8, "global_pool": True})
    loaded = load_network(path, "ownership").model
    assert type(loaded) is WinNet
    with torch.inference_mode():
        torch.testing.assert_close(loaded(planes), w)
    with pytest.raises(ValueError, match="holds a 'win' network, not a zero network"):
        load_network(path, "zero")


def test_the_zero_network_carries_the_same_head_with_its_old_keys():
    model = ZeroNet(9, blocks=1, filters=4)
    assert type(model.ownership_head) is OwnershipHead
    assert isinstance(model.ownership_head, torch.nn.Conv2d)
    keys = [key for key in model.state_dict() if key.startswith("ownership_head")]
    assert keys == ["ownership_head.weight", "ownership_head.bias"]
    assert type(model.value_head) is ValueHead  # the win network's head too
    assert [key for key in model.state_dict() if key.startswith("value_head")] == [
        "value_head.0.weight", "value_head.0.bias", "value_head.2.weight", "value_head.2.bias"
    ]  # fmt: skip
    trunk = torch.randn(2, 4, 9, 9)
    head = model.ownership_head
    expected = torch.tanh(torch.nn.functional.conv2d(trunk, head.weight, head.bias).flatten(1))
    torch.testing.assert_close(head(trunk), expected)


# The shipped zero network's outputs on three positions: a guard on ZeroNet's layout (its
# weights' names and computation, shared with OwnershipNet's trunk and heads). They were
# computed with the code before those modules were shared, and again for each new shipped file.
SHIPPED_POSITIONS = [[], [40, 30, 50, 20], [40, 30, 50, 20, 41, 31, 49, 39, 32, 22, 81, 23, 24]]
SHIPPED_VALUES = [-0.1329585313796997, -0.17653612792491913, 0.304485559463501]
SHIPPED_OWNERSHIP_SUMS = [-4.803559303283691, -4.8342976570129395, 11.266895294189453]
SHIPPED_OWNERSHIP = [  # points 0, 40, 80
    [-0.08023571223020554, 0.09415178000926971, -0.050859034061431885],
    [-0.42920950055122375, 0.5356119871139526, 0.05333178490400314],
    [0.5496860146522522, -0.689664363861084, -0.13923335075378418],
]
SHIPPED_LOGITS = [  # points 0, 40 and the pass
    [-10.46219253540039, 1.3295056819915771, -2.854496717453003],
    [-9.960546493530273, -18.223060607910156, -3.729180097579956],
    [-8.62263011932373, -15.892962455749512, -4.518397808074951],
]
SHIPPED_SCORES = [-3.041959524154663, -3.9414725303649902, 4.300356388092041]  # points, side to move


def planes_with_rules(size, moves, komi):
    """The 19 planes the shipped network reads: the history planes and the rules planes."""
    game = Game(size, Rules(komi=komi))
    for move in moves:
        game.play(move)
    states = K.GoState(*(field[None] for field in game.state))
    return np.moveaxis(FeatureBuilder("history", 19).build(states, game.geometry), -1, 1)[0].astype(
        np.float32
    )


def test_the_shipped_zero_network_loads_and_gives_its_recorded_outputs():
    contents = torch.load(ZERO_9X9, weights_only=True)
    assert {"ownership_head.weight", "ownership_head.bias"} <= contents["state_dict"].keys()
    model = load_network(ZERO_9X9, "zero").model
    assert model.planes == 19 and model.heads == ("policy", "value", "ownership", "score")  # komi read
    planes = torch.tensor(np.stack([planes_with_rules(9, moves, 7.0) for moves in SHIPPED_POSITIONS]))
    with torch.inference_mode():
        output = model(planes)
    close = {"rtol": 0, "atol": 1e-5}
    np.testing.assert_allclose(output.value.numpy(), SHIPPED_VALUES, **close)
    np.testing.assert_allclose(output.ownership.sum(1).numpy(), SHIPPED_OWNERSHIP_SUMS, atol=1e-4)
    np.testing.assert_allclose(output.ownership[:, [0, 40, 80]].numpy(), SHIPPED_OWNERSHIP, **close)
    np.testing.assert_allclose(output.logits[:, [0, 40, 81]].numpy(), SHIPPED_LOGITS, **close)
    np.testing.assert_allclose(output.score.numpy(), SHIPPED_SCORES, atol=1e-4)


OWNERSHIP_SHIPPED_SUMS = [3.6247875690460205, 12.735132217407227, -1.1425764560699463]
OWNERSHIP_SHIPPED_POINTS = [
    [0.08284000307321548, 0.1554575264453888, -0.13707701861858368],
    [-0.848093569278717, 0.9111446142196655, 0.7308608889579773],
    [0.9218957424163818, -0.9779940843582153, -0.8788748979568481],
]  # points 0, 40, 80
OWNERSHIP_SHIPPED_CALIBRATION = [0.22706149518489838, -0.012968265451490879]


def test_the_shipped_ownership_network_loads_and_gives_its_recorded_outputs():
    network = load_network(OWNERSHIP_9X9, "ownership")
    model = network.model
    assert network.board_size == 9 and model.heads == ("ownership",)
    np.testing.assert_allclose(model.calibration, OWNERSHIP_SHIPPED_CALIBRATION, rtol=0, atol=1e-9)
    planes = torch.tensor(np.stack([planes_of(9, moves) for moves in SHIPPED_POSITIONS]))
    with torch.inference_mode():
        ownership = model(planes)
    np.testing.assert_allclose(ownership.sum(1).numpy(), OWNERSHIP_SHIPPED_SUMS, atol=1e-4)
    np.testing.assert_allclose(ownership[:, [0, 40, 80]].numpy(), OWNERSHIP_SHIPPED_POINTS, rtol=0, atol=1e-5)
