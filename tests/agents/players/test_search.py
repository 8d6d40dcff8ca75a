"""The search players: spec strings, protocols, one search per position, analysis, resigning,
and their strength against the random player.

The strength figures (reproduce with ``pytest -m slow -s tests/agents/players/test_search.py``)
come from a plain referee loop here, alternating colours, 9x9 under the default rules.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from go_env import BLACK, WHITE, Game, GameBatch, Rules
from goarena.agents.inference import NetworkEvaluator
from goarena.agents.nets.checkpoint import save_model, weights_digest
from goarena.agents.nets.ownership import OwnershipNet
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.players.search import PUCTAgent, UCTAgent
from goarena.agents.protocols import (
    RESIGN,
    Actor,
    Agent,
    AnalysisAgent,
    BatchAgent,
    GameContext,
    MoveInfo,
    MoveObserver,
    PolicyAgent,
)
from goarena.agents.specs import AgentSpecError, check_spec, make_agent
from goarena.search import MixedEvaluator, RolloutEvaluator


def play_game(black: Agent, white: Agent, size: int = 9) -> int:
    """Play one game under the default rules; return the winner (BLACK, WHITE, or EMPTY for a draw)."""
    game = Game(size)
    rules = game.rules
    players = {BLACK: black, WHITE: white}
    for player in players.values():
        player.reset(GameContext(size, rules))
    while not game.is_over:
        move = players[game.to_play].select_move(game)
        if move == RESIGN:
            return 3 - game.to_play
        game.play(move)
        for player in players.values():
            if isinstance(player, MoveObserver):
                player.observe_move(game, move)
    return game.winner()


def wins_against(spec: str, opponent: str, games: int) -> int:
    """Games won by ``spec`` (format field ``seed``) against ``opponent``, alternating colours."""
    wins = 0
    for index in range(games):
        player = make_agent(spec.format(seed=index))
        other = make_agent(opponent.format(seed=10_000 + index))
        if index % 2 == 0:
            wins += play_game(player, other) == BLACK
        else:
            wins += play_game(other, player) == WHITE
    return wins


def test_spec_strings_build_the_players():
    uct = make_agent("uct:simulations=2000,c=1.4,rave=true,rave_equivalence=500,seed=3")
    assert isinstance(uct, UCTAgent)
    assert uct.simulations == 2000 and uct.seconds is None
    assert uct.searcher.c == 1.4 and uct.searcher.rave and uct.searcher.rave_equivalence == 500
    timed = make_agent("uct:seconds=0.5,reuse=false")
    assert isinstance(timed, UCTAgent) and timed.simulations is None and not timed.searcher.reuse
    puct = make_agent("puct:simulations=64,evaluator=rollout,rollouts=2,batch=4,noise=0.25,temperature=1.0")
    assert isinstance(puct, PUCTAgent)
    assert isinstance(puct.searcher.evaluator, RolloutEvaluator) and puct.searcher.evaluator.rollouts == 2
    assert puct.searcher.batch == 4 and puct.searcher.noise == 0.25 and puct.temperature == 1.0
    with pytest.raises(ValueError, match="evaluator"):
        PUCTAgent(evaluator="network")


@pytest.mark.parametrize(
    "spec", ["uct:simulations=200,seed=0", "puct:simulations=100,evaluator=rollout,seed=0"]
)
def test_players_implement_the_protocols(spec):
    player = make_agent(spec)
    for protocol in (Agent, PolicyAgent, MoveObserver, AnalysisAgent):
        assert isinstance(player, protocol)
    game = Game(7)
    player.reset(GameContext(game.size, game.rules))
    for _ in range(6):
        policy = player.policy(game)  # type: ignore[attr-defined]
        searched = player.searcher.simulations  # type: ignore[attr-defined]
        legal = game.legal_mask().astype(bool)
        assert np.isclose(policy.sum(), 1.0) and np.all(policy[~legal] == 0)
        move = player.select_move(game)
        assert legal[move] and policy[move] == policy.max()
        assert player.searcher.simulations == searched  # type: ignore[attr-defined]
        game.play(move)
        player.observe_move(game, move)  # type: ignore[attr-defined]


def test_observed_moves_carry_the_tree_forward():
    game = Game(9)
    player = UCTAgent(simulations=2000, seed=0)
    move = player.select_move(game)
    tree = player.searcher.tree
    assert tree is not None
    reply = player.searcher.principal_variation(move)[1]
    kept = tree.visits[tree.children[tree.children[0, move], reply]]
    for m in (move, reply):
        game.play(m)
        player.observe_move(game, m)
    assert player.searcher.tree is not None and player.searcher.tree.visits[0] == kept


@pytest.mark.parametrize("spec", ["uct:simulations=200", "puct:simulations=200"])
def test_a_move_taken_back_after_the_tree_moved_on_is_searched_again(spec):
    """As in a clean-up phase or a GTP undo: the player passed, saw the reply, and is asked
    again in the position before its pass; an answer for another position would be illegal."""
    game = Game(5)
    game.replay([12, 6, 18, 16, 8])
    player = make_agent(spec, seed=1)
    player.reset(GameContext(game.size, game.rules))
    first = player.select_move(game)
    for move in (first, 25):
        game.play(move)
        player.observe_move(game, move)
    game.undo()
    game.undo()
    again = player.select_move(game)
    assert game.legal_mask()[again], again
    assert np.isclose(player.policy(game).sum(), 1.0)


def test_analysis_streams_move_infos():
    game = Game(9)
    player = UCTAgent(simulations=30000, seed=0)
    reports: list[list[MoveInfo]] = []
    move = player.analyze(game, stop=lambda: len(reports) >= 3, report=reports.append, interval=0.0)
    assert len(reports) >= 3 and game.legal_mask()[move]
    for infos in reports:
        assert [info.visits for info in infos] == sorted((info.visits for info in infos), reverse=True)
        for info in infos:
            assert 0.0 <= info.lcb <= info.winrate <= 1.0 and 0.0 <= info.prior <= 1.0
            assert info.pv[0] == info.move
    assert reports[-1][0].move == move


def test_resigns_a_lost_game_only_when_asked():
    # . O . O .
    # O O O O O
    # O . O . O     White lives with four eyes on four fifths of the board.
    # O O O O O
    # . . . . .
    game = Game(5, Rules(komi=0.5))
    game.setup([], [1, 3, 5, 6, 7, 8, 9, 10, 12, 14, 15, 16, 17, 18, 19], BLACK)
    resigning = make_agent("uct:simulations=500,resign_threshold=0.1,resign_moves=1,seed=0")
    assert resigning.select_move(game) == RESIGN
    assert make_agent("uct:simulations=500,resign_threshold=None,seed=0").select_move(game) != RESIGN


def hopeless(player: Agent, moves: int) -> list[int]:
    """Black's answers, ``player`` playing Black in the lost position above with White
    passing, for up to ``moves`` moves or until it resigns."""
    game = Game(5, Rules(komi=0.5))
    game.setup([], [1, 3, 5, 6, 7, 8, 9, 10, 12, 14, 15, 16, 17, 18, 19], BLACK)
    player.reset(GameContext(5, game.rules, seed=0, color=BLACK))
    answers: list[int] = []
    while len(answers) < moves and not game.is_over:
        answers.append(player.select_move(game))
        if answers[-1] == RESIGN:
            break
        game.play(answers[-1])
        if not game.is_over:
            game.play(game.pass_move)
    return answers


@pytest.mark.parametrize("spec", ["uct:simulations=300", "puct:simulations=300,evaluator=rollout"])
def test_resigns_once_the_game_stays_lost_for_resign_moves(spec):
    answers = hopeless(make_agent(f"{spec},resign_threshold=0.1,resign_moves=2"), 5)
    assert len(answers) == 2 and answers[-1] == RESIGN and RESIGN not in answers[:-1]
    answers = hopeless(make_agent(spec), 5)  # by default: below 5% for 3 moves
    assert len(answers) == 3 and answers[-1] == RESIGN
    assert RESIGN not in hopeless(make_agent(f"{spec},resign_threshold=None"), 5)  # played out


def test_a_context_seed_makes_a_reused_player_replay_its_game():
    player = make_agent("puct:simulations=50,evaluator=rollout,temperature=1.0")
    game = Game(5)
    first = []
    for _ in range(2):
        player.reset(GameContext(5, game.rules, seed=7))
        first.append(player.select_move(game))
    again = make_agent("puct:simulations=50,evaluator=rollout,temperature=1.0,seed=7")
    again.reset(GameContext(5, game.rules, seed=8))  # its own seed wins
    assert first[0] == first[1] == again.select_move(game)


@pytest.mark.parametrize(
    "spec", ["uct:simulations=200,seed=0", "puct:simulations=100,evaluator=rollout,seed=0"]
)
def test_act_gives_the_move_with_the_visit_distribution_and_root_value(spec):
    player = make_agent(spec)
    assert isinstance(player, Actor)
    game = Game(5)
    game.replay([12, 6, 18])
    player.reset(GameContext(5, game.rules))
    action = player.act(game)
    assert action.policy is not None and action.value is not None
    assert np.isclose(action.policy.sum(), 1.0) and action.policy[action.move] == action.policy.max()
    assert -1.0 <= action.value <= 1.0
    assert action.move == player.select_move(game)  # the same search


def test_uct_beats_random():
    assert wins_against("uct:simulations=1000,seed={seed}", "random:seed={seed}", 10) >= 9


@pytest.mark.slow
def test_uct_beats_random_in_95_of_100_games():
    wins = wins_against("uct:simulations=1000,seed={seed}", "random:seed={seed}", 100)
    print(f"\nuct:simulations=1000 against random: {wins}/100")
    assert wins >= 95


@pytest.mark.slow
def test_more_playouts_win_more():
    table = {}
    for playouts in (1, 10, 100):
        table[playouts] = wins_against(f"uct:simulations={playouts},seed={{seed}}", "random:seed={seed}", 40)
    table[1000] = wins_against("uct:simulations=1000,seed={seed}", "uct:simulations=100,seed={seed}", 40)
    print("\n" + "\n".join(f"uct:simulations={n}: won {w}/40" for n, w in table.items()))
    assert table[1] <= table[10] <= table[100] and table[1000] >= 30


@pytest.mark.slow
def test_rave_beats_plain_uct():
    wins = wins_against("uct:simulations=1000,rave=true,seed={seed}", "uct:simulations=1000,seed={seed}", 20)
    print(f"\nuct:simulations=1000,rave=true against uct:simulations=1000: {wins}/20")
    assert wins >= 14


@pytest.mark.parametrize("rule", ["alphazero", "alphago", "ucb1"])
def test_puct_spec_takes_the_selection_rule_first_play_value_and_virtual_loss(rule):
    agent = make_agent(f"puct:simulations=40,selection={rule},fpu=-0.5,virtual_loss=2,resign_threshold=None")
    agent.reset(GameContext(5, Rules(komi=0.5)))
    game = Game(5, Rules(komi=0.5))
    assert game.is_legal(agent.select_move(game))


def test_puct_spec_refuses_an_unknown_selection_rule_at_once():
    with pytest.raises(AgentSpecError, match="unknown selection rule"):
        make_agent("puct:selection=greedy")


@pytest.mark.parametrize("options", [{}, {"prior": "uniform", "batch": 4, "c_puct": 2.0}])
def test_puct_searches_many_games_at_once_as_it_searches_each(options):
    batch = GameBatch(5, 3, Rules())
    batch.play(np.array([12, 25, 6]))
    batch.play(np.array([7, 12, 25]))
    player = PUCTAgent(simulations=48, reuse=False, resign_threshold=None, **options)
    assert isinstance(player, BatchAgent)
    player.reset(GameContext(5, Rules(), seed=0))
    moves = player.select_moves(batch)
    assert batch.state.info[:, 3].tolist() == [2, 2, 2]  # left unchanged
    for b in range(3):
        alone = PUCTAgent(simulations=48, reuse=False, resign_threshold=None, **options)
        alone.reset(GameContext(5, Rules(), seed=0))
        assert moves[b] == alone.select_move(batch.game(b))


def test_puct_searches_many_games_at_once_with_a_simulation_budget_only():
    batch = GameBatch(5, 2, Rules())
    with pytest.raises(ValueError, match="simulations=N"):
        PUCTAgent(seconds=0.1).select_moves(batch)
    with pytest.raises(ValueError, match="expansion_threshold"):
        PUCTAgent(simulations=8, expansion_threshold=2).select_moves(batch)
    drawn = PUCTAgent(simulations=32, temperature=1.0, temperature_moves=1, seed=0)
    first = {tuple(drawn.select_moves(batch)) for _ in range(8)}
    batch.play(np.array([12, 12]))
    later = {tuple(drawn.select_moves(batch)) for _ in range(8)}
    assert len(first) > 1 and len(later) == 1  # drawn for the first move, then the best


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("uct:simulations=abc", "simulations must be an integer, got 'abc'"),
        ("uct:playouts=abc", "simulations must be an integer, got 'abc'"),  # its old spelling
        ("uct:simulations=1.5", "simulations must be an integer, got 1.5"),
        ("uct:c=abc", "c must be a number, got 'abc'"),
        ("uct:rave=yes", "rave must be true or false, got 'yes'"),
        ("puct:batch=abc", "batch must be an integer, got 'abc'"),
        ("puct:mixing=abc", "mixing must be a number, got 'abc'"),
        ("puct:seed=abc", "seed must be an integer, got 'abc'"),
        ("alphago:simulations=abc", "simulations must be an integer, got 'abc'"),
        ("zero:simulations=abc", "simulations must be an integer, got 'abc'"),
        ("zero:max_considered=abc", "max_considered must be an integer, got 'abc'"),
        ("minimax:depth=abc", "depth must be an integer, got 'abc'"),
        ("minimax:seconds=abc", "seconds must be a number, got 'abc'"),
        ("expectimax:depth=abc", "depth must be an integer, got 'abc'"),
        ("random:seed=abc", "seed must be an integer, got 'abc'"),
        ("rollout-policy:seed=abc", "seed must be an integer, got 'abc'"),
    ],
)
def test_an_option_of_the_wrong_type_says_what_it_must_be(spec, message):
    said = f"bad options for {spec!r}: {message}"
    with pytest.raises(AgentSpecError) as checked:
        check_spec(spec, GameContext(9, Rules()))
    with pytest.raises(AgentSpecError) as built:
        make_agent(spec)
    assert str(checked.value) == str(built.value)
    assert str(built.value).startswith(said)  # playouts= is followed by the options' names


def test_numpy_numbers_are_numbers():
    player = UCTAgent(simulations=np.int64(8), seconds=np.float32(1.0), seed=np.int32(3))
    assert player.simulations == 8


@pytest.fixture(scope="module")
def ownership_weights(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("nets") / "ownership.pt"
    save_model(path, OwnershipNet(5, blocks=1, filters=8))
    return path


def test_puct_takes_the_ownership_network_as_its_value(ownership_weights, tmp_path):
    policy = tmp_path / "policy.pt"
    save_model(policy, PolicyNet(5, layers=2, filters=4))
    context = GameContext(5, Rules())
    uniform = f"puct:prior=uniform,value={str(ownership_weights)!r},simulations=16"
    check_spec(uniform, context)
    player = make_agent(uniform)
    assert isinstance(player.searcher.evaluator, NetworkEvaluator)
    assert player.searcher.evaluator.policy is None  # uniform priors
    player.reset(context)
    game = Game(5, Rules())
    assert game.legal_mask()[player.act(game).move]
    assert player.weights_digest() == weights_digest(ownership_weights)
    with_policy = make_agent(f"puct:prior={str(policy)!r},value={str(ownership_weights)!r},simulations=16")
    assert with_policy.searcher.evaluator.policy is not None
    mixed = make_agent(f"puct:prior=uniform,value={str(ownership_weights)!r},evaluator=rollout,simulations=8")
    assert isinstance(mixed.searcher.evaluator, MixedEvaluator)
    assert isinstance(mixed.searcher.evaluator.network, NetworkEvaluator)
    with pytest.raises(AgentSpecError, match="trained for 5x5, not 9x9"):
        check_spec(uniform, GameContext(9, Rules()))
