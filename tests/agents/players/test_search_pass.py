"""Search players' passes where dead stones are taken off before the count, and how they learn it.

Counted as it stands (Tromp-Taylor), White wins ``DEAD_IN_AREA`` by passing; taken off, its
dead stone loses it the game, and the player must play on. A seki and a live group in the
other side's area count either way: passing is fine. (The referee tells players whether dead
stones are taken off: ``tests/benchmarks/match/test_referee.py``.)
"""

from __future__ import annotations

import pytest

from go_env import WHITE, Game, Rules
from go_env.coords import from_gtp
from goarena.agents.gtp.engine import GTPEngine
from goarena.agents.players.search import PUCTAgent, UCTAgent
from goarena.agents.protocols import GameContext
from tests.boards import DEAD_IN_AREA, LIVE_IN_AREA, SEKI, after_black_passed

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
def test_under_tromp_taylor_the_raw_count_decides(name: str):
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    assert game.score() < 0  # the raw count: White wins
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
