"""The AlphaGo paper's ablation: which leaf evaluation makes the strongest search.

Two round-robin leagues, one at equal simulations per move and one at equal time per move,
between the arms of ``alphago`` (all with the SL policy's priors unless said otherwise):

    rollouts    λ = 1: the rollout policy's playouts alone
    value-net   λ = 0: the value network alone
    mixed       λ = 0.5: the paper's blend of both
    no-prior    λ = 0.5 with uniform priors instead of the SL policy's

and the raw networks, ``sl-policy`` and ``rl-policy`` (greedy, no search; the same in both
leagues). The SL policy is the anchor, rated 0. Each league is stored, resumable and rated
as every league is (``goarena league --help``): its folder holds the database, the SGF, and
``ladder.png``, the ratings with their 95% intervals::

    goarena bench ablation --simulations 200 --search-seconds 0.5 --games-per-pair 10

The shipped 9x9 networks are the players' (``--value`` names another value network).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from goarena.benchmarks.bench import add_search_seconds
from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.play import run_league
from goarena.benchmarks.league.standings import Report, build_report, plot_ladder, print_report
from goarena.benchmarks.league.store import StoredGame

ANCHOR = "sl-policy"


def arms(value: Path, budget: str) -> dict[str, str]:
    """The players of one league; ``budget`` is ``simulations=N`` or ``seconds=S``."""
    return {
        "rollouts": f"alphago:mixing=1,{budget}",
        "value-net": f"alphago:value={value},mixing=0,{budget}",
        "mixed": f"alphago:value={value},mixing=0.5,{budget}",
        "no-prior": f"alphago:value={value},mixing=0.5,prior=uniform,{budget}",
        "sl-policy": "sl-policy",
        "rl-policy": "rl-policy",
    }


def ablation_league(value: Path, budget: str, games_per_pair: int, komi: float | None) -> LeagueConfig:
    """One league of the ablation on 9x9 (the shipped networks' size)."""
    name = "equal-" + budget.split("=")[0]
    return LeagueConfig(
        name=name,
        players=arms(value, budget),
        size=9,
        komi=komi,
        games_per_pair=games_per_pair,
        anchor=ANCHOR,
        anchor_elo=0.0,
    )


def budgets(simulations: int, seconds: float) -> list[str]:
    """The leagues to play: equal simulations, equal time, or both (a budget of 0 skips one)."""
    chosen = [f"simulations={simulations}"] if simulations > 0 else []
    chosen += [f"seconds={seconds:g}"] if seconds > 0 else []
    if not chosen:
        raise ValueError("nothing to play: both --simulations and --search-seconds are 0")
    return chosen


def run(config: LeagueConfig, out: Path, workers: int) -> Report:
    """Play the league's games not yet stored under ``out``; its report, and ``ladder.png``."""
    with run_league(config, out, workers=workers, on_game=_show) as store:
        report = build_report(store)
    plot_ladder(report, out / "ladder.png")
    return report


def _show(game: StoredGame, finished: int, total: int) -> None:
    print(f"{finished}/{total}: {game.black} vs {game.white}: {game.result} ({game.reason})", flush=True)


def verdict(report: Report) -> str:
    """Whether the mixed search tops the ladder, as in the paper, and by how much."""
    ladder = [standing.name for standing in report.standings]
    mixed = next(standing for standing in report.standings if standing.name == "mixed")
    if ladder[0] == "mixed":
        runner_up = report.standings[1]
        overlap = "overlapping" if mixed.low <= runner_up.high else "separate"
        return (
            f"mixed (λ=0.5) is on top, {mixed.elo - runner_up.elo:+.0f} Elo over {runner_up.name} "
            f"({overlap} 95% intervals)"
        )
    top = report.standings[0]
    return (
        f"mixed (λ=0.5) is not on top: {top.name} leads it by {top.elo - mixed.elo:.0f} Elo "
        f"(ladder: {', '.join(ladder)})"
    )


def show(
    value: Path,
    simulations: int,
    seconds: float,
    games_per_pair: int,
    komi: float | None,
    out: Path,
    workers: int,
) -> None:
    """``goarena bench ablation``: play (or resume) both leagues and print their ladders."""
    verdicts = []
    for budget in budgets(simulations, seconds):
        config = ablation_league(value, budget, games_per_pair, komi)
        directory = out / config.name
        report = run(config, directory, workers)
        print_report(report)
        print(f"Games (SGF) and results in {directory}; ladder plot {directory / 'ladder.png'}\n")
        verdicts.append(f"{config.name}: {verdict(report)}")
    print("\n".join(verdicts))


# -- the command: ``goarena bench ablation`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench ablation``."""
    parser.add_argument("--value", type=Path, default=None, help="value.pt (default: the shipped 9x9)")
    parser.add_argument(
        "--simulations", type=int, default=200, help="per move in the equal-simulations league (0: skip)"
    )
    add_search_seconds(parser, 0.5, "each player's search time per move in the equal-time league (0: skip)")
    parser.add_argument("--games-per-pair", type=int, default=10, help="games per pairing (default 10)")
    parser.add_argument("--komi", type=float, default=None, help="komi (default: 9x9's, 7)")
    parser.add_argument(
        "--out", type=Path, default=Path("runs/ablation"), help="folder of the leagues (resumable)"
    )
    parser.add_argument("--workers", type=int, default=1, help="games at once (default 1: a core a move)")


def command(args: argparse.Namespace) -> None:
    """``goarena bench ablation``: play (or resume) both leagues and print their ladders."""
    from goarena.agents.weights import VALUE_9X9
    from goarena.benchmarks.league.runner import LeagueRunError
    from goarena.benchmarks.league.store import LeagueStoreError

    try:
        show(
            args.value or VALUE_9X9,
            args.simulations,
            args.search_seconds,
            args.games_per_pair,
            args.komi,
            args.out,
            args.workers,
        )
    except (ValueError, LeagueStoreError, LeagueRunError) as error:
        sys.exit(f"goarena bench ablation: {error}")
