"""The player protocol: contexts at reset, the deprecated reset(rules), weights digests."""

import hashlib

import pytest

from go_env import BLACK, Game, Rules
from goarena.agents.players.random import RandomAgent
from goarena.agents.protocols import GameContext, files_digest
from goarena.agents.specs import make_agent


class OldStylePlayer:
    """A player written for reset(rules): it keeps what it is given and reads its komi."""

    name = "old"

    def reset(self, rules: Rules) -> None:
        self.rules = rules
        self.komi = rules.komi

    def select_move(self, game: Game) -> int:
        return game.pass_move


def test_every_player_is_reset_with_a_context_and_its_seed_restarts_it():
    context = GameContext(5, Rules(komi=0.5), seed=3, color=BLACK)
    seeded = RandomAgent()
    seeded.reset(context)
    game = Game(5, context.rules)
    moves = [seeded.select_move(game) for _ in range(5)]
    seeded.reset(context)  # the context's seed restarts the same moves
    assert [seeded.select_move(game) for _ in range(5)] == moves


def test_a_player_written_for_reset_rules_keeps_working_with_a_deprecation_warning():
    context = GameContext(5, Rules(komi=0.5))
    old = OldStylePlayer()
    with pytest.warns(DeprecationWarning, match=r"read context.rules.komi rather than context.komi"):
        old.reset(context)
    assert old.komi == 0.5
    with pytest.raises(AttributeError, match="no attribute 'colour'"):
        context.colour  # noqa: B018  # not a field of Rules: no fallback


@pytest.mark.parametrize("spec", ["random", "uct", "puct", "minimax", "expectimax", "sl-policy", "alphago"])
def test_a_built_in_player_refuses_bare_rules_with_the_fix(spec):
    player = make_agent(spec)
    with pytest.raises(TypeError, match=r"reset takes a GameContext, not Rules: call player.reset"):
        player.reset(Rules())


def test_files_digest_is_the_sha256_of_the_files_in_order(tmp_path):
    (tmp_path / "a").write_bytes(b"first")
    (tmp_path / "b").write_bytes(b"second")
    assert files_digest([tmp_path / "a", tmp_path / "b"]) == hashlib.sha256(b"firstsecond").hexdigest()
