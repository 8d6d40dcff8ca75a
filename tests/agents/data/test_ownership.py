"""Ownership targets: final owners with dead stones off and seki kept, GNU Go's agreement, and
``goarena data ownership`` marking a folder (resumable, malformed records and engine crashes named)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from sgfmill import sgf

from go_env import coords
from go_env.game import BLACK, WHITE, Game
from go_env.rules import Rules
from go_env.sgf import load_sgf, read_sgf, territory_marks, write_sgf
from goarena.agents.data.gnugo import GnuGoConfig, generate
from goarena.agents.data.ownership import SKIP_REASONS, area_score, engine_owner, final_owner, mark_folder
from goarena.agents.gtp import find_engine
from goarena.agents.gtp.client import GTPAgent

needs_gnugo = pytest.mark.skipif(
    find_engine("gnugo") is None, reason="GNU Go is not installed (e.g. `apt install gnugo`)"
)

# A finished 9x9 game: White's G4 is dead in Black's area; Black's B9 B8 B7 C7 and White's
# D9 D8 D7 share the liberties C9 and C8 and neither can fill them (seki).
SEKI = """
    O X . O X . . . .
    O X . O X . . . .
    O X X O X . . . .
    O O O X X . . . .
    . . O X . . . . .
    . . O X . . O . .
    . . O X . . . . .
    . . O X . . . . .
    . . O X . . . . .
"""
# Its final owners: b Black's, w White's, - neither's.
SEKI_OWNERS = """
    w b - w b b b b b
    w b - w b b b b b
    w b b w b b b b b
    w w w b b b b b b
    w w w b b b b b b
    w w w b b b b b b
    w w w b b b b b b
    w w w b b b b b b
    w w w b b b b b b
"""
DEAD = [coords.from_gtp("G4", 9)]
SEKI_POINTS = [coords.from_gtp(v, 9) for v in ("B9", "B8", "B7", "C7", "D9", "D8", "D7")]


def points(diagram: str, mark: str) -> list[int]:
    cells = textwrap.dedent(diagram).split()
    return [point for point, cell in enumerate(cells) if cell == mark]


def seki_game(komi: float = 7.0) -> Game:
    """The SEKI position, ended by two passes."""
    game = Game(9, Rules.preset("goarena", komi=komi))
    game.setup(points(SEKI, "X"), points(SEKI, "O"))
    game.play(game.pass_move)
    game.play(game.pass_move)
    return game


def test_dead_stones_come_off_seki_stones_stay_and_shared_liberties_are_neithers() -> None:
    game = seki_game()
    owner = final_owner(game.board, 9, DEAD, SEKI_POINTS)

    expected = np.zeros(81, np.int8)
    expected[points(SEKI_OWNERS, "b")] = BLACK
    expected[points(SEKI_OWNERS, "w")] = WHITE
    assert owner.tolist() == expected.tolist()
    assert area_score(owner) == 55 - 24 == 31
    # Without the engine's word, the dead stone would keep its point and Black's region.
    assert area_score(final_owner(game.board, 9)) < 31


def test_the_marks_hold_the_dead_stones_and_round_trip_through_sgf() -> None:
    game = seki_game()
    owner = final_owner(game.board, 9, DEAD, SEKI_POINTS)
    black, white = territory_marks(game.board, owner)

    assert DEAD[0] in black and not set(SEKI_POINTS) & set(black + white)  # seki stones are alive
    assert len(black) == 41 and len(white) == 10  # Black's empty region with G4; White's A1-B5
    record = read_sgf(write_sgf(game, territory=(black, white)))
    assert record.territory == (black, white)
    assert record.final_owner.tolist() == owner.tolist()


def test_a_board_without_its_dead_stones_must_be_a_position() -> None:
    game = seki_game()
    with pytest.raises(ValueError, match="dead stones asked on empty points"):
        final_owner(game.board, 9, [coords.from_gtp("C9", 9)])


@needs_gnugo
def test_gnu_go_names_the_dead_stone_and_the_seki_and_scores_what_we_count() -> None:
    game = seki_game()
    with GTPAgent(GnuGoConfig(Path(".")).engine_command()) as gnugo:
        assert gnugo.final_status_list(game, "dead") == DEAD
        assert sorted(gnugo.final_status_list(game, "seki")) == sorted(SEKI_POINTS)
        owner = engine_owner(gnugo, game)
        assert gnugo.final_score(game) == area_score(owner) - game.rules.komi == 24


def test_a_seki_the_engine_calls_dead_stays_on_the_board(tmp_path: Path) -> None:
    game = seki_game()
    with GTPAgent(fake_engine(tmp_path, "D9,D8,D7,G4")) as engine:  # the seki and G4 "dead"
        owner = engine_owner(engine, game)
    assert owner.tolist() == final_owner(game.board, 9, DEAD, SEKI_POINTS).tolist()


def margin(result: str) -> float:
    """Black's margin that an RE value like B+3 or W+4.5 names (0 for a draw)."""
    return 0.0 if result == "0" else float(result[2:]) * (1 if result[0] == "B" else -1)


@needs_gnugo
def test_gnugo_records_carry_marks_that_count_to_gnugos_own_score(tmp_path: Path) -> None:
    generate(GnuGoConfig(tmp_path, size=7, games=5, seed=2))

    finished = 0
    for path in sorted(tmp_path.glob("*.sgf")):
        record = load_sgf(path)
        if record.game.is_terminated:
            finished += 1
            # RE is GNU Go's final_score: the area count of the marks, komi taken off.
            assert area_score(record.final_owner) - record.komi == margin(record.result or "")
            assert b"TB[" in path.read_bytes() and b"TW[" in path.read_bytes()
        else:
            assert record.territory is None and (record.result or "").endswith("+R")
    assert finished >= 4


FAKE_ENGINE = """
import sys

dead = sys.argv[1]
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    answer = ""
    if words[0] == "list_commands":
        answer = "\\n".join(["name", "version", "list_commands", "boardsize", "clear_board", "komi",
                             "play", "final_status_list", "quit"])
    elif words[0] == "name":
        answer = "fake"
    elif words[0] == "final_status_list":
        if dead == "crash":
            sys.exit(3)
        answer = dead.replace(",", " ") if words[1] == "dead" else ""
    elif words[0] == "quit":
        print("=\\n", flush=True)
        break
    print(f"= {answer}\\n", flush=True)
"""


def fake_engine(tmp_path: Path, dead: str = "") -> str:
    """A GTP engine that names ``dead`` (vertices, comma-separated) dead; "crash" dies instead."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE)
    return f"{sys.executable} {script} {dead or '-'}"


def finished_game() -> Game:
    """A 5x5 game ended by two passes: White's B4 stands alone in Black's area."""
    game = Game(5, Rules(komi=0.5))
    for vertex in ("C3", "B4", "C4", "pass", "C2", "pass", "pass"):
        game.play(coords.from_gtp(vertex, 5))
    return game


def write_folder(root: Path) -> None:
    root.mkdir()
    game = finished_game()
    (root / "finished.sgf").write_bytes(write_sgf(game, black="alice", comments={0: "first move"}, date=""))
    (root / "sub").mkdir()
    (root / "sub" / "resigned.sgf").write_bytes(write_sgf(Game(5), result="W+R"))
    (root / "broken.sgf").write_bytes(b"(;GM[1]SZ[5];B[cc")
    (root / "collection.sgf").write_bytes(write_sgf(game) + write_sgf(game))


def test_the_job_marks_finished_records_skips_the_rest_and_resumes(tmp_path: Path) -> None:
    root = tmp_path / "sgf"
    write_folder(root)
    before = (root / "finished.sgf").read_bytes()

    summary = mark_folder(root, fake_engine(tmp_path, "B4"))

    assert summary.marked == 1
    assert dict(summary.skipped) == {
        "already marked": 0,
        "not ended by two passes": 1,
        "collection": 1,
        "malformed": 1,
        "engine error": 0,
    }
    assert summary.examples["malformed"][0].startswith("broken.sgf: ")
    assert summary.examples["not ended by two passes"] == ["sub/resigned.sgf: RE[W+R]"]
    record = load_sgf(root / "finished.sgf")
    b4 = coords.from_gtp("B4", 5)
    assert b4 in record.territory[0] and record.final_owner[b4] == BLACK
    assert area_score(record.final_owner) == 25  # the whole board is Black's
    # Everything else in the record is as it was.
    old, new = sgf.Sgf_game.from_bytes(before), sgf.Sgf_game.from_bytes((root / "finished.sgf").read_bytes())
    old_nodes, new_nodes = old.get_main_sequence(), new.get_main_sequence()
    assert len(old_nodes) == len(new_nodes)
    for old_node, new_node in zip(old_nodes, new_nodes, strict=True):
        added = {"TB", "TW"} if new_node is new_nodes[-1] else set()
        assert new_node.get_raw_property_map() == {
            **old_node.get_raw_property_map(),
            **{prop: new_node.get_raw_property_map()[prop] for prop in added},
        }
    assert not list(root.rglob("*.tmp"))

    again = mark_folder(root, fake_engine(tmp_path, "crash"))  # would fail on any record it asked
    assert again.marked == 0 and again.skipped["already marked"] == 1 and again.skipped["engine error"] == 0
    assert set(SKIP_REASONS) == set(again.skipped)


def test_an_engine_crash_is_reported_with_its_record_and_the_engine_restarted(tmp_path: Path) -> None:
    root = tmp_path / "sgf"
    root.mkdir()
    for name in ("a.sgf", "b.sgf"):
        (root / name).write_bytes(write_sgf(finished_game()))

    summary = mark_folder(root, fake_engine(tmp_path, "crash"))

    assert summary.marked == 0 and summary.skipped["engine error"] == 2
    assert [line.split(":")[0] for line in summary.examples["engine error"]] == ["a.sgf", "b.sgf"]
    assert "final_status_list dead" in summary.examples["engine error"][1]  # a new engine got there too
    assert load_sgf(root / "a.sgf").territory is None
