"""The minimax and expectimax players: built from specs, and legal in play."""

import numpy as np
import pytest

from go_env import Game, Rules
from goarena.agents.players.minimax import ExpectimaxAgent, MinimaxAgent
from goarena.agents.players.random import RandomAgent
from goarena.agents.protocols import Agent, GameContext
from goarena.agents.specs import make_agent
from goarena.search.minimax import area_heuristic


def play_out(black: Agent, white: Agent, game: Game) -> Game:
    """Play to the end, checking every move is legal."""
    for agent in (black, white):
        agent.reset(GameContext(game.size, game.rules))
    players = {1: black, 2: white}
    while not game.is_over:
        move = players[game.to_play].select_move(game)
        assert game.is_legal(move), f"{players[game.to_play].name} chose an illegal move {move}"
        game.play(move)
    return game


def test_specs_build_the_players():
    minimax = make_agent("minimax:depth=3,tt_size=4096")
    assert isinstance(minimax, MinimaxAgent) and minimax.depth == 3
    timed = make_agent("minimax:depth=None,seconds=0.5,heuristic=goarena.search.minimax:area_heuristic")
    assert isinstance(timed, MinimaxAgent) and timed.seconds == 0.5
    assert timed.searcher.heuristic is area_heuristic
    expecti = make_agent("expectimax:depth=1,opponent=random")
    assert isinstance(expecti, ExpectimaxAgent) and expecti.depth == 1
    assert isinstance(expecti.opponent.__self__, RandomAgent)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("minimax:depth=None", "give a depth"),
        ("minimax:heuristic=nowhere:nothing", "cannot load heuristic"),
        ("expectimax:depth=0", "at least 1"),
    ],
)
def test_bad_options_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_minimax_and_expectimax_play_legal_games():
    game = play_out(MinimaxAgent(depth=2), ExpectimaxAgent(depth=1), Game(5, Rules()))
    assert game.is_over
    game = play_out(ExpectimaxAgent(depth=2), MinimaxAgent(depth=None, seconds=0.05), Game(3, Rules(komi=0)))
    assert game.is_over


def test_minimax_plays_3x3_perfectly_against_random():
    """Searching to the end of the game, Black takes the whole 3x3 board (its value)."""
    for seed in range(3):
        game = play_out(MinimaxAgent(depth=18), RandomAgent(seed=seed), Game(3, Rules(komi=0)))
        assert game.score() == 9


def test_expectimax_exploits_an_opponent_who_always_passes():
    def always_pass(game: Game) -> np.ndarray:
        probs = np.zeros(game.num_points + 1)
        probs[game.pass_move] = 1.0
        return probs

    game = Game(4, Rules(komi=0))
    move = ExpectimaxAgent(depth=3, opponent=always_pass).select_move(game)
    assert move != game.pass_move  # a stone, then two passes: the board is Black's
