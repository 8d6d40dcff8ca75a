"""A training job's config: a frozen dataclass whose fields are its command's options.

Each field is declared with ``option``: its default, its help and the check its value must
pass. ``RunConfig`` holds what every job has (seed, learning rate, checkpoint cadence),
``BoardConfig`` what the jobs that play their own games add (board size and komi),
``SupervisedConfig`` what the jobs on expert shards add (data, steps, batch size, held-out
split, log and evaluation cadence), ``NetworkConfig`` what a convolutional network trained on
a schedule adds; a job's config names only its own fields, or another default for one of
these (``redefault``). ``config_parser`` makes the job's command line from the fields, so that
an option is declared once: ``batch_size`` is ``--batch-size``, typed and defaulted from the
field, its help from the field's.
"""

from __future__ import annotations

import argparse
from dataclasses import MISSING, dataclass, fields
from typing import Any

from go_env.game import MAX_SIZE, MIN_SIZE
from go_env.rules import Rules, default_komi
from goarena.agents.declared import check_fields, one_of, option, positive


def positive_finite(name: str, value: float) -> str | None:
    return None if 0 < value < float("inf") else f"{name} must be positive and finite, got {value}"


def board_size(name: str, value: int) -> str | None:
    """A board size the rules core plays (``go_env``'s range)."""
    if MIN_SIZE <= value <= MAX_SIZE:
        return None
    return f"{name} must be a board size from {MIN_SIZE} to {MAX_SIZE}, got {value}"


def at_least_zero(name: str, value: int) -> str | None:
    return None if value >= 0 else f"{name} must be >= 0, got {value}"


def even(name: str, value: int) -> str | None:
    """A positive, even count: half the games with each colour."""
    if value % 2 == 0:
        return positive(name, value)
    return f"{name} must be even (half the games with each colour), got {value}"


def fraction(name: str, value: float) -> str | None:
    """In (0, 1): a fraction of the games."""
    return None if 0 < value < 1 else f"{name} is a fraction of the games in (0, 1), got {value}"


def unit_interval(name: str, value: float) -> str | None:
    """In (0, 1]: a discount, a clip range."""
    return None if 0 < value <= 1 else f"{name} must be in (0, 1], got {value}"


def komi(name: str, value: float | None) -> str | None:
    """A komi the rules take, or None (the board size's)."""
    if value is not None:
        try:
            Rules(komi=value)
        except ValueError as error:
            return str(error)
    return None


def komi_option() -> Any:
    """``--komi``: White's komi; None, the default, is the board size's (``go_env.default_komi``,
    the one default the envs, leagues and data commands read too)."""
    return option(
        None,
        "White's komi, area scoring (default: the board size's, 7 on 9x9, 7.5 on others)",
        check=komi,
        parse=float,
    )


def komi_for(value: float | None, size: int) -> float:
    """``value``, or the komi of a ``size`` board when it is None."""
    return default_komi(size) if value is None else value


LR_SCHEDULES = ("cosine", "constant")


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """The fields of every job's config (the run's config.json holds them all).

    Attributes:
        seed: of every random draw of the run.
        lr: the optimizer's learning rate.
        checkpoint_every: steps between checkpoints.
    """

    seed: int = option(0, "seed of every random draw of the run (weights, data, games)")
    lr: float = option(1e-3, "the optimizer's learning rate", check=positive)
    checkpoint_every: int = option(500, "steps between checkpoints", check=positive)

    def __post_init__(self) -> None:
        check_fields(self)
        self.check()

    def check(self) -> None:
        """What a job checks beyond its fields' own checks (raising ValueError)."""


@dataclass(frozen=True, kw_only=True)
class BoardConfig(RunConfig):
    """A job that plays its own games on one board (``sb3``, ``zero``): ``RunConfig``'s fields
    and the board's size and komi.

    Attributes:
        size: the board size.
        komi: White's komi, area scoring; None, the default, is the board size's
            (``go_env.default_komi``), settled when the config is made (config.json records the number).
    """

    size: int = option(9, "board size", check=board_size)
    komi: float = komi_option()

    def check(self) -> None:
        object.__setattr__(self, "komi", komi_for(self.komi, self.size))

    def rules(self) -> Rules:
        """The rules of the run's games: ``Rules()``'s (area scoring) with the komi."""
        return Rules(komi=self.komi, scoring="area")


@dataclass(frozen=True, kw_only=True)
class SupervisedConfig(RunConfig):
    """A job on expert shards: the fields ``sl``, ``rollout`` and ``value`` share.

    Attributes:
        data: the shard directory.
        steps, batch_size: minibatches, and positions per minibatch.
        held_out: the fraction of games held out.
        log_every: steps between TensorBoard points of the training metrics.
        eval_positions: held-out positions scored at each checkpoint (all of them at the end).
    """

    data: str = option(help="the shard directory (goarena data ...)")
    steps: int = option(4000, "minibatches to train on", check=positive)
    batch_size: int = option(64, "positions per minibatch", check=positive)
    held_out: float = option(0.05, "fraction of the games held out", check=fraction)
    log_every: int = option(50, "steps between TensorBoard points", check=positive)
    eval_positions: int = option(4096, "held-out positions scored at each checkpoint", check=positive)


@dataclass(frozen=True, kw_only=True)
class NetworkConfig(SupervisedConfig):
    """A convolutional network trained with Adam on a schedule (``sl``, ``value``).

    Attributes:
        layers, filters: the network's convolutions and their channels.
        lr_schedule: "cosine" (decayed to 2% of ``lr`` by the last step) or "constant".
    """

    layers: int = option(6, "convolutions in all", check=positive)
    filters: int = option(64, "channels of the convolutions", check=positive)
    lr_schedule: str = option(
        "cosine", "cosine (decayed over the run) or constant", check=one_of(*LR_SCHEDULES)
    )


def config_parser(config: type, prog: str, description: str) -> argparse.ArgumentParser:
    """The command line of the config class ``config``: ``--NAME`` for each field (``_`` as
    ``-``), typed and defaulted from it (a field without a default is a required option, a
    flag for a bool: ``--NAME`` to turn it on, and ``--no-NAME`` where it is on by default),
    its help from the field's."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    for each in fields(config):
        flag = f"--{each.name.replace('_', '-')}"
        help_text = each.metadata.get("help", "")
        if each.default is MISSING:
            parser.add_argument(flag, required=True, help=help_text)
        elif isinstance(each.default, bool):
            action = argparse.BooleanOptionalAction if each.default else "store_true"
            parser.add_argument(flag, action=action, default=each.default, help=help_text)
        else:
            shown = help_text if "default" in help_text else f"{help_text} (default %(default)s)"
            kind = each.metadata.get("parse") or type(each.default)
            parser.add_argument(flag, type=kind, default=each.default, help=shown)
    return parser


def config_from_args(config: type, args: argparse.Namespace) -> Any:
    """The config of class ``config`` from the options ``config_parser`` parsed into ``args``."""
    return config(**{each.name: getattr(args, each.name) for each in fields(config)})
