"""Search players' passes, resignations and repeated boards, and how they learn the count.

Counted as it stands (Tromp-Taylor), White wins ``DEAD_IN_AREA`` by passing; taken off, its
dead stone loses it the game. Where dead stones are taken off, the player must play on; counted
as it stands, it plays on too, since an opponent or referee that judges the dead stones itself
(GNU Go's count) would take B8 off. A seki and a live group in the other side's area count
either way: passing is fine. Before a pass the player captures the other side's stones in
atari in its own area; it resigns only when the board is lost by both counts; it never plays a
move that recreates an earlier board. (The referee tells players whether dead stones are
taken off: ``tests/benchmarks/match/test_referee.py``.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, GameBatch, Rules
from go_env.coords import from_gtp
from go_env.core import INFO_TO_PLAY, copy_into, state_item
from goarena.agents.gtp.engine import GTPEngine
from goarena.agents.players.search import PUCTAgent, UCTAgent
from goarena.agents.protocols import RESIGN, GameContext
from tests.boards import (
    ATARI_IN_AREA,
    DEAD_IN_AREA,
    LIVE_IN_AREA,
    SEKI,
    TRIPLE_KO,
    TRIPLE_KO_CYCLE,
    TRIPLE_KO_REPEAT,
    after_black_passed,
    position,
)

KOMI_7 = Rules(komi=7.5)
HALF = Rules(komi=0.5)
PLAYERS = {
    "uct": lambda **options: UCTAgent(simulations=300, seed=0, **options),
    "puct": lambda **options: PUCTAgent(simulations=300, evaluator="rollout", seed=0, **options),
}


def white_move(player, game: Game, settled: bool) -> int:
    player.reset(GameContext(game.size, game.rules, seed=0, color=WHITE, dead_stones_removed=settled))
    return player.select_move(game)


@pytest.mark.parametrize("name", PLAYERS)
def test_no_pass_while_own_dead_stones_make_the_raw_count_a_win(name: str):
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    corner = [from_gtp(v, 9) for v in ("A9", "B9", "C9", "A8", "C8", "A7", "B7", "C7")]
    assert white_move(PLAYERS[name](), game, settled=True) in corner


@pytest.mark.parametrize("name", PLAYERS)
@pytest.mark.parametrize("settled", [True, False])
def test_the_search_values_two_passes_by_the_games_count(name: str, settled: bool):
    """Settled, the search itself sees that passing loses; counted raw, that it wins."""
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    player = PLAYERS[name]()
    white_move(player, game, settled)
    assert player.searcher.values()[game.pass_move] == (-1.0 if settled else 1.0)


@pytest.mark.parametrize("name", PLAYERS)
def test_under_tromp_taylor_a_pass_needs_a_win_both_ways(name: str):
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    assert game.score() < 0  # the raw count: White wins; without B8, Black does
    corner = [from_gtp(v, 9) for v in ("A9", "B9", "C9", "A8", "C8", "A7", "B7", "C7")]
    assert white_move(PLAYERS[name](), game, settled=False) in corner


@pytest.mark.parametrize("name", PLAYERS)
@pytest.mark.parametrize("diagram", [SEKI, LIVE_IN_AREA], ids=["seki", "live group"])
def test_under_tromp_taylor_a_board_won_both_ways_is_passed(name: str, diagram: str):
    game = after_black_passed(diagram, HALF)
    assert white_move(PLAYERS[name](), game, settled=False) == game.pass_move


@pytest.mark.parametrize("name", PLAYERS)
def test_pass_check_false_passes_as_before(name: str):
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    assert white_move(PLAYERS[name](pass_check=False), game, settled=True) == game.pass_move


@pytest.mark.parametrize("name", PLAYERS)
@pytest.mark.parametrize("diagram", [SEKI, LIVE_IN_AREA], ids=["seki", "live group"])
def test_seki_and_live_groups_allow_a_pass(name: str, diagram: str):
    game = after_black_passed(diagram, HALF)
    assert white_move(PLAYERS[name](), game, settled=True) == game.pass_move


def leaves_to(move_of: Callable[[int], int], white_wins: bool = False) -> Callable:
    """An evaluator: all the prior on one move (``move_of(num_points)``); every leaf a draw,
    or with ``white_wins``, a win for White."""

    def evaluate(leaves):
        priors = np.zeros(leaves.legal.shape)
        priors[:, move_of(leaves.legal.shape[1] - 1)] = 1.0
        white = leaves.states.info[:, INFO_TO_PLAY] == WHITE
        values = np.where(white, 1.0, -1.0) if white_wins else np.zeros(len(white))
        return priors * leaves.legal + 1e-9 * leaves.legal, values

    return evaluate


def passing(**options) -> PUCTAgent:
    """A search whose every prior is on the pass: it passes wherever its player lets it."""
    return PUCTAgent(simulations=50, evaluator=leaves_to(lambda passing: passing), seed=0, **options)


@pytest.mark.parametrize("settled", [True, False])
def test_a_network_that_misreads_a_dead_stone_does_not_make_a_pass_the_playouts_forbid(settled: bool):
    """The network's ownership calls White's dead B8 alive (each stone its owner's); the
    playouts read it dead: White plays on, whether or not dead stones are taken off."""
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    as_it_stands = lambda game: np.where(game.board.ravel() == BLACK, 1.0, -1.0)  # noqa: E731
    player = passing()
    player.judge_dead_stones_by(as_it_stands)
    assert white_move(player, game, settled) != game.pass_move
    alive = passing()
    alive.judge_dead_stones_by(as_it_stands)
    live = after_black_passed(LIVE_IN_AREA, HALF)
    assert white_move(alive, live, settled) == live.pass_move  # both judges: W+7.5


@pytest.mark.parametrize("settled", [True, False])
@pytest.mark.parametrize("rules", [HALF, Rules(komi=0.5, scoring="territory")], ids=["area", "territory"])
def test_before_passing_the_stones_in_atari_in_its_area_are_captured(settled: bool, rules: Rules):
    """The held-out game: Black passed with three White stones in atari inside its group, and
    GNU Go's count called the group dead. Black captures them first, whatever the count."""
    black = position(ATARI_IN_AREA, rules)
    player = passing()
    player.reset(GameContext(9, rules, seed=0, color=BLACK, dead_stones_removed=settled))
    assert player.select_move(black) == from_gtp("B6", 9)
    if rules.scoring == "area":  # (counting prisoners, the search itself sees the capture)
        assert passing(pass_check=False).select_move(black) == black.pass_move


def test_under_area_scoring_every_dead_stone_in_its_area_is_taken_off_before_a_pass():
    """Black wins by both area counts (komi -2.5) with White's dead B8 on the board, four
    liberties: under area scoring it plays on them (it costs nothing), under territory scoring
    it passes."""
    area = position(DEAD_IN_AREA, Rules(komi=-2.5), to_play=BLACK)
    corner = [from_gtp(v, 9) for v in ("B9", "A8", "C8", "B7")]
    assert passing().select_move(area) in corner
    territory = position(DEAD_IN_AREA, Rules(komi=-2.5, scoring="territory"), to_play=BLACK)
    assert passing().select_move(territory) == territory.pass_move


def test_in_a_clean_up_phase_the_board_counts_as_it_stands():
    """Black loses DEAD_IN_AREA as it stands and wins without White's dead B8. Where dead
    stones are taken off, it passes (under territory scoring it takes off only stones in
    atari); once a clean-up phase is under way, B8 counts unless captured: it plays on."""
    rules = Rules(komi=7.5, scoring="territory")
    settled = GameContext(9, rules, seed=0, color=BLACK, dead_stones_removed=True)
    game = position(DEAD_IN_AREA, rules, to_play=BLACK)
    player = passing()
    player.reset(settled)
    assert player.select_move(game) == game.pass_move
    game.replay([game.pass_move, game.pass_move])
    game.resume()
    corner = [from_gtp(v, 9) for v in ("A9", "B9", "C9", "A8", "C8", "A7", "B7", "C7")]
    assert player.select_move(game) in corner


def test_in_a_clean_up_phase_a_seki_is_never_filled():
    """All the prior on D9, a shared liberty of SEKI: in a clean-up phase the player plays as
    kgs-genmove_cleanup does, and passes (nothing is dead)."""
    d9 = from_gtp("D9", 9)
    game = position(SEKI, HALF, to_play=BLACK)
    game.replay([game.pass_move, game.pass_move])
    game.resume()
    player = PUCTAgent(simulations=30, evaluator=leaves_to(lambda passing: d9), seed=0)
    player.reset(GameContext(9, HALF, seed=0, color=BLACK, dead_stones_removed=True))
    assert player.searcher.search(game, simulations=30) == d9
    assert player.select_move(game) == game.pass_move


BLACK_LOST = """
. . . . O X . X .
. . . . O X X X X
. . . . O X . X .
. . . . O X X X X
. . . . O X X X X
. . . . O O O O O
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


@pytest.mark.parametrize("settled", [True, False])
def test_a_game_lost_both_ways_is_passed_not_played_on(settled: bool):
    """W+41.5 as it stands and without dead stones: the search's pass stands (playing on in
    White's area only gives stones away, up to the move cap where resigning is off)."""
    lost = position(BLACK_LOST, HALF, to_play=BLACK)
    assert lost.score() == -41.5  # White 61, Black 20
    player = passing(resign_threshold=None)
    player.reset(GameContext(9, HALF, seed=0, color=BLACK, dead_stones_removed=settled))
    assert player.select_move(lost) == lost.pass_move


def test_a_resignation_waits_for_the_board_to_be_lost_both_ways():
    """Black's search values every move as lost: it resigns only where the board agrees."""
    gloomy = lambda: PUCTAgent(  # noqa: E731
        simulations=30, evaluator=leaves_to(lambda passing: 0, white_wins=True), resign_moves=1, seed=0
    )
    lost = position(LIVE_IN_AREA, HALF, to_play=BLACK)  # W+7.5 both ways
    assert gloomy().select_move(lost) == RESIGN
    won = position(DEAD_IN_AREA, KOMI_7, to_play=BLACK)  # lost raw, won without White's dead B8
    assert gloomy().select_move(won) != RESIGN


def repeated_triple_ko() -> Game:
    """The triple ko under simple ko, one capture short of its whole-board repeat (B4)."""
    game = position(TRIPLE_KO, Rules(komi=0.5, ko="simple"))
    game.replay([from_gtp(v, 9) for v in TRIPLE_KO_CYCLE])
    return game


def test_a_search_player_never_plays_a_move_that_repeats_a_board():
    """All the prior on B4, which simple ko allows: the search leaves it out at its root."""
    game = repeated_triple_ko()
    repeat = from_gtp(TRIPLE_KO_REPEAT, 9)
    assert list(game.repeating_moves()) == [repeat]
    player = PUCTAgent(simulations=40, evaluator=leaves_to(lambda passing: repeat), seed=0)
    move = player.select_move(game)
    assert move != repeat and player.searcher.visit_counts()[repeat] == 0
    uct = UCTAgent(simulations=200, seed=0)
    assert uct.select_move(game) != repeat and uct.searcher.visit_counts()[repeat] == 0


def test_a_search_player_never_fills_a_true_eye_of_its_own():
    """All the prior on A6, one of Black's true eyes in LIVE_IN_AREA: the root leaves it out
    (and every other of its eyes), so the search passes."""
    game = position(LIVE_IN_AREA, HALF, to_play=BLACK)
    eye = from_gtp("A6", 9)
    player = PUCTAgent(simulations=40, evaluator=leaves_to(lambda passing: eye), seed=0)
    assert player.select_move(game) == game.pass_move and player.searcher.visit_counts()[eye] == 0
    uct = UCTAgent(simulations=200, seed=0)
    uct.select_move(game)
    assert uct.searcher.visit_counts()[: game.num_points].sum() == 0  # Black's every move fills an eye


def test_a_batch_of_games_never_gets_a_move_that_repeats_a_board():
    game = repeated_triple_ko()
    repeat = from_gtp(TRIPLE_KO_REPEAT, 9)
    batch = GameBatch(9, 2, game.rules)
    for b in range(2):
        copy_into(state_item(batch.state, b), game.state)
    player = PUCTAgent(simulations=40, evaluator=leaves_to(lambda passing: repeat), seed=0)
    moves = player.select_moves(batch)
    assert repeat not in moves and all(game.is_legal(int(move)) for move in moves)


def test_pass_check_must_be_a_bool():
    with pytest.raises(TypeError, match="pass_check must be true or false"):
        UCTAgent(pass_check="sometimes")  # type: ignore[arg-type]


class Listener:
    """Passes, and keeps the contexts it was reset with."""

    name = "listener"
    takes_context = True

    def __init__(self):
        self.contexts: list[GameContext] = []

    def reset(self, context: GameContext) -> None:
        self.contexts.append(context)

    def select_move(self, game: Game) -> int:
        return game.pass_move

    def final_status_list(self, game: Game, status: str) -> list[int]:
        return []


def test_the_gtp_engine_tells_the_player_under_settled_rules_or_a_clean_up():
    player = Listener()
    engine = GTPEngine(player, size=9)
    engine.handle("genmove b")
    assert not player.contexts[-1].dead_stones_removed  # goarena's rules: Tromp-Taylor
    engine.handle("kgs-rules chinese")
    engine.handle("genmove w")
    assert player.contexts[-1].dead_stones_removed
    engine = GTPEngine(player := Listener(), size=9)
    engine.handle("genmove b")
    engine.handle("kgs-genmove_cleanup w")
    assert [c.dead_stones_removed for c in player.contexts] == [False, True]
