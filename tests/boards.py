"""ASCII test boards: positions drawn as diagrams, shared by the tests.

Diagrams list the rows from the top (row N) down to row 1, columns A, B, C, ... (no I)
left to right: ``X`` Black, ``O`` White, ``.`` empty. Moves are GTP vertices.
"""

from __future__ import annotations

import numpy as np

from go_env import BLACK, Game, Rules
from go_env.coords import from_gtp

# White's two stones have one liberty left, C2: capture them before they run.
CAPTURE = """
. . X . .
. X O X .
. X O X .
. . . . .
. . . . .
"""
# Black to play, komi 0.5, the game capped 8 moves from here: exhaustive search shows that
# D4, capturing E4, is the only winning move.
ONLY_WIN = """
. X O . X
O X X . O
X X . O X
O . . O X
O O O X .
"""
ONLY_WIN_RULES = Rules(komi=0.5, max_moves=8)
HALF_POINT_KOMI = Rules(komi=0.5)


# Black to play: White's E5 has two liberties. Black F5 or E4 starts a ladder that runs to the
# edge (down-left from F5, up-right from E4) and captures.
LADDER = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . X . . . .
. . . X O . . . .
. . . . . X . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""
# The same with a White breaker on H8, in the path of the ladder that E4 starts.
LADDER_BREAKER = """
. . . . . . . . .
. . . . . . . O .
. . . . . . . . .
. . . . X . . . .
. . . X O . . . .
. . . . . X . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""
# Black to play A1, a throw-in: White captures it at B1 and is left in atari on A1, where
# Black takes back three stones.
SNAPBACK = """
. . . . .
. . . . .
X X . . .
O O X . .
. . X . .
"""
# Black to play C5 joins B5 into a chain with one liberty, A5: a self-atari of two stones.
SELF_ATARI = """
. X . O .
. O O . .
. . . . .
. . . . .
. . . . .
"""

# Three kos on one board: Black can take at C8 and C4, White at G8.
TRIPLE_KO = """
. X O . . . X O .
X O . O . X . X O
. X O . . . X O .
. . . . . . . . .
. X O . . . . . .
X O . O . . . . .
. X O . . . . . .
. . . . . . . . .
. . . . . . . . .
"""
# Each takes a ko in turn; after six captures the board and the side to move repeat.
TRIPLE_KO_CYCLE = ["C8", "G8", "C4", "B8", "H8"]
TRIPLE_KO_REPEAT = "B4"


# Settling at the end of a game, White to play after Black passed (komi 7.5 for the first,
# 0.5 for the others); every other empty point is a one-point eye. White's B8 stands in
# Black's walled corner, dead: counted as it stands White wins by 8.5, without it Black by 1.5.
DEAD_IN_AREA = """
. . . X X O . O .
. O . X X O O O O
. . . X X O . O .
X X X X X O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
"""
# The same with Black's H2 dead in White's walled corner: at komi 10.5, White wins counted as
# it stands and with both dead stones off (by 1.5 either way), loses with its own off (by 8.5).
DEAD_IN_BOTH_AREAS = """
. . . X X O . O .
. O . X X O O O O
. . . X X O . O .
X X X X X O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . . .
X X X X X O . X .
. X . X X O . . .
"""
# DEAD_IN_AREA with White's three stones B8-B7-C7 in atari in Black's corner (their last
# liberty B6): a static count may read the corner either way until Black captures them.
ATARI_IN_AREA = """
. X . X X O . O .
X O X X X O O O O
X O O X X O . O .
X . X X X O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
"""
# White's C9-C8-C7-D7 and Black's E9-E8-E7 share D9 and D8, their only liberties: a seki
# (whoever fills one is captured). White wins by 3.5; were White's four dead, Black by 6.5.
SEKI = """
. X O . X O . O .
X X O . X O O O O
. X O O X O . O .
X X X X O O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
"""
# White's B9-A8-B8-C8 (its eye A9) and Black's D9-D8-E8-F8-F9 (its eye E9) share C9, their
# last liberty but the eyes: a seki with an eye on each side (whoever fills C9 is captured).
SEKI_WITH_EYES = """
. O . X . X O . O
O O O X X X O O O
X X X O O O O . O
X X X X O O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
"""
# SEKI with E6 empty: Black's E9-E8-E7 has a third liberty, so Black wins the race (White
# filling E6 is no self-atari either): no seki, White's four are dead.
SEKI_RACE = """
. X O . X O . O .
X X O . X O O O O
. X O O X O . O .
X X X X . O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
X X X X X O O O O
. X . X X O . O .
"""
# A final board of random play (neither side filling its eyes or putting more than a stone in
# atari) where GNU Go 3.8's ``final_status_list dead`` names White's 22 stones from C7 to F2
# dead: they have two liberties, E6 and F5, both shared with Black's lone F6, and whoever fills
# one is captured: a seki. Raw count (komi 7.5) W+0.5; without the 22, B+45.5.
GNUGO_MISSES_SEKI = """
X X X . X X X . X
. X X X X O X X X
X X O O O O O X .
O X X O . X O X X
O O X O O . O O O
O O X X X O O O O
O O O X O O O O X
O . O X X O X X X
. O O X X X X X X
"""
# White's group in Black's corner has two eyes, A9 and C9: alive. White wins by 7.5; were it
# dead, Black by 8.5.
LIVE_IN_AREA = """
. O . O X O . O .
O O O O X O O O O
X X X X X O . O .
. X . X X O O O O
X X X X X O . O .
. X . X X O O O O
X X X X X O . O .
. X . X X O O O O
X X X X X O . O .
"""


def load_board(diagram: str) -> tuple[int, list[int], list[int]]:
    """(size, black points, white points) of a diagram."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    size = len(rows)
    assert all(len(row) == size for row in rows), "a diagram must be square"
    black, white = [], []
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            assert cell in "XO.", f"unknown point {cell!r}"
            if cell == "X":
                black.append(r * size + c)
            elif cell == "O":
                white.append(r * size + c)
    return size, black, white


def position(diagram: str, rules: Rules = HALF_POINT_KOMI, to_play: int = BLACK) -> Game:
    """The game set up with the diagram's stones and ``to_play`` to move."""
    size, black, white = load_board(diagram)
    game = Game(size, rules)
    game.setup(black, white, to_play)
    return game


def after_black_passed(diagram: str, rules: Rules = HALF_POINT_KOMI) -> Game:
    """The diagram with White to play, Black having just passed."""
    game = position(diagram, rules, to_play=BLACK)
    game.play(game.pass_move)
    return game


def points(*vertices: str, size: int = 9) -> list[int]:
    """The points of GTP vertices ("C9", ...)."""
    return [from_gtp(vertex, size) for vertex in vertices]


def random_records(count: int, seed: int, size: int = 5, max_moves: int = 40) -> list[list[tuple[Game, int]]]:
    """Played-out random games (komi 0.5, area scoring), each a list of (the position before
    the move, the move) ending with (the final position, -1); past ``max_moves`` they pass."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        game = Game(size, Rules(komi=0.5, scoring="area"))
        record = []
        while not game.is_over:
            legal = game.legal_moves()
            points = legal[legal < size * size]
            late = game.move_number >= max_moves
            pick = len(points) and not late and rng.random() > 0.05
            move = int(rng.choice(points)) if pick else size * size
            record.append((game.copy(), move))
            game.play(move)
        record.append((game, -1))
        games.append(record)
    return games
