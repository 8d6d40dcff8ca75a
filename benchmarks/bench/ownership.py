"""``goarena bench ownership``: ownership networks side by side on the same held-out games.

Every network is scored on the same positions: the games that ``goarena train ownership``
holds out of ``--data`` (its split by game, for the same ``--held-out`` and ``--seed``, 0.05
and 0 by default), so that a run trained on that data is measured on games it never saw. Two
tables, rows the move-number buckets (0-10, 10-20, ...) and "all", a column per network:

- **sign agreement**: the share of the points with a final owner whose v(s, i) has its sign;
- **score error**: the mean of |Σ v(s, i) - final score| (area, komi excluded on both sides).

Two more, which every network has, the win-probability baseline too, since they ask only for
a win estimate: the **result accuracy** (the share of decided positions whose winner the
network's win probability at the game's komi, above or below one half, names) and the
**Brier score** (the mean squared error of that probability against the result, 0 the best;
0.25 is a coin's). They compare V and a win head as value functions on the same positions.

They are ``agents.training.ownership.ownership_accuracy``'s figures, the ones the training
run's ``metrics.json`` gives for the exported network (on every held-out position; on a
sample with ``--positions N``). A network without an ownership head (a win-probability
baseline, ``--method win``) has no map to score: it shows "n/a" there.

``--komi 5.5 7 9`` adds the seed's second merit: the same network at other komis, without
retraining. V = Σ v + the komi term shifts by exactly the komi's change (Black to move loses
it, White to move gains it), and the calibrated logistic turns it into a win probability; the
tables give Black's mean probability on the empty board (Black to move) and over the held-out
positions at each komi. A win head sees no komi: its estimate stays where training left it::

    goarena bench ownership --data data/shards-9x9 \\
        --weights runs/end/ownership.pt runs/moves/ownership.pt best=runs/all/ownership.pt \\
        --komi 5.5 7 9
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from go_env.features import NUM_HISTORY_PLANES
from goarena.agents.nets.ownership import PositionNet
from goarena.agents.training.ownership_data import OwnershipPositions, open_positions

BATCH = 512  # positions per forward pass
ALL = "all"  # the row over every bucket


@dataclass(frozen=True)
class KomiEstimate:
    """A network's mean calibrated probability that Black wins, at one komi."""

    komi: float
    empty_board: float  # the empty board, Black to move
    held_out: float  # the mean over the held-out positions


@dataclass
class NetworkFigures:
    """One network's figures on the benchmark's positions.

    Attributes:
        name, path: as given (the name defaults to the file's run folder).
        head: "ownership", or "win" for a network with a win head instead.
        accuracy: ``ownership_accuracy``'s dict (overall figures and ``by_move``); None
            without an ownership head.
        prediction: ``result_prediction``'s dict (overall and ``by_move``).
        komi: the win estimates at each ``--komi``, in the order asked.
    """

    name: str
    path: str
    head: str
    accuracy: dict[str, Any] | None
    prediction: dict[str, Any] | None = None
    komi: list[KomiEstimate] = field(default_factory=list)


@dataclass
class Report:
    """What ``goarena bench ownership`` prints, for ``--json`` as it is.

    Attributes:
        data: the positions' folder; board_size its board.
        held_out, seed: the split by game (the training run's).
        positions, games: the held-out positions and their games.
        owned: how many of the positions have final owners (the ownership tables' positions).
        data_komi: the komi(s) the data's games were played at.
        black_wins: the share of the held-out positions whose game Black won (a draw half).
        networks: each network's figures.
    """

    data: str
    board_size: int
    held_out: float
    seed: int
    positions: int
    games: int
    owned: int
    data_komi: list[float]
    black_wins: float
    networks: list[NetworkFigures]

    def to_json(self) -> dict[str, Any]:
        networks = [
            {
                "name": each.name,
                "path": each.path,
                "head": each.head,
                "accuracy": each.accuracy,
                "prediction": each.prediction,
                "komi": [vars(estimate) for estimate in each.komi],
            }
            for each in self.networks
        ]
        return {**vars(self), "networks": networks}


def parse_weights(specs: Sequence[str]) -> list[tuple[str, Path]]:
    """``NAME=PATH`` or ``PATH`` (named after its folder: ``runs/end/ownership.pt`` is
    ``end``) -> (name, path) pairs.

    Raises:
        ValueError: no network, an empty name or path, or two networks of one name.
    """
    if not specs:
        raise ValueError("--weights names no network")
    named: list[tuple[str, Path]] = []
    for spec in specs:
        name, sep, rest = spec.partition("=")
        if sep and "/" not in name and "\\" not in name:
            path = Path(rest)
            if not name or not rest:
                raise ValueError(f"--weights {spec!r}: give NAME=PATH, both non-empty")
        else:
            path = Path(spec)
            name = path.resolve().parent.name or path.stem
        named.append((name, path))
    seen: dict[str, Path] = {}
    for name, path in named:
        if name in seen:
            raise ValueError(
                f"--weights: two networks are named {name!r} ({seen[name]} and {path}); name them NAME=PATH"
            )
        seen[name] = path
    return named


def held_out_positions(
    data: OwnershipPositions, held_out: float, seed: int, positions: int | None = None
) -> np.ndarray:
    """The held-out positions of ``data`` as ``goarena train ownership`` splits it (every one,
    or a sample of ``positions`` drawn from the seed), sorted.

    Raises:
        ValueError: no game held out, or none of them with final owners.
    """
    _, held = data.split_by_game(held_out, seed)
    if len(held) == 0:
        raise ValueError(
            f"--held-out {held_out} holds out no game of {len(data)} positions in {data.directory}"
        )
    if positions is not None:
        if positions < 1:
            raise ValueError(f"--positions must be positive, got {positions}")
        held = np.sort(np.random.default_rng([seed, 4]).permutation(held)[:positions])
    if not data.owned[held].any():
        raise ValueError(
            f"no held-out game of {data.directory} has final owners to score against (resigned games, "
            "or records without ownership marks: goarena data ownership adds them)"
        )
    return held


def head_of(model: PositionNet) -> str:
    """ "ownership" for a network with the per-point head (``OwnershipNet``), "win" for the
    win-probability baseline (``WinNet``): the network's architecture."""
    return model.arch


def _mover_outputs(model: PositionNet, planes: np.ndarray, device: torch.device) -> torch.Tensor:
    """The network's outputs (v float32[B, N*N] of an ownership network, w float32[B] of a win
    network) for each position's side to move, on the CPU."""
    out = []
    with torch.inference_mode():
        for start in range(0, max(len(planes), 1), BATCH):
            batch = torch.as_tensor(planes[start : start + BATCH], dtype=torch.float32, device=device)
            out.append(model(batch).float().cpu())
    return torch.cat(out)


def black_win_probability(
    model: PositionNet, outputs: torch.Tensor, black_to_play: np.ndarray, komi: float
) -> np.ndarray:
    """float64[B]: the probability that Black wins each position at ``komi``, from
    ``_mover_outputs``: the network's own ``probability`` with the komi term ∓ komi (− for
    Black to move); a win network's (1 + w) / 2, which no komi moves."""
    mover = mover_win_probability(model, outputs, np.where(black_to_play, -komi, komi))
    return np.where(black_to_play, mover, 1.0 - mover)


def mover_win_probability(model: PositionNet, outputs: torch.Tensor, komi_terms: np.ndarray) -> np.ndarray:
    """float64[B]: the probability that the side to move wins, from ``_mover_outputs`` and each
    position's komi term (+komi for White to move): the network's ``probability`` (an
    ownership network's calibrated sigmoid(a·V + b))."""
    device = next(model.parameters()).device
    with torch.inference_mode():
        terms = torch.as_tensor(np.asarray(komi_terms), dtype=torch.float32, device=device)
        return model.probability(outputs.to(device), terms).double().cpu().numpy()


def result_prediction(
    probability: np.ndarray, outcomes: np.ndarray, move_numbers: np.ndarray
) -> dict[str, Any]:
    """How well the side to move's win ``probability`` predicts each position's result
    (``outcomes``, +1 / -1 / 0 a draw, left out): the result accuracy and the Brier score,
    overall and by move bucket."""
    from goarena.agents.training.ownership import by_move_bucket

    won = outcomes > 0

    def scored(where: np.ndarray) -> dict[str, float]:
        return {
            "positions": int(where.sum()),
            "result_accuracy": float(np.mean((probability[where] > 0.5) == won[where])),
            "brier": float(np.mean((probability[where] - won[where]) ** 2)),
        }

    return by_move_bucket(np.asarray(move_numbers), outcomes != 0, scored)


def komi_estimates(
    model: PositionNet,
    empty_board: torch.Tensor,
    held_out: torch.Tensor,
    black: np.ndarray,
    komi: Sequence[float],
) -> list[KomiEstimate]:
    """Black's mean win probability at each komi, from ``_mover_outputs`` of the empty board
    and of the held-out positions (``black`` where Black is to move)."""
    return [
        KomiEstimate(
            float(value),
            float(black_win_probability(model, empty_board, np.array([True]), value)[0]),
            float(black_win_probability(model, held_out, black, value).mean()),
        )
        for value in komi
    ]


def empty_board_planes(size: int) -> np.ndarray:
    """int8[1, 17, N, N]: the empty board, Black to move, no history."""
    planes = np.zeros((1, NUM_HISTORY_PLANES, size, size), np.int8)
    planes[0, -1] = 1  # the colour plane: Black to move
    return planes


@contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Torch's CPU threads set to ``count`` for the block, restored after."""
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def measure(
    data: Path | str,
    weights: Sequence[tuple[str, Path | str]],
    *,
    held_out: float = 0.05,
    seed: int = 0,
    positions: int | None = None,
    komi: Sequence[float] = (),
    device: str = "cpu",
    threads: int = 1,
) -> Report:
    """Score every network of ``weights`` ((name, path) pairs) on the same held-out positions of
    ``data`` (see the module's docs), on ``device`` with ``threads`` torch threads on the CPU.

    Raises:
        NetworkFileError: a file that is missing, unreadable or not an ownership network.
        UnsupportedGame: a network trained for another board than the data's.
        ValueError: bad options, or data without held-out final owners.
    """
    from goarena.agents.nets.load import load_network
    from goarena.agents.nets.predict import resolve_device
    from goarena.agents.protocols import UnsupportedGame
    from goarena.agents.training.ownership import ownership_accuracy

    if threads < 1:
        raise ValueError(f"--threads must be positive, got {threads}")
    for value in komi:
        if not math.isfinite(value):
            raise ValueError(f"--komi must be finite numbers, got {value}")
    where = resolve_device(device)
    positions_data = open_positions(data)
    indices = held_out_positions(positions_data, held_out, seed, positions)
    networks = []
    for name, path in weights:  # every file is read before anything is measured
        network = load_network(path, "ownership", str(where))
        if network.board_size != positions_data.board_size:
            size, trained = positions_data.board_size, network.board_size
            raise UnsupportedGame(
                f"{path} was trained for {trained}x{trained}, the positions of {data} are {size}x{size}"
            )
        networks.append((name, Path(path), network.model))
    with torch_threads(threads):
        figures = []
        for name, path, model in networks:
            scored = "ownership" in model.heads
            accuracy = ownership_accuracy(model, positions_data, indices, BATCH) if scored else None
            figures.append(NetworkFigures(name, str(path), head_of(model), accuracy))
        # the side to move, the games' results and komi; each network's Σ v (or w)
        black, outcomes, komi_terms, move_numbers = [], [], [], []
        held: list[list[torch.Tensor]] = [[] for _ in networks]
        for at in range(0, len(indices), BATCH):
            batch = positions_data.fetch(indices[at : at + BATCH])
            black.append(batch.planes[:, -1, 0, 0] == 1)  # the colour plane: Black to move
            outcomes.append(batch.outcomes)
            komi_terms.append(batch.komi_terms)
            move_numbers.append(batch.move_numbers)
            for found, (_, _, model) in zip(held, networks, strict=True):
                found.append(_mover_outputs(model, batch.planes, where))
        to_play_black = np.concatenate(black)
        results, terms, numbers = (np.concatenate(each) for each in (outcomes, komi_terms, move_numbers))
        estimates = [torch.cat(found) for found in held]
        for each, estimate, (_, _, model) in zip(figures, estimates, networks, strict=True):
            each.prediction = result_prediction(
                mover_win_probability(model, estimate, terms), results, numbers
            )
        if komi:
            empty = empty_board_planes(positions_data.board_size)
            for each, estimate, (_, _, model) in zip(figures, estimates, networks, strict=True):
                start = _mover_outputs(model, empty, where)
                each.komi = komi_estimates(model, start, estimate, to_play_black, komi)
    results = results.astype(np.float64)
    black_results = np.where(to_play_black, results, -results)
    return Report(
        data=str(data),
        board_size=positions_data.board_size,
        held_out=held_out,
        seed=seed,
        positions=len(indices),
        games=len(np.unique(positions_data.game_ids[indices])),
        owned=int(positions_data.owned[indices].sum()),
        data_komi=sorted({abs(term) for term in np.unique(terms).tolist()}),
        black_wins=float(np.mean((black_results + 1.0) / 2.0)),
        networks=figures,
    )


# -- the tables -------------------------------------------------------------------------------


def bucket_rows(report: Report, key: str = "accuracy") -> list[str]:
    """The move buckets any network was scored on (in ``key``'s figures), in move order, then "all"."""
    labels = {
        label for each in report.networks if getattr(each, key) for label in getattr(each, key)["by_move"]
    }
    return [*sorted(labels, key=lambda label: int(label.split("-")[0])), ALL]


def _figure(accuracy: dict[str, Any] | None, row: str) -> dict[str, Any] | None:
    """The figures of one row (a bucket, or "all") of ``ownership_accuracy``'s dict."""
    if accuracy is None:
        return None
    return accuracy if row == ALL else accuracy["by_move"].get(row)


def _table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(line[i]) for line in (header, *rows)) for i in range(len(header))]
    lines = [title]
    for line in (header, *rows):
        cells = [
            line[0].ljust(widths[0]),
            *(cell.rjust(width) for cell, width in zip(line[1:], widths[1:], strict=True)),
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def format_report(report: Report) -> str:
    """The report as the command prints it: sign agreement and score error by move bucket (and
    the komi tables when asked)."""
    names = [each.name for each in report.networks]
    komi = ", ".join(f"{value:g}" for value in report.data_komi)
    lines = [
        f"Ownership networks on {report.positions} held-out positions ({report.games} games, "
        f"{report.owned} positions with final owners) of {report.data}, "
        f"{report.board_size}x{report.board_size}, komi {komi} "
        f"(held out {report.held_out:g} of the games, seed {report.seed})",
        "",
    ]

    def counts(figures: str, row: str) -> str:
        for each in report.networks:
            found = _figure(getattr(each, figures), row)
            if found is not None:
                return str(found["positions"])
        return "n/a"

    for title, figures, key, cell in (
        ("sign agreement of v(s, i) with the final owner (points with an owner)", "accuracy",
         "sign_agreement", lambda x: f"{x:.1%}"),
        ("score error |V - final score|, points (area, komi aside)", "accuracy", "score_error",
         lambda x: f"{x:.2f}"),
        ("result accuracy: the win probability names the winner (decided positions)", "prediction",
         "result_accuracy", lambda x: f"{x:.1%}"),
        ("Brier score of the win probability (0 the best, 0.25 a coin's)", "prediction", "brier",
         lambda x: f"{x:.3f}"),
    ):  # fmt: skip
        table = []
        for row in bucket_rows(report, figures):
            line = [f"moves {row}" if row != ALL else ALL, counts(figures, row)]
            for each in report.networks:
                found = _figure(getattr(each, figures), row)
                line.append("n/a" if found is None else cell(found[key]))
            table.append(line)
        lines += [*_table(title, ["", "positions", *names], table), ""]
    if any(each.komi for each in report.networks):
        komis = [estimate.komi for estimate in report.networks[0].komi]
        for title, attribute in (
            ("Black's calibrated win probability on the empty board, by komi", "empty_board"),
            (
                f"Black's mean calibrated win probability over the held-out positions, by komi "
                f"(Black won {report.black_wins:.1%} of them at komi {komi})",
                "held_out",
            ),
        ):
            table = [
                [f"komi {value:g}", *(f"{getattr(each.komi[i], attribute):.1%}" for each in report.networks)]
                for i, value in enumerate(komis)
            ]
            lines += [*_table(title, ["", *names], table), ""]
        if any(each.head != "ownership" for each in report.networks):
            lines += ["(a win head sees no komi: its estimate is the same at every komi)", ""]
    return "\n".join(lines).rstrip() + "\n"


# -- the command: ``goarena bench ownership`` -------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench ownership``."""
    parser.add_argument(
        "--data", type=Path, required=True,
        help="shards with ownership (goarena data shards) or a zero run (its buffer): the training data",
    )  # fmt: skip
    parser.add_argument(
        "--weights", nargs="+", required=True, metavar="[NAME=]PATH",
        help="ownership networks (ownership.pt); a name defaults to the file's folder",
    )  # fmt: skip
    parser.add_argument(
        "--held-out", type=float, default=0.05, help="fraction of games held out in training (default 0.05)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the training runs' seed, for their split (default 0)"
    )
    parser.add_argument(
        "--positions",
        type=int,
        default=None,
        help="score a sample of this many held-out positions (default all)",
    )
    parser.add_argument(
        "--komi", type=float, nargs="+", default=[], help="komis of the win-estimate tables (e.g. 5.5 7 9)"
    )
    parser.add_argument("--device", default="cpu", help="cpu (default), cuda, cuda:N")
    parser.add_argument("--threads", type=int, default=1, help="torch threads on the CPU (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def command(args: argparse.Namespace) -> None:
    """``goarena bench ownership``: measure and print the tables (or JSON)."""
    report = measure(
        args.data,
        parse_weights(args.weights),
        held_out=args.held_out,
        seed=args.seed,
        positions=args.positions,
        komi=args.komi,
        device=args.device,
        threads=args.threads,
    )
    print(
        json.dumps(report.to_json(), indent=2) if args.json else format_report(report),
        end="\n" if args.json else "",
    )
