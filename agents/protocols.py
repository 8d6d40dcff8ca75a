"""The one interface every player implements, and the optional capabilities a player may add.

A player is anything with a ``name``, ``reset(context)`` and ``select_move(game) -> int``
(the ``Agent`` protocol). ``reset`` starts a game; its ``GameContext`` says which (board
size, rules, the player's colour), the seed the player's random generator restarts from,
and where a network player runs (``device``) and may write (``run_dir``). A player refuses
a game it cannot play (a network trained for 9x9 asked for 19x19) by raising
``UnsupportedGame`` there. Every caller (a league, the referee, the GTP engine, the
Gymnasium env) builds a player once and resets it with a context before each game.

Players written before contexts, whose ``reset(rules)`` reads the rules' fields from what it
is given, keep working for now: a ``GameContext`` answers ``context.komi`` (and every other
field of ``Rules``) from ``context.rules``, with a ``DeprecationWarning`` that says to read
``context.rules.komi``. The built-in players refuse a bare ``Rules`` with a ``TypeError``.

Optional capabilities are protocols of their own, checked with ``isinstance``:
``PolicyAgent`` (``policy(game)``, a move distribution), ``Actor`` (``act(game)``, the move
with the policy and value behind it), ``MoveObserver`` (``observe_move(game, move)``, told
of every move played, both sides), ``WeightedAgent`` (``weights_digest()``, the sha256
of its weights, which leagues record beside its spec) and ``BatchAgent``
(``select_moves(batch)``, a move in each of many games at once, as ``GoVectorEnv`` asks).
Players that hold resources (an engine subprocess) also have ``close()`` (``Closeable``);
engines that pass with dead stones on the board capture them on request (``CleanupPlayer``)
and name them (``StatusReporter``);
search players can stream their live analysis (``AnalysisAgent``, for GTP ``lz-analyze``), and
players with an ownership network give each point's final owner (``OwnershipAgent``, for GTP
``kata-analyze ... ownership true`` and ``goarena show ownership``).

A player declares the numba kernels it needs compiled by a ``warmup(size)`` static or class
method on its factory (``Warmable``): it runs them on a small position, without loading any
weights. ``player_warmup(spec)`` finds it from a spec string; the league, ``goarena warmup``
and ``goarena gtp`` call it before the first timed move, so that a cold numba cache costs
start-up time, not a game lost on time.

A player that budgets its time from GTP's clock commands itself is a ``TimedAgent`` (an external
engine: the clock is passed on); a player whose time per move can be capped from outside is a
``MoveTimeAgent`` (the search players: the GTP engine budgets each move from the clock and
calls ``set_move_time`` before it).

Spec strings, which build players by name, are in ``goarena.agents.specs``.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from go_env import Game, GameBatch, Rules
from go_env.game import RESIGN as RESIGN  # players import it from here


class UnsupportedGame(ValueError):
    """A player cannot play the game it is asked to (its board size or rules)."""


def check_board_size(trained: int, asked: int, weights: str = "the network was") -> None:
    """Refuse (``UnsupportedGame``) an ``asked`` x ``asked`` game to a player whose ``weights``
    (named with their verb in the message) were made for ``trained`` x ``trained``."""
    if trained != asked:
        raise UnsupportedGame(f"{weights} trained for {trained}x{trained}, not {asked}x{asked}")


@dataclass(frozen=True)
class GameContext:
    """What a player learns at ``reset``: the game it is about to play, and how to play it.

    Attributes:
        size: board size.
        rules: the rules.
        seed: the seed to restart the player's random generator from (players built with a
            seed of their own keep to it); None keeps the generator running.
        color: the player's colour (BLACK or WHITE), None when it plays both or is unknown.
        device: where a network runs (``"cpu"``, ``"cuda"``, ``"cuda:1"``).
        run_dir: a directory the player may write to (logs, caches), if any.
        dead_stones_removed: whether a game ended by two passes has its dead stones taken
            off before the count (by agreement, an arbiter or a clean-up phase: a league
            with an engine, GTP under Chinese or Japanese rules, KGS); False: the board is
            counted as it stands (Tromp-Taylor), so a player must capture dead stones itself.
    """

    size: int
    rules: Rules
    seed: int | None = None
    color: int | None = None
    device: str = "cpu"
    run_dir: Path | None = None
    dead_stones_removed: bool = False

    def __getattr__(self, name: str) -> Any:
        """A field of ``Rules`` (``context.komi``), for players written for ``reset(rules)``:
        deprecated, read ``context.rules`` instead."""
        rules = self.__dict__.get("rules")  # absent while unpickling: never recurse
        if name in _RULES_ATTRIBUTES and rules is not None:
            warnings.warn(
                f"reset(context) is given a GameContext, not Rules: read context.rules.{name} "
                f"rather than context.{name} (Rules' fields on a GameContext go in a later release)",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(rules, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


# What a reset(rules) player may read from its argument (see GameContext.__getattr__).
_RULES_ATTRIBUTES = frozenset(f.name for f in fields(Rules)) | {"move_cap", "kernel_rules", "to_dict"}


def game_context(context: object) -> GameContext:
    """``context``, checked to be a ``GameContext``: a built-in player's ``reset`` refuses
    anything else (a bare ``Rules`` from a caller written before contexts) with a TypeError
    that names the fix."""
    if isinstance(context, GameContext):
        return context
    if isinstance(context, Rules):
        raise TypeError("reset takes a GameContext, not Rules: call player.reset(GameContext(size, rules))")
    raise TypeError(f"reset takes a GameContext, got {type(context).__name__}")


@runtime_checkable
class Agent(Protocol):
    """A player. ``select_move`` must not change ``game``; it returns a legal move or RESIGN."""

    name: str

    def reset(self, context: GameContext) -> None: ...

    def select_move(self, game: Game) -> int: ...


def restart_seed(own: int | None, context: GameContext) -> int | None:
    """The seed a player restarts its random generator from at ``reset``: its own, else the
    context's; None (no seed anywhere) keeps the generator running."""
    return own if own is not None else game_context(context).seed


@runtime_checkable
class Warmable(Protocol):
    """A player (or its factory) that declares the numba kernels it needs compiled."""

    @staticmethod
    def warmup(size: int) -> None:
        """Run every kernel the player uses on a small ``size`` x ``size`` position (they
        serve every size), loading no weights: numba compiles them, or loads them from its
        cache, now rather than in the player's first timed move."""
        ...


@dataclass(frozen=True)
class Action:
    """A move with what the player based it on: for analysis, training targets, the web board."""

    move: int  # a point, N*N (pass) or RESIGN
    policy: np.ndarray | None = None  # float[N*N+1], the move distribution (sums to 1)
    value: float | None = None  # the position's value for the side to move, in [-1, 1]
    ownership: np.ndarray | None = None  # float[N*N], each point's final owner, +1 the side to move's


@runtime_checkable
class Actor(Protocol):
    def act(self, game: Game) -> Action:
        """What ``select_move(game)`` would do (and counts as that call), with its reasons."""
        ...


@runtime_checkable
class BatchAgent(Protocol):
    def select_moves(self, batch: GameBatch) -> np.ndarray:
        """int64[B]: a move for the side to move in each game of ``batch`` (all running; left
        unchanged), chosen as ``select_move`` would, in one call: a network's one forward pass,
        a search's one tree per game. The player is reset once for all the games (its context's
        colour None) and is not told of the moves played (``observe_move``), so it keeps no
        state of a game between calls."""
        ...


@runtime_checkable
class WeightedAgent(Protocol):
    def weights_digest(self) -> str | None:
        """The sha256 (hex) of the player's weights, None when it has none."""
        ...


def files_digest(paths: Iterable[Path | str]) -> str:
    """The sha256 (hex) of the bytes of the files at ``paths``, in order: the weights digest of a
    player whose files are not checkpoints (a checkpoint's is the sha256 of its weights that it
    records: ``nets.checkpoint.weights_digest``)."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


@runtime_checkable
class PolicyAgent(Protocol):
    def policy(self, game: Game) -> np.ndarray:
        """float[N*N + 1]: the player's move distribution in ``game`` (sums to 1)."""
        ...


@runtime_checkable
class MoveObserver(Protocol):
    def observe_move(self, game: Game, move: int) -> None:
        """``move`` was just played in ``game`` (by either side); e.g. to reuse a search tree."""
        ...


@runtime_checkable
class Closeable(Protocol):
    def close(self) -> None: ...


@runtime_checkable
class StatusReporter(Protocol):
    def final_status_list(self, game: Game, status: str) -> list[int]:
        """The points of the stones judged ``alive``, ``dead`` or ``seki`` in ``game``
        (GTP's ``final_status_list``)."""
        ...


@runtime_checkable
class CleanupPlayer(Protocol):
    def cleanup_move(self, game: Game) -> int:
        """A move of the clean-up phase after both passed: dead stones must be captured
        before the area count (GTP's ``kgs-genmove_cleanup``). Players that play their games
        out anyway need not have it."""
        ...


@dataclass(frozen=True)
class MoveInfo:
    """One candidate move of a search's live analysis (as GTP ``lz-analyze`` reports it)."""

    move: int  # 0..N*N-1, or N*N for pass
    visits: int
    winrate: float  # for the side to move, 0..1
    prior: float  # 0..1
    lcb: float  # lower confidence bound of the winrate, 0..1
    pv: tuple[int, ...]  # principal variation, starting with ``move``
    score_lead: float | None = None  # points the side to move leads by after it (komi in), if known


@runtime_checkable
class AnalysisAgent(Protocol):
    def analyze(
        self,
        game: Game,
        stop: Callable[[], bool],
        report: Callable[[list[MoveInfo]], None],
        interval: float,
    ) -> int:
        """Search ``game`` until ``stop()`` is true (or the player's own budget runs out when
        ``stop`` never fires), calling ``report`` with the candidates, best first, about every
        ``interval`` seconds; return the move the search would play."""
        ...


@runtime_checkable
class OwnershipAgent(Protocol):
    def ownership(self, game: Game) -> np.ndarray | None:
        """float32[N*N] in [-1, 1], row by row from the top left: each point's final owner as
        the player's network sees ``game``'s position, +1 the side to move's, -1 the opponent's;
        None where its network has no ownership head."""
        ...


def analyze_policy(policy: np.ndarray, report: Callable[[list[MoveInfo]], None]) -> int:
    """``AnalysisAgent.analyze`` for a player without search, whose budget is spent at once:
    one report of its policy's candidates (prior above 0.1%, at most 20, best first) with 0
    visits and no win rate estimate (reported as 50%, lcb 0); returns the best."""
    order = np.argsort(-policy, kind="stable")
    shown = [int(move) for move in order[:20] if policy[move] > 0.001] or [int(order[0])]
    report([MoveInfo(move, 0, 0.5, float(policy[move]), 0.0, (move,)) for move in shown])
    return shown[0]


@runtime_checkable
class TimedAgent(Protocol):
    """A player that budgets its time from GTP's clock commands (seconds; colour BLACK/WHITE)."""

    def time_settings(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None: ...

    def time_left(self, color: int, seconds: float, stones: int) -> None: ...


@runtime_checkable
class MoveTimeAgent(Protocol):
    def set_move_time(self, seconds: float | None) -> None:
        """Answer each move from now on within ``seconds`` of its call (``select_move``,
        ``act``, ``policy``, ``analyze``), the player's own budget (``seconds=``,
        ``simulations=``) still capping it; None: the player's own budget alone. The GTP
        engine calls it before every move with the budget its clock gives."""
        ...


def move_time(seconds: float | None) -> float | None:
    """``set_move_time``'s argument, checked: None or a positive number of seconds."""
    if seconds is not None and not seconds > 0:
        raise ValueError(f"a move's time must be positive, got {seconds}")
    return seconds
