"""The league's configuration (``goarena.benchmarks.league.config``): its komi by default is the
one every env takes, from one table by board size; a league file and the command line read
into one, and bad options refused with a clear error."""

from __future__ import annotations

import textwrap

import pytest

from go_env import GoEnv, GoVectorEnv, default_komi, raw_env
from goarena.benchmarks.commands.league import league_config
from goarena.benchmarks.commands.league import parser as league_parser
from goarena.benchmarks.league.config import LeagueConfig, LeagueConfigError
from goarena.benchmarks.league.play import load_config


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


def test_config_from_toml_and_the_command_line(tmp_path):
    path = tmp_path / "league.toml"
    path.write_text(
        textwrap.dedent(
            """
            name = "ladder"
            size = 7
            komi = 5.5
            games_per_pair = 3
            [players]
            random = "random"
            uct-50 = "uct:simulations=50"
            """
        )
    )
    config = load_config(path)
    assert config.players == {"random": "random", "uct-50": "uct:simulations=50"}
    assert config.size == 7 and config.game_rules().komi == 5.5 and config.games_per_pair == 3
    args = league_parser().parse_args(
        [str(path), "--games-per-pair", "5", "--size", "9", "--anchor", "uct-50=100"]
    )
    overridden = league_config(args)
    assert overridden.games_per_pair == 5 and overridden.size == 9
    assert overridden.rated_anchor() == ("uct-50", 100.0)
    args = league_parser().parse_args(["--player", "random", "--player", "best=uct:simulations=9"])
    assert league_config(args).players == {"random": "random", "best": "uct:simulations=9"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("players = ['random']", "at least two players"),
        ("players = ['random', 'uct']\nschedul = 'x'", "unknown league option"),
        ("players = ['random', 'uct']\nrules = 'klingon'", "unknown rules preset"),
        ("players = ['random', 'uct']\nanchor = 'gnugo'", "anchor"),
        ("players = [", "cannot read league file"),
        ("players = ['random', 'uct']\nsettle = 'vote'", "unknown settle mode"),
        ("players = ['random', 'uct']\nsettle = 'status'\nrules = 'japanese-like'", "area scoring"),
        ("players = ['random', 'uct']\narbiter = 'gtp:gnugo'", "only with settle"),
        ("players = ['random', 'uct']\nsize = 1", "size must be a whole number from 2 to 25, got 1"),
        ("players = ['random', 'uct']\nsize = '9'", "size must be a whole number"),
        ("players = ['random', 'uct']\ngames_per_pair = 1e8", "games_per_pair must be a whole number"),
        ("players = ['random', 'uct']\ngames_per_pair = 100_000", "games_per_pair must be a whole number"),
        (
            "players = [" + ", ".join(f"'random:seed={i}'" for i in range(40)) + "]\ngames_per_pair = 200",
            "more than",
        ),
        ("players = ['random', 'uct']\nseconds_per_move = 0", "seconds_per_move must be .* above 0"),
        ("players = ['random', 'uct']\nseconds_per_move = -1", "seconds_per_move must be"),
        ("players = ['random', 'uct']\nseconds_per_move = nan", "seconds_per_move must be"),
        ("players = ['random', 'uct']\nkomi = nan", "komi must be a finite number"),
        ("players = ['random', 'uct']\nkomi = -inf", "komi must be a finite number"),
        ("players = ['random', 'uct']\nkomi = 0.3", "multiple of 0.5"),
        ("players = ['random', 'uct']\nseed = -1", "seed must be"),
        ("players = ['random', 'uct']\nrules = ['goarena']", "rules must be text"),
        ("players = ['random', 'uct']\nname = ''", "name must be a non-empty string"),
    ],
)
def test_bad_configurations_are_refused_with_a_clear_error(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(LeagueConfigError, match=message):
        load_config(path)
