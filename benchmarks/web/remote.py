"""A player in a process of its own, for a search that cannot be stopped mid-move.

The web board stops a search run by ``analyze`` through its ``stop`` callback once the browser
leaves; a search with only ``select_move`` (``minimax``, ``expectimax``) would go on to its
end, holding a thread and a core for nobody. ``RemotePlayer`` builds such a player in a
spawned process and forwards its calls there, so that ``kill`` ends the search at once: the
call waiting for it then raises ``PlayerStopped``.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing.connection import Connection
from typing import Any

from go_env.game import BLACK, Game
from go_env.rules import Rules
from goarena.agents.protocols import GameContext
from goarena.agents.specs import make_agent


class PlayerStopped(RuntimeError):
    """The player's process was killed (or died) before it answered."""


class RemotePlayer:
    """The player of ``spec``, built and reset for ``context`` in a process of its own (its
    errors, a bad spec's included, raised here as they were raised there)."""

    def __init__(self, spec: str, context: GameContext):
        spawn = multiprocessing.get_context("spawn")  # a clean process, whatever threads run here
        self._connection, theirs = spawn.Pipe()
        self._process = spawn.Process(target=_serve, args=(theirs, spec, context), name="player", daemon=True)
        self._process.start()
        theirs.close()
        try:
            self.name: str = self._answer()
        except BaseException:
            self.kill()
            raise

    def reset(self, context: GameContext) -> None:
        self._call("reset", context)

    def select_move(self, game: Game) -> int:
        return self._call("select_move", _record(game))

    def observe_move(self, game: Game, move: int) -> None:
        self._call("observe_move", _record(game), move)

    def kill(self) -> None:
        """End the process now, whatever it is doing (from any thread)."""
        self._process.kill()

    def close(self) -> None:
        self.kill()
        self._process.join()
        self._connection.close()

    def _call(self, method: str, *args: Any) -> Any:
        try:
            self._connection.send((method, args))
        except OSError:
            raise PlayerStopped(f"{self.name} was stopped") from None
        return self._answer()

    def _answer(self) -> Any:
        try:
            ok, value = self._connection.recv()
        except (EOFError, OSError):
            raise PlayerStopped("the player was stopped") from None
        if not ok:
            raise value
        return value


# A game as it is sent (its start and its moves): a Game's own pickle does not give numba's
# kernels arrays they take.
Record = tuple[int, Rules, list[int], list[int], int, int, list[int]]


def _record(game: Game) -> Record:
    first = game.first_to_play
    setup = (list(game.setup_black), list(game.setup_white))
    return game.size, game.rules, *setup, first, game.handicap, [int(move) for move in game.moves]


def _game(record: Record) -> Game:
    size, rules, black, white, first, handicap, moves = record
    game = Game(size, rules)
    if black or white or first != BLACK:
        game.setup(black, white, first)
    game.handicap = handicap
    game.replay(moves, resume=True)
    return game


def _serve(connection: Connection, spec: str, context: GameContext) -> None:
    """The process's side: build the player, then answer calls until the parent is gone."""
    try:
        agent = make_agent(spec)
        agent.reset(context)
        connection.send((True, agent.name))
    except Exception as error:
        connection.send((False, error))
        return
    while True:
        try:
            method, args = connection.recv()
        except EOFError:
            return
        try:
            answer = None
            if method == "reset":
                agent.reset(*args)
            elif (call := getattr(agent, method, None)) is not None:  # observe_move: if it observes
                record, *rest = args
                answer = call(_game(record), *rest)
            connection.send((True, answer))
        except Exception as error:
            connection.send((False, error))
