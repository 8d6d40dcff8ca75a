"""``goarena data value``: positions for AlphaGo's value network, one per self-play game.

Successive positions of one game differ by a stone and share its outcome, so a network
regressed on whole games learns to recall games instead of judging positions (the paper's
value network overfitted so). Each game gives one position instead, drawn as the paper
draws it: a move number ``U`` uniformly from ``1..u_max``; moves ``1..U-1`` from the SL
policy; move ``U`` uniformly at random; moves after it from the RL policy (the SL one when
none is given) to the end of the game. The position recorded is the one after move ``U``
(the paper's ``s_{U+1}``), with the game's outcome ``z`` for its side to move. ``u_max``
defaults to ``N*N`` (81 on 9x9): the policies' 9x9 games last some 100 to 130 moves, so the
positions span the opening to the last contested points; a game that ends before move ``U``
gives no position (the report counts them).

Games are played out: every move (the policies' and the random one) is drawn among the
*sensible* moves (legal, not filling an own one-point eye: AlphaGo's plane 46), and a side
passes only when it has none, as the rollouts do. The board at the end is then settled, and
area scoring (the board size's komi, ``go_env.default_komi``: 7 on 9x9, a draw scored 0) as
it stands is the game's true result; the policies, trained on GNU Go's games, would otherwise
pass with dead stones on the board. The move cap
(``2 * N * N``) stops the rare game that does not end; it is scored as it stands and counted.

Games are played ``chunk_size`` at a time over a ``GameBatch``: each ply computes the
planes of every game at once and runs each network once on the games it moves for. A chunk's
randomness comes from ``(seed, chunk index)`` alone, so chunks are the unit of work over the
``workers`` processes and of resuming: each is written as one shard, then listed in
``manifest.json``, and a rerun of the same command plays only the missing ones. The shards
are those of ``shards`` (``ShardDataset`` reads them), with 49 planes and two arrays more::

    planes      uint8[n, 49, ceil(N*N/8)]  the position's 49 planes, np.packbits over the points
    boards      int8[n, N*N]               0 empty, 1 Black, 2 White
    to_play     int8[n]                    1 Black, 2 White
    last_moves  int16[n]                   move U (the random one)
    moves       int16[n]                   the move the RL policy played from the position
    outcomes    int8[n]                    z: +1 the side to move won, -1 it lost, 0 a draw
    game_ids    int32[n]                   the game's index in the run (one position each)
    u           int16[n]                   U: the position is the one after U moves
    sequences   int16[n, u_max]            the game's first U moves (-1 after them), to replay it
    ownership   int8[n, N*N]               each point's final owner for the side to move: +1
                                           its own, -1 the opponent's, 0 neither (the games
                                           are played out, so the area count gives it)
    owned       bool[n]                    the ownership is known (not where the cap stopped it)
    scores      float32[n]                 the final area score for the side to move, komi not
                                           included

``report.json`` totals games, positions, games ended before ``U`` or cut by the move cap,
Black's share of the wins and the generation speed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numba
import numpy as np
from rich.progress import MofNCompleteColumn, Progress

from go_env import Game, GameBatch, Rules, default_komi
from go_env.batch import owners_for_mover
from go_env.core import BLACK
from go_env.features.alphago import NUM_VALUE_PLANES, SENSIBLENESS, batch_alphago_planes, new_alphago_planes
from goarena.agents.data.dataset import ShardDataset
from goarena.agents.data.integrity import DataStorageError, write_json
from goarena.agents.data.pool import WorkerLost, stoppable, stopped, worker_pool
from goarena.agents.data.shards import FORMAT, MANIFEST, REPORT, _write_shard, open_manifest
from goarena.agents.inference.evaluator import load_policy_net
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.predict import masked_softmax, policy_logits, set_torch_threads
from goarena.agents.weights import SL_POLICY_9X9


@dataclass(frozen=True)
class ValueDataConfig:
    """What to generate.

    Attributes:
        out: the shard folder.
        sl_policy: the SL policy network, for the moves before ``U``; it fixes the board size.
        rl_policy: the policy for the moves after ``U``; None: the SL one.
        games: games to play, one position each at most.
        chunk_size: games per chunk (played together; the unit of work and of resuming).
        u_max: ``U`` is drawn from ``1..u_max``; None: ``N*N``.
        seed: the run's seed; chunk ``i``'s randomness comes from ``(seed, i)``.
    """

    out: Path
    sl_policy: Path = SL_POLICY_9X9
    rl_policy: Path | None = None
    games: int = 1024
    chunk_size: int = 256
    u_max: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.games < 1 or self.chunk_size < 1:
            raise ValueError(f"games and chunk_size must be positive, got {self.games} and {self.chunk_size}")
        if self.u_max is not None and self.u_max < 1:
            raise ValueError(f"u_max must be positive, got {self.u_max}")


@dataclass
class Policies:
    """The networks of a run: SL before ``U``, RL after (the same object when no RL is given)."""

    sl: PolicyNet
    rl: PolicyNet
    digests: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, config: ValueDataConfig, device: str = "cpu") -> Policies:
        sl, sl_digest = load_policy_net(config.sl_policy, device)
        if config.rl_policy is None:
            return cls(sl, sl, {"sl_policy": sl_digest, "rl_policy": sl_digest})
        rl, rl_digest = load_policy_net(config.rl_policy, device)
        if rl.board_size != sl.board_size:
            raise ValueError(
                f"the RL policy plays {rl.board_size}x{rl.board_size}, "
                f"the SL one {sl.board_size}x{sl.board_size}"
            )
        return cls(sl, rl, {"sl_policy": sl_digest, "rl_policy": rl_digest})

    @property
    def size(self) -> int:
        return self.sl.board_size


@dataclass
class ChunkGames:
    """A chunk's games: the positions recorded (the shard arrays of the module docs), and
    for every game its length in moves, its final score and whether the move cap stopped it."""

    arrays: dict[str, np.ndarray]
    plies: np.ndarray  # int64[games]
    margins: np.ndarray  # float64[games]: Black's points minus White's minus komi at the end
    truncated: np.ndarray  # bool[games]


def play_chunk(
    policies: Policies, u_max: int, seed: int, index: int, first_game: int, count: int
) -> ChunkGames:
    """Play chunk ``index``: games ``first_game .. first_game + count - 1``, all at once."""
    size = policies.size
    num_points = size * size
    rng = np.random.default_rng([seed, index])
    rules = Rules.preset("goarena", komi=default_komi(size))
    batch = GameBatch(size, count, rules, seed=int(rng.integers(2**63)))
    u = rng.integers(1, u_max + 1, size=count)
    sequences = np.full((count, u_max), -1, np.int16)
    planes = new_alphago_planes(size, player_colour=True, batch=count)
    packed = np.zeros((count, NUM_VALUE_PLANES, (num_points + 7) // 8), np.uint8)
    boards = np.zeros((count, num_points), np.int8)
    to_play = np.zeros(count, np.int8)
    next_moves = np.full(count, -1, np.int16)
    kept = np.zeros(count, bool)
    plies = np.zeros(count, np.int64)
    allowed = np.zeros((count, num_points + 1), np.int8)
    while not batch.is_over.all():
        running = ~batch.is_over
        ply = int(plies.max())  # every running game has played ``ply`` moves
        batch_alphago_planes(batch.state, batch.geometry, planes)
        now = running & (u == ply)  # the position after move U: the one recorded
        packed[now] = np.packbits(planes[now].reshape(-1, NUM_VALUE_PLANES, num_points), axis=2)
        boards[now] = batch.state.board[now, :num_points]
        to_play[now] = batch.to_play[now]
        kept |= now
        allowed[:, :num_points] = planes[:, SENSIBLENESS].reshape(count, num_points)
        allowed[:, num_points] = ~allowed[:, :num_points].any(axis=1)  # pass only without a sensible move
        probabilities = np.zeros((count, num_points + 1))
        uniform = running & (u == ply + 1)
        probabilities[uniform] = allowed[uniform]
        before, after = running & (ply + 1 < u), running & (ply + 1 > u)
        if policies.rl is policies.sl:
            groups = [(policies.sl, before | after)]
        else:
            groups = [(policies.sl, before), (policies.rl, after)]
        for net, games in groups:
            if games.any():
                logits = policy_logits(net, planes[games, : net.planes])
                probabilities[games] = masked_softmax(logits, allowed[games])
        moves = batch.sample_and_play(probabilities)
        if ply < u_max:
            sequences[running, ply] = moves[running]
        next_moves[now] = moves[now]
        plies[running] += 1
    margins = batch.scores()
    ownership = owners_for_mover(batch.area_owners(), to_play)
    won = (margins > 0) == (to_play == BLACK)
    outcomes = np.where(margins == 0, 0, np.where(won, 1, -1)).astype(np.int8)
    sequences[np.arange(u_max)[None, :] >= u[:, None]] = -1  # the moves after U are not kept
    arrays: dict[str, np.ndarray] = {
        "planes": packed[kept],
        "boards": boards[kept],
        "to_play": to_play[kept],
        "last_moves": sequences[kept, u[kept] - 1],
        "moves": next_moves[kept],
        "outcomes": outcomes[kept],
        "game_ids": np.arange(first_game, first_game + count, dtype=np.int32)[kept],
        "u": u[kept].astype(np.int16),
        "sequences": sequences[kept],
        "ownership": ownership[kept],
        "owned": ~batch.is_truncated[kept],
        "scores": ownership[kept].sum(axis=1).astype(np.float32),
    }
    return ChunkGames(arrays, plies, margins, batch.is_truncated)


@dataclass(frozen=True)
class Summary:
    """What a run did: games played now, chunks already there, seconds taken, the report."""

    played_games: int
    existing_chunks: int
    seconds: float
    report: dict[str, Any]

    @property
    def games_per_second(self) -> float:
        return self.played_games / self.seconds if self.seconds > 0 else 0.0


def generate(
    config: ValueDataConfig,
    workers: int = 1,
    device: str = "cpu",
    on_chunk: Callable[[int, int], None] | None = None,
) -> Summary:
    """Play the missing chunks of ``config`` with ``workers`` processes and write the report.

    ``on_chunk(done, total)`` is called once at the start and as each chunk is written.

    Raises:
        ValueError: bad arguments, or ``config.out`` holds positions generated otherwise
            (other networks, chunk size, ``u_max`` or seed).
    """
    if workers < 1:
        raise ValueError(f"workers must be 1 or more, got {workers}")
    policies = Policies.load(config, device)
    u_max = config.u_max or policies.size**2
    settings = {
        "format": FORMAT,
        "kind": "value",
        "size": policies.size,
        "planes": NUM_VALUE_PLANES,
        "chunk_size": config.chunk_size,
        "u_max": u_max,
        "komi": default_komi(policies.size),
        "seed": config.seed,
        **policies.digests,
    }
    manifest = open_manifest(config.out, settings, "positions")
    chunks = [
        _Chunk(index, start, min(config.chunk_size, config.games - start))
        for index, start in enumerate(range(0, config.games, config.chunk_size))
    ]
    done = manifest["chunks"]
    for key in [
        key for key in done if int(key) >= len(chunks) or done[key]["games"] != chunks[int(key)].games
    ]:
        del done[key]  # the number of games changed: the last chunk is played again
    write_json(config.out / MANIFEST, manifest)  # before any shard it listed is removed
    todo = [chunk for chunk in chunks if str(chunk.index) not in done]
    if on_chunk is not None:
        on_chunk(len(chunks) - len(todo), len(chunks))
    start = time.perf_counter()
    for chunk, games in _play_chunks(policies, config, device, u_max, todo, workers):
        done[str(chunk.index)] = _write_chunk(config.out, chunk, games, manifest["komi"])
        manifest["chunks"] = done = dict(sorted(done.items(), key=lambda item: int(item[0])))
        write_json(config.out / MANIFEST, manifest)
        if on_chunk is not None:
            on_chunk(len(done), len(chunks))
    seconds = time.perf_counter() - start
    listed = {shard["name"] for entry in done.values() for shard in entry["shards"]}
    for stray in config.out.glob("*chunk-*"):
        if stray.is_dir() and stray.name not in listed:
            shutil.rmtree(stray)
    report = _report(manifest)
    write_json(config.out / REPORT, report)
    return Summary(sum(chunk.games for chunk in todo), len(chunks) - len(todo), seconds, report)


@dataclass(frozen=True)
class _Chunk:
    index: int
    first_game: int
    games: int


def _play_chunks(
    policies: Policies, config: ValueDataConfig, device: str, u_max: int, todo: list[_Chunk], workers: int
) -> Iterator[tuple[_Chunk, ChunkGames]]:
    """The chunks ``todo`` played, in order."""
    set_torch_threads(1)  # a chunk's games are the same whatever the number of workers
    if workers == 1 or len(todo) <= 1:
        for chunk in todo:
            yield chunk, play_chunk(policies, u_max, config.seed, chunk.index, chunk.first_game, chunk.games)
        return
    jobs = [(u_max, config.seed, chunk) for chunk in todo]
    with worker_pool(min(workers, len(todo)), _load_policies, (config, device)) as pool:
        yield from pool.imap(_play_in_worker, jobs)


_policies: Policies | None = None  # a worker process's networks


def _load_policies(config: ValueDataConfig, device: str) -> None:
    global _policies
    set_torch_threads(1)
    numba.set_num_threads(1)  # the workers share the cores
    _policies = Policies.load(config, device)


def _play_in_worker(job: tuple[int, int, _Chunk]) -> tuple[_Chunk, ChunkGames]:
    assert _policies is not None, "the pool's initializer loads the networks"
    u_max, seed, chunk = job
    return chunk, play_chunk(_policies, u_max, seed, chunk.index, chunk.first_game, chunk.games)


def _write_chunk(out: Path, chunk: _Chunk, games: ChunkGames, komi: float) -> dict[str, Any]:
    """Write a chunk's shard (none when it recorded no position); its manifest entry."""
    name = f"chunk-{chunk.index:06d}-0"
    arrays = games.arrays
    positions = len(arrays["u"])
    shards = []
    if positions:
        _write_shard(out, name, arrays)
        shards.append(
            {"name": name, "positions": positions, "games": positions, "komi": komi, "rules": "goarena"}
        )
    black_won = np.where(arrays["to_play"] == BLACK, arrays["outcomes"], -arrays["outcomes"])
    return {
        "games": chunk.games,
        "shards": shards,
        "positions": positions,
        "truncated": int(games.truncated.sum()),
        "moves": int(games.plies.sum()),
        "black_wins": int((black_won == 1).sum()),
        "draws": int((black_won == 0).sum()),
    }


def _report(manifest: dict[str, Any]) -> dict[str, Any]:
    entries = manifest["chunks"].values()
    games = sum(entry["games"] for entry in entries)
    positions = sum(entry["positions"] for entry in entries)
    black_wins = sum(entry["black_wins"] for entry in entries)
    draws = sum(entry["draws"] for entry in entries)
    return {
        "board_size": manifest["size"],
        "komi": manifest["komi"],
        "u_range": [1, manifest["u_max"]],
        "games": games,
        "positions": positions,
        "ended_before_u": games - positions,
        "truncated": sum(entry["truncated"] for entry in entries),
        "moves_per_game": sum(entry["moves"] for entry in entries) / max(games, 1),
        "black_win_share": (black_wins + draws / 2) / max(positions, 1),
        "sl_policy": manifest["sl_policy"],
        "rl_policy": manifest["rl_policy"],
    }


def run(config: ValueDataConfig, workers: int = 1, device: str = "cpu") -> Summary:
    """``generate`` with a progress bar, then what it wrote (the command's body)."""
    with stoppable(), Progress(*Progress.get_default_columns(), MofNCompleteColumn()) as progress:
        task = progress.add_task(f"value positions in {config.out}", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        try:
            summary = generate(config, workers, device, on_chunk=advance)
        except (KeyboardInterrupt, WorkerLost) as reason:
            raise SystemExit(
                f"{stopped(reason)}; the same command resumes the chunks missing in {config.out}"
            ) from None
    report = summary.report
    print(
        f"{summary.played_games} games in {summary.seconds:.1f} s ({summary.games_per_second:.2f} games/s) "
        f"with {workers} worker(s); {summary.existing_chunks} chunk(s) were there already"
    )
    print(
        f"{report['positions']} positions from {report['games']} games on {report['board_size']}x"
        f"{report['board_size']} (U in 1..{report['u_range'][1]}; {report['ended_before_u']} games ended "
        f"before U, {report['truncated']} cut by the move cap; {report['moves_per_game']:.1f} moves a game; "
        f"Black won {report['black_win_share']:.1%})"
    )
    print(f"report: {config.out / REPORT}")
    return summary


def parser() -> argparse.ArgumentParser:
    defaults = ValueDataConfig(out=Path())
    parser = argparse.ArgumentParser(
        prog="goarena data value",
        description="Self-play positions for the value network, one per game (rerun to resume).",
    )
    parser.add_argument("--out", required=True, type=Path, help="the shard folder")
    parser.add_argument(
        "--sl-policy", type=Path, default=defaults.sl_policy, help="the moves before U (default: shipped 9x9)"
    )
    parser.add_argument("--rl-policy", type=Path, default=None, help="the moves after U (default: SL)")
    for name, help_text in (
        ("games", "games, one position each"),
        ("chunk-size", "games played together"),
        ("seed", "the run's seed"),
    ):
        default = getattr(defaults, name.replace("-", "_"))
        parser.add_argument(f"--{name}", type=int, default=default, help=f"{help_text} (default {default})")
    parser.add_argument("--u-max", type=int, default=None, help="U is drawn from 1..U_MAX (default N*N)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--device", default="cpu", help="where the networks run: cpu (default) or cuda")
    return parser


def main(argv: list[str]) -> None:
    """``goarena data value ...``: generate (or finish) the positions and print what was written."""
    args = parser().parse_args(argv)
    config = ValueDataConfig(**{each.name: getattr(args, each.name) for each in fields(ValueDataConfig)})
    try:
        run(config, workers=args.workers, device=args.device)
    except (ValueError, DataStorageError) as error:
        sys.exit(f"goarena data value: {error}")


def replay_positions(dataset: ShardDataset, indices: np.ndarray) -> list[Game]:
    """The positions at ``indices`` of a value data set, rebuilt by replaying each game's first
    ``U`` moves (under the generator's rules), with their full history: for rollouts or search."""
    sizes = [shard["positions"] for shard in dataset.shards]
    starts = np.concatenate([[0], np.cumsum(sizes)])
    if not all("u" in dataset.arrays(shard) for shard in range(len(dataset.shards))):
        raise ValueError(f"the shards in {dataset.directory} hold no value positions (goarena data value)")
    games = []
    for index in np.asarray(indices):
        if not 0 <= index < len(dataset):
            raise IndexError(f"position {index} is not in 0..{len(dataset) - 1}")
        shard = int(np.searchsorted(starts, index, side="right") - 1)
        arrays = dataset.arrays(shard)
        row = int(index - starts[shard])
        u = int(arrays["u"][row])
        komi = dataset.shards[shard].get("komi", default_komi(dataset.board_size))
        game = Game(dataset.board_size, Rules.preset("goarena", komi=komi))
        game.replay(arrays["sequences"][row, :u].tolist())
        games.append(game)
    return games
