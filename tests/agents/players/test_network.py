"""The one network player (``players.network.NetworkPlayer``): every registry entry that
configures it plays each way its network allows, alone and in a batch of games; ``zero`` (a
ZeroNet's priors, values and ownership), ``value-greedy`` (one ply over the value network),
``ownership-greedy`` (one ply over the ownership network's V, or a win network's w). The
policy players' entries (sl-policy, rl-policy) are tested with their passing rule,
``tests/agents/players/test_policy.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from go_env import BLACK, Game, GameBatch, Rules
from go_env.features import history_planes
from goarena.agents.gtp.engine import GTPEngine
from goarena.agents.inference.network import LeafOutputs, NetworkEvaluator
from goarena.agents.nets.checkpoint import save_model, weights_digest
from goarena.agents.nets.features import HISTORY
from goarena.agents.nets.load import file_digest
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.zero import ZeroNet
from goarena.agents.players.network import NetworkPlayer
from goarena.agents.protocols import (
    Action,
    Actor,
    AnalysisAgent,
    BatchAgent,
    GameContext,
    MoveInfo,
    MoveObserver,
    MoveTimeAgent,
    OwnershipAgent,
    PolicyAgent,
    UnsupportedGame,
    WeightedAgent,
)
from goarena.agents.specs import AgentSpecError, builtin_factory, check_spec, make_agent, player_warmup
from goarena.agents.weights import VALUE_9X9
from goarena.search.evaluator import uniform_priors

RULES = Rules(komi=0.5)
SIZE = 5
ValueGreedy = builtin_factory("value-greedy")
OwnershipGreedy = builtin_factory("ownership-greedy")


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


class Prefers:
    """Outputs that put every prior on ``move`` and value a position -1 for its side to move
    when the board has ``stones`` stones, 0 otherwise: the child reached by a suicide that
    leaves the board as it was is the best for the player who made it."""

    def __init__(self, move: int, stones: int):
        self.move, self.stones = move, stones

    def outputs(self, leaves):
        priors = np.zeros(leaves.legal.shape, np.float32)
        priors[:, self.move] = 1.0
        stones = (leaves.states.board[:, :25] != 0).sum(axis=1)
        return LeafOutputs(priors * leaves.legal, np.where(stones == self.stones, -1.0, 0.0), None, None)


SUICIDE_REPEATS = """
. . . . .
. . . . .
. . . . .
O . . . .
. O . . .
"""


@pytest.mark.parametrize("play", ["policy", "greedy"])
def test_a_network_player_never_plays_a_move_that_repeats_a_board(play: str):
    """Under simple ko with suicide allowed, Black's A1 takes its own stone off again: the
    board repeats. The policy puts all its weight there, the value makes it the best child."""
    rules = Rules(komi=0.5, ko="simple", suicide=True)
    game = Game(5, rules)
    game.setup([], [15, 21])
    a1 = 20
    assert game.is_legal(a1) and game.repeats_position(a1)
    player = NetworkPlayer(network=TinyDual(), play=play, seed=0)
    player.reset(GameContext(5, rules, seed=0))
    player.evaluator = Prefers(a1, stones=2)
    move = player.act(game).move
    assert move != a1 and game.is_legal(move)


def test_zero_reads_dead_stones_off_its_ownership_head(weights: Path):
    player, game = started(f"zero:weights={weights},simulations=8,play=puct")
    for move in (12, 7, 13):
        game.play(move)  # White to move: its head's map is White's, the pass check's Black's
    expected = -player.ownership(game).astype(np.float64)  # type: ignore[attr-defined]
    np.testing.assert_allclose(player.search._ownership_of(game), expected)  # type: ignore[attr-defined]


# -- zero ---------------------------------------------------------------------------------------


def started(spec: str, size: int = 5) -> tuple[object, Game]:
    player = make_agent(spec, seed=0)
    game = Game(size, RULES)
    player.reset(GameContext(size, RULES, seed=0))  # type: ignore[attr-defined]
    return player, game


@pytest.mark.parametrize("play", ["puct", "gumbel", "greedy", "policy"])
def test_zero_plays_legal_moves_and_reports_its_policy(weights: Path, play: str):
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


def test_zero_the_weights_digest_is_the_networks(weights: Path):
    player, _ = started(f"zero:weights={weights},simulations=4")
    assert player.weights_digest() == file_digest(weights)  # type: ignore[attr-defined]


def test_zero_is_deterministic_under_a_seed(weights: Path):
    moves = []
    for _ in range(2):
        player, game = started(f"zero:weights={weights},simulations=16,temperature=1.0")
        moves.append([player.select_move(game) for _ in range(1)])  # type: ignore[attr-defined]
    assert moves[0] == moves[1]


def test_zero_refuses_another_networks_file(tmp_path: Path):
    policy = tmp_path / "policy.pt"
    save_model(policy, PolicyNet(5, layers=2, filters=4))
    with pytest.raises(AgentSpecError, match="holds a 'policy' network, not a zero network"):
        check_spec(f"zero:weights={policy}")


def test_zero_refuses_another_board_size(weights: Path):
    with pytest.raises(AgentSpecError, match="5x5, not 9x9"):
        check_spec(f"zero:weights={weights}", GameContext(9, RULES))


@pytest.mark.parametrize(
    "bad",
    ["evaluator=rollout", "play=minimax", "prior=x.pt", "play=gumbel,seconds=1", "play=policy,c_puct=2"],
)
def test_zero_refuses_options_that_are_not_its(weights: Path, bad: str):
    with pytest.raises(AgentSpecError):
        check_spec(f"zero:weights={weights},{bad}")


def test_zero_search_values_follow_the_network(weights: Path):
    """The root value the player reports is the search's, from the network's values."""
    player, game = started(f"zero:weights={weights},simulations=8")
    action = player.act(game)  # type: ignore[attr-defined]
    visits = player.search.searcher.visit_counts()  # type: ignore[attr-defined]
    assert visits.sum() > 0
    assert np.isfinite(action.value)


def test_zero_gtp_lz_analyze_reports_the_networks_search(weights: Path):

    engine = GTPEngine(make_agent(f"zero:weights={weights},simulations=32", seed=0), size=5)
    answer = engine.handle("lz-analyze b 0")
    assert answer.startswith("=\ninfo move ") and answer.endswith("\n\n")
    assert " visits " in answer and " winrate " in answer and " pv " in answer
    assert engine.handle("genmove b").startswith("= ")


@pytest.mark.parametrize("play", ["puct", "gumbel", "greedy", "policy"])
def test_zero_ownership_is_the_networks_head_at_the_position(weights: Path, play: str):
    budget = "" if play in ("greedy", "policy") else ",simulations=8"
    player, game = started(f"zero:weights={weights}{budget},play={play},precision=float32")
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


def test_zero_search_is_the_old_spelling_of_play(weights: Path):
    with pytest.warns(DeprecationWarning, match="search= is now play="):
        old, game = started(f"zero:weights={weights},simulations=8,search=gumbel")
    new, _ = started(f"zero:weights={weights},simulations=8,play=gumbel")
    assert old.mode == new.mode == "gumbel"  # type: ignore[attr-defined]
    np.testing.assert_array_equal(old.act(game).policy, new.act(game).policy)  # type: ignore[attr-defined]


# -- value-greedy -------------------------------------------------------------------------------


class Outputs:
    """A hand-made value function as the network's outputs (uniform priors, no ownership)."""

    def __init__(self, function):
        self.function = function

    def outputs(self, leaves):
        return LeafOutputs(uniform_priors(leaves.legal), self.function.values(leaves), None, None)


class CornerLover:
    """A hand-made value function: a position is worth -1 to the side to move when its
    opponent holds point 6, and 0 otherwise."""

    def values(self, leaves):
        board = leaves.states.board[:, 6]
        to_play = leaves.states.info[:, 0]
        return np.where((board != 0) & (board != to_play), -1.0, 0.0)


def test_value_greedy_picks_the_move_the_value_function_favours(value_weights):
    player = ValueGreedy(weights=value_weights)
    player.evaluator = Outputs(CornerLover())
    game = Game(SIZE, Rules(komi=7))
    action = player.act(game)
    assert action.move == 6 and action.value == 1.0
    assert action.policy[6] == 1.0 and action.policy.sum() == 1.0
    found = player.move_values(game)
    moves, values = found.moves, found.values
    assert list(moves) == list(game.legal_moves()) and values[list(moves).index(6)] == 1.0
    assert (np.delete(values, list(moves).index(6)) == 0).all()


class Even:
    """Every unfinished position worth 0 to either side."""

    def values(self, leaves):
        return np.zeros(len(leaves))


def test_value_greedy_values_a_pass_that_ends_the_game_by_the_score(value_weights):
    player = ValueGreedy(weights=value_weights)
    player.evaluator = Outputs(Even())
    game = Game(SIZE, Rules(komi=7))
    game.play(SIZE * SIZE)  # Black passes: White wins by komi if it passes too
    action = player.act(game)
    assert action.move == SIZE * SIZE and action.value == 1.0
    game = Game(SIZE, Rules(komi=-7))
    game.play(SIZE * SIZE)
    found = player.move_values(game)
    moves, values = found.moves, found.values
    assert values[-1] == -1.0 and moves[-1] == SIZE * SIZE  # now passing loses


def test_value_greedy_plays_legal_moves_to_the_end(value_weights):
    player = make_agent(f"value-greedy:weights={value_weights}")
    assert isinstance(player, Actor) and isinstance(player, WeightedAgent)
    game = Game(SIZE, Rules(komi=7))
    player.reset(GameContext(SIZE, game.rules))
    while not game.is_over:
        game.play(player.select_move(game))  # raises on an illegal move
    assert len(game.moves) > 2


def test_value_greedy_refuses_another_board_and_reports_its_weights(value_weights):
    player = ValueGreedy(weights=value_weights)
    with pytest.raises(UnsupportedGame, match="trained for 5x5, not 9x9"):
        player.reset(GameContext(9, Rules()))
    assert player.weights_digest() == weights_digest(value_weights)


def test_value_greedy_specs_are_checked_without_building_the_player(value_weights, policy_weights):
    check_spec(f"value-greedy:weights={value_weights}", GameContext(SIZE, Rules()))
    with pytest.raises(AgentSpecError, match="5x5, not 9x9"):
        check_spec(f"value-greedy:weights={value_weights}", GameContext(9, Rules()))
    with pytest.raises(AgentSpecError, match="not a value network"):
        check_spec(f"value-greedy:weights={policy_weights}")
    with pytest.raises(AgentSpecError, match="temperature"):
        check_spec(f"value-greedy:weights={value_weights},temperature=1")


def test_value_greedy_defaults_to_the_shipped_9x9_value_network():
    player = make_agent("value-greedy")
    assert player.weights_digest() == weights_digest(VALUE_9X9)
    game = Game(9)
    player.reset(GameContext(9, game.rules))
    found = player.move_values(game)
    moves, values = found.moves, found.values
    assert len(moves) == 82 and np.all(np.abs(values) < 1)
    assert game.is_legal(player.select_move(game))


# -- ownership-greedy ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ownership_weights(tmp_path_factory):
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
    player = OwnershipGreedy(weights=weights)
    player.model = model  # the evaluator follows
    return player


def test_ownership_greedy_plays_the_child_whose_v_is_best_for_it(ownership_weights):
    # Black (5) to move against White's lone stone in the corner (0): playing 1 captures it.
    game = Game(SIZE, Rules(komi=0.5))
    game.setup([5], [0], to_play=BLACK)
    player = player_with(ownership_weights, Controlled())
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
def test_ownership_greedy_passes_when_passing_keeps_the_best_v(ownership_weights, empty, passes):
    game = Game(SIZE, Rules(komi=0.5))
    player = player_with(ownership_weights, Controlled(empty))
    found = player.move_values(game)
    np.testing.assert_array_equal(found.scores[:-1], 1 - 24 * empty - 0.5)
    assert found.scores[-1] == -25 * empty - 0.5
    assert (player.act(game).move == game.pass_move) == passes  # a tie (-1) passes


def test_ownership_greedy_values_a_pass_that_ends_the_game_by_the_count(ownership_weights):
    game = Game(SIZE, Rules(komi=0.5))
    game.play(12)
    game.play(game.pass_move)  # Black's pass now ends the game: Black's stone owns the board
    player = player_with(ownership_weights, Controlled())
    found = player.move_values(game)
    assert found.scores[-1] == 25 - 0.5 and found.values[-1] == 1.0
    assert found.scores[:-1].max() == 2 - 0.5  # the network's V of another stone
    assert player.act(game).move == game.pass_move


def test_ownership_greedy_plays_legal_moves_to_the_end_of_a_game(ownership_weights):
    player = make_agent(f"ownership-greedy:weights={str(ownership_weights)!r}")
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
    assert player.weights_digest() == weights_digest(ownership_weights)


def test_ownership_greedy_spec_checks_and_board_size(ownership_weights, tmp_path):
    context = GameContext(SIZE, Rules())
    check_spec(f"ownership-greedy:weights={str(ownership_weights)!r}", context)
    check_spec("ownership-greedy", GameContext(9, Rules()))  # the shipped 9x9 network
    with pytest.raises(AgentSpecError, match="trained for 9x9, not 5x5"):
        check_spec("ownership-greedy", context)
    with pytest.raises(AgentSpecError, match="not an ownership network|no checkpoint file"):
        check_spec(f"ownership-greedy:weights={str(tmp_path / 'absent.pt')!r}", context)
    with pytest.raises(AgentSpecError, match="trained for 5x5, not 9x9"):
        check_spec(f"ownership-greedy:weights={str(ownership_weights)!r}", GameContext(9, Rules()))
    player = OwnershipGreedy(weights=ownership_weights)
    with pytest.raises(UnsupportedGame, match="ownership network was trained for 5x5, not 9x9"):
        player.reset(GameContext(9, Rules()))
    warm = player_warmup("ownership-greedy")
    assert warm is not None
    warm(SIZE)


def test_ownership_greedy_ownership_and_analysis_are_its_networks(ownership_weights):
    game = Game(SIZE, Rules(komi=0.5))
    game.setup([5], [0], to_play=BLACK)
    player = player_with(ownership_weights, Controlled())
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


# -- ownership-greedy over the win-probability baseline (WinNet) ------------------------------


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


def test_ownership_greedy_with_a_win_network_plays_the_child_of_the_best_win_probability(win_weights):
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


def test_ownership_greedy_with_a_win_network_a_pass_that_ends_the_game_is_its_result(win_weights):
    game = Game(SIZE, Rules(komi=0.5))
    game.play(12)
    game.play(game.pass_move)
    player = player_with(win_weights, ControlledWin())
    found = player.move_values(game)
    assert found.values[-1] == 1.0 and player.act(game).move == game.pass_move


def test_ownership_greedy_and_puct_over_a_win_network_play_a_game(win_weights):
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


def test_ownership_greedy_gtp_is_told_a_win_network_has_no_ownership_map(win_weights, capsys):
    engine = GTPEngine(OwnershipGreedy(weights=win_weights), size=SIZE, rules=Rules(komi=0.5))
    answer = engine.handle("kata-analyze b 10 maxmoves 2 ownership true")
    assert answer.startswith("=") and answer.count("info move") == 2 and "ownership" not in answer
    assert "scoreLead" not in answer
    assert "ownership-greedy gives no ownership" in capsys.readouterr().err


@pytest.mark.parametrize("play", ["puct", "gumbel"])
def test_a_zero_search_reports_the_networks_score_lead_after_each_candidate(tmp_path: Path, play: str):
    path = tmp_path / "scored.pt"
    torch.manual_seed(0)
    save_model(path, ZeroNet(5, blocks=1, filters=8, rules_input=True, score_head=True))
    player, game = started(f"zero:weights={path},simulations=16,play={play}")
    game.play(12)
    reports: list[list[MoveInfo]] = []
    player.analyze(game, lambda: False, reports.append, 0.0)  # type: ignore[attr-defined]
    found = player.move_values(game)  # type: ignore[attr-defined]
    assert found.scores is not None
    expected = dict(zip(found.moves.tolist(), found.scores.tolist(), strict=True))
    assert reports and all(info.score_lead == expected[info.move] for info in reports[-1])
