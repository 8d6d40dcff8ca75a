"""Any player as a GTP v2 engine, for Sabaki, GoGui, Lizzie, a Go server or GNU Go's twogtp.

``goarena gtp --agent SPEC`` serves ``make_agent(SPEC)`` on stdin and stdout; in Python,
``GTPEngine(agent).run(sys.stdin, sys.stdout)``. ``GTPEngine.handle(line)`` answers one
command line as text, for tests and embedding. ``goarena gtp`` compiles the kernels the player
declares (its ``warmup``, see ``agents.protocols.Warmable``) in the background as it starts
(``warm_up_in_background``, announced on stderr when the cache is cold): commands answer at
once, and those that need the player wait for it.

==============================  ===================================================
commands                        notes
==============================  ===================================================
``protocol_version name``       ``name`` is the player's name, ``version`` goarena's
``version known_command``
``list_commands help quit``     ``help``: GNU Go's name for ``list_commands``
``boardsize clear_board komi``  sizes 2 to 25 the player can play; komi a multiple of 0.5
``play genmove undo``           ``genmove`` answers ``resign`` when the player resigns
``reg_genmove``                 the move the player would choose, not played
``fixed_handicap``              GTP's fixed points
``place_free_handicap``         the same points, where GTP defines them
``set_free_handicap``
``showboard``
``final_score``                 the rules' score of the board as it stands
``final_status_list``           ``seki``: the chains in seki; ``alive``: every other stone; ``dead``: none
``time_settings time_left``     the clock: each move's budget goes to the player (see Time)
``kgs-time_settings``           ``none``, ``absolute``, ``byoyomi``, ``canadian``; also
                                spelt ``kgs-time-settings``
``kata-time_settings``          the same, ``fischer`` and ``fischer-capped`` too (KataGo's)
``kata-list_time_settings``     the kinds ``kata-time_settings`` takes
``kgs-genmove_cleanup``         ``genmove``, but no pass while stones the player's ownership
                                calls dead can be captured, and never a move into a seki
``loadsgf printsgf``            ``loadsgf FILE [N]``: the position before move N;
                                regular files only, up to 1 MiB
``kgs-rules kata-get-rules``    rules by name (``chinese``, ``japanese``, ``aga``,
``kata-set-rules``              ``new_zealand``, ``tromp-taylor``, ...) or KataGo's JSON
``kata-set-rule``               one of KataGo's rules: ``kata-set-rule ko SIMPLE``
``clear_cache``                 the player starts afresh (a search forgets its tree)
``lz-analyze``                  live analysis, only for an ``AnalysisAgent``
``lz-genmove_analyze``
``kata-analyze``                the same in KataGo's format, with ownership
``kata-genmove_analyze``
``stop``                        ends a running analysis, as any command line does
==============================  ===================================================

Commands an engine cannot honour for its player are not listed (``list_commands``,
``known_command``) and are answered ``unknown command``: the analysis ones and ``stop`` are
there only for an ``AnalysisAgent``.

Time. The engine keeps both sides' clocks (``agents.gtp.clock``): ``time_settings``,
``kgs-time_settings`` or ``kata-time_settings`` start them (absurd clocks are refused: over a
year, under a millisecond, more than 10000 periods or stones), ``time_left`` sets a side's
time when the controller sends it, and otherwise the engine charges each of its moves with
the time it measured. Before each move it plays (``genmove``, ``kgs-genmove_cleanup``, the
``*-genmove_analyze`` commands), a player that takes a time per move (``MoveTimeAgent``: the
search players, Gumbel's included) is given the move's budget, ``Clock.budget``: main time
spread over the moves the side still expects to play, one Japanese period, a Canadian
period's time over its stones left, or under Fischer time the main time's share plus the
increment (never over half the clock), less ``lag`` seconds (``goarena gtp --lag``, 0.5 by
default), the player's own ``seconds`` and ``simulations`` still capping it. Without a time
limit, and for ``reg_genmove`` and ``lz-analyze``, it keeps to its own budget. A player that
keeps its own clock (``TimedAgent``: an external engine) is passed the clock commands instead
(KGS's and KataGo's as ``time_settings``: Japanese byo-yomi as one period, Fischer time as
its main time). Players without a search (policy, random) answer at once. ``clear_board``
makes both clocks whole again.

Scoring. The engine does no dead-stone analysis: every stone on the board counts as alive,
as under Tromp-Taylor rules, so ``final_score`` is right once a game is played out (which
``kgs-genmove_cleanup`` is for, by ``search.settle.cleanup_move``: it captures the stones the
player's ownership map, or playouts, call dead, and leaves seki and races alone) and
``final_status_list dead`` is always empty; ``final_status_list seki`` names the chains in seki
(``go_env.seki``), which live. The player
learns whether the controller takes dead stones off (``GameContext.dead_stones_removed``: under
rules other than Tromp-Taylor's, and once it asks for ``kgs-genmove_cleanup`` or
``final_status_list``), so that a search player does not pass while its dead stones count;
under Tromp-Taylor rules a search player passes only when it wins both by the board as it
stands and without the dead stones, since the controller may judge them itself.

Moves out of turn. GTP lets a controller play or ask for either colour at any time. Before the
first move, that sets who moves first; later, the other side is recorded as having passed.
After two passes have ended the game, ``play`` or ``genmove`` resume it (``Game.resume``: the
passes stay in the record, which ``printsgf`` writes whole), as in a clean-up phase or when a
server's players dispute the score; so does a pass recorded that way (``play b D4``,
``play w pass``, ``play w E5``). The game ends when the controller says: the rules' move cap
does not apply.

Analysis. ``lz-analyze [color] [interval] [interval N] [minmoves N] [maxmoves N]`` answers
``=`` and then one line per report, every ``interval`` centiseconds (default 100), of the form
``info move D4 visits 836 winrate 4656 prior 839 lcb 4640 order 0 pv D4 Q16 info move ...``
(winrate, prior and lcb times 10000), until the next command line arrives (``stop``, any
other, or an empty line), as KataGo's does; an empty line ends the answer. Meanwhile a player
that can search past its own budget (``PonderingAgent``: the search players) does, and once
the player is done its last report is repeated every interval. Through ``handle``, where no
next line can come, the analysis ends with the player's own budget. ``maxmoves N`` reports
the N best candidates (``maxmoves 0``: no info lines); intervals shorter than 1 are taken
as 1. ``lz-genmove_analyze color ...`` streams the same while the player searches on its own
budget and the clock's, plays the move and ends with ``play <vertex>``; as in KataGo, a line
arriving meanwhile does not end it. ``minmoves`` is accepted and ignored.

``kata-analyze`` and ``kata-genmove_analyze`` are the same commands in KataGo's format (its GTP
extensions), for Sabaki and Lizzie-style boards: ``info move D4 visits 836 utility -0.0688
winrate 0.4656 scoreMean -0.5 scoreLead -0.5 prior 0.0839 lcb 0.464 utilityLcb -0.072 order 0
pv D4 Q16 info move ...``, with winrate, prior and lcb as numbers in [0, 1] (6 significant
digits), utility and utilityLcb as ``2 winrate - 1`` and ``2 lcb - 1`` (our players weigh no
score in their utility), and scoreMean and scoreLead (the points the side to move leads by
after the move, komi included) only from players that estimate a score (``ownership-greedy``:
V after the move; a ``zero`` search: its network's estimate after each candidate, not averaged
over the tree as KataGo's). They take one more option, ``ownership true|false``: with ``true``, each
line ends with ``ownership`` and N*N numbers in [-1, 1], each point's final owner from the
view of the side to move (the player analysed), row by row from the top left (A19 on 19x19)
to the bottom right, as KataGo prints them. It is the ownership of the position analysed,
computed once before the search by players that can give one (``OwnershipAgent``:
``ownership-greedy``'s network; ``zero``'s ownership head at the root, where KataGo averages
the ownership over its search tree). Other players accept ``ownership true`` and print no
ownership, so that a GUI that always asks for it goes on working; the engine says so once on
stderr.

Errors. A command that fails is answered ``? message``, with GTP's standard messages where
there is one (``unknown command``, ``unacceptable size``, ``illegal move``, ``cannot undo``,
``board not empty``, ``invalid number of stones``, ``bad vertex list``, ``syntax error: ...``),
and the engine goes on; so does it when the player raises (``? internal error: ...``, with the
traceback on stderr). A command that fails leaves the board as it was (the player is reset
before its next move), so that the engine and its controller never disagree about it.
Only protocol text goes to stdout: ``goarena gtp`` writes it to a private duplicate of the
descriptor and points descriptor 1 at stderr for the player's lifetime, so that neither a
print, nor the player's C code, nor a process it starts can write into the protocol.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import queue
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol, TextIO, runtime_checkable

import numpy as np

from go_env import coords
from go_env.game import BLACK, COLOR_NAMES, EMPTY, MAX_SIZE, MIN_SIZE, WHITE, Game, IllegalMoveError
from go_env.rules import MAX_MOVES, RULES_PRESETS, Rules
from go_env.seki import seki_chains
from go_env.sgf import MAX_SGF_BYTES, SgfError, read_sgf, write_sgf
from goarena.agents.gtp.clock import DEFAULT_LAG, KATA_TIME_SETTINGS, MIN_MOVE_TIME, Clock, TimeControl
from goarena.agents.gtp.protocol import COLORS, KATA_FIXED, KATA_KO, LINE_LIMIT, kata_rules, shorten
from goarena.agents.protocols import (
    RESIGN,
    Agent,
    AnalysisAgent,
    GameContext,
    MoveInfo,
    MoveObserver,
    MoveTimeAgent,
    OwnershipAgent,
    TimedAgent,
    Warmable,
)
from goarena.search.settle import PassCheck, black_view, cleanup_move, fills_seki

try:
    _VERSION = version("goarena")
except PackageNotFoundError:
    _VERSION = "dev"

# Rules by the names GTP controllers use (kgs-rules, kata-set-rules); komi is set apart.
_NAMED_RULES = {
    **RULES_PRESETS,
    "japanese": RULES_PRESETS["japanese-like"],
    "aga": Rules(ko="situational", name="aga"),
    "new-zealand": Rules(ko="situational", suicide=True, name="new-zealand"),
}

_TROMP_TAYLOR = ("goarena", "tromp-taylor")  # rules whose board is counted as it stands
# kata-set-rule's keys, lower-cased, and their fields in KataGo's rules JSON.
_KATA_RULE_KEYS = {
    **{key.lower(): key for key in ("ko", "scoring", "suicide", "komi", "friendlyPassOk", *KATA_FIXED)},
    "score": "scoring",
    "multistonesuicidelegal": "suicide",
}
Write = Callable[[str], None]

_SHORTEST_INTERVAL = 0.01  # seconds between analysis reports
_POLL = 0.005  # seconds between looks for the next command line while an analysis waits
_QUOTED = 300  # characters of an argument quoted in an error message


def _never() -> bool:
    return False


@runtime_checkable
class PonderingAgent(Protocol):
    """A player whose live analysis can go on past its own budget, as KataGo's does (the
    search players: ``_SearchAgent.ponder``, ``NetworkPlayer.ponder``)."""

    def ponder(
        self,
        game: Game,
        stop: Callable[[], bool],
        report: Callable[[list[MoveInfo]], None],
        interval: float,
    ) -> int:
        """Search ``game`` until ``stop()`` (or a bound of its own on memory), calling
        ``report`` with the candidates, best first, about every ``interval`` seconds; return
        the move the search would play."""
        ...


def _repeat_until(
    interrupted: Callable[[], bool], last: list[str], due: list[float], interval: float, write: Write
) -> None:
    """Write ``last`` (the last report's line, if any) again each time ``due[0]`` comes, every
    ``interval`` seconds, until ``interrupted()``: a finished analysis keeps reporting."""
    while not interrupted():
        now = time.perf_counter()
        if now >= due[0]:
            if last:
                write(last[0] + "\n")
            due[0] = now + interval
        time.sleep(min(_POLL, max(due[0] - now, 0.0)))


class GTPError(Exception):
    """A command that fails: it is answered ``? message`` and the engine goes on."""


@dataclass(frozen=True)
class _Command:
    method: Callable[..., Any]
    fewest: int  # arguments
    most: int | None  # None: any number
    analysis: bool  # streams its answer
    needs: type | None  # the capability the player needs for the command to be listed


_COMMANDS: dict[str, _Command] = {}


def _command(
    name: str, arity: int | tuple[int, int | None] = 0, *, analysis: bool = False, needs: type | None = None
) -> Callable:
    """Register a ``GTPEngine`` method as the command ``name``.

    ``arity`` is its number of arguments, or (fewest, most) with ``None`` for no limit. The
    command is listed (and answered) only for a player that is a ``needs`` (an analysis
    command: an ``AnalysisAgent``).
    """
    fewest, most = (arity, arity) if isinstance(arity, int) else arity
    if analysis:
        needs = AnalysisAgent

    def register(method: Callable) -> Callable:
        _COMMANDS[name] = _Command(method, fewest, most, analysis, needs)
        return method

    return register


@dataclass(frozen=True)
class _Analysis:
    """What an analysis command (``lz-analyze``, ``kata-genmove_analyze``, ...) asks for."""

    color: int
    interval: float  # seconds
    max_moves: int | None
    play: bool  # a genmove_analyze: play the chosen move
    kata: bool = False  # KataGo's format
    ownership: bool = False  # kata-analyze ... ownership true


class GTPEngine:
    """A player behind the GTP v2 protocol (see the module documentation for the commands).

    Args:
        agent: the player; ``reset`` is called with a ``GameContext`` before it is first
            asked for a move and again after the board, the rules or the history changed.
        size: the board size until ``boardsize`` changes it.
        rules: the rules until ``komi`` or ``kata-set-rules`` change them (default ``Rules()``).
        ready: set once the player may be asked for moves (a warm-up compiling its kernels
            meanwhile, see ``warm_up_in_background``); commands that need no player answer before.
        device: where a network player runs unless its spec says (``GameContext.device``).
        playable: whether the player can play a board of a size; ``boardsize`` answers
            ``unacceptable size`` to the others (None: any size the rules allow).
        lag: seconds each move's budget keeps back for what the move costs besides the
            player's search (the engine's latency and the controller's; see ``clock``).
    """

    def __init__(
        self,
        agent: Agent,
        *,
        size: int = 19,
        rules: Rules | None = None,
        ready: threading.Event | None = None,
        device: str = "cpu",
        playable: Callable[[int], bool] | None = None,
        lag: float = DEFAULT_LAG,
    ):
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"board size must be between {MIN_SIZE} and {MAX_SIZE}, got {size}")
        if not 0 <= lag < float("inf"):
            raise ValueError(f"lag is seconds, at least 0, got {lag}")
        self.agent = agent
        self.size = size
        self.rules = rules if rules is not None else Rules()
        self._game: Game | None = None  # made when first needed: making one compiles kernels
        self.running = True
        self.clock = Clock()  # both sides' time left: time_left's, else the engine's own count
        self.lag = lag
        self._agent_stale = True  # the player needs reset() before its next move
        self._settling = False  # the controller asked for kgs-genmove_cleanup or final_status_list
        self._judge = PassCheck(seed=0)  # the dead stones of a clean-up move, by playouts
        self._ready = ready
        self.device = device
        self.playable = playable
        self._said_no_ownership = False  # kata-analyze ... ownership true, to a player without one

    @property
    def game(self) -> Game:
        """The game on the engine's board."""
        if self._game is None:
            self._game = _new_game(self.size, self.rules)
        return self._game

    @game.setter
    def game(self, game: Game) -> None:
        self._game = game

    # -- the protocol --------------------------------------------------------------------

    def run(self, stdin: TextIO, stdout: TextIO) -> None:
        """Answer commands from ``stdin`` on ``stdout`` until ``quit`` or the end of input.

        Input is read in a thread, so that a new line can interrupt a streaming analysis. A
        line longer than ``LINE_LIMIT`` characters is cut there (the rest of it is skipped).
        Anything else written to ``sys.stdout`` meanwhile goes to ``sys.stderr``, so that the
        protocol stream stays clean.
        """
        lines: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            while line := stdin.readline(LINE_LIMIT):
                rest = line
                while rest and not rest.endswith("\n"):  # a line cut at the limit: skip the rest
                    rest = stdin.readline(LINE_LIMIT)
                lines.put(line)
            lines.put(None)

        def write(text: str) -> None:
            stdout.write(text)
            stdout.flush()

        threading.Thread(target=read, name="gtp-stdin", daemon=True).start()
        with contextlib.redirect_stdout(sys.stderr):
            while self.running:
                line = lines.get()
                if line is None:
                    break
                self.respond(line, write, interrupted=lambda: not lines.empty())

    def handle(self, line: str) -> str:
        """The full answer to one command line (``""`` for a blank or comment line); with no
        next line to end it, an analysis ends with the player's own budget."""
        out: list[str] = []
        self.respond(line, out.append)
        return "".join(out)

    def respond(self, line: str, write: Write, interrupted: Callable[[], bool] | None = None) -> None:
        """Answer one command line through ``write``.

        Args:
            line: the command line, with an optional numeric id.
            write: called with each piece of the answer (analysis comes in many pieces).
            interrupted: true once the next command line has arrived, which ends ``lz-analyze``
                (which runs until then); None where nothing can arrive (``handle``): the
                analysis ends with the player's own budget.
        """
        parsed = _parse(line)
        if parsed is None:
            return
        id_, name, args = parsed
        command = _COMMANDS.get(name)
        board = self._game  # a failed command leaves the board as it was
        try:
            if command is None or name not in self.commands():
                raise GTPError("unknown command")
            if len(args) < command.fewest or (command.most is not None and len(args) > command.most):
                raise GTPError(f"wrong number of arguments: {name} takes {_arity(command)}")
            if command.analysis:
                self._stream(id_, command.method(self, args), write, interrupted)
                return
            text = command.method(self, args)
        except GTPError as error:
            self._restore(board)
            write(_answer("?", id_, shorten(str(error), _QUOTED)))
        except Exception as error:  # a failing player must not take the engine down
            self._restore(board)
            traceback.print_exc(file=sys.stderr)
            write(_answer("?", id_, shorten(f"internal error: {type(error).__name__}: {error}", _QUOTED)))
        else:
            write(_answer("=", id_, text or ""))

    def commands(self) -> list[str]:
        """The commands this engine answers (the analysis ones only for an ``AnalysisAgent``)."""
        return [
            name
            for name, command in _COMMANDS.items()
            if command.needs is None or isinstance(self.agent, command.needs)
        ]

    # -- administrative and setup commands -----------------------------------------------

    @_command("protocol_version")
    def _protocol_version(self, args: list[str]) -> str:
        return "2"

    @_command("name")
    def _name(self, args: list[str]) -> str:
        return self.agent.name

    @_command("version")
    def _version(self, args: list[str]) -> str:
        return _VERSION

    @_command("known_command", 1)
    def _known_command(self, args: list[str]) -> str:
        return "true" if args[0] in self.commands() else "false"

    @_command("help")  # GNU Go's name for it
    @_command("list_commands")
    def _list_commands(self, args: list[str]) -> str:
        return "\n".join(self.commands())

    @_command("quit")
    def _quit(self, args: list[str]) -> None:
        self.running = False

    @_command("boardsize", 1)
    def _boardsize(self, args: list[str]) -> None:
        size = _int(args[0], "board size")
        if not MIN_SIZE <= size <= MAX_SIZE or (self.playable is not None and not self.playable(size)):
            raise GTPError("unacceptable size")
        self.size = size
        self._restart(_new_game(size, self.rules))

    @_command("clear_board")
    def _clear_board(self, args: list[str]) -> None:
        self._restart(_new_game(self.size, self.rules))
        self.clock = Clock(self.clock.control)  # a new game: both sides' time is whole again

    @_command("komi", 1)
    def _komi(self, args: list[str]) -> None:
        komi = _float(args[0], "komi")
        try:
            rules = dataclasses.replace(self.rules, komi=komi)
        except ValueError as error:
            raise GTPError(str(error)) from None
        self._set_rules(rules)

    @_command("kgs-rules", 1)
    def _kgs_rules(self, args: list[str]) -> None:
        self._set_rules(_named_rules(args[0], self.rules.komi))

    @_command("kata-get-rules")
    def _kata_get_rules(self, args: list[str]) -> str:
        return json.dumps(kata_rules(self.rules))

    @_command("kata-set-rules", (1, None))
    def _kata_set_rules(self, args: list[str]) -> None:
        text = " ".join(args)
        if text.lstrip().startswith("{"):
            self._set_rules(_rules_from_kata(text, self.rules))
        else:
            self._set_rules(_named_rules(text, self.rules.komi))

    @_command("kata-set-rule", 2)
    def _kata_set_rule(self, args: list[str]) -> None:
        self._set_rules(_with_kata_rules(_kata_rule(*args), self.rules))

    @_command("fixed_handicap", 1)
    def _fixed_handicap(self, args: list[str]) -> str:
        stones = _int(args[0], "number of stones")
        self._require_empty_board()
        try:
            points = coords.fixed_handicap_points(self.size, stones)
        except ValueError:
            raise GTPError("invalid number of stones") from None
        return self._place_handicap(points)

    @_command("place_free_handicap", 1)
    def _place_free_handicap(self, args: list[str]) -> str:
        return self._fixed_handicap(args)

    @_command("set_free_handicap", (1, None))
    def _set_free_handicap(self, args: list[str]) -> None:
        self._require_empty_board()
        try:
            points = [coords.from_gtp(vertex, self.size) for vertex in args]
        except ValueError as error:
            raise GTPError(f"bad vertex list: {error}") from None
        if len(points) < 2 or len(set(points)) < len(points) or self.game.pass_move in points:
            raise GTPError("bad vertex list")
        self._place_handicap(points)

    @_command("time_settings", 3)
    def _time_settings(self, args: list[str]) -> None:
        main, byo_yomi = _float(args[0], "main time"), _float(args[1], "byo-yomi time")
        stones = _int(args[2], "byo-yomi stones")
        try:
            control = TimeControl.from_gtp(main, byo_yomi, stones)
        except ValueError as error:
            raise GTPError(f"syntax error: {error}") from None
        self._set_clock(control, (main, byo_yomi, stones))

    @_command("kgs-time-settings", (1, 4))  # KataGo's spelling
    @_command("kgs-time_settings", (1, 4))
    def _kgs_time_settings(self, args: list[str]) -> None:
        try:
            control = TimeControl.from_kgs(args)
        except ValueError as error:
            raise GTPError(f"syntax error: {error}") from None
        self._set_clock(control, control.gtp())

    @_command("kata-time_settings", (1, 5))
    def _kata_time_settings(self, args: list[str]) -> None:
        try:
            control = TimeControl.from_kata(args)
        except ValueError as error:
            raise GTPError(f"syntax error: {error}") from None
        self._set_clock(control, control.gtp())

    @_command("kata-list_time_settings")
    def _kata_list_time_settings(self, args: list[str]) -> str:
        return " ".join(KATA_TIME_SETTINGS)

    def _set_clock(self, control: TimeControl, gtp: tuple[float, float, int]) -> None:
        """Start both clocks under ``control``; a player that keeps its own clock (``TimedAgent``)
        is told ``gtp``, the control as ``time_settings`` says it."""
        self.clock = Clock(control)
        if isinstance(self.agent, TimedAgent):
            self.agent.time_settings(*gtp)

    @_command("time_left", 3)
    def _time_left(self, args: list[str]) -> None:
        color, seconds, stones = _color(args[0]), _float(args[1], "time"), _int(args[2], "stones")
        try:
            self.clock.set_left(color, seconds, stones)
        except ValueError as error:
            raise GTPError(f"invalid time left: {error}") from None
        if isinstance(self.agent, TimedAgent):
            self.agent.time_left(color, seconds, stones)

    # -- playing -------------------------------------------------------------------------

    @_command("play", 2)
    def _play(self, args: list[str]) -> None:
        color, move = _color(args[0]), self._vertex(args[1])
        try:
            game = self._turn_with_room(color)
            game.play(move)
        except IllegalMoveError as error:
            print(f"gtp: {error}", file=sys.stderr)
            raise GTPError("illegal move") from None
        self._agent_stale |= self._turned(color)
        self.game = game
        self._observe(move)

    @_command("genmove", 1)
    def _genmove(self, args: list[str]) -> str:
        started, color = time.perf_counter(), _color(args[0])
        game = self._game_for(color)
        move = self._timed_player(color, started, game).select_move(game)
        return self._commit_on_clock(game, move, color, started)

    @_command("kgs-genmove_cleanup", 1)
    def _genmove_cleanup(self, args: list[str]) -> str:
        started, color = time.perf_counter(), _color(args[0])
        self._settled_by_controller()
        game = self._game_for(color)
        agent = self._timed_player(color, started, game)
        move = agent.select_move(game)
        if move in (RESIGN, game.pass_move) or fills_seki(game, move) or game.repeats_position(move):
            # Capture what the player's ownership calls dead, and nothing else: a move into a
            # seki or a race's shared liberty gives a living chain away.
            ownership = self._dead_stone_ownership(agent, game)
            move = cleanup_move(
                game, ownership, self._judge.threshold, default=RESIGN if move == RESIGN else None
            )
        return self._commit_on_clock(game, move, color, started)

    def _dead_stone_ownership(self, agent: Agent, game: Game) -> np.ndarray:
        """float64[N*N], Black's view: who ends up owning each point of ``game``, by the
        player's network where it has an ownership head, else by playouts."""
        found = agent.ownership(game) if isinstance(agent, OwnershipAgent) else None
        return self._judge.ownership(game) if found is None else black_view(found, game.to_play)

    @_command("reg_genmove", 1)
    def _reg_genmove(self, args: list[str]) -> str:
        color = _color(args[0])
        move = self._timed_player(color, None).select_move(self._game_for(color))
        self._agent_stale = self._turned(color)  # it saw a history that was not played
        return "resign" if move == RESIGN else coords.to_gtp(move, self.size)

    @_command("clear_cache")
    def _clear_cache(self, args: list[str]) -> None:
        self._agent_stale = True  # reset before its next move: a search player forgets its tree

    @_command("undo")
    def _undo(self, args: list[str]) -> None:
        if not self.game.moves:
            raise GTPError("cannot undo")
        self.game.undo()
        self._agent_stale = True

    # -- the board and the score ---------------------------------------------------------

    @_command("showboard")
    def _showboard(self, args: list[str]) -> str:
        captured = f"captured: Black (X) {self.game.captures(BLACK)}, White (O) {self.game.captures(WHITE)}"
        return f"\n{self.game}\n{captured}"

    @_command("final_score")
    def _final_score(self, args: list[str]) -> str:
        return self.game.result()

    @_command("final_status_list", 1)
    def _final_status_list(self, args: list[str]) -> str:
        status = args[0].lower()
        if status not in ("alive", "dead", "seki"):
            raise GTPError(f"syntax error: status {args[0]!r} is not alive, dead or seki")
        self._settled_by_controller()
        if status == "dead":  # no dead-stone analysis: every stone counts as alive
            return ""
        seki = {point for chain in seki_chains(self.game) for point in chain}
        stones = [
            int(p)
            for p in np.flatnonzero(self.game.board.ravel() != EMPTY)
            if (p in seki) == (status == "seki")
        ]
        return "\n".join(coords.to_gtp(point, self.size) for point in stones)

    @_command("loadsgf", (1, 2))
    def _loadsgf(self, args: list[str]) -> None:
        stop = _int(args[1], "move number") if len(args) > 1 else None
        data = _read_regular_file(args[0], MAX_SGF_BYTES)
        try:
            # No record has more moves than nodes, nor more nodes than semicolons.
            reading = dataclasses.replace(self.rules, max_moves=min(data.count(b";") + 1, MAX_MOVES))
            record = read_sgf(data, rules=reading)
        except (SgfError, ValueError) as error:
            raise GTPError(f"cannot load file: {error}") from None
        loaded = record.game
        if self.playable is not None and not self.playable(loaded.size):
            raise GTPError(f"cannot load file: the player cannot play {loaded.size}x{loaded.size}")
        rules = dataclasses.replace(record.rules, max_moves=self.rules.max_moves)
        moves = record.moves if stop is None else record.moves[: max(stop - 1, 0)]
        game = _new_game(loaded.size, rules, loaded, moves)
        self.size, self.rules = loaded.size, rules
        self._restart(game)

    @_command("printsgf", (0, 1))
    def _printsgf(self, args: list[str]) -> str | None:
        record = self.game.copy()
        record.rules = self.rules  # the rules as set, without the engine's own move cap
        text = write_sgf(record).decode("utf-8").strip()
        if not args:
            return text
        _write_regular_file(args[0], (text + "\n").encode("utf-8"))
        return None

    # -- live analysis ---------------------------------------------------------------------

    @_command("lz-analyze", (0, None), analysis=True)
    def _lz_analyze(self, args: list[str]) -> _Analysis:
        return self._analysis_request(args, play=False)

    @_command("lz-genmove_analyze", (1, None), analysis=True)
    def _lz_genmove_analyze(self, args: list[str]) -> _Analysis:
        return self._analysis_request(args, play=True)

    @_command("kata-analyze", (0, None), analysis=True)
    def _kata_analyze(self, args: list[str]) -> _Analysis:
        return self._analysis_request(args, play=False, kata=True)

    @_command("kata-genmove_analyze", (1, None), analysis=True)
    def _kata_genmove_analyze(self, args: list[str]) -> _Analysis:
        return self._analysis_request(args, play=True, kata=True)

    @_command("stop", needs=AnalysisAgent)
    def _stop(self, args: list[str]) -> None:
        """Nothing to do: arriving, the line has ended any analysis running (see ``run``)."""

    def _analysis_request(self, args: list[str], play: bool, kata: bool = False) -> _Analysis:
        words = list(args)
        color = self.game.to_play
        if play or (words and words[0].lower() in COLORS):
            color = _color(words.pop(0))
        interval, max_moves, ownership = 1.0, None, False
        if words and words[0].isdigit():
            interval = int(words.pop(0)) / 100
        keys = ["interval", "minmoves", "maxmoves"] + ["ownership"] * kata
        while words:
            key = words.pop(0).lower()
            if key not in keys or not words:
                raise GTPError(f"syntax error: unsupported analysis argument {key!r}")
            if key == "ownership":
                ownership = _boolean(words.pop(0), key)
                continue
            value = _int(words.pop(0), key)
            if value < 0:
                raise GTPError(f"syntax error: {key} {value} is negative")
            if key == "interval":
                interval = value / 100
            elif key == "maxmoves":
                max_moves = value
        return _Analysis(color, max(interval, _SHORTEST_INTERVAL), max_moves, play, kata, ownership)

    def _stream(
        self, id_: str, request: _Analysis, write: Write, interrupted: Callable[[], bool] | None
    ) -> None:
        """Answer an analysis command: ``=``, info lines, (``play`` move,) an empty line.

        A ``*-genmove_analyze`` searches on the player's budget and the clock's, then plays.
        An ``lz-analyze`` or ``kata-analyze`` that a next line can end (``interrupted``) runs
        until then: a player that can search past its own budget (``PonderingAgent``) does,
        and once the player is done the last report is repeated every interval, as KataGo's
        reports go on until ``stop``."""
        started = time.perf_counter()
        game = self._game_for(request.color)
        agent = self._timed_player(request.color, started if request.play else None, game)
        assert isinstance(agent, AnalysisAgent)  # only listed for such players
        ownership = self._ownership(agent, game) if request.ownership else None
        last: list[str] = []  # the last report's line
        due = [started + request.interval]  # when the next repeat of it is due

        def report(infos: list[MoveInfo]) -> None:
            shown = infos[: request.max_moves]
            if request.kata:
                line = _kata_info_line(shown, game.size, ownership)
            else:
                line = _info_line(shown, game.size)
            if line:  # an empty line would end the answer
                write(line + "\n")
                last[:] = [line]
            due[0] = time.perf_counter() + request.interval

        write(f"={id_}\n")
        board = self._game
        try:
            if request.play:
                move = agent.analyze(game, _never, report, request.interval)
                write(f"play {self._commit_on_clock(game, move, request.color, started)}\n")
            else:
                stop = _never if interrupted is None else interrupted
                if interrupted is not None and isinstance(agent, PonderingAgent):
                    agent.ponder(game, stop, report, request.interval)
                else:
                    agent.analyze(game, stop, report, request.interval)
                self._agent_stale = self._turned(request.color)  # as in reg_genmove
                if interrupted is not None:
                    _repeat_until(interrupted, last, due, request.interval, write)
        except Exception:  # the answer has begun: end it cleanly, say why on stderr
            self._restore(board)
            traceback.print_exc(file=sys.stderr)
        write("\n")

    def _ownership(self, agent: Agent, game: Game) -> np.ndarray | None:
        """float64[N*N]: the player's ownership of ``game``'s position for its side to move;
        None from a player that has none (said once on stderr), or whose network has none
        (``ownership-greedy`` with a win network: its ``ownership`` is None)."""
        found = agent.ownership(game) if isinstance(agent, OwnershipAgent) else None
        if found is None:
            if not self._said_no_ownership:
                print(f"gtp: {agent.name} gives no ownership: kata-analyze prints none", file=sys.stderr)
                self._said_no_ownership = True
            return None
        ownership = np.asarray(found, np.float64)
        if ownership.shape != (game.num_points,):
            raise GTPError(f"the player's ownership has shape {ownership.shape}, not ({game.num_points},)")
        return ownership

    # -- helpers -------------------------------------------------------------------------

    def _vertex(self, text: str) -> int:
        try:
            return coords.from_gtp(text, self.size)
        except ValueError as error:
            raise GTPError(f"invalid vertex: {error}") from None

    def _player(self) -> Agent:
        """The player, once ready, reset first if the game changed under it."""
        if self._ready is not None:
            self._ready.wait()
        if self._agent_stale:
            context = GameContext(
                self.size, self.rules, device=self.device, dead_stones_removed=self._dead_stones_removed()
            )
            self.agent.reset(context)
            self._agent_stale = False
        return self.agent

    def _timed_player(self, color: int, started: float | None, game: Game | None = None) -> Agent:
        """The player (``_player``), told the time its move in ``game`` (default: the engine's)
        may take (``MoveTimeAgent``): ``color``'s budget on the clock less what the command has
        spent since ``started``; its own budget alone for a move not played (``started``
        None) or with no time limit."""
        agent = self._player()
        if isinstance(agent, MoveTimeAgent):
            game = game if game is not None else self.game
            budget = None
            if started is not None:
                budget = self.clock.budget(color, game.num_points, game.move_number, self.lag)
                if budget is not None:
                    budget = max(budget - (time.perf_counter() - started), MIN_MOVE_TIME)
            agent.set_move_time(budget)
        return agent

    def _commit_on_clock(self, game: Game, move: int, color: int, started: float) -> str:
        """Play the player's chosen ``move`` in ``game`` (a copy of the engine's, ``color`` to
        move) and make it the engine's game, charging ``color``'s clock with the time since
        ``started`` (the engine's own count, until the controller's next ``time_left``); the
        move's vertex, or ``resign``."""
        if move != RESIGN:
            try:
                game.play(move)
            except IllegalMoveError as error:
                raise GTPError(f"the player chose an illegal move: {error}") from None
        self.clock.spend(color, time.perf_counter() - started)
        self.game = game
        if move == RESIGN:
            return "resign"
        self._observe(move)
        return coords.to_gtp(move, self.size)

    def _restore(self, board: Game | None) -> None:
        """Put back the board of before a command that failed; the player, which may have
        seen the changed one, is reset before its next move."""
        if self._game is not board:
            self._game = board
            self._agent_stale = True

    def _dead_stones_removed(self) -> bool:
        """Whether the game's dead stones will be taken off before the count: under rules
        other than Tromp-Taylor's, and once the controller has asked for a clean-up move or
        for the dead stones (``GameContext.dead_stones_removed``)."""
        return self._settling or self.rules.name not in _TROMP_TAYLOR

    def _settled_by_controller(self) -> None:
        """The controller takes dead stones off: tell the player, from its next reset on."""
        if not self._dead_stones_removed():
            self._agent_stale = True
        self._settling = True

    def _observe(self, move: int) -> None:
        agent = self._player()
        if isinstance(agent, MoveObserver):
            agent.observe_move(self.game, move)

    def _restart(self, game: Game) -> None:
        self.game = game
        self._agent_stale = True

    def _set_rules(self, rules: Rules) -> None:
        """Switch rules, replaying the moves so far under them (ko and suicide may differ)."""
        try:
            game = _new_game(self.size, rules, self.game, self.game.moves)
        except IllegalMoveError as error:
            raise GTPError(f"the moves so far are illegal under those rules: {error}") from None
        self.rules = rules
        self._restart(game)

    def _require_empty_board(self) -> None:
        if self.game.moves or self.game.setup_black or self.game.setup_white:
            raise GTPError("board not empty")

    def _place_handicap(self, points: Sequence[int]) -> str:
        game = _new_game(self.size, self.rules)
        game.setup(points, [], to_play=WHITE)
        game.handicap = len(points)
        self._restart(game)
        return " ".join(coords.to_gtp(point, self.size) for point in points)

    def _turned(self, color: int) -> bool:
        """Whether giving ``color`` the move changes the game's history (see ``_turn``)."""
        return color != self.game.to_play or self.game.is_terminated

    @staticmethod
    def _turn(game: Game, color: int) -> Game:
        """``game`` (changed in place, or rebuilt) with ``color`` to move.

        Raises:
            IllegalMoveError: the pass inserted for the other side is illegal.
        """
        if game.is_terminated:
            game.resume()
        if color == game.to_play:
            return game
        if game.moves:
            game.play(game.pass_move)
            if game.is_terminated:  # the inserted pass was the second in a row
                game.resume()
            return game
        return _new_game(game.size, game.rules, game, to_play=color)

    def _game_for(self, color: int) -> Game:
        """A copy of the game with ``color`` to move, for the player to choose a move in."""
        if self._turned(color):
            self._agent_stale = True  # the history differs from what the player was shown
        try:
            return self._turn_with_room(color)
        except IllegalMoveError as error:
            raise GTPError(f"cannot give {COLOR_NAMES[color]} the move: {error}") from None

    def _turn_with_room(self, color: int) -> Game:
        """A copy of the game with ``color`` to move (see ``_turn``), replayed under a later
        move cap first when the cap is near (see ``_new_game``).

        Raises:
            IllegalMoveError: the pass inserted for the other side is illegal.
            GTPError: the game has reached ``MAX_MOVES``, the most any game holds.
        """
        game = self.game.copy()
        cap = game.rules.move_cap(game.size)
        if cap - game.move_number < _room(game.size) and cap < MAX_MOVES:
            game = _new_game(game.size, self.rules, game, game.moves)
        too_long = GTPError(f"the game is too long: a game holds at most {MAX_MOVES} moves")
        if game.is_truncated:
            raise too_long
        game = self._turn(game, color)
        if game.is_truncated:  # by the pass inserted
            raise too_long
        return game


def warm_up_in_background(agent: Agent, size: int, log: Callable[[str], None]) -> threading.Event:
    """Warm up the kernels of the game and of ``agent`` (its ``warmup``, if it declares one)
    in a thread, for ``GTPEngine``'s ``ready``; the event is set when it is done, failed or
    not (kernels left cold compile when first used). ``log`` hears of a compile (a cold
    cache) and, then, of the time it took; a failure's traceback goes to stderr."""
    from goarena.search.warmup import warmup

    ready = threading.Event()
    warmups = [agent.warmup] if isinstance(agent, Warmable) else []

    def run() -> None:
        compiled = False

        def announce(line: str) -> None:
            nonlocal compiled
            compiled = True
            log(line)

        try:
            seconds = warmup(size, log=announce, warmups=warmups)
            if compiled:
                log(f"kernels ready in {seconds:.1f} s")
        except Exception:
            traceback.print_exc(file=sys.stderr)
        finally:
            ready.set()

    threading.Thread(target=run, name="warmup", daemon=True).start()
    return ready


def _read_regular_file(path: str, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    Anything else (a FIFO, a device, ``/dev/stdin``) is refused before it is read, since
    reading it could block the engine for good; the file is opened non-blocking, so that one
    swapped in after the check cannot block the open either.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise GTPError(f"cannot load file: not a regular file: {path}")
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise GTPError(f"cannot load file: {error.strerror}: {path}") from None
    with os.fdopen(descriptor, "rb") as file:
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise GTPError(f"cannot load file: not a regular file: {path}")
            data = file.read(limit + 1)
        except OSError as error:
            raise GTPError(f"cannot load file: {error.strerror}: {path}") from None
    if len(data) > limit:
        raise GTPError(f"cannot load file: larger than {limit} bytes: {path}")
    return data


def _write_regular_file(path: str, data: bytes) -> None:
    """Write ``data`` to the regular file at ``path``, made if missing.

    Anything else is refused: ``/dev/stdout`` would corrupt the protocol stream, and a FIFO
    with no reader would block (opened non-blocking, it fails at once instead). Written
    unbuffered, so that a file that takes no data (``/proc/self/mem``) fails here, saying why.
    """
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, 0o666)
    except OSError as error:
        raise GTPError(f"cannot write file: {error.strerror}: {path}") from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise GTPError(f"cannot write file: not a regular file: {path}")
        os.ftruncate(descriptor, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
    except OSError as error:
        raise GTPError(f"cannot write file: {error.strerror}: {path}") from None
    finally:
        with contextlib.suppress(OSError):  # what was written is written, or failed above
            os.close(descriptor)


def _parse(line: str) -> tuple[str, str, list[str]] | None:
    """(id, command name, arguments) of a command line, or ``None`` for a blank one.

    As GTP says: control characters other than tab and newline are dropped, tabs become
    spaces, and anything after ``#`` is a comment.
    """
    text = "".join(c for c in line if c in "\t\n" or c.isprintable())
    words = text.split("#", 1)[0].replace("\t", " ").split()
    if not words:
        return None
    id_ = words.pop(0) if words[0].isdigit() else ""
    return (id_, words[0], words[1:]) if words else (id_, "", [])


def _answer(status: str, id_: str, text: str) -> str:
    """A complete answer: ``=id text`` or ``?id text``, then an empty line.

    Empty lines inside ``text`` would end the answer early, so they are dropped.
    """
    head = f"{status}{id_}"
    lines = f"{head} {text}".rstrip().splitlines() if text else [head]
    return "\n".join(line for line in lines if line.strip()) + "\n\n"


def _arity(command: _Command) -> str:
    if command.most is None:
        return f"at least {command.fewest} arguments"
    if command.most == command.fewest:
        return f"{command.fewest} argument{'s' * (command.fewest != 1)}"
    return f"{command.fewest} to {command.most} arguments"


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GTPError(f"syntax error: {what} {text!r} is not an integer") from None


def _float(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise GTPError(f"syntax error: {what} {text!r} is not a number") from None


def _boolean(text: str, what: str) -> bool:
    try:
        return {"true": True, "false": False}[text.lower()]
    except KeyError:
        raise GTPError(f"syntax error: {what} {text!r} is neither true nor false") from None


def _color(text: str) -> int:
    try:
        return COLORS[text.lower()]
    except KeyError:
        raise GTPError(f"syntax error: invalid color {text!r}") from None


def _room(size: int) -> int:
    """Moves the engine's game always has left before its move cap (see ``_new_game``): a
    whole game's worth under the default cap. More would cost searches that copy the state,
    whose position set is sized to the cap."""
    return 2 * size * size


def _new_game(
    size: int, rules: Rules, setup: Game | None = None, moves: Sequence[int] = (), to_play: int | None = None
) -> Game:
    """A game under ``rules`` with ``setup``'s setup stones and handicap, then ``moves``.

    Through GTP the controller ends a game, not the move cap, so the game gets a cap
    ``2 * _room(size)`` moves past ``moves`` whatever ``rules`` say (up to ``MAX_MOVES``);
    the engine replays it under a later one before ``_room(size)`` moves are left
    (``_turn_with_room``). Players thus never meet the cap, and searches that end lines at the
    cap see it far away.
    """
    game = Game(size, dataclasses.replace(rules, max_moves=min(len(moves) + 2 * _room(size), MAX_MOVES)))
    if setup is not None:
        first = setup.first_to_play if to_play is None else to_play
        if setup.setup_black or setup.setup_white or first != BLACK:
            game.setup(setup.setup_black, setup.setup_white, first)
        game.handicap = setup.handicap
    game.replay(moves, resume=True)
    return game


def _named_rules(name: str, komi: float) -> Rules:
    try:
        rules = _NAMED_RULES[name.strip().lower().replace("_", "-")]
    except KeyError:
        raise GTPError(f"unknown rules {name!r}; known: {', '.join(sorted(_NAMED_RULES))}") from None
    return dataclasses.replace(rules, komi=komi)


def _rules_from_kata(text: str, current: Rules) -> Rules:
    """``current`` changed as KataGo's rules JSON says (``kata-set-rules``)."""
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as error:
        raise GTPError(f"syntax error: rules are neither a name nor JSON: {error}") from None
    if not isinstance(spec, dict):
        raise GTPError("syntax error: rules JSON must be an object")
    return _with_kata_rules(spec, current)


def _kata_rule(key: str, value: str) -> dict[str, Any]:
    """``kata-set-rule KEY VALUE`` as a field of KataGo's rules JSON (KataGo's keys, any case,
    ``multiStoneSuicideLegal`` for ``suicide`` and ``score`` for ``scoring`` too; ``komi``)."""
    name = _KATA_RULE_KEYS.get(key.lower())
    if name is None:
        raise GTPError(f"unsupported rules: unknown rule {key!r}")
    if name in ("suicide", "hasButton", "friendlyPassOk"):
        return {name: _boolean(value, key)}
    if name == "komi":
        return {name: _float(value, key)}
    return {name: value}


def _with_kata_rules(spec: dict[str, Any], current: Rules) -> Rules:
    """``current`` changed as the fields of KataGo's rules JSON ``spec`` say; the axes
    goarena lacks must match it."""
    fields: dict[str, Any] = {"name": "custom"}
    fixed = kata_rules(current)
    kata_ko = {value: key for key, value in KATA_KO.items()}
    for key, value in spec.items():
        text = str(value)
        if key == "ko" and text.upper() in kata_ko:
            fields["ko"] = kata_ko[text.upper()]
        elif key == "scoring" and text.lower() in ("area", "territory"):
            fields["scoring"] = text.lower()
        elif key == "suicide" and isinstance(value, bool):
            fields["suicide"] = value
        elif key == "komi" and isinstance(value, (int, float)):
            fields["komi"] = value
        elif key in KATA_FIXED and text.lower() == str(fixed[key]).lower():
            continue  # an axis goarena has a single setting of
        elif key != "friendlyPassOk":  # that one only says how passes end a game, played out here
            raise GTPError(f"unsupported rules: {key} = {value!r}")
    try:
        return dataclasses.replace(current, **fields)
    except ValueError as error:
        raise GTPError(f"unsupported rules: {error}") from None


def _permyriad(value: float) -> int:
    return round(10000 * value)


def _decimal(value: float) -> str:
    """A number as KataGo prints one: 6 significant digits."""
    return f"{value:.6g}"


def _info_line(infos: list[MoveInfo], size: int) -> str:
    """One report of ``lz-analyze``: an ``info move ...`` group per candidate."""
    groups = []
    for order, info in enumerate(infos):
        pv = " ".join(coords.to_gtp(move, size) for move in info.pv or (info.move,))
        groups.append(
            f"info move {coords.to_gtp(info.move, size)} visits {info.visits} "
            f"winrate {_permyriad(info.winrate)} prior {_permyriad(info.prior)} "
            f"lcb {_permyriad(info.lcb)} order {order} pv {pv}"
        )
    return " ".join(groups)


def _kata_info_line(infos: list[MoveInfo], size: int, ownership: np.ndarray | None) -> str:
    """One report of ``kata-analyze``: an ``info move ...`` group per candidate, then the
    ``ownership`` of every point when there is one ("" when there is nothing to say)."""
    groups = []
    for order, info in enumerate(infos):
        pv = " ".join(coords.to_gtp(move, size) for move in info.pv or (info.move,))
        score = ""
        if info.score_lead is not None:
            score = f"scoreMean {_decimal(info.score_lead)} scoreLead {_decimal(info.score_lead)} "
        groups.append(
            f"info move {coords.to_gtp(info.move, size)} visits {info.visits} "
            f"utility {_decimal(2 * info.winrate - 1)} winrate {_decimal(info.winrate)} {score}"
            f"prior {_decimal(info.prior)} lcb {_decimal(info.lcb)} utilityLcb {_decimal(2 * info.lcb - 1)} "
            f"order {order} pv {pv}"
        )
    if ownership is not None:
        groups.append("ownership " + " ".join(_decimal(float(value)) for value in ownership))
    return " ".join(groups)
