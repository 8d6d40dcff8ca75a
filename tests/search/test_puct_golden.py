"""Golden PUCT trees: the root's visits and values after a fixed search, recorded once.

Each case searches a small position with a deterministic evaluator (no noise, no random
draws), so the tree it grows is a pure function of the search's code. The root's visit
counts must match exactly and its values to 1e-9: a faster search must grow the same tree.

Regenerate ``golden/puct.json`` only when a change of search results is intended:

    pytest tests/search/test_puct_golden.py --regenerate-golden
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules, coords
from go_env import core as K
from goarena.search import PUCT, Leaves, UniformEvaluator
from tests.boards import CAPTURE, HALF_POINT_KOMI, ONLY_WIN, ONLY_WIN_RULES, position

GOLDEN = Path(__file__).parent / "golden" / "puct.json"


class FixedEvaluator:
    """Priors and values that are a fixed function of the position (its Zobrist key and
    stones), different from node to node so that search must follow them."""

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        boards = leaves.states.board[:, :-1]
        keys = leaves.states.key[:, 0]
        moves = np.arange(leaves.legal.shape[1])
        weights = 1.0 + (3 * moves[None, :] + (keys % np.uint64(11)).astype(np.int64)[:, None]) % 5
        priors = np.where(leaves.legal != 0, weights, 0.0)
        priors /= priors.sum(axis=1, keepdims=True)
        black = (boards == BLACK).sum(axis=1)
        white = (boards == WHITE).sum(axis=1)
        margin = np.where(leaves.states.info[:, K.INFO_TO_PLAY] == BLACK, black - white, white - black)
        jitter = (keys % np.uint64(7)).astype(np.float64) - 3.0  # in -3 .. 3
        return priors, np.tanh((margin + jitter / 4.0) / 3.0)


class Case(NamedTuple):
    board: str | int  # a diagram, or the size of an empty board
    rules: Rules
    evaluator: str  # "uniform" or "fixed"
    batch: int
    simulations: int
    replies: int = 0  # then play this many moves of the principal variation and search again


CASES = {
    "empty5-uniform-batch1": Case(5, Rules(), "uniform", 1, 200),
    "empty5-fixed-batch1": Case(5, Rules(), "fixed", 1, 200),
    "empty5-fixed-batch8": Case(5, Rules(), "fixed", 8, 200),
    "capture-uniform-batch8": Case(CAPTURE, HALF_POINT_KOMI, "uniform", 8, 200),
    "capture-fixed-batch1": Case(CAPTURE, HALF_POINT_KOMI, "fixed", 1, 200),
    "capture-fixed-batch16": Case(CAPTURE, HALF_POINT_KOMI, "fixed", 16, 200),
    # Near the end of a capped game: many simulations end in a finished game, scored by the rules.
    "only-win-fixed-batch1": Case(ONLY_WIN, ONLY_WIN_RULES, "fixed", 1, 300),
    "only-win-uniform-batch8": Case(ONLY_WIN, ONLY_WIN_RULES, "uniform", 8, 300),
    # Tree reuse: two moves down the principal variation, the subtree kept.
    "empty5-fixed-batch8-reused": Case(5, Rules(), "fixed", 8, 100, replies=2),
}


def run_case(case: Case) -> dict[str, Any]:
    """The root after the case's search: visits and values of the visited moves, the move
    chosen, the principal variation and the number of nodes."""
    game = Game(case.board, case.rules) if isinstance(case.board, int) else position(case.board, case.rules)
    evaluator = UniformEvaluator() if case.evaluator == "uniform" else FixedEvaluator()
    puct = PUCT(evaluator, batch=case.batch, seed=0)
    move = puct.search(game, simulations=case.simulations)
    if case.replies:
        for reply in puct.principal_variation(move)[: case.replies]:
            game.play(reply)
        move = puct.search(game, simulations=case.simulations)
    assert puct.tree is not None

    def vertex(point: int | np.integer) -> str:
        return coords.to_gtp(int(point), game.size)

    counts, values = puct.visit_counts(), puct.values()
    visited = np.flatnonzero(counts)
    return {
        "move": vertex(move),
        "principal_variation": [vertex(p) for p in puct.principal_variation(move)],
        "nodes": int(puct.tree.num_nodes[0]),
        "visits": {vertex(a): int(counts[a]) for a in visited},
        "values": {vertex(a): float(values[a]) for a in visited},
    }


def regenerate() -> None:
    GOLDEN.parent.mkdir(exist_ok=True)
    cases = []
    for name, case in CASES.items():  # one field a line: diffs show what changed
        fields = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in run_case(case).items()]
        cases.append(f" {json.dumps(name)}: {{\n" + ",\n".join(fields) + "\n }")
    GOLDEN.write_text("{\n" + ",\n".join(cases) + "\n}\n")


@pytest.fixture(scope="module")
def golden(request: pytest.FixtureRequest) -> dict[str, Any]:
    if request.config.getoption("--regenerate-golden"):
        regenerate()
        pytest.skip("golden trees regenerated: run again without --regenerate-golden to compare")
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("name", CASES)
def test_puct_grows_the_golden_tree(name, golden):
    expected, got = golden[name], run_case(CASES[name])
    assert got["visits"] == expected["visits"]
    assert got["values"].keys() == expected["values"].keys()
    for move, value in expected["values"].items():
        assert got["values"][move] == pytest.approx(value, abs=1e-9), move
    assert (got["move"], got["principal_variation"], got["nodes"]) == (
        expected["move"],
        expected["principal_variation"],
        expected["nodes"],
    )


def test_golden_cases_cover_every_recorded_tree(golden):
    assert golden.keys() == CASES.keys()
