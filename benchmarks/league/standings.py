"""A league's standings: ratings, crosstable, a ladder plot, JSON, and the live progress view.

The ratings are the maximum-likelihood Elo fit of ``benchmarks.league.ratings`` over every game,
with Black's first-move advantage as a term of its own, one player anchored (see
``LeagueConfig.rated_anchor``) and a weak prior of ``PRIOR_GAMES`` virtual games on every
term, so that a player who won or lost every game, or a colour that did, still leaves a
finite rating and a ladder in the order of the scores. The tables fit the terminal's width.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.ratings import Ratings, Result, fit_ratings
from goarena.benchmarks.league.store import LeagueStore, StoredGame

PRIOR_GAMES = 1.0


@dataclass(frozen=True)
class Standing:
    """One player's line in the table."""

    rank: int
    name: str
    elo: float
    low: float  # 95% interval
    high: float
    games: int
    points: float  # wins + draws / 2
    wins_as_black: float  # points: a draw counts half
    games_as_black: int
    wins_as_white: float
    games_as_white: int
    mean_opponent: float  # the mean Elo of the opponents faced
    los_next: float | None  # likelihood of superiority over the next player down

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.0


@dataclass(frozen=True)
class Report:
    name: str
    specs: dict[str, str]
    versions: dict[str, str]
    standings: list[Standing]
    # crosstable[a][b] = [points of a vs b as Black, games, points as White, games]
    crosstable: dict[str, dict[str, list[float]]]
    anchor: str
    anchor_elo: float
    black_advantage: float
    black_advantage_stderr: float
    games: int
    scheduled: int
    endings: dict[str, int]
    crashes: int = 0  # games lost to a player's crash, each with its traceback in crash_folder
    crash_folder: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["prior_games"] = PRIOR_GAMES
        return data


def build_report(store: LeagueStore) -> Report:
    """Ratings and tables of every game stored so far."""
    config = LeagueConfig.from_dict(store.config())
    games = store.games()
    names = list(config.players)
    anchor, anchor_elo = config.rated_anchor()
    ratings = _fit(games, names, anchor, anchor_elo)
    elo = {name: float(ratings.elo[ratings.players.index(name)]) if ratings else anchor_elo for name in names}
    cross = {a: {b: [0.0, 0.0, 0.0, 0.0] for b in names if b != a} for a in names}
    opponents: dict[str, list[float]] = {name: [] for name in names}
    for game in games:
        black_points = game.black_score
        cross[game.black][game.white][0] += black_points
        cross[game.black][game.white][1] += 1
        cross[game.white][game.black][2] += 1 - black_points
        cross[game.white][game.black][3] += 1
        opponents[game.black].append(elo[game.white])
        opponents[game.white].append(elo[game.black])
    order = sorted(names, key=lambda n: -elo[n])
    rows = []
    for rank, name in enumerate(order, 1):
        low, high = ratings.interval(name) if ratings else (anchor_elo, anchor_elo)
        below = order[rank] if rank < len(order) else None
        black_points, black_games, white_points, white_games = (
            sum(v[i] for v in cross[name].values()) for i in range(4)
        )
        rows.append(
            Standing(
                rank=rank,
                name=name,
                elo=round(elo[name], 1),
                low=round(low, 1),
                high=round(high, 1),
                games=int(black_games + white_games),
                points=black_points + white_points,
                wins_as_black=black_points,
                games_as_black=int(black_games),
                wins_as_white=white_points,
                games_as_white=int(white_games),
                mean_opponent=round(sum(opponents[name]) / len(opponents[name]), 1)
                if opponents[name]
                else 0.0,
                los_next=round(ratings.los(name, below), 4) if ratings and below else None,
            )
        )
    stored_players = store.players()
    return Report(
        name=config.name,
        specs=dict(config.players),
        versions={name: version for name, (_, version) in stored_players.items() if version},
        standings=rows,
        crosstable=cross,
        anchor=anchor,
        anchor_elo=anchor_elo,
        black_advantage=round(ratings.black_advantage, 1) if ratings else 0.0,
        black_advantage_stderr=round(ratings.black_advantage_stderr, 1) if ratings else 0.0,
        games=len(games),
        scheduled=config.game_count,
        endings=dict(Counter(_ending(game) for game in games)),
        crashes=sum(_ending(game) == "crash" for game in games),
        crash_folder=str(store.directory / "crashes"),
    )


def _fit(games: list[StoredGame], names: list[str], anchor: str, anchor_elo: float) -> Ratings | None:
    played = {g.black for g in games} | {g.white for g in games}
    if anchor not in played:
        return None
    results = [Result(g.black, g.white, g.black_score) for g in games]
    ratings = fit_ratings(results, anchor, anchor_elo, prior_games=PRIOR_GAMES)
    missing = [n for n in names if n not in ratings.players]
    return None if missing else ratings


def _ending(game: StoredGame) -> str:
    return game.reason.split(":")[0]


# ---------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------


def _record(points: float, games: int) -> str:
    return f"{points:g}/{games}" if games else "-"


def _console() -> Any:
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=120)  # files and pipes: wide, no wrapping


def _fits(console: Any, table: Any) -> bool:
    """Whether ``table`` fits the console with no cell wrapped or cut."""
    from rich.measure import Measurement

    unbounded = console.options.update_width(10_000)
    return Measurement.get(console, unbounded, table).maximum <= console.width


# The standings' columns that a narrow console drops, in this order; rank, player, Elo, its
# interval and the score always stay.
OPTIONAL_COLUMNS = (("opp. Elo",), ("games",), ("LOS next",), ("as Black", "as White"))


def _standings_table(report: Report, console: Any) -> Any:
    from rich.table import Table

    cells: dict[str, Callable[[Standing], str]] = {
        "#": lambda row: str(row.rank),
        "player": lambda row: row.name,
        "Elo": lambda row: f"{row.elo:.0f}",
        "95% CI": lambda row: "anchor" if row.name == report.anchor else f"{row.low:.0f} .. {row.high:.0f}",
        "games": lambda row: str(row.games),
        "score": lambda row: f"{row.score:.0%}",
        "as Black": lambda row: _record(row.wins_as_black, row.games_as_black),
        "as White": lambda row: _record(row.wins_as_white, row.games_as_white),
        "opp. Elo": lambda row: f"{row.mean_opponent:.0f}",
        "LOS next": lambda row: "" if row.los_next is None else f"{row.los_next:.0%}",
    }
    longest_name = max((len(row.name) for row in report.standings), default=0)
    for dropped in range(len(OPTIONAL_COLUMNS) + 1):
        hidden = {column for group in OPTIONAL_COLUMNS[:dropped] for column in group}
        shown = [column for column in cells if column not in hidden]
        table = Table(title=f"League {report.name}: {report.games}/{report.scheduled} games")
        for column in shown:
            if column == "player":  # a name is never cut: two would look alike
                table.add_column(column, no_wrap=True, min_width=longest_name)
            else:
                table.add_column(column, justify="right", no_wrap=True)
        for row in report.standings:
            table.add_row(*(cells[column](row) for column in shown))
        if _fits(console, table):
            break
    return table


def _crosstable(report: Report, console: Any) -> Any | None:
    """The crosstable in the widest form the console holds: split by colour under the
    players' names, then under their ranks, then in points only; None if none fits."""
    from rich.table import Table

    order = [row.name for row in report.standings]
    for by_rank, by_colour in ((False, True), (True, True), (True, False)):
        title = "Points of the row player against the column player"
        title += " (as Black / as White)" if by_colour else ""
        table = Table(title=title + (", by rank" if by_rank else ""))
        table.add_column("", no_wrap=True)
        for rank, name in enumerate(order, 1):
            table.add_column(str(rank) if by_rank else name, justify="center", no_wrap=True)
        for rank, a in enumerate(order, 1):
            cells = []
            for b in order:
                if a == b:
                    cells.append("·")
                    continue
                black_points, black_games, white_points, white_games = report.crosstable[a][b]
                if by_colour:
                    black = _record(black_points, int(black_games))
                    cells.append(f"{black} / {_record(white_points, int(white_games))}")
                else:
                    cells.append(_record(black_points + white_points, int(black_games + white_games)))
            table.add_row(f"{rank} {a}" if by_rank else a, *cells)
        if _fits(console, table):
            return table
    return None


def print_report(report: Report, console: Any = None) -> None:
    """The standings, the crosstable and a footer, fitted to the console's width (a narrow
    one drops the less needed columns; a player's name is never cut)."""
    console = console or _console()
    console.print(_standings_table(report, console))
    cross = _crosstable(report, console)
    if cross is None:
        console.print(f"(The crosstable needs a wider terminal than {console.width} columns; see --json.)")
    else:
        console.print(cross)
    endings = ", ".join(f"{reason} {count}" for reason, count in sorted(report.endings.items()))
    advantage, margin = round(report.black_advantage), round(1.96 * report.black_advantage_stderr)
    for line in (
        anchor_line(report),
        "opp. Elo: the mean rating of its opponents; LOS next: the chance, by the same fit, that it "
        "is stronger than the next.",
        f"Black's advantage: {advantage:+d} ± {margin} Elo.",
        f"Each player counts {PRIOR_GAMES:g} imagined draw per colour against the field: winning or "
        "losing every game still rates finite.",
        f"Endings: {endings or 'none yet'}.",
    ):
        console.print(line, highlight=False)
    if report.crashes:
        console.print(crash_summary(report), highlight=False)


def anchor_line(report: Report) -> str:
    """The anchor, and why a rating such as random's -519 is what it is: Elo only measures
    differences, so one player's rating is fixed and the others are read from it."""
    line = f"Anchor: {report.anchor} fixed at {report.anchor_elo:g} (Elo rates differences)"
    others = [row for row in report.standings if row.name != report.anchor]
    if not others:
        return f"{line}."
    example = others[-1] if others[-1].elo < report.anchor_elo else others[0]
    if round(example.elo) == round(report.anchor_elo):
        return f"{line}: {example.name}'s games put it level with it."
    side = "below" if example.elo < report.anchor_elo else "above"
    return f"{line}: {example.name}'s {example.elo:.0f} is how far {side} it the games put it."


def crash_summary(report: Report) -> str:
    """How many games crashed, and where their tracebacks are."""
    return f"Crashed: {report.crashes} of {report.games} games; tracebacks in {report.crash_folder}/."


def _duration(seconds: float) -> str:
    """``45 s``, ``3 min``, ``1 h 05 min``."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def plot_ladder(report: Report, path: Path) -> Path:
    """A PNG of the ladder: each player's rating with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(reversed(report.standings))  # best at the top
    figure, axes = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.5))
    y = range(len(rows))
    elo = [row.elo for row in rows]
    errors = [[row.elo - row.low for row in rows], [row.high - row.elo for row in rows]]
    axes.errorbar(elo, y, xerr=errors, fmt="o", capsize=4, color="tab:blue")
    axes.set_yticks(list(y), [row.name for row in rows])
    axes.set_xlabel(f"Elo (95% interval; {report.anchor} = {report.anchor_elo:g})")
    axes.set_title(f"League {report.name}: {report.games} games")
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


class LiveProgress:
    """A progress bar (games done of all, time elapsed and left) with the current points
    table (rich), or one line per game with the games done and the time left when the output
    is not a terminal."""

    def __init__(self, config: Any, total: int, enabled: bool = True, finished: Sequence[StoredGame] = ()):
        """``finished``: the games already in the database (a resumed league), counted from
        the start in the bar and in the points."""
        self.config, self.total, self.enabled = config, total, enabled
        self.clock: Callable[[], float] = time.monotonic
        self.started = self.clock()
        self.points: dict[str, float] = dict.fromkeys(config.players, 0.0)
        self.games: Counter[str] = Counter()
        self.completed = 0
        self._live: Any = None
        for game in finished:
            self._count(game)
        self.completed_before = self.completed  # the games of an earlier run: not timed here

    def __enter__(self) -> LiveProgress:
        if not self.enabled:
            return self
        from rich.live import Live
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.console = _console()
        self.progress = Progress(
            TextColumn("[bold]league {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("games,"),
            TimeElapsedColumn(),
            TextColumn("elapsed,"),
            TimeRemainingColumn(),
            TextColumn("left"),
            get_time=self.clock,
        )
        self.task = self.progress.add_task(self.config.name, total=self.total, completed=self.completed)
        self.started, self.completed_before = self.clock(), self.completed
        if self.console.is_terminal:
            self._live = Live(self._view(), console=self.console, refresh_per_second=4)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)

    def _count(self, game: StoredGame) -> None:
        self.points[game.black] += game.black_score
        self.points[game.white] += 1 - game.black_score
        self.games[game.black] += 1
        self.games[game.white] += 1
        self.completed += 1

    def update(self, game: StoredGame, finished: int, total: int) -> None:
        self._count(game)
        if not self.enabled:
            return
        self.progress.update(self.task, completed=finished)
        if self._live is not None:
            self._live.update(self._view())
        else:
            self.console.print(
                f"[{finished}/{total}, {self.time_left(finished, total)}] {game.black} (B) vs "
                f"{game.white} (W): {game.result} ({game.reason}), {game.move_count} moves",
                highlight=False,
            )

    def time_left(self, finished: int, total: int) -> str:
        """``about 3 min left``: the games left at the pace of those played since the start
        (a resumed league's stored games not counted)."""
        played = finished - self.completed_before
        if finished >= total:
            return "done"
        if played < 1:
            return "time left unknown"
        seconds = (self.clock() - self.started) / played * (total - finished)
        return f"about {_duration(seconds)} left"

    def _view(self) -> Any:
        from rich.console import Group
        from rich.table import Table

        table = Table(box=None, show_header=True)
        table.add_column("player", no_wrap=True)
        table.add_column("points", justify="right", no_wrap=True)
        ranked = sorted(self.config.players, key=lambda n: -(self.points[n] / max(self.games[n], 1)))
        for name in ranked:
            table.add_row(name, _record(self.points[name], self.games[name]))
        return Group(self.progress, table)
