import json
import zipfile

import pytest
import torch

from goarena.agents.nets import checkpoint
from goarena.agents.nets.checkpoint import (
    CheckpointError,
    describe,
    load_model,
    read_checkpoint,
    save_model,
    weights_digest,
)
from goarena.agents.nets.policy import PolicyNet


@pytest.fixture
def saved(tmp_path):
    torch.manual_seed(0)
    net = PolicyNet(5, layers=3, filters=4)
    path = tmp_path / "net.pt"
    return net, path, save_model(path, net)


def test_round_trip_rebuilds_the_same_network(saved):
    net, path, sha256 = saved
    loaded = load_model(path)
    planes = torch.rand(3, 48, 5, 5)
    assert isinstance(loaded, PolicyNet) and not loaded.training
    assert loaded.kwargs == {"board_size": 5, "planes": 48, "layers": 3, "filters": 4}
    assert torch.equal(loaded(planes), net.eval()(planes))
    assert weights_digest(path) == sha256 == checkpoint.state_digest(loaded.state_dict())


def test_file_loads_with_weights_only_and_describes_itself(saved):
    _, path, sha256 = saved
    contents = torch.load(path, weights_only=True)
    assert contents["arch"] == "policy" and contents["sha256"] == sha256
    assert describe(path) == ("policy", json.loads(contents["kwargs"]))


def test_training_state_travels_with_the_weights(tmp_path):
    net = PolicyNet(5, layers=2, filters=4)
    optimizer = torch.optim.Adam(net.parameters())
    net(torch.rand(2, 48, 5, 5)).sum().backward()
    optimizer.step()
    save_model(tmp_path / "last.pt", net, optimizer=optimizer.state_dict(), step=7)
    contents = read_checkpoint(tmp_path / "last.pt")
    assert contents["step"] == 7
    moments = [state["exp_avg"] for state in contents["optimizer"]["state"].values()]
    assert [m.shape for m in moments] == [p.shape for p in net.parameters()]


def test_truncated_file_is_refused(saved):
    _, path, _ = saved
    data = path.read_bytes()
    for length in (0, 10, len(data) // 2, len(data) - 10):
        path.write_bytes(data[:length])
        with pytest.raises(CheckpointError, match="not a readable checkpoint"):
            load_model(path)


def test_corrupt_weights_are_refused(saved):
    _, path, _ = saved
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:  # flip a byte inside the first tensor's data
        info = next(i for i in archive.infolist() if "/data/" in i.filename and i.file_size > 64)
    header = info.header_offset  # the local header's name and (alignment) extra field lengths:
    skip = int.from_bytes(data[header + 26 : header + 28], "little") + int.from_bytes(
        data[header + 28 : header + 30], "little"
    )
    offset = header + 30 + skip + info.file_size // 2
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt"):
        load_model(path)


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint file"):
        load_model(tmp_path / "absent.pt")


def rewrite(path, **changes):
    contents = torch.load(path, weights_only=True)
    contents.update(changes)
    torch.save(contents, path)


def test_unknown_architecture_is_refused(saved):
    _, path, _ = saved
    rewrite(path, arch="transformer")
    with pytest.raises(CheckpointError, match="unknown architecture 'transformer'"):
        load_model(path)


@pytest.mark.parametrize(
    "kwargs", [{"board_size": 5, "layers": 3, "filters": 8}, {"board_size": 5, "depth": 3}, [5]]
)
def test_arguments_that_do_not_fit_the_weights_are_refused(saved, kwargs):
    _, path, _ = saved
    rewrite(path, kwargs=json.dumps(kwargs))
    with pytest.raises(CheckpointError, match="policy|JSON object"):
        load_model(path)


def test_a_failed_save_keeps_the_old_file(saved, monkeypatch):
    _, path, sha256 = saved

    def crash(contents, file):
        file.write(b"half a checkpoint")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(OSError, match="disk full"):
        save_model(path, PolicyNet(5, layers=2, filters=4))
    assert weights_digest(path) == sha256
    assert [p.name for p in path.parent.iterdir()] == ["net.pt"]


def test_unregistered_module_is_refused(tmp_path):
    with pytest.raises(CheckpointError, match="Linear is not a registered architecture"):
        save_model(tmp_path / "x.pt", torch.nn.Linear(2, 2))
    assert not (tmp_path / "x.pt").exists()


def test_a_network_with_batch_norm_saves_and_loads(tmp_path):
    """Batch norm keeps a 0-dimensional step counter (``num_batches_tracked``) among its
    weights: it is digested as any other tensor."""
    from goarena.agents.nets.zero import ZeroNet

    net = ZeroNet(5, 1, 8)
    path = tmp_path / "zero.pt"
    sha256 = save_model(path, net)
    assert weights_digest(path) == sha256 == checkpoint.state_digest(load_model(path).state_dict())
    scalar = {"count": torch.tensor(7)}
    assert checkpoint.state_digest(scalar) != checkpoint.state_digest({"count": torch.tensor(8)})
