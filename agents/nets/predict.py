"""Numpy in, numpy out: a network's move distribution for callers that never touch torch.

The module is put in eval mode and run under ``torch.inference_mode`` on the device and in
the precision of its weights; planes go in as any real dtype, probabilities come out as float64.
"""

from __future__ import annotations

from collections.abc import Iterable

import numba
import numpy as np
import torch
from torch import nn

from goarena.agents.protocols import GameContext


def set_torch_threads(threads: int) -> None:
    """Set torch's CPU threads: for whoever owns the process (a league worker, a command),
    never a player. numba resets them to the core count when it starts its own
    thread pool (on its first parallel kernel), so that pool is started first."""
    numba.get_num_threads()
    torch.set_num_threads(threads)


# bfloat16 runs the convolutions about 1.5 times faster on CPUs with AVX512-BF16 (and on
# GPUs), at about 0.1 in the logits; "auto" takes it where the CPU computes it natively.
PRECISIONS = {"float32": torch.float32, "bfloat16": torch.bfloat16}
PRECISION_NAMES = ("auto", *PRECISIONS)


def auto_precision() -> str:
    """bfloat16 where the CPU computes it natively (AVX512-BF16), else float32."""
    native = getattr(torch.cpu, "_is_avx512_bf16_supported", None)  # torch's own probe, private
    return "bfloat16" if native is not None and native() else "float32"


def resolve_precision(name: str) -> torch.dtype:
    """``"float32"``, ``"bfloat16"`` or ``"auto"`` (``auto_precision``) as a torch dtype."""
    if name not in PRECISION_NAMES:
        raise ValueError(f"unknown precision {name!r}: {', '.join(PRECISION_NAMES)}")
    return PRECISIONS[auto_precision() if name == "auto" else name]


def resolve_device(name: str) -> torch.device:
    """``"cpu"``, ``"cuda"`` or ``"cuda:N"`` as a device, refusing a CUDA device that is absent."""
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        raise ValueError(f"unknown device {name!r}: use cpu or cuda") from None
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"unsupported device {name!r}: use cpu or cuda")
    if device.type == "cuda":
        if not torch.cuda.is_available():
            why = "torch was built without CUDA" if torch.version.cuda is None else "no GPU is visible"
            raise ValueError(f"device {name!r} asked for, but CUDA is not available ({why})")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ValueError(f"device {name!r} asked for, but there are {torch.cuda.device_count()} GPUs")
    return device


def player_device(own: str | None, context: GameContext | None) -> torch.device:
    """Where a network player runs the game of ``context``: its own ``device`` option, else
    the context's (the league's ``--device``; the CPU without a context). Every network
    player resolves its device by this, at ``reset`` (moving its networks there) and in its
    ``check_options``.

    Raises:
        ValueError: an unknown or unsupported device, or a CUDA device that is absent.
    """
    if own is None:
        own = context.device if context is not None else "cpu"
    return resolve_device(own)


def move_networks(modules: Iterable[nn.Module | None], own: str | None, context: GameContext) -> torch.device:
    """Move ``modules`` (None skipped) to ``player_device(own, context)``; that device."""
    device = player_device(own, context)
    for module in modules:
        if module is not None:
            module.to(device)
    return device


def forward(model: nn.Module, planes: np.ndarray) -> torch.Tensor:
    """The model's output for ``planes``, in eval mode and inference mode, the planes cast to
    the weights' device and precision (channels last on the CPU)."""
    weight = next(model.parameters())
    if model.training:  # eval() walks every module: only when needed
        model.eval()
    with torch.inference_mode():
        inputs = torch.as_tensor(planes, dtype=weight.dtype, device=weight.device)
        if inputs.dim() == 4 and inputs.device.type == "cpu":
            # oneDNN's convolutions run about 15% faster on channels-last input (4 x 32 at batch 8)
            inputs = inputs.contiguous(memory_format=torch.channels_last)
        return model(inputs)


def policy_logits(model: nn.Module, planes: np.ndarray) -> np.ndarray:
    """float32[B, N*N+1]: the network's logits for ``planes`` [B, C, N, N]."""
    if planes.ndim != 4:
        raise ValueError(f"planes must be a batch [B, C, N, N], got shape {planes.shape}")
    return forward(model, planes).float().cpu().numpy()


def masked_softmax(logits: np.ndarray, legal: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """float64[B, A]: softmax(logits / temperature) over the legal moves (``legal`` nonzero),
    0 elsewhere; ``temperature`` 0 puts all the mass on the best legal move."""
    if logits.shape != legal.shape:
        raise ValueError(f"logits {logits.shape} and legal mask {legal.shape} differ in shape")
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    allowed = legal.astype(bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a position has no legal move (is the game over?)")
    masked = np.where(allowed, logits.astype(np.float64), -np.inf)
    if temperature == 0:
        best = np.zeros_like(masked)
        np.put_along_axis(best, masked.argmax(axis=-1)[..., None], 1.0, axis=-1)
        return best
    scaled = masked / temperature
    weights = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)
