"""ZeroNet with every head: the rules planes as input, the score head, old files unchanged, and
``widen_from`` starting a new network from an old one's weights, playing as it did."""

from __future__ import annotations

import pytest
import torch

from goarena.agents.nets.checkpoint import load_model, save_model
from goarena.agents.nets.features import HISTORY, HISTORY_AND_RULES
from goarena.agents.nets.zero import ZeroNet, widen_from


def planes_with_rules(count: int, komi_half_points: list[int], territory: int = 0) -> torch.Tensor:
    torch.manual_seed(1)
    planes = torch.zeros(count, 19, 5, 5)
    planes[:, :17] = torch.randint(0, 2, (count, 17, 5, 5)).float()
    planes[:, 17] = torch.tensor(komi_half_points, dtype=torch.float32)[:, None, None]
    planes[:, 18] = territory
    return planes


def test_without_the_options_the_network_is_the_old_one():
    model = ZeroNet(5, blocks=1, filters=8)
    assert model.heads == ("policy", "value", "ownership") and model.features == HISTORY
    assert model.kwargs == {"board_size": 5, "blocks": 1, "filters": 8, "global_pool": True}
    assert model(torch.zeros(2, 17, 5, 5)).score is None


def test_every_head_and_the_komi_as_input():
    torch.manual_seed(0)
    model = ZeroNet(5, blocks=2, filters=8, rules_input=True, score_head=True).eval()
    assert model.heads == ("policy", "value", "ownership", "score")
    assert model.features == HISTORY_AND_RULES and model.planes == 19
    torch.nn.init.normal_(model.rules_input.weight)
    planes = planes_with_rules(2, [15, 15])
    other_komi = planes.clone()
    other_komi[:, 17] = -15
    with torch.no_grad():
        output, moved = model(planes), model(other_komi)
    assert output.logits.shape == (2, 26) and output.ownership.shape == (2, 25)
    assert output.score is not None and output.score.shape == (2,)
    assert not torch.allclose(output.value, moved.value)  # the komi reaches every head
    assert not torch.allclose(output.score, moved.score)
    with pytest.raises(ValueError, match=r"\[B, 19, 5, 5\]"):
        model(torch.zeros(1, 17, 5, 5))


def test_a_network_with_every_head_comes_back_from_its_file(tmp_path):
    model = ZeroNet(5, blocks=1, filters=8, rules_input=True, score_head=True).eval()
    save_model(tmp_path / "zero.pt", model)
    loaded = load_model(tmp_path / "zero.pt")
    assert loaded.heads == model.heads and loaded.planes == 19
    planes = planes_with_rules(3, [15, -15, 49], territory=1)
    with torch.no_grad():
        for got, expected in zip(loaded(planes), model(planes), strict=True):
            torch.testing.assert_close(got, expected)


def test_widened_from_an_old_network_it_plays_exactly_as_that_one_at_any_komi():
    torch.manual_seed(2)
    old = ZeroNet(5, blocks=3, filters=8).eval()
    for parameter in old.parameters():  # weights far from their start
        parameter.data.add_(0.1 * torch.randn_like(parameter))
    new = ZeroNet(5, blocks=3, filters=8, rules_input=True, score_head=True).eval()
    missing = widen_from(new, old.state_dict())
    assert "rules_input.weight" in missing and "score_head.2.weight" in missing
    assert not any(name.startswith(("stem", "tower", "value_head")) for name in missing)
    planes = planes_with_rules(4, [15, -15, 49, 0], territory=1)
    with torch.no_grad():
        before, after = old(planes[:, :17]), new(planes)
    torch.testing.assert_close(after.logits, before.logits, rtol=0, atol=0)
    torch.testing.assert_close(after.value, before.value, rtol=0, atol=0)
    torch.testing.assert_close(after.ownership, before.ownership, rtol=0, atol=0)
    assert after.score is not None and (after.score == 0).all()


def test_widening_refuses_weights_of_another_shape():
    new = ZeroNet(5, blocks=1, filters=8, rules_input=True, score_head=True)
    with pytest.raises(ValueError, match="stem.0.weight"):
        widen_from(new, ZeroNet(5, blocks=1, filters=16).state_dict())
    with pytest.raises(ValueError, match="lacks"):
        widen_from(new, ZeroNet(5, blocks=2, filters=8).state_dict())


@pytest.mark.parametrize("flag", [1, "yes", None])
def test_the_options_are_true_or_false(flag):
    with pytest.raises(ValueError, match="true or false"):
        ZeroNet(5, blocks=1, filters=8, rules_input=flag)


def _trained_looking(model: ZeroNet) -> ZeroNet:
    """``model`` with batch norms whose statistics and affine terms are far from the identity."""
    torch.manual_seed(3)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.normal_()
            module.running_var.uniform_(0.2, 3.0)
            torch.nn.init.normal_(module.weight)
            torch.nn.init.normal_(module.bias)
    if model.rules_input is not None:
        torch.nn.init.normal_(model.rules_input.weight)
    return model.eval()


@pytest.mark.parametrize("rules_input", [False, True])
def test_batch_norms_folded_into_the_convolutions_give_the_same_outputs(rules_input):
    model = _trained_looking(ZeroNet(5, blocks=3, filters=8, rules_input=rules_input, score_head=True))
    planes = planes_with_rules(4, [15, -15, 49, 0]) if rules_input else torch.rand(4, 17, 5, 5).round()
    with torch.no_grad():
        expected = model(planes)
        model.fold_batch_norms()
        folded = model(planes)
    assert not any(isinstance(module, torch.nn.BatchNorm2d) for module in model.modules())
    for got, want in zip(folded, expected, strict=True):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-4)


def test_a_loaded_network_comes_folded_and_in_the_precision_asked(tmp_path):
    from goarena.agents.nets.load import load_network

    model = _trained_looking(ZeroNet(5, blocks=1, filters=8, rules_input=True, score_head=True))
    save_model(tmp_path / "zero.pt", model)
    planes = planes_with_rules(2, [15, -15])
    loaded = load_network(tmp_path / "zero.pt", "zero").model
    assert not any(isinstance(module, torch.nn.BatchNorm2d) for module in loaded.modules())
    with torch.no_grad():
        torch.testing.assert_close(loaded(planes).value, model(planes).value, atol=1e-5, rtol=1e-4)
    half = load_network(tmp_path / "zero.pt", "zero", precision="bfloat16").model
    assert next(half.parameters()).dtype == torch.bfloat16
    with torch.no_grad():
        got = half(planes.to(torch.bfloat16)).value.float()
    torch.testing.assert_close(got, model(planes).value, atol=0.05, rtol=0.05)


def test_the_board_pooling_in_bfloat16_is_the_float32_pooling_rounded():
    from goarena.agents.nets.blocks import mean_and_max

    x = torch.randn(3, 8, 5, 5).to(torch.bfloat16)
    expected = torch.cat([x.float().mean(dim=(2, 3)), x.float().amax(dim=(2, 3))], dim=1).to(torch.bfloat16)
    assert torch.equal(mean_and_max(x), expected)
    assert torch.equal(mean_and_max(x.contiguous(memory_format=torch.channels_last)), expected)
