"""External GTP engines (GNU Go, Pachi, KataGo, ``goarena gtp``) as players.

``GTPAgent("gnugo --mode gtp --level 1")`` starts the engine (no shell) and speaks GTP v2
to it. Before every move it brings the engine's board up to date with the game it is
given: new moves are sent with ``play``; anything else (an undo, another game, new rules)
restarts the engine's game with ``clear_board`` and replays it. Handicap stones go by
``set_free_handicap``, other setup stones by ``play``.

The engine learns the komi with ``komi`` and the other rules with ``kata-set-rules`` when it
knows that command; otherwise its own command-line options set them (for GNU Go:
``--chinese-rules`` for area scoring, ``--positional-superko``, ...).

Every failure of the engine (it exits, it stays silent for ``timeout`` seconds, it answers
``?`` or something unreadable) raises ``GTPEngineError``; a silent engine is killed.

The engine's output is read as bytes and decoded as UTF-8, undecodable bytes replaced. A line
longer than 64 KiB is cut there (the rest of it is skipped), and an answer longer than 1 MiB
is an error (the engine is killed). Its stderr is always read, so that an engine that logs a
lot never blocks on a full pipe; the last lines go into error messages.
"""

from __future__ import annotations

import collections
import contextlib
import json
import math
import os
import queue
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from types import TracebackType
from typing import IO

from go_env import coords
from go_env.game import BLACK, WHITE, Game
from go_env.rules import Rules
from goarena.agents.gtp.protocol import COLOR_LETTERS, LINE_LIMIT, kata_rules, shorten
from goarena.agents.protocols import RESIGN, GameContext, game_context

_STDERR_LINES = 20  # kept for error messages
ANSWER_LIMIT = 1 << 20  # characters: a longer answer is an error
_QUOTED = 500  # characters of engine output quoted in an error message


class GTPEngineError(RuntimeError):
    """A GTP engine that died, timed out, failed a command or answered nonsense."""


def find_engine(program: str) -> str | None:
    """The path of an engine's executable, or None when it is not installed.

    Looks on ``PATH``, then in ``/usr/games``, where Debian and Ubuntu install GNU Go and
    which is often not on ``PATH``.
    """
    found = shutil.which(program)
    if found or os.sep in program:
        return found
    fallback = os.path.join("/usr/games", program)
    return fallback if os.access(fallback, os.X_OK) else None


class GTPAgent:
    """An external GTP engine as a player.

    Args:
        command: the engine's command line, split as a shell would (``shlex``) but run
            without one, e.g. ``"gnugo --mode gtp --level 1 --chinese-rules"``.
        timeout: seconds to wait for any answer (``genmove`` included) before killing
            the engine.
        name: the player's name; by default the engine's ``name`` and ``version``.

    Raises:
        GTPEngineError: the engine cannot be started or does not speak GTP.
    """

    def __init__(self, command: str, *, timeout: float = 30.0, name: str | None = None):
        self.command = command
        self.timeout = timeout
        argv = shlex.split(command)
        if not argv:
            raise GTPEngineError("empty GTP engine command")
        argv[0] = find_engine(argv[0]) or argv[0]
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as error:
            raise GTPEngineError(f"cannot start GTP engine {command!r}: {error}") from None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._failure: str | None = None  # once the engine is unusable, why
        self._readers = [
            threading.Thread(target=self._pump_stdout, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.name = command  # for messages until the engine says its name
        try:
            engine_name, engine_version = self.send("name"), self.send("version")
            self.known_commands = frozenset(self.send("list_commands").split())
        except GTPEngineError:
            self.close()
            raise
        self.name = name or f"{engine_name} {engine_version}".strip()
        # What the engine's board holds: size, rules, setup stones and moves.
        self._size: int | None = None
        self._rules: Rules | None = None
        self._setup: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self._moves: list[int] = []

    # -- the Agent protocol --------------------------------------------------------------

    def reset(self, context: GameContext) -> None:
        """A new game under ``context.rules``: the engine clears its board (boardsize comes
        with the first position it is shown)."""
        rules = game_context(context).rules
        if self._size is not None:
            self._new_game(self._size, rules)

    def select_move(self, game: Game) -> int:
        """The engine's ``genmove`` in ``game``: a point, the pass move or ``RESIGN``."""
        return self._generate("genmove", game)

    def cleanup_move(self, game: Game) -> int:
        """A move that captures dead stones before the game ends: ``kgs-genmove_cleanup``
        where the engine knows it, else ``genmove``."""
        command = "kgs-genmove_cleanup" if "kgs-genmove_cleanup" in self.known_commands else "genmove"
        return self._generate(command, game)

    def final_score(self, game: Game) -> float:
        """The engine's score of ``game`` (its ``final_score``) as Black's margin: ``W+3.5``
        is ``-3.5``, ``0`` a draw."""
        self.sync(game)
        text = self.send("final_score")
        if text.upper() in ("0", "DRAW"):
            return 0.0
        winner, plus, margin = text.upper().partition("+")
        try:
            value = float(margin)
        except ValueError:
            value = None
        if winner not in ("B", "W") or not plus or value is None:
            raise GTPEngineError(f"{self.name} answered final_score with {text!r}, not a score like B+3.5")
        return value if winner == "B" else -value

    def final_status_list(self, game: Game, status: str) -> list[int]:
        """The points of the stones the engine judges ``alive``, ``dead`` or ``seki`` in ``game``."""
        self.sync(game)
        text = self.send(f"final_status_list {status}")
        return [self._point(vertex, f"final_status_list {status}", game.size) for vertex in text.split()]

    # -- clock commands, passed on (``TimedAgent``) ----------------------------------------

    def time_settings(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None:
        if "time_settings" in self.known_commands:
            self.send(f"time_settings {round(main_time)} {round(byo_yomi_time)} {byo_yomi_stones}")

    def time_left(self, color: int, seconds: float, stones: int) -> None:
        if "time_left" in self.known_commands:
            # Whole seconds, rounded down: an engine told of more time than it has may lose on time.
            self.send(f"time_left {COLOR_LETTERS[color]} {math.floor(seconds)} {stones}")

    # -- the engine's board ----------------------------------------------------------------

    def sync(self, game: Game) -> None:
        """Bring the engine's board to ``game``: new moves by ``play``, anything else by
        ``clear_board`` and a replay."""
        setup = (tuple(game.setup_black), tuple(game.setup_white))
        known = len(self._moves)
        if (
            game.size != self._size
            or game.rules != self._rules
            or setup != self._setup
            or game.moves[:known] != self._moves
        ):
            self._new_game(game.size, game.rules)
            self._place_setup(game)
        for index in range(len(self._moves), len(game.moves)):
            color = game.first_to_play if index % 2 == 0 else 3 - game.first_to_play
            move = game.moves[index]
            self.send(f"play {COLOR_LETTERS[color]} {coords.to_gtp(move, game.size)}")
            self._moves.append(move)

    def _new_game(self, size: int, rules: Rules) -> None:
        self._size = self._rules = None  # unknown until every command went through
        self._moves = []
        self._setup = ((), ())
        self.send(f"boardsize {size}")
        self.send("clear_board")
        self.send(f"komi {rules.komi:g}")
        if "kata-set-rules" in self.known_commands:
            self.send(f"kata-set-rules {json.dumps(kata_rules(rules))}")
        self._size, self._rules = size, rules

    def _place_setup(self, game: Game) -> None:
        black, white, size = game.setup_black, game.setup_white, game.size
        if len(black) >= 2 and not white:
            self.send("set_free_handicap " + " ".join(coords.to_gtp(p, size) for p in black))
        else:
            for color, points in ((BLACK, black), (WHITE, white)):
                for point in points:
                    self.send(f"play {COLOR_LETTERS[color]} {coords.to_gtp(point, size)}")
        self._setup = (tuple(black), tuple(white))

    def _generate(self, command: str, game: Game) -> int:
        self.sync(game)
        full = f"{command} {COLOR_LETTERS[game.to_play]}"
        answer = self.send(full)
        if answer.lower() == "resign":
            return RESIGN
        move = self._point(answer, full, game.size)
        self._moves.append(move)  # the engine has played it on its board
        return move

    def _point(self, vertex: str, command: str, size: int) -> int:
        try:
            return coords.from_gtp(vertex, size)
        except ValueError:
            raise GTPEngineError(
                f"{self.name} answered {command!r} with {shorten(vertex, _QUOTED)!r}, not a vertex"
            ) from None

    # -- the protocol ----------------------------------------------------------------------

    def send(self, command: str) -> str:
        """Send one command; the text of the engine's successful answer.

        Raises:
            GTPEngineError: the engine failed the command (``?``), answered nonsense, did
                not answer within ``timeout`` seconds (it is killed), or is gone.
        """
        if self._failure is not None:
            raise GTPEngineError(self._failure)
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(command.encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except OSError:  # a broken pipe: it is gone
            raise self._fail(self._exit_message(command)) from None
        lines = self._answer_lines(command)
        status, first = lines[0][:1], lines[0][1:].lstrip("0123456789").strip()  # drop the id
        text = "\n".join(line for line in (first, *lines[1:]) if line).rstrip()
        if status == "?":
            raise GTPEngineError(f"{self.name} failed {command!r}: {shorten(text, _QUOTED)}")
        if status != "=":
            raise self._fail(
                f"{self.name} answered {command!r} with nonsense: {shorten(' | '.join(lines), _QUOTED)!r}"
            )
        return text

    def _answer_lines(self, command: str) -> list[str]:
        """The lines of one answer (up to the empty line that ends it)."""
        deadline = time.monotonic() + self.timeout
        lines: list[str] = []
        length = 0
        while True:
            try:
                line = self._lines.get(timeout=max(deadline - time.monotonic(), 0))
            except queue.Empty:
                self.process.kill()
                self.process.wait()
                raise self._fail(
                    f"{self.name} did not answer {command!r} within {self.timeout:g} s; killed it"
                ) from None
            if line is None:
                raise self._fail(self._exit_message(command))
            line = line.rstrip("\r\n").replace("\t", " ")
            if line.strip():
                lines.append(line)
                length += len(line) + 1
                if length > ANSWER_LIMIT:
                    self.process.kill()
                    too_long = f"answered {command!r} with more than {ANSWER_LIMIT} characters"
                    raise self._fail(f"{self.name} {too_long}; killed it")
            elif lines:
                return lines

    def _exit_message(self, command: str) -> str:
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self._readers[1].join(timeout=1)  # the last words on stderr
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        stderr = shorten(" | ".join(line.rstrip() for line in self._stderr if line.strip()), 10 * _QUOTED)
        return f"{self.name} {how} while answering {command!r}" + (f"; stderr: {stderr}" if stderr else "")

    def _fail(self, message: str) -> GTPEngineError:
        """Mark the engine unusable; the error to raise."""
        self._failure = message
        return GTPEngineError(message)

    def _pump_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in _read_lines(self.process.stdout):
            self._lines.put(line)
        self._lines.put(None)  # the end: the engine is gone

    def _pump_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in _read_lines(self.process.stderr):
            self._stderr.append(shorten(line, _QUOTED))

    # -- lifetime ----------------------------------------------------------------------------

    def close(self) -> None:
        """Send ``quit`` and reap the engine (killing it if it lingers)."""
        if self.process.poll() is None:
            if self._failure is None:
                with contextlib.suppress(GTPEngineError):  # it may die on its way out
                    self.send("quit")
            with contextlib.suppress(OSError):  # an engine that ignores quit ends with its input
                assert self.process.stdin is not None
                self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._failure = self._failure or f"{self.name} was closed"
        for reader in self._readers:  # they end at the end of the engine's output
            reader.join(timeout=1)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def __enter__(self) -> GTPAgent:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"GTPAgent({self.command!r})"


def _read_lines(stream: IO[bytes]) -> Iterator[str]:
    """The lines of ``stream`` as text (undecodable bytes replaced), each cut at ``LINE_LIMIT``
    bytes, until its end (or until it fails: the engine is gone)."""
    with contextlib.suppress(OSError, ValueError):  # closed under the reader
        while line := stream.readline(LINE_LIMIT):
            rest = line
            while rest and not rest.endswith(b"\n"):  # a cut line: skip the rest of it
                rest = stream.readline(LINE_LIMIT)
            yield line.decode("utf-8", errors="replace")
