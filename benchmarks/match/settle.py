"""How a game that ended by two passes is scored: the settling strategies of the referee.

``count``: the board as it stands; our own players play their games out, so that is right.

``cleanup``: engines such as GNU Go pass with dead stones still on the board, and an area
count of that board can name the wrong winner. The two passes open a clean-up phase, as on
KGS: the game is resumed (``Game.resume``, the passes stay in its record) and play goes on, the
engines asking for moves with ``kgs-genmove_cleanup`` (which captures every dead stone), until
two more passes; then the board is counted.

``status``: the players that can (``StatusReporter``) name the dead stones
(``final_status_list dead``): when both name the same ones they are taken off and the board
counted; otherwise a declared arbiter (an engine such as GNU Go) names them
(``settle_by_dead_stones``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from go_env import coords
from go_env.game import Game
from go_env.rules import Rules
from goarena.search.ownership import settled_score

SETTLE_MODES = ("count", "cleanup", "status")


@dataclass(frozen=True)
class Settled:
    """Black's margin once the dead stones were taken off, how they were named, and their points."""

    margin: float
    how: str
    dead: tuple[int, ...] = ()


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
    of points per player that could answer), or else those the arbiter names."""
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
    names = " ".join(coords.to_gtp(p, game.size) for p in dead) or "none"
    return Settled(score_without(game, dead), f"{how} ({names})", tuple(dead))


def score_without(game: Game, dead: Iterable[int]) -> float:
    """The area score of ``game``'s board with the ``dead`` stones taken off."""
    return settled_score(game, dead)
