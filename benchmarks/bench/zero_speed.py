"""``goarena bench zero``: AlphaZero's throughput, measured in one run.

1. The network alone: forward passes (positions) per second at each batch size, on 1 and 2
   torch threads, in float32 and bfloat16 (the weights and the inputs cast), over the history
   planes of mid-game positions of random games.
2. Self-play: the network's evaluations per second while self-play runs on one thread (torch
   and numba), with as many games as the batch size and one leaf per game per search step, so
   that each forward pass evaluates about that many positions; for PUCT and for Gumbel. Each
   timed step is the work of a self-play move: the search, the recorded policy targets and
   planes, and the move played (resignation's few array operations a move are left out); the
   games start from the empty board and a new batch starts when all are over. Its ratio to the
   raw float32 forward rate at the same batch on one thread (measured just before and after)
   says how busy search and features leave the network (the aim: at least 80%, i.e. they
   cost at most a fifth).
3. Games per hour: ``SelfPlayWorkers`` plays the same seeded shards (``goarena train zero``'s
   default: 2 shards of 32 games, ``SelfPlaySettings``' defaults with the search asked for)
   with 1 worker (this process, one torch and one numba thread) and with 2 worker processes.
   The processes are started and warmed up on a few quick games before the clock starts.
   With ``--search puct`` the games are played with and without tree reuse, and the table
   gives the network evaluations a move of each: what the kept subtrees save.
4. At play: a player's simulations a second on one core (one torch and one numba thread),
   playing both sides of a game from the empty board at ``--play-simulations`` a move: the
   ``zero`` player with its defaults, and with the batch it takes under a time budget,
   against the zero player as it searched before (``BASELINE_PLAYER``: eight leaves a forward
   pass, float32), same network.

Every measurement runs after a warm-up call outside the clock (numba's compile or cache load,
torch's first call). Torch's and numba's threads are set for each part and restored after.

    goarena bench zero
    goarena bench zero --weights run/generations/gen-0005.pt --seconds 1 --json
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numba
import numpy as np
import torch
from torch import nn

from go_env import GameBatch, Rules
from go_env import core as K
from go_env.features import NUM_HISTORY_PLANES
from goarena.agents.inference.features import FeatureBuilder
from goarena.agents.inference.network import NetworkEvaluator
from goarena.agents.nets.checkpoint import load_model, save_model
from goarena.agents.nets.zero import ZeroNet
from goarena.agents.players.search import TIMED_BATCH
from goarena.agents.training.selfplay import SEARCHES, SelfPlaySettings, make_search
from goarena.agents.training.workers import SelfPlayWorkers
from goarena.agents.weights import ZERO_9X9
from goarena.benchmarks.bench import add_seconds
from goarena.benchmarks.bench.feature_speed import random_batch

BATCHES = (1, 16, 64, 256)
THREADS = (1, 2)
PRECISIONS = {"float32": torch.float32, "bfloat16": torch.bfloat16}
WORKERS = (1, 2)
AIM = 0.8  # the aim: self-play keeps the network at least this busy
BUSY = 0.5  # a load average from which the report says that other work shared the cores
# A fresh network has ``goarena train zero``'s default architecture on 9x9 (komi read, score head).
DEFAULT_SIZE, DEFAULT_BLOCKS, DEFAULT_FILTERS = 9, 4, 32


def rules() -> Rules:
    """``goarena train zero``'s default rules: komi 7, area scoring."""
    return Rules(komi=7.0, scoring="area")


@dataclass
class ForwardRow:
    """The network alone at one batch size, thread count and precision."""

    batch: int
    threads: int
    precision: str
    positions_per_second: float | None  # None: not measured (``note`` says why)
    note: str = ""


@dataclass
class SelfPlayRow:
    """Self-play's network evaluations at one batch size (games), on one thread."""

    search: str
    batch: int
    evaluations_per_second: float
    mean_batch: float  # positions per forward pass, on average (fewer once games end)
    forward_per_second: (
        float  # the raw float32 forward rate at the same batch, one thread, measured around it
    )
    share: float  # evaluations_per_second / forward_per_second


@dataclass
class GamesRow:
    """Whole self-play games played by ``workers`` processes."""

    workers: int
    games: int
    moves: int
    seconds: float
    games_per_hour: float
    evaluations: int = 0  # positions the network evaluated
    tree_reuse: bool = False


@dataclass
class PlayRow:
    """A player searching at play, on one core: its simulations a second over a game's moves."""

    player: str
    moves: int
    simulations: int
    seconds: float
    simulations_per_second: float


@dataclass
class Report:
    """Everything one run of the bench measured."""

    network: str
    board_size: int
    simulations: int
    cores: int | None
    load_before: float
    load_after: float = 0.0
    bfloat16_native: bool | None = None  # the CPU computes in bfloat16 (None: unknown)
    forward: list[ForwardRow] = field(default_factory=list)
    selfplay: list[SelfPlayRow] = field(default_factory=list)
    games: list[GamesRow] = field(default_factory=list)
    play: list[PlayRow] = field(default_factory=list)


# -- the network --------------------------------------------------------------------------------


def zero_network(
    weights: Path | str | None = None,
    size: int | None = None,
    blocks: int | None = None,
    filters: int | None = None,
) -> tuple[ZeroNet, str]:
    """(network, description): the one in ``weights``; else a fresh one where an architecture
    option is given or no 9x9 network is shipped; else the shipped 9x9 one.

    Raises:
        ValueError: ``weights`` together with an architecture option, or a file that is no
            ``ZeroNet`` checkpoint (naming the file).
    """
    fresh = {"--size": size, "--blocks": blocks, "--filters": filters}
    if weights is not None:
        given = [name for name, value in fresh.items() if value is not None]
        if given:
            raise ValueError(f"{', '.join(given)} describe a fresh network; --weights {weights} has its own")
        return _loaded(Path(weights))
    if all(value is None for value in fresh.values()) and ZERO_9X9.is_file():
        return _loaded(ZERO_9X9)
    torch.manual_seed(0)
    model = ZeroNet(
        size or DEFAULT_SIZE,
        blocks or DEFAULT_BLOCKS,
        filters or DEFAULT_FILTERS,
        rules_input=True,
        score_head=True,
    )
    return model.eval(), f"a fresh ZeroNet ({_shape(model)})"


def _loaded(path: Path) -> tuple[ZeroNet, str]:
    model = load_model(path)
    if not isinstance(model, ZeroNet):
        raise ValueError(
            f"--weights {path}: a {getattr(model, 'arch', type(model).__name__)} network, not a ZeroNet"
        )
    return model, f"{path.name} ({_shape(model)})"


def _shape(model: ZeroNet) -> str:
    size, blocks, filters = (model.kwargs[key] for key in ("board_size", "blocks", "filters"))
    return f"{size}x{size}, {blocks} blocks x {filters} filters"


def bfloat16_native() -> bool | None:
    """Whether this CPU computes in bfloat16 (AVX512-BF16 or AMX) rather than converting to
    float32 and back; None where torch cannot say."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return None


@contextmanager
def threads(torch_threads: int, numba_threads: int | None = None) -> Iterator[None]:
    """Torch's (and numba's, if given: at most the threads it has now) CPU threads set for the
    block, restored after."""
    numba_before = numba.get_num_threads()  # starts numba's pool first: it resets torch's threads
    torch_before = torch.get_num_threads()
    torch.set_num_threads(torch_threads)
    if numba_threads is not None:
        numba.set_num_threads(min(numba_threads, numba_before))
    try:
        yield
    finally:
        numba.set_num_threads(numba_before)
        torch.set_num_threads(torch_before)


def rate(step: Callable[[], int], seconds: float) -> float:
    """Items per second of ``step`` (which returns the items it did) over at least ``seconds``
    and one call, after one call outside the clock."""
    step()
    done, start = 0, time.perf_counter()
    while True:
        done += step()
        spent = time.perf_counter() - start
        if spent >= seconds:
            return done / spent


def sample_planes(size: int, batch_size: int, seed: int = 0, planes: int = NUM_HISTORY_PLANES) -> np.ndarray:
    """int8[B, C, N, N]: the ``planes`` history planes (19: and the rules planes) of
    ``batch_size`` random games with half the board played."""
    batch = random_batch(size, batch_size, moves=size * size // 2, seed=seed)
    built = FeatureBuilder("history", planes).build(batch.state, batch.geometry)
    return np.ascontiguousarray(np.moveaxis(built, -1, 1))


def forward_rate(model: nn.Module, planes: np.ndarray, dtype: torch.dtype, seconds: float) -> float:
    """Positions per second of ``model`` alone (already in ``dtype``) on ``planes``."""
    inputs = torch.as_tensor(planes, dtype=dtype)

    def step() -> int:
        with torch.inference_mode():
            model(inputs)
        return len(inputs)

    return rate(step, seconds)


def measure_forward(
    model: ZeroNet, batches: list[int], thread_counts: list[int], seconds: float, seed: int = 0
) -> list[ForwardRow]:
    """Forward passes per second at every batch size, thread count and precision."""
    model.eval()
    rows = []
    planes = {batch: sample_planes(model.board_size, batch, seed, model.planes) for batch in batches}
    for name, dtype in PRECISIONS.items():
        cast = model if dtype == torch.float32 else copy.deepcopy(model).to(dtype)
        why = _unsupported(cast, planes[batches[0]], dtype)
        for count in thread_counts:
            with threads(count):
                for batch in batches:
                    measured = None if why else forward_rate(cast, planes[batch], dtype, seconds)
                    rows.append(ForwardRow(batch, count, name, measured, why))
    return rows


def _unsupported(model: nn.Module, planes: np.ndarray, dtype: torch.dtype) -> str:
    """Why ``model`` cannot run in ``dtype`` here ("" if it can)."""
    try:
        with torch.inference_mode():
            model(torch.as_tensor(planes, dtype=dtype))
    except (RuntimeError, TypeError) as error:
        return f"torch: {str(error).splitlines()[0]}"
    return ""


# -- self-play ----------------------------------------------------------------------------------


class SelfPlayMoves:
    """The work of self-play's moves over ``batch_size`` games, one leaf per game per search
    step (``step`` plays one move of every running game; a new batch once all are over)."""

    def __init__(self, model: ZeroNet, search: str, batch_size: int, simulations: int, seed: int = 0):
        self.settings = SelfPlaySettings(search=search, simulations=simulations)
        self.evaluator = NetworkEvaluator(policy=model, value=model, cache=0)  # every leaf run
        self.searcher = make_search(self.evaluator, self.settings, seed, full=True)
        self.size, self.batch_size, self.seed = model.board_size, batch_size, seed
        self.features = FeatureBuilder("history", model.planes)
        self.batches = 0
        self.batch = self.new_batch()
        self.calls = 0  # evaluator calls
        self.recorded: tuple[np.ndarray, np.ndarray] | None = None

    def new_batch(self) -> GameBatch:
        self.batches += 1
        return GameBatch(self.size, self.batch_size, rules(), seed=self.seed + self.batches)

    def step(self) -> int:
        """One self-play move of every running game; the positions the network evaluated."""
        if self.batch.is_over.all():
            self.batch = self.new_batch()
        batch, searcher = self.batch, self.searcher
        before = self.evaluator.evaluations
        moves = searcher.search(batch, self.settings.simulations)
        self.calls += searcher.evaluations
        running = np.flatnonzero(~batch.is_over)
        targets = searcher.policy_targets()
        opening = batch.state.info[:, K.INFO_MOVE_NUMBER] < self.settings.temperature_moves
        moves = np.where(opening, searcher.choose_moves(1.0), moves)
        planes = self.features.build(batch.state, batch.geometry)
        self.recorded = (
            planes[running].copy(),
            targets[running].astype(np.float32),
        )  # as self-play keeps
        searcher.play(batch, moves)
        return self.evaluator.evaluations - before


def selfplay_rate(
    model: ZeroNet, search: str, batch_size: int, seconds: float, simulations: int, seed: int = 0
) -> tuple[float, float]:
    """(network evaluations per second, mean positions per forward pass) of self-play's moves
    over ``batch_size`` games, on the threads set by the caller."""
    moves = SelfPlayMoves(model, search, batch_size, simulations, seed)
    moves.step()  # warm up outside the clock (compiles or loads the kernels), then time fresh games
    moves.batch, moves.calls = moves.new_batch(), 0
    first = moves.evaluator.evaluations
    evaluations_per_second = rate(moves.step, seconds)
    # The mean batch counts every call since the warm-up (``rate``'s own untimed first one too).
    return evaluations_per_second, (moves.evaluator.evaluations - first) / max(moves.calls, 1)


def measure_selfplay(
    model: ZeroNet, batches: list[int], searches: list[str], seconds: float, simulations: int, seed: int = 0
) -> list[SelfPlayRow]:
    """Self-play's evaluations per second on one thread at every batch size, each against the
    raw float32 forward rate at the same batch, measured just before and just after the
    searches at that batch (the mean of the two: on shared cores the load drifts)."""
    rows = []
    with threads(1, 1):
        for batch in batches:
            planes = sample_planes(model.board_size, batch, seed, model.planes)
            before = forward_rate(model, planes, torch.float32, seconds)
            measured = {
                search: selfplay_rate(model, search, batch, seconds, simulations, seed) for search in searches
            }
            reference = (before + forward_rate(model, planes, torch.float32, seconds)) / 2
            for search, (evaluations, mean_batch) in measured.items():
                rows.append(
                    SelfPlayRow(search, batch, evaluations, mean_batch, reference, evaluations / reference)
                )
    return sorted(rows, key=lambda row: searches.index(row.search))


# -- games per hour -----------------------------------------------------------------------------


def games_per_hour(
    model: ZeroNet, workers: int, settings: SelfPlaySettings, games: int, shards: int, seed: int = 0
) -> GamesRow:
    """Whole games of ``shards`` shards of ``games`` games (the same seeds whatever
    ``workers``), played by ``SelfPlayWorkers(workers)`` after a warm-up of one quick game
    a worker."""
    quick = SelfPlaySettings(search=settings.search, simulations=2, cheap_simulations=1)
    pool = SelfPlayWorkers(workers)
    try:
        with threads(1, 1):  # one worker plays here: on one thread, as each worker process does
            pool.play(model, 1, rules(), quick, [seed + 1000 + w for w in range(workers)])
            start = time.perf_counter()
            played = pool.play(model, games, rules(), settings, [seed + shard for shard in range(shards)])
            spent = time.perf_counter() - start
    finally:
        pool.close()
    total = sum(len(shard.lengths) for shard in played)
    moves = sum(int(shard.lengths.sum()) for shard in played)
    evaluations = sum(shard.evaluations for shard in played)
    return GamesRow(workers, total, moves, spent, 3600.0 * total / spent, evaluations, settings.tree_reuse)


# -- at play ------------------------------------------------------------------------------------

# The zero player as it searched before the search at play was tuned: eight leaves a forward
# pass, in float32 (its batch norms now folded and its leaves not kept, as every player's).
# The bench compares with it the player's defaults for a number of simulations, and the batch
# it takes under a time budget.
BASELINE_PLAYER = "zero:batch=8,precision=float32"
PLAYERS = (BASELINE_PLAYER, "zero", f"zero:batch={TIMED_BATCH}")
PLAY_MOVES = 20


def with_options(spec: str, **options: object) -> str:
    """``spec`` with ``options`` added (``zero`` + simulations=400 -> ``zero:simulations=400``)."""
    extra = ",".join(f"{name}={value}" for name, value in options.items() if value is not None)
    if not extra:
        return spec
    return f"{spec},{extra}" if ":" in spec else f"{spec}:{extra}"


def play_rate(spec: str, weights: Path, size: int, simulations: int, moves: int = PLAY_MOVES) -> PlayRow:
    """The player of ``spec`` with the network in ``weights`` plays both sides of a game from
    the empty board (komi 7) with ``simulations`` a move, on one torch and one numba thread;
    the moves after the first (its warm-up) are timed, their searches counted as
    ``simulations`` each."""
    from go_env import Game
    from goarena.agents.protocols import GameContext
    from goarena.agents.specs import make_agent

    player = make_agent(with_options(spec, simulations=simulations, weights=weights), seed=0)
    game, timed = Game(size, rules()), 0.0
    with threads(1, 1):
        player.reset(GameContext(size=size, rules=game.rules))
        for number in range(moves + 1):
            started = time.perf_counter()
            move = player.select_move(game)
            timed += (time.perf_counter() - started) if number else 0.0
            game.play(move)
            player.observe_move(game, move)  # type: ignore[attr-defined]  # the search players observe
            if game.is_over:
                break
    played = max(number, 1)
    return PlayRow(spec, played, simulations, timed, played * simulations / max(timed, 1e-9))


# -- the report ---------------------------------------------------------------------------------


def measure(
    model: ZeroNet,
    description: str,
    seconds: float = 2.0,
    batches: list[int] | None = None,
    thread_counts: list[int] | None = None,
    search: str = "gumbel",
    simulations: int | None = None,
    workers: list[int] | None = None,
    games: int = 32,
    shards: int = 2,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    players: list[str] | None = None,
    play_simulations: int = 400,
    play_moves: int = PLAY_MOVES,
) -> Report:
    """Every figure of the bench (see the module documentation)."""
    batches = sorted(batches or BATCHES)
    settings = SelfPlaySettings(search=search)
    if simulations is not None:
        settings = replace(settings, simulations=simulations)
    say = progress or (lambda _: None)
    report = Report(description, model.board_size, settings.simulations, os.cpu_count(), os.getloadavg()[0])
    report.bfloat16_native = bfloat16_native()
    say("forward passes ...")
    report.forward = measure_forward(model, batches, sorted(thread_counts or THREADS), seconds, seed)
    say("self-play evaluations ...")
    report.selfplay = measure_selfplay(model, batches, list(SEARCHES), seconds, settings.simulations, seed)
    reuses = (False, True) if search == "puct" else (False,)
    for reuse in reuses:
        played = replace(settings, tree_reuse=reuse)
        for count in sorted(workers or WORKERS):
            say(f"self-play games with {count} worker(s){' and tree reuse' if reuse else ''} ...")
            report.games.append(games_per_hour(model, count, played, games, shards, seed))
    with tempfile.TemporaryDirectory() as folder:
        weights = Path(folder) / "zero.pt"  # the players load the network measured above
        save_model(weights, model)
        for spec in players or PLAYERS:
            say(f"{spec} at play ...")
            report.play.append(play_rate(spec, weights, model.board_size, play_simulations, play_moves))
    report.load_after = os.getloadavg()[0]
    return report


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def format_report(report: Report, search: str, games: int, shards: int) -> str:
    """The report as the tables the command prints."""
    lines = [
        f"AlphaZero throughput: {report.network}; {report.cores} cores, load average "
        f"{report.load_before:.2f} before",
        "",
        *_forward_table(report),
        "",
        *_selfplay_table(report),
        "",
        *_games_table(report, search, games, shards),
        "",
        *_play_table(report),
        "",
        f"load average after: {report.load_after:.2f}",
    ]
    if report.load_before >= BUSY:
        lines.append(
            "(other work shared the cores: the figures for 2 threads and 2 workers wait for cores, "
            "and need idle ones to mean what they say)"
        )
    return "\n".join(lines)


def _forward_table(report: Report) -> list[str]:
    native = {True: "native", False: "converted to float32 (no AVX512-BF16/AMX)", None: "unknown"}
    batches = sorted({row.batch for row in report.forward})
    lines = [
        f"network forward passes, positions/s (torch {torch.__version__}; bfloat16 on this CPU: "
        f"{native[report.bfloat16_native]})",
        f"  {'precision':10s} {'threads':>7s}" + "".join(f" {f'batch {b}':>11s}" for b in batches),
    ]
    for precision, count in dict.fromkeys((row.precision, row.threads) for row in report.forward):
        rows = [row for row in report.forward if (row.precision, row.threads) == (precision, count)]
        line = f"  {precision:10s} {count:7d}" + "".join(
            f" {_figure(row.positions_per_second):>11s}" for row in rows
        )
        notes = sorted({row.note for row in rows if row.note})
        lines.append(line + ("  " + "; ".join(notes) if notes else ""))
    return lines


def _selfplay_table(report: Report) -> list[str]:
    lines = [
        f"self-play: network evaluations/s on one thread, {report.simulations} simulations a move, "
        "games = batch, one leaf a game a step",
        f"  {'search':7s} {'batch':>6s} {'evaluations/s':>14s} {'mean batch':>11s} {'forward/s':>10s}"
        f" {'self-play / forward':>20s}",
    ]
    for row in report.selfplay:
        mark = "" if row.share >= AIM else "  below the aim"
        lines.append(
            f"  {row.search:7s} {row.batch:6d} {row.evaluations_per_second:14,.0f} {row.mean_batch:11.1f}"
            f" {row.forward_per_second:10,.0f} {100 * row.share:19.0f}%{mark}"
        )
    lines.append(
        f"  (the aim: self-play keeps the network at least {100 * AIM:.0f}% as busy as the raw forward pass)"
    )
    return lines


def _games_table(report: Report, search: str, games: int, shards: int) -> list[str]:
    lines = [
        f"self-play games per hour: {report.board_size}x{report.board_size}, {search}, {report.simulations} "
        f"simulations, {shards} shard(s) of {games} game(s), the same games for every worker count",
        f"  {'tree reuse':10s} {'workers':>7s} {'games':>6s} {'moves/game':>11s} {'evaluations/move':>17s}"
        f" {'seconds':>8s} {'games/hour':>11s} {'/ 1 worker':>11s}",
    ]
    base = next((row.games_per_hour for row in report.games if row.workers == 1), None)
    for row in report.games:
        ratio = f"{row.games_per_hour / base:10.2f}x" if base else f"{'-':>11s}"
        lines.append(
            f"  {'yes' if row.tree_reuse else 'no':10s} {row.workers:7d} {row.games:6d}"
            f" {row.moves / max(row.games, 1):11.1f} {row.evaluations / max(row.moves, 1):17.1f}"
            f" {row.seconds:8.1f} {row.games_per_hour:11,.0f} {ratio}"
        )
    return lines


def _play_table(report: Report) -> list[str]:
    if not report.play:
        return []
    lines = [
        "at play: one player's searches on one core (torch and numba), both sides of a game from the "
        "empty board",
        f"  {'player':40s} {'moves':>6s} {'simulations/move':>17s} {'seconds':>8s} {'simulations/s':>14s}"
        f" {'/ first':>8s}",
    ]
    base = report.play[0].simulations_per_second
    for row in report.play:
        lines.append(
            f"  {row.player:40s} {row.moves:6d} {row.simulations:17d} {row.seconds:8.2f}"
            f" {row.simulations_per_second:14,.0f} {row.simulations_per_second / base:7.2f}x"
        )
    return lines


# -- the command: ``goarena bench zero`` --------------------------------------------------------


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench zero``."""
    parser.add_argument(
        "--weights",
        type=Path,
        default=None,
        help="a ZeroNet checkpoint (default: the shipped 9x9, else a fresh one)",
    )
    parser.add_argument(
        "--size", type=_positive, default=None, help=f"a fresh network's board (default {DEFAULT_SIZE})"
    )
    parser.add_argument(
        "--blocks", type=_positive, default=None, help=f"its blocks (default {DEFAULT_BLOCKS})"
    )
    parser.add_argument(
        "--filters", type=_positive, default=None, help=f"its filters (default {DEFAULT_FILTERS})"
    )
    add_seconds(parser, 2.0)
    parser.add_argument(
        "--batches", type=_positive, nargs="+", default=None, help="batch sizes (default 1 16 64 256)"
    )
    parser.add_argument(
        "--threads", type=_positive, nargs="+", default=None, help="torch threads (default 1 2)"
    )
    parser.add_argument(
        "--search", choices=SEARCHES, default="gumbel", help="games per hour's search (default gumbel)"
    )
    parser.add_argument(
        "--simulations", type=_positive, default=None, help="simulations a move (default: self-play's, 16)"
    )
    parser.add_argument(
        "--workers", type=_positive, nargs="+", default=None, help="worker counts (default 1 2)"
    )
    parser.add_argument("--games", type=_positive, default=32, help="games per shard (default 32)")
    parser.add_argument(
        "--shards", type=_positive, default=2, help="shards each worker count plays (default 2)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions and games (default 0)")
    parser.add_argument(
        "--players",
        nargs="+",
        default=None,
        help=f"players timed at play, the first the baseline (default: {' '.join(PLAYERS)})",
    )
    parser.add_argument(
        "--play-simulations", type=_positive, default=400, help="their simulations a move (default 400)"
    )
    parser.add_argument(
        "--play-moves", type=_positive, default=PLAY_MOVES, help=f"moves timed (default {PLAY_MOVES})"
    )
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)  # stderr: ``--json`` keeps stdout to itself


def command(args: argparse.Namespace) -> None:
    """``goarena bench zero``: measure and print."""
    if args.seconds <= 0:
        raise ValueError(f"--seconds must be positive, got {args.seconds}")
    model, description = zero_network(args.weights, args.size, args.blocks, args.filters)
    report = measure(
        model, description, args.seconds, args.batches, args.threads, args.search, args.simulations,
        args.workers, args.games, args.shards, args.seed, _progress,
        args.players, args.play_simulations, args.play_moves,
    )  # fmt: skip
    if args.json:
        print(json.dumps(asdict(report), indent=2))
    else:
        print(format_report(report, args.search, args.games, args.shards))
