"""Self-describing checkpoints: a network comes back from its file alone.

A file holds the architecture's name, its constructor's keyword arguments (as JSON), the
``state_dict`` and the sha256 of the weights; a training checkpoint adds the optimizer's
state, the step, the random generators' states and the run's config. Everything in it is
what ``torch.load(..., weights_only=True)`` accepts, so loading runs no code from the file; the
zip's declared sizes are checked before anything is decompressed, and a network whose weights
hold NaN or infinity is refused at load.
Files are written atomically (a temporary file, fsync, rename): a crash leaves the old file
or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
from torch import nn

from goarena.agents.atomic import replacing
from goarena.agents.nets.errors import NetworkFileError, zip_file_problem
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.rollout import RolloutPolicy
from goarena.agents.nets.value import ValueNet
from goarena.agents.nets.zero import ZeroNet

FORMAT = "goarena-checkpoint-1"

# Architecture name -> module class; a class has an ``arch`` name and a ``kwargs`` dict.
ARCHITECTURES: dict[str, type[nn.Module]] = {
    OwnershipNet.arch: OwnershipNet,
    PolicyNet.arch: PolicyNet,
    RolloutPolicy.arch: RolloutPolicy,
    ValueNet.arch: ValueNet,
    WinNet.arch: WinNet,
    ZeroNet.arch: ZeroNet,
}


class CheckpointError(NetworkFileError):
    """A file that is no readable checkpoint, or one naming an unknown or mismatched network."""


def state_digest(state_dict: Mapping[str, torch.Tensor]) -> str:
    """The sha256 (hex) of weights: names, dtypes, shapes and values, in name order."""
    digest = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        digest.update(f"{name}:{tensor.dtype}:{list(tensor.shape)};".encode())
        # Flat first: a 0-d tensor (batch norm's step count) cannot be viewed as bytes.
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def save_model(path: Path | str, model: nn.Module, **extra: Any) -> str:
    """Write ``model`` (and ``extra`` entries, e.g. a training state) to ``path`` atomically;
    returns the weights' sha256."""
    arch = getattr(model, "arch", None)
    if ARCHITECTURES.get(arch) is not type(model):  # type: ignore[arg-type]
        raise CheckpointError(
            f"{type(model).__name__} is not a registered architecture ({sorted(ARCHITECTURES)})"
        )
    state_dict = {name: tensor.detach().cpu() for name, tensor in model.state_dict().items()}
    sha256 = state_digest(state_dict)
    contents = {
        "format": FORMAT,
        "arch": arch,
        "kwargs": json.dumps(model.kwargs),
        "state_dict": state_dict,
        "sha256": sha256,
        **extra,
    }
    write_atomically(Path(path), contents)
    return sha256


def write_atomically(path: Path, contents: dict[str, Any]) -> None:
    """``torch.save`` to a temporary file beside ``path``, fsynced and renamed onto ``path``
    (``goarena.agents.atomic``). The bytes are made in memory first, so a full disk is an
    ``OSError`` (ENOSPC) of the write, not one of torch's zip writer's errors."""
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save(contents, buffer)
    with replacing(path, durable=True) as temporary:
        temporary.write_bytes(buffer.getbuffer())


def read_checkpoint(
    path: Path | str, device: str | torch.device = "cpu", *, mmap: bool = False
) -> dict[str, Any]:
    """The contents of a checkpoint file, checked: its format, and its weights against their sha256
    (not with ``mmap``, which reads the weights lazily to look at the rest)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no checkpoint file there")
    try:
        problem = zip_file_problem(path)
    except (zipfile.BadZipFile, OSError) as error:  # torch.save always writes a zip
        raise CheckpointError(f"{path}: not a readable checkpoint (corrupt or cut short?): {error}") from None
    if problem is not None:
        raise CheckpointError(f"{path}: {problem}")
    try:
        contents = torch.load(path, map_location=device, weights_only=True, mmap=mmap)
    except Exception as error:  # torch raises many kinds for a corrupt or truncated file
        raise CheckpointError(f"{path}: not a readable checkpoint (corrupt or cut short?): {error}") from None
    if not isinstance(contents, dict) or contents.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a goarena checkpoint")
    missing = {"arch", "kwargs", "state_dict", "sha256"} - contents.keys()
    if missing:
        raise CheckpointError(f"{path}: lacks {', '.join(sorted(missing))}")
    if not mmap and state_digest(contents["state_dict"]) != contents["sha256"]:
        raise CheckpointError(f"{path}: the weights do not match their sha256 (the file is corrupt)")
    return contents


def describe(path: Path | str) -> tuple[str, dict[str, Any]]:
    """The architecture name and constructor arguments of the network in ``path``, without
    reading its weights."""
    contents = read_checkpoint(path, mmap=True)
    return _current(contents["arch"], _kwargs(path, contents))


def build_model(
    path: Path | str, contents: Mapping[str, Any], device: str | torch.device = "cpu"
) -> nn.Module:
    """The network that checkpoint ``contents`` (read from ``path``) describes, with its weights."""
    arch = contents["arch"]
    if arch not in ARCHITECTURES:
        raise CheckpointError(
            f"{path}: unknown architecture {arch!r} (known: {', '.join(sorted(ARCHITECTURES))})"
        )
    arch, kwargs = _current(arch, _kwargs(path, contents))
    state = contents["state_dict"]
    problem = nonfinite_weight(state) if isinstance(state, Mapping) else None  # else load_state_dict says
    if problem is not None:
        raise CheckpointError(f"{path}: {problem}")
    try:
        model = ARCHITECTURES[arch](**kwargs)
        model.load_state_dict(contents["state_dict"])
    except (TypeError, ValueError, RuntimeError) as error:
        raise CheckpointError(f"{path}: the weights do not fit {arch}({kwargs}): {error}") from None
    return model.to(device)


def nonfinite_weight(state_dict: Mapping[str, Any]) -> str | None:
    """What is wrong with weights holding NaN or infinity (a network that would play noise,
    silently), naming the first such tensor; None when every weight is finite."""
    for name, tensor in state_dict.items():
        if isinstance(tensor, torch.Tensor) and tensor.is_floating_point() and not tensor.isfinite().all():
            return f"its weight {name!r} holds NaN or infinite values (did training diverge?)"
    return None


def load_model(path: Path | str, device: str | torch.device = "cpu") -> nn.Module:
    """The network saved at ``path``, on ``device``, in eval mode."""
    return build_model(path, read_checkpoint(path, device), device).eval()


def weights_digest(path: Path | str) -> str:
    """The sha256 of the weights saved at ``path`` (checked against them)."""
    return str(read_checkpoint(path)["sha256"])


def _current(arch: str, kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The architecture and arguments of today's class for a file's: an ownership network saved
    with ``head`` (before the win baseline had its own class) is a ``WinNet`` with
    ``head="win"``, an ``OwnershipNet`` with ``head="ownership"``."""
    if arch == OwnershipNet.arch and "head" in kwargs:
        kwargs = dict(kwargs)
        if kwargs.pop("head") == "win":
            arch = WinNet.arch
    return arch, kwargs


def _kwargs(path: Path | str, contents: Mapping[str, Any]) -> dict[str, Any]:
    try:
        kwargs = json.loads(contents["kwargs"])
    except (TypeError, ValueError):
        raise CheckpointError(f"{path}: the network's arguments are not JSON") from None
    if not isinstance(kwargs, dict):
        raise CheckpointError(f"{path}: the network's arguments are not a JSON object")
    return kwargs
