"""One loader for every network file a player or a job reads, with one shape of message.

A player's files are of two kinds:

- ``.pt`` checkpoints (``goarena.agents.nets.checkpoint``): a policy, value, zero or ownership network,
  read with ``torch.load(weights_only=True)`` and checked against the sha256 stored with the
  weights, so a bit-flipped file is refused even when it is still a valid zip;
- ``rollout.npz``: the fast rollout policy's weights (``go_env.features.patterns``), checked
  for a readable archive (not cut short, not a lone ``.npy`` renamed), the feature layout,
  the shape, and finite weights within bounds.

``load_network`` reads either and returns a ``Network`` (the model, its board size and the
digest of its weights). ``load_torch_program`` reads a user's network saved whole, with its
code, for ``torch:PATH``: a TorchScript module (``torch.jit.save``) or an exported program
(``torch.export.save``); like any saved code, only files you trust. A player's
``check_options`` (the league's pre-check) calls the same function as the player does, so
the pre-check verifies exactly what the player will load.
Every refusal is a ``NetworkFileError`` whose message is ``"PATH: what is wrong"``.
``check_sizes`` refuses networks trained for different boards, naming each file.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goarena.agents.nets.errors import NetworkFileError as NetworkFileError  # raised here
from goarena.agents.nets.errors import refuse
from goarena.agents.protocols import UnsupportedGame, weights_digest

# What a player asks for, and the architecture (``arch``) of a checkpoint that is one.
KINDS = {"policy": "policy", "value": "value", "zero": "zero", "ownership": "ownership", "rollout": None}
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK"


@dataclass(frozen=True)
class Network:
    """A network read from its file.

    Attributes:
        path: the file.
        kind: "policy", "value", "zero", "ownership" or "rollout".
        board_size: the board it was trained for.
        digest: the sha256 of its weights (a checkpoint's stored digest, verified; a rollout
            file's bytes).
        model: the network (a torch module in eval mode), or the rollout ``PatternPolicy``.
    """

    path: Path
    kind: str
    board_size: int
    digest: str
    model: Any


def load_network(path: Path | str, kind: str, device: str = "cpu", precision: str = "float32") -> Network:
    """The ``kind`` network ("policy", "value", "zero", "ownership" or "rollout") saved at ``path``.

    Args:
        path: a ``.pt`` checkpoint (policy, value, zero, ownership) or a ``rollout.npz`` (rollout).
        kind: what the caller will use it as; a file holding another network is refused.
        device, precision: where and in what arithmetic a torch network runs.

    Raises:
        NetworkFileError: the file is missing, unreadable, corrupt, or not a ``kind`` network.
        ValueError: an unknown kind, device or precision.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown network kind {kind!r}: {', '.join(KINDS)}")
    path = Path(path)
    if kind == "rollout":
        return _load_rollout(path)
    return _load_checkpoint(path, kind, device, precision)


def file_digest(path: Path | str) -> str:
    """The digest a player of the weights file at ``path`` reports: a checkpoint's sha256 of its
    weights (verified), a rollout ``.npz``'s sha256 of its bytes."""
    if Path(path).suffix == ".npz":
        return weights_digest([path])
    from goarena.agents.nets.checkpoint import weights_digest as checkpoint_digest

    return checkpoint_digest(path)


def check_sizes(networks: Sequence[Network], size: int | None = None) -> None:
    """Refuse networks trained for different boards (naming each file's board), or, given
    ``size``, networks trained for another board than ``size``.

    Raises:
        UnsupportedGame: as above.
    """
    sizes = {network.board_size for network in networks}
    if len(sizes) > 1:
        first, *others = sorted(networks, key=lambda network: network.board_size)
        rest = ", ".join(f"{network.path.name} for {_board(network.board_size)}" for network in others)
        raise UnsupportedGame(f"{first.path.name} was trained for {_board(first.board_size)}, {rest}")
    if size is not None and sizes and sizes != {size}:
        trained = sizes.pop()
        names = ", ".join(network.path.name for network in networks)
        were = "was" if len(networks) == 1 else "were"
        raise UnsupportedGame(f"{names} {were} trained for {_board(trained)}, not {_board(size)}")


def _board(size: int) -> str:
    return f"{size}x{size}"


def _load_checkpoint(path: Path, kind: str, device: str, precision: str) -> Network:
    from goarena.agents.nets.checkpoint import build_model, read_checkpoint
    from goarena.agents.nets.predict import resolve_device, resolve_precision

    where, dtype = resolve_device(device), resolve_precision(precision)
    contents = read_checkpoint(path, where)  # CheckpointError is a NetworkFileError
    model = build_model(path, contents, where)
    if contents["arch"] != KINDS[kind]:
        article = "an" if kind[0] in "aeiou" else "a"  # an ownership network
        raise refuse(path, f"holds a {contents['arch']!r} network, not {article} {kind} network")
    board_size: int = model.board_size  # type: ignore[assignment]  # every network's own
    return Network(path, kind, board_size, str(contents["sha256"]), model.to(dtype).eval())


def _load_rollout(path: Path) -> Network:
    from go_env.features.patterns import load_weights

    if not path.is_file():
        raise refuse(path, "no rollout weights file there")
    with open(path, "rb") as file:
        magic = file.read(len(_NPY_MAGIC))
    if magic.startswith(_NPY_MAGIC):
        raise refuse(path, "a single .npy array, not an .npz of rollout weights (renamed?)")
    if not magic.startswith(_ZIP_MAGIC):
        raise refuse(path, "not an .npz file of rollout weights")
    try:
        policy, size = load_weights(path)
    except ValueError as error:
        problem = str(error).removeprefix(f"{path}: ")
        raise refuse(path, problem) from None
    except Exception as error:  # zipfile, zlib and numpy raise many kinds for a cut or corrupt archive
        raise refuse(path, f"not a readable .npz (cut short or corrupt?): {error}") from None
    return Network(path, "rollout", size, weights_digest([path]), policy)


@dataclass(frozen=True)
class TorchProgram:
    """A network saved whole, as ``load_torch_program`` reads it.

    Attributes:
        path: the file.
        module: the TorchScript module (in eval mode) or the exported program's module.
        inputs: what its ``forward`` takes: 1 (planes) or 2 (planes, mask).
        batch: the batch size an exported program was exported for when it is fixed, else None.
        digest: the sha256 of the file.
    """

    path: Path
    module: Any
    inputs: int
    batch: int | None
    digest: str


def load_torch_program(path: Path | str) -> TorchProgram:
    """The TorchScript module or exported program saved at ``path``, on the CPU.

    Raises:
        NetworkFileError: the file is missing, not such an archive (a state dict, a checkpoint),
            corrupt, or its ``forward`` takes other than (planes) or (planes, mask).
    """
    import torch

    path = Path(path)
    kind = _archive_kind(path)
    try:
        if kind == "script":
            module = torch.jit.load(str(path), map_location="cpu").eval()
            inputs, batch = len(module.forward.schema.arguments) - 1, None  # less self
        else:
            program = torch.export.load(str(path))
            placeholders = {node.name: node for node in program.graph.nodes if node.op == "placeholder"}
            names = program.graph_signature.user_inputs
            shape = placeholders[names[0]].meta["val"].shape if names else ()
            inputs = len(names)
            batch = shape[0] if shape and isinstance(shape[0], int) else None  # a SymInt: any batch
            module = program.module()
    except Exception as error:  # torch raises many kinds for a cut or corrupt archive
        raise refuse(path, f"not a readable {_KIND_NAMES[kind]} (cut short or corrupt?): {error}") from None
    if inputs not in (1, 2):
        raise refuse(path, f"its forward takes {inputs} inputs, not (planes) or (planes, mask)")
    return TorchProgram(path, module, inputs, batch, weights_digest([path]))


_KIND_NAMES = {"script": "TorchScript module", "export": "exported program"}


def _archive_kind(path: Path) -> str:
    """``"script"`` (``torch.jit.save``) or ``"export"`` (``torch.export.save``), from the
    archive's entries, so that neither loader is tried on the other's files; every entry's
    checksum verified (torch's readers check none)."""
    if not path.is_file():
        raise refuse(path, "no network file there")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            damaged = archive.testzip()
    except (zipfile.BadZipFile, OSError) as error:
        problem = f"not a TorchScript module or an exported program (not a zip archive: {error})"
        raise refuse(path, problem) from None
    if damaged is not None:
        raise refuse(path, f"corrupt: its entry {damaged} fails its checksum")
    if any(name.endswith("/archive_format") for name in names):
        return "export"
    if any(name.endswith("/constants.pkl") for name in names):
        return "script"
    raise refuse(
        path,
        "a zip archive but neither a TorchScript module nor an exported program (a state dict or a "
        "checkpoint? save the network with torch.jit.save or torch.export.save)",
    )
