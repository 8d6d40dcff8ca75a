"""AlphaZero's self-play: many games at once over one batched search, recorded as training data.

``play_selfplay`` plays ``games`` games of a network against itself over one ``GameBatch``:
at every step one batched search (``search.BatchedSearch``, configured as ``BatchedPUCT`` or,
with ``search="gumbel"``, ``GumbelSearch``; ``make_search``) runs over all running games, with
one forward pass per search step for all their leaves. The loop reads every search alike: the
policy target, the move to play, the root's values, ``play(batch, moves)``.

- PUCT: Dirichlet noise at the root (ε = ``noise``), moves drawn in proportion to the visits
  for the first ``temperature_moves`` moves of a game and the most visited after; the target
  is the visit distribution.
- Gumbel (Danihelka et al. 2022): the root's Gumbel noise explores; the move is the search's
  choice and the target its improved policy, which stays a good target at 8–32 simulations.
- Playout cap randomization (KataGo): with ``full_search_probability`` < 1, each step is a
  full search (``simulations``, recorded) with that probability, else a cheap one
  (``cheap_simulations``, no noise, not recorded): more games for the value head per unit of
  compute.
- Tree reuse (PUCT, ``tree_reuse``): each game keeps the subtree of the move played, and the
  next search only tops its root up to the simulations asked (KataGo's visit limit), with
  fresh noise on it. Gumbel search starts each move afresh, as its sequential halving plans
  the root's whole budget.
- Resignation: a side whose root value stays below ``-resign_value`` resigns, except in the
  share ``no_resign_fraction`` of games, which play on and measure how often a resignation
  would have been wrong (``false_resignations`` of ``resign_checks``).

- Komi randomization (KataGo): with ``komi_sd`` > 0 each game gets its own komi, drawn from
  a normal distribution around the rules' komi with that deviation in points and rounded to
  half points, so that a network that reads the komi (``ZeroNet(rules_input=True)``) learns
  what it is worth.
- Precision: with ``precision="bfloat16"`` the network plays in bfloat16 (a copy), the
  training keeps float32; ``"auto"`` picks it where the CPU has AVX512-BF16
  (``auto_precision``). There the shipped 4 x 32 network's forward pass on 64 positions of
  9x9 took 28 ms against 48 ms; self-play as a whole, whose search and features do not
  change, gained 1.0 to 1.35 times on a busy two-core machine.

Each recorded position keeps the network's input planes (the history planes, and the rules
planes for a network that reads them), the search's policy target, the outcome ``z`` for its
side to move, the search's root value (its visit-weighted Q, for the side to move) and, for
games played to the end, the final margin (KataGo's score target) and the final owner of
every point (KataGo's auxiliary ownership target), both from its side to move's view.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
from torch import nn

from go_env import GameBatch, Rules
from go_env import core as K
from go_env.batch import owners_for_mover
from go_env.features import NUM_HISTORY_PLANES
from goarena.agents.inference.features import FeatureBuilder, arrange
from goarena.agents.inference.network import NetworkEvaluator
from goarena.agents.nets.features import HISTORY
from goarena.agents.nets.predict import PRECISION_NAMES, resolve_precision
from goarena.search import BatchedPUCT, BatchedSearch, GumbelSearch

SEARCHES = ("puct", "gumbel")


@dataclass(frozen=True)
class SelfPlaySettings:
    """How self-play searches and plays (the ``goarena train zero`` options of the same names)."""

    search: str = "gumbel"
    simulations: int = 16
    cheap_simulations: int = 4
    full_search_probability: float = 1.0
    noise: float = 0.25
    dirichlet_alpha: float | None = None  # None: 10 / legal moves
    temperature_moves: int = 8
    max_considered: int = 16  # Gumbel's m
    c_puct: float = 1.5
    resign_value: float = 0.9  # resign below this root value's negative; 0: never
    no_resign_fraction: float = 0.2
    tree_reuse: bool = False  # PUCT only
    komi_sd: float = 0.0  # each game's komi drawn around the rules' with this deviation (points)
    precision: str = "float32"  # the network's arithmetic in play: float32, bfloat16, or auto

    def __post_init__(self) -> None:
        if self.search not in SEARCHES:
            raise ValueError(f"search is one of {', '.join(SEARCHES)}, got {self.search!r}")
        if self.simulations < 1 or self.cheap_simulations < 1:
            raise ValueError("simulations and cheap_simulations must be positive")
        if not 0.0 < self.full_search_probability <= 1.0:
            raise ValueError(f"full_search_probability is in (0, 1], got {self.full_search_probability}")
        if not 0.0 <= self.resign_value < 1.0 or not 0.0 <= self.no_resign_fraction <= 1.0:
            raise ValueError("resign_value is in [0, 1) and no_resign_fraction in [0, 1]")
        if self.tree_reuse and self.search != "puct":
            raise ValueError("tree_reuse is for search='puct': Gumbel search starts each move afresh")
        if not 0.0 <= self.komi_sd < float("inf"):
            raise ValueError(f"komi_sd is a deviation in points: at least 0, got {self.komi_sd}")
        if self.precision not in PRECISION_NAMES:
            raise ValueError(f"precision is one of {', '.join(PRECISION_NAMES)}, got {self.precision!r}")


@dataclass
class SelfPlayGames:
    """Recorded positions of a batch of self-play games (T positions, G games).

    Attributes:
        planes: int8[T, C, N, N]: the network's input planes, channels first (17 history
            planes, 19 with the rules planes).
        policy: float32[T, N*N+1]: the search's policy target.
        value: int8[T]: the game's outcome for the side to move there: +1, -1 or 0.
        root_value: float32[T]: the search's root value there (visit-weighted Q), for the side to move.
        score: float32[T]: the final margin for the side to move there, in points (komi
            counted); 0 where not ``owned``.
        ownership: int8[T, N*N]: the final owner of each point for the side to move there
            (+1 its own, -1 the opponent's, 0 neither); 0 everywhere where not ``owned``.
        owned: bool[T]: the game was played out, so ``ownership`` is known.
        game: int64[T]: the game of each position.
        move_number: int64[T]: the moves played before each position.
        winners: int64[G]: BLACK, WHITE or 0 (a draw).
        komi: float64[G]: each game's komi.
        lengths: int64[G]: moves played.
        resigned: bool[G].
        false_resignations, resign_checks: in the games that did not resign, how many times a
            side would have resigned (once per game at most) and went on to win.
        evaluations: positions the network evaluated.
    """

    planes: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    root_value: np.ndarray
    score: np.ndarray
    ownership: np.ndarray
    owned: np.ndarray
    game: np.ndarray
    move_number: np.ndarray
    winners: np.ndarray
    komi: np.ndarray
    lengths: np.ndarray
    resigned: np.ndarray
    false_resignations: int
    resign_checks: int
    evaluations: int

    def __len__(self) -> int:
        return int(self.value.shape[0])


def make_search(
    evaluator: NetworkEvaluator, settings: SelfPlaySettings, seed: int, full: bool
) -> BatchedSearch:
    """The batched search ``settings`` asks for (``full``: with PUCT's root noise)."""
    if settings.search == "gumbel":
        return GumbelSearch(evaluator, seed=seed, max_considered=settings.max_considered)
    return BatchedPUCT(
        evaluator,
        c_puct=settings.c_puct,
        noise=settings.noise if full else 0.0,
        dirichlet_alpha=settings.dirichlet_alpha,
        seed=seed,
        reuse=settings.tree_reuse,
    )


def play_selfplay(
    model: nn.Module, games: int, rules: Rules, settings: SelfPlaySettings, seed: int
) -> SelfPlayGames:
    """Play ``games`` games of ``model`` (a ``ZeroNet``) against itself under ``rules``;
    every draw (noise, moves, playout caps, which games may resign, komi) comes from ``seed``."""
    size: int = model.board_size  # type: ignore[assignment]
    rng = np.random.default_rng(seed)
    batch = GameBatch(size, games, rules, seed=int(rng.integers(2**63)))
    if settings.komi_sd > 0:
        half_points = np.round(2.0 * rng.normal(rules.komi, settings.komi_sd, games))
        batch.state.info[:, K.INFO_KOMI] = half_points.astype(np.int64)
    komi = 0.5 * batch.state.info[:, K.INFO_KOMI].astype(np.float64)
    dtype = resolve_precision(settings.precision)
    if next(model.parameters()).dtype != dtype:
        model = copy.deepcopy(model).to(dtype)
    # Every leaf run (no cache): ``evaluations`` counts the network's work.
    evaluator = NetworkEvaluator(policy=model, value=model, cache=0)
    features = getattr(model, "features", HISTORY)  # the recorded planes are the network's input
    history = FeatureBuilder("history", features.planes)
    full_search = make_search(evaluator, settings, int(rng.integers(2**63)), True)
    cheap_search = make_search(evaluator, settings, int(rng.integers(2**63)), False)
    # PUCT with tree_reuse: one tree for both budgets, noise on the full searches only.
    reused = full_search if settings.tree_reuse and isinstance(full_search, BatchedPUCT) else None
    if reused is not None:
        cheap_search = reused
    may_resign = rng.random(games) >= settings.no_resign_fraction
    resigned = np.zeros(games, bool)
    winners = np.zeros(games, np.int64)
    would_resign = np.zeros(games, np.int64)  # colour that would have resigned, in games that may not
    recorded: list[tuple[np.ndarray, ...]] = []
    while not (over := batch.is_over).all():
        full = settings.full_search_probability >= 1.0 or rng.random() < settings.full_search_probability
        search = full_search if full else cheap_search
        if reused is not None:
            reused.noise = settings.noise if full else 0.0
        moves = search.search(batch, settings.simulations if full else settings.cheap_simulations)
        running = np.flatnonzero(~over)
        to_play = batch.to_play
        visits = search.visit_counts()
        root = (visits * search.values()).sum(axis=1) / np.maximum(visits.sum(axis=1), 1)
        if full:
            targets = search.policy_targets()
            planes = arrange(history.build(batch.state, batch.geometry)[running], features)
            moved = batch.state.info[running, K.INFO_MOVE_NUMBER]
            recorded.append(
                (planes, targets[running].astype(np.float32), root[running], to_play[running], running, moved)
            )
        # PUCT draws its opening moves by visits; Gumbel's choice already carries its noise.
        opening = batch.state.info[:, K.INFO_MOVE_NUMBER] < settings.temperature_moves
        moves = np.where(opening, search.choose_moves(1.0), moves)
        if settings.resign_value > 0.0:
            losing = ~over & (root < -settings.resign_value)
            resigning = losing & may_resign
            resigned |= resigning
            winners[resigning] = 3 - to_play[resigning]
            first = losing & ~may_resign & (would_resign == 0)
            would_resign[first] = to_play[first]
            moves = np.where(resigning, batch.num_actions - 1, moves)
        search.play(batch, moves)  # keeps the trees' subtrees with tree_reuse
        if resigned.any():
            batch.stop(resigned)
    played_out = ~resigned
    margins = batch.scores()
    winners[played_out] = np.where(margins > 0, K.BLACK, np.where(margins < 0, K.WHITE, 0))[played_out]
    owners = batch.area_owners()
    checks = would_resign != 0
    false_resignations = int(np.sum(checks & (winners == would_resign)))
    lengths = batch.state.info[:, K.INFO_MOVE_NUMBER].astype(np.int64)
    return _collect(recorded, winners, komi, margins, owners, played_out, lengths, resigned,
                    false_resignations, int(checks.sum()), evaluator.evaluations, size,
                    features.planes)  # fmt: skip


def _collect(
    recorded: list[tuple[np.ndarray, ...]],
    winners: np.ndarray,
    komi: np.ndarray,
    margins: np.ndarray,
    owners: np.ndarray,
    played_out: np.ndarray,
    lengths: np.ndarray,
    resigned: np.ndarray,
    false_resignations: int,
    resign_checks: int,
    evaluations: int,
    size: int,
    channels: int = NUM_HISTORY_PLANES,
) -> SelfPlayGames:
    actions = size * size + 1
    if recorded:
        planes, policy, root, to_play, game, moved = (
            np.concatenate(parts) for parts in zip(*recorded, strict=True)
        )
    else:
        planes = np.zeros((0, channels, size, size), np.int8)
        policy, root, to_play, game, moved = (
            np.zeros((0, actions), np.float32),
            np.zeros(0, np.float64),
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
        )
    value, ownership, owned, score = outcome_targets(game, to_play, winners, owners, margins, played_out)
    return SelfPlayGames(
        planes=planes,
        policy=policy,
        value=value,
        root_value=root.astype(np.float32),
        score=score,
        ownership=ownership,
        owned=owned,
        game=game,
        move_number=moved.astype(np.int64),
        winners=winners,
        komi=komi,
        lengths=lengths,
        resigned=resigned,
        false_resignations=false_resignations,
        resign_checks=resign_checks,
        evaluations=evaluations,
    )


def outcome_targets(
    game: np.ndarray,
    to_play: np.ndarray,
    winners: np.ndarray,
    owners: np.ndarray,
    margins: np.ndarray,
    played_out: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The targets its game's end gives each position (``game[i]``, ``to_play[i]``): the
    outcome (int8 +1/0/-1), the final owners (int8[T, N*N]) and the margin (float32) for the
    side to move, and whether the game was played out (``owned``: else ownership and margin 0).
    ``winners``, ``owners`` (BLACK/WHITE/EMPTY a point), ``margins`` (Black's, komi counted) and
    ``played_out`` are per game."""
    winner = winners[game]
    value = np.where(winner == K.EMPTY, 0, np.where(winner == to_play, 1, -1)).astype(np.int8)
    ownership = owners_for_mover(owners[game], to_play)
    owned = played_out[game]
    ownership[~owned] = 0
    score = np.where(to_play == K.BLACK, margins[game], -margins[game]).astype(np.float32)
    score[~owned] = 0.0
    return value, ownership, owned, score


def merge_games(parts: list[SelfPlayGames]) -> SelfPlayGames:
    """One record of the shards' games, their game numbers made distinct."""
    offsets = np.cumsum([0] + [len(part.winners) for part in parts[:-1]])
    fields = {}
    for name in (
        "planes",
        "policy",
        "value",
        "root_value",
        "score",
        "ownership",
        "owned",
        "move_number",
        "winners",
        "komi",
        "lengths",
        "resigned",
    ):
        fields[name] = np.concatenate([getattr(part, name) for part in parts])
    fields["game"] = np.concatenate([part.game + offset for part, offset in zip(parts, offsets, strict=True)])
    return SelfPlayGames(
        **fields,
        false_resignations=sum(part.false_resignations for part in parts),
        resign_checks=sum(part.resign_checks for part in parts),
        evaluations=sum(part.evaluations for part in parts),
    )
