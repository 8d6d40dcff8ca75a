"""A player's win rate against an opponent, in one call: ``evaluate``, and its Stable-Baselines3
callback ``EvaluationCallback``.

``evaluate`` plays a player (an object, such as a ``PolicyPlayer`` over the network being
trained or an ``SB3Agent`` over a model, or a spec string) against an opponent (a spec or an
object) in this process, one game after the other, as a league plays them: each game by the
league's referee (``benchmarks.match.referee.play_game``), colours alternating (the player is
Black in the even games), each player reset with a seed drawn from ``seed`` and, with
``opening_moves``, each pair of games starting from the same random opening, one game with
each colour::

    from goarena.benchmarks.evaluate import evaluate

    result = evaluate(player, "uct:simulations=100", games=20, size=9)
    print(result)  # e.g. policy vs uct:simulations=100: 12/20 = 60% (95% CI 39%-78%); ...
    result.win_rate, result.interval, result.sgfs

A draw counts half a win; the interval is the 95% Wilson score interval of the league's
strength bench (``bench.strength.wilson_interval``). A game the player loses by its own crash
or by refusing the game (``UnsupportedGame``) is no result but a bug: ``evaluate`` raises
``EvaluationError`` with the player's traceback. The opponent's crashes and anyone's illegal
moves are results, as in a league.

``EvaluationCallback`` runs ``evaluate`` every ``eval_freq`` calls during an SB3 ``learn``
(as SB3's ``EvalCallback`` counts them), the model playing as ``SB3Agent`` over it, and logs
``eval/win_rate_vs_<opponent>`` to the model's logger (TensorBoard with ``tensorboard_log``),
keeping the best model so far in ``best_model_save_path``, as ``EvalCallback`` does::

    from goarena.benchmarks.evaluate import EvaluationCallback

    model.learn(100_000, callback=EvaluationCallback("random", eval_freq=5_000, games=20))

(``goarena train sb3`` has its own evaluation, in the agents package, which cannot import
this one: it plays the model greedily in the Gymnasium env.)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback

from go_env import BLACK, EMPTY, Rules
from go_env.rules import default_komi
from goarena.agents.players.sb3 import SB3Agent
from goarena.agents.protocols import Agent, Closeable
from goarena.agents.specs import make_agent
from goarena.benchmarks.bench.strength import wilson_interval
from goarena.benchmarks.league.play import slug
from goarena.benchmarks.league.schedule import random_opening
from goarena.benchmarks.match.referee import GameRecord, play_game


class EvaluationError(RuntimeError):
    """The evaluated player crashed, or refused the game."""


@dataclass(frozen=True)
class EvaluationResult:
    """The games of one evaluation, from the player's side.

    Attributes:
        player: the player's name (its spec, or its ``name``).
        opponent: the opponent's, likewise.
        wins: games the player won.
        losses: games it lost.
        draws: games drawn (an integral komi allows them).
        records: every game, as the referee recorded it (the player is Black in the even ones).
        sgf_paths: the SGF files written, when ``evaluate`` was given an ``sgf_dir``.
    """

    player: str
    opponent: str
    wins: int
    losses: int
    draws: int
    records: tuple[GameRecord, ...]
    sgf_paths: tuple[Path, ...] = ()

    @property
    def games(self) -> int:
        return len(self.records)

    @property
    def win_rate(self) -> float:
        """Wins, draws counted half, per game (0 without games)."""
        return (self.wins + self.draws / 2) / max(self.games, 1)

    @property
    def interval(self) -> tuple[float, float]:
        """The win rate's 95% Wilson score interval."""
        return wilson_interval(self.wins + self.draws / 2, self.games)

    @property
    def sgfs(self) -> list[str]:
        """Every game as SGF text, in order."""
        return [record.sgf or "" for record in self.records]

    def __str__(self) -> str:
        low, high = self.interval
        as_black = sum(_score(record, i) == 1.0 for i, record in enumerate(self.records) if i % 2 == 0)
        as_white = sum(_score(record, i) == 1.0 for i, record in enumerate(self.records) if i % 2 == 1)
        return (
            f"{self.player} vs {self.opponent}: {self.wins + self.draws / 2:g}/{self.games} = "
            f"{self.win_rate:.0%} (95% CI {low:.0%}-{high:.0%}); wins as Black {as_black}/"
            f"{(self.games + 1) // 2}, as White {as_white}/{self.games // 2}"
        )


def evaluate(
    player: Agent | str,
    opponent: Agent | str = "random",
    games: int = 20,
    size: int = 9,
    komi: float | None = None,
    rules: Rules | None = None,
    *,
    seed: int = 0,
    opening_moves: int = 0,
    sgf_dir: Path | str | None = None,
    device: str = "cpu",
    settle: str | None = None,
) -> EvaluationResult:
    """Play ``games`` games of ``player`` against ``opponent`` (see the module docs).

    Args:
        player: the player evaluated: an object (``Agent``) or a spec string.
        opponent: its opponent, likewise.
        games: games to play, colours alternating.
        size: board size.
        komi: replaces the rules' komi if given.
        rules: the rules (default ``Rules(komi=default_komi(size))``, the leagues' and the envs').
        seed: the seed of every game's player seeds and openings: the same seed, the same games
            for seeded players.
        opening_moves: random moves that open each pair of games (0: none).
        sgf_dir: a folder to write every game to, as ``0000-player-vs-opponent.sgf``.
        device: where network players run (``GameContext.device``); a player with a device
            of its own (or a model in memory) keeps it.
        settle: how a game ended by two passes is scored, as the referee's ``settle``
            (None: a clean-up phase with an engine that passes early, else the count).

    Returns:
        The result: wins, losses, draws, win rate, its interval, the records and SGF.

    Raises:
        EvaluationError: the player crashed, or refused the game, in one of them.
        AgentSpecError: a spec that builds no player.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    rules = rules if rules is not None else Rules(komi=default_komi(size))
    rules = dataclasses.replace(rules, komi=komi) if komi is not None else rules
    names = tuple(spec if isinstance(spec, str) else spec.name for spec in (player, opponent))
    ours = make_agent(player) if isinstance(player, str) else player
    theirs = make_agent(opponent) if isinstance(opponent, str) else opponent
    built = [agent for spec, agent in ((player, ours), (opponent, theirs)) if isinstance(spec, str)]
    folder = Path(sgf_dir) if sgf_dir is not None else None
    records, paths = [], []
    try:
        for game in range(games):
            black, white = (ours, theirs) if game % 2 == 0 else (theirs, ours)
            black_name, white_name = names if game % 2 == 0 else names[::-1]
            game_seed = seed * 1_000_003 + game  # as a league seeds its games
            opening = random_opening(size, rules, opening_moves, (seed, game // 2)) if opening_moves else ()
            record = play_game(
                black,
                white,
                size,
                rules,
                settle=settle,
                names=(black_name, white_name),
                seeds=(2 * game_seed, 2 * game_seed + 1),
                device=device,
                opening=opening,
            )
            _check_played(record, game)
            records.append(record)
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
                path = folder / f"{game:04d}-{slug(black_name)}-vs-{slug(white_name)}.sgf"
                path.write_text(record.sgf or "")
                paths.append(path)
    finally:
        for agent in built:
            if isinstance(agent, Closeable):
                agent.close()
    scores = [_score(record, game) for game, record in enumerate(records)]
    return EvaluationResult(
        player=names[0],
        opponent=names[1],
        wins=scores.count(1.0),
        losses=scores.count(0.0),
        draws=scores.count(0.5),
        records=tuple(records),
        sgf_paths=tuple(paths),
    )


def _score(record: GameRecord, game: int) -> float:
    """The player's score in game number ``game``: 1 a win, 0.5 a draw, 0 a loss."""
    if record.winner == EMPTY:
        return 0.5
    return float((record.winner == BLACK) == (game % 2 == 0))


def _check_played(record: GameRecord, game: int) -> None:
    """Raise when the player lost game ``game`` by its own crash or refusal."""
    ours_lost = _score(record, game) == 0.0
    if ours_lost and record.reason.startswith(("crash:", "unsupported game:")):
        color = "Black" if game % 2 == 0 else "White"
        raise EvaluationError(
            f"the player ({color}) failed in game {game}: {record.reason}"
            + (f"\n{record.traceback}" if record.traceback else "")
        )


class EvaluationCallback(BaseCallback):
    """``evaluate`` during an SB3 ``learn``: the model (as ``SB3Agent``) against ``opponent``
    every ``eval_freq`` calls, its win rate logged as ``eval/win_rate_vs_<opponent>``.

    Args:
        opponent: the opponent's spec (or a player object).
        eval_freq: evaluate every this many calls of the callback (one per step of the vector
            env, as SB3's ``EvalCallback`` counts).
        games: games per evaluation, colours alternating.
        best_model_save_path: a folder where ``best_model.zip`` is saved whenever the win
            rate beats every earlier one (None: not kept).
        player: makes the player from the model (default ``SB3Agent(model)``, the most likely
            legal move); e.g. ``lambda model: SB3Agent(model, simulations=50)``.
        verbose: 1 prints each evaluation's result.
        evaluate_options: more ``evaluate`` options (``size`` defaults to the model's board,
            ``device`` to the model's; ``komi``, ``rules``, ``seed``, ``opening_moves``, ...).

    Attributes:
        last_result: the last evaluation's ``EvaluationResult`` (None before the first).
        best_win_rate: the best win rate so far (-1 before the first).
    """

    def __init__(
        self,
        opponent: Agent | str,
        eval_freq: int = 10_000,
        games: int = 20,
        best_model_save_path: Path | str | None = None,
        player: Callable[[BaseAlgorithm], Agent] | None = None,
        verbose: int = 0,
        **evaluate_options: Any,
    ):
        super().__init__(verbose)
        if eval_freq < 1:
            raise ValueError(f"eval_freq must be at least 1, got {eval_freq}")
        self.opponent = opponent
        self.eval_freq = eval_freq
        self.games = games
        self.best_model_save_path = Path(best_model_save_path) if best_model_save_path is not None else None
        self.make_player = player or SB3Agent
        self.evaluate_options = evaluate_options
        self.last_result: EvaluationResult | None = None
        self.best_win_rate = -1.0

    def _on_step(self) -> bool:
        if self.n_calls % self.eval_freq == 0:
            self.evaluate()
        return True

    def evaluate(self) -> EvaluationResult:
        """Evaluate the model now, log the win rate and keep the model if it is the best."""
        model = self.model
        options = dict(self.evaluate_options)
        options.setdefault("size", math.isqrt(int(model.action_space.n) - 1))  # type: ignore[attr-defined]  # N*N + 1 moves
        options.setdefault("device", str(model.device))
        result = evaluate(self.make_player(model), self.opponent, self.games, **options)
        self.last_result = result
        self.logger.record(f"eval/win_rate_vs_{result.opponent}", result.win_rate)
        self.logger.dump(self.num_timesteps)
        if self.verbose:
            print(f"step {self.num_timesteps}: {result}")
        if result.win_rate > self.best_win_rate:
            self.best_win_rate = result.win_rate
            if self.best_model_save_path is not None:
                self.best_model_save_path.mkdir(parents=True, exist_ok=True)
                model.save(self.best_model_save_path / "best_model.zip")
        return result
