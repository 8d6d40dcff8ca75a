"""Live games of the web board: a person against a player, one ``PlaySession`` per WebSocket.

A session holds a ``Game`` and the player it was started with (built from its spec, reset with
a ``GameContext`` as the league and the GTP engine reset theirs). Every call to the player runs
in a thread (``asyncio.to_thread``), one at a time, so that the event loop goes on serving
other pages and games while it thinks. Messages are JSON objects. From the browser:

- ``{"type": "new", "player": NAME, "size": 9, "komi": 7, "rules": PRESET, "color": "black",
  "handicap": 0}`` (``"spec": SPEC`` instead of ``"player"`` where specs are allowed), with
  ``"moves": [vertices]`` to resume a game after a reload (played through go_env's rules, the
  player told of each; a wrong one refuses the whole message, naming it);
- ``{"type": "play", "move": "D4"}`` (a GTP vertex or ``"pass"``), ``{"type": "pass"}``,
  ``{"type": "resign"}``, ``{"type": "undo"}``;
- ``{"type": "analysis", "on": false}``, the switch of the analysis messages;
- ``{"type": "hint"}`` on the person's turn: ``{"type": "hint", "move": VERTEX, "at": MOVES}``,
  the best move of the analysis under way, else the player's own choice (its budget);
- ``{"type": "sgf"}``: ``{"type": "sgf", "sgf": TEXT, "name": FILE}``, the game written by
  ``go_env.sgf`` (the person named ``You``).

From the session: ``state`` (``PlaySession.state``: the board, 0 empty, 1 Black, 2 White, row 0
at the top; whose turn; the moves as GTP vertices; the legal points on the person's turn; at the
end the result, Black's margin, the dead stones, who judged them and the area owners; Black's
win rate and lead in points at the position each move was played from, where the player gave
them: ``winrates`` and ``scores``), ``analysis`` (``analysis_message``; ``"ponder": true`` when
it is of the person's position) and ``{"type": "error", "message": ...}``.

The player's move: an ``AnalysisAgent`` is asked through ``analyze``, whose reports go to the
browser (at most ``REPORTS_PER_SECOND``) as KataGo's ``kata-analyze`` fields: visits, win rate,
prior, score lead and principal variation per candidate, and the move it returns is played;
any other player through ``select_move``. Ownership comes from an ``OwnershipAgent``'s network
(one forward pass), the policy heat map from a ``PolicyAgent`` that does not search; both are
turned to Black's view, as every win rate sent is. On the person's turn, a player that answers
at once (no search to run: not a ``MoveTimeAgent``) analyses the position too, once; a search
player goes on analysing it (``_ponder``, as KaTrain and Lizzie ponder: its search past its own
budget, as GTP's analysis runs it) until the person moves, the analysis is switched
off or the page leaves, ``PONDER_SECONDS`` at most; a GTP engine does not. Its last estimates
are those of the position the person moved from, which is what the page's review reads.

``random`` answers a pass with a pass when nothing is left to play (``nothing_left_to_play``):
clicking Pass through a filled board is no game.

The game ends by two passes or the move cap, by a resignation, or by a player that fails or
answers an illegal move (it forfeits). ``undo`` takes back the person's last move and the
player's answer after it (two passes included: the game resumes); the player is then reset and
forgets what it searched.

The count (``settle_final``): under the ``goarena`` and ``tromp-taylor`` presets every stone on
the board is alive (Tromp-Taylor's count of the board as it stands), and so is it after the move
cap. Under the other presets (``chinese``, ``japanese-like``) the dead stones come off before
the count of a game that two passes ended, as players agree on them at a board: GNU Go names
them (``final_status_list dead``, as the league's arbiter does); where it is not installed (or
fails), the shipped ownership network, on 9x9 only (the stones whose points it gives to the
other colour); otherwise none come off. A chain in seki lives, whoever called it dead
(``go_env.seki``). The board without them is counted by area, as the league settles its games
(``search.settle``, the one place that decides): under ``japanese-like`` too, that is Chinese
counting, which seldom differs from a territory count by more than a point. The state
says who judged (``counted_by``). GNU Go may take seconds: it runs in a thread, and meanwhile
the state says that the game is over, with no result yet.

When the game ends early (the browser leaves, or starts another), the player's search stops
through ``analyze``'s ``stop``; a search that has no such call (``minimax``, ``expectimax``)
runs in a process of its own (``remote.RemotePlayer``), and it and a GTP engine are killed.

``Flood`` counts a connection's messages: past ``FLOOD_MESSAGES`` a second the rest are
dropped, with one error said.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from go_env import coords
from go_env.game import BLACK, COLOR_NAMES, MAX_SIZE, MIN_SIZE, WHITE, Game, IllegalMoveError, result_string
from go_env.rules import RULES_PRESETS, Rules, default_komi
from go_env.sgf import write_sgf
from goarena.agents.gtp.client import GTPAgent, find_engine
from goarena.agents.gtp.engine import PonderingAgent
from goarena.agents.players.random import RandomAgent
from goarena.agents.protocols import (
    RESIGN,
    Actor,
    Agent,
    AnalysisAgent,
    Closeable,
    GameContext,
    MoveInfo,
    MoveObserver,
    MoveTimeAgent,
    OwnershipAgent,
    PolicyAgent,
    UnsupportedGame,
)
from goarena.agents.specs import AgentSpecError, make_agent, player_factory
from goarena.agents.weights import OWNERSHIP_9X9
from goarena.benchmarks.pictures import black_view, network_ownership
from goarena.benchmarks.web.remote import RemotePlayer
from goarena.search.settle import AS_IT_STANDS, Judge, Settled, dead_stones, settle_by_judges, settled_board

REPORTS_PER_SECOND = 5
PONDER_SECONDS = 20.0  # the longest a search player analyses the person's position (per position)
FLOOD_MESSAGES = 50  # a second, per connection
MESSAGE_BYTES = 16 * 1024  # the longest message a browser sends (a resumed 19x19 game's moves fit)
CANDIDATES = 20  # moves sent per analysis report
COUNTED_AS_IT_STANDS = ("goarena", "tromp-taylor")  # the presets whose count takes every stone alive
GNUGO = "gnugo"  # the judge of dead stones, where it is installed
JUDGE_SECONDS = 30.0  # GNU Go's longest answer: past it, it is killed and the next judge asked
_COLORS = {"black": BLACK, "white": WHITE}
_LETTERS = {BLACK: "B", WHITE: "W"}

Message = dict[str, Any]


class SessionError(ValueError):
    """A message the session cannot act on; its text goes back to the browser."""


def decode(text: str | bytes | None) -> Message:
    """A browser's message as a JSON object with a ``type``, else ``SessionError``."""
    if not isinstance(text, str):
        raise SessionError("messages are JSON text")
    if len(text) > MESSAGE_BYTES:
        raise SessionError(f"message longer than {MESSAGE_BYTES} characters")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError) as error:  # RecursionError: nested too deep
        raise SessionError(f"malformed JSON: {error}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise SessionError('a message is a JSON object with a "type"')
    return message


class Flood:
    """Messages over ``limit`` in any ``window`` seconds are dropped; the first dropped is
    answered (``check`` says ``"warn"``), the others silently (``"drop"``)."""

    def __init__(
        self, limit: int = FLOOD_MESSAGES, window: float = 1.0, clock: Callable[[], float] = time.monotonic
    ):
        self.limit, self.window, self.clock = limit, window, clock
        self.times: deque[float] = deque()
        self.warned = False

    def check(self) -> str:
        """``"ok"``, ``"warn"`` or ``"drop"`` for a message arriving now."""
        now = self.clock()
        while self.times and now - self.times[0] >= self.window:
            self.times.popleft()
        if len(self.times) < self.limit:
            self.times.append(now)
            self.warned = False
            return "ok"
        if self.warned:
            return "drop"
        self.warned = True
        return "warn"


def black_winrate(infos: Sequence[MoveInfo], to_play: int) -> float | None:
    """Black's win rate by the best candidate of an analysis report; None when the player
    gives no estimate (no visits: a policy's candidates)."""
    if not infos or infos[0].visits <= 0:
        return None
    winrate = infos[0].winrate
    return winrate if to_play == BLACK else 1.0 - winrate


def black_score(infos: Sequence[MoveInfo], to_play: int) -> float | None:
    """Black's lead in points by the best candidate of an analysis report; None when the
    player counts no points (no score head) or gives no estimate."""
    if not infos or infos[0].visits <= 0 or infos[0].score_lead is None:
        return None
    lead = infos[0].score_lead
    return lead if to_play == BLACK else -lead


def nothing_left_to_play(game: Game) -> bool:
    """Whether both colours have stones on ``game``'s board and every empty point is already
    counted for one of them (no point that both border): more moves only fill one's own area."""
    board = game.board.ravel()
    if not (np.any(board == BLACK) and np.any(board == WHITE)):
        return False
    owners = game.area_owner().ravel()
    return bool(np.all(owners[board == 0] != 0))


def _number(value: float | None, digits: int = 4) -> float | None:
    """A float for JSON (None for NaN and infinities, which JSON lacks)."""
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


def _vertices(points: Sequence[int], size: int) -> list[str]:
    return [coords.to_gtp(int(point), size) for point in points]


def answers_at_once(agent: Agent) -> bool:
    """Whether the player has no search to run (its policy and analysis cost one network
    call): the search players take a time per move (``MoveTimeAgent``)."""
    return not isinstance(agent, MoveTimeAgent)


def analysis_message(
    agent: Agent, game: Game, infos: Sequence[MoveInfo] | None, with_maps: bool = True
) -> Message:
    """An ``analysis`` message: the candidates of a report (None: none), Black's win rate,
    and, with ``with_maps``, the player's ownership and policy of ``game``'s position in
    Black's view (None where it has none, or where its policy would cost a search)."""
    size, to_play = game.size, game.to_play
    shown = list(infos or [])[:CANDIDATES]
    ownership = policy = None
    if with_maps and isinstance(agent, OwnershipAgent):
        found = agent.ownership(game)
        if found is not None:
            ownership = [_number(value, 3) for value in black_view(game, found)]
    if with_maps and isinstance(agent, PolicyAgent) and answers_at_once(agent):
        policy = [_number(value) for value in np.asarray(agent.policy(game), np.float64)]
    return {
        "type": "analysis",
        "visits": int(sum(info.visits for info in shown)),
        "winrate": _number(black_winrate(shown, to_play)),
        "score_lead": _number(black_score(shown, to_play), 2),
        "moves": [
            {
                "move": coords.to_gtp(info.move, size),
                "visits": int(info.visits),
                "winrate": _number(info.winrate),
                "prior": _number(info.prior),
                "score_lead": _number(info.score_lead, 2),
                "pv": _vertices(info.pv or (info.move,), size),
            }
            for info in shown
        ],
        "ownership": ownership,
        "policy": policy,
    }


Estimate = tuple[float | None, float | None]  # Black's win rate and lead in points, where known


def position_estimate(agent: Agent, game: Game) -> Estimate:
    """Black's win rate and lead in ``game``'s position by ``agent`` (its own budget): the
    best candidate of its analysis, else its ``act`` value (no lead); Nones for a finished
    game or a player without an estimate."""
    if game.is_over:
        return None, None
    if isinstance(agent, AnalysisAgent):
        reports: list[list[MoveInfo]] = []
        agent.analyze(game.copy(), lambda: False, reports.append, 1.0)
        if not reports:
            return None, None
        return black_winrate(reports[-1], game.to_play), black_score(reports[-1], game.to_play)
    if isinstance(agent, Actor):
        value = agent.act(game.copy()).value
        if value is not None:
            winrate = (float(value) + 1.0) / 2.0
            return (winrate if game.to_play == BLACK else 1.0 - winrate), None
    return None, None


def estimates_along(start: Game, moves: Sequence[int], spec: str) -> list[Estimate]:
    """Black's win rate and lead at every position of a game (``start`` and after each of
    ``moves``, passes included; a clean-up phase resumed) by the player of ``spec``, built
    for it."""
    agent = make_agent(spec, seed=0)
    try:
        agent.reset(GameContext(start.size, start.rules, seed=0))
        game = start.copy()
        found = [position_estimate(agent, game)]
        for move in moves:
            if game.is_terminated:
                game.resume()
            game.play(move)
            if isinstance(agent, MoveObserver):
                agent.observe_move(game.copy(), move)
            found.append(position_estimate(agent, game))
        return found
    finally:
        if isinstance(agent, Closeable):
            agent.close()


def winrates_along(start: Game, moves: Sequence[int], spec: str) -> list[float | None]:
    """Black's win rate at every position of a game (``estimates_along``'s first halves)."""
    return [winrate for winrate, _ in estimates_along(start, moves, spec)]


def gnugo_dead_stones(game: Game) -> list[int] | None:
    """GNU Go's dead stones in ``game``'s final position (``final_status_list dead``); None
    when it is not installed."""
    program = find_engine(GNUGO)
    if program is None:
        return None
    with GTPAgent(f"{program} --mode gtp", timeout=JUDGE_SECONDS) as engine:
        return engine.final_status_list(game, "dead")


def network_dead_stones(game: Game) -> list[int] | None:
    """The stones whose points the shipped ownership network gives to the other colour (by
    more than ``dead_stones``' threshold, 0.5); None on a board it was not trained for."""
    try:
        ownership, _ = network_ownership(OWNERSHIP_9X9, game)
    except UnsupportedGame:
        return None
    return dead_stones(game, black_view(game, ownership))


# Who names the dead stones, in order: the first that can judge the game does.
JUDGES: dict[str, Judge] = {
    "GNU Go": gnugo_dead_stones,
    "the ownership network": network_dead_stones,
}


def judges_dead_stones(game: Game) -> bool:
    """Whether ``game`` ended by two passes under rules whose count takes the dead stones off."""
    return game.is_terminated and game.rules.name not in COUNTED_AS_IT_STANDS


def settle_final(game: Game) -> Settled:
    """The count of a finished game (see the module documentation): Black's margin, who named
    the dead stones (``how``: a ``JUDGES`` name, else ``AS_IT_STANDS``) and their points, by
    the settle module's row of judges (``search.settle.settle_by_judges``: chains in seki
    live; a judge that fails is said on stderr and the next one asked)."""
    if judges_dead_stones(game):
        return settle_by_judges(game, JUDGES)
    return Settled(game.score(), AS_IT_STANDS)


def new_game_settings(message: Message) -> tuple[int, Rules, int, int]:
    """(size, rules, handicap, the person's colour) from a ``new`` message, else
    ``SessionError`` saying what is wrong."""
    size = message.get("size", 9)
    if type(size) is not int or not MIN_SIZE <= size <= MAX_SIZE:
        raise SessionError(f"size is a whole number from {MIN_SIZE} to {MAX_SIZE}, got {size!r}")
    preset = message.get("rules", "goarena")
    if not isinstance(preset, str) or preset not in RULES_PRESETS:
        raise SessionError(f"unknown rules {preset!r}; known: {', '.join(RULES_PRESETS)}")
    komi = message.get("komi", default_komi(size))
    if isinstance(komi, bool) or not isinstance(komi, (int, float)):
        raise SessionError(f"komi is a number, got {komi!r}")
    try:
        rules = Rules.preset(preset, komi=komi)
    except ValueError as error:
        raise SessionError(str(error)) from None
    handicap = message.get("handicap", 0)
    if type(handicap) is not int:
        raise SessionError(f"handicap is a whole number of stones, got {handicap!r}")
    color = message.get("color", "black")
    if not isinstance(color, str) or color not in _COLORS:
        raise SessionError(f"color is black or white, got {color!r}")
    return size, rules, handicap, _COLORS[color]


class PlaySession:
    """One person's game against a player (see the module documentation).

    Args:
        players: gives the players the browser may choose, name -> spec (asked in a thread:
            it may read the leagues).
        allow_spec: whether a ``new`` message may give any spec (``"spec"``).
        emit: sends a message to the browser; called on the event loop only.
    """

    def __init__(
        self, players: Callable[[], Mapping[str, str]], allow_spec: bool, emit: Callable[[Message], None]
    ):
        self.players = players
        self.allow_spec = allow_spec
        self.emit = emit
        self.game: Game | None = None
        self.seat: _Seat | None = None  # the player, with what its calls share
        self.player = ""  # the player's name (its spec, when the browser gave one)
        self.human = BLACK
        self.show_analysis = True
        self.winrates: list[float | None] = []  # Black's, at the position each move was played from
        self.scores: list[float | None] = []  # Black's lead in points, likewise (players that count)
        self.loser: tuple[int, str] | None = None  # (colour, "R" or "F") of a game lost without a count
        self.settled: Settled | None = None  # the count of a game ended by moves, once made
        self.thinking = False
        self._estimate: float | None = None  # Black's win rate at the current position, if analysed
        self._score: float | None = None  # Black's lead at the current position, if counted
        self._best: str | None = None  # the best move of the current position's analysis, if any
        self._ponder_stop = threading.Event()  # ends the analysis of the person's position
        self._pondering = False  # whether that analysis runs
        self._epoch = 0  # counts changes of position: work begun before one is dropped
        self._stop = threading.Event()  # ends the running search early
        self._tasks: set[asyncio.Task] = set()

    # -- messages ----------------------------------------------------------------------------

    async def handle(self, message: Message) -> None:
        """Act on one message; one that cannot be acted on is answered with an error."""
        handlers = {
            "new": self._new,
            "play": self._play,
            "pass": self._pass,
            "resign": self._resign,
            "undo": self._undo,
            "analysis": self._analysis,
            "hint": self._hint_asked,
            "sgf": self._sgf,
        }
        try:
            handler = handlers.get(message.get("type"))  # type: ignore[arg-type]
            if handler is None:
                raise SessionError(f"unknown message type {message.get('type')!r}")
            await handler(message)
        except SessionError as error:
            self.emit({"type": "error", "message": str(error)})
        except Exception as error:  # a fault of ours: said, and the session goes on
            traceback.print_exc()
            self.emit({"type": "error", "message": f"internal error: {type(error).__name__}: {error}"})

    async def close(self) -> None:
        """The browser is gone: stop the work under way (a search through ``stop``, a
        player that cannot be stopped by killing its process) and close the player."""
        self._drop_work()
        seat, self.seat = self.seat, None
        if seat is not None:
            if seat.kill is not None:
                seat.kill()  # at once, on the loop: a signal sent waits for no thread
            await asyncio.to_thread(seat.close)

    async def _new(self, message: Message) -> None:
        name, spec = await asyncio.to_thread(self._player, message)
        size, rules, handicap, color = new_game_settings(message)
        try:
            game = Game(size, rules, handicap)
        except ValueError as error:
            raise SessionError(str(error)) from None
        played = _replay_moves(game, message.get("moves", []))
        seat = await asyncio.to_thread(_build, spec, GameContext(size, rules, color=3 - color))
        self._drop_work()  # the game in play, if any, ends here: not before its successor can start
        old, self.seat = self.seat, seat
        if old is not None:  # once its last call has returned, which the new game does not wait for
            self._start(asyncio.to_thread(old.close))
        for position, move in played:
            seat.heard(position, move)
        self.game, self.human, self.player = game, color, name
        self.winrates, self.scores, self.loser = [None] * len(played), [None] * len(played), None
        self._forget_estimates()
        self._next_turn()

    async def _play(self, message: Message) -> None:
        game = self._person_to_move()
        vertex = message.get("move")
        if not isinstance(vertex, str):
            raise SessionError('"play" takes a "move": a vertex such as "D4", or "pass"')
        try:
            move = coords.from_gtp(vertex, game.size)
        except ValueError as error:
            raise SessionError(str(error)) from None
        self._move(game, move)

    async def _pass(self, message: Message) -> None:
        game = self._person_to_move()
        self._move(game, game.pass_move)

    async def _resign(self, message: Message) -> None:
        self._game()
        if self.over:
            raise SessionError("the game is over")
        self._drop_work()
        self.loser = (self.human, "R")
        self.emit(self.state())

    async def _undo(self, message: Message) -> None:
        game = self._game()
        if self.thinking:
            raise SessionError(f"{self.player} is thinking: undo once it has moved")
        if self.loser is not None:
            raise SessionError("the game is over: it was not ended by moves")
        mine = [i for i in range(len(game.moves)) if self._color_of(game, i) == self.human]
        if not mine:
            raise SessionError("no move of yours to take back")
        self._drop_work()
        while len(game.moves) > mine[-1]:
            game.undo()
        del self.winrates[mine[-1] :]
        del self.scores[mine[-1] :]
        self._forget_estimates()
        assert self.seat is not None
        await asyncio.to_thread(self.seat.reset, GameContext(game.size, game.rules, color=3 - self.human))
        self._next_turn()

    async def _analysis(self, message: Message) -> None:
        on = message.get("on")
        if not isinstance(on, bool):
            raise SessionError('"analysis" takes "on": true or false')
        self.show_analysis = on
        if not on:
            self._ponder_stop.set()
        elif self.game is not None and not self.thinking and not self.over:
            self._start(self._hint(self._epoch))

    async def _hint_asked(self, message: Message) -> None:
        """The best move of the person's position: the analysis's under way, else the
        player's own (its budget), sent as ``{"type": "hint", "move", "at"}``."""
        game = self._person_to_move()
        at, epoch, seat = len(game.moves), self._epoch, self.seat
        assert seat is not None
        while self._pondering and self._best is None and epoch == self._epoch:  # its first report
            await asyncio.sleep(0.05)
        if epoch != self._epoch:
            return
        if self._best is None:
            stop = self._ponder_stop = threading.Event()  # set by the next move, as a ponder's
            try:
                best = await asyncio.to_thread(_best_move, seat, game.copy(), stop)
            except UnsupportedGame as error:
                raise SessionError(str(error)) from None
            if epoch != self._epoch:
                return
            self._best = best
        self.emit({"type": "hint", "move": self._best, "at": at})

    async def _sgf(self, message: Message) -> None:
        """The game as an SGF record: ``{"type": "sgf", "sgf": text, "name": file name}``."""
        game = self._game()
        black, white = ("You", self.player) if self.human == BLACK else (self.player, "You")
        result = self.state()["result"] or ""
        text = write_sgf(game, black=black, white=white, result=result, event="goarena serve").decode("utf-8")
        self.emit({"type": "sgf", "sgf": text, "name": f"goarena-{len(game.moves)}-moves.sgf"})

    # -- the game ----------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.game is not None and (self.loser is not None or self.game.is_over)

    def state(self) -> Message:
        """The ``state`` message: the board, whose turn, the record and, at the end, the result
        (None while the dead stones are being judged)."""
        game = self._game()
        size, over = game.size, self.over
        person_to_move = not over and not self.thinking and game.to_play == self.human
        legal = [int(p) for p in game.legal_moves() if p != game.pass_move] if person_to_move else []
        result = score = owners = counted_by = None
        dead: list[str] = []
        if self.loser is not None:
            color, code = self.loser
            result = f"{_LETTERS[3 - color]}+{code}"
        elif over and self.settled is not None:
            settled = self.settled
            result, score, counted_by = result_string(settled.margin), settled.margin, settled.how
            dead = _vertices(settled.dead, size)
            owners = settled_board(game, settled.dead).area_owner().ravel().tolist()
        last = game.moves[-1] if game.moves else None
        return {
            "type": "state",
            "size": size,
            "komi": game.rules.komi,
            "rules": game.rules.name,
            "handicap": game.handicap,
            "player": self.player,
            "board": game.board.ravel().tolist(),
            "to_play": COLOR_NAMES[game.to_play],
            "first": COLOR_NAMES[game.first_to_play],
            "human": COLOR_NAMES[self.human],
            "moves": _vertices(game.moves, size),
            "last": None if last is None else coords.to_gtp(last, size),
            "captures": {"black": game.captures(BLACK), "white": game.captures(WHITE)},
            "legal": _vertices(legal, size),
            "thinking": self.thinking,
            "over": over,
            "result": result,
            "score": score,
            "dead": dead,
            "owners": owners,
            "counted_by": counted_by,
            "winrates": list(self.winrates),
            "scores": list(self.scores),
        }

    def _game(self) -> Game:
        if self.game is None:
            raise SessionError('no game yet: start one with {"type": "new", ...}')
        return self.game

    def _person_to_move(self) -> Game:
        game = self._game()
        if self.over:
            raise SessionError("the game is over")
        if self.thinking or game.to_play != self.human:
            raise SessionError(f"not your turn: {self.player} is to move")
        return game

    @staticmethod
    def _color_of(game: Game, index: int) -> int:
        """The colour that played ``game.moves[index]`` (turns alternate, passes included)."""
        return game.first_to_play if index % 2 == 0 else 3 - game.first_to_play

    def _player(self, message: Message) -> tuple[str, str]:
        """The name and spec of the player a ``new`` message asks for (a spec is its own name)."""
        spec = message.get("spec")
        if spec is not None:
            if not self.allow_spec:
                raise SessionError("this server offers only its players (start it with --allow-spec)")
            if not isinstance(spec, str) or not spec.strip():
                raise SessionError("spec is a player's spec string")
            return spec, spec
        name, players = message.get("player"), self.players()
        if not isinstance(name, str) or name not in players:
            raise SessionError(f"unknown player {name!r}; offered: {', '.join(players)}")
        return name, players[name]

    def _move(self, game: Game, move: int) -> None:
        """Play a move of the person's (``SessionError`` with go_env's reason if illegal)."""
        try:
            game.play(move)
        except IllegalMoveError as error:
            raise SessionError(str(error)) from None
        self._played(game, move)
        self._next_turn()

    def _played(self, game: Game, move: int) -> None:
        """Record a move just played: its win rate and lead, and the player's news of it."""
        self.winrates.append(self._estimate)
        self.scores.append(self._score)
        self._forget_estimates()
        self._epoch += 1
        assert self.seat is not None
        self.seat.heard(game.copy(), move)

    def _next_turn(self) -> None:
        """Send the state; then the player thinks, or analyses the person's position; or, at
        the end, the game is counted (in a thread where the dead stones are judged)."""
        game = self._game()
        if self.over:
            if judges_dead_stones(game):
                self._start(self._count(game.copy(), self._epoch))
            else:
                self.settled = settle_final(game)
        elif game.to_play != self.human:
            self.thinking = True
            self._stop = threading.Event()
            self._start(self._agent_turn(self._epoch, self._stop))
        self.emit(self.state())
        if not self.over and game.to_play == self.human:
            self._start(self._hint(self._epoch))

    def _forget_estimates(self) -> None:
        """The position changed: what was said of the last one is no more, and its analysis stops."""
        self._estimate = self._score = self._best = None
        self._ponder_stop.set()

    def _drop_work(self) -> None:
        """Whatever the player is doing (or the count) is for a position that is no more."""
        self._epoch += 1
        self._stop.set()
        self._ponder_stop.set()
        self.thinking = False
        self.settled = None

    def _start(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(self._tasks.discard)

    # -- the player's side: every call in a thread, one at a time ------------------------------

    async def _agent_turn(self, epoch: int, stop: threading.Event) -> None:
        game, seat = self._game(), self.seat
        assert seat is not None
        loop = asyncio.get_running_loop()

        def post(message: Message) -> None:  # from the thread
            loop.call_soon_threadsafe(self._emit_if_current, epoch, message)

        try:
            move, estimate, score = await asyncio.to_thread(self._think, seat, game.copy(), stop, post)
        except Exception as error:  # a failing player loses, the session goes on
            if epoch == self._epoch:
                self.thinking = False
                self.loser = (game.to_play, "F")
                failure = f"{self.player} failed: {type(error).__name__}: {error}"
                self.emit({"type": "error", "message": failure})
                self.emit(self.state())
            return
        if epoch != self._epoch:
            return
        self.thinking = False
        self._estimate, self._score = _number(estimate), _number(score, 2)
        if move == RESIGN:
            self.loser = (game.to_play, "R")
            self.emit(self.state())
            return
        try:
            game.play(move)
        except (IllegalMoveError, TypeError) as error:
            self.loser = (game.to_play, "F")
            self.emit({"type": "error", "message": f"{self.player} played an illegal move: {error}"})
            self.emit(self.state())
            return
        self._played(game, move)
        self._next_turn()

    def _think(
        self, seat: _Seat, game: Game, stop: threading.Event, post: Callable[[Message], None]
    ) -> tuple[int, float | None, float | None]:
        """The player's move in ``game`` and Black's win rate and lead by its analysis (in a
        thread). ``random`` passes after a pass when nothing is left to play."""
        with seat.calls:
            agent = seat.told()
            passed = game.moves[-1:] == [game.pass_move]
            if isinstance(agent, RandomAgent) and passed and nothing_left_to_play(game):
                return game.pass_move, None, None
            if not isinstance(agent, AnalysisAgent):
                if self.show_analysis and (isinstance(agent, (OwnershipAgent, PolicyAgent))):
                    post(analysis_message(agent, game, None))
                return agent.select_move(game), None, None
            maps = analysis_message(agent, game, None, with_maps=self.show_analysis)
            maps = {"ownership": maps["ownership"], "policy": maps["policy"]}
            latest: list[MoveInfo] = []
            sent: list[MoveInfo] | None = None
            sent_at = -math.inf

            def send(infos: list[MoveInfo]) -> None:
                nonlocal sent, sent_at
                sent, sent_at = infos, time.monotonic()
                if self.show_analysis:
                    post({**analysis_message(agent, game, infos, with_maps=False), **maps})

            def report(infos: list[MoveInfo]) -> None:
                nonlocal latest
                latest = infos
                if time.monotonic() - sent_at >= 1.0 / REPORTS_PER_SECOND:
                    send(infos)

            move = agent.analyze(game, stop.is_set, report, 1.0 / REPORTS_PER_SECOND)
            if latest and latest is not sent:  # the last word, however soon after the one before
                send(latest)
            return move, black_winrate(latest, game.to_play), black_score(latest, game.to_play)

    async def _hint(self, epoch: int) -> None:
        """The person's position analysed: by a player that answers at once, once; by a search
        player, as it searches (``_ponder``)."""
        seat = self.seat
        if seat is None or not self.show_analysis:
            return
        if not answers_at_once(seat.agent):
            await self._ponder(epoch)
            return
        if not isinstance(seat.agent, (AnalysisAgent, OwnershipAgent, PolicyAgent)):
            return
        game = self._game().copy()
        try:
            message = await asyncio.to_thread(_analyse_now, seat, game)
        except Exception as error:
            if epoch == self._epoch:
                self.emit({"type": "error", "message": f"{self.player}'s analysis failed: {error}"})
            return
        self._pondered(epoch, message)

    async def _ponder(self, epoch: int) -> None:
        """The person's position analysed by the search player until they move, the page
        leaves or the analysis is switched off, ``PONDER_SECONDS`` at most (as KaTrain and
        Lizzie ponder); its reports are sent as the player's own search's are."""
        seat = self.seat
        if seat is None or not isinstance(seat.agent, AnalysisAgent) or isinstance(seat.agent, GTPAgent):
            return
        stop = self._ponder_stop = threading.Event()
        game = self._game().copy()
        loop = asyncio.get_running_loop()

        def post(message: Message) -> None:  # from the thread
            loop.call_soon_threadsafe(self._pondered, epoch, message)

        self._pondering = True
        try:
            await asyncio.to_thread(_ponder, seat, game, stop, post, PONDER_SECONDS)
        except Exception as error:
            if epoch == self._epoch and not stop.is_set():
                self.emit({"type": "error", "message": f"{self.player}'s analysis failed: {error}"})
        finally:
            if stop is self._ponder_stop:
                self._pondering = False

    def _pondered(self, epoch: int, message: Message) -> None:
        """An analysis of the person's position: kept as its estimates, and sent."""
        if epoch != self._epoch or not self.show_analysis or self.thinking:
            return
        self._estimate, self._score = message["winrate"], message["score_lead"]
        self._best = message["moves"][0]["move"] if message["moves"] and message["visits"] else self._best
        self.emit({**message, "ponder": True})

    async def _count(self, game: Game, epoch: int) -> None:
        """Count ``game``, just ended, its dead stones judged in a thread; then send the state."""
        settled = await asyncio.to_thread(settle_final, game)
        if epoch == self._epoch:
            self.settled = settled
            self.emit(self.state())

    def _emit_if_current(self, epoch: int, message: Message) -> None:
        if epoch == self._epoch and self.show_analysis:
            self.emit(message)


class _Seat:
    """A session's player and what its calls share: one call at a time (``calls``, held by
    whoever calls it), and the moves played that it has not been told of yet; ``kill`` ends
    the call under way of a player that runs in a process (None: it is stopped otherwise)."""

    def __init__(self, agent: Agent, kill: Callable[[], None] | None = None):
        self.agent = agent
        self.kill = kill
        self.calls = threading.Lock()
        self._news: list[tuple[Game, int]] = []
        self._news_lock = threading.Lock()  # the event loop adds news while a call runs

    def heard(self, game: Game, move: int) -> None:
        """``move`` was just played, giving ``game``; the player hears of it before its next call."""
        with self._news_lock:
            self._news.append((game, move))

    def told(self) -> Agent:
        """The player, told of the moves played since its last call (``MoveObserver``)."""
        with self._news_lock:
            news, self._news = self._news, []
        if isinstance(self.agent, MoveObserver):
            for game, move in news:
                self.agent.observe_move(game, move)
        return self.agent

    def reset(self, context: GameContext) -> None:
        """A new start (after an undo): the player forgets what it searched, and the news."""
        with self.calls:
            with self._news_lock:
                self._news = []
            self.agent.reset(context)

    def close(self) -> None:
        """Close the player once its last call has returned, at once for one killed."""
        if self.kill is not None:
            self.kill()
        if isinstance(self.agent, Closeable):
            with self.calls:
                self.agent.close()


def _build(spec: str, context: GameContext) -> _Seat:
    """The player of ``spec``, reset for the game (in a thread: networks load). It is
    nobody's yet: the player of the game in play may go on thinking meanwhile.

    A search that cannot be stopped (a ``MoveTimeAgent`` without ``analyze``) runs in a process
    of its own (``RemotePlayer``), and an engine is one: either is killed when its game ends."""
    try:
        factory = player_factory(spec)
        if _cannot_stop(factory):
            remote = RemotePlayer(spec, context)
            return _Seat(remote, kill=remote.kill)
        agent = make_agent(spec)
    except AgentSpecError as error:
        raise SessionError(str(error)) from None
    except (UnsupportedGame, ValueError) as error:  # raised by RemotePlayer's reset
        raise SessionError(f"{spec} cannot play this game: {error}") from None
    try:
        agent.reset(context)
    except (UnsupportedGame, ValueError) as error:
        if isinstance(agent, Closeable):
            agent.close()
        raise SessionError(f"{spec} cannot play this game: {error}") from None
    return _Seat(agent, kill=agent.process.kill if isinstance(agent, GTPAgent) else None)


def _cannot_stop(factory: Callable[..., Agent]) -> bool:
    """Whether the players ``factory`` builds search (``MoveTimeAgent``) with no way to be
    stopped mid-move (no ``analyze``)."""
    return (
        inspect.isclass(factory)
        and issubclass(factory, MoveTimeAgent)
        and not issubclass(factory, AnalysisAgent)
        and not issubclass(factory, GTPAgent)
    )


def _replay_moves(game: Game, moves: Any) -> list[tuple[Game, int]]:
    """Play ``moves`` (GTP vertices: a game resumed after a reload) in ``game``; each position
    and move played, else ``SessionError`` saying which move is wrong."""
    if not isinstance(moves, list) or not all(isinstance(vertex, str) for vertex in moves):
        raise SessionError('"moves" is a list of vertices such as "D4" or "pass"')
    played = []
    for number, vertex in enumerate(moves, 1):
        if game.is_over:
            raise SessionError(f"the game is over before move {number}")
        try:
            move = coords.from_gtp(vertex, game.size)
            game.play(move)
        except (ValueError, IllegalMoveError) as error:
            raise SessionError(f"move {number} ({vertex[:8]!r}): {error}") from None
        played.append((game.copy(), move))
    return played


def _ponder(
    seat: _Seat, game: Game, stop: threading.Event, post: Callable[[Message], None], seconds: float
) -> None:
    """Analyse ``game``'s position until ``stop`` or ``seconds`` (in a thread): the player's
    search past its own budget (``PonderingAgent.ponder``, as GTP's ``kata-analyze`` runs it),
    else its ``analyze`` run again and again on its kept tree while each run adds visits; its
    reports sent through ``post`` (at most ``REPORTS_PER_SECOND``, the last one always)."""
    deadline = time.monotonic() + seconds

    def done() -> bool:
        return stop.is_set() or time.monotonic() >= deadline

    with seat.calls:
        agent = seat.told()
        assert isinstance(agent, AnalysisAgent)
        if done():
            return
        maps = analysis_message(agent, game, None)
        maps = {"ownership": maps["ownership"], "policy": None}
        latest: list[MoveInfo] = []
        sent: list[MoveInfo] | None = None
        sent_at = -math.inf

        def send(infos: list[MoveInfo]) -> None:
            nonlocal sent, sent_at
            sent, sent_at = infos, time.monotonic()
            post({**analysis_message(agent, game, infos, with_maps=False), **maps})

        def report(infos: list[MoveInfo]) -> None:
            nonlocal latest
            latest = infos
            if time.monotonic() - sent_at >= 1.0 / REPORTS_PER_SECOND:
                send(infos)

        visits = 0
        if isinstance(agent, PonderingAgent):  # one search past its own budget, as GTP's analysis
            agent.ponder(game.copy(), done, report, 1.0 / REPORTS_PER_SECOND)
        while not done() and not isinstance(agent, PonderingAgent):
            agent.analyze(game.copy(), done, report, 1.0 / REPORTS_PER_SECOND)
            now = sum(info.visits for info in latest)
            if now <= visits:  # no tree kept between runs, or the search can go no further
                break
            visits = now
        if latest and latest is not sent and not stop.is_set():
            send(latest)


def _best_move(seat: _Seat, game: Game, stop: threading.Event) -> str:
    """The move the player would play in ``game`` (a hint; in a thread): its analysis's best
    (its own budget, or until ``stop``), else its policy's, else ``UnsupportedGame``."""
    with seat.calls:
        agent = seat.told()
        if isinstance(agent, AnalysisAgent):
            move = agent.analyze(game.copy(), stop.is_set, lambda infos: None, 1.0)
        elif isinstance(agent, PolicyAgent):
            move = int(np.argmax(agent.policy(game)))
        else:
            raise UnsupportedGame(f"{agent.name} has no analysis to give a hint from")
    return coords.to_gtp(move, game.size)


def _analyse_now(seat: _Seat, game: Game) -> Message:
    """The analysis of ``game``'s position by a player that answers at once (in a thread)."""
    with seat.calls:
        agent = seat.told()
        reports: list[list[MoveInfo]] = []
        if isinstance(agent, AnalysisAgent):
            agent.analyze(game.copy(), lambda: True, reports.append, 1.0)
        return analysis_message(agent, game, reports[-1] if reports else None)
