"""The loop every training job shares: a run directory, resumable checkpoints, logs, progress.

A run directory holds::

    config.json             the job's config; the run resumes only with the same one
    checkpoints/last.pt     the latest training state: every ``checkpoint_every`` steps and at the end
    checkpoints/best.pt     the state with the best held-out metric so far
    tensorboard/            train/* and held_out/* scalars

A job (``TrainingJob``) owns its model, optimizer and data; the loop asks it for one step at a
time by number. Each step's minibatch and augmentation depend on the seed and the step alone
(``EpochSampler``, ``step_rng``), so a run killed at any moment (even ``kill -9``) and started
again from its last checkpoint ends with the same weights, bit for bit on the CPU, as one that
never stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import random
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Protocol, cast

import numba
import numpy as np
import torch
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text
from torch import nn
from torch.utils.tensorboard import SummaryWriter

from goarena.agents.atomic import exclusive_lock, write_atomically
from goarena.agents.data.integrity import DataStorageError, storage_cause
from goarena.agents.nets.checkpoint import read_checkpoint, save_model
from goarena.agents.nets.predict import resolve_device, set_torch_threads
from goarena.agents.protocols import files_digest
from goarena.agents.training.config import config_from_args, config_parser


class RunConfigError(ValueError):
    """A run directory that holds another config than the one asked for, or a run whose data
    changed since it started."""


class RunLockedError(ValueError):
    """A run directory that another ``goarena train`` is training in now."""


class RunStorageError(OSError):
    """The run directory cannot be written: the disk is full, or read-only."""


LOCK = "LOCK"
DATA_DIGEST = "data_manifest_sha256"  # config.json's key for the digest of the data's manifest


def _grows(saved: Any, wanted: Any) -> bool:
    return isinstance(saved, int) and isinstance(wanted, int) and wanted > saved


def data_digest(data: Path | str) -> str | None:
    """The sha256 of the manifest of the shard folder ``data`` (None without one): a run
    resumed on a folder whose shards changed is refused."""
    manifest = Path(data) / "manifest.json"
    return hashlib.sha256(manifest.read_bytes()).hexdigest() if manifest.is_file() else None


class Run:
    """A run directory, held locked until ``close``: writes ``config`` (JSON-safe values, and
    the digest of the data's manifest where there is one) to config.json, or checks that the
    one there is the same.

    Raises:
        RunLockedError: another process trains in the directory now.
        RunConfigError: the directory holds a run with another config (naming the keys), or
            one whose data changed.

    ``extendable`` names keys that may grow on resume (a job whose schedule does not depend
    on its length: ``rounds`` of a zero run), and ``defaults`` the options' defaults: a run
    that began before an option existed resumes when the option is left at its default.
    config.json then records the config as it is now.
    """

    def __init__(
        self,
        directory: Path | str,
        config: Mapping[str, Any],
        data: Path | str | None = None,
        extendable: Sequence[str] = (),
        defaults: Mapping[str, Any] | None = None,
    ):
        self.directory = Path(directory)
        self.extendable = tuple(extendable)
        self.defaults = json.loads(json.dumps(dict(defaults or {})))
        self.config = json.loads(json.dumps(dict(config)))  # as it reads back from the file
        digest = data_digest(data) if data is not None else None
        if digest is not None:
            self.config[DATA_DIGEST] = digest
        with storage(self.directory, "open the run"):
            self.directory.mkdir(parents=True, exist_ok=True)
            self._lock: int | None = _lock(self.directory)
        try:
            self._check_or_write(data)
        except BaseException:
            self.close()
            raise

    def _check_or_write(self, data: Path | str | None) -> None:
        path = self.directory / "config.json"
        saved = None
        if path.exists():
            try:
                saved = json.loads(path.read_text())
            except ValueError as error:
                raise RunConfigError(f"{path} is not JSON: {error}") from None
            differing = self.differences(saved)
            if differing == [DATA_DIGEST] and saved.get(DATA_DIGEST):
                raise RunConfigError(
                    f"{self.directory} was trained on the shards in {data} as they were; they changed "
                    f"since (the sha256 of their manifest was {saved[DATA_DIGEST][:12]}..., now "
                    f"{str(self.config.get(DATA_DIGEST))[:12]}...): use another run directory for the "
                    "new data"
                )
            if differing:
                changes = ", ".join(
                    f"{key}: {saved.get(key)!r} -> {self.config.get(key)!r}" for key in differing
                )
                raise RunConfigError(
                    f"{self.directory} holds a run with another config ({changes}); "
                    "use another run directory, or the same options to resume"
                )
        if saved != self.config:  # a new run, extended, or an option added since it began
            with storage(self.directory, "write the run's config"):
                write_json(path, self.config)

    def differences(self, saved: Mapping[str, Any]) -> list[str]:
        """The keys in which the config ``saved`` (config.json's, or a checkpoint's) differs
        from this run's, less two allowed changes: an ``extendable`` key that grew, and a key
        ``saved`` lacks whose value here is its default (an option added since the run began)."""
        differing = []
        for key in sorted(saved.keys() | self.config.keys()):
            old, new = saved.get(key, MISSING), self.config.get(key, MISSING)
            if old == new or (key in self.extendable and _grows(old, new)):
                continue
            if old is MISSING and key in self.defaults and self.defaults[key] == new:
                continue
            differing.append(key)
        return differing

    def close(self) -> None:
        """Release the directory's lock."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def last(self) -> Path:
        return self.directory / "checkpoints" / "last.pt"

    @property
    def best(self) -> Path:
        return self.directory / "checkpoints" / "best.pt"

    @property
    def log_dir(self) -> Path:
        return self.directory / "tensorboard"


def _lock(directory: Path) -> int:
    """Hold ``directory/LOCK`` locked (exclusively) until the descriptor returned is closed."""
    descriptor = exclusive_lock(directory / LOCK)
    if descriptor is None:
        raise RunLockedError(
            f"{directory} is in use: another goarena train is training there now; wait for it to "
            "end, or use another run directory"
        )
    return descriptor


@contextlib.contextmanager
def storage(directory: Path, doing: str) -> Iterator[None]:
    """A full disk (or one that refuses writes) while doing ``doing`` as one clear error naming
    the run directory, where torch and numpy raise their own kinds."""
    try:
        yield
    except OSError as error:
        named = isinstance(error, (RunStorageError, DataStorageError))  # where is said already
        cause = None if named else storage_cause(error)
        if cause is None:
            raise
        detail = f" ({error})" if cause == "disk full" else ""
        raise RunStorageError(f"cannot {doing} in {directory}: {cause}{detail}") from None
    except RuntimeError as error:  # torch's zip writer reports a short write this way
        if "write" not in str(error).lower():
            raise
        raise RunStorageError(f"cannot {doing} in {directory}: disk full? ({error})") from None


def seed_everything(seed: int, device: torch.device) -> None:
    """Seed torch, numpy and Python's generators; on the CPU, ask torch for deterministic kernels."""
    torch.manual_seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 - the global generator, for code that draws from it
    random.seed(seed)
    if device.type == "cpu":
        torch.use_deterministic_algorithms(True)


def cosine_lr(base: float, step: int, steps: int, floor: float = 0.02) -> float:
    """The learning rate of step ``step`` of ``steps``: ``base`` decayed along a half cosine to
    ``floor * base`` at the end. A function of the step alone, so a resumed run follows it exactly."""
    progress = min(step / steps, 1.0)
    return base * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress)))


def set_lr(optimizer: torch.optim.Optimizer, lr: float) -> None:
    for group in optimizer.param_groups:
        group["lr"] = lr


def step_rng(seed: int, step: int) -> np.random.Generator:
    """The random generator of one step (e.g. its augmentation), a function of seed and step only."""
    return np.random.default_rng([seed, step])


class EpochSampler:
    """Minibatches of ``indices`` by step number: each epoch a new permutation (from the seed
    and the epoch), cut into ``batch_size`` pieces (the last, partial one dropped)."""

    def __init__(self, indices: np.ndarray, batch_size: int, seed: int):
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        if len(indices) < batch_size:
            raise ValueError(f"{len(indices)} training positions cannot fill a batch of {batch_size}")
        self.indices = np.asarray(indices)
        self.batch_size = batch_size
        self.seed = seed
        self.batches_per_epoch = len(self.indices) // batch_size
        self._epoch = -1
        self._order = self.indices

    def batch(self, step: int) -> np.ndarray:
        epoch, position = divmod(step, self.batches_per_epoch)
        if epoch != self._epoch:
            self._order = np.random.default_rng([self.seed, epoch, 1]).permutation(self.indices)
            self._epoch = epoch
        start = position * self.batch_size
        return self._order[start : start + self.batch_size]


class GamePositions(Protocol):
    """Positions that belong to games: what a split by game needs."""

    def __len__(self) -> int: ...

    def split_by_game(self, held_out_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]: ...


class Positions(GamePositions, Protocol):
    @property
    def board_size(self) -> int: ...

    @property
    def batch(self) -> Callable[..., Any]:
        """indices (and augmentation options) -> a batch of planes and targets."""
        ...


@dataclass(frozen=True)
class HeldOutSplit:
    """A data set split by game: minibatches of the training side, the held-out positions,
    and the sorted sample of them scored at each checkpoint."""

    sampler: EpochSampler
    held_out: np.ndarray
    eval_sample: np.ndarray


def held_out_split(
    dataset: GamePositions, fraction: float, batch_size: int, eval_positions: int, seed: int
) -> HeldOutSplit:
    """Split ``dataset`` by game (refusing a split that holds out no game) and draw the
    checkpoints' evaluation sample, all from ``seed``."""
    train_indices, held_out = dataset.split_by_game(fraction, seed)
    if len(held_out) == 0:
        raise ValueError(f"held_out={fraction} holds out no game of {len(dataset)} positions")
    sample = np.random.default_rng([seed, 2]).permutation(held_out)[:eval_positions]
    return HeldOutSplit(EpochSampler(train_indices, batch_size, seed), held_out, np.sort(sample))


class TrainingJob(Protocol):
    """What the loop trains: a model, its optimizer, one step at a time, and a held-out score."""

    @property
    def model(self) -> nn.Module: ...

    @property
    def optimizer(self) -> torch.optim.Optimizer: ...

    def train_step(self, step: int) -> dict[str, float]:
        """One optimizer step on step ``step``'s minibatch (a function of the step alone);
        returns the minibatch's metrics."""
        ...

    def evaluate(self) -> dict[str, float]:
        """Metrics on held-out data."""
        ...


@dataclass(frozen=True)
class Schedule:
    """How long to train and how often to log and checkpoint; ``best_metric`` names the
    held-out metric (higher is better; ``-name``: lower is) that picks the best checkpoint."""

    steps: int
    checkpoint_every: int
    log_every: int = 50
    best_metric: str = "top1"
    unit: str = "step"  # what the progress bar counts: a step, or a round of self-play

    def __post_init__(self) -> None:
        for name in ("steps", "checkpoint_every", "log_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")


def merit(held_out: dict[str, float], metric: str) -> float:
    """The held-out ``metric``'s value, negated for ``-name`` (a metric where lower is better)."""
    return -held_out[metric[1:]] if metric.startswith("-") else held_out[metric]


def train(run: Run, job: TrainingJob, schedule: Schedule, *, progress: bool = True) -> dict[str, float]:
    """Train ``job`` from the run's last checkpoint (or from the start) to ``schedule.steps``;
    returns the held-out metrics at the end."""
    device = next(job.model.parameters()).device
    start, best = 0, -math.inf
    held_out: dict[str, float] = {}
    if run.last.exists():
        start, best, held_out = _restore(job, read_checkpoint(run.last, device), run)
    if start >= schedule.steps:
        return held_out
    writer = SummaryWriter(str(run.log_dir), purge_step=start)  # drops what followed the checkpoint
    sums: dict[str, float] = {}  # the training metrics since the last log, summed over steps
    summed = 0
    bar = progress_bar(schedule.unit, disable=not progress)
    if progress:
        bar.console.print(f"every metric: tensorboard --logdir {run.log_dir}", highlight=False)
    with bar, writer:
        task = bar.add_task("train", total=schedule.steps, completed=start, status="")
        for step in range(start, schedule.steps):
            job.model.train()
            for name, value in job.train_step(step).items():
                sums[name] = sums.get(name, 0.0) + value
            summed += 1
            done = step + 1
            if done % schedule.log_every == 0 or done == schedule.steps:
                means = {name: total / summed for name, total in sums.items()}
                for name, value in means.items():
                    writer.add_scalar(f"train/{name}", value, done)
                sums.clear()
                summed = 0
                bar.update(task, status=key_figures(means))
            if done % schedule.checkpoint_every == 0 or done == schedule.steps:
                job.model.eval()
                held_out = job.evaluate()
                for name, value in held_out.items():
                    writer.add_scalar(f"held_out/{name}", value, done)
                if merit(held_out, schedule.best_metric) > best:
                    best = merit(held_out, schedule.best_metric)
                    # best before last: a crash between the two leaves both sound
                    _save(run.best, job, run, done, best, held_out)
                _save(run.last, job, run, done, best, held_out)
                writer.flush()
            bar.update(task, completed=done)
    return held_out


# The training metrics the progress bar shows (the first ones a job returns: its loss first);
# every metric goes to TensorBoard.
KEY_FIGURES = 3


def key_figures(means: Mapping[str, float]) -> str:
    """The few figures beside the bar: ``loss 3.624 policy_loss 1.961 value_loss 0.981``."""
    return " ".join(f"{name} {value:.3f}" for name, value in list(means.items())[:KEY_FIGURES])


class _Figures(ProgressColumn):
    """The key figures: one line, cut with an ellipsis (the column alone shrinks at a narrow width)."""

    def render(self, task: Task) -> Text:
        return Text(task.fields.get("status", ""), no_wrap=True, overflow="ellipsis")


def progress_bar(
    unit: str = "step", *, disable: bool = False, console: Console | None = None, **kwargs: Any
) -> Progress:
    """The bar of a training run: ``step 120/200``, the time left and the bar first, at any
    width, then the key figures (a ``status`` field), cut short with an ellipsis when the
    terminal is narrow rather than pushing the others out. ``kwargs`` go to ``Progress``."""
    return Progress(
        TextColumn(f"[bold]{unit}", table_column=Column(no_wrap=True)),
        MofNCompleteColumn(table_column=Column(no_wrap=True)),
        TextColumn("left", table_column=Column(no_wrap=True)),
        TimeRemainingColumn(table_column=Column(no_wrap=True)),
        BarColumn(bar_width=20, table_column=Column(no_wrap=True)),
        _Figures(table_column=Column(ratio=1, overflow="ellipsis")),
        disable=disable,
        console=console,
        **kwargs,
    )


def _save(path: Path, job: TrainingJob, run: Run, step: int, best: float, held_out: dict[str, float]) -> None:
    save_model(
        path,
        job.model,
        optimizer=job.optimizer.state_dict(),
        step=step,
        best=best,
        held_out=json.dumps(held_out),
        torch_rng=torch.get_rng_state(),
        rng=json.dumps(_global_rng_states()),
        config=json.dumps(run.config),
    )


def _restore(job: TrainingJob, contents: dict[str, Any], run: Run) -> tuple[int, float, dict[str, float]]:
    if run.differences(json.loads(contents["config"])):
        raise RunConfigError(f"{run.last} was written by a run with another config than config.json")
    job.model.load_state_dict(contents["state_dict"])
    job.optimizer.load_state_dict(contents["optimizer"])
    torch.set_rng_state(contents["torch_rng"].cpu())
    _set_global_rng_states(json.loads(contents["rng"]))
    return int(contents["step"]), float(contents["best"]), json.loads(contents["held_out"])


def _global_rng_states() -> dict[str, Any]:
    """numpy's and Python's global generators as JSON (their states are plain integers)."""
    numpy_state = cast(dict[str, Any], np.random.get_state(legacy=False))  # noqa: NPY002 - for code using it
    numpy_state["state"]["key"] = numpy_state["state"]["key"].tolist()
    version, python_state, gauss = random.getstate()
    return {"numpy": numpy_state, "python": [version, list(python_state), gauss]}


def _set_global_rng_states(states: dict[str, Any]) -> None:
    numpy_state = states["numpy"]
    numpy_state["state"]["key"] = np.array(numpy_state["state"]["key"], np.uint32)
    np.random.set_state(numpy_state)  # noqa: NPY002 - as saved
    version, python_state, gauss = states["python"]
    random.setstate((version, tuple(python_state), gauss))


class Job(TrainingJob, Protocol):
    """A training job as ``run_training`` runs it: a ``TrainingJob`` that exports its weights."""

    def export(self, directory: Path, best: dict[str, Any]) -> dict[str, Any]:
        """Write the weights file of the model as it stands (the loop has loaded the best
        checkpoint's weights, ``best``, into it) into ``directory``; returns the job's entries of
        metrics.json, ``"weights"`` naming the file."""
        ...


@contextlib.contextmanager
def process_threads(threads: int) -> Iterator[None]:
    """torch's and numba's CPU threads for a run (the command owns its process), restored after.
    One by default: the same seed gives the same weights only for the same number of torch
    threads, and a small network gains little from more on a shared CPU."""
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be positive, got {threads}")
    numba_threads, torch_threads = numba.get_num_threads(), torch.get_num_threads()
    set_torch_threads(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
    try:
        yield
    finally:
        numba.set_num_threads(numba_threads)
        torch.set_num_threads(torch_threads)


def run_training(
    config: Any,
    run_dir: Path | str,
    build: Callable[[torch.device], Job],
    best_metric: str,
    *,
    device: str = "cpu",
    threads: int = 1,
    progress: bool = True,
    data: Path | str | None = None,
    extendable: Sequence[str] = (),
) -> dict[str, Any]:
    """Train (or resume) the run of ``config`` (a ``RunConfig`` with ``steps`` and
    ``log_every``) in ``run_dir``: the skeleton every job shares.

    The device and the threads are set, the generators seeded, then ``build(device)`` makes
    the job and checks everything about it (data, options); only then is the run directory
    locked and its config.json written (or compared), so a refused option leaves nothing
    behind. The job trains for ``config.steps`` steps; the checkpoint with the highest held-out
    ``best_metric`` is loaded into the model, the job exports it, and metrics.json gets the
    job's entries, the best step and the weights' digest (the one a player of the file reports).

    Args:
        data: the shard folder the job reads; the digest of its manifest joins config.json,
            so a run resumed after its data changed is refused.
        extendable: config keys that may grow when the run resumes (``Run``).

    Raises:
        RunLockedError, RunConfigError: the directory is in use, or holds another run.
        RunStorageError: the disk is full (or read-only), naming the run directory.
        ValueError: a bad device, thread count, option or data.
    """
    from goarena.agents.nets.load import file_digest

    unit = "round" if hasattr(config, "rounds") else "step"  # self-play counts rounds (zero)
    schedule = Schedule(config.steps, config.checkpoint_every, config.log_every, best_metric, unit)
    torch_device = resolve_device(device)
    with process_threads(threads):
        seed_everything(config.seed, torch_device)
        job = build(torch_device)
        run_config = Run(run_dir, asdict(config), data, extendable, _defaults(config))
        with run_config as run, storage(run.directory, "write the run"):
            train(run, job, schedule, progress=progress)
            best = read_checkpoint(run.best, torch_device)
            job.model.load_state_dict(best["state_dict"])
            job.model.eval()
            metrics = job.export(run.directory, best)
            metrics["step"] = int(best["step"])
            metrics["sha256"] = file_digest(run.directory / metrics["weights"])
            write_json(run.directory / "metrics.json", metrics)
    return metrics


def _defaults(config: Any) -> dict[str, Any]:
    """The value a run that lacks an option (it began before the option was added) goes on
    with: the value runs had before it, where the option declares one, else its default."""
    return {
        each.name: each.metadata.get("before", each.default)
        for each in fields(config)
        if each.default is not MISSING
    }


def as_begun(config: Any, run_dir: Path | str) -> Any:
    """``config`` for the run in ``run_dir``: each option at its default that the run's
    config.json lacks (added since the run began) or holds at the value runs had before it
    (``before``) takes that value, so that a resumed run goes on as it began, at every later
    resumption too (a zero run begun with a 17-plane network keeps it). A new run, or one whose
    config.json is unreadable (``Run`` says so), keeps ``config``."""
    try:
        saved = json.loads((Path(run_dir) / "config.json").read_text())
    except (OSError, ValueError):
        return config
    if not isinstance(saved, dict):
        return config
    begun = {
        each.name: each.metadata["before"]
        for each in fields(config)
        if "before" in each.metadata
        and saved.get(each.name, each.metadata["before"]) == each.metadata["before"]
        and getattr(config, each.name) == each.default
    }
    return replace(config, **begun) if begun else config


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` whole or not at all (``goarena.agents.atomic``)."""
    write_atomically(path, json.dumps(data, indent=2) + "\n")


@dataclass(frozen=True)
class Command:
    """A job as ``goarena train NAME`` runs it (``main``).

    Attributes:
        name: the job's name on the command line.
        description: the command's description.
        config: the job's config class (its fields are the command's options: ``config_parser``).
        train: trains (or resumes) the run of a config in a run directory, with the keywords
            ``device``, ``threads`` and ``progress``; returns the metrics (metrics.json).
        summary: the lines printed after training, from the metrics and the run directory;
            the weights file (with its digest) and metrics.json are named after them.
    """

    name: str
    description: str
    config: type
    train: Callable[..., dict[str, Any]]
    summary: Callable[[dict[str, Any], Path], list[str]]

    def parser(self) -> argparse.ArgumentParser:
        """The config's options, then the run's: ``--run``, ``--device``, ``--threads``, ``--no-progress``."""
        parser = config_parser(self.config, f"goarena train {self.name}", self.description)
        parser.add_argument(
            "--run", required=True, type=Path, help="the run directory (the same one resumes)"
        )
        parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
        parser.add_argument(
            "--threads", type=int, default=1, help="torch's and numba's CPU threads (default 1)"
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        return parser

    def run_options(self, args: argparse.Namespace) -> dict[str, Any]:
        """The keywords of ``train`` beyond the config's and the run's, from the options a
        job's own ``parser`` adds (none by default)."""
        return {}

    def main(self, argv: Sequence[str]) -> None:
        """``goarena train NAME ...`` (``loop.main``)."""
        main(self, argv)


def main(command: Command, argv: Sequence[str]) -> None:
    """``goarena train NAME ...``: parse the job's options, train (or resume) the run, print the
    job's summary and the files written. A bad option, a directory in use, another run's
    directory or a full disk is a message (exit 1); Ctrl-C says how to resume and exits 130, as
    the league does."""
    args = command.parser().parse_args(list(argv))
    try:
        config = config_from_args(command.config, args)
        metrics = command.train(
            config,
            args.run,
            device=args.device,
            threads=args.threads,
            progress=not args.no_progress,
            **command.run_options(args),
        )
    except (ValueError, RunStorageError, DataStorageError) as error:  # RunLockedError, RunConfigError too
        sys.exit(f"goarena train {command.name}: {error}")
    except KeyboardInterrupt:
        resume = f"the same command resumes from the last checkpoint in {args.run}"
        print(f"\ngoarena train {command.name}: stopped; {resume}", file=sys.stderr)
        sys.exit(130)
    for line in command.summary(metrics, args.run):
        print(line)
    if "sha256" in metrics:
        weights = args.run / metrics["weights"]
        # The file's own sha256 (as sha256sum prints it), and the digest a league records for it.
        print(
            f"weights {weights} (file sha256 {files_digest([weights])}; "
            f"weights digest {metrics['sha256'][:16]}..., as leagues record it)"
        )
    print(f"metrics {args.run / 'metrics.json'}")
