"""Brute-force players: alpha-beta minimax and expectimax against an opponent model.

Both are built by spec strings (``minimax:depth=4``, ``minimax:seconds=2``,
``expectimax:depth=2,opponent=random``); a heuristic is then named ``module:function``
(a numba-compiled function, see ``search.minimax.Heuristic``).
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any

from go_env import Game
from goarena.agents.declared import option
from goarena.agents.players.options import OptionsPlayer, PlayerOptions, at_least
from goarena.agents.protocols import GameContext, PolicyAgent, game_context, move_time
from goarena.agents.specs import AgentSpecError, make_agent
from goarena.search.expectimax import OpponentModel, expectimax
from goarena.search.minimax import Heuristic, Minimax, area_heuristic
from goarena.search.warmup import warmup_game as _warmup_game


def _heuristic(heuristic: Heuristic | str | None) -> Heuristic:
    """A heuristic given as itself, as ``"module:function"``, or ``None`` for the default."""
    if heuristic is None:
        return area_heuristic
    if not isinstance(heuristic, str):
        return heuristic
    module, _, attribute = heuristic.partition(":")
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError, ValueError) as error:
        raise AgentSpecError(f"cannot load heuristic {heuristic!r}: {error}") from error


def _opponent(opponent: OpponentModel | PolicyAgent | str | None) -> OpponentModel | None:
    """An opponent model given as a callable, a player with a policy, or its spec string."""
    model = make_agent(opponent) if isinstance(opponent, str) else opponent
    if isinstance(model, PolicyAgent):
        return model.policy
    if model is None or callable(model):
        return model
    raise AgentSpecError(f"an opponent model must be a callable or a player with a policy, got {model!r}")


@dataclass(frozen=True, kw_only=True)
class MinimaxOptions(PlayerOptions):
    depth: int | None = option(
        4, "the deepest iteration in plies; None deepens until seconds run out or the game is solved"
    )
    seconds: float | None = option(None, "time per move; None searches to depth")
    heuristic: Any = option(
        None, "the leaf estimate: a numba function or module:function (default: the area count)"
    )
    tt_size: int = option(1 << 20, "transposition-table entries")

    def check(self) -> None:
        if self.depth is None and self.seconds is None:
            raise ValueError("give a depth, a time budget in seconds, or both")


class MinimaxAgent(OptionsPlayer):
    """Plays the best move of an alpha-beta search with iterative deepening; its options are
    ``MinimaxOptions``'.

    The search's transposition table is kept from move to move (its keys include the game's
    history, so entries stay valid) and cleared by ``reset``.
    """

    Options = MinimaxOptions
    positional = ("depth", "seconds", "heuristic", "tt_size")
    options: MinimaxOptions
    name = "minimax"

    def __init__(self, *args: Any, **options: Any):
        super().__init__(*args, **options)
        self.depth = self.options.depth
        self.seconds = self.options.seconds
        self.searcher = Minimax(_heuristic(self.options.heuristic), tt_size=self.options.tt_size)
        self._move_time: float | None = None

    @classmethod
    def check_files(cls, context: GameContext | None, options: Any) -> None:
        """The heuristic, loaded."""
        _heuristic(options.heuristic)

    def set_move_time(self, seconds: float | None) -> None:
        """Stop deepening once ``seconds`` have run (``MoveTimeAgent``: the GTP engine's budget
        from the clock), ``depth`` and ``seconds`` still capping it; None: those alone. The
        first iteration always completes."""
        self._move_time = move_time(seconds)

    def reset(self, context: GameContext) -> None:
        game_context(context)
        self.searcher.clear()

    @staticmethod
    def warmup(size: int) -> None:
        """Compile the alpha-beta search's kernels (see ``Warmable``)."""
        Minimax(tt_size=64).search(_warmup_game(size), depth=2)

    def select_move(self, game: Game) -> int:
        seconds = self.seconds if self._move_time is None else min(self.seconds or math.inf, self._move_time)
        return self.searcher.search(game, depth=self.depth, seconds=seconds).move


@dataclass(frozen=True, kw_only=True)
class ExpectimaxOptions(PlayerOptions):
    depth: int = option(2, "plies searched", check=at_least(1))
    opponent: Any = option(
        None,
        "the opponent's model: a callable game -> float[N*N+1], a player with a policy, or such a "
        "player's spec (random); None is uniform over the legal moves",
    )
    heuristic: Any = option(None, "the leaf estimate, as minimax's")


class ExpectimaxAgent(OptionsPlayer):
    """Plays the move of best expected value against a model of its opponent (EM recurrence);
    its options are ``ExpectimaxOptions``'."""

    Options = ExpectimaxOptions
    positional = ("depth", "opponent", "heuristic")
    options: ExpectimaxOptions
    name = "expectimax"

    def __init__(self, *args: Any, **options: Any):
        super().__init__(*args, **options)
        self.depth = self.options.depth
        self.opponent = _opponent(self.options.opponent)
        self.heuristic = _heuristic(self.options.heuristic)

    @classmethod
    def check_files(cls, context: GameContext | None, options: Any) -> None:
        """The heuristic, loaded, and the opponent's model, built."""
        _heuristic(options.heuristic)
        _opponent(options.opponent)

    def reset(self, context: GameContext) -> None:
        game_context(context)

    @staticmethod
    def warmup(size: int) -> None:
        """Compile the expectimax search's kernels (see ``Warmable``)."""
        expectimax(_warmup_game(size), 1, None, area_heuristic)

    def select_move(self, game: Game) -> int:
        return expectimax(game, self.depth, self.opponent, self.heuristic).move
