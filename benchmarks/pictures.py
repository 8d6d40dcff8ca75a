"""Pictures of a position's ownership: each point shaded by its final owner, from Black's view.

``plot_ownership(game, ownership)`` draws any game's position with an ownership map for its side
to move (an ``Action.ownership``, an ``OwnershipAgent``'s, ``ownership_map``'s) on a matplotlib
figure, and writes it as a PNG when given a path; it works on a live game as well as on a
record. Black's points are shaded black, White's white, a point neither side owns grey; the
stones are drawn smaller on top, so that a stone on the other side's ground (dead) shows. The
title gives the position (its move number, who is to move), then V from Black's view (the sum
of the map, komi included) and, when known, the probability that Black wins, both of that
position::

    from goarena.benchmarks.pictures import plot_ownership
    action = player.act(game)                    # an ownership-greedy or zero player
    plot_ownership(game, action.ownership, "position.png")

``record_position`` replays an SGF record to a move; ``network_ownership`` and
``player_ownership`` ask an ownership network or a player for the map; ``show_ownership`` (the
``goarena show ownership`` command) is the three together.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from go_env import coords
from go_env.game import BLACK, WHITE, Game
from go_env.render import star_points
from go_env.sgf import SgfError, load_sgf

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FIGSIZE = (6.0, 5.0)  # inches: a 600 x 500 PNG at DPI
DPI = 100
STONE_RADIUS = 0.3  # of the distance between lines: the shading shows around each stone
LINE_COLOR = "#b07a3c"  # wood brown: seen on black, grey and white alike
LAST_MOVE_COLOR = "#d62728"


def black_view(game: Game, ownership: np.ndarray) -> np.ndarray:
    """float64[N*N]: ``ownership`` (for ``game``'s side to move) from Black's view, +1 Black's.

    Raises:
        ValueError: a map that is not N*N numbers in [-1, 1].
    """
    values = np.asarray(ownership, np.float64)
    if values.shape != (game.num_points,):
        raise ValueError(
            f"an ownership map of a {game.size}x{game.size} board is float[{game.num_points}], "
            f"got shape {values.shape}"
        )
    if not (np.isfinite(values).all() and (np.abs(values) <= 1.0 + 1e-6).all()):
        raise ValueError("ownership values are numbers in [-1, 1]")
    return values if game.to_play == BLACK else -values


def black_score(game: Game, ownership: np.ndarray) -> float:
    """V from Black's view: the sum of Black's ownership less the komi (> 0: Black wins the count)."""
    return float(black_view(game, ownership).sum() - game.rules.komi)


def ownership_title(game: Game, ownership: np.ndarray, win_probability: float | None = None) -> str:
    """The picture's title: the position (its move number, who is to move), then V for Black
    and, when given, the probability that Black wins, both of that position (not of the one
    after a move) and from Black's view whoever is to move."""
    mover = "Black" if game.to_play == BLACK else "White"
    over = " (game over)" if game.is_over else ""
    head = f"Move {len(game.moves)}, {mover} to move{over}: this position's figures, for Black"
    line = f"V = {black_score(game, ownership):+.1f} for Black (komi {game.rules.komi:g} included)"
    if win_probability is not None:
        line += f", Black wins {win_probability:.0%}"
    return f"{head}\n{line}"


def plot_ownership(
    game: Game,
    ownership: np.ndarray,
    path: Path | str | None = None,
    ax: Axes | None = None,
    *,
    win_probability: float | None = None,
) -> Figure:
    """Draw ``game``'s position shaded by ``ownership`` (see the module documentation).

    Args:
        game: the position (its board, side to move, komi and last move are drawn).
        ownership: float[N*N] in [-1, 1], row by row from the top left, for the side to move.
        path: where to write the PNG, if anywhere.
        ax: the axes to draw on (its figure gets the colour bar); None makes a figure of
            ``FIGSIZE`` inches.
        win_probability: the probability that Black wins, for the title; None leaves it out.

    Returns:
        The figure; its title is ``ax.get_title()``.
    """
    from matplotlib.figure import Figure  # imported here: the league and the CLI need none
    from matplotlib.patches import Circle

    values = black_view(game, ownership)
    size = game.size
    if ax is None:
        ax = Figure(figsize=FIGSIZE).add_subplot()
    figure = cast("Figure", ax.figure)
    image = ax.imshow(
        values.reshape(size, size),
        cmap="gray_r",  # +1 (Black's) black, -1 (White's) white, 0 grey
        vmin=-1.0,
        vmax=1.0,
        extent=(-0.5, size - 0.5, size - 0.5, -0.5),
        interpolation="nearest",
    )
    for line in range(size):
        ax.plot([0, size - 1], [line, line], color=LINE_COLOR, linewidth=0.8, zorder=2)
        ax.plot([line, line], [0, size - 1], color=LINE_COLOR, linewidth=0.8, zorder=2)
    for row, col in star_points(size):
        ax.add_patch(Circle((col, row), 0.07, color=LINE_COLOR, zorder=2))
    board = game.board.reshape(size, size)
    for color, face, edge in ((BLACK, "black", "white"), (WHITE, "white", "black")):
        for row, col in zip(*np.nonzero(board == color), strict=True):
            ax.add_patch(
                Circle((col, row), STONE_RADIUS, facecolor=face, edgecolor=edge, linewidth=1.2, zorder=3)
            )
    last = game.last_move
    if last is not None and last != game.pass_move:
        row, col = divmod(last, size)
        ax.add_patch(Circle((col, row), 0.1, color=LAST_MOVE_COLOR, zorder=4))
    ax.set_xlim(-0.5, size - 0.5)
    ax.set_ylim(size - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.set_xticks(range(size), list(coords.GTP_COLUMNS[:size]))
    ax.set_yticks(range(size), [str(size - row) for row in range(size)])
    ax.tick_params(length=0)
    ax.set_title(ownership_title(game, ownership, win_probability), fontsize=10)
    figure.colorbar(image, ax=ax, label="final owner: +1 Black, -1 White")
    if path is not None:
        figure.savefig(path, dpi=DPI)
    return figure


def record_position(path: Path | str, move: int | None = None) -> Game:
    """The game of the SGF record at ``path`` after its first ``move`` moves (0: the setup
    position; None: the whole record).

    Raises:
        ValueError: the file cannot be read, is no SGF record of Go, or has fewer moves.
    """
    try:
        record = load_sgf(path)
    except SgfError as error:
        raise ValueError(f"{path}: {error}") from None
    except OSError as error:
        raise ValueError(f"{path}: cannot read the record: {error.strerror or error}") from None
    total = len(record.moves)
    if move is None:
        return record.game
    if not 0 <= move <= total:
        raise ValueError(
            f"--move {move} is out of range: {path} has {total} moves (0 is the position before the first)"
        )
    game = record.game
    for _ in range(total - move):
        game.undo()
    return game


def network_ownership(weights: Path | str, game: Game, device: str = "cpu") -> tuple[np.ndarray, float]:
    """The ownership network's map of ``game``'s position (for its side to move) and its
    calibrated probability that Black wins.

    Raises:
        NetworkFileError: the file is missing, unreadable, not an ownership network, or a
            win-probability one (no ownership head).
        UnsupportedGame: a network trained for another board size.
    """
    from go_env.core import GoState
    from goarena.agents.inference.ownership import estimate
    from goarena.agents.nets.errors import refuse
    from goarena.agents.nets.load import load_network
    from goarena.agents.nets.ownership import NO_OWNERSHIP
    from goarena.agents.protocols import check_board_size

    model = load_network(weights, "ownership", device).model
    check_board_size(model.board_size, game.size, "the ownership network was")
    found = estimate(model, GoState(*(field[None] for field in game.state)), game.geometry)
    if found.ownership is None:
        raise refuse(weights, NO_OWNERSHIP)
    p = float(found.win_probability[0])
    return found.ownership[0], p if game.to_play == BLACK else 1.0 - p


def player_ownership(spec: str, game: Game, device: str = "cpu") -> tuple[np.ndarray, float | None]:
    """The map of ``game``'s position (for its side to move) by the player of ``spec``, and
    the probability that Black wins in that position (None when the player gives no value, or
    the game is over).

    Both are of the position itself, as ``network_ownership``'s: a network player's are its
    network's, without search (its ``evaluate(game)`` and ``ownership(game)``), not its
    ``act()``'s, whose value a greedy player takes from the position after its chosen move
    (so that ``ownership-greedy`` once printed "Black wins 75%" beside the network's 31% for
    the empty board at komi 7). A player without them gives its ``act()``'s: a search's
    root value, the position's as searched.

    Raises:
        ValueError: a bad spec, or a player that gives no ownership.
    """
    from goarena.agents.protocols import Actor, GameContext, OwnershipAgent
    from goarena.agents.specs import make_agent

    player = make_agent(spec)
    player.reset(GameContext(game.size, game.rules, device=device))
    ownership, value = None, None
    if isinstance(player, OwnershipAgent):
        ownership = player.ownership(game.copy())
    evaluate = getattr(player, "evaluate", None)
    if callable(evaluate) and not game.is_over:
        value = evaluate(game.copy())[1]  # (policy, the value of the position for its mover)
    if (ownership is None or value is None) and isinstance(player, Actor) and not game.is_over:
        action = player.act(game.copy())
        ownership = action.ownership if ownership is None else ownership
        value = action.value if value is None else value
    if ownership is None:
        raise ValueError(f"--player {spec}: {player.name} gives no ownership map (its act() has none)")
    if value is None:
        return ownership, None
    p = (value + 1.0) / 2.0
    return ownership, p if game.to_play == BLACK else 1.0 - p


@dataclass(frozen=True)
class Shown:
    """What ``show_ownership`` drew."""

    path: Path
    game: Game
    ownership: np.ndarray  # float[N*N], for the side to move
    win_probability: float | None  # that Black wins
    title: str


def default_picture(sgf: Path | str, move: int | None, game: Game) -> Path:
    """``game.sgf`` -> ``game-ownership-N.png``, beside the record (N the move shown)."""
    sgf = Path(sgf)
    return sgf.with_name(f"{sgf.stem}-ownership-{len(game.moves) if move is None else move}.png")


def show_ownership(
    sgf: Path | str,
    move: int | None = None,
    *,
    weights: Path | str | None = None,
    player: str | None = None,
    out: Path | str | None = None,
    device: str = "cpu",
) -> Shown:
    """Replay ``sgf`` to ``move``, ask the ownership network at ``weights`` (or the player of
    the spec ``player``; neither: the shipped 9x9 ownership network) for its map, and write
    the picture to ``out`` (default ``default_picture``).

    Raises:
        ValueError: both weights and player, or as ``record_position``,
            ``network_ownership`` and ``player_ownership``.
    """
    if weights is not None and player is not None:
        raise ValueError("give an ownership network's --weights or a --player, one of them")
    if weights is None and player is None:
        from goarena.agents.weights import OWNERSHIP_9X9

        weights = OWNERSHIP_9X9
    game = record_position(sgf, move)
    p: float | None
    if weights is not None:
        ownership, p = network_ownership(weights, game, device)
    else:
        ownership, p = player_ownership(str(player), game, device)
    path = Path(out) if out is not None else default_picture(sgf, move, game)
    figure = plot_ownership(game, ownership, path, win_probability=p)
    return Shown(path, game, np.asarray(ownership), p, figure.axes[0].get_title())
