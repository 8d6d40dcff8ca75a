"""The one network player (``players.network.NetworkPlayer``): every registry entry that
configures it plays each way its network allows, alone and in a batch of games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from go_env import Game, GameBatch, Rules
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.features import HISTORY
from goarena.agents.nets.zero import ZeroNet
from goarena.agents.players.network import NetworkPlayer
from goarena.agents.protocols import (
    AnalysisAgent,
    BatchAgent,
    GameContext,
    MoveObserver,
    MoveTimeAgent,
    OwnershipAgent,
    PolicyAgent,
)
from goarena.agents.specs import make_agent

RULES = Rules(komi=0.5)


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("zero") / "zero.pt"
    torch.manual_seed(0)
    save_model(path, ZeroNet(5, blocks=1, filters=8))
    return path


@pytest.mark.parametrize("play", ["policy", "puct", "gumbel"])
def test_each_way_of_playing_moves_in_a_batch_as_it_does_alone(weights: Path, play: str):
    budget = ",simulations=8,reuse=false" if play in ("puct", "gumbel") else ""
    spec = f"zero:weights={weights},play={play}{budget}"
    player = make_agent(spec, seed=0)
    assert isinstance(player, NetworkPlayer) and isinstance(player, BatchAgent)
    batch = GameBatch(5, 3, RULES)
    batch.play(np.array([12, 6, 24]))
    player.reset(GameContext(5, RULES, seed=0))
    moves = player.select_moves(batch)
    for b in range(3):
        alone = make_agent(spec, seed=0)
        alone.reset(GameContext(5, RULES, seed=0))
        game = batch.game(b)
        assert game.legal_mask()[moves[b]]
        if play != "puct":  # batched PUCT's trees are its own (the same search, another order)
            assert alone.select_move(game) == moves[b]


def test_a_budget_makes_a_policy_player_search(weights: Path):
    player = make_agent(f"zero:weights={weights},play=policy,simulations=8")
    assert player.mode == "puct" and player.search is not None  # type: ignore[attr-defined]
    player = make_agent(f"zero:weights={weights},play=policy")
    assert player.mode == "policy" and player.search is None  # type: ignore[attr-defined]


def test_greedy_ranks_by_value_or_by_v(weights: Path):
    game = Game(5, RULES)
    by_value = make_agent(f"zero:weights={weights},play=greedy")
    by_score = make_agent(f"zero:weights={weights},play=greedy,rank=score")
    found = by_value.move_values(game)  # type: ignore[attr-defined]
    assert found.scores is not None and found.ownership is not None  # the zero net has an ownership head
    assert by_value.select_move(game) == found.moves[int(np.argmax(found.values))]
    best = by_score.select_move(game)
    assert found.scores[list(found.moves).index(best)] == found.scores.max()


@pytest.mark.parametrize(
    ("play", "offers", "lacks"),
    [
        ("policy", (PolicyAgent, BatchAgent, OwnershipAgent, AnalysisAgent), (MoveTimeAgent,)),
        ("greedy", (OwnershipAgent, AnalysisAgent), (PolicyAgent, BatchAgent, MoveTimeAgent)),
        ("puct", (PolicyAgent, BatchAgent, OwnershipAgent, AnalysisAgent, MoveTimeAgent, MoveObserver), ()),
    ],
)
def test_a_player_offers_the_protocols_its_way_of_playing_has(weights: Path, play: str, offers, lacks):
    player = make_agent(f"zero:weights={weights},play={play}")
    assert all(isinstance(player, protocol) for protocol in offers)
    assert not any(isinstance(player, protocol) for protocol in lacks)  # a greedy player has no policy
    assert not isinstance(make_agent("sl-policy"), OwnershipAgent)  # no ownership head
    assert isinstance(make_agent("ownership-greedy"), OwnershipAgent)


def test_a_registry_class_offers_what_its_default_way_of_playing_has():
    from goarena.agents.specs import builtin_factory

    offers = {
        name: [issubclass(builtin_factory(name), p) for p in (PolicyAgent, OwnershipAgent, MoveTimeAgent)]
        for name in ("sl-policy", "value-greedy", "ownership-greedy", "zero")
    }
    assert offers == {
        "sl-policy": [True, False, False],
        "value-greedy": [False, False, False],
        "ownership-greedy": [False, True, False],
        "zero": [True, True, True],
    }
    searching = make_agent("value-greedy:simulations=4")  # a budget: a search, with its protocols
    assert isinstance(searching, PolicyAgent) and isinstance(searching, MoveTimeAgent)


class TinyDual(torch.nn.Module):
    """A network of one's own: it declares what it reads and what it gives, and plays."""

    features = HISTORY
    heads = ("policy", "value")
    board_size = 5

    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(17 * 25, 26 + 1)

    def forward(self, planes):
        out = self.body(planes.float().flatten(1))
        return out[:, :26], torch.tanh(out[:, 26])


@pytest.mark.parametrize("play", ["policy", "greedy", "puct", "gumbel"])
def test_a_network_in_memory_plays_each_way(play: str):
    torch.manual_seed(0)
    budget = {"simulations": 8} if play in ("puct", "gumbel") else {}
    player = NetworkPlayer(network=TinyDual(), play=play, seed=0, **budget)
    player.reset(GameContext(5, RULES, seed=0))
    game = Game(5, RULES)
    for _ in range(4):
        action = player.act(game)
        assert game.legal_mask()[action.move] and -1 <= action.value <= 1
        game.play(action.move)
    assert player.weights_digest() is None
    with pytest.raises(ValueError, match="weights= or network=, not both"):
        NetworkPlayer(network=TinyDual(), weights="zero.pt")
