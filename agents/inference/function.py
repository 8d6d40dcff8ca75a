"""A function of the position as a network: ``FunctionNetwork`` serves a player's
``fn(planes, mask) -> logits`` or ``-> (logits, value)`` (``players.policy_player``) through
``NetworkEvaluator``, declaring the features it reads (the history planes, float32, in its
layout and axis order) and its heads (policy and value)::

    network = FunctionNetwork(fn, layout="pgx", channels_first=False)
    NetworkEvaluator(policy=network, value=network, cache=0)   # fn may change: no cache

``call`` is ``fn`` on a batch of planes in the network's layout: the logits, and the values
(None where ``fn`` gives logits alone); ``run``, the evaluator's, asks for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch
from torch import nn

from go_env.features import NUM_HISTORY_PLANES
from goarena.agents.nets.features import Features

PolicyFn = Callable[[torch.Tensor, torch.Tensor], Any]  # (planes, mask) -> logits or (logits, value)


class FunctionNetwork(nn.Module):
    """``fn`` as a network with a policy and a value head.

    ``fn`` is held, not registered as a submodule: a module given as ``fn`` is put in eval
    mode for each call and back in training mode after, so a network in training can be
    played between updates.

    Args:
        fn: ``fn(planes, mask) -> logits`` or ``-> (logits, value)`` (``players.policy_player``).
        layout: the planes' order, ``"goarena"``, ``"pgx"`` or ``"go_v5"``.
        channels_first: planes ``[B, 17, N, N]`` (True) or ``[B, N, N, 17]``.
        device: where the planes go (called at each call; the device of ``fn``'s parameters
            when ``fn`` is a module, else the CPU, without it).
        name: the player's name, in errors.
    """

    heads = ("policy", "value")
    fn: PolicyFn

    def __init__(
        self,
        fn: PolicyFn,
        layout: str = "goarena",
        channels_first: bool = True,
        device: Callable[[], torch.device] | None = None,
        name: str = "policy",
    ):
        super().__init__()
        object.__setattr__(self, "fn", fn)
        self.features = Features("history", NUM_HISTORY_PLANES, layout, channels_first, "float32")
        self._device = device
        self.name = name

    def device(self) -> torch.device:
        """Where the planes go."""
        if self._device is not None:
            return self._device()
        if isinstance(self.fn, nn.Module):
            weight = next(self.fn.parameters(), None)
            if weight is not None:
                return weight.device
        return torch.device("cpu")

    def call(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``fn`` on ``planes`` (in the network's features) and legal masks ``[B, N*N+1]``:
        (float32 logits ``[B, N*N+1]``, float64 values ``[B]`` clipped to [-1, 1], or None)."""
        device = self.device()
        x = torch.from_numpy(np.ascontiguousarray(planes, np.float32))
        mask = torch.from_numpy(legal.astype(bool))
        with torch.inference_mode(), eval_mode(self.fn):
            answer = self.fn(x.to(device), mask.to(device))
        if isinstance(answer, (tuple, list)):
            if len(answer) != 2:
                raise ValueError(f"fn must return logits or (logits, value), got {len(answer)} outputs")
            logits, values = _array(answer[0]), _array(answer[1])
        else:
            logits, values = _array(answer), None
        if logits.shape != legal.shape:
            raise ValueError(f"fn gave logits of shape {logits.shape}, not {legal.shape}")
        if values is None:
            return logits.astype(np.float32), None
        if values.size != len(legal):
            raise ValueError(f"fn gave values of shape {values.shape}, not ({len(legal)},)")
        return logits.astype(np.float32), np.clip(values.reshape(-1).astype(np.float64), -1.0, 1.0)

    def run(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(logits, values) for the evaluator, which needs the value."""
        logits, values = self.call(planes, legal)
        if values is None:
            raise ValueError(f"{self.name}: searching (simulations > 0) needs fn to return (logits, value)")
        return logits, values


@contextmanager
def eval_mode(fn: object) -> Iterator[None]:
    """A module in training mode is in eval mode inside, and back in training mode after."""
    module = fn if isinstance(fn, nn.Module) and fn.training else None
    if module is not None:
        try:
            module.train(False)
        except NotImplementedError:  # an exported program's module has no modes
            module = None
    try:
        yield
    finally:
        if module is not None:
            module.train(True)


def _array(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().float().cpu().numpy()
    return np.asarray(value)
