"""SGF records -> shards: why records are skipped, which moves are targets, what a shard holds, resuming."""

from __future__ import annotations

import json
import os
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules
from go_env.core import INFO_TO_PLAY
from go_env.features.alphago import game_planes
from go_env.features.symmetry import transform_planes
from go_env.sgf import write_sgf
from goarena.agents.data import shards
from goarena.agents.data.dataset import ShardDataset
from goarena.agents.data.reader import RANDOM_OPENING, SkippedGame, read_expert_game
from goarena.agents.data.shards import ARRAYS, MANIFEST, REPORT, build_shards, encode_game, sgf_files


def stone_planes(state, geometry, out: np.ndarray) -> None:
    """A stand-in for the 48 planes: own stones, opponent stones, empty points, ones."""
    size = out.shape[-1]
    board = state.board[: size * size].reshape(size, size)
    to_play = state.info[INFO_TO_PLAY]
    out[:] = 0
    out[0], out[1], out[2], out[3] = board == to_play, board == 3 - to_play, board == 0, 1


# A 5x5 game in SGF letters, Black first: move 7, B[bc], captures W[bb] (point 6).
MOVES = "ba bb ab dd cb ee bc cd bd"


def record(moves: str = MOVES, *, root: str = "RE[B+3]", size: int = 5, comments: str = "") -> bytes:
    nodes = "".join(
        f";{'BW'[i % 2]}[{'' if move == '-' else move}]{comments if i < 2 else ''}"
        for i, move in enumerate(moves.split())
    )
    return f"(;GM[1]FF[4]SZ[{size}]KM[6.5]{root}{nodes})".encode()


HANDICAP = b"(;GM[1]SZ[5]HA[2]AB[aa][ea]RE[W+1];W[cc];B[dd])"


def test_a_clean_up_phase_after_two_passes_is_read_on_to_the_end() -> None:
    """Moves after two passes (a clean-up phase): targets like any, from the resumed game."""
    game = read_expert_game(record(MOVES + " - - ae - -", root="RE[W+2]"), 5)
    arrays = encode_game(game, 0, stone_planes)
    assert arrays["moves"][-5:].tolist() == [25, 25, 20, 25, 25]
    assert arrays["boards"][-3].tolist() == arrays["boards"][-4].tolist()  # the passes change nothing
    assert arrays["boards"][-2][20] == WHITE  # W[ae] was played after the passes


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (HANDICAP, "handicap or setup"),
        (b"(;GM[1]SZ[5]AW[ae]RE[B+1];B[cc];W[dd])", "handicap or setup"),
        (record(size=13), "board size"),
        (record("cc dd cc"), "illegal move"),
        (record(root=""), "no result"),
        (record(root="RE[?]"), "no result"),
        (b"(;GM[1]SZ[5];B[cc", "unreadable"),
        (b"\x89PNG not a record", "unreadable"),
    ],
)
def test_records_are_skipped_with_their_reason(data: bytes, reason: str) -> None:
    with pytest.raises(SkippedGame) as skipped:
        read_expert_game(data, 5)
    assert skipped.value.reason == reason


def test_every_move_of_an_archive_record_is_a_target() -> None:
    game = read_expert_game(record(), 5)
    assert game.first_target == 0 and len(game.moves) == 9
    assert game.winner == BLACK and game.rules.komi == 6.5
    assert read_expert_game(record(root="RE[W+R]"), 5).winner == WHITE
    assert read_expert_game(record(root="RE[0]"), 5).winner == 0


def test_random_opening_moves_are_not_targets() -> None:
    marked = read_expert_game(record(comments=f"C[{RANDOM_OPENING}]"), 5)
    other_comment = read_expert_game(record(comments="C[nice move]"), 5)
    assert marked.first_target == 2 and other_comment.first_target == 0

    arrays = encode_game(marked, 7, stone_planes)

    moves = [int(m) for m in arrays["moves"]]
    assert moves == list(marked.moves[2:]) and len(moves) == 7  # ba and bb are not targets
    first = arrays["boards"][0]
    assert np.count_nonzero(first) == 2 and first[1] == BLACK and first[6] == WHITE  # ba, bb
    assert arrays["to_play"][0] == BLACK and arrays["last_moves"][0] == 6


def test_a_shard_holds_the_position_before_each_expert_move() -> None:
    game = read_expert_game(record(MOVES + " - -", root="RE[W+2]"), 5)
    arrays = encode_game(game, 3, stone_planes)

    n = len(game.moves)
    assert {key: (value.dtype.name, value.shape) for key, value in arrays.items()} == {
        "planes": ("uint8", (n, 48, 4)),
        "boards": ("int8", (n, 25)),
        "to_play": ("int8", (n,)),
        "last_moves": ("int16", (n,)),
        "moves": ("int16", (n,)),
        "outcomes": ("int8", (n,)),
        "game_ids": ("int32", (n,)),
        "ownership": ("int8", (n, 25)),
        "owned": ("bool", (n,)),
        "scores": ("float32", (n,)),
    }
    # A record without territory marks: its final owners are unknown.
    assert not arrays["owned"].any() and not arrays["ownership"].any() and not arrays["scores"].any()
    assert arrays["moves"][-2:].tolist() == [25, 25]  # the passes are targets too
    assert arrays["last_moves"].tolist() == [-1, *game.moves[:-1]]
    assert arrays["to_play"].tolist() == [BLACK, WHITE] * (n // 2) + [BLACK] * (n % 2)
    assert arrays["outcomes"].tolist() == [-1 if c == BLACK else 1 for c in arrays["to_play"]]
    assert set(arrays["game_ids"].tolist()) == {3}
    # The capture: W[bb] stands before move 7 and is gone before move 8.
    assert arrays["boards"][6][6] == WHITE and arrays["boards"][7][6] == 0
    planes = np.unpackbits(arrays["planes"], axis=-1, count=25).reshape(n, 48, 5, 5)
    own = arrays["boards"] == arrays["to_play"][:, None]
    assert (planes[:, 0].reshape(n, 25) == own).all() and (planes[:, 3] == 1).all()


def test_shards_hold_alphagos_planes_by_default(tmp_path: Path) -> None:
    (tmp_path / "sgf").mkdir()
    (tmp_path / "sgf" / "game.sgf").write_bytes(record())
    build_shards(tmp_path / "sgf", tmp_path / "out", size=5)

    packed = np.load(tmp_path / "out" / "chunk-000000-0" / "planes.npy")
    game = Game(5, Rules(komi=6.5))
    for row, move in enumerate(read_expert_game(record(), 5).moves):
        planes = np.unpackbits(packed[row], axis=-1, count=25).reshape(48, 5, 5)
        assert (planes == game_planes(game)).all()
        game.play(move)


def write_folder(root: Path) -> None:
    """Records in a tree: 3 kept games (one under a subfolder) and one of each kind skipped."""
    (root / "kgs" / "2024").mkdir(parents=True)
    (root / "a.sgf").write_bytes(record())
    (root / "kgs" / "b.SGF").write_bytes(record("dd cc", root="RE[W+R]"))
    (root / "kgs" / "2024" / "c.sgf").write_bytes(record("bb dd - -", root="RE[0]"))
    (root / "kgs" / "handicap.sgf").write_bytes(HANDICAP)
    (root / "kgs" / "big.sgf").write_bytes(record(size=13))
    (root / "illegal.sgf").write_bytes(record("cc cc"))
    (root / "unfinished.sgf").write_bytes(record(root=""))
    (root / "garbage.sgf").write_bytes(b"(;GM[1")
    (root / "notes.txt").write_text("not a record")


def test_a_folder_tree_becomes_shards_and_a_report(tmp_path: Path) -> None:
    write_folder(tmp_path / "sgf")
    report = build_shards(tmp_path / "sgf", tmp_path / "out", size=5, chunk_size=3, encoder=stone_planes)

    assert report["files_read"] == 8 and report["games_kept"] == 3
    assert report["positions"] == 9 + 2 + 4
    assert report["skipped"] == {
        "unreadable": 1,
        "board size": 1,
        "handicap or setup": 1,
        "illegal move": 1,
        "no result": 1,
        "duplicate": 0,
        "not a file": 0,
    }
    assert json.loads((tmp_path / "out" / REPORT).read_text()) == report
    manifest = json.loads((tmp_path / "out" / MANIFEST).read_text())
    shards = [shard for entry in manifest["chunks"].values() for shard in entry["shards"]]
    assert {(shard["komi"], shard["rules"]) for shard in shards} == {(6.5, "goarena")}
    ids = np.concatenate([np.load(tmp_path / "out" / s["name"] / "game_ids.npy") for s in shards])
    assert len(np.unique(ids)) == 3  # one id a game
    for shard in shards:
        folder = tmp_path / "out" / shard["name"]
        lengths = {len(np.load(folder / f"{key}.npy", mmap_mode="r")) for key in ARRAYS}
        assert lengths == {shard["positions"]}


def test_entries_that_are_no_file_are_counted_and_named_never_opened(tmp_path: Path) -> None:
    write_folder(tmp_path / "sgf")
    root = tmp_path / "sgf"
    os.mkfifo(root / "pipe.sgf")  # opened, it would block the build
    (root / "device.sgf").symlink_to("/dev/zero")  # read, it would never end
    (root / "broken.sgf").symlink_to(root / "gone.sgf")
    (root / "loop.sgf").symlink_to(root / "loop.sgf")
    (root / "kgs" / "folder.sgf").mkdir()
    report = build_shards(root, tmp_path / "out", size=5, chunk_size=3, encoder=stone_planes)
    assert report["files_read"] == 8 and report["games_kept"] == 3
    assert report["skipped"]["not a file"] == 5
    assert report["not_files"] == [
        "broken.sgf: a broken link",
        "device.sgf: a device",
        "kgs/folder.sgf: a folder",
        "loop.sgf: a looping link",
        "pipe.sgf: a FIFO",
    ]


def test_shards_resume_and_rebuild_only_chunks_whose_files_changed(tmp_path: Path) -> None:
    sgf, out = tmp_path / "sgf", tmp_path / "out"
    write_folder(sgf)
    first = build_shards(sgf, out, size=5, chunk_size=3, encoder=stone_planes)
    manifest = json.loads((out / MANIFEST).read_text())
    built = {path.name: path.stat().st_mtime_ns for path in out.glob("chunk-*")}
    # As a run killed after writing the last chunk's shards but before the manifest listed them.
    last = max(manifest["chunks"], key=int)
    del manifest["chunks"][last]
    (out / MANIFEST).write_text(json.dumps(manifest))
    (out / ".tmp-chunk-000099-0").mkdir()  # a shard folder cut off while being written

    assert build_shards(sgf, out, size=5, chunk_size=3, encoder=stone_planes) == first
    after = {path.name: path.stat().st_mtime_ns for path in out.glob("chunk-*")}
    assert after.keys() == built.keys() and not (out / ".tmp-chunk-000099-0").exists()
    rebuilt = {name for name in built if after[name] != built[name]}
    assert rebuilt == {name for name in built if name.startswith(f"chunk-{int(last):06d}")}

    (sgf / "zzz.sgf").write_bytes(record("ee aa", root="RE[B+1]"))  # sorts last: only the last chunk
    grown = build_shards(sgf, out, size=5, chunk_size=3, encoder=stone_planes)
    assert (grown["files_read"], grown["games_kept"]) == (9, 4)
    for name in sgf_files(sgf)[6:]:  # the last chunk's files: nothing to build, a chunk to drop
        (sgf / name).unlink()
    shrunk = build_shards(sgf, out, size=5, chunk_size=3, encoder=stone_planes)
    assert shrunk["files_read"] == 6 and len(ShardDataset(out)) == shrunk["positions"]
    with pytest.raises(ValueError, match="another folder"):
        build_shards(sgf, out, size=9, chunk_size=3, encoder=stone_planes)


def test_a_game_read_twice_is_kept_once_also_across_reruns(tmp_path: Path) -> None:
    sgf, out = tmp_path / "sgf", tmp_path / "out"
    sgf.mkdir()
    (sgf / "a.sgf").write_bytes(record())
    (sgf / "b.sgf").write_bytes(record(root="RE[B+3]PB[someone]"))  # the same game
    (sgf / "c.sgf").write_bytes(record(comments=f"C[{RANDOM_OPENING}]"))  # other targets

    report = build_shards(sgf, out, size=5, chunk_size=1, encoder=stone_planes)

    assert (report["games_kept"], report["skipped"]["duplicate"]) == (2, 1)
    assert report["skipped_examples"]["duplicate"] == ["b.sgf: the moves of a game read before"]
    # Rebuilding the first chunk finds its game already kept by the second.
    manifest = json.loads((out / MANIFEST).read_text())
    del manifest["chunks"]["0"]
    (out / MANIFEST).write_text(json.dumps(manifest))
    again = build_shards(sgf, out, size=5, chunk_size=1, encoder=stone_planes)
    assert (again["games_kept"], again["skipped"]["duplicate"], again["positions"]) == (2, 1, 9 + 7)


def test_worker_processes_build_the_same_shards(tmp_path: Path) -> None:
    write_folder(tmp_path / "sgf")
    one, two = (
        build_shards(tmp_path / "sgf", tmp_path / name, size=5, chunk_size=2, encoder=stone_planes, workers=n)
        for name, n in (("one", 1), ("two", 2))
    )
    assert one == two
    for path in (tmp_path / "one").glob("chunk-*/*.npy"):
        assert np.array_equal(np.load(path), np.load(tmp_path / "two" / path.parent.name / path.name))


class _PicklingPool:
    """A stand-in for a spawned pool: each job is pickled as it would be sent to a worker."""

    sent: list[bytes] = []

    def __init__(self, processes: int):
        pass

    def __enter__(self) -> _PicklingPool:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def imap(self, function, jobs):
        for job in jobs:
            data = pickle.dumps(job)
            self.sent.append(data)
            yield function(pickle.loads(data))


def test_workers_are_sent_the_kernel_by_name_not_a_pickled_dispatcher(tmp_path, monkeypatch) -> None:
    # A pickled numba dispatcher carries its Python code, and each spawned worker compiled it
    # again on every run, ignoring numba's on-disk cache: two workers ran six times slower.
    monkeypatch.setattr(shards, "worker_pool", _PicklingPool)
    _PicklingPool.sent = []
    write_folder(tmp_path / "sgf")
    build_shards(tmp_path / "sgf", tmp_path / "out", size=5, chunk_size=3, workers=2)  # alphago_planes
    assert len(_PicklingPool.sent) == 3
    for data in _PicklingPool.sent:
        assert b"numba" not in data and b"go_env.features.alphago" in data
    one = build_shards(tmp_path / "sgf", tmp_path / "one", size=5, chunk_size=3, workers=1)
    assert one == json.loads((tmp_path / "out" / REPORT).read_text())
    assert shards.encoder_reference(stone_planes) == (__name__, "stone_planes")
    assert shards.encoder_reference(lambda *_: None) is not None  # no name to send: sent as it is


def test_every_game_of_a_collection_is_read(tmp_path: Path) -> None:
    sgf = tmp_path / "sgf"
    sgf.mkdir()
    games = [record(), record("dd cc", root="RE[W+R]"), record(size=13), record("bb dd - -", root="RE[0]")]
    (sgf / "collection.sgf").write_bytes(b"\n".join(games))
    (sgf / "single.sgf").write_bytes(record("cc", root="RE[B+1]"))

    report = build_shards(sgf, tmp_path / "out", size=5, encoder=stone_planes)

    assert (report["files_read"], report["games_kept"]) == (2, 4)  # the first game alone before
    assert report["positions"] == 9 + 2 + 4 + 1
    assert report["skipped"]["board size"] == 1
    assert report["skipped_examples"]["board size"] == ["collection.sgf#3: board size: a 13x13 game, not 5x5"]
    assert sorted(set(ShardDataset(tmp_path / "out").game_ids.tolist())) == [0, 1]  # by file


def test_a_collection_broken_after_its_first_game_names_what_is_lost(tmp_path: Path) -> None:
    sgf = tmp_path / "sgf"
    sgf.mkdir()
    (sgf / "broken.sgf").write_bytes(record() + record("dd cc", root="RE[W+R]") + b"(;GM[1]SZ[5];B[cc")

    report = build_shards(sgf, tmp_path / "out", size=5, encoder=stone_planes)

    assert (report["games_kept"], report["skipped"]["unreadable"]) == (1, 1)
    (example,) = report["skipped_examples"]["unreadable"]
    assert example.startswith("broken.sgf#3: unreadable: the collection's games from game 3 on")


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no folder of SGF files"):
        build_shards(tmp_path / "missing", tmp_path / "out", encoder=stone_planes)
    with pytest.raises(ValueError, match="board size"):
        build_shards(tmp_path, tmp_path / "out", size=40, encoder=stone_planes)
    with pytest.raises(ValueError, match="workers"):
        build_shards(tmp_path, tmp_path / "out", workers=0, encoder=stone_planes)
    assert not (tmp_path / "out").exists()


def test_generated_records_round_trip_through_write_sgf() -> None:
    game = Game(5, Rules(komi=7))
    for move in (12, 6, 25, 25):
        game.play(move)
    data = write_sgf(game, result="B+3", comments={0: RANDOM_OPENING})
    expert = read_expert_game(data, 5)
    assert expert.first_target == 1 and expert.moves == (12, 6, 25, 25)


def marked_record() -> tuple[bytes, np.ndarray]:
    """A 5x5 game ended by two passes whose marks take White's last stone off as dead, and the
    final owners (BLACK, WHITE, 0) the marks say."""
    game = Game(5, Rules(komi=6.5))
    for move in read_expert_game(record(MOVES + " - -", root="RE[B+3]"), 5).moves:
        game.play(move)
    board = game.board.reshape(-1)
    owner = game.area_owner().reshape(-1).copy()
    dead = int(np.flatnonzero(board == WHITE)[-1])
    owner[dead] = BLACK
    black = [p for p in np.flatnonzero(owner == BLACK) if board[p] != BLACK]
    white = [p for p in np.flatnonzero(owner == WHITE) if board[p] != WHITE]
    return write_sgf(game, result="B+3", territory=(black, white), date=""), owner


def test_shards_carry_the_marks_as_ownership_from_the_movers_view(tmp_path: Path) -> None:
    sgf = tmp_path / "sgf"
    sgf.mkdir()
    data, owner = marked_record()
    (sgf / "a-marked.sgf").write_bytes(data)
    (sgf / "b-unmarked.sgf").write_bytes(record("dd cc ee", root="RE[W+R]"))

    report = build_shards(sgf, tmp_path / "out", size=5, encoder=stone_planes)

    assert report["games_with_ownership"] == 1
    arrays = {
        key: np.load(tmp_path / "out" / "chunk-000000-0" / f"{key}.npy") for key in shards.OWNERSHIP_ARRAYS
    }
    ids = np.load(tmp_path / "out" / "chunk-000000-0" / "game_ids.npy")
    to_play = np.load(tmp_path / "out" / "chunk-000000-0" / "to_play.npy")
    marked, unmarked = ids == 0, ids == 1
    black_view = (owner == BLACK).astype(np.int8) - (owner == WHITE)
    assert arrays["owned"][marked].all() and not arrays["owned"][unmarked].any()
    for row in np.flatnonzero(marked):
        mover = 1 if to_play[row] == BLACK else -1  # the mirror for White to move
        assert arrays["ownership"][row].tolist() == (mover * black_view).tolist()
        assert arrays["scores"][row] == mover * (
            np.count_nonzero(owner == BLACK) - np.count_nonzero(owner == WHITE)
        )
    assert set(to_play[marked].tolist()) == {BLACK, WHITE}
    assert not arrays["ownership"][unmarked].any() and not arrays["scores"][unmarked].any()

    data = ShardDataset(tmp_path / "out")
    indices = np.arange(len(data))
    batch = data.batch(indices, rng=np.random.default_rng(1), augment=True)
    targets = data.ownership(indices, batch.symmetries)
    assert targets.owned.tolist() == arrays["owned"].tolist() and (targets.scores == arrays["scores"]).all()
    assert len(set(batch.symmetries.tolist())) > 1
    for row, k in enumerate(batch.symmetries):  # turned as the boards were
        turned = transform_planes(arrays["ownership"][row].reshape(1, 5, 5), int(k)).reshape(25)
        assert targets.ownership[row].tolist() == turned.tolist()
    assert data.ownership(indices).ownership.tolist() == arrays["ownership"].tolist()


def test_shards_of_format_1_read_without_ownership_and_a_rerun_rebuilds_them(tmp_path: Path) -> None:
    sgf, out = tmp_path / "sgf", tmp_path / "out"
    sgf.mkdir()
    (sgf / "a.sgf").write_bytes(marked_record()[0])
    build_shards(sgf, out, size=5, encoder=stone_planes)
    # As a folder built before the ownership arrays (and the digests) existed.
    for key in shards.OWNERSHIP_ARRAYS:
        (out / "chunk-000000-0" / f"{key}.npy").unlink()
    (out / "chunk-000000-0" / "digest.json").unlink()
    manifest = json.loads((out / MANIFEST).read_text())
    (out / MANIFEST).write_text(json.dumps({**manifest, "format": 1}))

    old = ShardDataset(out)
    assert not old.has_ownership and len(old.batch(np.arange(len(old)))) == len(old)
    with pytest.raises(ValueError, match="hold no ownership targets.*goarena data shards"):
        old.ownership(np.arange(len(old)))

    build_shards(sgf, out, size=5, encoder=stone_planes)
    rebuilt = ShardDataset(out)
    assert rebuilt.has_ownership and rebuilt.ownership(np.arange(len(rebuilt))).owned.all()


def test_a_record_marked_after_its_chunk_was_built_is_read_again(tmp_path: Path) -> None:
    sgf, out = tmp_path / "sgf", tmp_path / "out"
    sgf.mkdir()
    data, _ = marked_record()
    unmarked = re.sub(rb"T[BW](\[[a-z]*\])+", b"", data)
    assert len(unmarked) < len(data)
    (sgf / "a.sgf").write_bytes(unmarked)
    assert build_shards(sgf, out, size=5, encoder=stone_planes)["games_with_ownership"] == 0
    (sgf / "a.sgf").write_bytes(data)  # as `goarena data ownership` would mark it
    assert build_shards(sgf, out, size=5, encoder=stone_planes)["games_with_ownership"] == 1


def test_a_damaged_shard_is_refused_by_name(tmp_path: Path) -> None:
    """Every file of a shard is checked when the folder is opened (``integrity``): a bit
    flipped in the targets is named, never trained on."""
    write_folder(tmp_path / "sgf")
    build_shards(tmp_path / "sgf", tmp_path / "out", size=5, encoder=stone_planes)
    moves = tmp_path / "out" / "chunk-000000-0" / "moves.npy"
    data = bytearray(moves.read_bytes())
    data[-1] ^= 0x04  # the last target, one bit off
    moves.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=f"^{moves}: garbled: its sha256 is not the one in digest.json"):
        ShardDataset(tmp_path / "out")
    (tmp_path / "out" / MANIFEST).write_text('{"format": 3, "size"')
    with pytest.raises(ValueError, match=f"^{tmp_path / 'out' / MANIFEST}: cut or garbled: not JSON"):
        ShardDataset(tmp_path / "out")


def test_shards_written_before_digests_are_read_with_a_note_and_rebuilt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_folder(tmp_path / "sgf")
    out = tmp_path / "out"
    build_shards(tmp_path / "sgf", out, size=5, encoder=stone_planes)
    (out / "chunk-000000-0" / "digest.json").unlink()  # as format 2 wrote them
    manifest = json.loads((out / MANIFEST).read_text())
    (out / MANIFEST).write_text(json.dumps({**manifest, "format": 2}))
    capsys.readouterr()
    assert len(ShardDataset(out)) == 15
    assert capsys.readouterr().err == (
        f"goarena: the shards in {out} carry no digests (written before goarena checked its data "
        "files): read without that check; rebuild them (the goarena data command that wrote them, "
        "into the same folder) to have them checked\n"
    )
    build_shards(tmp_path / "sgf", out, size=5, encoder=stone_planes)  # the same command, rerun
    assert (out / "chunk-000000-0" / "digest.json").is_file() and len(ShardDataset(out)) == 15
    assert capsys.readouterr().err == ""
