"""``ownership-greedy``: seed 002's pure-value player, one ply over the ownership network's V."""

import numpy as np
import pytest
import torch

from go_env import BLACK, Game, Rules
from goarena.agents.inference import NetworkEvaluator
from goarena.agents.nets.checkpoint import save_model, weights_digest
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.players.ownership import OwnershipGreedyAgent
from goarena.agents.protocols import Action, Actor, GameContext, UnsupportedGame, WeightedAgent
from goarena.agents.specs import AgentSpecError, check_spec, make_agent, player_warmup
from goarena.search import MixedEvaluator

SIZE = 5


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("nets") / "ownership.pt"
    save_model(path, OwnershipNet(SIZE, blocks=1, filters=8))
    return path


class Controlled(torch.nn.Module):
    """A stand-in network whose ownership of a position is +1 on every point where the side to
    move has a stone, -1 where the opponent has one, and ``empty`` elsewhere; so V is the
    stones' balance plus ``empty`` per empty point, plus the komi term."""

    board_size = SIZE

    def __init__(self, empty=0.0):
        super().__init__()
        self.dummy = torch.nn.Parameter(torch.zeros(1))
        self.empty = empty
        self.calibration_a, self.calibration_b = torch.tensor(0.5), torch.tensor(0.0)

    def forward(self, planes):
        own, other = planes[:, 0], planes[:, 8]
        return (own - other + self.empty * (1 - own - other)).flatten(1)

    heads, features = OwnershipNet.heads, OwnershipNet.features
    score = staticmethod(OwnershipNet.score)
    win_probability = OwnershipNet.win_probability
    probability = OwnershipNet.probability


def player_with(weights, model):
    player = OwnershipGreedyAgent(weights=weights)
    player.model = model  # the evaluator follows
    return player


def test_it_plays_the_child_whose_v_is_best_for_it(weights):
    # Black (5) to move against White's lone stone in the corner (0): playing 1 captures it.
    game = Game(SIZE, Rules(komi=0.5))
    game.setup([5], [0], to_play=BLACK)
    player = player_with(weights, Controlled())
    found = player.move_values(game)
    assert found.moves[-1] == game.pass_move
    capture = int(np.flatnonzero(found.moves == 1)[0])
    assert found.scores[capture] == 2 - 0.5  # two black stones, no white one, the komi given
    assert found.scores[found.moves == 2] == 2 - 1 - 0.5  # any other stone
    assert found.scores[-1] == 1 - 1 - 0.5  # the pass
    action = player.act(game)
    assert action.move == 1
    assert action.value == pytest.approx(1 - 2 / (1 + np.exp(-0.5 * -1.5)))  # 2(1 - p_White) - 1


# From the empty 5x5 board, Black to move, komi 0.5, with ``empty`` the ownership of an empty
# point: a stone leaves White V = -1 + 24·empty + 0.5, a pass V = 25·empty + 0.5, so for Black
# the stone is worth 1 + empty more than the pass.
@pytest.mark.parametrize(("empty", "passes"), [(0.0, False), (-1.0, True), (-2.0, True)])
def test_it_passes_when_passing_keeps_the_best_v(weights, empty, passes):
    game = Game(SIZE, Rules(komi=0.5))
    player = player_with(weights, Controlled(empty))
    found = player.move_values(game)
    np.testing.assert_array_equal(found.scores[:-1], 1 - 24 * empty - 0.5)
    assert found.scores[-1] == -25 * empty - 0.5
    assert (player.act(game).move == game.pass_move) == passes  # a tie (-1) passes


def test_a_pass_that_ends_the_game_is_valued_by_the_count(weights):
    game = Game(SIZE, Rules(komi=0.5))
    game.play(12)
    game.play(game.pass_move)  # Black's pass now ends the game: Black's stone owns the board
    player = player_with(weights, Controlled())
    found = player.move_values(game)
    assert found.scores[-1] == 25 - 0.5 and found.values[-1] == 1.0
    assert found.scores[:-1].max() == 2 - 0.5  # the network's V of another stone
    assert player.act(game).move == game.pass_move


def test_it_plays_legal_moves_to_the_end_of_a_game(weights):
    player = make_agent(f"ownership-greedy:weights={str(weights)!r}")
    assert isinstance(player, Actor) and isinstance(player, WeightedAgent)
    player.reset(GameContext(SIZE, Rules()))
    game = Game(SIZE, Rules(max_moves=60))
    while not game.is_over:
        action = player.act(game)
        assert isinstance(action, Action)
        assert action.move == game.pass_move or game.legal_mask()[action.move]
        assert action.policy.sum() == 1.0 and action.policy[action.move] == 1.0
        assert -1.0 <= action.value <= 1.0
        assert action.ownership.shape == (SIZE * SIZE,) and (np.abs(action.ownership) <= 1).all()
        game.play(action.move)
    assert player.weights_digest() == weights_digest(weights)


def test_spec_checks_and_board_size(weights, tmp_path):
    context = GameContext(SIZE, Rules())
    check_spec(f"ownership-greedy:weights={str(weights)!r}", context)
    check_spec("ownership-greedy", GameContext(9, Rules()))  # the shipped 9x9 network
    with pytest.raises(AgentSpecError, match="trained for 9x9, not 5x5"):
        check_spec("ownership-greedy", context)
    with pytest.raises(AgentSpecError, match="not an ownership network|no checkpoint file"):
        check_spec(f"ownership-greedy:weights={str(tmp_path / 'absent.pt')!r}", context)
    with pytest.raises(AgentSpecError, match="trained for 5x5, not 9x9"):
        check_spec(f"ownership-greedy:weights={str(weights)!r}", GameContext(9, Rules()))
    player = OwnershipGreedyAgent(weights=weights)
    with pytest.raises(UnsupportedGame, match="ownership network was trained for 5x5, not 9x9"):
        player.reset(GameContext(9, Rules()))
    warm = player_warmup("ownership-greedy")
    assert warm is not None
    warm(SIZE)


def test_puct_takes_the_ownership_network_as_its_value(weights, tmp_path):
    policy = tmp_path / "policy.pt"
    save_model(policy, PolicyNet(SIZE, layers=2, filters=4))
    context = GameContext(SIZE, Rules())
    uniform = f"puct:prior=uniform,value={str(weights)!r},simulations=16"
    check_spec(uniform, context)
    player = make_agent(uniform)
    assert isinstance(player.searcher.evaluator, NetworkEvaluator)
    assert player.searcher.evaluator.policy is None  # uniform priors
    player.reset(context)
    game = Game(SIZE, Rules())
    assert game.legal_mask()[player.act(game).move]
    assert player.weights_digest() == weights_digest(weights)
    with_policy = make_agent(f"puct:prior={str(policy)!r},value={str(weights)!r},simulations=16")
    assert with_policy.searcher.evaluator.policy is not None
    mixed = make_agent(f"puct:prior=uniform,value={str(weights)!r},evaluator=rollout,simulations=8")
    assert isinstance(mixed.searcher.evaluator, MixedEvaluator)
    assert isinstance(mixed.searcher.evaluator.network, NetworkEvaluator)
    with pytest.raises(AgentSpecError, match="trained for 5x5, not 9x9"):
        check_spec(uniform, GameContext(9, Rules()))


def test_its_ownership_and_analysis_are_its_networks(weights):
    from goarena.agents.protocols import AnalysisAgent, OwnershipAgent

    game = Game(SIZE, Rules(komi=0.5))
    game.setup([5], [0], to_play=BLACK)
    player = player_with(weights, Controlled())
    assert isinstance(player, OwnershipAgent) and isinstance(player, AnalysisAgent)
    expected = np.zeros(SIZE * SIZE, np.float32)
    expected[5], expected[0] = 1.0, -1.0  # Black, to move, owns its stone; White's is White's
    np.testing.assert_array_equal(player.ownership(game), expected)
    reports = []
    move = player.analyze(game, lambda: False, reports.append, 0.1)
    assert move == player.act(game).move == 1  # the capture
    (infos,) = reports  # no search: one report
    assert len(infos) == 20 and infos[0].move == 1 and infos[0].pv == (1,)
    assert infos[0].score_lead == 2 - 0.5 and all(info.score_lead == 2 - 1 - 0.5 for info in infos[1:])
    assert all(info.visits == 1 and info.prior == 1 / 24 and info.lcb == info.winrate for info in infos)
    assert infos[0].winrate == pytest.approx(1 / (1 + np.exp(-0.5 * 1.5)))  # 1 - p_White(-1.5)


# -- the win-probability baseline (OwnershipNet(head="win")) -----------------------------------


@pytest.fixture(scope="module")
def win_weights(tmp_path_factory):
    torch.manual_seed(1)
    path = tmp_path_factory.mktemp("nets") / "win.pt"
    save_model(path, WinNet(SIZE, blocks=1, filters=8))
    return path


class ControlledWin(torch.nn.Module):
    """A stand-in win network: w = tanh(0.1 · the side to move's stones less the opponent's)."""

    board_size = SIZE
    heads, features = WinNet.heads, WinNet.features

    def __init__(self):
        super().__init__()
        self.dummy = torch.nn.Parameter(torch.zeros(1))

    def forward(self, planes):
        return torch.tanh(0.1 * (planes[:, 0] - planes[:, 8]).flatten(1).sum(1))


def test_with_a_win_network_it_plays_the_child_of_the_best_win_probability(win_weights):
    from goarena.agents.protocols import OwnershipAgent

    game = Game(SIZE, Rules(komi=0.5))
    game.setup([5], [0], to_play=BLACK)
    player = player_with(win_weights, ControlledWin())
    found = player.move_values(game)
    assert found.scores is None and found.ownership is None  # no V, no map
    capture = int(np.flatnonzero(found.moves == 1)[0])
    # each child's w is White's: Black's value is -w, 2(1 - p_White) - 1
    assert found.values[capture] == pytest.approx(np.tanh(0.2))  # two black stones, no white one
    assert found.values[found.moves == 2] == pytest.approx(np.tanh(0.1))
    assert found.values[-1] == pytest.approx(0.0)  # the pass
    action = player.act(game)
    assert action.move == 1 and action.value == pytest.approx(np.tanh(0.2)) and action.ownership is None
    assert isinstance(player, OwnershipAgent) and player.ownership(game) is None
    reports = []
    assert player.analyze(game, lambda: False, reports.append, 0.1) == 1
    (infos,) = reports
    assert infos[0].move == 1 and infos[0].winrate == pytest.approx((1 + np.tanh(0.2)) / 2)
    assert all(info.score_lead is None for info in infos)  # no V to lead by


def test_with_a_win_network_a_pass_that_ends_the_game_is_its_result(win_weights):
    game = Game(SIZE, Rules(komi=0.5))
    game.play(12)
    game.play(game.pass_move)
    player = player_with(win_weights, ControlledWin())
    found = player.move_values(game)
    assert found.values[-1] == 1.0 and player.act(game).move == game.pass_move


def test_a_win_network_plays_a_game_and_searches(win_weights):
    greedy = make_agent(f"ownership-greedy:weights={str(win_weights)!r}")
    puct = make_agent(f"puct:prior=uniform,value={str(win_weights)!r},simulations=16")
    assert isinstance(puct.searcher.evaluator, NetworkEvaluator)
    context = GameContext(SIZE, Rules())
    check_spec(f"ownership-greedy:weights={str(win_weights)!r}", context)
    game = Game(SIZE, Rules(max_moves=30))
    for player in (greedy, puct):
        player.reset(context)
    while not game.is_over:
        player = greedy if game.to_play == BLACK else puct
        action = player.act(game)
        assert action.move == game.pass_move or game.legal_mask()[action.move]
        if player is greedy:
            assert action.ownership is None and -1 <= action.value <= 1
        game.play(action.move)
    assert greedy.weights_digest() == puct.weights_digest() == weights_digest(win_weights)


def test_the_callers_of_an_ownership_map_are_told_a_win_network_has_none(win_weights, capsys):
    from goarena.agents.gtp.engine import GTPEngine
    from goarena.agents.nets.errors import NetworkFileError
    from goarena.benchmarks.pictures import network_ownership, player_ownership

    game = Game(SIZE, Rules(komi=0.5))
    with pytest.raises(NetworkFileError, match=r"win\.pt: a win-probability network .* no ownership head"):
        network_ownership(win_weights, game)
    with pytest.raises(ValueError, match="ownership-greedy gives no ownership map"):
        player_ownership(f"ownership-greedy:weights={str(win_weights)!r}", game)
    engine = GTPEngine(OwnershipGreedyAgent(weights=win_weights), size=SIZE, rules=Rules(komi=0.5))
    answer = engine.handle("kata-analyze b 10 maxmoves 2 ownership true")
    assert answer.startswith("=") and answer.count("info move") == 2 and "ownership" not in answer
    assert "scoreLead" not in answer
    assert "ownership-greedy gives no ownership" in capsys.readouterr().err
