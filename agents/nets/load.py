"""One loader for every network file a player or a job reads, with one shape of message.

A player's files are of two kinds:

- ``.pt`` checkpoints (``goarena.agents.nets.checkpoint``): a policy, value, zero or ownership network,
  read with ``torch.load(weights_only=True)`` and checked against the sha256 stored with the
  weights, so a bit-flipped file is refused even when it is still a valid zip, and refused when
  a weight holds NaN or infinity;
- ``rollout.npz``: the fast rollout policy's weights (``go_env.features.patterns``), checked
  for a readable archive (not cut short, not a lone ``.npy`` renamed), the feature layout,
  the shape, and finite weights within bounds.

``load_network`` reads either and returns a ``Network`` (the model, its board size and the
digest of its weights). ``load_torch_program`` reads a user's network saved whole, for
``torch:PATH``: an exported program (``torch.export.save``), read as data and checked first
(no pickles, no compiled code, shape expressions that are only arithmetic, only PyTorch's own
operators and none that touches a file), or, only when the caller says it may run the file's
code, a TorchScript module (``torch.jit.save``), which is code. Every zip is refused before
anything in it is decompressed when its directory declares absurd sizes (``zip_size_problem``).
A player's ``check_options`` (the league's pre-check) calls the same function as the player
does, so the pre-check verifies exactly what the player will load.
Every refusal is a ``NetworkFileError`` whose message is ``"PATH: what is wrong"``.
``check_sizes`` refuses networks trained for different boards, naming each file.
"""

from __future__ import annotations

import functools
import io
import json
import re
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goarena.agents.nets.errors import NetworkFileError as NetworkFileError  # raised here
from goarena.agents.nets.errors import refuse, zip_file_problem, zip_size_problem
from goarena.agents.protocols import UnsupportedGame, files_digest

# What a player asks for, and the architectures (``arch``) of the checkpoints that are one: the
# win baseline (``WinNet``) values a position as a value network does, and serves where an
# ownership network is asked for (it is what the ownership network is measured against).
KINDS: dict[str, tuple[str, ...]] = {
    "policy": ("policy",),
    "value": ("value", "win"),
    "zero": ("zero",),
    "ownership": ("ownership", "win"),
    "rollout": (),
}
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
        device, precision: where and in what arithmetic a torch network runs (``auto``:
            bfloat16 where the CPU computes it natively, else float32).

    A torch network comes ready for inference: in eval mode, its batch norms folded into
    its convolutions (``HistoryTrunk.fold_batch_norms``), not to be trained or saved.

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
        return files_digest([path])
    from goarena.agents.nets.checkpoint import weights_digest

    return weights_digest(path)


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
    if model.arch not in KINDS[kind]:
        article = "an" if kind[0] in "aeiou" else "a"  # an ownership network
        raise refuse(path, f"holds a {model.arch!r} network, not {article} {kind} network")
    board_size: int = model.board_size  # type: ignore[assignment]  # every network's own
    model.eval()
    fold = getattr(model, "fold_batch_norms", None)
    if fold is not None:
        fold()
    return Network(path, kind, board_size, str(contents["sha256"]), model.to(dtype))


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
    _check_zip_sizes(path)
    try:
        policy, size = load_weights(path)
    except ValueError as error:
        problem = str(error).removeprefix(f"{path}: ")
        raise refuse(path, problem) from None
    except Exception as error:  # zipfile, zlib and numpy raise many kinds for a cut or corrupt archive
        raise refuse(path, f"not a readable .npz (cut short or corrupt?): {error}") from None
    return Network(path, "rollout", size, files_digest([path]), policy)


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


def load_torch_program(path: Path | str, *, run_code: bool = False) -> TorchProgram:
    """The exported program saved at ``path`` (or, with ``run_code``, the TorchScript module), on
    the CPU.

    An exported program is data once checked: before ``torch.export.load``, that its archive holds
    only the graph, raw weights and plain tensors (no pickle, which torch would run, no compiled
    code) and that its shape expressions (which torch evaluates as Python) are only arithmetic;
    after it, before anything runs, that its graph calls only PyTorch's own operators and none
    that reads or writes a file. A TorchScript module is code (it runs its own methods when
    loaded and at every move), so it is refused unless ``run_code``.

    Raises:
        NetworkFileError: the file is missing, not such an archive (a state dict, a checkpoint),
            corrupt, a TorchScript module without ``run_code``, an exported program that fails a
            check above, or its ``forward`` takes other than (planes) or (planes, mask).
    """
    import torch

    path = Path(path)
    kind = _archive_kind(path)
    if kind == "script" and not run_code:
        raise refuse(
            path,
            "a TorchScript module is code (it runs its own methods when loaded and at every move): "
            "refused unless the spec says run_code=true, for a file you trust; share a policy as an "
            "exported program (torch.export.save), which is read as data",
        )
    if kind == "export":
        _check_program_archive(path)
    try:
        if kind == "script":
            module = torch.jit.load(str(path), map_location="cpu").eval()
            inputs, batch = len(module.forward.schema.arguments) - 1, None  # less self
        else:
            program = torch.export.load(str(path))
            _check_operators(path, program.graph_module)
            placeholders = {node.name: node for node in program.graph.nodes if node.op == "placeholder"}
            names = program.graph_signature.user_inputs
            shape = placeholders[names[0]].meta["val"].shape if names else ()
            inputs = len(names)
            batch = shape[0] if shape and isinstance(shape[0], int) else None  # a SymInt: any batch
            module = program.module()
    except NetworkFileError:
        raise
    except Exception as error:  # torch raises many kinds for a cut or corrupt archive
        raise refuse(path, f"not a readable {_KIND_NAMES[kind]} (cut short or corrupt?): {error}") from None
    if inputs not in (1, 2):
        raise refuse(path, f"its forward takes {inputs} inputs, not (planes) or (planes, mask)")
    return TorchProgram(path, module, inputs, batch, files_digest([path]))


_KIND_NAMES = {"script": "TorchScript module", "export": "exported program"}


def _check_zip_sizes(path: Path) -> None:
    """Refuse a zip whose directory declares absurd sizes, before anything is decompressed."""
    try:
        problem = zip_file_problem(path)
    except (zipfile.BadZipFile, OSError):
        return  # the reader that follows says what is wrong with it
    if problem is not None:
        raise refuse(path, problem)


def _archive_kind(path: Path) -> str:
    """``"script"`` (``torch.jit.save``) or ``"export"`` (``torch.export.save``), from the
    archive's entries, so that neither loader is tried on the other's files; its sizes checked,
    then every entry's checksum verified (torch's readers check none)."""
    if not path.is_file():
        raise refuse(path, "no network file there")
    _check_zip_sizes(path)
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
        "checkpoint? save the network with torch.export.save)",
    )


# -- an exported program, read as data ---------------------------------------------------------

# The entries of the one program ("model") that torch.export.save writes, under the archive's
# root folder. Anything else is refused: AOTInductor's compiled libraries, pickled objects
# (custom_obj_*, opaque_obj_*), legacy pickled weights (data/weights/model.pt), other programs.
_PROGRAM_ENTRIES = re.compile(
    r"archive_format|archive_version|byteorder|\.data/version|\.data/serialization_id|models/model\.json"
    r"|data/weights/model_weights_config\.json|data/weights/weight_\d+"
    r"|data/constants/model_constants_config\.json|data/constants/tensor_\d+"
    r"|data/sample_inputs/model\.pt|extra/[\w.-]+"
)
# Each weights config entry names a raw tensor file of its folder; ``use_pickle`` would have
# torch.load(weights_only=False) run the entry instead.
_CONFIGS = {
    "data/weights/model_weights_config.json": ("weight", re.compile(r"weight_\d+")),
    "data/constants/model_constants_config.json": ("constant", re.compile(r"tensor_\d+")),
}
_SAMPLE_INPUTS = "data/sample_inputs/model.pt"
_SHAPE_TOKEN = re.compile(r"\s+|'[A-Za-z_]\w*'|\d+(?:\.\d+)?(?:e[-+]?\d+)?|[A-Za-z_]\w*|[-+*/%(),=<>!&|~]")
# The names a shape expression (sympy's srepr, which torch evaluates) may use: sympy's and
# torch's integer arithmetic, sympy's assumptions, and symbols such as s77 or u0.
_SHAPE_WORDS = (
    "Symbol Integer Rational Float Add Mul Max Min Abs Eq Ne Lt Le Gt Ge And Or Not true false True False "
    "oo nan Piecewise floor ceiling sqrt integer positive nonnegative negative real finite zero nonzero "
    "odd even commutative precision FloorDiv ModularIndexing Where PythonMod Mod CleanDiv CeilToInt "
    "FloorToInt CeilDiv IntTrueDiv FloatTrueDiv LShift RShift IsNonOverlappingAndDenseIndicator "
    "TruncToFloat TruncToInt RoundToInt RoundDecimal ToFloat Identity"
)
_SHAPE_NAMES = frozenset(_SHAPE_WORDS.split())
_SYMBOL = re.compile(r"[a-z]+\d+")


def _check_program_archive(path: Path) -> None:
    """Refuse an exported program that asks for anything but data (see ``load_torch_program``)."""
    import torch

    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            root = names[0].partition("/")[0] if names else ""
            for name in names:
                folder, _, entry = name.partition("/")
                if folder != root or not _PROGRAM_ENTRIES.fullmatch(entry):
                    raise refuse(
                        path,
                        f"its entry {name!r} is no part of an exported program's data (a pickle, compiled "
                        "code or a second program?): an exported program is read only with its graph, "
                        "raw weights and plain tensors",
                    )
            for entry, (what, files) in _CONFIGS.items():
                if f"{root}/{entry}" in names:
                    _check_payload_config(path, json.loads(archive.read(f"{root}/{entry}")), what, files)
            for expression in _expressions(json.loads(archive.read(f"{root}/models/model.json"))):
                _check_shape_expression(path, expression)
            if f"{root}/{_SAMPLE_INPUTS}" in names:
                inputs = archive.read(f"{root}/{_SAMPLE_INPUTS}")
                with zipfile.ZipFile(io.BytesIO(inputs)) as inner:
                    problem = zip_size_problem(inner, len(inputs))
                if problem is not None:
                    raise refuse(path, f"its sample inputs: {problem}")
                # torch reads them weights-only first and falls back to unpickling: only the first may succeed
                torch.load(io.BytesIO(inputs), weights_only=True)
    except NetworkFileError:
        raise
    except Exception as error:  # zipfile, json and torch.load raise many kinds
        raise refuse(path, f"not a readable exported program (corrupt, or a pickle?): {error}") from None


def _check_payload_config(path: Path, config: Any, what: str, files: re.Pattern[str]) -> None:
    for name, payload in config["config"].items():
        if payload.get("use_pickle"):
            raise refuse(
                path,
                f"its {what} {name!r} is stored as a pickle (use_pickle), which runs code when loaded: "
                "refused (export plain tensors)",
            )
        if not files.fullmatch(str(payload.get("path_name"))):
            raise refuse(path, f"its {what} {name!r} is no raw tensor file ({payload.get('path_name')!r})")


def _expressions(value: Any) -> Iterator[str]:
    """Every shape expression (``expr_str``) in a serialized program."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "expr_str" and isinstance(item, str):
                yield item
            else:
                yield from _expressions(item)
    elif isinstance(value, list):
        for item in value:
            yield from _expressions(item)


def _check_shape_expression(path: Path, expression: str) -> None:
    """torch evaluates a shape expression with ``sympy.sympify`` (Python's ``eval``): refuse any
    that is more than arithmetic over sympy's and torch's integer functions."""
    tokens = _SHAPE_TOKEN.findall(expression)
    names = [token for token in tokens if token[0].isalpha() or token[0] == "_"]
    if (
        "".join(tokens) != expression
        or "**" in expression
        or any(name not in _SHAPE_NAMES and not _SYMBOL.fullmatch(name) for name in names)
    ):
        raise refuse(
            path,
            f"its shape expression {expression[:80]!r} is not plain arithmetic (torch would run it as "
            "Python): refused",
        )


@functools.cache
def _file_operators() -> frozenset[str]:
    """PyTorch's operators that take a file's name (aten::save, aten::from_file)."""
    import torch

    schemas = torch._C._jit_get_all_schemas()
    return frozenset(schema.name for schema in schemas if any(a.name == "filename" for a in schema.arguments))


# Control flow and functionalization wrappers, whose subgraphs and wrapped operators are checked too.
_HIGHER_ORDER = frozenset(
    {"cond", "while_loop", "map_impl", "scan", "invoke_subgraph", "wrap_with_set_grad_enabled"}
    | {"wrap_with_autocast", "auto_functionalized", "auto_functionalized_v2", "with_effects"}
)


def _check_operators(path: Path, graph_module: Any) -> None:
    """Refuse a graph (or any of its subgraphs) that calls an operator other than PyTorch's own,
    or one that reads or writes a file, before it ever runs."""
    import torch
    from torch.utils._pytree import tree_leaves

    for module in graph_module.modules():
        graph = getattr(module, "graph", None)
        if not isinstance(graph, torch.fx.Graph):
            continue
        for node in graph.nodes:
            if node.op != "call_function":
                continue
            for target in (node.target, *tree_leaves((node.args, node.kwargs))):
                problem = _operator_problem(target)
                if problem is not None:
                    raise refuse(path, f"its graph calls {target}, {problem}: refused")


def _operator_problem(target: Any) -> str | None:
    import torch

    if isinstance(target, torch._ops.HigherOrderOperator):
        return None if target.name() in _HIGHER_ORDER else "a higher-order operator other than control flow"
    if isinstance(target, torch._ops.OpOverload):
        name = target._schema.name
    elif isinstance(target, torch._ops.OpOverloadPacket):
        name = target._qualified_op_name
    else:
        return None  # the deserializer builds no other call than arithmetic on sizes and getitem
    if name.partition("::")[0] not in ("aten", "prims"):
        return "an operator from outside PyTorch's own set"
    if name in _file_operators():
        return "which reads or writes a file"
    return None
