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

It plays the most likely legal move (``sample=False``) or draws one from
``softmax(logits / temperature)`` over the legal moves (``sample=True``). With
``simulations > 0`` it searches with PUCT (``PUCTAgent``), ``fn``'s policy over the legal
moves as the priors and its value as the leaf value; search needs the value, so ``fn`` must
then return ``(logits, value)`` (checked at ``reset``: there is no value without a network
that gives one, and random playouts would be another player). The search plays its most
visited move, or with ``sample=True`` draws one in proportion to ``visits ** (1 /
temperature)``.

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
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from go_env import Game, Rules
from go_env.features import check_layout
from goarena.agents.inference.features import arrange
from goarena.agents.inference.function import FunctionNetwork
from goarena.agents.inference.network import NetworkEvaluator
from goarena.agents.nets.load import TorchProgram, load_torch_program
from goarena.agents.nets.predict import masked_softmax, move_networks, player_device, resolve_device
from goarena.agents.players.search import PUCTAgent, SearchedNetwork
from goarena.agents.protocols import (
    Action,
    GameContext,
    UnsupportedGame,
    game_context,
)
from goarena.search import Leaves

PolicyFn = Callable[[torch.Tensor, torch.Tensor], Any]  # (planes, mask) -> logits or (logits, value)


class PolicyPlayer(SearchedNetwork):
    """A function of the position, most often a torch module, as a player (see the module docs).

    Args:
        fn: ``fn(planes, mask) -> logits`` or ``-> (logits, value)``.
        sample: draw the move (from the policy, or the search's visits) rather than play the
            most likely (most visited) one.
        temperature: the draw's temperature, above 0 (used with ``sample`` only).
        simulations: 0 plays from the policy alone; above 0, PUCT with this many simulations
            per move (``fn`` must give a value).
        c_puct: PUCT's exploration constant.
        batch: leaves per call of ``fn`` in the search.
        board_size: the board size, or sizes, ``fn`` plays (None: any it answers for).
        channels_first: planes ``[B, 17, N, N]`` (True) or ``[B, N, N, 17]``.
        layout: the planes' order, as the env's ``observation_layout``: ``"goarena"``,
            ``"pgx"`` or ``"go_v5"``.
        device: where the planes go when ``fn`` is no module with parameters (default cpu).
        seed: seed of the draws and of the search.
        name: the player's name in records.
        search_options: more ``PUCTAgent`` options (``fpu``, ``noise``, ``resign_threshold``, ...).

    Raises:
        ValueError: bad options.
    """

    def __init__(
        self,
        fn: PolicyFn,
        *,
        sample: bool = False,
        temperature: float = 1.0,
        simulations: int = 0,
        c_puct: float = 1.5,
        batch: int = 8,
        board_size: int | Iterable[int] | None = None,
        channels_first: bool = True,
        layout: str = "goarena",
        device: str | None = None,
        seed: int | None = None,
        name: str = "policy",
        **search_options: Any,
    ):
        _check_options(sample, temperature, simulations, layout, search_options)
        self.fn = fn
        self.sample = sample
        self.temperature = float(temperature)
        self.board_sizes = _sizes(board_size)
        self.channels_first = channels_first
        self.layout = layout
        self._device = resolve_device(device) if device is not None else None
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.name = name
        self._answered: set[int] = set()  # the sizes fn was tried on at reset
        self.search: PUCTAgent | None = None
        if simulations:
            self.search = PUCTAgent(
                simulations=simulations,
                evaluator=self._evaluate_leaves,
                c_puct=c_puct,
                batch=batch,
                temperature=self.temperature if sample else 0.0,
                seed=seed,
                **search_options,
            )

    def reset(self, context: GameContext) -> None:
        """A new game: refuses a size ``fn`` does not play (``UnsupportedGame``); the draws and
        the search restart from the seed (the player's own, else the context's)."""
        self._check_size(game_context(context).size)
        self.restart(context)

    def weights_digest(self) -> str | None:
        return None

    def evaluate(self, game: Game) -> tuple[np.ndarray, float | None]:
        """(float64[N*N+1]: ``fn``'s policy over the legal moves, its value for the side to
        move or None) of ``game``, without search."""
        legal = game.legal_mask()[None]
        logits, values = self._outputs(game.observation()[None], legal)
        return masked_softmax(logits, legal)[0], None if values is None else float(values[0])

    def act(self, game: Game) -> Action:
        """The move ``select_move`` plays, with the policy behind it (the search's visit
        distribution when searching) and the value."""
        if self.search is not None:
            return self.search.act(game)
        legal = game.legal_mask()[None]
        logits, values = self._outputs(game.observation()[None], legal)
        policy = masked_softmax(logits, legal)[0]
        if self.sample:
            weights = policy if self.temperature == 1 else masked_softmax(logits, legal, self.temperature)[0]
            move = int(self.rng.choice(len(weights), p=weights))
        else:
            move = int(policy.argmax())
        value = None if values is None else float(values[0])
        return Action(move, policy, value)

    # -- calling fn ----------------------------------------------------------------------

    def _check_size(self, size: int) -> None:
        if self.board_sizes is not None and size not in self.board_sizes:
            sizes = ", ".join(f"{n}x{n}" for n in sorted(self.board_sizes))
            raise UnsupportedGame(f"{self.name} plays {sizes}, not {size}x{size}")
        if size in self._answered:
            return
        game = Game(size, Rules())
        try:
            _, values = self._outputs(game.observation()[None], game.legal_mask()[None])
        except Exception as error:  # a network made for another size fails in many ways
            raise UnsupportedGame(f"{self.name} cannot play {size}x{size}: {error}") from error
        if self.search is not None and values is None:
            raise ValueError(f"{self.name}: searching (simulations > 0) needs fn to return (logits, value)")
        self._answered.add(size)

    def _input_device(self) -> torch.device:
        if self._device is not None:
            return self._device
        if isinstance(self.fn, nn.Module):
            weight = next(self.fn.parameters(), None)
            if weight is not None:
                return weight.device
        return torch.device("cpu")

    # fn as a network (``inference.function``) and the search's evaluator over it, made at first use
    _function_network: FunctionNetwork | None = None
    _leaf_evaluator: NetworkEvaluator | None = None

    def _network(self) -> FunctionNetwork:
        if self._function_network is None:
            self._function_network = FunctionNetwork(
                self.fn, self.layout, self.channels_first, self._input_device, self.name
            )
        return self._function_network

    def _outputs(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``fn`` on history planes int8 ``[B, N, N, 17]`` and legal masks ``[B, N*N+1]``:
        (float32 logits ``[B, N*N+1]``, float64 values ``[B]`` clipped to [-1, 1], or None)."""
        network = self._network()
        return network.call(arrange(planes, network.features), legal)

    def _evaluate_leaves(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        """The search's evaluator: ``fn``'s priors over the legal moves and its values, through
        one ``NetworkEvaluator`` (no cache: ``fn`` may change between moves)."""
        if self._leaf_evaluator is None:
            network = self._network()
            self._leaf_evaluator = NetworkEvaluator(network, network, cache=0)
        return self._leaf_evaluator.evaluate(leaves)


class TorchPlayer(PolicyPlayer):
    """An exported program, or a TorchScript module, as a player: spec ``torch:PATH`` (see the
    module docs).

    Args:
        path: the saved program (``torch.export.save``), or module (``torch.jit.save``).
        size: the board size it plays (None: any it answers for).
        run_code: load a TorchScript module, which runs the file's own code (only for a file
            you trust); without it, a TorchScript module is refused.
        device: where it runs (cpu, cuda, cuda:N); None: where the game's context says
            (``GameContext.device``). Resolved, and the module moved there, at ``reset``.
        The others: as ``PolicyPlayer``'s.

    Raises:
        NetworkFileError: the file is no exported program (or, with ``run_code``, TorchScript
            module), a corrupt one, or a program that asks for more than data.
        ValueError: bad options.
    """

    def __init__(
        self,
        path: Path | str,
        sample: bool = False,
        temperature: float = 1.0,
        simulations: int = 0,
        size: int | None = None,
        channels_first: bool = True,
        layout: str = "goarena",
        device: str | None = None,
        seed: int | None = None,
        c_puct: float = 1.5,
        batch: int = 8,
        run_code: bool = False,
        **search_options: Any,
    ):
        _check_run_code(run_code)
        program = load_torch_program(path, run_code=run_code)
        super().__init__(
            _program_fn(program),
            sample=sample,
            temperature=temperature,
            simulations=simulations,
            c_puct=c_puct,
            batch=batch,
            board_size=size,
            channels_first=channels_first,
            layout=layout,
            seed=seed,
            name="torch",
            **search_options,
        )
        self.path = Path(path)
        self.module = program.module
        self.device = device
        self._device = torch.device("cpu")  # until a reset moves it
        self._digest = program.digest

    @staticmethod
    def check_options(
        context: GameContext | None,
        path: Path | str | None = None,
        sample: bool = False,
        temperature: float = 1.0,
        simulations: int = 0,
        size: int | None = None,
        channels_first: bool = True,
        layout: str = "goarena",
        device: str | None = None,
        seed: int | None = None,
        c_puct: float = 1.5,
        batch: int = 8,
        run_code: bool = False,
        **search_options: Any,
    ) -> None:
        """Check the options and, given the path, the file as the player reads it (and, given
        a context, the device and the ``size`` option), without running the network (a
        TorchScript module's load runs its code: only with ``run_code``)."""
        _check_options(sample, temperature, simulations, layout, search_options)
        _check_run_code(run_code)
        player_device(device, context)
        if simulations:
            PUCTAgent(simulations=simulations, c_puct=c_puct, batch=batch, **search_options)
        if path is not None:
            load_torch_program(path, run_code=run_code)
        if context is not None and size is not None and size != context.size:
            raise UnsupportedGame(f"torch:{path} plays {size}x{size}, not {context.size}x{context.size}")

    def reset(self, context: GameContext) -> None:
        """A new game: moves the module to the player's device (its own, else the context's),
        then as ``PolicyPlayer.reset``."""
        self._device = move_networks([self.module], self.device, context)
        super().reset(context)

    def weights_digest(self) -> str:
        """The sha256 of the file."""
        return self._digest


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


def _check_run_code(run_code: object) -> None:
    if not isinstance(run_code, bool):
        raise ValueError(f"run_code must be true or false, got {run_code!r}")


def _check_options(
    sample: bool, temperature: float, simulations: int, layout: str, search_options: dict[str, Any]
) -> None:
    if not isinstance(sample, bool):
        raise ValueError(f"sample must be true or false, got {sample!r}")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
        raise ValueError(f"temperature must be a number, got {temperature!r}")
    if not 0 < temperature < math.inf:
        raise ValueError(f"temperature must be finite and above 0, got {temperature!r}")
    if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 0:
        raise ValueError(f"simulations must be an integer >= 0 (0: no search), got {simulations!r}")
    check_layout(layout, "layout")
    if search_options and not simulations:
        raise ValueError(f"{', '.join(sorted(search_options))}: search options need simulations > 0")
