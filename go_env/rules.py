"""Rulesets: independent axes (komi, ko, suicide, scoring, move cap) with named presets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from go_env import core as K

KoRule = Literal["positional", "situational", "simple"]
Scoring = Literal["area", "territory"]

_KO_CODES = {"simple": K.KO_SIMPLE, "positional": K.KO_POSITIONAL, "situational": K.KO_SITUATIONAL}
_SCORING_CODES = {"area": K.SCORING_AREA, "territory": K.SCORING_TERRITORY}

# The largest move cap. A game's position set is sized to its cap (16 to 32 bytes a move:
# 2 MiB here); 100_000 is 80 times the default cap of the largest board (2 * 25 * 25).
MAX_MOVES = 100_000
# The largest komi either way: past the 625 points of the largest board it decides every game.
MAX_KOMI = 1000

# The komi a game gets when nobody names one, by board size: the one place every default
# (the envs, leagues, benchmarks, data commands) reads. 9x9 plays 7, as 9x9 CGOS does and as
# the shipped networks were trained and measured; every other size 7.5, PettingZoo's own Go
# (go_v5) on 19x19, and a half point that leaves no draws.
KOMI_BY_SIZE: dict[int, float] = {9: 7.0}
DEFAULT_KOMI = 7.5  # the other sizes', and that of a Rules made without a board size


def default_komi(size: int) -> float:
    """The komi of a ``size`` x ``size`` game when none is given (see ``KOMI_BY_SIZE``)."""
    return KOMI_BY_SIZE.get(size, DEFAULT_KOMI)


def board_rules(size: int, rules: Rules | None = None, komi: float | None = None) -> Rules:
    """The rules an env plays a ``size`` board under: ``rules`` (default ``Rules()`` with the
    size's komi, ``default_komi``), with ``komi`` in place of theirs when it is given."""
    rules = rules if rules is not None else Rules(komi=default_komi(size))
    return dataclasses.replace(rules, komi=komi) if komi is not None else rules


@dataclass(frozen=True)
class Rules:
    """The rules a game is played under; recorded with every game.

    Attributes:
        komi: points given to White, a multiple of 0.5 from ``-MAX_KOMI`` to ``MAX_KOMI``.
            An integer komi allows a draw (jigo), scored 0. ``Rules()`` has 7.5; the envs
            and commands, which know the board size, take ``default_komi(size)``.
        ko: ``"positional"`` superko (no move may repeat an earlier board), ``"situational"``
            superko (nor an earlier board with the same side to move), or ``"simple"`` ko
            (only the immediate recapture of a single stone is forbidden).
        suicide: whether a move that leaves its own chain without liberties is allowed
            (the chain is then removed).
        scoring: ``"area"`` (Tromp-Taylor: stones plus surrounded empty points) or
            ``"territory"`` (surrounded empty points plus captured stones). Either way every
            stone on the board counts as alive: games are played out.
        max_moves: moves (passes included) after which the game is truncated, 1 to
            ``MAX_MOVES``; ``None`` means ``2 * N * N``.
        name: the preset the rules came from, for records (``"custom"`` otherwise).

    Raises:
        ValueError: a field of the wrong type or out of range (a wrong type too, so that
            callers reading rules from files catch one exception).
    """

    komi: float = DEFAULT_KOMI
    ko: KoRule = "positional"
    suicide: bool = False
    scoring: Scoring = "area"
    max_moves: int | None = None
    name: str = "goarena"

    def __post_init__(self) -> None:
        if not isinstance(self.ko, str) or self.ko not in _KO_CODES:
            raise ValueError(f"unknown ko rule {self.ko!r}; expected one of {sorted(_KO_CODES)}")
        if not isinstance(self.scoring, str) or self.scoring not in _SCORING_CODES:
            raise ValueError(f"unknown scoring {self.scoring!r}; expected 'area' or 'territory'")
        if not isinstance(self.suicide, bool):
            raise ValueError(f"suicide must be True or False, got {self.suicide!r}")
        if not isinstance(self.komi, (int, float)) or isinstance(self.komi, bool):
            raise ValueError(f"komi must be a number, got {self.komi!r}")
        if not -MAX_KOMI <= self.komi <= MAX_KOMI or 2 * self.komi != int(2 * self.komi):
            bounds = f"from -{MAX_KOMI} to {MAX_KOMI}"
            raise ValueError(f"komi must be a multiple of 0.5 {bounds}, got {self.komi}")
        if self.max_moves is not None:
            if not isinstance(self.max_moves, int) or isinstance(self.max_moves, bool):
                raise ValueError(f"max_moves must be an integer or None, got {self.max_moves!r}")
            if not 1 <= self.max_moves <= MAX_MOVES:
                raise ValueError(f"max_moves must be between 1 and {MAX_MOVES}, got {self.max_moves}")
        if not isinstance(self.name, str):
            raise ValueError(f"the rules' name must be text, got {self.name!r}")

    @classmethod
    def preset(cls, name: str, **overrides: object) -> Rules:
        """A named preset, optionally with some fields overridden."""
        try:
            rules = RULES_PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown rules preset {name!r}; known: {sorted(RULES_PRESETS)}") from None
        return dataclasses.replace(rules, **overrides) if overrides else rules  # type: ignore[arg-type]

    def move_cap(self, size: int) -> int:
        return self.max_moves if self.max_moves is not None else 2 * size * size

    def kernel_rules(self, size: int) -> tuple[int, int, int, int, int]:
        """(ko rule code, suicide allowed, move cap, komi in half points, scoring code) as
        the kernels take them (``core.reset``, ``core.new_state``)."""
        komi_half_points = int(2 * self.komi)  # exact: komi is a multiple of 0.5
        scoring = _SCORING_CODES[self.scoring]
        return _KO_CODES[self.ko], int(self.suicide), self.move_cap(size), komi_half_points, scoring

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


RULES_PRESETS: dict[str, Rules] = {
    # goarena's default: Tromp-Taylor scoring with suicide forbidden (as CGOS plays).
    "goarena": Rules(),
    # Tromp-Taylor proper: area scoring, positional superko, suicide allowed.
    "tromp-taylor": Rules(komi=7.5, ko="positional", suicide=True, scoring="area", name="tromp-taylor"),
    # Chinese: area scoring, simple ko as played in practice, no suicide.
    "chinese": Rules(komi=7.5, ko="simple", suicide=False, scoring="area", name="chinese"),
    # Territory plus prisoners with simple ko; all stones alive, so games are played out.
    "japanese-like": Rules(komi=6.5, ko="simple", suicide=False, scoring="territory", name="japanese-like"),
}
