import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from go_env import Rules
from go_env.features.patterns import pattern_tables, save_weights
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.load import NetworkFileError, check_sizes, load_network
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.value import ValueNet
from goarena.agents.protocols import GameContext, UnsupportedGame
from goarena.agents.specs import AgentSpecError, check_spec, make_agent


def flip_a_weight(path: Path) -> None:
    """Flip a byte inside the first large tensor's data: the file stays a valid zip."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = next(i for i in archive.infolist() if "/data/" in i.filename and i.file_size > 64)
    header = info.header_offset
    skip = int.from_bytes(data[header + 26 : header + 28], "little") + int.from_bytes(
        data[header + 28 : header + 30], "little"
    )
    data[header + 30 + skip + info.file_size // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with zipfile.ZipFile(path) as archive:
        assert archive.namelist()  # still a zip


@pytest.fixture
def policy(tmp_path):
    torch.manual_seed(0)
    path = tmp_path / "sl.pt"
    save_model(path, PolicyNet(9, layers=2, filters=4))
    return path


@pytest.fixture
def value(tmp_path):
    path = tmp_path / "value.pt"
    save_model(path, ValueNet(7, layers=2, filters=4, hidden=8))
    return path


@pytest.fixture
def rollout(tmp_path):
    path = tmp_path / "rollout.npz"
    save_weights(path, np.zeros(pattern_tables().num_features, np.float32), 9)
    return path


def test_each_kind_loads_with_its_size_and_digest(policy, value, rollout):
    loaded = [load_network(policy, "policy"), load_network(value, "value"), load_network(rollout, "rollout")]
    assert [network.board_size for network in loaded] == [9, 7, 9]
    assert all(len(network.digest) == 64 for network in loaded)
    assert not loaded[0].model.training


def test_a_network_of_another_kind_is_refused(policy):
    with pytest.raises(NetworkFileError, match=r"sl\.pt: holds a 'policy' network, not a value network"):
        load_network(policy, "value")


@pytest.mark.parametrize(
    "spec", ["sl-policy:weights='{policy}'", "puct:prior='{policy}'", "alphago:prior='{policy}'"]
)
def test_a_bit_flipped_checkpoint_is_refused_by_the_pre_check(policy, rollout, spec):
    flip_a_weight(policy)
    spec = spec.format(policy=policy)
    if spec.startswith("alphago"):
        spec += f",rollout_weights='{rollout}',value=None"
    with pytest.raises(AgentSpecError, match=rf"{policy}: the weights do not match their sha256"):
        check_spec(spec, GameContext(9, Rules()))


def test_a_bit_flipped_value_network_is_refused_by_the_pre_check(value):
    flip_a_weight(value)
    with pytest.raises(AgentSpecError, match="do not match their sha256"):
        check_spec(f"value-greedy:weights='{value}'", GameContext(7, Rules()))


def _rewrite(path: Path, weights: np.ndarray) -> None:
    version = int(np.load(path)["layout_version"])
    with open(path, "wb") as file:
        np.savez(file, weights=weights, layout_version=version, size=9)


def _nan(path: Path) -> None:
    weights = np.zeros(pattern_tables().num_features, np.float32)
    weights[3] = np.nan
    _rewrite(path, weights)


def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _wrong_shape(path: Path) -> None:
    _rewrite(path, np.zeros(7, np.float32))


def _npy(path: Path) -> None:
    with open(path, "wb") as file:
        np.save(file, np.zeros(7, np.float32))


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (_nan, "weights must be finite"),
        (_cut, r"not a readable \.npz \(cut short or corrupt\?\)"),
        (_wrong_shape, r"weights shaped \(7,\)"),
        (_npy, r"a single \.npy array, not an \.npz"),
    ],
)
def test_bad_rollout_weights_are_refused_naming_the_file(rollout, damage, problem):
    damage(rollout)
    with pytest.raises(NetworkFileError, match=rf"^{rollout}: {problem}"):
        load_network(rollout, "rollout")
    for spec in (f"rollout-policy:weights='{rollout}'", f"uct:rollout_weights='{rollout}'"):
        with pytest.raises(AgentSpecError, match=rf"{rollout}: {problem}"):
            check_spec(spec, GameContext(9, Rules()))
        with pytest.raises(AgentSpecError, match=rf"{rollout}: {problem}"):
            make_agent(spec)


def test_networks_of_mixed_sizes_name_each_file(policy, value):
    spec = f"puct:prior='{policy}',value='{value}'"
    message = r"value\.pt was trained for 7x7, sl\.pt for 9x9"
    with pytest.raises(AgentSpecError, match=message):
        check_spec(spec, GameContext(9, Rules()))
    with pytest.raises(UnsupportedGame, match=message):
        make_agent(spec).reset(GameContext(9, Rules()))
    with pytest.raises(AgentSpecError, match=message):
        check_spec(f"alphago:prior='{policy}',value='{value}'", GameContext(9, Rules()))


def test_networks_of_one_size_name_it_and_the_board_asked_for(policy, rollout):
    networks = [load_network(policy, "policy"), load_network(rollout, "rollout")]
    check_sizes(networks, 9)
    with pytest.raises(UnsupportedGame, match=r"sl\.pt, rollout\.npz were trained for 9x9, not 19x19"):
        check_sizes(networks, 19)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_weights_holding_nan_or_infinity_are_refused_at_load_naming_the_file(tmp_path, bad):
    torch.manual_seed(0)
    network = PolicyNet(9, layers=2, filters=4)
    name, weight = next(
        (name, tensor) for name, tensor in network.state_dict().items() if tensor.is_floating_point()
    )
    weight.view(-1)[0] = bad
    path = tmp_path / "diverged.pt"
    save_model(path, network)  # its digest matches: the file is intact, its weights are not
    message = rf"{path}: its weight '{name}' holds NaN or infinite values"
    with pytest.raises(NetworkFileError, match=message):
        load_network(path, "policy")
    for build in (make_agent, lambda spec: check_spec(spec, GameContext(9, Rules()))):
        with pytest.raises(AgentSpecError, match=message):
            build(f"sl-policy:weights='{path}'")


def bomb(path: Path, source: Path) -> Path:
    """``source`` with one more entry: 100 MiB of zeros, deflated to about 100 KiB."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(path, "w") as copy:
        for name in original.namelist():
            copy.writestr(name, original.read(name))
        root = original.namelist()[0].partition("/")[0]
        copy.writestr(f"{root}/data/99", bytes(100 << 20), zipfile.ZIP_DEFLATED)
    return path


def test_a_zip_bomb_is_refused_before_it_is_decompressed(policy, rollout, tmp_path):
    for source, kind in ((policy, "policy"), (rollout, "rollout")):
        path = bomb(tmp_path / f"bomb-{source.name}", source)
        assert path.stat().st_size < 1 << 20
        with pytest.raises(
            NetworkFileError, match=rf"{path}: its entries unpack to 100\.\d MiB .*a zip bomb"
        ):
            load_network(path, kind)
