"""What a league is (``LeagueConfig``: players, rules, games per pair, schedule), apart from the
running of it, so that a report can read a stored league without the runner."""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass
from typing import Any

from go_env import Rules, default_komi
from go_env.game import MAX_SIZE, MIN_SIZE
from goarena.search.settle import check_settle

SCHEDULES = ("round-robin", "gauntlet")
MAX_GAMES_PER_PAIR = 10_000
MAX_GAMES = 100_000  # in all: more than a day's play at a game a second
MAX_SEED = 2**31 - 1  # game seeds (seed * 1_000_003 + game) stay well inside 64 bits


class LeagueConfigError(ValueError):
    """A league configuration that cannot be played."""


@dataclass(frozen=True)
class LeagueConfig:
    """What a league is: who plays, under which rules, how often."""

    players: dict[str, str]  # name -> agent spec
    name: str = "league"
    size: int = 9
    rules: str = "goarena"
    komi: float | None = None  # None: go_env.rules.default_komi(size) (7 on 9x9, as CGOS and the networks)
    games_per_pair: int = 4
    schedule: str = "round-robin"
    challenger: str | None = None
    seconds_per_move: float | None = None
    seed: int = 0
    anchor: str | None = None
    anchor_elo: float | None = None
    settle: str | None = None  # see search.settle: count, cleanup, status; None: by the players
    arbiter: str | None = None  # with settle = "status": an engine spec that names disputed dead stones
    opening_moves: int = 0  # random moves opening each pair of games, one game with each colour

    def __post_init__(self) -> None:
        if self.komi is None and isinstance(self.size, int):  # stored as the number it stands for
            object.__setattr__(self, "komi", default_komi(self.size))
        if not isinstance(self.name, str) or not self.name.strip():
            raise LeagueConfigError(f"the league's name must be a non-empty string, got {self.name!r}")
        if len(self.players) < 2:
            raise LeagueConfigError("a league needs at least two players")
        if not all(name.strip() and spec.strip() for name, spec in self.players.items()):
            raise LeagueConfigError("every player needs a name and a spec")
        for option in ("rules", "schedule", "challenger", "anchor", "settle", "arbiter"):
            value = getattr(self, option)
            if not isinstance(value, str) and (value is not None or option in ("rules", "schedule")):
                raise LeagueConfigError(f"{option} must be text, got {value!r}")
        _check_whole("size", self.size, MIN_SIZE, MAX_SIZE)
        _check_whole("games_per_pair", self.games_per_pair, 1, MAX_GAMES_PER_PAIR)
        _check_whole("seed", self.seed, 0, MAX_SEED)
        if isinstance(self.size, int):
            _check_whole("opening_moves", self.opening_moves, 0, self.size * self.size // 2)
        if self.seconds_per_move is not None and not (
            _is_finite(self.seconds_per_move) and self.seconds_per_move > 0
        ):
            raise LeagueConfigError(
                f"seconds_per_move must be a number of seconds above 0, got {self.seconds_per_move!r}"
            )
        for option in ("komi", "anchor_elo"):
            value = getattr(self, option)
            if value is not None and not _is_finite(value):
                raise LeagueConfigError(f"{option} must be a finite number, got {value!r}")
        if self.schedule not in SCHEDULES:
            raise LeagueConfigError(f"unknown schedule {self.schedule!r}; known: {', '.join(SCHEDULES)}")
        if self.schedule == "gauntlet" and self.challenger not in self.players:
            raise LeagueConfigError(
                f"a gauntlet needs a challenger among the players, got {self.challenger!r}"
            )
        if self.game_count > MAX_GAMES:
            raise LeagueConfigError(
                f"{self.game_count} games are more than a league plays (at most {MAX_GAMES})"
            )
        if self.anchor is not None and self.anchor not in self.players:
            raise LeagueConfigError(f"the anchor {self.anchor!r} is not a player")
        rules = self.game_rules()  # raises on an unknown preset or a bad komi
        try:
            check_settle(self.settle, rules)
        except ValueError as error:
            raise LeagueConfigError(str(error)) from None
        if self.arbiter is not None and self.settle != "status":
            raise LeagueConfigError('an arbiter takes part only with settle = "status"')

    @property
    def game_count(self) -> int:
        """Games in the league's schedule (a grown league's stages only ever add to it)."""
        return len(pairs(self, list(self.players))) * self.games_per_pair

    def game_rules(self) -> Rules:
        try:
            return Rules.preset(self.rules, komi=self.komi)
        except (ValueError, TypeError) as error:
            raise LeagueConfigError(str(error)) from None

    def rated_anchor(self) -> tuple[str, float]:
        """The anchored player and its rating: as configured, else GNU Go level 10 = 1000,
        else random = 0, else the player whose name sorts first = 0: names decide, never
        the order in which the players are listed."""
        if self.anchor is not None:
            return self.anchor, self.anchor_elo if self.anchor_elo is not None else 0.0
        names = sorted(self.players)
        for name in names:
            spec = self.players[name]
            if spec.startswith("gtp:") and "gnugo" in spec and "--level 10" in spec:
                return name, 1000.0
        for name in names:
            if self.players[name].split(":")[0] == "random":
                return name, 0.0
        return names[0], 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LeagueConfig:
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(data) - known)
        if unknown:
            raise LeagueConfigError(f"unknown league option(s): {', '.join(unknown)}")
        players = data.get("players")
        if isinstance(players, list):  # a list of specs: each names itself
            players = {str(spec): str(spec) for spec in players}
        if not isinstance(players, dict):
            raise LeagueConfigError("players must be a table of name = spec (or a list of specs)")
        try:
            return cls(**{**data, "players": {str(k): str(v) for k, v in players.items()}})
        except TypeError as error:
            raise LeagueConfigError(f"bad league option: {error}") from None


def _is_finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_whole(option: str, value: object, low: int, high: int) -> None:
    if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
        raise LeagueConfigError(f"{option} must be a whole number from {low} to {high}, got {value!r}")


def pairs(config: LeagueConfig, names: list[str]) -> list[tuple[str, str]]:
    """Every pair of ``names`` (round robin), or the challenger and each other name
    (gauntlet); the first of a pair plays Black in the even rounds."""
    if config.schedule == "round-robin":
        return list(itertools.combinations(names, 2))
    challenger = str(config.challenger)
    return [(challenger, other) for other in names if other != challenger]
