"""Expert games from GNU Go playing itself: one SGF file per game, resumable, over worker processes.

``goarena data gnugo --size 9 --games 6000 --level 1 --out DIR`` writes ``DIR/game-000000.sgf``
and so on. Each game is a function of ``(seed, index)`` alone, whichever worker plays it: GNU Go
gets a seed of its own for it (``set_random_seed``), and the game opens with 0 to 5 random
moves (``OPENING_WEIGHTS``) away from the first line, each marked with the comment
``reader.RANDOM_OPENING`` (they are not training targets). Then GNU Go plays both sides under
area rules with positional superko until two passes, a resignation or the move cap
(``2 * N * N``). ``RE`` is ``B+R``/``W+R`` after a resignation and otherwise GNU Go's
``final_score``, which takes off the stones it judges dead (GNU Go passes with dead stones on the
board, where the project's own count of the board as it stands could name the wrong winner).
A game that ends by two passes also records its final owners, the dead and seki stones as GNU Go
judges them (``final_status_list``), as the territory marks ``TB``/``TW`` of its last node
(``ownership``); a resigned or capped game has none.

A game is written to ``game-NNNNNN.sgf.tmp`` and renamed when complete, and existing games are
skipped, so a killed run rerun with the same command completes the set. Ctrl-C or a ``kill``
stops the command with one line (the games written, and that the same command resumes); its
workers end with it, quietly (``pool``), even when it is killed with ``kill -9``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.util import Finalize
from pathlib import Path

import numpy as np
from rich.progress import MofNCompleteColumn, Progress

from go_env.game import BLACK, Game, result_string
from go_env.rules import Rules, default_komi
from go_env.sgf import territory_marks, write_sgf
from goarena.agents.atomic import leftovers, write_atomically
from goarena.agents.data.ownership import engine_owner
from goarena.agents.data.pool import WorkerLost, stoppable, stopped, worker_pool
from goarena.agents.data.reader import RANDOM_OPENING
from goarena.agents.gtp.client import GTPAgent, find_engine
from goarena.agents.protocols import RESIGN, GameContext

# How many random moves a game opens with: the share of games (percent) for 0, 1, 2, ...
# GNU Go varies its play little given a seed, so short openings repeat whole games (measured on
# 9x9: some 400 distinct games without a random move, some 300 with one): they are kept rare.
OPENING_WEIGHTS = (1, 2, 7, 30, 30, 30)


@dataclass(frozen=True)
class GnuGoConfig:
    """What to generate.

    Attributes:
        out: the folder of the SGF files.
        size: board size.
        games: how many games (files ``game-000000.sgf`` to ``game-{games-1}``).
        level: GNU Go's ``--level`` (0 to 10); level 1 plays 9x9 about as well as level 10,
            in a fifteenth of the time.
        komi: komi, a multiple of 0.5; None: the board size's (``go_env.default_komi``).
        seed: the run's seed; game ``i``'s randomness comes from ``(seed, i)``.
        gnugo: the GNU Go executable (found on ``PATH`` or in ``/usr/games`` by default).
    """

    out: Path
    size: int = 9
    games: int = 1000
    level: int = 1
    komi: float | None = None  # None: the board size's, set once made
    seed: int = 0
    gnugo: str = "gnugo"

    def __post_init__(self) -> None:
        if not 5 <= self.size <= 19:
            raise ValueError(f"GNU Go plays boards 5x5 to 19x19, not {self.size}x{self.size}")
        if self.games < 0:
            raise ValueError(f"the number of games must be 0 or more, got {self.games}")
        if not 0 <= self.level <= 10:
            raise ValueError(f"GNU Go's level must be 0 to 10, got {self.level}")
        komi = default_komi(self.size) if self.komi is None else self.komi
        object.__setattr__(self, "komi", komi)
        Rules(komi=komi)  # checks the komi

    @property
    def rules(self) -> Rules:
        return Rules.preset("goarena", komi=self.komi)

    def path(self, index: int) -> Path:
        return self.out / f"game-{index:06d}.sgf"

    def engine_command(self) -> str:
        """GNU Go's command line, or ValueError when it is not installed."""
        program = find_engine(self.gnugo)
        if program is None:
            raise ValueError(f"GNU Go ({self.gnugo!r}) is not installed: e.g. `apt install gnugo`")
        return f"{program} --mode gtp --level {self.level} --chinese-rules --positional-superko"


@dataclass(frozen=True)
class Summary:
    """What a run did: games written now, games already there, seconds taken."""

    written: int
    existing: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.written / self.seconds if self.seconds > 0 else 0.0


def run(config: GnuGoConfig, workers: int = 1) -> Summary:
    """``generate`` with a progress bar, then a line with the rate (the command's body)."""
    columns = (*Progress.get_default_columns(), MofNCompleteColumn())
    with stoppable(), Progress(*columns) as progress:
        done = config.games - len(missing_games(config))
        task = progress.add_task(f"GNU Go games in {config.out}", total=config.games, completed=done)
        try:
            summary = generate(config, workers, on_game=lambda _: progress.advance(task))
        except (KeyboardInterrupt, WorkerLost) as reason:
            done = config.games - len(missing_games(config))
            note = f"{stopped(reason)}: {done} of {config.games} games in {config.out}"
            raise SystemExit(f"{note}; the same command resumes") from None
    print(
        f"{summary.written} games in {summary.seconds:.1f} s ({summary.games_per_second:.2f} games/s) "
        f"with {workers} worker(s); {summary.existing} were there already; {config.games} in {config.out}"
    )
    return summary


def missing_games(config: GnuGoConfig) -> list[int]:
    """The indices of the games not yet written."""
    return [index for index in range(config.games) if not config.path(index).exists()]


def generate(config: GnuGoConfig, workers: int = 1, on_game: Callable[[int], None] | None = None) -> Summary:
    """Write the missing games of ``config`` with ``workers`` processes, each with its own GNU Go.

    ``on_game(index)`` is called as each game is written.
    """
    if workers < 1:
        raise ValueError(f"workers must be 1 or more, got {workers}")
    command = config.engine_command()
    config.out.mkdir(parents=True, exist_ok=True)
    for stale in leftovers(config.out / "game-*.sgf"):
        stale.unlink(missing_ok=True)  # a game a killed run was writing
    todo = missing_games(config)
    start = time.perf_counter()
    for index in _play(config, command, todo, workers):
        if on_game is not None:
            on_game(index)
    return Summary(len(todo), config.games - len(todo), time.perf_counter() - start)


def _play(config: GnuGoConfig, command: str, todo: list[int], workers: int) -> Iterator[int]:
    """Play and write the games ``todo``; yields each index once its file is written."""
    if workers == 1 or len(todo) <= 1:
        with GTPAgent(command) as engine:
            for index in todo:
                write_game(engine, config, index)
                yield index
        return
    with worker_pool(min(workers, len(todo)), _start_engine, (command,)) as pool:
        yield from pool.imap(_write_in_worker, ((config, index) for index in todo), ordered=False)


_engine: GTPAgent | None = None  # a worker process's GNU Go


def _start_engine(command: str) -> None:
    global _engine
    _engine = GTPAgent(command)
    Finalize(None, _engine.close, exitpriority=10)  # quit GNU Go when the pool ends


def _write_in_worker(job: tuple[GnuGoConfig, int]) -> int:
    assert _engine is not None, "the pool's initializer starts the engine"
    config, index = job
    write_game(_engine, config, index)
    return index


def write_game(engine: GTPAgent, config: GnuGoConfig, index: int) -> None:
    """Play game ``index`` with ``engine`` and write its record atomically, with the final
    owners as territory marks when it ended by two passes."""
    game, result, opening = play_game(engine, config, index)
    name = f"{engine.name} level {config.level}"  # GNU Go 3.8 level 1
    comments = dict.fromkeys(range(opening), RANDOM_OPENING)
    territory = territory_marks(game.board, engine_owner(engine, game)) if game.is_terminated else None
    record = write_sgf(
        game, black=name, white=name, result=result, comments=comments, date="", territory=territory
    )
    write_atomically(config.path(index), record)


def play_game(engine: GTPAgent, config: GnuGoConfig, index: int) -> tuple[Game, str, int]:
    """Game ``index``: a random opening, then GNU Go against itself.

    Returns:
        The game, its result as SGF's ``RE`` writes it, and the number of random opening moves.
    """
    rng = np.random.default_rng([config.seed, index])
    opening = int(rng.choice(len(OPENING_WEIGHTS), p=np.array(OPENING_WEIGHTS) / sum(OPENING_WEIGHTS)))
    game = Game(config.size, config.rules)
    for _ in range(opening):
        game.play(_random_inner_move(game, rng))
    engine.reset(GameContext(game.size, game.rules))
    engine.sync(game)
    engine.send(f"set_random_seed {int(rng.integers(2**31))}")
    while not game.is_over:
        move = engine.select_move(game)
        if move == RESIGN:
            winner = "W" if game.to_play == BLACK else "B"
            return game, f"{winner}+R", opening
        game.play(move)
    return game, result_string(engine.final_score(game)), opening


def _random_inner_move(game: Game, rng: np.random.Generator) -> int:
    """A random legal point off the first line."""
    size = game.size
    inner = np.zeros((size, size), bool)
    inner[1:-1, 1:-1] = True
    candidates = np.flatnonzero(game.legal_mask()[: size * size].astype(bool) & inner.ravel())
    return int(rng.choice(candidates))
