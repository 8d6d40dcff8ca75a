"""``ownership-greedy``: the ownership value function's pure-value player, one move of lookahead with the
ownership network and no search.

For every legal move (pass included) it plays the move on a copy of the position, and asks the
ownership network, in one forward pass over all the children (and the position itself, for
its ownership map), the value V of each resulting position for the opponent, who moves there:
V = Σ v + the komi from the opponent's view, so the move's V for the player is its negative,
komi included. A move that ends the game (a pass after a pass) is valued by the game's own
count instead (the margin, komi included). It plays the move of the highest V (the first of
equal ones), and passes when passing keeps the best V::

    ownership-greedy                        # the shipped 9x9 network (agents/weights)
    ownership-greedy:weights=RUN/ownership.pt
    ownership-greedy:weights=ownership.pt,device=cuda

``act()`` gives a one-hot policy on the move, its value (the network's calibrated win
probability after the move, as 2p − 1; a finished game's result, ±1 or 0) and the ownership
map of the position it moved from, for its side to move; ``ownership(game)`` gives that map
alone (``OwnershipAgent``). For GTP ``lz-analyze`` and ``kata-analyze``, ``analyze`` reports
its best moves at once, since it has no search: each with one visit (the one network
evaluation of its position), its win rate after the move as ``winrate`` and ``lcb``, V after the
move as its score lead, and a uniform prior (it has no policy).

With the win-probability baseline's weights (``goarena train ownership --method win``) it is
the same one-ply player over that network's win probability: the move after which the
opponent's (1 + w) / 2 is lowest, the pass where passing keeps the best. That network has no
ownership head and no V: ``act()`` gives no ownership map (None), ``ownership(game)`` None (GTP
``kata-analyze ... ownership true`` prints none), and the analysis no score lead.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from go_env import Game
from go_env import core as K
from go_env.features import NUM_HISTORY_PLANES, batch_history_planes
from goarena.agents.inference.ownership import estimate, ownership_map
from goarena.agents.nets.load import check_sizes, load_network
from goarena.agents.nets.ownership import has_ownership
from goarena.agents.nets.predict import move_networks, player_device
from goarena.agents.protocols import Action, GameContext, MoveInfo, check_board_size, game_context
from goarena.agents.weights import OWNERSHIP_9X9
from goarena.search.warmup import warmup_game

ANALYSIS_CANDIDATES = 20  # moves an analysis reports, as a policy player's


class MoveValues:
    """The legal moves of a position and what the ownership network says of each (a win
    network: no ``scores`` and no ``ownership``, None)."""

    def __init__(
        self, moves: np.ndarray, scores: np.ndarray | None, values: np.ndarray, ownership: np.ndarray | None
    ):
        self.moves = moves  # int64[L]: the legal moves, pass included (last)
        self.scores = scores  # float64[L]: V after each move, for the player who makes it
        self.values = values  # float64[L] in [-1, 1]: 2p − 1 after each move, for that player
        self.ownership = ownership  # float32[N*N]: v(s, i) of the position itself, for its side to move

    @property
    def ranking(self) -> np.ndarray:
        """float64[L]: what the player maximises, V, or a win network's value."""
        return self.values if self.scores is None else self.scores


def _weights(weights: Path | str | None) -> Path | str:
    return OWNERSHIP_9X9 if weights is None else weights


class OwnershipGreedyAgent:
    """Plays the move whose resulting position has the best V for it (see the module documentation).

    Args:
        weights: an ownership network's weights file (either head), read once, here; by
            default the shipped 9x9 one.
        device: where the network runs (cpu, cuda, cuda:N); None runs it where the game's
            context says (``GameContext.device``). Resolved, and the network moved there, at
            ``reset``; on the CPU until then.

    Raises:
        NetworkFileError: the file is missing, unreadable, or not an ownership network.
        ValueError: a bad device.
    """

    def __init__(self, weights: Path | str | None = None, device: str | None = None):
        self.device = device
        self.network = load_network(_weights(weights), "ownership", device or "cpu")
        self.model = self.network.model
        self.board_size = self.network.board_size
        self.name = "ownership-greedy"

    @staticmethod
    def check_options(
        context: GameContext | None, weights: Path | str | None = None, device: str | None = None
    ) -> None:
        """Check the options and the weights file as the player reads it (and, given a
        context, the board size and device)."""
        player_device(device, context)
        network = load_network(_weights(weights), "ownership")
        if context is not None:
            check_sizes([network], context.size)

    def reset(self, context: GameContext) -> None:
        """A new game: refuses a board size the network was not trained for; moves the
        network to the player's device (its own, else the context's)."""
        check_board_size(self.board_size, game_context(context).size, "the ownership network was")
        move_networks([self.model], self.device, context)

    @staticmethod
    def warmup(size: int) -> None:
        """Compile the kernels that value every move: the children played in a batch, their
        scores and history planes (see ``agents.protocols.Warmable``)."""
        game = warmup_game(size)
        count = 2
        children = K.GoState(*(np.repeat(field[None], count, axis=0) for field in game.state))
        K.batch_play(
            children, game.geometry, game.legal_moves()[:count].astype(np.int64), np.empty(count, np.int64)
        )
        K.batch_score(children, game.geometry, np.empty(count, np.float64))
        planes = np.zeros((count, size, size, NUM_HISTORY_PLANES), np.int8)
        batch_history_planes(children, game.geometry, planes)

    def weights_digest(self) -> str:
        return self.network.digest

    def move_values(self, game: Game) -> MoveValues:
        """Every legal move's V and value for the side to move, and the position's ownership
        map: the children and the position itself in one forward pass (a win network: the
        values alone)."""
        check_board_size(self.board_size, game.size, "the ownership network was")
        if game.is_over:
            raise ValueError("the game is over: no move to value")
        moves = game.legal_moves().astype(np.int64)
        count = len(moves)
        # Row 0 is the position itself (for its ownership map), rows 1.. its children.
        states = K.GoState(*(np.repeat(field[None], count + 1, axis=0) for field in game.state))
        children = K.GoState(*(field[1:] for field in states))
        K.batch_play(children, game.geometry, moves, np.empty(count, np.int64))
        found = estimate(self.model, states, game.geometry)
        scores = None if found.score is None else -found.score[1:]  # the opponent moves in each child
        values = 1.0 - 2.0 * found.win_probability[1:]  # 2(1 − p_opponent) − 1
        over = children.info[:, K.INFO_OVER] != K.RUNNING
        if over.any():  # a pass after a pass: the count is known
            margins = np.empty(count, np.float64)
            K.batch_score(children, game.geometry, margins)
            black = 1.0 if game.to_play == K.BLACK else -1.0
            if scores is not None:
                scores[over] = margins[over] * black
            values[over] = np.sign(margins[over]) * black
        return MoveValues(moves, scores, values, None if found.ownership is None else found.ownership[0])

    @staticmethod
    def _best(game: Game, found: MoveValues) -> int:
        """The index in ``found`` of the move of the best V (a win network's best value), the
        pass where passing keeps it."""
        ranking = found.ranking
        best = int(np.argmax(ranking))
        if found.moves[-1] == game.pass_move and ranking[-1] >= ranking[best]:
            best = len(found.moves) - 1
        return best

    def ownership(self, game: Game) -> np.ndarray | None:
        """float32[N*N]: v(s, i) of ``game``'s position, for its side to move (``OwnershipAgent``);
        None from a win network, which has no ownership head."""
        if not has_ownership(self.model):
            return None
        return ownership_map(self.model, game)

    def analyze(
        self, game: Game, stop: Callable[[], bool], report: Callable[[list[MoveInfo]], None], interval: float
    ) -> int:
        """GTP ``lz-analyze``: one report of the best moves, the one played first, then by V
        (see the module documentation); returns the move ``select_move`` plays."""
        found = self.move_values(game)
        best = self._best(game, found)
        order = [best, *(int(i) for i in np.argsort(-found.ranking, kind="stable") if i != best)]
        prior = 1.0 / len(found.moves)
        infos = []
        for i in order[:ANALYSIS_CANDIDATES]:
            move, winrate = int(found.moves[i]), (float(found.values[i]) + 1.0) / 2.0
            lead = None if found.scores is None else float(found.scores[i])
            infos.append(MoveInfo(move, 1, winrate, prior, winrate, (move,), lead))
        report(infos)
        return int(found.moves[best])

    def act(self, game: Game) -> Action:
        """The move of the best V (pass where passing keeps it), a one-hot policy on it, its
        value for the side to move, and the position's ownership map (None from a win network)."""
        found = self.move_values(game)
        best = self._best(game, found)
        policy = np.zeros(game.num_points + 1)
        policy[found.moves[best]] = 1.0
        return Action(int(found.moves[best]), policy, float(found.values[best]), found.ownership)

    def select_move(self, game: Game) -> int:
        return self.act(game).move
