import contextlib
import datetime
import json
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sgfmill import boards, sgf, sgf_grammar, sgf_moves

from go_env import coords
from go_env.game import BLACK, WHITE, Game
from go_env.rules import RULES_PRESETS, Rules
from go_env.sgf import MAX_SGF_BYTES, MAX_SGF_NODES, SgfError, load_sgf, read_sgf, save_sgf, write_sgf


def random_game(
    size: int, rules: Rules | None = None, handicap: int = 0, moves: int = 60, seed: int = 0
) -> Game:
    """Random legal moves with the odd pass (never two running, so it runs to ``moves``)."""
    rng = np.random.default_rng(seed)
    game = Game(size, rules, handicap)
    while len(game.moves) < moves and not game.is_over:
        legal = game.legal_moves()
        stones = legal[legal != game.pass_move]
        may_pass = game.last_move != game.pass_move and rng.random() < 0.05
        game.play(game.pass_move if may_pass or len(stones) == 0 else rng.choice(stones))
    return game


def assert_same_game(read: Game, written: Game) -> None:
    assert read.size == written.size
    assert read.moves == written.moves
    assert sorted(read.setup_black) == sorted(written.setup_black)
    assert sorted(read.setup_white) == sorted(written.setup_white)
    assert read.first_to_play == written.first_to_play
    assert read.handicap == written.handicap
    assert read.rules == written.rules
    assert np.array_equal(read.board, written.board)
    assert read.is_over == written.is_over


# -- round trips -------------------------------------------------------------------------


@pytest.mark.parametrize("size", [5, 9, 19])
def test_round_trip(size):
    game = random_game(size, moves=3 * size * size // 2, seed=size)
    record = read_sgf(write_sgf(game, black="alice", white="bob", event="test"))
    assert_same_game(record.game, game)
    assert record.moves == tuple(game.moves)
    assert (record.black, record.white, record.event) == ("alice", "bob", "test")
    assert record.komi == game.rules.komi
    assert record.rules == game.rules
    assert record.result == (game.result() if game.is_over else None)


def test_round_trip_game_ended_by_passes():
    game = Game(9)
    game.replay([40, 81, 20, 81, 81])
    data = write_sgf(game)
    assert b";W[];B[cc];W[];B[]" in data
    record = read_sgf(data)
    assert record.game.is_terminated
    assert record.result == game.result() == "B+73.5"


def test_round_trip_game_with_a_clean_up_phase():
    """Two passes, then more moves (as KGS's clean-up phase): every move is written and read
    back, the game resumed where the passes ended it, to the same final position."""
    game = Game(9)
    game.replay([40, 20, 81, 81, 41, 21, 81, 81], resume=True)
    data = write_sgf(game, comments={4: "clean-up"})
    assert b";B[];W[];B[fe]C[clean-up];W[dc];B[];W[])" in data.replace(b"\n", b"")
    record = read_sgf(data)
    assert record.moves == tuple(game.moves) and record.comments == {4: "clean-up"}
    assert_same_game(record.game, game)
    assert record.game.is_terminated and record.game.move_number == 8


@pytest.mark.parametrize(("size", "stones"), [(9, 3), (19, 4), (19, 9)])
def test_round_trip_handicap(size, stones):
    game = random_game(size, handicap=stones, moves=40, seed=stones)
    data = write_sgf(game)
    assert f"HA[{stones}]".encode() in data and b"PL[W]" in data
    record = read_sgf(data)
    assert record.handicap == stones
    assert_same_game(record.game, game)


def test_round_trip_setup_position():
    game = Game(9)
    game.setup([10, 11], [30], to_play=WHITE)
    game.replay([40, 50])
    assert_same_game(read_sgf(write_sgf(game)).game, game)


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("chinese", suicide=True, komi=0.5),
        Rules.preset("japanese-like"),
        Rules(komi=-3, ko="situational", scoring="territory", max_moves=50, name="custom"),
        RULES_PRESETS["tromp-taylor"],
    ],
    ids=["chinese-suicide", "japanese-like", "custom", "tromp-taylor"],
)
def test_round_trip_rules(rules):
    game = random_game(7, rules, moves=80, seed=1)
    record = read_sgf(write_sgf(game))
    assert record.rules == rules
    assert_same_game(record.game, game)


def test_round_trip_comments():
    game = random_game(9, moves=10)
    comments = {
        0: "winrate 0.52 visits 800 pv D4 Q16",
        3: "a ] bracket, a \\ backslash\nand ünïcödé",
        9: "last",
    }
    record = read_sgf(write_sgf(game, comments=comments))
    assert record.comments == comments


def test_save_and_load(tmp_path):
    game = random_game(9, moves=20)
    path = tmp_path / "game.sgf"
    save_sgf(path, game, black="Jürgen", result="B+R")
    record = load_sgf(path)
    assert_same_game(record.game, game)
    assert (record.black, record.result) == ("Jürgen", "B+R")


# -- what write_sgf writes ---------------------------------------------------------------


def test_header():
    game = Game(9, Rules.preset("chinese"))
    game.play(40)
    data = write_sgf(game, black="alice", white="bob", extra={"BR": "3d", "TM": "600"})
    for prop in [b"FF[4]", b"GM[1]", b"CA[UTF-8]", b"AP[goarena:", b"SZ[9]", b"KM[7.5]", b"RU[chinese]"]:
        assert prop in data
    assert b"PB[alice]" in data and b"PW[bob]" in data and b"BR[3d]" in data and b"TM[600]" in data
    assert f"DT[{datetime.date.today().isoformat()}]".encode() in data
    assert b"RE[" not in data  # the game is not over
    assert b"HA[" not in data and b"PL[" not in data and b"AB[" not in data


def test_empty_fields_are_omitted():
    game = Game(9)
    game.replay([81, 81])
    data = write_sgf(game, result="", date="")
    assert b"RE[" not in data and b"DT[" not in data and b"PB[" not in data


def test_write_rejects_bad_arguments():
    game = random_game(9, moves=5)
    with pytest.raises(ValueError, match="5 moves"):
        write_sgf(game, comments={5: "no such move"})
    with pytest.raises(ValueError, match="KM"):
        write_sgf(game, extra={"KM": "0.5"})


# -- reading records written elsewhere ---------------------------------------------------

PRO_GAME = b"""(;GM[1]FF[4]CA[UTF-8]AP[CGoban:3]ST[2]
RU[Japanese]SZ[19]KM[6.50]TM[28800]
PW[Lee Sedol]PB[Kim Jiseok]WR[9p]BR[9p]DT[2011-03-02,03]EV[Example Cup]RE[B+2.5]
;B[qd];W[dc];B[pq];W[oc];B[cp];W[cj]C[a comment]
;B[ep];W[pe];B[od];W[nd];B[pc];W[nc];B[qf];W[kc])
"""


def test_read_pro_record():
    record = read_sgf(PRO_GAME)
    assert (record.black, record.white) == ("Kim Jiseok", "Lee Sedol")
    assert (record.result, record.date, record.event) == ("B+2.5", "2011-03-02,03", "Example Cup")
    assert record.rules == Rules.preset("japanese-like", komi=6.5)
    assert len(record.moves) == 14 and record.comments == {5: "a comment"}
    game = record.game
    assert game.size == 19 and game.to_play == BLACK and not game.is_over
    assert game.board[3, 16] == BLACK  # qd is R16: SGF letters keep the i
    assert game.board[2, 13] == WHITE  # O17 = nc
    assert record.moves[0] == coords.from_gtp("R16", 19)


def test_read_setup_with_white_to_play():
    record = read_sgf("(;GM[1]SZ[9]HA[2]AB[cc][gg]AB[aa:ab]AW[ee]PL[W];W[cg];B[gc])")
    game = record.game
    assert sorted(game.setup_black) == sorted(coords.from_gtp(v, 9) for v in ("C7", "G3", "A9", "A8"))
    assert game.setup_white == [coords.from_gtp("E5", 9)]
    assert game.first_to_play == WHITE and record.handicap == 2
    assert [coords.to_gtp(m, 9) for m in record.moves] == ["C3", "G7"]


def test_read_tt_as_pass():
    record = read_sgf(b"(;SZ[19]KM[7.5];B[pd];W[tt];B[dd];W[tt];B[tt])")
    assert record.moves == (72, 361, 60, 361, 361)
    assert record.game.is_terminated


def test_read_main_line_only():
    record = read_sgf(b"(;SZ[9];B[ee](;W[cc];B[gg](;W[gc])(;W[cg]))(;W[gc];B[cg]))")
    assert [coords.to_sgf(m, 9) for m in record.moves] == ["ee", "cc", "gg", "gc"]


def test_read_defaults():
    record = read_sgf(b"(;B[pd])")  # no SZ means 19
    assert record.game.size == 19
    assert record.rules == Rules()
    assert (record.black, record.white, record.result, record.date, record.handicap) == (
        "",
        "",
        None,
        None,
        0,
    )


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (b"RU[Chinese]", Rules.preset("chinese")),
        (b"RU[Chinese]KM[5.5]", Rules.preset("chinese", komi=5.5)),
        (b"RU[Tromp-Taylor]", Rules.preset("tromp-taylor")),
        (b"RU[tromp-taylor]KM[7]", Rules.preset("tromp-taylor", komi=7)),
        (b"RU[Japanese]", Rules.preset("japanese-like")),
        (b"RU[goarena]KM[0]", Rules(komi=0)),
        (b"RU[AGA]KM[7.5]", Rules()),
        (b"RU[New Zealand]KM[-2.5]", Rules(komi=-2.5)),
    ],
)
def test_rules_from_ru_and_km(header, expected):
    assert read_sgf(b"(;SZ[9]" + header + b";B[ee])").rules == expected


def test_rules_argument_wins_but_km_sets_komi():
    rules = Rules.preset("tromp-taylor")
    assert read_sgf(b"(;SZ[9]RU[Japanese];B[ee])", rules=rules).rules == rules
    assert read_sgf(b"(;SZ[9]RU[Japanese]KM[0.5];B[ee])", rules=rules).rules == Rules.preset(
        "tromp-taylor", komi=0.5
    )


def test_read_decodes_as_ca_says():
    assert read_sgf(b"(;CA[ISO-8859-1]SZ[9]PB[J\xfcrgen])").black == "Jürgen"
    assert read_sgf("(;SZ[9]PB[Jürgen])").black == "Jürgen"


# -- malformed records -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not an SGF record"),
        (b"hello, world", "not an SGF record"),
        (b"(;SZ[9];B[ee]", "not an SGF record"),
        (b"(;GM[2]SZ[8];B[ee])", r"GM\[2\] is not a game of Go"),
        (b"(;SZ[30];B[ee])", r"unsupported board size SZ\[30\]"),
        (b"(;SZ[1])", r"unsupported board size SZ\[1\]"),
        (b"(;SZ[19:13])", r"unsupported board size SZ\[19:13\]"),
        (b"(;SZ[nine])", r"unsupported board size SZ\[nine\]"),
        (b"(;SZ[9];B[ee];W[jj])", r"move 2 W\[jj\]: bad coordinate on a 9x9 board"),
        (b"(;SZ[9];B[e])", r"move 1 B\[e\]: bad coordinate"),
        (b"(;SZ[9]AB[ee][zz];B[cc])", r"bad coordinate in AB\[ee\]\[zz\]"),
        (b"(;SZ[9];B[ee];W[cc];B[ee])", r"move 3 B\[ee\] is illegal .*: occupied"),
        (b"(;SZ[9]AB[ba][ab];W[aa])", r"move 1 W\[aa\] is illegal .*: suicide"),
        (b"(;SZ[9]AB[ee]AW[ee])", "bad setup stones"),
        (b"(;SZ[9];B[ee];W[cc];AW[gg];B[gc])", r"setup properties \(AW\) after move 2"),
        (b"(;SZ[9];B[ee];W[cc];PL[W];W[gc])", r"setup properties \(PL\) after move 2"),
        (b"(;SZ[9];B[ee];W[cc]B[gg])", r"two moves in one node at move 2: B\[gg\]W\[cc\]"),
        (b"(;SZ[9];B[ee][cc])", r"two moves in one node at move 1"),
        (b"(;SZ[9];B[ee];B[cc])", "move 2 B\\[cc\\] is by black but white is to play"),
        (b"(;SZ[9]PL[W];B[ee])", "move 1 B\\[ee\\] is by black but white is to play"),
        (b"(;SZ[9]KM[six];B[ee])", r"komi KM\[six\] is not a number"),
        (b"(;SZ[9]KM[3.75];B[ee])", r"komi KM\[3.75\] is not supported: .*multiple of 0.5"),
        (b"(;SZ[9]HA[two])", r"handicap HA\[two\] is not a number"),
        (b"(;SZ[9]PL[X])", r"PL\[X\] is not a colour"),
        (b"(;SZ[9]CA[no-such-charset])", "unsupported character set"),
        (b'(;SZ[9]GC[goarena rules: {"ko": "none"}])', "malformed rules in GC"),
        # Records from anywhere: nothing in them gets past as another exception.
        (b"(;SZ[9]CA[UTF-16]PB[x])", r"unsupported character set CA\[UTF-16\]"),
        (b"(;SZ[9]CA[UTF-32])", r"unsupported character set CA\[UTF-32\]"),
        (b"(;SZ[9]CA[cp037])", r"unsupported character set CA\[cp037\]"),  # EBCDIC
        (b"(;SZ[9]CA[rot13])", r"unsupported character set CA\[rot13\]"),
        (b"(;SZ[9]KM[Infinity])", r"komi KM\[Infinity\]"),
        (b"(;SZ[9]KM[nan])", r"komi KM\[nan\]"),
        (b'(;SZ[9]GC[goarena rules: {"max_moves": 1000000000000}])', "max_moves must be between 1 and"),
        (b'(;SZ[9]GC[goarena rules: {"max_moves": true}])', "max_moves must be an integer"),
        (b'(;SZ[9]GC[goarena rules: {"komi": 1e400}])', "komi must be a multiple of 0.5 from -1000 to 1000"),
        (b'(;SZ[9]GC[goarena rules: {"komi": NaN}])', "komi must be a multiple of 0.5 from -1000 to 1000"),
        (b'(;SZ[9]GC[goarena rules: {"suicide": "yes"}])', "suicide must be True or False"),
        (b'(;SZ[9]GC[goarena rules: "chinese"])', "expected a JSON object"),
        (b"(;SZ[9]GC[goarena rules: " + b"[" * 100_000 + b"])", "malformed rules in GC"),
        (b"(;SZ[" + b"9" * 5000 + b"])", r"unsupported board size SZ\[9{77}\.\.\.\]"),
        (b"(;SZ[9]HA[-3])", r"handicap HA\[-3\] is not a number of stones"),
        (b"(;SZ[9]HA[" + b"9" * 30 + b"])", "is not a number of stones"),
        (b"(;SZ[9]PB[alice][bob])", r"PB\[alice\] cannot be read as text: multiple values"),
        (b"(;SZ[9]CA[UTF-8];B[ee]C[\xff])", r"C\[\xff\] cannot be read as text: 'utf-8' codec"),
        (b"(;SZ[9]" + b";AB[aa:ii]" * 300 + b")", "more setup values"),
        ("(;SZ[9]PB[\udc80])", "cannot be written as UTF-8"),
    ],
)
def test_malformed(data, message):
    with pytest.raises(SgfError, match=message):
        read_sgf(data)


def test_sgf_error_is_a_value_error():
    assert issubclass(SgfError, ValueError)


@pytest.fixture
def no_parsing(monkeypatch):
    """Parsing a record fails the test: for records that must be refused before it."""

    def parse(*args):
        raise AssertionError("the record was parsed")

    monkeypatch.setattr(sgf_grammar, "parse_sgf_game", parse)


def test_records_over_the_size_limit_are_refused_unparsed(tmp_path, no_parsing):
    data = b"(;SZ[9]C[" + b"x" * MAX_SGF_BYTES + b"])"
    with pytest.raises(SgfError, match=f"larger than {MAX_SGF_BYTES} bytes"):
        read_sgf(data)
    with pytest.raises(SgfError, match="larger than 100 bytes"):
        read_sgf(b"(;SZ[9]C[" + b"x" * 100 + b"])", max_bytes=100)
    (tmp_path / "big.sgf").write_bytes(data)
    with pytest.raises(SgfError, match="larger than"):
        load_sgf(tmp_path / "big.sgf")


def test_records_of_too_many_nodes_are_refused_unparsed(no_parsing):
    with pytest.raises(SgfError, match=f"more than {MAX_SGF_NODES} nodes"):
        read_sgf(b"(;SZ[9]" + b";" * MAX_SGF_NODES + b")")


def test_semicolons_in_values_are_not_nodes():
    comment = b"\\]" + b";" * MAX_SGF_NODES  # an escaped "]" does not end the value
    record = read_sgf(b"(;SZ[9];B[ee]C[" + comment + b"])")
    assert record.comments == {0: "]" + ";" * MAX_SGF_NODES}


def test_a_larger_limit_reads_larger_records():
    data = b"(;SZ[9]C[" + b"x" * MAX_SGF_BYTES + b"];B[ee])"
    assert read_sgf(data, max_bytes=2 * MAX_SGF_BYTES).moves == (40,)


def test_reading_imports_and_runs_nothing(tmp_path, monkeypatch):
    """Text that looks like a player spec or code is only text."""
    monkeypatch.chdir(tmp_path)
    read_sgf(b"(;CA[UTF-8]SZ[9];B[ee])")  # whatever reading imports on first use
    rules = json.dumps({"komi": 6.5, "ko": "simple", "name": "__import__('os').system('touch ran')"})
    data = (
        "(;CA[UTF-8]SZ[9]PB[os:system:touch ran]PW[subprocess:run]EV[builtins:exec]"
        f"RU[os:system]GN[__import__('os').system('touch ran')]GC[goarena rules: {rules}]"
        "XX[antigravity:fly];B[ee]C[exec('import antigravity')];W[cc])"
    )
    modules = set(sys.modules)
    record = read_sgf(data)
    assert set(sys.modules) == modules
    assert list(tmp_path.iterdir()) == []
    assert (record.black, record.white, record.event) == (
        "os:system:touch ran",
        "subprocess:run",
        "builtins:exec",
    )
    assert record.rules == Rules(komi=6.5, ko="simple", name="__import__('os').system('touch ran')")
    assert record.comments == {0: "exec('import antigravity')"}


@pytest.mark.parametrize("charset", ["idna", "rot13", "punycode", "hex", "antigravity", "os"])
def test_a_character_set_is_never_looked_up_by_a_name_the_record_gives(charset):
    modules = set(sys.modules)
    with pytest.raises(SgfError, match="unsupported character set"):
        read_sgf(f"(;CA[{charset}]SZ[9];B[ee])".encode())
    assert set(sys.modules) == modules


@pytest.mark.parametrize(
    "charset", ["UTF-8", "utf8", "ISO-8859-1", "latin1", "GB2312", "Shift_JIS", "EUC-KR"]
)
def test_the_usual_character_sets_are_read(charset):
    assert read_sgf(f"(;CA[{charset}]SZ[9]PB[x];B[ee])".encode()).black == "x"


SEED_RECORDS = [
    write_sgf(
        random_game(5, Rules(komi=6.5, max_moves=30), moves=12, seed=4), black="a", comments={0: "x]y"}
    ),
    b"(;GM[1]FF[4]CA[UTF-8]SZ[9]HA[2]KM[0.5]AB[cc][gg]AE[aa]PL[W]RU[Japanese];W[ee];B[];W[tt](;B[aa])(;B[bb]))",
]
# Pieces of SGF that records in the wild get wrong, for the mutations below.
SGF_PIECES = [
    *(bytes([b]) for b in b"()[];:\\ABCEGHKLMPRSTWZaceginostz0159.-+ \n\xff"),
    *(b";B[" + point + b"]" for point in (b"", b"ee", b"tt", b"zz", b"a")),
    *(b";W[" + point + b"]" for point in (b"", b"cc", b"ee")),
    *(b"[" + value + b"]" for value in (b"", b"x", b"aa:ee", b"ee:aa", b"\xff\xfe", b"-1", b"1e999")),
    *(b"CA[" + name + b"]" for name in (b"UTF-8", b"UTF-16", b"utf-32", b"cp037", b"rot13", b"idna")),
    *(b"KM[" + komi + b"]" for komi in (b"Infinity", b"-inf", b"nan", b"1e400", b"0.25", b"7.5")),
    *(b"HA[" + handicap + b"]" for handicap in (b"-1", b"2", b"999", b"x")),
    *(b"SZ[" + size + b"]" for size in (b"0", b"1", b"2", b"26", b"9:9", b"19")),
    b"AB[aa:ee]",
    b"AE[aa]",
    b"PL[X]",
    b"GM[2]",
    b"RU[Japanese]",
    b'GC[goarena rules: {"max_moves": 1000000000000}]',
    b'GC[goarena rules: {"komi": NaN, "suicide": 1}]',
    b"GC[goarena rules: [\\]]",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(SEED_RECORDS),
    edits=st.lists(
        st.tuples(
            st.sampled_from(["insert", "delete", "copy"]), st.integers(0, 10**4), st.sampled_from(SGF_PIECES)
        ),
        max_size=6,
    ),
)
def test_mutated_records_give_only_sgf_errors(seed, edits):
    """Pieces of SGF inserted, bytes deleted and copied about a good record: it reads, or
    fails with an ``SgfError``; never another exception."""
    data = bytearray(seed)
    for edit, at, piece in edits:
        at %= len(data) + 1
        if edit == "insert":
            data[at:at] = piece
        elif edit == "delete":
            del data[at : at + len(piece)]
        else:
            data[at:at] = data[len(piece) : len(piece) + at % 40]
    with contextlib.suppress(SgfError):
        read_sgf(bytes(data))


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=200) | st.text(max_size=200))
def test_random_data_gives_only_sgf_errors(data):
    with contextlib.suppress(SgfError):
        read_sgf(b"(;" + data if isinstance(data, bytes) else "(;" + data)


KO = b"(;SZ[9]AB[ba][ab][bc]AW[ca][bb][db][cc];B[cb]"  # Black takes the ko at C8


def test_ko():
    with pytest.raises(SgfError, match=r"move 2 W\[bb\] is illegal under 'goarena' rules: .*ko"):
        read_sgf(KO + b";W[bb])")
    record = read_sgf(KO + b";W[gg];B[gh];W[bb])")  # after a ko threat White may retake
    assert record.game.board[1, 2] == 0


# -- an independent replay ---------------------------------------------------------------


@pytest.mark.parametrize(("size", "handicap", "seed"), [(5, 0, 0), (9, 0, 1), (9, 4, 2), (19, 0, 3)])
def test_sgfmill_replay_agrees(size, handicap, seed):
    """sgfmill's own board (its own capture code) reaches our final position from our file."""
    game = random_game(size, handicap=handicap, moves=2 * size * size, seed=seed)
    board, plays = sgf_moves.get_setup_and_moves(sgf.Sgf_game.from_bytes(write_sgf(game)))
    assert isinstance(board, boards.Board)
    assert len(plays) == len(game.moves) and game.captures(BLACK) + game.captures(WHITE) > 0
    for colour, move in plays:
        if move is not None:
            board.play(*move, colour)
    expected = {BLACK: "b", WHITE: "w"}
    for row in range(size):
        for col in range(size):
            ours = game.board[size - 1 - row, col]
            assert board.get(row, col) == expected.get(ours), (row, col)


def finished_5x5() -> Game:
    """A 5x5 game ended by two passes: Black's wall on the C column, White's on the D column."""
    game = Game(5, Rules(komi=0.5))
    for vertex in ("C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5", "B3", "pass", "pass"):
        game.play(coords.from_gtp(vertex, 5))
    return game


def test_territory_marks_round_trip_in_the_last_node() -> None:
    from go_env.sgf import owner_from_territory, territory_marks

    game = finished_5x5()
    board = game.board.ravel()
    owner = game.area_owner().ravel().copy()
    dead = coords.from_gtp("B3", 5)  # a Black stone taken off as dead: its point is White's
    owner[dead] = WHITE
    owner[coords.from_gtp("E5", 5)] = 0  # a point neither's
    black, white = territory_marks(board, owner)
    assert dead in white and coords.from_gtp("E5", 5) not in black + white

    data = write_sgf(game, territory=(black, white))
    record = read_sgf(data)
    assert record.territory == (black, white)
    assert record.final_owner.tolist() == owner.tolist()
    assert owner_from_territory(board, black, white).tolist() == owner.tolist()
    last = sgf.Sgf_game.from_bytes(data).get_last_node()
    assert last.has_property("TB") and last.has_property("TW") and last.get_move() == ("b", None)
    # A colour with no territory is still written: the record is marked.
    assert read_sgf(write_sgf(game, territory=((), white))).territory == ((), white)
    assert read_sgf(write_sgf(game)).territory is None and read_sgf(write_sgf(game)).final_owner is None


def test_kgs_style_territory_marks_are_read() -> None:
    record = read_sgf(b"(;GM[1]FF[4]SZ[5]KM[0.5];B[cc];W[];B[]TB[aa:bb][ee]TW[])")
    assert record.territory == ((0, 1, 5, 6, 24), ())  # the rectangle aa:bb, then ee


@pytest.mark.parametrize(
    ("marks", "message"),
    [
        ("TB[aa]TW[aa]", "both Black's and White's"),
        ("TB[zz]", "bad coordinate in TB"),
        ("TB[tt]", "bad coordinate in TB"),
    ],
)
def test_bad_territory_marks_are_an_sgf_error(marks: str, message: str) -> None:
    with pytest.raises(SgfError, match=message):
        read_sgf(f"(;GM[1]SZ[5];B[cc];W[];B[]{marks})".encode())


def test_territory_off_the_board_or_marked_twice_is_refused() -> None:
    game = finished_5x5()
    with pytest.raises(ValueError, match="territory points"):
        write_sgf(game, territory=([25], []))
    with pytest.raises(ValueError, match="territory points"):
        write_sgf(game, territory=([0], [0]))
