"""``goarena train zero``: AlphaZero's run (``agents.training.zero``), then its generations
rated in a league against fixed anchors (``benchmarks.league.zero_rating``), with the Elo
curve drawn (``RUN/elo.png``). The league resumes with the run: it plays only the pairs of
new generations."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from goarena.agents.training.loop import write_json
from goarena.agents.training.zero import DESCRIPTION, ZeroCommand, ZeroConfig, summary, train_zero

DEFAULT_ANCHORS = "random;uct-300=uct:simulations=300"


def train_and_rate(
    config: ZeroConfig,
    run_dir: Path | str,
    *,
    rate_games: int = 4,
    rate_simulations: int = 64,
    anchors: str = DEFAULT_ANCHORS,
    rate_workers: int = 1,
    rate_every_generation: bool = False,
    **run: Any,
) -> dict[str, Any]:
    """``train_zero``, then (unless ``rate_games`` is 0) the league of its generations and the
    anchors; metrics.json gets the Elo table and the plot's name. With
    ``rate_every_generation`` the league also plays after each new generation, and the
    progress shows the newest one's Elo (``latest_elo``)."""
    from goarena.benchmarks.league.zero_rating import anchor_specs, plot_elo, rate_generations

    directory = Path(run_dir)

    def rate(progress: bool) -> list[dict[str, Any]]:
        return rate_generations(
            directory,
            anchors=anchor_specs(anchors),
            games_per_pair=rate_games,
            simulations=rate_simulations,
            workers=rate_workers,
            progress=progress,
        )

    live = rate_every_generation and rate_games > 0
    metrics = train_zero(
        config, run_dir, on_generation=(lambda: rate(False)[-1]["elo"]) if live else None, **run
    )
    if rate_games > 0:
        metrics["elo"] = rate(run.get("progress", True))
        metrics["elo_plot"] = plot_elo(directory).name
        log_elo(directory, metrics["elo"])
        write_json(directory / "metrics.json", metrics)
    return metrics


def log_elo(run_dir: Path, table: list[dict[str, Any]]) -> None:
    """Each generation's Elo in the run's TensorBoard log (``elo/generation`` at its round,
    ``elo/by_games`` at its self-play games)."""
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(run_dir / "tensorboard")) as writer:
        for row in table:
            writer.add_scalar("elo/generation", row["elo"], row["step"])
            writer.add_scalar("elo/by_games", row["elo"], row["games"])


class TrainAndRate(ZeroCommand):
    def parser(self) -> argparse.ArgumentParser:
        parser = super().parser()
        parser.add_argument(
            "--rate-games",
            type=int,
            default=4,
            help="games per pair in the league of generations; 0: none (default 4)",
        )
        parser.add_argument(
            "--rate-simulations",
            type=int,
            default=64,
            help="simulations a move of each generation there (default 64)",
        )
        parser.add_argument(
            "--anchors",
            default=DEFAULT_ANCHORS,
            help=f"the league's fixed players, ';'-separated (default {DEFAULT_ANCHORS!r})",
        )
        parser.add_argument("--rate-workers", type=int, default=1, help="league games at once (default 1)")
        parser.add_argument(
            "--rate-every-generation",
            action="store_true",
            help="play the league after each new generation too, showing its Elo as the run goes",
        )
        return parser

    def run_options(self, args: argparse.Namespace) -> dict[str, Any]:
        return {
            **super().run_options(args),
            "rate_games": args.rate_games,
            "rate_simulations": args.rate_simulations,
            "anchors": args.anchors,
            "rate_workers": args.rate_workers,
            "rate_every_generation": args.rate_every_generation,
        }


COMMAND = TrainAndRate("zero", DESCRIPTION, ZeroConfig, train_and_rate, summary)
main = COMMAND.main
parser = COMMAND.parser
