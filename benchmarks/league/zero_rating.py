"""The Elo curve of an AlphaZero run: every generation rated in one league with fixed anchors.

``goarena train zero`` writes a network per generation (``generations/gen-NNNN.pt``) and lists
them in ``generations.json``. ``rate_generations`` plays a round-robin league in the run's
``league/`` among every listed generation (players ``gen-0003``, ..., each the ``zero`` player
over its weights at a fixed number of simulations) and the anchors (``random``,
``uct:simulations=300``, ``gnugo:level=1``, ...), and writes the ratings to ``elo.json``;
``plot_elo`` draws them against training time and self-play games (``elo.png``).
``rate_runs`` and ``plot_runs`` do the same for several runs on one board in one league (from
zero and warm-started, say): each run's curve against training hours (``goarena bench runs``).

Called again once more generations exist, the league grows (``goarena league`` grows a league
that gains players): the games played are kept and only the pairs with a new player are
played. A league whose existing players changed (a generation's weights file rewritten, its
path moved, another number of simulations, an anchor dropped or respelt) is refused, not mixed.

The ratings are anchored as every league's are (``LeagueConfig.rated_anchor``): GNU Go level 10
at 1000 when it is an anchor, else ``random`` at 0, else the player whose name sorts first at
0 (the first generation: ``gen-`` sorts before the other names). Every call refits every game,
so one ``elo.json`` is one consistent curve; the anchor moves only when a later call adds
``random`` or GNU Go level 10 to anchors that lacked them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goarena.agents.gtp import find_engine
from goarena.agents.training.loop import write_json
from goarena.benchmarks.league.config import LeagueConfig, LeagueConfigError
from goarena.benchmarks.league.play import (
    GNUGO_RULES,
    LeagueSetupError,
    check_players,
    open_league,
    play_league,
    warm_up,
)
from goarena.benchmarks.league.standings import LiveProgress, Report, build_report
from goarena.benchmarks.league.store import LeagueStore, LeagueStoreError

GENERATIONS = "generations.json"
CONFIG = "config.json"
LEAGUE = "league"  # the league's directory in the run's
ELO_JSON = "elo.json"
ELO_PNG = "elo.png"
LEAGUE_NAME = "zero-generations"
GNUGO_SHORTHAND = "gnugo:"  # gnugo:level=N, the league's GNU Go player at level N


class ZeroRatingError(ValueError):
    """A run directory whose generations cannot be rated (a bad file, a changed league)."""


@dataclass(frozen=True)
class Generation:
    """One entry of ``generations.json``.

    Attributes:
        generation: its number.
        weights: its network's file (absolute).
        entry: the entry as written (generation, step, games, seconds, weights).
    """

    generation: int
    weights: Path
    entry: dict[str, Any]

    @property
    def name(self) -> str:
        return f"gen-{self.generation:04d}"


def generation_spec(weights: Path, simulations: int) -> str:
    """The player spec of a generation: the ``zero`` player over ``weights``."""
    return f"zero:weights={weights},simulations={simulations}"


def read_generations(run_dir: Path | str) -> list[Generation]:
    """The generations listed in ``run_dir``'s ``generations.json``, checked.

    Raises:
        ZeroRatingError: the file is missing or unreadable, or an entry is malformed (naming
            the file and the entry), or a generation's weights file is missing.
    """
    run_dir = Path(run_dir)
    path = run_dir / GENERATIONS
    try:
        listed = json.loads(path.read_text())
    except FileNotFoundError:
        raise ZeroRatingError(f"{path}: no such file (has the run made a generation yet?)") from None
    except (OSError, ValueError) as error:
        raise ZeroRatingError(f"{path}: not readable JSON: {error}") from None
    if not isinstance(listed, list) or not listed:
        raise ZeroRatingError(f"{path}: expected a non-empty list of generations, got {_short(listed)}")
    generations: list[Generation] = []
    for index, entry in enumerate(listed):
        where = f"{path}: entry {index}"
        if not isinstance(entry, dict):
            raise ZeroRatingError(f"{where}: expected an object, got {_short(entry)}")
        missing = [key for key in ("generation", "step", "games", "seconds", "weights") if key not in entry]
        if missing:
            raise ZeroRatingError(f"{where}: lacks {', '.join(missing)}")
        for key in ("generation", "step", "games"):
            value = entry[key]
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ZeroRatingError(f"{where}: {key} must be a whole number of at least 0, got {value!r}")
        seconds = entry["seconds"]
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not math.isfinite(seconds):
            raise ZeroRatingError(f"{where}: seconds must be a finite number, got {seconds!r}")
        weights = entry["weights"]
        if not isinstance(weights, str) or not weights.strip():
            raise ZeroRatingError(f"{where}: weights must be a file name, got {weights!r}")
        if "," in weights:  # a spec's options are split at commas
            raise ZeroRatingError(
                f"{where}: a weights path with a comma cannot be named in a spec: {weights!r}"
            )
        if generations and entry["generation"] <= generations[-1].generation:
            raise ZeroRatingError(
                f"{where}: generation {entry['generation']} follows generation "
                f"{generations[-1].generation}: generations must be listed in increasing order"
            )
        file = (run_dir / weights).resolve()
        if not file.is_file():
            raise ZeroRatingError(
                f"{where}: the weights file {file} of generation {entry['generation']} is missing"
            )
        generations.append(Generation(entry["generation"], file, dict(entry)))
    return generations


def anchor_specs(text: str) -> list[str]:
    """The anchors of ``--anchors``: specs (or NAME=SPEC) separated by ';' (specs have commas)."""
    return [spec.strip() for spec in text.split(";") if spec.strip()]


def anchor_players(anchors: list[str]) -> dict[str, str]:
    """The anchors as the league's players (name -> spec): ``NAME=SPEC`` or a spec that names
    itself, as ``goarena league --player`` takes them; ``gnugo:level=N`` is the league's GNU Go at
    level N, named ``gnugo-N`` as in the default league.

    Raises:
        ZeroRatingError: a malformed anchor, GNU Go asked for but not installed, or two anchors
            of one name.
    """
    players: dict[str, str] = {}
    for anchor in anchors:
        name, sep, spec = anchor.partition("=")
        if not (sep and name and ":" not in name and " " not in name):
            name, spec = anchor, anchor
        name, spec = name.strip(), spec.strip()
        if spec.startswith(GNUGO_SHORTHAND):
            level = spec[len(GNUGO_SHORTHAND) :].partition("level=")[2]
            if not level.isdigit() or spec != f"{GNUGO_SHORTHAND}level={level}":
                raise ZeroRatingError(f"anchor {anchor!r}: GNU Go is named gnugo:level=N")
            if not find_engine("gnugo"):
                raise ZeroRatingError(f"anchor {anchor!r}: GNU Go is not installed (no gnugo on the PATH)")
            spec = f"gtp:gnugo --mode gtp --level {int(level)} {GNUGO_RULES}"
            name = f"gnugo-{int(level)}" if name == anchor.strip() else name
        if not name or not spec:
            raise ZeroRatingError(f"anchor {anchor!r}: expected SPEC or NAME=SPEC")
        if name in players:
            raise ZeroRatingError(f"two anchors are named {name!r}")
        players[name] = spec
    return players


def run_board(run_dir: Path | str) -> dict[str, Any]:
    """The board a run was trained on, from its ``config.json``: size, and komi and rules
    where it names them (the league's options)."""
    path = Path(run_dir) / CONFIG
    try:
        run = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ZeroRatingError(f"{path}: cannot read the run's config: {error}") from None
    if not isinstance(run, dict) or "size" not in run:
        raise ZeroRatingError(f"{path}: the run's config names no board size")
    board = {"size": run["size"], "komi": run.get("komi"), "rules": run.get("rules", "goarena")}
    return {key: value for key, value in board.items() if value is not None}


def league_config(
    run_dir: Path | str,
    generations: list[Generation],
    anchors: dict[str, str],
    games_per_pair: int,
    simulations: int,
) -> LeagueConfig:
    """The league of ``generations`` and ``anchors`` on the run's board (its ``config.json``).

    The players are listed generations first (by number), then the anchors by name: any two
    calls list the players they share in the same order, which a league that grows needs
    (its stored games keep their colours).
    """
    named = {generation.name: generation for generation in generations}
    return _league(named, anchors, run_board(run_dir), games_per_pair, simulations, Path(run_dir) / CONFIG)


def _league(
    named: dict[str, Generation],
    anchors: dict[str, str],
    board: dict[str, Any],
    games_per_pair: int,
    simulations: int,
    source: Path,
) -> LeagueConfig:
    clash = sorted(set(named) & set(anchors))
    if clash:
        raise ZeroRatingError(f"anchor(s) named as a generation: {', '.join(clash)}")
    players = {name: generation_spec(g.weights, simulations) for name, g in named.items()}
    players.update(sorted(anchors.items()))
    try:
        return LeagueConfig(players=players, name=LEAGUE_NAME, games_per_pair=games_per_pair, **board)
    except LeagueConfigError as error:  # the run's board (size, komi, rules) or games_per_pair
        raise ZeroRatingError(f"cannot rate the generations on the board of {source}: {error}") from None


def rate_generations(
    run_dir: Path | str,
    *,
    anchors: list[str],
    games_per_pair: int,
    simulations: int,
    workers: int = 1,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Rate every generation in ``generations.json`` in the run's league (``RUN/league``),
    playing only the games not yet played, and write ``RUN/elo.json``.

    Args:
        run_dir: the run directory of ``goarena train zero``.
        anchors: fixed players, as ``SPEC`` or ``NAME=SPEC`` (``random``, ``uct:simulations=300``,
            ``gnugo:level=1``). A later call must keep them (it may add more).
        games_per_pair: games per pairing, colours alternating (a later call may raise it).
        simulations: the generations' search budget per move.
        workers: games at once, one process each.
        progress: show the league's progress.

    Returns:
        One row per generation, in order: its ``generations.json`` entry with ``name``, ``elo``,
        ``elo_low`` and ``elo_high`` (the 95% interval) and ``league_games``.

    Raises:
        ZeroRatingError: a bad ``generations.json`` or ``config.json``, a bad anchor, or a
            league whose existing players changed.
        LeagueConfigError, LeagueStoreError: the league refuses the players or its directory.
        LeagueSetupError: games not played since a player could not be built (the others are
            stored; the same call plays them once mended).
    """
    run_dir = Path(run_dir)
    generations = read_generations(run_dir)
    config = league_config(run_dir, generations, anchor_players(anchors), games_per_pair, simulations)
    named = {generation.name: generation for generation in generations}
    report = _play(config, run_dir / LEAGUE, named, workers, progress)
    table = elo_table(report, generations, simulations)
    write_json(run_dir / ELO_JSON, table)
    return table["generations"]


def _play(
    config: LeagueConfig, directory: Path, named: dict[str, Generation], workers: int, progress: bool
) -> Report:
    """Play the league's games not yet stored in ``directory``; its report."""
    _check_unchanged(directory, config, named)
    check_players(config)
    store, games = open_league(config, directory)
    with store:
        warm_up(config)
        live = LiveProgress(config, len(games), enabled=progress, finished=store.games())
        with live:
            unplayed = play_league(store, games, workers=max(1, workers), on_game=live.update)
        if unplayed:
            raise LeagueSetupError(unplayed, directory)
        return build_report(store)


def _check_unchanged(directory: Path, config: LeagueConfig, named: dict[str, Generation]) -> None:
    """Refuse, before anything is written, a league whose players changed since it was played:
    one that is gone or has another spec, or a generation whose weights differ from those its
    games were played with (its file rewritten in place: its spec is the same)."""
    if not (directory / LeagueStore.FILENAME).exists():
        return
    try:
        store = LeagueStore.open_existing(directory)
    except LeagueStoreError:  # no league stored yet, or a broken one: open_league decides
        return
    try:
        stored = store.configs()
        digests = store.weights()
    finally:
        store.close()
    if not stored:
        return
    before = stored[-1]["players"]
    hint = f"; to rate the run afresh, remove {directory}"
    for name, spec in before.items():
        if name not in config.players:
            what = "generation" if name in named or "gen-" in name else "anchor"
            raise ZeroRatingError(f"{directory}: the league's {what} {name!r} ({spec}) is missing now{hint}")
        if config.players[name] != spec:
            raise ZeroRatingError(
                f"{directory}: {name!r} was rated as {spec!r}, now {config.players[name]!r} "
                f"(another number of simulations, a moved run directory, another anchor){hint}"
            )
    from goarena.agents.nets.load import file_digest

    for name, generation in named.items():
        digest = digests.get(name)
        if digest is not None and file_digest(generation.weights) != digest:
            raise ZeroRatingError(
                f"{generation.weights}: the weights of {name} differ from those its "
                f"league games were played with{hint}"
            )


def elo_table(report: Report, generations: list[Generation], simulations: int) -> dict[str, Any]:
    """``elo.json``: each generation's entry joined with its rating, and the anchors' ratings."""
    rating = _ratings(report)
    names = {generation.name for generation in generations}
    return {
        **_heading(report, simulations),
        "generations": [{**g.entry, "name": g.name, **rating(g.name)} for g in generations],
        "anchors": _anchor_rows(report, names),
    }


def _ratings(report: Report) -> Callable[[str], dict[str, Any]]:
    rated = {standing.name: standing for standing in report.standings}

    def rating(name: str) -> dict[str, Any]:
        standing = rated[name]
        return {
            "elo": float(standing.elo),  # plain floats, not numpy's
            "elo_low": float(standing.low),
            "elo_high": float(standing.high),
            "league_games": standing.games,
        }

    return rating


def _heading(report: Report, simulations: int) -> dict[str, Any]:
    return {
        "anchor": report.anchor,
        "anchor_elo": report.anchor_elo,
        "simulations": simulations,
        "league_games": report.games,
    }


def _anchor_rows(report: Report, generations: set[str]) -> list[dict[str, Any]]:
    rating = _ratings(report)
    return [
        {"name": name, "spec": spec, **rating(name)}
        for name, spec in report.specs.items()
        if name not in generations
    ]


def plot_elo(run_dir: Path | str) -> Path:
    """Draw ``RUN/elo.json`` to ``RUN/elo.png``: the Elo of each generation (with its 95%
    interval) against training hours and against self-play games, each anchor a labelled
    horizontal line. Returns the PNG's path."""
    run_dir = Path(run_dir)
    source = run_dir / ELO_JSON
    try:
        table = json.loads(source.read_text())
        rows, anchors = table["generations"], table["anchors"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ZeroRatingError(
            f"{source}: cannot read the ratings (rate the generations first): {error}"
        ) from None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    elo = [row["elo"] for row in rows]
    errors = _error_bars(rows)
    panels = (
        ([row["seconds"] / 3600 for row in rows], "training time (hours)"),
        ([row["games"] for row in rows], "self-play games"),
    )
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for axis, (x, label) in zip(axes, panels, strict=True):
        axis.errorbar(x, elo, yerr=errors, fmt="o-", capsize=3, color="tab:blue", label="generations")
        _draw_anchors(axis, anchors, first_colour=1)
        axis.set_xlabel(label)
        axis.grid(alpha=0.3)
    axes[0].set_ylabel(f"Elo (95% interval; {table['anchor']} = {table['anchor_elo']:g})")
    figure.suptitle(
        f"{run_dir.name}: Elo of each generation at {table['simulations']} simulations "
        f"({table['league_games']} league games)"
    )
    figure.tight_layout()
    path = run_dir / ELO_PNG
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def _error_bars(rows: list[dict[str, Any]]) -> list[list[float]]:
    """The distances from each row's Elo down and up to its 95% interval's ends."""
    return [[row["elo"] - row["elo_low"] for row in rows], [row["elo_high"] - row["elo"] for row in rows]]


def _draw_anchors(axis: Any, anchors: list[dict[str, Any]], first_colour: int) -> None:
    """Each anchor a dashed horizontal line, labelled at the left (where rising curves are lowest)."""
    for number, anchor in enumerate(anchors):
        colour = f"C{(number + first_colour) % 10}"
        axis.axhline(anchor["elo"], color=colour, linestyle="--", linewidth=1)
        axis.annotate(
            f"{anchor['name']} ({anchor['elo']:.0f})",
            (0.0, anchor["elo"]),
            xycoords=("axes fraction", "data"),
            xytext=(4, 3),
            textcoords="offset points",
            fontsize=8,
            color=colour,
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.7, "pad": 1},
        )


# -- runs compared: several runs' generations in one league ----------------------------------------


def rate_runs(
    runs: Mapping[str, Path | str],
    out: Path | str,
    *,
    anchors: list[str],
    games_per_pair: int,
    simulations: int,
    workers: int = 1,
    progress: bool = True,
) -> dict[str, Any]:
    """Rate the generations of several runs on one board (from zero, warm-started, ...) in one
    league (``OUT/league``) with the anchors, and write ``OUT/elo.json``: each run's curve
    (its generations' entries with their ratings, as ``rate_generations`` gives them) and the
    anchors'. The players are ``LABEL-gen-NNNN``; like a run's own league, the league grows
    with the runs and refuses players that changed.

    Raises:
        ZeroRatingError: a bad label, runs on different boards, or what ``rate_generations``
            refuses.
    """
    if not runs:
        raise ZeroRatingError("no runs to compare")
    named: dict[str, Generation] = {}
    of_run: dict[str, list[str]] = {}
    boards = {}
    for label, run_dir in runs.items():
        if not label or not all(c.isalnum() or c in "-_." for c in label):
            raise ZeroRatingError(f"run label {label!r}: letters, digits, '-', '_' and '.' only")
        boards[label] = run_board(run_dir)
        generations = read_generations(run_dir)
        of_run[label] = [f"{label}-{g.name}" for g in generations]
        named.update(zip(of_run[label], generations, strict=True))
    first = next(iter(boards))
    other = next((label for label, board in boards.items() if board != boards[first]), None)
    if other is not None:
        raise ZeroRatingError(f"runs {first} and {other} were trained on different boards: {boards}")
    out = Path(out)
    config = _league(named, anchor_players(anchors), boards[first], games_per_pair, simulations, out)
    report = _play(config, out / LEAGUE, named, workers, progress)
    rating = _ratings(report)
    table = {
        **_heading(report, simulations),
        "runs": {
            label: [{**named[name].entry, "name": name, **rating(name)} for name in names]
            for label, names in of_run.items()
        },
        "anchors": _anchor_rows(report, set(named)),
    }
    write_json(out / ELO_JSON, table)
    return table


def plot_runs(out: Path | str) -> Path:
    """Draw ``OUT/elo.json`` of ``rate_runs`` to ``OUT/elo.png``: each run's Elo (with its 95%
    interval) against training hours, each anchor a labelled horizontal line."""
    out = Path(out)
    source = out / ELO_JSON
    try:
        table = json.loads(source.read_text())
        runs, anchors = table["runs"], table["anchors"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ZeroRatingError(f"{source}: cannot read the runs' ratings (rate them first): {error}") from None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(8, 5))
    for number, (label, rows) in enumerate(runs.items()):
        elo = [row["elo"] for row in rows]
        errors = _error_bars(rows)
        hours = [row["seconds"] / 3600 for row in rows]
        axis.errorbar(hours, elo, yerr=errors, fmt="o-", capsize=3, color=f"C{number}", label=label)
    _draw_anchors(axis, anchors, first_colour=len(runs))
    axis.set_xlabel("training time (hours)")
    axis.set_ylabel(f"Elo (95% interval; {table['anchor']} = {table['anchor_elo']:g})")
    axis.set_title(
        f"Elo against training time at {table['simulations']} simulations "
        f"({table['league_games']} league games)"
    )
    axis.grid(alpha=0.3)
    axis.legend()
    figure.tight_layout()
    path = out / ELO_PNG
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def runs_table(table: dict[str, Any]) -> str:
    """``rate_runs``' table as text: per run, each generation's hours, games and Elo."""
    lines = [f"{'player':28s} {'hours':>6s} {'games':>7s} {'Elo':>6s} {'95% interval':>15s}"]
    for rows in table["runs"].values():
        for row in rows:
            lines.append(
                f"{row['name']:28s} {row['seconds'] / 3600:6.2f} {row['games']:7d} {row['elo']:6.0f}"
                f" {row['elo_low']:7.0f}-{row['elo_high']:<7.0f}"
            )
    for anchor in table["anchors"]:
        lines.append(f"{anchor['name']:28s} {'':6s} {'':7s} {anchor['elo']:6.0f}  (anchor: {anchor['spec']})")
    return "\n".join(lines)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
