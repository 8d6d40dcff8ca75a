"""``GameBatch``: many games of one size and ruleset stepped together, one game per core.

The batch is the rules core's state with a leading batch axis; every method is one
parallel kernel call over all games, so the cost of calling from Python is paid once
per batch rather than once per game. For self-play and vectorised RL loops::

    batch = GameBatch(9, 256)
    while not batch.is_over.all():
        masks = batch.legal_masks()                   # int8[B, 82]
        moves = choose(batch.observations(), masks)   # int64[B]; finished games ignore theirs
        batch.play(moves)
    margins = batch.scores()                          # Black minus White minus komi

When a policy gives move probabilities, ``sample_and_play(probabilities)`` draws a legal
move from them and plays it in every game in one kernel: no masks, no draws in Python.
"""

from __future__ import annotations

import numpy as np

from go_env import core as K
from go_env.features import NUM_HISTORY_PLANES, batch_history_planes
from go_env.game import Game, IllegalMoveError
from go_env.rules import Rules


def owners_for_mover(owners: np.ndarray, to_play: np.ndarray) -> np.ndarray:
    """int8 ``owners`` (BLACK, WHITE or EMPTY per point, [..., N*N]) from the view of ``to_play``
    ([...]): +1 the side to move's, -1 the opponent's, 0 neither's (a training target)."""
    mover = np.asarray(to_play)[..., None]
    return np.where(owners == K.EMPTY, 0, np.where(owners == mover, 1, -1)).astype(np.int8)


class GameBatch:
    """``batch_size`` independent games on ``size`` x ``size`` boards under ``rules``;
    ``seed`` seeds the moves ``sample_and_play`` draws."""

    def __init__(self, size: int, batch_size: int, rules: Rules | None = None, seed: int | None = None):
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.size = size
        self.batch_size = batch_size
        self.rules = rules if rules is not None else Rules()
        self.geometry = K.make_geometry(size)
        self._kernel_rules = np.array(self.rules.kernel_rules(size), np.int64)
        self.state = K.new_state(size, *self.rules.kernel_rules(size), batch=batch_size)
        self._status = np.empty(batch_size, np.int64)
        self._rngs: np.ndarray | None = None
        self.seed(seed)

    @property
    def num_actions(self) -> int:
        return self.size * self.size + 1

    def seed(self, seed: int | None) -> None:
        """Seed the moves ``sample_and_play`` draws again (``None``: from fresh entropy)."""
        # One xorshift generator per game (nonzero states), so games draw independently in parallel.
        self._rngs = np.random.SeedSequence(seed).generate_state(self.batch_size, np.uint64) | np.uint64(1)

    def reset(self, where: np.ndarray | None = None) -> None:
        """Empty every board, or only those of the games ``b`` where ``where[b]`` (bool[B])."""
        if where is None:
            K.batch_reset(self.state, self.geometry, self._kernel_rules)
            return
        where = np.asarray(where, np.bool_)
        if where.shape != (self.batch_size,):
            raise ValueError(f"expected a mask of {self.batch_size} games, got shape {where.shape}")
        K.batch_reset_where(self.state, self.geometry, self._kernel_rules, where)

    def stop(self, where: np.ndarray) -> None:
        """Stop the running games ``b`` where ``where[b]`` (bool[B]), as at a resignation: they
        count as over and truncated (``is_truncated``), their boards as they stand."""
        where = np.asarray(where, np.bool_)
        if where.shape != (self.batch_size,):
            raise ValueError(f"expected a mask of {self.batch_size} games, got shape {where.shape}")
        info = self.state.info
        info[where & (info[:, K.INFO_OVER] == K.RUNNING), K.INFO_OVER] = K.TRUNCATED

    def play(self, moves: np.ndarray, *, strict: bool = True) -> np.ndarray:
        """Play ``moves[b]`` (int[B]) in every game still running; finished games are skipped.

        Returns:
            int64[B] status codes (``core.LEGAL`` = 0 where the move was played).

        Raises:
            IllegalMoveError: if ``strict`` and a running game got an illegal move; the
                legal moves of the other games have been played.
        """
        moves = np.asarray(moves, np.int64)
        if moves.shape != (self.batch_size,):
            raise ValueError(f"expected {self.batch_size} moves, got shape {moves.shape}")
        running = ~self.is_over
        to_play = self.to_play
        K.batch_play(self.state, self.geometry, moves, self._status)
        self._status[~running] = K.LEGAL
        if strict:
            bad = np.flatnonzero(self._status != K.LEGAL)
            if bad.size:
                b = int(bad[0])
                reason = K.STATUS_NAMES[self._status[b]]
                raise IllegalMoveError(int(moves[b]), f"{reason} (game {b})", self.size, int(to_play[b]))
        return self._status.copy()

    def sample_and_play(self, probabilities: np.ndarray, *, strict: bool = True) -> np.ndarray:
        """Draw a legal move from ``probabilities[b]`` (float[B, N*N+1], need not be masked or
        normalised: illegal moves are skipped) in every running game and play it.

        Returns:
            int64[B]: the moves played, -1 in finished games and where nothing was played.

        Raises:
            ValueError: if ``strict`` and a running game puts no weight on a legal move; the
                other games have played.
        """
        probabilities = np.ascontiguousarray(probabilities, np.float64)
        if probabilities.shape != (self.batch_size, self.num_actions):
            expected = (self.batch_size, self.num_actions)
            raise ValueError(f"expected probabilities of shape {expected}, got {probabilities.shape}")
        running = ~self.is_over
        moves = np.empty(self.batch_size, np.int64)
        if self._rngs is None:  # a batch ``take`` made
            self.seed(None)
        assert self._rngs is not None
        K.batch_sample_and_play(self.state, self.geometry, probabilities, self._rngs, moves)
        stuck = np.flatnonzero(running & (moves < 0))
        if strict and stuck.size:
            raise ValueError(f"game {int(stuck[0])} puts no probability on a legal move")
        return moves

    def legal_masks(self) -> np.ndarray:
        """int8[B, N*N+1]: legal moves of every game (all 0 in finished games)."""
        out = np.empty((self.batch_size, self.num_actions), np.int8)
        K.batch_legal_mask(self.state, self.geometry, out)
        return out

    def observations(self) -> np.ndarray:
        """int8[B, N, N, 17]: every game's history planes from its side to move (see ``features``)."""
        out = np.empty((self.batch_size, self.size, self.size, NUM_HISTORY_PLANES), np.int8)
        batch_history_planes(self.state, self.geometry, out)
        return out

    def random_playouts(self, seed: int) -> np.ndarray:
        """Finish every game with the rules core's random playouts; returns moves played, int64[B]."""
        seeds = np.random.default_rng(seed).integers(1, 2**62, self.batch_size)
        moves = np.empty(self.batch_size, np.int64)
        K.batch_random_playout(self.state, self.geometry, seeds, moves)
        return moves

    def scores(self) -> np.ndarray:
        """float64[B]: Black's points minus White's minus komi, as each board stands."""
        out = np.empty(self.batch_size, np.float64)
        K.batch_score(self.state, self.geometry, out)
        return out

    def area_owners(self) -> np.ndarray:
        """int8[B, N*N]: each point's area owner as each board stands (BLACK, WHITE or EMPTY):
        the final owners of games played out, where no dead stone is left on the board."""
        owners = np.zeros((self.batch_size, self.size * self.size), np.int8)
        for b in range(self.batch_size):
            K.area_owner(K.state_item(self.state, b), self.geometry, owners[b])
        return owners

    @property
    def to_play(self) -> np.ndarray:
        """int64[B]: BLACK or WHITE to move in each game."""
        return self.state.info[:, K.INFO_TO_PLAY].copy()

    @property
    def is_over(self) -> np.ndarray:
        """bool[B]: games ended by two passes or stopped by the move cap."""
        return self.state.info[:, K.INFO_OVER] != K.RUNNING

    @property
    def is_truncated(self) -> np.ndarray:
        """bool[B]: games stopped by the move cap."""
        return self.state.info[:, K.INFO_OVER] == K.TRUNCATED

    def take(self, games: np.ndarray) -> GameBatch:
        """A new batch holding copies of the games ``games`` (int[K], K >= 1), in that order;
        its ``sample_and_play`` draws from fresh entropy, as an unseeded batch's.

        Made around the copies alone (the vector env takes its batched opponents' games every
        step): no empty state to throw away, and the generators seeded only if it draws.
        """
        games = np.asarray(games, np.int64)
        if len(games) < 1:
            raise ValueError(f"batch_size must be positive, got {len(games)}")
        other = GameBatch.__new__(GameBatch)
        other.size, other.batch_size, other.rules = self.size, len(games), self.rules
        other.geometry, other._kernel_rules = self.geometry, self._kernel_rules
        other.state = K.GoState(*(field[games] for field in self.state))
        other._status = np.empty(other.batch_size, np.int64)
        other._rngs = None
        return other

    def game(self, b: int) -> Game:
        """A ``Game`` holding a copy of game ``b``'s position (without its move list)."""
        game = Game(self.size, self.rules)
        K.copy_into(game.state, K.state_item(self.state, b))
        return game
