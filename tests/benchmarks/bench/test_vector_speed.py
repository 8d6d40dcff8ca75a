"""``goarena bench vector`` prints one table per board size: the single env, the sync vector of
them and ``GoVectorEnv``, each with its steps per second and its ratio to the single env.
The tests check the report's shape, never a measured speed."""

import re

import numba
import numpy as np

from goarena.benchmarks.bench.vector_speed import random_legal_actions
from goarena.benchmarks.cli import main


def test_prints_a_table_per_size_with_speeds_and_ratios(capsys):
    main(["bench", "vector", "--sizes", "5", "7", "--num-envs", "3", "--seconds", "0.05"])
    out = capsys.readouterr().out
    threads = sorted({1, numba.get_num_threads()})
    names = ["GoEnv, Python loop", "SyncVectorEnv of 3 GoEnv"]
    names += [f"GoVectorEnv, 3 envs, {t} thread{'s' if t > 1 else ''}" for t in threads]
    for size in (5, 7):
        table = out.split(f"\n{size}x{size}\n")[1].split("\n\n")[0].splitlines()
        assert table[0].split() == ["env", "learner", "steps/s", "/", "GoEnv"]
        assert [row[: row.index("  ", 2)].strip() for row in table[1:]] == names
        for row in table[1:]:  # the figures' shape only: a busy machine may print 0 steps/s, 0.00x
            assert re.fullmatch(r".*?\s+\d[\d,]*\s+\d+\.\d\dx", row), row
        assert table[1].endswith(" 1.00x")


def test_random_legal_actions_are_legal_and_cover_every_legal_action():
    rng = np.random.default_rng(0)
    masks = np.zeros((3, 6), np.int8)
    masks[0, [1, 4]] = 1
    masks[1, 5] = 1
    masks[2] = 1
    drawn = np.array([random_legal_actions(masks, rng) for _ in range(600)])
    assert set(drawn[:, 0]) == {1, 4} and set(drawn[:, 1]) == {5} and set(drawn[:, 2]) == set(range(6))
    assert abs((drawn[:, 0] == 1).mean() - 0.5) < 0.1


def test_ppo_prints_maskable_ppo_on_both_envs_with_the_ratio(capsys):
    main(["bench", "vector", "--ppo", "--sizes", "5", "--num-envs", "2", "--ppo-steps", "64"])
    out = capsys.readouterr().out
    assert out.startswith("MaskablePPO against random, 2 envs")
    table = out.split("\n5x5\n")[1].splitlines()
    assert table[0].split() == ["env", "learner", "steps/s", "ratio", "in", "rollouts", "ratio"]
    figures = r"\s+\d[\d,]*\s+\d+\.\d\dx\s+\d[\d,]*\s+\d+\.\d\dx"
    assert re.fullmatch(r"  DummyVecEnv of 2 GoEnv" + figures, table[1]) and table[1].endswith(" 1.00x")
    assert re.fullmatch(r"  SB3VecEnv\(GoVectorEnv\), 2 envs" + figures, table[2]), table[2]
