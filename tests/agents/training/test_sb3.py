"""The SB3 training job (``goarena train sb3``): what it shows as it goes. Its runs, resumed and
rated, are tested with the SB3 player in tests/agents/players/test_sb3.py."""

from goarena.agents.training.sb3 import progress_line


def test_sb3_training_shows_the_step_of_all_and_the_time_left_first():
    line = progress_line(2048, 50_000, 640.0, 0.12)
    assert line == "step 2,048/50,000 left 0:01:15 640 steps/s return +0.12"
    assert progress_line(0, 100, 0.0, None) == "step 0/100 left ? 0 steps/s"
