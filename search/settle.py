"""How a finished game is counted: the one place that decides, and its judges.

Under Tromp-Taylor rules every stone on the board counts. Where a game is settled by taking
the dead stones off before the count (by agreement, an arbiter, or a clean-up phase, as on
KGS and under Chinese or Japanese rules), someone has to say which stones are dead. The
judges, all here, used by search (a player's pass), the referee (a league's games), the GTP
engine (its clean-up moves and status lists) and the web board (its final count):

- the raw count: the board as it stands (``Game.score``), what our own players play out;
- an ownership estimate: playouts (``search.ownership.estimate_ownership``) or a network say
  who ends up owning each point, and a stone on the other side's point is dead
  (``dead_stones``); ``PassCheck`` judges a search player's pass and resignation by it, and
  ``settling_move`` takes the other side's dead stones off before a pass;
- a named dead list: GNU Go's (or any engine's) ``final_status_list dead``, agreed by both
  players or named by an arbiter (``settle_by_dead_stones``), or the first of a list of judges
  that can judge the game (``settle_by_judges``, the web board's);
- a clean-up phase: play goes on until the dead stones are captured (``cleanup_move``: the
  stones an ownership estimate calls dead, captured, and nothing else played).

Every named dead list goes through ``go_env.seki`` first: a chain in seki lives, whoever called
it dead (in two held-out games GNU Go called a seki dead and turned a raw W+7 into B+20), and
a clean-up move never fills a seki's shared liberty nor a liberty its own chain needs.

The referee's settling modes (``SETTLE_MODES``): ``count`` (the raw count), ``cleanup`` (a
clean-up phase, the default when an engine that passes with dead stones on the board takes
part) and ``status`` (the players' dead stones, else the arbiter's).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from go_env import Game, Rules, coords
from go_env import core as K
from go_env.seki import ChainBoard, keep_seki_alive, seki_liberties
from goarena.search.evaluator import random_state
from goarena.search.ownership import OWNERSHIP_PLAYOUTS, estimate_ownership
from goarena.search.tree import ILLEGAL, ROOT, TreeSearch

DEAD_THRESHOLD = 0.5  # dead: the other side owns the point in 75% of the playouts or more
SETTLE_MODES = ("count", "cleanup", "status")
AS_IT_STANDS = "the board as it stands"


# -- the count ---------------------------------------------------------------------------


class Settlement(NamedTuple):
    """A board's count as it stands and once its dead stones are taken off (Black's margin)."""

    raw: float  # every stone counted, as Tromp-Taylor rules count them
    settled: float  # without the dead stones
    dead: tuple[int, ...]  # the points of the stones judged dead


@dataclass(frozen=True)
class Settled:
    """Black's margin once the dead stones were taken off, how they were named, and their points."""

    margin: float
    how: str
    dead: tuple[int, ...] = ()


def settled_board(game: Game, dead: Iterable[int]) -> Game:
    """``game``'s board with the ``dead`` stones taken off, as a game to count by area (its
    komi, its side to move): ``score()`` is the settled margin, ``area_owner()`` the owners."""
    board = game.board.ravel()
    removed = set(dead)
    black = [int(p) for p in np.flatnonzero(board == K.BLACK) if p not in removed]
    white = [int(p) for p in np.flatnonzero(board == K.WHITE) if p not in removed]
    counted = Game(game.size, Rules(komi=game.rules.komi, scoring="area"))
    counted.setup(black, white, game.to_play)
    return counted


def settled_score(game: Game, dead: Iterable[int]) -> float:
    """Black's margin by the area count of ``game``'s board with the ``dead`` stones taken off
    (komi included)."""
    return settled_board(game, dead).score()


def count_without(game: Game, dead: Iterable[int], how: str, *, naming: bool = False) -> Settled:
    """``game`` counted without the ``dead`` stones a judge named (``how``), but for the chains
    in seki among them, which live (``how`` then says so; with ``naming``, it lists the stones
    taken off too)."""
    named = [int(p) for p in dead]
    kept = keep_seki_alive(game, named)
    if naming:
        how = f"{how} ({' '.join(coords.to_gtp(p, game.size) for p in kept) or 'none'})"
    if len(kept) < len(named):
        seki = " ".join(coords.to_gtp(p, game.size) for p in named if p not in kept)
        how = f"{how}; in seki, alive: {seki}"
    return Settled(settled_score(game, kept), how, tuple(kept))


# -- the ownership estimate --------------------------------------------------------------


def firm_owner(ownership: np.ndarray, threshold: float = DEAD_THRESHOLD) -> np.ndarray:
    """int8[N*N]: ``BLACK`` where ``ownership`` is above ``threshold``, ``WHITE`` where it is
    below ``-threshold``, 0 elsewhere (``TreeSearch.settle_finished_games`` takes it)."""
    owner = np.zeros(ownership.shape, np.int8)
    owner[ownership > threshold] = K.BLACK
    owner[ownership < -threshold] = K.WHITE
    return owner


def dead_stones(game: Game, ownership: np.ndarray, threshold: float = DEAD_THRESHOLD) -> list[int]:
    """The points of the stones on ``game``'s board whose point the other side owns: a Black
    stone where ``ownership`` is below ``-threshold``, a White one where it is above it."""
    board = game.board.ravel()
    owner = firm_owner(ownership, threshold)
    dead = (board != K.EMPTY) & (owner == 3 - board)
    return [int(point) for point in np.flatnonzero(dead)]


def black_view(ownership: np.ndarray, to_play: int) -> np.ndarray:
    """float64[N*N]: an ownership map given from ``to_play``'s view (+1 its point, as a
    network gives it) in Black's (+1 Black's, as the playouts give it)."""
    view = np.asarray(ownership, np.float64)
    return view if to_play == K.BLACK else -view


def _result(margin: float, color: int) -> int:
    """1 a win for ``color``, 0 a draw, -1 a loss."""
    return int(np.sign(margin)) * (1 if color == K.BLACK else -1)


def clean_up_under_way(game: Game) -> bool:
    """Whether ``game`` was resumed after two passes: in a clean-up phase, whose dead stones
    are those it captures, so that its end is counted as the board stands."""
    passing = game.pass_move
    return any(a == b == passing for a, b in zip(game.moves, game.moves[1:], strict=False))


class PassCheck:
    """Judges a pass, and a resignation, by the count with the dead stones taken off.

    Where dead stones are taken off before the count, a pass is unsafe when stones of the
    player's own are dead and the count without them is worse for it (a loss or a draw
    where the raw count said a win, a loss where it said a draw): the player then plays on.
    The other side's dead stones are left on the board for that count: a clean-up phase
    takes off only the stones that are captured in it, and the other side captures none of
    its own, so the player must (KataGo's conservative pass). Where the board is counted as
    it stands (Tromp-Taylor, a clean-up phase under way), a pass is safe only when the game
    is won both by that count and without its own dead stones: a referee or an opponent that
    judges the dead stones itself (GNU Go's count) takes those off, and the other side's only
    once captured. Both counts are area counts
    (under territory rules they differ from the rules' own by the prisoners, alike for
    both); chains in seki live whatever the map says (``go_env.seki``). The playouts leave
    seki alone (``estimate_ownership``); a network's map (``black_view``) may be given
    instead::

        check = PassCheck(seed=0)
        check.settle(game)            # Settlement(raw=..., settled=..., dead=(...))
        check.pass_is_safe(game)      # else: best_move_but_pass(game, search)

    A search settles the games that finish inside its tree the same way:
    ``search.settle_finished_games(check.owner(check.ownership(game)))`` before searching ``game``.

    Args:
        playouts: playouts per ownership map.
        threshold: how sure the playouts must be that a stone is dead (``dead_stones``).
        seed: seed of the playouts.
    """

    def __init__(
        self, playouts: int = OWNERSHIP_PLAYOUTS, threshold: float = DEAD_THRESHOLD, seed: int | None = None
    ):
        if playouts < 1:
            raise ValueError(f"playouts must be at least 1, got {playouts}")
        if not 0.0 <= threshold < 1.0:
            raise ValueError(f"threshold is an ownership in [0, 1), got {threshold}")
        self.playouts = playouts
        self.threshold = threshold
        self._rng = random_state(seed)

    def ownership(self, game: Game) -> np.ndarray:
        """``estimate_ownership`` of ``game`` with the check's playouts."""
        return estimate_ownership(game, self.playouts, self._rng)

    def owner(self, ownership: np.ndarray) -> np.ndarray:
        """``firm_owner`` of ``ownership`` at the check's threshold: what a search settles
        its finished games by (``TreeSearch.settle_finished_games``)."""
        return firm_owner(ownership, self.threshold)

    def dead(self, game: Game, ownership: np.ndarray) -> list[int]:
        """The stones ``ownership`` (Black's view) calls dead, but the chains in seki."""
        return keep_seki_alive(game, dead_stones(game, ownership, self.threshold))

    def settle(self, game: Game) -> Settlement:
        """``game``'s board counted as it stands and without the stones the playouts judge dead."""
        dead = dead_stones(game, self.ownership(game), self.threshold)
        return Settlement(settled_score(game, []), settled_score(game, dead), tuple(dead))

    def pass_is_safe(
        self, game: Game, ownership: np.ndarray | None = None, *, as_it_stands: bool = False
    ) -> bool:
        """Whether the side to move may pass, by ``ownership`` of ``game`` (Black's view;
        estimated afresh when None): where dead stones are taken off, no dead stone of its
        own makes its result worse; counted ``as_it_stands``, it wins by both counts."""
        color = game.to_play
        ownership = self.ownership(game) if ownership is None else ownership
        board = game.board.ravel()
        # Only its own dead stones come off: the other side's stay unless it captures them
        # (a referee's count or clean-up takes off what the other side shows dead).
        own = [point for point in self.dead(game, ownership) if board[point] == color]
        raw = _result(settled_score(game, []), color)
        if as_it_stands:
            return raw == 1 and _result(settled_score(game, own), color) == 1
        if not own:
            return True  # no count to make: the raw one stands
        return _result(settled_score(game, own), color) >= raw

    def lost(self, game: Game, ownership: np.ndarray) -> bool:
        """Whether the side to move loses ``game`` as it stands by both counts: every stone
        counted, and without the stones ``ownership`` (Black's view) calls dead. A search's
        value alone may be wrong about the end; a resignation waits for the board to agree."""
        color = game.to_play
        if _result(settled_score(game, []), color) != -1:
            return False
        return _result(settled_score(game, self.dead(game, ownership)), color) == -1


def best_move_but_pass(game: Game, search: TreeSearch) -> int:
    """The root's best move other than pass, filling an own eye or a seki's shared liberty,
    and recreating an earlier whole board (by visits, value, prior), or pass where there is
    none."""
    assert search.tree is not None, "search first"
    legal = search.tree.children[ROOT] != ILLEGAL
    legal[game.repeating_moves()] = False
    legal[seki_liberties(game)] = False
    state, geometry, color = game.state, game.geometry, game.to_play
    moves = [
        int(a)
        for a in np.flatnonzero(legal)
        if a != game.pass_move and not K.is_eye(state, geometry, int(a), color)
    ]
    if not moves:
        return game.pass_move
    visits, values, priors = search.visit_counts(), search.values(), search.priors()
    return max(moves, key=lambda a: (visits[a], values[a], priors[a]))


# -- taking the other side's dead stones off ---------------------------------------------


def _holds(game: Game, move: int, target: set[int]) -> bool:
    """Whether the side to move's stone on ``move``, a liberty of the other side's chain
    ``target``, is no self-atari, and, where it joins a chain of its own (a liberty the two
    share), leaves that chain more liberties than ``target``: it never gives a race or a
    seki away."""
    after = game.copy()
    after.play(move)
    chains = ChainBoard(after)
    if chains.board[move] == K.EMPTY:
        return False  # a suicide
    own = chains.chain(move)
    mine = len(chains.liberties(own))
    if mine < 2:
        return False
    if len(own) == 1:
        return True  # on its own: nothing of the player's is short of liberties
    left = [p for p in target if chains.board[p] != K.EMPTY]
    return not left or mine > len(chains.liberties(chains.chain(left[0])))


def settling_move(
    game: Game, ownership: np.ndarray, threshold: float = DEAD_THRESHOLD, *, captures_only: bool = False
) -> int | None:
    """A move of the side to move that takes the other side's dead stones off, or None.

    Dead: the other side's stones on points ``ownership`` (Black's view) gives the side to
    move (``dead_stones``), but chains in seki. Captures come first, the largest first; then,
    unless ``captures_only``, a liberty of a dead chain (the chain with the fewest first, a
    liberty not the player's own before one the two share). Never a move that is illegal,
    recreates an earlier whole board, fills a seki's shared liberty or an eye of its own, or
    loses the player's chain on it (``_holds``: no self-atari, no shared liberty filled
    while the player's chain would not stay ahead): a chain that lives keeps its liberties.
    """
    color = game.to_play
    board = game.board.ravel()
    dead = [
        p for p in keep_seki_alive(game, dead_stones(game, ownership, threshold)) if board[p] == 3 - color
    ]
    chains = ChainBoard(game)
    seen: set[int] = set()
    targets: list[tuple[set[int], set[int]]] = []
    for point in dead:
        if point not in seen:
            stones = chains.chain(point)
            seen |= stones
            targets.append((stones, chains.liberties(stones)))
    if not targets:
        return None
    seki = set(seki_liberties(game))

    def playable(move: int) -> bool:
        return (
            game.is_legal(move)
            and not game.repeats_position(move)
            and move not in seki
            and not K.is_eye(game.state, game.geometry, move, color)
        )

    captures = sorted((t for t in targets if len(t[1]) == 1), key=lambda t: (-len(t[0]), min(t[0])))
    for _, liberties in captures:
        move = next(iter(liberties))
        if playable(move):
            return move
    if captures_only:
        return None

    def shared(point: int) -> bool:  # a liberty of the player's own chain too
        return any(board[n] == color for n in chains.around(point))

    for stones, liberties in sorted(targets, key=lambda t: (len(t[1]), min(t[0]))):
        for move in sorted(liberties, key=lambda p: (shared(p), p)):
            if playable(move) and _holds(game, move, stones):
                return move
    return None


# -- named dead lists: players, an arbiter, a row of judges ------------------------------


def check_settle(settle: str | None, rules: Rules) -> None:
    """Raise ValueError unless ``settle`` is a settling mode (or None) that ``rules`` allow."""
    if settle is not None and settle not in SETTLE_MODES:
        raise ValueError(f"unknown settle mode {settle!r}; known: {', '.join(SETTLE_MODES)}")
    if settle == "status" and rules.scoring != "area":
        raise ValueError("settling by the engines' dead stones needs area scoring")


def default_settle(cleanup_players: bool) -> str:
    """The mode when none is asked for: a clean-up phase when an engine takes part that has one."""
    return "cleanup" if cleanup_players else "count"


def settle_by_dead_stones(
    game: Game, answers: list[list[int]], ask_arbiter: Callable[[], list[int]] | None
) -> Settled:
    """Black's margin without the dead stones: those both players named (``answers``, one list
    of points per player that could answer), or else those the arbiter names; chains in seki
    among them live (``count_without``)."""
    if len(answers) == 2 and answers[0] == answers[1]:
        dead, how = answers[0], "dead stones agreed by both"
    elif ask_arbiter is not None:
        try:
            dead = ask_arbiter()
        except Exception as error:
            return Settled(
                game.score(), f"the arbiter failed ({type(error).__name__}: {error}); counted as it stands"
            )
        how = "dead stones named by the arbiter"
    else:
        return Settled(game.score(), "dead stones not agreed and no arbiter; counted as it stands")
    return count_without(game, dead, how, naming=True)


Judge = Callable[[Game], list[int] | None]  # a game's dead stones, None when it cannot judge it


def settle_by_judges(game: Game, judges: Mapping[str, Judge]) -> Settled:
    """``game`` counted without the dead stones the first of ``judges`` (in order) that can
    judge it names (``how``: its name; chains in seki live), else as it stands
    (``AS_IT_STANDS``). A judge that fails is said on stderr and the next one asked."""
    for name, judge in judges.items():
        try:
            dead = judge(game)
        except Exception as error:
            print(f"{name} could not judge the dead stones: {type(error).__name__}: {error}", file=sys.stderr)
            continue
        if dead is not None:
            return count_without(game, dead, name)
    return Settled(game.score(), AS_IT_STANDS)


# -- the clean-up phase ------------------------------------------------------------------


def cleanup_move(
    game: Game, ownership: np.ndarray, threshold: float = DEAD_THRESHOLD, *, default: int | None = None
) -> int:
    """A clean-up move (GTP's ``kgs-genmove_cleanup``): the ``settling_move`` that takes off
    the other side's stones ``ownership`` (Black's view) calls dead, captures first, else
    ``default`` (pass when None) once nothing dead is left. It plays nothing else: not in a
    seki, not on a liberty of a race its own chain would lose, not in its own area."""
    move = settling_move(game, ownership, threshold)
    if move is not None:
        return move
    return game.pass_move if default is None else default


def fills_seki(game: Game, move: int) -> bool:
    """Whether ``move`` fills a shared liberty of a seki on ``game``'s board."""
    return move in seki_liberties(game)
