"""Pictures of a game: text (``ansi``), an RGB array (``rgb_array``) and a window (``human``).

``ansi`` draws the board as GNU Go's ``showboard`` does; ``rgb_array`` paints a wooden board
with numpy alone; ``human`` shows that picture in a pygame window (``pip install goarena[render]``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import gymnasium
import numpy as np

from go_env import coords
from go_env.game import BLACK, EMPTY, WHITE, Game

RENDER_MODES = ("human", "ansi", "rgb_array")

# Colours, RGB.
WOOD = np.array([219, 176, 102], np.float32)
LINE = np.array([48, 34, 20], np.float32)
STONE_COLORS = {BLACK: np.array([22, 22, 24], np.float32), WHITE: np.array([236, 236, 230], np.float32)}
OUTLINE = np.array([70, 70, 70], np.float32)


def star_points(size: int) -> list[tuple[int, int]]:
    """(row, col) of the star points (hoshi) drawn on a ``size`` x ``size`` board."""
    if size < 7:
        return []
    edge = 2 if size <= 12 else 3
    far = size - 1 - edge
    points = [(edge, edge), (edge, far), (far, edge), (far, far)]
    if size % 2:
        mid = size // 2
        points.append((mid, mid))
        if size >= 15:
            points += [(edge, mid), (mid, edge), (mid, far), (far, mid)]
    return points


def ansi(game: Game) -> str:
    """The board as text, as GNU Go's ``showboard`` prints it.

    ``X`` is Black, ``O`` White, ``+`` a star point; the last move is in parentheses.
    """
    size = game.size
    cells = np.array(list(".XO"))[game.board]
    for row, col in star_points(size):
        if game.board[row, col] == EMPTY:
            cells[row, col] = "+"
    last = game.last_move
    last_row, last_col = divmod(last, size) if last is not None and last != game.pass_move else (-1, -1)
    header = "  " + "".join(" " + letter for letter in coords.GTP_COLUMNS[:size])
    notes = {
        size - 2: f"WHITE (O) has captured {game.captures(WHITE)} stones",
        size - 1: f"BLACK (X) has captured {game.captures(BLACK)} stones",
    }
    lines = [header]
    for row in range(size):
        seps = [" "] * (size + 1)
        if row == last_row:
            seps[last_col], seps[last_col + 1] = "(", ")"
        label = size - row
        points = "".join(s + c for s, c in zip(seps[:size], cells[row], strict=True)) + seps[size]
        line = f"{label:2d}{points}{label}"
        if row in notes:
            line += "     " + notes[row]
        lines.append(line)
    lines.append(header)
    return "\n".join(lines)


@lru_cache(maxsize=8)
def _board_picture(size: int, cell: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The empty board, and for every pixel its nearest point and distance to it.

    Returns:
        background: float32[H, W, 3], wood with grid lines and star points.
        rows, cols: int64[H, W], the nearest point's row and column.
        distance: float32[H, W], pixels from the nearest point's centre.
    """
    side = cell * (size + 1)
    y, x = np.mgrid[0:side, 0:side].astype(np.float32)
    fy, fx = y / cell - 1, x / cell - 1  # in points, the top-left point at (0, 0)
    rows = np.clip(np.rint(fy), 0, size - 1).astype(np.int64)
    cols = np.clip(np.rint(fx), 0, size - 1).astype(np.int64)
    dy, dx = (fy - rows) * cell, (fx - cols) * cell
    distance = np.hypot(dy, dx)

    grain = 1 + 0.03 * np.sin(x / 3.0 + 4 * np.sin(y / 41.0)) + 0.02 * np.sin(x / 11.0)
    background = WOOD * grain[..., None]
    half_width = max(0.5, cell / 40)
    reach = half_width / cell  # lines stop at the edge points, not at the picture's edge
    inside = (np.minimum(fy, fx) >= -reach) & (np.maximum(fy, fx) <= size - 1 + reach)
    on_line = inside & ((np.abs(dy) <= half_width) | (np.abs(dx) <= half_width))
    stars = np.zeros((size, size), bool)
    for row, col in star_points(size):
        stars[row, col] = True
    on_star = stars[rows, cols] & (distance <= max(1.5, cell * 0.1))
    background[on_line | on_star] = LINE
    return background, rows, cols, distance


def rgb_array(game: Game, cell: int = 32) -> np.ndarray:
    """A picture of the board: wood, grid, star points, stones, and the last move ringed.

    Args:
        game: the game to draw.
        cell: pixels between neighbouring points; a margin of one cell surrounds the grid.

    Returns:
        uint8[H, W, 3] with ``H = W = cell * (N + 1)``; point (row, col) is drawn centred on
        pixel ``((row + 1) * cell, (col + 1) * cell)``.
    """
    background, rows, cols, distance = _board_picture(game.size, cell)
    image = background.copy()
    stone = game.board[rows, cols]
    radius = 0.47 * cell

    def paint(where: np.ndarray, color: np.ndarray, edge: np.ndarray) -> None:
        # Coverage from the signed distance to the edge: anti-aliased borders.
        alpha = np.clip(edge, 0, 1)[where][:, None]
        image[where] = image[where] * (1 - alpha) + color * alpha

    for color in (BLACK, WHITE):
        where = (stone == color) & (distance < radius + 1)
        outline = OUTLINE if color == WHITE else STONE_COLORS[BLACK]
        paint(where, outline, radius + 0.5 - distance)
        paint(where, STONE_COLORS[color], radius - 0.5 - distance)

    last = game.last_move
    if last is not None and last != game.pass_move:
        row, col = divmod(last, game.size)
        ring = (rows == row) & (cols == col)
        contrast = STONE_COLORS[WHITE if game.board[row, col] == BLACK else BLACK]
        paint(ring, contrast, max(1.0, cell / 16) - np.abs(distance - 0.25 * cell))
    return np.rint(image).astype(np.uint8)


class Renderer:
    """Renders a game in one of ``RENDER_MODES`` for the environments.

    Args:
        mode: ``"ansi"``, ``"rgb_array"``, ``"human"``, or ``None`` for no rendering.
        fps: frames per second of the ``human`` window.
    """

    def __init__(self, mode: str | None, fps: int = 2):
        if mode is not None and mode not in RENDER_MODES:
            raise ValueError(f"unknown render_mode {mode!r}; expected one of {RENDER_MODES} or None")
        self.mode = mode
        self.fps = fps
        self._window: Any = None  # pygame's display surface and clock, once shown
        self._clock: Any = None
        if mode == "human":
            _import_pygame()  # fail at construction, not at the first frame

    def render(self, game: Game) -> str | np.ndarray | None:
        """The text (``ansi``) or picture (``rgb_array``) of ``game``; ``human`` shows it, returns None."""
        if self.mode is None:
            gymnasium.logger.warn("render() needs a render_mode: create the env with render_mode=...")
            return None
        if self.mode == "ansi":
            return ansi(game)
        if self.mode == "rgb_array":
            return rgb_array(game)
        if self.mode == "human":
            self._show(rgb_array(game))
        return None

    def _show(self, frame: np.ndarray) -> None:
        pygame = _import_pygame()
        if self._window is None:
            pygame.display.init()
            pygame.display.set_caption("goarena")
            self._window = pygame.display.set_mode(frame.shape[1::-1])
            self._clock = pygame.time.Clock()
        pygame.event.pump()
        self._window.blit(pygame.surfarray.make_surface(frame.swapaxes(0, 1)), (0, 0))
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        if self._window is not None:
            pygame = _import_pygame()
            pygame.display.quit()
            self._window = self._clock = None


def _import_pygame():
    try:
        import pygame
    except ImportError as error:
        from gymnasium.error import DependencyNotInstalled

        raise DependencyNotInstalled(
            'render_mode="human" needs pygame: pip install "goarena[render]" (or pip install pygame)'
        ) from error
    return pygame
