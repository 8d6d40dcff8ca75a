"""The zero player: a ZeroNet's priors and values in PUCT or Gumbel search."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from go_env import Game, Rules
from goarena.agents import make_agent
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.zero import ZeroNet
from goarena.agents.protocols import GameContext
from goarena.agents.specs import AgentSpecError, check_spec

RULES = Rules(komi=0.5, scoring="area")


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("zero") / "zero.pt"
    torch.manual_seed(0)  # the same untrained network whatever ran before
    save_model(path, ZeroNet(5, blocks=1, filters=8))
    return path


def started(spec: str, size: int = 5) -> tuple[object, Game]:
    player = make_agent(spec, seed=0)
    game = Game(size, RULES)
    player.reset(GameContext(size, RULES, seed=0))  # type: ignore[attr-defined]
    return player, game


@pytest.mark.parametrize("play", ["puct", "gumbel", "greedy", "policy"])
def test_plays_legal_moves_and_reports_its_policy(weights: Path, play: str):
    budget = "" if play in ("greedy", "policy") else ",simulations=16"
    player, game = started(f"zero:weights={weights}{budget},play={play}")
    for _ in range(6):
        if game.is_over:
            break
        action = player.act(game)  # type: ignore[attr-defined]
        assert game.legal_mask()[action.move]
        assert action.policy.shape == (26,)
        assert action.policy.sum() == pytest.approx(1.0)
        assert (action.policy[~game.legal_mask().astype(bool)] == 0).all()
        assert -1.0 <= action.value <= 1.0
        game.play(action.move)


def test_the_weights_digest_is_the_networks(weights: Path):
    from goarena.agents.nets.load import file_digest

    player, _ = started(f"zero:weights={weights},simulations=4")
    assert player.weights_digest() == file_digest(weights)  # type: ignore[attr-defined]


def test_is_deterministic_under_a_seed(weights: Path):
    moves = []
    for _ in range(2):
        player, game = started(f"zero:weights={weights},simulations=16,temperature=1.0")
        moves.append([player.select_move(game) for _ in range(1)])  # type: ignore[attr-defined]
    assert moves[0] == moves[1]


def test_refuses_another_networks_file(tmp_path: Path):
    policy = tmp_path / "policy.pt"
    save_model(policy, PolicyNet(5, layers=2, filters=4))
    with pytest.raises(AgentSpecError, match="holds a 'policy' network, not a zero network"):
        check_spec(f"zero:weights={policy}")


def test_refuses_another_board_size(weights: Path):
    with pytest.raises(AgentSpecError, match="5x5, not 9x9"):
        check_spec(f"zero:weights={weights}", GameContext(9, RULES))


@pytest.mark.parametrize(
    "bad",
    ["evaluator=rollout", "play=minimax", "prior=x.pt", "play=gumbel,seconds=1", "play=policy,c_puct=2"],
)
def test_refuses_options_that_are_not_its(weights: Path, bad: str):
    with pytest.raises(AgentSpecError):
        check_spec(f"zero:weights={weights},{bad}")


def test_search_values_follow_the_network(weights: Path):
    """The root value the player reports is the search's, from the network's values."""
    player, game = started(f"zero:weights={weights},simulations=8")
    action = player.act(game)  # type: ignore[attr-defined]
    visits = player.search.searcher.visit_counts()  # type: ignore[attr-defined]
    assert visits.sum() > 0
    assert np.isfinite(action.value)


def test_gtp_lz_analyze_reports_the_networks_search(weights: Path):
    from goarena.agents.gtp.engine import GTPEngine

    engine = GTPEngine(make_agent(f"zero:weights={weights},simulations=32", seed=0), size=5)
    answer = engine.handle("lz-analyze b 0")
    assert answer.startswith("=\ninfo move ") and answer.endswith("\n\n")
    assert " visits " in answer and " winrate " in answer and " pv " in answer
    assert engine.handle("genmove b").startswith("= ")


@pytest.mark.parametrize("play", ["puct", "gumbel", "greedy", "policy"])
def test_its_ownership_is_the_networks_head_at_the_position(weights: Path, play: str):
    from go_env.features import history_planes
    from goarena.agents.protocols import OwnershipAgent

    budget = "" if play in ("greedy", "policy") else ",simulations=8"
    player, game = started(f"zero:weights={weights}{budget},play={play}")
    assert isinstance(player, OwnershipAgent)
    for move in (12, 7, 13):
        game.play(move)  # White to move: the map is White's
    out = np.zeros((5, 5, 17), np.int8)
    history_planes(game.state, game.geometry, out)
    planes = torch.as_tensor(np.moveaxis(out, -1, 0)[None], dtype=torch.float32)
    with torch.inference_mode():
        expected = player.model(planes).ownership[0].numpy()  # type: ignore[attr-defined]
    ownership = player.ownership(game)
    assert ownership.shape == (25,) and ownership.dtype == np.float32
    np.testing.assert_allclose(ownership, expected, atol=1e-6)
    action = player.act(game)  # type: ignore[attr-defined]
    np.testing.assert_allclose(action.ownership, expected, atol=1e-6)  # of the position it moved from


def test_search_is_the_old_spelling_of_play(weights: Path):
    with pytest.warns(DeprecationWarning, match="search= is now play="):
        old, game = started(f"zero:weights={weights},simulations=8,search=gumbel")
    new, _ = started(f"zero:weights={weights},simulations=8,play=gumbel")
    assert old.mode == new.mode == "gumbel"  # type: ignore[attr-defined]
    np.testing.assert_array_equal(old.act(game).policy, new.act(game).policy)  # type: ignore[attr-defined]
