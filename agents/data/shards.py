"""A folder tree of SGF records as training shards: one entry per expert move, memory-mappable.

``goarena data shards SGF_DIR OUT_DIR --size 9`` reads every ``.sgf`` file under ``SGF_DIR``
(sorted by path) in chunks of ``chunk_size`` files, read and encoded by a pool of processes.
Each chunk becomes one shard per rules and komi found in it, a folder
``OUT_DIR/chunk-000012-0/`` of ``.npy`` files (``np.load(path, mmap_mode="r")``), with ``n``
positions, the position before each expert move (passes included, and a clean-up phase's moves)::

    planes      uint8[n, 48, ceil(N*N/8)]  AlphaGo's 48 planes, np.packbits over the points
    boards      int8[n, N*N]               0 empty, 1 Black, 2 White
    to_play     int8[n]                    1 Black, 2 White
    last_moves  int16[n]                   the move before, -1 none, N*N pass
    moves       int16[n]                   the expert move (the target), N*N pass
    outcomes    int8[n]                    +1 the side to move won, -1 it lost, 0 a draw
    game_ids    int32[n]                   the record's index among the sorted files (the games
                                           of a collection, one file, share it)
    ownership   int8[n, N*N]               each point's final owner from the side to move's view:
                                           +1 its own, -1 the opponent's, 0 neither's; all 0
                                           where the record has no ownership marks
    owned       bool[n]                    the record has ownership marks (``TB``/``TW``)
    scores      float32[n]                 the final area score from the side to move's view (its
                                           points minus the opponent's, komi not included; the
                                           shard's komi is in the manifest), 0 where unknown
    game_keys   uint64[games]              a digest of each game's moves (``game_key``)

The ownership comes from the territory marks of the record's last node (``goarena data
ownership`` adds them to a folder, ``data gnugo`` writes them): the final owners after the dead
stones are taken off. Shards of format 1, built before, have no ``ownership``, ``owned`` or
``scores``: ``ShardDataset`` reads their other arrays and says so when asked for these, and a
rerun of this command rebuilds them.

Each shard folder also holds ``digest.json``, the sha256 of each of its files (``integrity``,
the scheme of every array file the project writes): ``ShardDataset`` refuses a cut, garbled,
short or NaN-holding file, naming it and the cause. Shards of formats 1 and 2 were written
without digests: they are read with every other check and a note that says so, and a rerun of
this command into their folder rebuilds them with digests. A full disk stops the command with
"disk full" and the shard it was writing; the chunks finished before it stay, and a rerun
once there is room goes on from them.

A record whose game (its moves and random opening) was read before is skipped as a duplicate:
archives hold the same game twice, and GNU Go, given the same opening, sometimes plays the
same game again.

``manifest.json`` lists the finished chunks (each with the digest of its files' names, sizes and
modification times, its shards with their komi and rules, and its counts); it is rewritten
atomically after every chunk, and a shard folder is complete before it is renamed into place,
so a rerun rebuilds only the chunks that are missing or whose files changed (a record marked
by ``data ownership`` since is one that changed). ``report.json`` totals the counts: files
read, games kept, positions, and games skipped by reason (``reader.SKIP_REASONS``,
``DUPLICATE``, and ``NOT_A_FILE`` for entries named ``*.sgf`` that are no regular file: FIFOs,
devices, broken or looping links, folders; those are all named in ``not_files``). A file that
holds a collection of games gives every one of them; a skipped game of a collection is named
``FILE#K``, its K-th game.

Workers are spawned processes. The encoder goes to them by its module and name where it is a
module's function, so that a numba kernel is loaded there from numba's on-disk cache (a
pickled dispatcher would carry its Python code and be compiled again in every worker, on every
run); the parent compiles it first, so that the cache holds it.
"""

from __future__ import annotations

import errno
import hashlib
import importlib
import shutil
import stat
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import MofNCompleteColumn, Progress

from go_env.features.alphago import NUM_ALPHAGO_PLANES, alphago_planes
from go_env.game import BLACK, EMPTY, MAX_SIZE, MIN_SIZE, WHITE, Game
from goarena.agents.data.integrity import read_arrays, read_json, write_arrays, write_json
from goarena.agents.data.pool import WorkerLost, stoppable, stopped, worker_pool
from goarena.agents.data.reader import SKIP_REASONS, ExpertGame, SkippedGame, read_expert_games

NUM_PLANES = NUM_ALPHAGO_PLANES
ARRAYS = ("planes", "boards", "to_play", "last_moves", "moves", "outcomes", "game_ids")
OWNERSHIP_ARRAYS = ("ownership", "owned", "scores")  # format 2 on
MANIFEST = "manifest.json"
REPORT = "report.json"
FORMAT = 3  # 2: OWNERSHIP_ARRAYS added; 3: digest.json in every shard
FORMATS = (1, 2, 3)  # the formats ``ShardDataset`` reads
DIGESTED = 3  # the first format whose shards carry digests
_EXAMPLES = 3  # skipped files named per reason, for the report
DUPLICATE = "duplicate"  # a skip reason: the same moves as a game read before
NOT_A_FILE = "not a file"  # a skip reason: a FIFO, device, broken or looping link, folder named *.sgf

# Writes the planes of a position: encoder(state, geometry, out uint8[48, N, N]).
Encoder = Callable[[Any, Any, np.ndarray], None]


def encode_game(game: ExpertGame, game_id: int, encoder: Encoder) -> dict[str, np.ndarray]:
    """The positions before each expert move of ``game`` as shard arrays (see the module docs)."""
    size, num_points, n = game.size, game.size * game.size, game.num_targets
    arrays: dict[str, np.ndarray] = {
        "planes": np.empty((n, NUM_PLANES, (num_points + 7) // 8), np.uint8),
        "boards": np.empty((n, num_points), np.int8),
        "to_play": np.empty(n, np.int8),
        "last_moves": np.empty(n, np.int16),
        "moves": np.array(game.moves[game.first_target :], np.int16),
        "game_ids": np.full(n, game_id, np.int32),
    }
    planes = np.zeros((NUM_PLANES, size, size), np.uint8)
    replay = Game(size, game.rules)
    for index, move in enumerate(game.moves):
        row = index - game.first_target
        if row >= 0:
            encoder(replay.state, replay.geometry, planes)
            arrays["planes"][row] = np.packbits(planes.reshape(NUM_PLANES, num_points), axis=1)
            arrays["boards"][row] = replay.state.board[:num_points]
            arrays["to_play"][row] = replay.to_play
            last = replay.last_move
            arrays["last_moves"][row] = -1 if last is None else last
        if replay.is_terminated:  # moves after two passes: a clean-up phase
            replay.resume()
        replay.play(move)
    won = arrays["to_play"] == game.winner
    arrays["outcomes"] = np.where(game.winner == EMPTY, 0, np.where(won, 1, -1)).astype(np.int8)
    arrays["ownership"] = np.zeros((n, num_points), np.int8)
    arrays["owned"] = np.full(n, game.owner is not None)
    if game.owner is not None:
        owner = np.array(game.owner, np.int8)
        black_view = (owner == BLACK).astype(np.int8) - (owner == WHITE)
        sign = np.where(arrays["to_play"] == BLACK, 1, -1).astype(np.int8)
        arrays["ownership"][:] = black_view * sign[:, None]
    arrays["scores"] = arrays["ownership"].sum(axis=1, dtype=np.int32).astype(np.float32)
    return arrays


@dataclass(frozen=True)
class _Chunk:
    index: int
    files: tuple[str, ...]  # paths relative to the SGF folder, sorted
    first_id: int  # the game id of its first file
    stamps: tuple[str, ...] = ()  # each file's size and modification time

    @property
    def digest(self) -> str:
        lines = (f"{name}\t{stamp}" for name, stamp in zip(self.files, self.stamps, strict=True))
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()

    @property
    def prefix(self) -> str:
        return f"chunk-{self.index:06d}"


def sgf_files(sgf_dir: Path, others: list[str] | None = None) -> list[str]:
    """The ``.sgf`` files under ``sgf_dir`` (any case), as sorted relative paths; the entries
    named ``*.sgf`` that are no regular file (a FIFO, a device, a broken or looping link, a
    folder) are added to ``others`` as "NAME: what it is", never opened."""
    if not sgf_dir.is_dir():
        raise ValueError(f"no folder of SGF files at {sgf_dir}")
    files = []
    for path in sgf_dir.rglob("*"):
        if path.suffix.lower() != ".sgf":
            continue
        name = path.relative_to(sgf_dir).as_posix()
        kind = _not_a_file(path)
        if kind is None:
            files.append(name)
        elif others is not None:
            others.append(f"{name}: {kind}")
    if others is not None:
        others.sort()
    return sorted(files)


def _not_a_file(path: Path) -> str | None:
    """What ``path`` is when it is no regular file (following links), None when it is one."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a looping link"
        return "a broken link" if path.is_symlink() else f"unreadable ({error.strerror})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket" if stat.S_ISSOCK(mode) else "no regular file"


def build_shards(
    sgf_dir: Path,
    out_dir: Path,
    *,
    size: int = 9,
    workers: int = 1,
    chunk_size: int = 256,
    encoder: Encoder = alphago_planes,
    on_chunk: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Build (or finish) the shards of the records under ``sgf_dir`` in ``out_dir``.

    Args:
        sgf_dir: searched for ``.sgf`` files at any depth.
        out_dir: the shards, ``manifest.json`` and ``report.json``.
        size: the board size of the games kept.
        workers: processes reading and encoding records.
        chunk_size: files per chunk (the unit of work and of resuming).
        encoder: the planes (AlphaGo's, ``go_env.features.alphago``, by default); another
            function passed here must be a module's function, or picklable, for ``workers > 1``.
        on_chunk: called with (chunks done, chunks in all) as chunks finish, and once at the start.

    Returns:
        The report (also saved as ``report.json``).

    Raises:
        ValueError: bad arguments, or ``out_dir`` holds shards built another way (another
            board size, chunk size or format).
    """
    if workers < 1 or chunk_size < 1:
        raise ValueError(f"workers and chunk_size must be 1 or more, got {workers} and {chunk_size}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"board size must be between {MIN_SIZE} and {MAX_SIZE}, got {size}")
    others: list[str] = []
    files = sgf_files(sgf_dir, others)
    stamps = [_stamp(sgf_dir / name) for name in files]
    chunks = [
        _Chunk(i, tuple(files[start : start + chunk_size]), start, tuple(stamps[start : start + chunk_size]))
        for i, start in enumerate(range(0, len(files), chunk_size))
    ]
    settings = {"format": FORMAT, "size": size, "planes": NUM_PLANES, "chunk_size": chunk_size}
    manifest = open_manifest(out_dir, settings)
    done = manifest["chunks"]
    digests = [chunk.digest for chunk in chunks]
    for key in [key for key in done if int(key) >= len(chunks) or done[key]["digest"] != digests[int(key)]]:
        del done[key]  # files added, removed or renamed: rebuilt below
    _write_json(out_dir / MANIFEST, manifest)  # before any shard it listed is removed
    todo = [chunk for chunk in chunks if str(chunk.index) not in done]
    if on_chunk is not None:
        on_chunk(len(chunks) - len(todo), len(chunks))
    seen = _seen_keys(out_dir, manifest)
    for read in _read_chunks(sgf_dir, size, todo, encoder, workers):
        done[str(read.chunk.index)] = _write_chunk(out_dir, read, seen)
        manifest["chunks"] = done = dict(sorted(done.items(), key=lambda item: int(item[0])))
        _write_json(out_dir / MANIFEST, manifest)
        if on_chunk is not None:
            on_chunk(len(done), len(chunks))
    _remove_strays(out_dir, manifest)
    report = _report(manifest)
    report["skipped"][NOT_A_FILE] += len(others)
    report["not_files"] = others  # every one named: none of them was read
    if others:
        report["skipped_examples"][NOT_A_FILE] = others[:_EXAMPLES]
    _write_json(out_dir / REPORT, report)
    return report


def _stamp(path: Path) -> str:
    """A file's size and modification time: a record rewritten since changes it."""
    try:
        status = path.stat()
    except OSError:
        return "unreadable"  # read as such in the chunk, and rebuilt once it can be read
    return f"{status.st_size}:{status.st_mtime_ns}"


def open_manifest(out: Path, settings: dict[str, Any], what: str = "shards") -> dict[str, Any]:
    """The manifest of the shard folder ``out`` made with ``settings`` (``format`` among them):
    the one there, or a fresh one (no chunk done) when there is none (the folder made) or it was
    written in an older format (its chunks made again, with digests).

    Raises:
        ValueError: ``out`` holds ``what`` made with other settings (naming them) or in a format
            this version does not read.
    """
    path = out / MANIFEST
    if not path.exists():
        out.mkdir(parents=True, exist_ok=True)
        return {**settings, "chunks": {}}
    manifest = read_json(path)
    differing = [key for key in settings if key != "format" and manifest.get(key) != settings[key]]
    if manifest.get("format") not in FORMATS:
        differing.insert(0, "format")
    if differing:
        changes = ", ".join(f"{key}: {manifest.get(key)!r} -> {settings[key]!r}" for key in differing)
        raise ValueError(f"{out} holds {what} made otherwise ({changes}): use another folder")
    return manifest if manifest["format"] == FORMAT else {**settings, "chunks": {}}


@dataclass
class _ChunkRead:
    """A chunk's records, read and encoded (by a worker): the games kept, the rest counted."""

    chunk: _Chunk
    games: list[tuple[str, ExpertGame, dict[str, np.ndarray]]]  # (file, game, its arrays)
    skipped: Counter[str]
    examples: dict[str, list[str]]

    def skip(self, reason: str, example: str) -> None:
        self.skipped[reason] += 1
        named = self.examples.setdefault(reason, [])
        if len(named) < _EXAMPLES:
            named.append(example)


def _read_chunks(
    sgf_dir: Path, size: int, todo: list[_Chunk], encoder: Encoder, workers: int
) -> Iterator[_ChunkRead]:
    """The chunks ``todo`` read, in order (so that the first of duplicate games is the one kept)."""
    if workers == 1 or len(todo) <= 1:
        yield from (_read_chunk((sgf_dir, size, chunk, encoder)) for chunk in todo)
        return
    _warm_up(encoder, size)  # compiled (and cached on disk) once here, not in each worker
    sent = encoder_reference(encoder)
    jobs = [(sgf_dir, size, chunk, sent) for chunk in todo]
    with worker_pool(min(workers, len(jobs))) as pool:
        yield from pool.imap(_read_chunk, jobs)


EncoderReference = tuple[str, str]  # (module, qualified name)


def encoder_reference(encoder: Encoder) -> Encoder | EncoderReference:
    """How ``encoder`` travels to a worker: its module and name where importing them gives it
    back (a numba kernel is then loaded from numba's cache there), else the object itself."""
    module, name = getattr(encoder, "__module__", None), getattr(encoder, "__qualname__", None)
    if isinstance(module, str) and isinstance(name, str) and "<" not in name:
        try:
            if resolve_encoder((module, name)) is encoder:
                return (module, name)
        except (ImportError, AttributeError):
            pass
    return encoder


def resolve_encoder(sent: Encoder | EncoderReference) -> Encoder:
    """The encoder that ``encoder_reference`` sent: imported by name, or as it came."""
    if not isinstance(sent, tuple):
        return sent
    module, name = sent
    found: Any = importlib.import_module(module)
    for part in name.split("."):
        found = getattr(found, part)
    return found


def _warm_up(encoder: Encoder, size: int) -> None:
    game = Game(size)
    encoder(game.state, game.geometry, np.zeros((NUM_PLANES, size, size), np.uint8))


def _read_chunk(job: tuple[Path, int, _Chunk, Encoder | EncoderReference]) -> _ChunkRead:
    sgf_dir, size, chunk, sent = job
    encoder = resolve_encoder(sent)
    read = _ChunkRead(chunk, [], Counter(), {})
    for offset, name in enumerate(chunk.files):
        for tag, game in read_expert_games(sgf_dir / name, size):
            if isinstance(game, SkippedGame):
                read.skip(game.reason, f"{name}{tag}: {game}")
            else:
                read.games.append((name + tag, game, encode_game(game, chunk.first_id + offset, encoder)))
    return read


def game_key(game: ExpertGame) -> int:
    """A 64-bit digest of a game's positions and targets: equal for duplicate records."""
    data = np.array([game.size, game.first_target, *game.moves], np.int16).tobytes()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _write_chunk(out_dir: Path, read: _ChunkRead, seen: set[int]) -> dict[str, Any]:
    """Write a chunk's shards, one per rules and komi, leaving out the games already ``seen``
    (which gains the others); its manifest entry."""
    groups: dict[tuple[str, float], list[tuple[int, dict[str, np.ndarray]]]] = {}
    for name, game, arrays in read.games:
        key = game_key(game)
        if key in seen:
            read.skip(DUPLICATE, f"{name}: the moves of a game read before")
            continue
        seen.add(key)
        groups.setdefault((game.rules.name, float(game.rules.komi)), []).append((key, arrays))
    for stale in out_dir.glob(f"{read.chunk.prefix}-*"):
        shutil.rmtree(stale)
    shards = []
    for number, ((rules, komi), games) in enumerate(sorted(groups.items())):
        name = f"{read.chunk.prefix}-{number}"
        arrays = {key: np.concatenate([game[key] for _, game in games]) for key in ARRAYS + OWNERSHIP_ARRAYS}
        arrays["game_keys"] = np.array([key for key, _ in games], np.uint64)
        _write_shard(out_dir, name, arrays)
        owned = sum(bool(game["owned"][0]) for _, game in games if len(game["owned"]))
        counts = {"positions": len(arrays["moves"]), "games": len(games), "owned_games": owned}
        shards.append({"name": name, **counts, "komi": komi, "rules": rules})
    return {
        "digest": read.chunk.digest,
        "files": len(read.chunk.files),
        "shards": shards,
        "skipped": dict(read.skipped),
        "examples": read.examples,
    }


def _seen_keys(out_dir: Path, manifest: dict[str, Any]) -> set[int]:
    """The keys of the games in the finished chunks' shards."""
    names = [shard["name"] for entry in manifest["chunks"].values() for shard in entry["shards"]]
    return {int(key) for name in names for key in read_arrays(out_dir / name, ["game_keys"])["game_keys"]}


def _write_shard(out_dir: Path, name: str, arrays: dict[str, np.ndarray]) -> None:
    """Write a shard's arrays, with their digests, as the folder ``out_dir/name`` (atomically)."""
    write_arrays(out_dir / name, arrays)


_write_json = write_json  # the manifest's and the report's writer, atomic


def _remove_strays(out_dir: Path, manifest: dict[str, Any]) -> None:
    """Remove the shard folders no finished chunk lists (left by a changed file list or a kill)."""
    listed = {shard["name"] for entry in manifest["chunks"].values() for shard in entry["shards"]}
    for path in out_dir.glob("*chunk-*"):
        if path.is_dir() and path.name not in listed:
            shutil.rmtree(path)


def _report(manifest: dict[str, Any]) -> dict[str, Any]:
    entries = manifest["chunks"].values()
    skipped = Counter({reason: 0 for reason in (*SKIP_REASONS, DUPLICATE, NOT_A_FILE)})
    examples: dict[str, list[str]] = {}
    for entry in entries:
        skipped.update(entry["skipped"])
        for reason, names in entry["examples"].items():
            examples[reason] = (examples.get(reason, []) + names)[:_EXAMPLES]
    return {
        "files_read": sum(entry["files"] for entry in entries),
        "games_kept": sum(shard["games"] for entry in entries for shard in entry["shards"]),
        "games_with_ownership": sum(shard["owned_games"] for entry in entries for shard in entry["shards"]),
        "positions": sum(shard["positions"] for entry in entries for shard in entry["shards"]),
        "skipped": dict(skipped),
        "skipped_examples": examples,
        "shards": sum(len(entry["shards"]) for entry in entries),
        "board_size": manifest["size"],
    }


def run(sgf_dir: Path, out_dir: Path, *, size: int = 9, workers: int = 1) -> dict[str, Any]:
    """``build_shards`` with a progress bar, then the report (the command's body)."""
    with stoppable(), Progress(*Progress.get_default_columns(), MofNCompleteColumn()) as progress:
        task = progress.add_task(f"SGF chunks of {sgf_dir}", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        try:
            report = build_shards(sgf_dir, out_dir, size=size, workers=workers, on_chunk=advance)
        except (KeyboardInterrupt, WorkerLost) as reason:
            note = f"{stopped(reason)}; the same command resumes the chunks missing in {out_dir}"
            raise SystemExit(note) from None
    skipped = ", ".join(f"{reason} {count}" for reason, count in report["skipped"].items())
    print(
        f"{report['files_read']} files read, {report['games_kept']} games kept, "
        f"{report['positions']} positions in {report['shards']} shards, "
        f"{report['games_with_ownership']} games with ownership marks; skipped: {skipped}"
    )
    print(f"report: {out_dir / REPORT}")
    return report
