"""Expert games as a zero network's first lessons: the warm start of ``goarena train zero --expert``.

AlphaGo learnt from expert games before it played itself; a zero network can too. Each expert
move of a record (``agents.data.reader``: random opening moves are replayed, not learnt) gives a
position in the self-play record's form (``SelfPlayGames``), so the zero loss trains on it as
it is:

- policy: the expert's move, one-hot;
- value: the game's result for the side to move (the root value is set to it too, since no
  search ran: mixing it in changes nothing);
- ownership and score: from the record's territory marks (``TB``/``TW``, the engine's
  judgement of the dead stones; ``goarena data gnugo`` writes them), the final owner of every
  point and the area margin (komi counted), from the side to move's view. Records without
  marks (resigned games) and records scored by territory train the policy and value alone.

The positions are read once into the run's ``expert/`` folder, a replay chunk (integrity-checked
like self-play's); a resumed run reads that chunk rather than the records again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from go_env import GameBatch
from go_env import core as K
from goarena.agents.data.reader import ExpertGame, SkippedGame, read_expert_game
from goarena.agents.inference.features import FeatureBuilder, arrange
from goarena.agents.nets.features import Features
from goarena.agents.training.selfplay import SelfPlayGames, merge_games, outcome_targets


def read_expert_folder(folder: Path | str, size: int) -> tuple[list[ExpertGame], dict[str, int]]:
    """The usable games of every ``*.sgf`` under ``folder`` (sorted by path), and the count of
    records skipped by reason (``reader.SKIP_REASONS``).

    Raises:
        ValueError: the folder holds no usable game of a ``size`` board.
    """
    paths = sorted(Path(folder).rglob("*.sgf"))
    games: list[ExpertGame] = []
    skipped: dict[str, int] = {}
    for path in paths:
        try:
            games.append(read_expert_game(path, size))
        except SkippedGame as skip:
            skipped[skip.reason] = skipped.get(skip.reason, 0) + 1
    if not games:
        raise ValueError(f"{folder}: no usable {size}x{size} game in {len(paths)} SGF records ({skipped})")
    return games, skipped


def expert_positions(games: Sequence[ExpertGame], features: Features) -> SelfPlayGames:
    """Every expert move of ``games`` (one board size) as a training position, its planes those
    a network of ``features`` reads (``ZeroNet.features``)."""
    return merge_games([_positions(group, features) for group in _by_rules(games)])


def _by_rules(games: Sequence[ExpertGame]) -> list[list[ExpertGame]]:
    """``games`` grouped by their rules but the komi (a batch plays one rule set; each game
    keeps its own komi)."""
    groups: dict[object, list[ExpertGame]] = {}
    for game in games:
        groups.setdefault(replace(game.rules, komi=0.0), []).append(game)
    return list(groups.values())


def _positions(games: list[ExpertGame], features: Features) -> SelfPlayGames:
    size = games[0].size
    batch = GameBatch(size, len(games), games[0].rules)
    komi = np.array([game.rules.komi for game in games], np.float64)
    batch.state.info[:, K.INFO_KOMI] = np.round(2.0 * komi).astype(np.int64)
    builder = FeatureBuilder("history", features.planes)
    actions = size * size + 1
    lengths = np.array([len(game.moves) for game in games], np.int64)
    recorded = []
    for ply in range(int(lengths.max())):
        moving = np.flatnonzero(lengths > ply)
        learnt = np.array([ply >= games[g].first_target for g in moving], bool)
        if learnt.any():
            rows = moving[learnt]
            moves = np.array([games[g].moves[ply] for g in rows], np.int64)
            planes = arrange(builder.build(batch.state, batch.geometry)[rows], features)
            recorded.append((planes, moves, batch.to_play[rows], rows, ply))
        moves = np.full(len(games), actions - 1, np.int64)
        moves[moving] = [games[g].moves[ply] for g in moving]
        batch.stop(lengths <= ply)  # finished records stand still
        batch.play(moves)
    return _record(games, recorded, komi, lengths, size)


def _record(
    games: list[ExpertGame], recorded: list[tuple], komi: np.ndarray, lengths: np.ndarray, size: int
) -> SelfPlayGames:
    actions = size * size + 1
    planes = np.concatenate([part[0] for part in recorded])
    moves = np.concatenate([part[1] for part in recorded])
    to_play = np.concatenate([part[2] for part in recorded])
    game = np.concatenate([part[3] for part in recorded])
    move_number = np.concatenate([np.full(len(part[3]), part[4], np.int64) for part in recorded])
    policy = np.zeros((len(moves), actions), np.float32)
    policy[np.arange(len(moves)), moves] = 1.0
    winners = np.array([g.winner for g in games], np.int64)
    marked = np.array([g.owner is not None and g.rules.scoring == "area" for g in games], bool)
    owners = np.array(
        [g.owner if g.owner is not None else (K.EMPTY,) * size * size for g in games], np.int8
    ).reshape(len(games), size * size)
    margins = (owners == K.BLACK).sum(axis=1) - (owners == K.WHITE).sum(axis=1) - komi
    value, ownership, owned, score = outcome_targets(game, to_play, winners, owners, margins, marked)
    return SelfPlayGames(
        planes=planes,
        policy=policy,
        value=value,
        root_value=value.astype(np.float32),
        score=score,
        ownership=ownership,
        owned=owned,
        game=game,
        move_number=move_number,
        winners=winners,
        komi=komi,
        lengths=lengths,
        resigned=~marked,
        false_resignations=0,
        resign_checks=0,
        evaluations=0,
    )
