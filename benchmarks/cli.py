"""The ``goarena`` command line: one registry of commands, each a module.

A command's module gives either ``add_arguments(parser)`` and ``command(args)`` (its options are
added to the parser built here), or ``parser()`` and ``main(argv)`` (it parses its own options:
the league and the training and data jobs). Only the module of the command asked for is
imported, so ``goarena --help`` needs no torch. A new command is one module and one line in
``COMMANDS``; a name of two words (``bench env``) is a command of the group named by the first
(``GROUPS`` says what each group is).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass
from types import ModuleType

from goarena.benchmarks.commands import missing_extra, needs_extra


@dataclass(frozen=True)
class Command:
    module: str  # the module that gives the command's options and its run
    help: str


COMMANDS: dict[str, Command] = {
    "league": Command(
        "goarena.benchmarks.commands.league",
        "play a league and rate its players (goarena league --help); goarena league table DIR",
    ),
    "demo": Command("goarena.benchmarks.commands.demo", "play random games and show them"),
    "players": Command(
        "goarena.benchmarks.commands.players", "the built-in players and their options, with what each does"
    ),
    "bench env": Command(
        "goarena.benchmarks.bench.env_speed",
        "random-play steps per second against PettingZoo's go_v5 and OpenSpiel's go",
    ),
    "bench vector": Command(
        "goarena.benchmarks.bench.vector_speed",
        "learner steps per second: GoEnv, SyncVectorEnv, GoVectorEnv; MaskablePPO's with --ppo",
    ),
    "bench search": Command(
        "goarena.benchmarks.bench.search_speed", "UCT playouts, PUCT and batched PUCT simulations per second"
    ),
    "bench networks": Command(
        "goarena.benchmarks.bench.network_speed",
        "feature planes, SL policy evaluations and pattern playouts per second",
    ),
    "bench alphago": Command(
        "goarena.benchmarks.bench.alphago_speed",
        "AlphaGo's simulations per second: expansion threshold, bfloat16, the default",
    ),
    "bench zero": Command(
        "goarena.benchmarks.bench.zero_speed",
        "AlphaZero's throughput: forward passes, self-play evaluations, games per hour",
    ),
    "bench threads": Command(
        "goarena.benchmarks.bench.threads", "each batch kernel serial against parallel, by batch size"
    ),
    "bench league": Command(
        "goarena.benchmarks.bench.league_speed", "league throughput: games per minute by worker count"
    ),
    "bench strength": Command(
        "goarena.benchmarks.bench.strength", "a player against GNU Go, with a Wilson interval"
    ),
    "bench runs": Command(
        "goarena.benchmarks.bench.runs",
        "training runs compared: their generations rated in one league, Elo against training hours",
    ),
    "bench value": Command(
        "goarena.benchmarks.bench.value", "the value net's MSE and time against pattern-rollout estimates"
    ),
    "bench ownership": Command(
        "goarena.benchmarks.bench.ownership",
        "ownership networks on the same held-out games: sign agreement, score error by move; komi",
    ),
    "bench ablation": Command(
        "goarena.benchmarks.bench.ablation",
        "AlphaGo's ablation: rollouts, value net, mixed, no prior, raw policies",
    ),
    "gtp": Command("goarena.benchmarks.commands.gtp", "serve a player as a GTP engine on stdin/stdout"),
    "serve": Command(
        "goarena.benchmarks.commands.serve",
        "a web board: play any offered player with live analysis, browse and watch leagues",
    ),
    "show ownership": Command(
        "goarena.benchmarks.commands.show_ownership",
        "a PNG of a record's position shaded by each point's final owner, with V (an ownership network)",
    ),
    "warmup": Command(
        "goarena.benchmarks.commands.warmup", "compile the kernels now, so that no player waits for it later"
    ),
    "data gnugo": Command(
        "goarena.benchmarks.commands.data_gnugo", "GNU Go plays itself: one SGF per game (rerun to resume)"
    ),
    "data shards": Command(
        "goarena.benchmarks.commands.data_shards",
        "a folder tree of SGF files as training shards (rerun to resume)",
    ),
    "data ownership": Command(
        "goarena.benchmarks.commands.data_ownership",
        "the final owners of an SGF folder's finished games, as territory marks (rerun to resume)",
    ),
    "data value": Command(
        "goarena.agents.data.value",
        "self-play positions for the value network, one per game (rerun to resume)",
    ),
    "train sl": Command("goarena.agents.training.sl", "the SL policy network on expert moves"),
    "train rollout": Command("goarena.agents.training.rollout", "the fast rollout policy"),
    "train rl": Command("goarena.agents.training.rl", "the RL policy network by self-play"),
    "train value": Command("goarena.agents.training.value", "the value network on self-play positions"),
    "train sb3": Command("goarena.agents.training.sb3", "MaskablePPO on the Gymnasium env"),
    "train ownership": Command(
        "goarena.agents.training.ownership", "the ownership value network by the seed's methods"
    ),
    "train zero": Command(
        "goarena.benchmarks.commands.train_zero",
        "AlphaZero from zero knowledge by self-play, its generations rated",
    ),
}

GROUPS: dict[str, str] = {
    "bench": "a benchmark: env, vector, search, networks, alphago, zero, threads, league, strength,"
    " runs, value, ownership, ablation",
    "show": "pictures of a position: ownership (goarena show ownership FILE.sgf --move N --weights PATH)",
    "data": "training data: gnugo (self-play SGF), ownership (territory marks), shards (SGF -> shards),"
    " value",
    "train": "train a network: sl, rollout, rl, value, sb3, zero, ownership (goarena train JOB -h)",
}


def parses_its_own_options(module: ModuleType) -> bool:
    """Whether a command's module gives ``parser()`` and ``main(argv)`` rather than
    ``add_arguments(parser)`` and ``command(args)``."""
    return not hasattr(module, "add_arguments")


def command_named(argv: list[str]) -> str | None:
    """The registered command that ``argv`` starts with (two words before one), if any."""
    for words in (2, 1):
        name = " ".join(argv[:words])
        if len(argv) >= words and name in COMMANDS:
            return name
    return None


def build_parser(name: str | None = None, module: ModuleType | None = None) -> argparse.ArgumentParser:
    """The parser of every command, with the options of ``name``'s (from its ``module``)."""
    parser = argparse.ArgumentParser(prog="goarena", description="An AlphaGo-style arena for the game of Go.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    groups: dict[str, argparse._SubParsersAction] = {}
    for full, entry in COMMANDS.items():
        group, _, word = full.rpartition(" ")
        if group and group not in groups:
            kinds = commands.add_parser(group, help=GROUPS[group])
            groups[group] = kinds.add_subparsers(dest="what", required=True, metavar=group.upper())
        parent = groups[group] if group else commands
        sub = parent.add_parser(word, help=entry.help, description=entry.help)
        if full == name and module is not None and not parses_its_own_options(module):
            module.add_arguments(sub)
    return parser


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    name = command_named(argv)
    try:
        module = importlib.import_module(COMMANDS[name].module) if name else None
    except ImportError as error:  # a command of an extra that is not installed
        if (extra := missing_extra(error)) is None:
            raise
        sys.exit(f"{needs_extra(f'goarena {name}', extra)} ({error})")
    try:
        if module is not None and parses_its_own_options(module):
            module.main(argv[len(name.split()) :])  # type: ignore[union-attr]
            return
        args = build_parser(name, module).parse_args(argv)  # without a command: usage, exit 2
        module.command(args)  # type: ignore[union-attr]
    except (ValueError, OSError) as error:
        extra = missing_extra(error)  # a player or an option of an extra not installed
        sys.exit(f"goarena: {error}" + (f"; {needs_extra('it', extra)}" if extra else ""))


if __name__ == "__main__":
    main()
