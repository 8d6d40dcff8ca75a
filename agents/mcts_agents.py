"""Tree-search players: ``UCTAgent`` (random playouts) and ``PUCTAgent`` (an evaluator's priors).

Both are ``Agent``, ``PolicyAgent`` (the root's visit distribution), ``MoveObserver`` (the
search tree follows the moves played, for reuse) and ``AnalysisAgent`` (live candidates for
GTP ``lz-analyze``). Their options are plain keywords, so spec strings reach them all::

    uct:playouts=2000,c=1.4,rave=true
    uct:seconds=1.5,reuse=false
    puct:simulations=800,evaluator=rollout,batch=16
    puct:noise=0.25,temperature=1.0,temperature_moves=30,seed=7     # self-play

A player searches each position once: ``policy`` and then ``select_move`` on the same
position share one search.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from agents.base import RESIGN, MoveInfo
from go_env import Game, Rules
from search import PUCT, UCT, Candidate, Evaluator, Leaves, RolloutEvaluator, TreeSearch, UniformEvaluator

EvaluatorSpec = str | Evaluator | Callable[[Leaves], tuple[np.ndarray, np.ndarray]]


def move_info(candidate: Candidate) -> MoveInfo:
    """A search candidate as analysis reports it: win rate in [0, 1] for the side to move,
    and the lower bound of its 95% Wilson score interval as ``lcb``."""
    winrate = (candidate.value + 1.0) / 2.0
    n, z2 = candidate.visits, 1.96**2
    centre = winrate + z2 / (2 * n)
    spread = math.sqrt(z2 * (winrate * (1.0 - winrate) / n + z2 / (4 * n * n)))
    return MoveInfo(
        move=candidate.move,
        visits=n,
        winrate=winrate,
        prior=candidate.prior,
        lcb=max(0.0, (centre - spread) / (1.0 + z2 / n)),
        pv=candidate.pv,
    )


class _SearchAgent:
    """What the search players share: budgets, one search per position, analysis, resigning."""

    name: str

    def __init__(
        self,
        searcher: TreeSearch,
        simulations: int | None,
        seconds: float | None,
        resign_threshold: float | None,
    ):
        if simulations is not None and simulations < 1:
            raise ValueError(f"the simulation budget must be positive, got {simulations}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds must be positive, got {seconds}")
        self.searcher = searcher
        self.simulations = simulations
        self.seconds = seconds
        self.resign_threshold = resign_threshold
        self._searched: tuple | None = None  # the position of the last search

    @staticmethod
    def _position(game: Game) -> tuple:
        return (game.size, game.rules, tuple(game.setup_black), tuple(game.setup_white), tuple(game.moves))

    def _search(self, game: Game) -> None:
        position = self._position(game)
        if position != self._searched:
            self.searcher.search(game, simulations=self.simulations, seconds=self.seconds)
            self._searched = position

    def _temperature(self, game: Game) -> float:
        return 0.0

    def reset(self, rules: Rules) -> None:
        self.searcher.reset()
        self._searched = None

    def select_move(self, game: Game) -> int:
        self._search(game)
        if self.resign_threshold is not None:
            best = self.searcher.best_move()
            if (self.searcher.values()[best] + 1.0) / 2.0 < self.resign_threshold:
                return RESIGN
        return self.searcher.choose_move(self._temperature(game))

    def policy(self, game: Game) -> np.ndarray:
        """float64[N*N+1]: the root's visit distribution (the training target of self-play)."""
        self._search(game)
        return self.searcher.visit_distribution()

    def observe_move(self, game: Game, move: int) -> None:
        self._searched = None  # the tree's root moves on: the last search's answer is stale
        if self.searcher.reuse and not game.is_over:
            self.searcher.sync(game)

    def analyze(
        self,
        game: Game,
        stop: Callable[[], bool],
        report: Callable[[list[MoveInfo]], None],
        interval: float,
    ) -> int:
        """Search until ``stop()`` or the player's budget, reporting the candidates as it goes."""
        move = self.searcher.search(
            game,
            simulations=self.simulations,
            seconds=self.seconds,
            stop=stop,
            report=lambda candidates: report([move_info(c) for c in candidates]),
            interval=interval,
        )
        self._searched = self._position(game)
        return move


class UCTAgent(_SearchAgent):
    """UCT with random playouts (see ``search.uct``).

    Args:
        playouts: simulations per move (default 1000 when ``seconds`` is not given).
        seconds: time per move; with ``playouts`` too, the first limit reached ends the search.
        c: exploration constant (values in [-1, 1]).
        rave: blend in all-moves-as-first values (MC-RAVE).
        rave_equivalence: RAVE's ``k``, the visits at which a move's own and AMAF values weigh the same.
        reuse: keep the search tree of the moves played between searches.
        resign_threshold: resign when the best move's win rate falls below it (None: never).
        seed: seed of the search's random generator.
    """

    def __init__(
        self,
        playouts: int | None = None,
        seconds: float | None = None,
        c: float = 0.5,
        rave: bool = False,
        rave_equivalence: float = 1000.0,
        reuse: bool = True,
        resign_threshold: float | None = None,
        seed: int | None = None,
    ):
        if playouts is None and seconds is None:
            playouts = 1000
        searcher = UCT(c=c, rave=rave, rave_equivalence=rave_equivalence, reuse=reuse, seed=seed)
        super().__init__(searcher, playouts, seconds, resign_threshold)
        self.name = "uct"


class PUCTAgent(_SearchAgent):
    """PUCT over an evaluator (see ``search.puct``).

    Args:
        simulations: simulations per move (default 800 when ``seconds`` is not given).
        seconds: time per move; with ``simulations`` too, the first limit reached ends the search.
        evaluator: ``"uniform"`` (uniform priors, value 0), ``"rollout"`` (uniform priors,
            value from ``rollouts`` random playouts), an ``Evaluator``, or a callable
            ``f(leaves) -> (priors, values)``.
        rollouts: playouts per leaf for ``evaluator="rollout"``.
        c_puct: exploration constant.
        batch: leaves per evaluator call.
        noise: weight ε of Dirichlet noise in the root's priors (0: none; 0.25 for self-play).
        dirichlet_alpha: the noise's α (None: 10 / number of legal moves).
        temperature: moves are drawn in proportion to ``visits^(1/temperature)``; 0 plays
            the most visited move.
        temperature_moves: play with ``temperature`` for this many moves of the game, then
            the most visited move (None: the whole game).
        reuse: keep the search tree of the moves played between searches.
        resign_threshold: resign when the best move's win rate falls below it (None: never).
        seed: seed of the noise, the move choice and the rollouts.
    """

    def __init__(
        self,
        simulations: int | None = None,
        seconds: float | None = None,
        evaluator: EvaluatorSpec = "uniform",
        rollouts: int = 1,
        c_puct: float = 1.5,
        batch: int = 8,
        noise: float = 0.0,
        dirichlet_alpha: float | None = None,
        temperature: float = 0.0,
        temperature_moves: int | None = None,
        reuse: bool = True,
        resign_threshold: float | None = None,
        seed: int | None = None,
    ):
        if simulations is None and seconds is None:
            simulations = 800
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        if evaluator == "uniform":
            evaluator = UniformEvaluator()
        elif evaluator == "rollout":
            evaluator = RolloutEvaluator(rollouts, seed=seed)
        elif isinstance(evaluator, str):
            raise ValueError(f"unknown evaluator {evaluator!r}: 'uniform', 'rollout', or an Evaluator")
        searcher = PUCT(
            evaluator,
            c_puct=c_puct,
            batch=batch,
            noise=noise,
            dirichlet_alpha=dirichlet_alpha,
            reuse=reuse,
            seed=seed,
        )
        super().__init__(searcher, simulations, seconds, resign_threshold)
        self.temperature = temperature
        self.temperature_moves = temperature_moves
        self.name = "puct"

    def _temperature(self, game: Game) -> float:
        if self.temperature_moves is None or len(game.moves) < self.temperature_moves:
            return self.temperature
        return 0.0
