"""The jobs' configs: ``--komi`` defaults to the board size's komi (``go_env.default_komi``),
and an explicit komi is kept and checked."""

import pytest

from go_env import default_komi
from goarena.agents.training.config import config_from_args, config_parser
from goarena.agents.training.rl import RLConfig
from goarena.agents.training.sb3 import SB3Config
from goarena.agents.training.zero import ZeroConfig


@pytest.mark.parametrize("job", [ZeroConfig, SB3Config])
@pytest.mark.parametrize("size", [5, 9, 13])
def test_the_komi_is_the_board_size_unless_given(job, size):
    assert job(size=size).komi == default_komi(size)
    assert job(size=size).rules().komi == default_komi(size)
    assert job(size=size, komi=0.5).komi == 0.5


@pytest.mark.parametrize("job", [ZeroConfig, SB3Config])
def test_the_command_line_reads_komi_as_a_number_and_leaves_it_to_the_size(job):
    parser = config_parser(job, "goarena train job", "")
    assert config_from_args(job, parser.parse_args(["--size", "13"])).komi == 7.5
    assert config_from_args(job, parser.parse_args(["--size", "9"])).komi == 7.0
    assert config_from_args(job, parser.parse_args(["--size", "9", "--komi", "-2.5"])).komi == -2.5


def test_rl_takes_the_komi_of_its_networks_board_size():
    """RL's board size is its initial network's: the komi is settled when the games are made."""
    config = RLConfig()
    assert config.komi is None
    assert config.rules(9).komi == 7.0 and config.rules(5).komi == 7.5
    assert RLConfig(komi=0.5).rules(9).komi == 0.5


@pytest.mark.parametrize("job", [ZeroConfig, SB3Config, RLConfig])
def test_a_bad_komi_is_refused(job):
    with pytest.raises(ValueError, match="komi must be a multiple of 0.5"):
        job(komi=7.25)
