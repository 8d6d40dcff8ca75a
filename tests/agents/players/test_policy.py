"""The policy players, ``sl-policy`` and ``rl-policy`` (registry entries of the network player),
and their passing rule (``players.policy.playing_on``)."""

import re

import numpy as np
import pytest
import torch

from go_env import WHITE, Game, GameBatch, Rules
from go_env.coords import to_gtp
from goarena.agents.gtp.engine import GTPEngine
from goarena.agents.nets.checkpoint import CheckpointError, save_model, weights_digest
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.players.policy import playing_on
from goarena.agents.protocols import (
    Actor,
    BatchAgent,
    GameContext,
    PolicyAgent,
    UnsupportedGame,
    WeightedAgent,
)
from goarena.agents.specs import AgentSpecError, builtin_factory, check_spec, make_agent
from tests.boards import position

SIZE = 5
SLPolicy = builtin_factory("sl-policy")
PASS = SIZE * SIZE
# The fixed network's preferences: point 12 (the centre) best, then 6, then pass.
BIASES = {12: 3.0, 6: 2.0}
PASS_BIAS = 1.0


@pytest.fixture(scope="module")
def random_weights(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("nets") / "random.pt"
    save_model(path, PolicyNet(SIZE, layers=3, filters=8))
    return path


@pytest.fixture(scope="module")
def fixed_weights(tmp_path_factory):
    """A network whose logits ignore the position: a bias per point."""
    net = PolicyNet(SIZE, layers=2, filters=4)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.zero_()
        for point, bias in BIASES.items():
            net.point_bias[point] = bias
        net.pass_head.bias.fill_(PASS_BIAS)
    path = tmp_path_factory.mktemp("nets") / "fixed.pt"
    save_model(path, net)
    return path


def expected_policy(legal: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    logits = np.zeros(SIZE * SIZE + 1)
    for point, bias in BIASES.items():
        logits[point] = bias
    logits[-1] = PASS_BIAS
    weights = np.where(legal, np.exp(logits / temperature), 0.0)
    return weights / weights.sum()


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_never_plays_an_illegal_move(random_weights, temperature):
    player = SLPolicy(weights=random_weights, temperature=temperature, seed=1)
    player.reset(GameContext(SIZE, Rules()))
    for _ in range(3):
        game = Game(SIZE)
        while not game.is_over:
            move = player.select_move(game)
            assert game.legal_mask()[move], (move, str(game))
            game.play(move)


def test_greedy_plays_the_best_legal_move(fixed_weights):
    player = SLPolicy(weights=fixed_weights)
    game = Game(SIZE)
    assert player.select_move(game) == 12
    game.play(12)  # the best point is taken: the next best
    assert player.select_move(game) == 6


def test_policy_is_the_networks_distribution_over_the_legal_moves(fixed_weights):
    player = SLPolicy(weights=fixed_weights, temperature=0.0)
    game = Game(SIZE)
    game.replay([12, 6, 18])  # White to move, ahead by the komi: free to pass
    policy = player.policy(game)
    assert policy[12] == policy[6] == 0
    np.testing.assert_allclose(policy, expected_policy(game.legal_mask()), rtol=1e-6)
    action = player.act(game)
    assert action.move == SIZE * SIZE  # pass is the best legal move left
    np.testing.assert_allclose(action.policy, policy)
    assert action.value is None


@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_samples_in_proportion_to_p_to_the_one_over_t(fixed_weights, temperature):
    player = SLPolicy(weights=fixed_weights, temperature=temperature, seed=3)
    game = Game(SIZE)
    game.replay([24, 0, 4])  # White to move, ahead by the komi: every legal move is weighed
    draws = 4000
    counts = np.bincount([player.select_move(game) for _ in range(draws)], minlength=SIZE * SIZE + 1)
    expected = expected_policy(game.legal_mask(), temperature)
    assert np.abs(counts / draws - expected).max() < 0.05
    assert counts[12] > counts[6] > counts[0]


def test_reset_restarts_the_draws_from_its_seed_else_the_contexts(fixed_weights):
    game = Game(SIZE)
    first = SLPolicy(weights=fixed_weights, temperature=2.0, seed=5)
    moves = [first.select_move(game) for _ in range(20)]
    assert len(set(moves)) > 1
    first.reset(GameContext(SIZE, Rules(), seed=9))  # its own seed wins
    assert [first.select_move(game) for _ in range(20)] == moves
    unseeded = SLPolicy(weights=fixed_weights, temperature=2.0)
    unseeded.reset(GameContext(SIZE, Rules(), seed=5))
    assert [unseeded.select_move(game) for _ in range(20)] == moves


def test_refuses_a_board_size_it_was_not_trained_for(fixed_weights):
    player = SLPolicy(weights=fixed_weights)
    with pytest.raises(UnsupportedGame, match="trained for 5x5, not 9x9"):
        player.reset(GameContext(9, Rules()))
    with pytest.raises(UnsupportedGame, match="not 9x9"):
        player.select_move(Game(9))
    with pytest.raises(AgentSpecError, match="cannot play this game"):
        check_spec(f"sl-policy:weights={fixed_weights}", GameContext(9, Rules()))
    check_spec(f"sl-policy:weights={fixed_weights}", GameContext(SIZE, Rules()))


def test_spec_builds_the_player_with_its_weights_digest(fixed_weights):
    player = make_agent(f"sl-policy:weights={fixed_weights},temperature=0.5", seed=2)
    assert isinstance(player, SLPolicy) and player.temperature == 0.5 and player.seed == 2
    assert isinstance(player, PolicyAgent) and isinstance(player, Actor) and isinstance(player, WeightedAgent)
    assert player.weights_digest() == weights_digest(fixed_weights)


@pytest.mark.parametrize("temperature", [-1.0, float("nan"), float("inf"), "hot", True])
def test_bad_temperatures_are_refused(fixed_weights, temperature):
    with pytest.raises((TypeError, ValueError), match="temperature"):  # of the wrong type, or value
        SLPolicy(weights=fixed_weights, temperature=temperature)


def test_bad_weights_are_refused(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint file"):
        SLPolicy(weights=tmp_path / "absent.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a network")
    with pytest.raises(AgentSpecError, match="not a readable checkpoint"):
        make_agent(f"sl-policy:weights={tmp_path / 'junk.pt'}")


def test_a_finished_game_has_no_move_to_choose(fixed_weights):
    game = Game(SIZE)
    game.replay([SIZE * SIZE, SIZE * SIZE])
    with pytest.raises(ValueError, match="no legal move"):
        SLPolicy(weights=fixed_weights).select_move(game)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_runs_where_the_context_says_unless_told_otherwise(fixed_weights):
    cuda = GameContext(SIZE, Rules(), device="cuda")
    SLPolicy(weights=fixed_weights, device="cpu").reset(cuda)  # its own device wins
    with pytest.raises(ValueError, match="CUDA is not available"):
        SLPolicy(weights=fixed_weights).reset(cuda)
    with pytest.raises(AgentSpecError, match="CUDA is not available"):
        check_spec(f"sl-policy:weights={fixed_weights}", cuda)
    with pytest.raises(AgentSpecError, match="CUDA is not available"):
        make_agent(f"sl-policy:weights={fixed_weights},device=cuda")


def test_lz_analyze_reports_the_policy_best_first_with_no_search(fixed_weights):
    engine = GTPEngine(SLPolicy(weights=fixed_weights), size=SIZE)
    assert "lz-analyze" in engine.handle("list_commands")
    lines = engine.handle("lz-analyze b 10").splitlines()
    assert lines[0] == "=" and lines[-1] == "" and len(lines) == 3
    moves = re.findall(r"info move (\S+) visits 0 winrate 5000 prior (\d+) lcb 0 order (\d+)", lines[1])
    assert [move for move, _, _ in moves[:3]] == [to_gtp(12, SIZE), to_gtp(6, SIZE), "pass"]
    priors = [int(prior) for _, prior, _ in moves]
    assert priors == sorted(priors, reverse=True)
    assert [int(order) for *_, order in moves] == list(range(len(moves)))
    assert engine.handle("lz-genmove_analyze b 10").splitlines()[-2] == f"play {to_gtp(12, SIZE)}"


EYE_AND_GROUPS = """
    . X . . .
    X X . . .
    . . . . .
    . . . . O
    . . . O .
    """


@pytest.mark.parametrize("komi, plays_on", [(0.5, False), (7.0, True)])
def test_a_policy_player_passes_only_when_the_count_wins(komi, plays_on):
    game = position(EYE_AND_GROUPS, Rules(komi=komi), to_play=WHITE)
    game.play(PASS)  # Black's count: 3 stones and an eye against 2 stones and an eye
    legal = game.legal_mask()
    weighed = playing_on(game, legal)
    if plays_on:
        assert not weighed[PASS] and not weighed[0]  # no pass, no filling its own eye
        assert np.array_equal(weighed[1:PASS], legal[1:PASS])
    else:
        assert np.array_equal(weighed, legal)


def test_a_player_that_would_pass_plays_on_rather_than_lose_by_the_count(tmp_path):
    net = PolicyNet(SIZE, layers=2, filters=4)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.zero_()
        net.pass_head.bias.fill_(10.0)  # passing is all it wants
    save_model(tmp_path / "passer.pt", net)
    player = SLPolicy(weights=tmp_path / "passer.pt")
    for komi, moves, passes in (
        (7.0, [12, 0, 6, PASS], False),  # Black to move, two stones to one: short of the komi
        (0.5, [12, 0, 6, PASS], True),  # ... enough
        (0.5, [12, 0, 6], False),  # White to move, behind: its pass could end the game
        (7.0, [12, 0, 6], True),  # ... ahead with the komi
    ):
        game = Game(SIZE, Rules(komi=komi))
        game.replay(moves)
        assert (player.select_move(game) == PASS) == passes, (komi, moves)
        assert player.policy(game)[PASS] > 0.99  # what it reports is still the network's


def test_moves_in_many_games_at_once_as_in_each(random_weights):
    batch = GameBatch(SIZE, 4, Rules(komi=0.5), seed=0)
    for _ in range(6):
        batch.sample_and_play(np.ones((4, SIZE * SIZE + 1)))
    player = SLPolicy(weights=random_weights)
    assert isinstance(player, BatchAgent)
    player.reset(GameContext(SIZE, Rules(komi=0.5)))
    moves = player.select_moves(batch)
    assert moves.tolist() == [player.select_move(batch.game(b)) for b in range(4)]
    drawn = SLPolicy(weights=random_weights, temperature=1.0, seed=0)
    assert batch.legal_masks()[np.arange(4), drawn.select_moves(batch)].all()
