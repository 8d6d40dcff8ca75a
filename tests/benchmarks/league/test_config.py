"""The league's configuration (``goarena.benchmarks.league.config``): its komi by default is the
one every env takes, from one table by board size."""

from __future__ import annotations

import pytest

from go_env import GoEnv, GoVectorEnv, default_komi, raw_env
from goarena.benchmarks.league.config import LeagueConfig


@pytest.mark.parametrize("size", [5, 9, 13, 19])
def test_every_default_takes_its_komi_from_one_table_by_board_size(size):
    komi = default_komi(size)
    assert komi == (7.0 if size == 9 else 7.5)  # 9x9 CGOS's and the shipped networks'; else go_v5's
    league = LeagueConfig(players={"a": "random", "b": "random"}, size=size)
    defaults = {
        "PettingZoo env": raw_env(board_size=size).rules.komi,
        "Gymnasium env": GoEnv(board_size=size).rules.komi,
        "vector env": GoVectorEnv(2, board_size=size).rules.komi,
        "league": league.komi,
        "league's games": league.game_rules().komi,
    }
    assert defaults == dict.fromkeys(defaults, komi)
    assert GoEnv(board_size=size, komi=0.5).rules.komi == 0.5  # a komi given wins
    assert LeagueConfig(players={"a": "random", "b": "random"}, size=size, komi=3).komi == 3
