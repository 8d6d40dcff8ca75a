"""Game clocks for the GTP engine: the time control a controller sets, each side's time left,
and the seconds a move may take.

A controller sets the time control with GTP's ``time_settings main byo_yomi stones``, KGS's
``kgs-time_settings`` or KataGo's ``kata-time_settings`` (``TimeControl.from_gtp``,
``TimeControl.from_kgs``, ``TimeControl.from_kata``), seconds throughout:

========================================  =================================================
command                                   time control
========================================  =================================================
``time_settings 300 0 0``                 sudden death: 300 s for the game
``time_settings 300 30 5``                Canadian: then 5 stones in every 30 s period
``time_settings 0 30 0``                  no time limit (GTP's convention: ``byo_yomi`` > 0,
                                          ``stones`` 0)
``kgs-time_settings none``                no time limit
``kgs-time_settings absolute 300``        sudden death
``kgs-time_settings byoyomi 300 30 5``    Japanese byo-yomi: then 5 periods of 30 s; a period
                                          is lost only by a move that runs past it
``kgs-time_settings canadian 300 30 5``   Canadian, as ``time_settings 300 30 5``
``kata-time_settings fischer 300 10``     Fischer: 300 s, and 10 s more after each move
``kata-time_settings fischer-capped``     ... ``300 10 600 60``: main time never above 600 s
                                          after the increment, no move over 60 s (-1: no
                                          such cap)
========================================  =================================================

``kata-time_settings`` takes every kind ``kgs-time_settings`` does (``byo-yomi`` too, as
KataGo's ``kata-list_time_settings`` spells it), and fractions of seconds everywhere.

Times over a year, times under a millisecond other than 0, and more than 10000 periods or
stones are refused: no game is played so, and such numbers overflow a budget's arithmetic.
``kgs-time-settings`` is the same command. Before a move the controller may say how much
time a side has left, ``time_left color seconds stones``: ``stones`` 0 is main time (``0 0``:
main time is over, overtime begins, as Pachi and Leela Zero read it; under Fischer time,
always 0); in Canadian overtime
``stones`` are the stones left to play in the period and ``seconds`` its time left; in Japanese
byo-yomi KGS sends the periods left as ``stones`` (as KataGo and Leela Zero read it).

``Clock`` keeps both sides' time as a controller's clock does (``spend`` charges a move and
says whether the side is still in time), and it is the engine's own clock: the engine charges
every move it makes with the time it measured, and takes ``time_left`` over that when it comes.

The budget of a move (``Clock.budget``) is what the side may spend on it:

- in main time, the main time left spread over the moves the side still expects to play
  (``expected_moves``: what a game of typical length, ``0.9 * points + 20`` moves, leaves,
  never fewer than ``0.2 * points + 20``, half of them the side's), plus what overtime gives
  each move for sure (a Japanese period, or a Canadian period over its stones): spending a
  share of what is left, never all of it, main time never runs out by the budget;
- under Fischer time, that share plus the increment, but never more than half the main time
  left (the increment comes only after the move) nor the most a move may take;
- in Canadian overtime, the period's time left over its stones left;
- in Japanese byo-yomi, one period (what is left of it);

less ``lag`` seconds for what the move costs besides the search (the engine's own latency
and the controller's), and never under ``MIN_MOVE_TIME``. With no time limit there is no
budget (None): the player keeps to its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from go_env.game import BLACK, WHITE

# Seconds kept back from each move's budget by default. On an idle machine the engine answers
# within 0.05 s of the budget (a search stops within a chunk of simulations of its deadline;
# settling dead stones, the final choice and moving the tree on take milliseconds), so the
# rest is the controller's: its pipe or network, and a time_left in whole seconds (GTP's
# integers) that may be rounded up. Over the internet, more (Leela Zero and KataGo keep 1 s).
DEFAULT_LAG = 0.5
MIN_MOVE_TIME = 0.05  # the least budget: a few chunks of any search's simulations
# The clocks a controller may set: anything outside is a typo or an attack, and would overflow
# the arithmetic of budgets and periods (1e306 s of main time, a 1e-320 s period).
MAX_SECONDS = 365 * 24 * 3600.0  # a year
MIN_SECONDS = 0.001  # the shortest time other than 0
MAX_COUNT = 10_000  # periods, or stones a period
# kata-time_settings' kinds (kata-list_time_settings), the first four kgs-time_settings' too.
KATA_TIME_SETTINGS = ("none", "absolute", "byoyomi", "canadian", "fischer", "fischer-capped")


@dataclass(frozen=True)
class TimeControl:
    """A game's time control, the same for both sides (seconds).

    Attributes:
        main: main time; ``math.inf``: no time limit.
        period: the length of an overtime period (0: none, sudden death).
        periods: Japanese byo-yomi's number of periods (0 unless Japanese).
        stones: Canadian overtime's stones per period (0 unless Canadian).
        increment: Fischer time's seconds added to the main time after each move (0: none).
        main_limit: Fischer time's cap on the main time after the increment (``math.inf``: none).
        move_limit: the most a move may take (``math.inf``: no limit but the clock's).
    """

    main: float = math.inf
    period: float = 0.0
    periods: int = 0
    stones: int = 0
    increment: float = 0.0
    main_limit: float = math.inf
    move_limit: float = math.inf

    def __post_init__(self) -> None:
        if math.isnan(self.main) or self.main < 0 or not 0 <= self.period < math.inf:
            raise ValueError(f"times are seconds, at least 0: main {self.main}, period {self.period}")
        if not self.unlimited:
            _check_seconds(self.main, "main time")
        _check_seconds(self.period, "period")
        if self.periods < 0 or self.stones < 0 or (self.periods and self.stones):
            raise ValueError(f"periods ({self.periods}) or stones ({self.stones}), at least 0, not both")
        if (count := max(self.periods, self.stones)) > MAX_COUNT:
            raise ValueError(f"at most {MAX_COUNT} periods or stones a period, got {count}")
        if bool(self.periods or self.stones) != (self.period > 0):
            raise ValueError("overtime has both a period's length and its periods or stones")
        fischer = self.increment or self.main_limit != math.inf or self.move_limit != math.inf
        if fischer and (self.period or self.unlimited):
            raise ValueError("Fischer time has a main time and no overtime")
        _check_seconds(self.increment, "increment")
        if not self.increment >= 0:
            raise ValueError(f"the increment is seconds, at least 0, got {self.increment}")
        if self.main_limit != math.inf and not self.main <= self.main_limit <= MAX_SECONDS:
            raise ValueError(
                f"the main time's cap {self.main_limit:g} s is under the main time {self.main:g} s"
            )
        if self.move_limit != math.inf:
            _check_seconds(self.move_limit, "time per move")
            if not self.move_limit > 0:
                raise ValueError(f"the time per move is positive seconds, got {self.move_limit}")

    @classmethod
    def from_gtp(cls, main: float, byo_yomi: float, stones: int) -> TimeControl:
        """GTP's ``time_settings``: Canadian overtime, or none (``byo_yomi`` 0), or no time
        limit at all (``byo_yomi`` > 0 and ``stones`` 0)."""
        if byo_yomi > 0 and stones == 0:
            return cls()
        if byo_yomi == 0:
            return cls(main)
        return cls(main, byo_yomi, stones=stones)

    @classmethod
    def from_kgs(cls, words: Sequence[str]) -> TimeControl:
        """KGS's ``kgs-time_settings none | absolute M | byoyomi M P N | canadian M P S``."""
        arities = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
        kind = words[0].lower() if words else ""
        if kind not in arities or len(words) != 1 + arities[kind]:
            raise ValueError(
                "expected none, absolute MAIN, byoyomi MAIN PERIOD PERIODS or canadian MAIN PERIOD STONES"
            )
        if kind == "none":
            return cls()
        main = _seconds(words[1], "main time")
        if kind == "absolute":
            return cls(main)
        period, count = _seconds(words[2], "period"), _count(words[3])
        if kind == "canadian":
            return cls.from_gtp(main, period, count)
        return cls(main, period, periods=count) if count and period else cls(main)

    @classmethod
    def from_kata(cls, words: Sequence[str]) -> TimeControl:
        """KataGo's ``kata-time_settings``: every kind of ``kgs-time_settings`` (``byo-yomi``
        spelt either way), ``fischer MAIN INCREMENT`` and ``fischer-capped MAIN INCREMENT
        MAIN_LIMIT MOVE_LIMIT`` (a negative limit: none); fractions of seconds anywhere."""
        kind = words[0].lower() if words else ""
        kind = "byoyomi" if kind == "byo-yomi" else kind
        if kind in KATA_TIME_SETTINGS[:4]:
            return cls.from_kgs([kind, *words[1:]])
        if kind not in KATA_TIME_SETTINGS:
            raise ValueError(
                "expected none, absolute MAIN, byoyomi MAIN PERIOD PERIODS, canadian MAIN PERIOD STONES, "
                "fischer MAIN INCREMENT or fischer-capped MAIN INCREMENT MAIN_LIMIT MOVE_LIMIT"
            )
        if len(words) != (3 if kind == "fischer" else 5):
            raise ValueError(
                "expected fischer MAIN INCREMENT or fischer-capped MAIN INCREMENT MAIN_LIMIT MOVE_LIMIT"
            )
        main, increment = _seconds(words[1], "main time"), _seconds(words[2], "increment")
        if kind == "fischer":
            return cls(main, increment=increment)
        main_limit, move_limit = (
            math.inf if limit < 0 else limit
            for limit in (_number(words[3], "main time limit"), _number(words[4], "time per move"))
        )
        return cls(main, increment=increment, main_limit=main_limit, move_limit=move_limit)

    @property
    def fischer(self) -> bool:
        """Whether moves add time (Fischer) or are capped one by one."""
        return bool(self.increment) or self.main_limit != math.inf or self.move_limit != math.inf

    @property
    def unlimited(self) -> bool:
        return self.main == math.inf

    def gtp(self) -> tuple[float, float, int]:
        """The nearest ``time_settings`` (main, byo_yomi, stones): Japanese byo-yomi as one
        Canadian period of one stone, its spare periods left out; Fischer time as sudden death
        on its main time (its increments reach the player through ``time_left``)."""
        if self.unlimited:
            return (0.0, 1.0, 0)
        return (self.main, self.period, self.stones or (1 if self.periods else 0))

    def __str__(self) -> str:
        if self.unlimited:
            return "no time limit"
        if self.fischer:
            text = f"{self.main:g} s + {self.increment:g} s a move (Fischer)"
            if self.main_limit != math.inf:
                text += f", main time at most {self.main_limit:g} s"
            if self.move_limit != math.inf:
                text += f", at most {self.move_limit:g} s a move"
            return text
        if self.periods:
            return f"{self.main:g} s + {self.periods} x {self.period:g} s byo-yomi"
        if self.stones:
            return f"{self.main:g} s + {self.stones} stones / {self.period:g} s"
        return f"{self.main:g} s sudden death"


@dataclass
class SideClock:
    """One side's time left.

    Attributes:
        main: main time left (``math.inf``: no limit).
        overtime: whether main time is over.
        period: in overtime, the time left in the current period.
        periods: in Japanese byo-yomi, the periods left (the current one included).
        stones: in Canadian overtime, the stones left to play in the current period.
        lost: the side ran out of time.
    """

    main: float
    overtime: bool = False
    period: float = 0.0
    periods: int = 0
    stones: int = 0
    lost: bool = False


def expected_moves(points: int, moves_played: int) -> float:
    """The moves a side still expects to play after ``moves_played`` moves on a board of
    ``points`` points: half of what a game of typical length leaves, with a floor."""
    return max(0.9 * points + 20 - moves_played, 0.2 * points + 20) / 2


class Clock:
    """Both sides' clocks under one time control (see the module documentation)."""

    def __init__(self, control: TimeControl | None = None):
        self.control = control if control is not None else TimeControl()
        self.sides = {color: SideClock(self.control.main) for color in (BLACK, WHITE)}
        if self.control.main == 0 and self.control.period:  # no main time: overtime from the start
            for side in self.sides.values():
                self._overtime(side)

    def _overtime(self, side: SideClock) -> None:
        """``side`` enters overtime, with a fresh period."""
        control = self.control
        side.main, side.overtime = 0.0, True
        side.period, side.periods, side.stones = control.period, control.periods, control.stones

    def set_left(self, color: int, seconds: float, stones: int) -> None:
        """GTP's ``time_left``: ``color`` has ``seconds`` left, in main time (``stones`` 0) or
        in overtime (the module documentation says how ``stones`` is read).

        Raises:
            ValueError: a time that is not finite or beyond a year, negative stones, or
                stones under a time control without overtime.
        """
        if not math.isfinite(seconds) or stones < 0:
            raise ValueError(f"time left {seconds} with {stones} stones")
        _check_seconds(abs(seconds), "time left")
        control, side = self.control, self.sides[color]
        if stones and not (control.periods or control.stones):
            raise ValueError("stones left, but the time control has no overtime")
        side.lost = False
        if stones == 0 and (seconds > 0 or not control.period):
            side.main, side.overtime = seconds, False
            return
        self._overtime(side)
        if stones:  # else: "0 0", main time just ended
            side.period = seconds
            if control.periods:
                side.periods = min(stones, control.periods)
            else:
                side.stones = min(stones, control.stones)

    def left(self, color: int) -> tuple[float, int] | None:
        """``color``'s time left as ``time_left`` says it (seconds, stones); None with no limit."""
        side = self.sides[color]
        if side.main == math.inf:
            return None
        if not side.overtime:
            return (side.main, 0)
        return (side.period, side.periods or side.stones)

    def spend(self, color: int, seconds: float) -> bool:
        """Charge ``color`` a move of ``seconds``; whether it is still in time."""
        control, side = self.control, self.sides[color]
        if control.fischer:  # the increment after the move, within the cap
            side.main -= seconds
            side.lost |= side.main < 0 or seconds > control.move_limit
            if not side.lost:
                side.main = min(side.main + control.increment, control.main_limit)
            return not side.lost
        if not side.overtime:
            side.main -= seconds
            if side.main >= 0 or side.main == math.inf:
                return not side.lost
            if not control.period:
                side.lost = True
                return False
            seconds = -side.main  # the rest of the move is played in overtime
            self._overtime(side)
        if control.periods:  # Japanese: periods run out only by a move longer than the period
            if seconds > side.period:
                side.periods -= 1 + int((seconds - side.period) // control.period)
            side.lost |= side.periods <= 0
            side.period = control.period
        else:  # Canadian: the stones must be played within the period
            side.period -= seconds
            side.stones -= 1
            side.lost |= side.period < 0
            if side.stones <= 0:
                side.period, side.stones = control.period, control.stones
        return not side.lost

    def budget(
        self,
        color: int,
        points: int,
        moves_played: int,
        lag: float = DEFAULT_LAG,
        minimum: float = MIN_MOVE_TIME,
    ) -> float | None:
        """The seconds ``color``'s next move may take, ``lag`` kept back, at least ``minimum``
        (see the module documentation); None with no time limit.

        Args:
            color: the side to move.
            points: the board's points (N * N).
            moves_played: the moves of the game so far, both sides', passes included.
            lag: seconds kept back for what the move costs besides the search.
            minimum: the least budget, however little time is left.
        """
        control, side = self.control, self.sides[color]
        if side.main == math.inf:
            return None
        if control.periods:
            per_move = control.period
        elif control.stones:
            per_move = control.period / control.stones
        else:
            per_move = 0.0
        if control.fischer:
            share = side.main / expected_moves(points, moves_played) + control.increment
            share = min(share, side.main / 2, control.move_limit)
        elif not side.overtime:
            share = side.main / expected_moves(points, moves_played) + per_move
        elif control.periods:
            share = min(side.period, control.period)
        else:
            share = side.period / max(side.stones, 1)
        return max(share - lag, minimum)


def _check_seconds(seconds: float, what: str) -> None:
    """Refuse a time (seconds, at least 0) outside the clocks a controller may set."""
    if seconds > MAX_SECONDS:
        raise ValueError(f"{what} {seconds:g} s is more than a year ({MAX_SECONDS:.0f} s)")
    if 0 < seconds < MIN_SECONDS:
        raise ValueError(f"{what} {seconds:g} s is less than {MIN_SECONDS:g} s")


def _seconds(text: str, what: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a number") from None
    if not 0 <= seconds < math.inf:
        raise ValueError(f"{what} {text!r} is not a time in seconds")
    return seconds


def _number(text: str, what: str) -> float:
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{what} {text!r} is not a time in seconds")
    return number


def _count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a whole number") from None
    if count < 0:
        raise ValueError(f"{count} is negative")
    return count
