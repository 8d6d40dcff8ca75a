"""Any network as a player, without writing one: ``PolicyPlayer(fn)`` and ``torch:PATH``.

``PolicyPlayer`` plays a function of the position, most often a torch module::

    fn(planes, mask) -> logits            or  -> (logits, value)

- ``planes``: float32 ``[B, 17, N, N]`` (channels first; ``channels_first=False`` gives
  ``[B, N, N, 17]``), the history planes of ``go_env.features.history_planes`` from the side
  to move's view, exactly as ``gymnasium.make("goarena/Go-v0", channels_first=True,
  observation_dtype="float32")`` observes them, so a policy trained on the env plays as it
  is. Plane ``i`` (0..7): the side to move's stones ``i`` moves ago (plane 0: now); plane
  ``8 + i``: the opponent's stones ``i`` moves ago (planes before the game's first position
  are 0); plane 16: all ones when Black is to move. Row 0 is the top row, column 0 the left
  one. ``layout="pgx"`` or ``"go_v5"`` orders the planes as the env's ``observation_layout``
  does (``go_env.features.planes_in_layout``).
- ``mask``: bool ``[B, N*N + 1]``, True for each legal move; move ``r * N + c`` is row ``r``,
  column ``c``, and ``N*N`` is pass (the env's ``action_masks()``).
- ``logits``: ``[B, N*N + 1]``, any values: the player masks the illegal moves itself.
- ``value``: ``[B]`` or ``[B, 1]``, the position's value in [-1, 1] for the side to move.

Both are torch tensors, on the device of ``fn``'s parameters when ``fn`` is a module (else
the player's ``device``, the CPU by default); ``fn`` may answer with tensors or numpy arrays.
It is called under ``torch.inference_mode``; a module given as ``fn`` is put in eval mode for
each call and back in training mode after, so a network in training can be played between
updates. The player never moves ``fn``.

It is the network player (``players.network.NetworkPlayer``) over ``fn``, read as a network
(``inference.function.FunctionNetwork``) by the one ``NetworkEvaluator``. It plays the most
likely legal move (``sample=False``) or draws one from ``softmax(logits / temperature)`` over
the legal moves (``sample=True``). With ``simulations > 0`` it searches with PUCT
(``PUCTAgent``), ``fn``'s policy over the legal moves as the priors and its value as the leaf
value (``play=gumbel``: Gumbel search); search needs the value, so ``fn`` must then return
``(logits, value)`` (checked at ``reset``: there is no value without a network that gives one,
and random playouts would be another player). The search plays its most visited move, or with
``sample=True`` draws one in proportion to ``visits ** (1 / temperature)``. Its options are
``PolicyOptions``' (``fn`` first, by position).

``board_size`` names the sizes it plays; others are refused at ``reset`` with
``UnsupportedGame``. Without it, ``reset`` calls ``fn`` once on the empty board of each new
size and refuses the size if ``fn`` fails there or gives other than ``N*N + 1`` logits.

``TorchPlayer`` is the spec ``torch:PATH[,key=value]``: an exported program
(``torch.export.export`` in eval mode, then ``torch.export.save``) whose forward takes
``(planes)`` or ``(planes, mask)``, as ``PolicyPlayer`` over it::

    torch:policy.pt2
    torch:policy.pt2,sample=true,temperature=0.5,seed=3
    torch:policy.pt2,simulations=200,size=9

An exported program is read as data (``goarena.agents.nets.load.load_torch_program`` checks that
it holds no pickle and no compiled code and calls only PyTorch's own operators, none that
touches a file), so it is the way to share a policy. A TorchScript module (``torch.jit.save``)
is code: it runs its own methods when loaded and at every move, so ``torch:`` refuses it unless
the spec says so, for a file you trust::

    torch:policy.pt,run_code=true

Its options are ``PolicyPlayer``'s, with ``size`` for ``board_size`` and ``run_code``; it runs
on its ``device``, else the game context's (the league's ``--device``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn

from go_env import Game, Rules
from go_env.features import check_layout
from goarena.agents.declared import option
from goarena.agents.inference.features import arrange, planes_of
from goarena.agents.inference.function import FunctionNetwork, PolicyFn
from goarena.agents.inference.network import LeafOutputs, legal_weights
from goarena.agents.nets.load import TorchProgram, load_torch_program
from goarena.agents.nets.predict import move_networks, player_device, resolve_device
from goarena.agents.players.network import LoadedNetwork, NetworkOptions, NetworkPlayer
from goarena.agents.players.options import at_least
from goarena.agents.protocols import GameContext, UnsupportedGame, game_context
from goarena.search import Leaves

__all__ = ["PolicyFn", "PolicyOptions", "PolicyPlayer", "TorchOptions", "TorchPlayer"]


def _above_zero(name: str, value: float) -> str | None:
    return None if 0 < value < math.inf else f"{name} must be finite and above 0, got {value!r}"


def _layout(name: str, value: str) -> str | None:
    try:
        check_layout(value, name)
    except ValueError as error:
        return str(error)
    return None


def _board_sizes(name: str, value: Any) -> str | None:
    try:
        _sizes(value)
    except ValueError as error:
        return str(error)
    return None


@dataclass(frozen=True, kw_only=True)
class PolicyOptions(NetworkOptions):
    """``PolicyPlayer``'s options: a network player's, its network a function."""

    fn: Any = option(None, "fn(planes, mask) -> logits or (logits, value); a torch module most often")
    sample: bool = option(
        False, "draw the move (from the policy, or the search's visits) rather than the best"
    )
    temperature: float = option(1.0, "the draw's temperature, above 0 (with sample only)", check=_above_zero)
    simulations: int = option(  # type: ignore[assignment]
        0,
        "0 plays from the policy alone; above 0, PUCT with this many simulations per move",
        check=at_least(0),
    )
    board_size: Any = option(
        None, "the board size, or sizes, fn plays (None: any it answers for)", check=_board_sizes
    )
    channels_first: bool = option(True, "planes [B, 17, N, N] (true) or [B, N, N, 17]")
    layout: str = option("goarena", "the planes' order, as the env's: goarena, pgx or go_v5", check=_layout)
    device: str | None = option(
        None, "where the planes go when fn is no module with parameters (default cpu)"
    )
    name: str = option("policy", "the player's name in records")

    FIRST = ("fn", "sample", "temperature", "simulations", "board_size", "device", "seed", "name")
    FIXED = {"weights": "it plays fn", "network": "it plays fn", "rank": "it plays fn's policy or searches"}

    @property
    def mode(self) -> str:
        if self.play == "policy" and self.simulations:
            return "puct"
        return self.play

    @property
    def play_temperature(self) -> float:
        return self.temperature if self.sample else 0.0


class PolicyPlayer(NetworkPlayer):
    """A function of the position, most often a torch module, as a player (see the module
    docs); its options are ``PolicyOptions``', ``fn`` first.

    Raises:
        ValueError: bad options.
    """

    Options = PolicyOptions  # type: ignore[assignment]
    options: PolicyOptions
    positional: ClassVar[tuple[str, ...]] = ("fn",)
    name = "policy"
    kind = "function"
    cache = 0  # fn may change between moves (a network in training)
    plays_on = False  # plays fn's best move, passes included

    _device: torch.device | None = None  # where the planes go: its own device, else fn's
    _gives_value: bool | None = None  # whether fn gives a value (known once it is called)

    def __init__(self, *args: Any, **options: Any):
        super().__init__(*args, **options)
        self.name = self.options.name
        self.fn = self.network.model.fn
        self.sample = self.options.sample
        self.board_sizes = self._sizes()
        self.channels_first = self.options.channels_first
        self.layout = self.options.layout
        self._device = resolve_device(self.device) if self.device is not None else None
        self._answered: set[int] = set()  # the sizes fn was tried on

    def _sizes(self) -> frozenset[int] | None:
        return _sizes(self.options.board_size)

    @classmethod
    def _load(cls, options: Any, device: str) -> LoadedNetwork:
        if options.fn is None:
            raise TypeError(f"{options.name} needs fn, the function it plays")
        return LoadedNetwork(
            FunctionNetwork(options.fn, options.layout, options.channels_first, None, options.name), 0, None
        )

    def _evaluator(self, model: Any, cache: int = 0) -> Any:
        from goarena.agents.inference import NetworkEvaluator

        model._device = self._input_device  # the planes go to the player's device, else fn's
        if self._gives_value is False and self.search is None:  # fn's policy alone
            alone = _PolicyOnly(
                model.fn, self.options.layout, self.options.channels_first, model._device, self.name
            )
            return NetworkEvaluator(policy=alone, cache=cache)
        return NetworkEvaluator(policy=model, value=model, cache=cache)

    @property
    def heads(self) -> tuple[str, ...]:
        return ("policy", "value") if self._gives_value else ("policy",)

    @classmethod
    def check_files(cls, context: GameContext | None, options: Any) -> None:
        """The device (given a context); ``fn`` is tried at ``reset``."""
        player_device(options.device, context)

    def _move(self, context: GameContext) -> None:
        """``fn`` is never moved."""

    def weights_digest(self) -> str | None:
        return None

    def _input_device(self) -> torch.device:
        if self._device is not None:
            return self._device
        if isinstance(self.fn, nn.Module):
            weight = next(self.fn.parameters(), None)
            if weight is not None:
                return weight.device
        return torch.device("cpu")

    def _check_size(self, size: int) -> None:
        """Refuse a size outside its sizes (``UnsupportedGame``)."""
        sizes = self.board_sizes
        if sizes is not None and size not in sizes:
            named = ", ".join(f"{n}x{n}" for n in sorted(sizes))
            raise UnsupportedGame(f"{self.name} plays {named}, not {size}x{size}")

    def _leaf_outputs(self, leaves: Leaves) -> Any:
        """The evaluator's outputs; before ``fn`` was first called (no ``reset`` yet), ``fn``'s
        own, which say whether it gives a value (and so what the evaluator asks of it)."""
        if self._gives_value is not None:
            return self.evaluator.outputs(leaves)
        network = self.network.model
        logits, values = network.call(
            planes_of(leaves.states, leaves.geometry, network.features), leaves.legal
        )
        self._found_value(values is not None)
        priors = legal_weights(logits, leaves.legal)
        return LeafOutputs(priors, values if values is not None else np.zeros(len(leaves)), None, None)

    def _found_value(self, gives_value: bool) -> None:
        if self._gives_value is None:
            self._gives_value = gives_value
            self.evaluator = self._evaluator(
                self.network.model, self.cache
            )  # fn's value beside its policy, if any

    def reset(self, context: GameContext) -> None:
        """A new game: refuses a size ``fn`` does not play (``UnsupportedGame``): one outside
        its sizes, or, tried once on the empty board, one where ``fn`` fails or gives other
        than ``N*N + 1`` logits; a search refuses an ``fn`` that gives no value. The draws and
        the search restart from the seed (the player's own, else the context's)."""
        self._try(game_context(context).size)
        super().reset(context)

    def _try(self, size: int) -> None:
        self._check_size(size)
        if size in self._answered:
            return
        game = Game(size, Rules())
        network = self.network.model
        try:
            _, values = network.call(
                arrange(game.observation()[None], network.features), game.legal_mask()[None]
            )
        except Exception as error:  # a network made for another size fails in many ways
            raise UnsupportedGame(f"{self.name} cannot play {size}x{size}: {error}") from error
        if self.search is not None and values is None:
            raise ValueError(f"{self.name}: searching (simulations > 0) needs fn to return (logits, value)")
        self._found_value(values is not None)
        self._answered.add(size)


class _PolicyOnly(FunctionNetwork):
    """``fn`` that gives logits alone, as a network with a policy head only."""

    heads = ("policy",)  # type: ignore[assignment]

    def run(self, planes: np.ndarray, legal: np.ndarray) -> np.ndarray:  # type: ignore[override]
        return self.call(planes, legal)[0]


@dataclass(frozen=True, kw_only=True)
class TorchOptions(PolicyOptions):
    """``torch``'s options: ``PolicyPlayer``'s, its function a saved program."""

    path: Any = option(None, "the saved program (torch.export.save), or module (torch.jit.save)")
    size: int | None = option(None, "the board size it plays (None: any it answers for)")
    run_code: bool = option(
        False, "load a TorchScript module, which runs the file's own code (only for a file you trust)"
    )
    device: str | None = option(None, "where it runs (cpu, cuda, cuda:N; default: the game's)")
    name: str = option("torch", "the player's name in records")

    FIRST = ("path", "sample", "temperature", "simulations", "size", "device", "seed", "run_code")
    FIXED = {
        **PolicyOptions.FIXED,
        "fn": "it plays its file",
        "board_size": "its size is size=",
        "name": "it is torch",
    }


class TorchPlayer(PolicyPlayer):
    """An exported program, or a TorchScript module, as a player: spec ``torch:PATH`` (see the
    module docs); its options are ``TorchOptions``', the path first.

    Raises:
        NetworkFileError: the file is no exported program (or, with ``run_code``, TorchScript
            module), a corrupt one, or a program that asks for more than data.
        ValueError: bad options.
    """

    Options = TorchOptions
    options: TorchOptions
    positional = (
        "path",
        "sample",
        "temperature",
        "simulations",
        "size",
        "channels_first",
        "layout",
        "device",
        "seed",
        "c_puct",
        "batch",
        "run_code",
    )  # as it took them before its declaration
    name = "torch"

    def __init__(self, *args: Any, **options: Any):
        super().__init__(*args, **options)
        self.path = Path(self.options.path)
        self.module = self.network.model.program.module
        self._device = torch.device("cpu")  # until a reset moves it

    def _sizes(self) -> frozenset[int] | None:
        return _sizes(self.options.size)

    @classmethod
    def _load(cls, options: Any, device: str) -> LoadedNetwork:
        if options.path is None:
            raise TypeError("torch needs the program's path: torch:policy.pt2")
        program = load_torch_program(options.path, run_code=options.run_code)
        network = FunctionNetwork(_program_fn(program), options.layout, options.channels_first, None, "torch")
        network.program = program  # type: ignore[assignment]
        return LoadedNetwork(network, options.size or 0, program.digest)

    @classmethod
    def check_files(cls, context: GameContext | None, options: Any) -> None:
        """The device and the file as the player reads it (and, given a context, the ``size``
        option), without running the network (a TorchScript module's load runs its code: only
        with ``run_code``)."""
        player_device(options.device, context)
        if options.path is not None:
            load_torch_program(options.path, run_code=options.run_code)
        size = options.size
        if context is not None and size is not None and size != context.size:
            raise UnsupportedGame(
                f"torch:{options.path} plays {size}x{size}, not {context.size}x{context.size}"
            )

    def _move(self, context: GameContext) -> None:
        """The module goes to the player's device (its own, else the context's)."""
        self._device = move_networks([self.module], self.device, context)

    def reset(self, context: GameContext) -> None:
        """A new game: the module moves to the player's device first, then as ``PolicyPlayer``'s."""
        self._move(context)
        super().reset(context)

    def weights_digest(self) -> str | None:
        """The sha256 of the file."""
        return self.network.digest


def _program_fn(program: TorchProgram) -> PolicyFn:
    """``(planes, mask) -> outputs`` over a loaded module: its own inputs, and the batch an
    exported program was fixed to (the rows in chunks of it, the last one padded)."""
    module, inputs, batch = program.module, program.inputs, program.batch

    def call(planes: torch.Tensor, mask: torch.Tensor) -> Any:
        arguments = (planes, mask)[:inputs]
        if batch is None:
            return module(*arguments)
        rows = len(planes)
        answers = []
        for start in range(0, rows, batch):
            chunk = [argument[start : start + batch] for argument in arguments]
            missing = batch - len(chunk[0])
            chunk = [torch.cat([part, part[-1:].expand(missing, *part.shape[1:])]) for part in chunk]
            answers.append(module(*chunk))
        if isinstance(answers[0], torch.Tensor):
            return torch.cat(answers)[:rows]
        return tuple(torch.cat(parts)[:rows] for parts in zip(*answers, strict=True))

    return call


def _sizes(board_size: int | Iterable[int] | None) -> frozenset[int] | None:
    if board_size is None:
        return None
    sizes = frozenset([board_size] if isinstance(board_size, int) else board_size)
    if not sizes or not all(isinstance(n, int) and 2 <= n <= 25 for n in sizes):
        raise ValueError(f"board_size must be a board size (2 to 25) or several, got {board_size!r}")
    return sizes
