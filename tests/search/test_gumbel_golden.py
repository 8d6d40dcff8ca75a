"""Golden Gumbel trees: each game's root after a fixed search, recorded once, beside PUCT's.

Each case searches copies of a small position with a deterministic evaluator, either without
Gumbel noise or with it drawn from a fixed seed, so the trees are a pure function of the
search's code. The root's visit counts and chosen moves must match exactly, its values, root
value and improved policy to 1e-9: a faster or restructured search must grow the same trees.

Regenerate ``golden/gumbel.json`` only when a change of search results is intended:

    pytest tests/search/test_gumbel_golden.py --regenerate-golden
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest
from test_puct_golden import FixedEvaluator

from go_env import Game, Rules, coords
from go_env import core as K
from go_env.batch import GameBatch
from goarena.search import UniformEvaluator
from goarena.search.gumbel import GumbelSearch
from tests.boards import CAPTURE, HALF_POINT_KOMI, ONLY_WIN, ONLY_WIN_RULES, position

GOLDEN = Path(__file__).parent / "golden" / "gumbel.json"


class Case(NamedTuple):
    board: str | int  # a diagram, or the size of an empty board
    rules: Rules
    evaluator: str  # "uniform" or "fixed"
    simulations: int
    max_considered: int
    games: int = 1  # copies of the position searched in one batch
    seed: int | None = None  # None: no Gumbel noise


CASES = {
    "empty5-uniform-m4": Case(5, Rules(), "uniform", 16, 4),
    "empty5-fixed-m8": Case(5, Rules(), "fixed", 32, 8),
    "empty5-fixed-m16-noise": Case(5, Rules(), "fixed", 32, 16, games=3, seed=0),
    "capture-fixed-m16": Case(CAPTURE, HALF_POINT_KOMI, "fixed", 64, 16),
    "capture-uniform-m32-noise": Case(CAPTURE, HALF_POINT_KOMI, "uniform", 48, 32, games=2, seed=1),
    # Near the end of a capped game: many simulations end in a finished game, scored by the rules.
    "only-win-fixed-m8": Case(ONLY_WIN, ONLY_WIN_RULES, "fixed", 64, 8),
    "only-win-fixed-m32-noise": Case(ONLY_WIN, ONLY_WIN_RULES, "fixed", 40, 32, games=2, seed=2),
}


def run_case(case: Case) -> list[dict[str, Any]]:
    """Each game's root after the case's search: the move chosen, the nodes, the root's value,
    the visits and values of the visited moves and the improved policy over the legal moves."""
    game = Game(case.board, case.rules) if isinstance(case.board, int) else position(case.board, case.rules)
    batch = GameBatch(game.size, case.games, game.rules)
    for b in range(case.games):
        K.copy_into(K.state_item(batch.state, b), game.state)
    evaluator = UniformEvaluator() if case.evaluator == "uniform" else FixedEvaluator()
    noise = case.seed is not None
    search = GumbelSearch(evaluator, max_considered=case.max_considered, gumbel=noise, seed=case.seed)
    moves = search.search(batch, simulations=case.simulations)
    assert search.trees is not None

    def vertex(point: int | np.integer) -> str:
        return coords.to_gtp(int(point), game.size)

    counts, values = search.visit_counts(), search.values()
    targets, root_values = search.policy_targets(), search.root_values()
    legal = game.legal_mask().astype(bool)
    games = []
    for b in range(case.games):
        visited = np.flatnonzero(counts[b])
        games.append(
            {
                "move": vertex(moves[b]),
                "nodes": int(search.trees.num_nodes[b, 0]),
                "root_value": float(root_values[b]),
                "visits": {vertex(a): int(counts[b, a]) for a in visited},
                "values": {vertex(a): float(values[b, a]) for a in visited},
                "policy": {vertex(a): float(targets[b, a]) for a in np.flatnonzero(legal)},
            }
        )
    return games


def regenerate() -> None:
    GOLDEN.parent.mkdir(exist_ok=True)
    cases = []
    for name, case in CASES.items():  # one field a line: diffs show what changed
        games = []
        for result in run_case(case):
            fields = [f"   {json.dumps(key)}: {json.dumps(value)}" for key, value in result.items()]
            games.append("  {\n" + ",\n".join(fields) + "\n  }")
        cases.append(f" {json.dumps(name)}: [\n" + ",\n".join(games) + "\n ]")
    GOLDEN.write_text("{\n" + ",\n".join(cases) + "\n}\n")


@pytest.fixture(scope="module")
def golden(request: pytest.FixtureRequest) -> dict[str, Any]:
    if request.config.getoption("--regenerate-golden"):
        regenerate()
        pytest.skip("golden trees regenerated: run again without --regenerate-golden to compare")
    return json.loads(GOLDEN.read_text())


def _close(got: dict[str, float], expected: dict[str, float]) -> None:
    assert got.keys() == expected.keys()
    for move, value in expected.items():
        assert got[move] == pytest.approx(value, abs=1e-9), move


@pytest.mark.parametrize("name", CASES)
def test_gumbel_grows_the_golden_trees(name, golden):
    expected_games, got_games = golden[name], run_case(CASES[name])
    assert len(got_games) == len(expected_games)
    for expected, got in zip(expected_games, got_games, strict=True):
        for key in ("move", "nodes", "visits"):
            assert got[key] == expected[key], key
        assert got["root_value"] == pytest.approx(expected["root_value"], abs=1e-9)
        _close(got["values"], expected["values"])
        _close(got["policy"], expected["policy"])


def test_golden_cases_cover_every_recorded_tree(golden):
    assert golden.keys() == CASES.keys()
