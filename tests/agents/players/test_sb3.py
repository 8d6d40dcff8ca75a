"""Stable-Baselines3 integration: the board extractor, SB3 models as players (with and without
search), and ``goarena train sb3`` (a tiny run that is stopped and resumes)."""

from __future__ import annotations

import base64
import io
import json
import pickle
import struct
import sys
import time
import warnings
import zipfile
from dataclasses import replace

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.env_checker import check_env

from go_env import BLACK, WHITE, Game, Rules
from go_env.gym_env import ENV_ID
from goarena.agents.inference.sb3 import observation_for_model
from goarena.agents.nets.sb3 import SB3ModelError
from goarena.agents.nets.sb3_extractor import GoResNetExtractor, channels_first_of
from goarena.agents.players.sb3 import SB3Agent
from goarena.agents.protocols import GameContext, UnsupportedGame
from goarena.agents.specs import AgentSpecError, check_spec, make_agent
from goarena.agents.training import sb3 as training
from goarena.agents.training.loop import RunConfigError

SIZE = 5
TINY_NET = dict(
    features_extractor_class=GoResNetExtractor, features_extractor_kwargs=dict(blocks=1, filters=8)
)


def make_env(**options) -> gymnasium.Env:
    return gymnasium.make(ENV_ID, board_size=SIZE, learner="alternate", **options)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    """An untrained MaskablePPO as ``goarena train sb3`` makes them: channels-first float32."""
    torch.manual_seed(0)
    env = make_env(channels_first=True, observation_dtype="float32")
    path = tmp_path_factory.mktemp("models") / "maskable.zip"
    MaskablePPO("MlpPolicy", env, policy_kwargs=TINY_NET, n_steps=16, seed=0).save(path)
    return path


def planes(size: int, channels_first: bool, dtype: type = np.int8) -> spaces.Box:
    shape = (17, size, size) if channels_first else (size, size, 17)
    return spaces.Box(0, 1, shape, dtype)


def play_out(player, opponent, color: int, seed: int = 0) -> Game:
    """One 5x5 game, ``player`` with ``color``; every move is played by ``Game.play``, which
    refuses an illegal one."""
    game = Game(SIZE, Rules())
    for who, their_color in ((player, color), (opponent, 3 - color)):
        who.reset(GameContext(SIZE, Rules(), seed=seed, color=their_color))
    while not game.is_over:
        game.play((player if game.to_play == color else opponent).select_move(game.copy()))
    return game


# -- the extractor -------------------------------------------------------------------------


@pytest.mark.parametrize("size", [5, 9, 19])
@pytest.mark.parametrize("dtype", [np.int8, np.float32])
def test_the_extractor_reads_both_layouts_alike_and_stays_compact(size, dtype):
    torch.manual_seed(0)
    last = GoResNetExtractor(planes(size, False, dtype), blocks=2, filters=16)
    first = GoResNetExtractor(planes(size, True, dtype), blocks=2, filters=16)
    first.load_state_dict(last.state_dict())
    for block in (*first.blocks, *last.blocks):
        block.scale.data.fill_(0.5)  # the residual branches count, as after training
    observation = np.random.default_rng(size).integers(0, 2, (3, size, size, 17)).astype(dtype)
    from_last = last(torch.as_tensor(observation))
    from_first = first(torch.as_tensor(observation.transpose(0, 3, 1, 2).copy()))
    assert from_last.shape == (3, 256)
    torch.testing.assert_close(from_first, from_last)
    assert (last.channels_first, first.channels_first) == (False, True)
    head_weights = sum(parameter.numel() for parameter in last.head.parameters())
    assert head_weights <= 4 * size * size * 256 + 16 * 4 + 4 + 256


def test_a_17x17_board_needs_its_layout_named():
    with pytest.raises(ValueError, match="channels_first=True or False"):
        GoResNetExtractor(planes(17, True))
    assert GoResNetExtractor(planes(17, True), blocks=1, channels_first=True).channels_first
    with pytest.raises(ValueError, match="expects the shape"):
        channels_first_of(planes(9, False), channels_first=True)
    with pytest.raises(ValueError, match="Go planes"):
        channels_first_of(spaces.Box(0, 1, (9, 9, 3), np.int8))


def test_maskable_ppo_learns_on_the_env_default_int8_observations():
    env = make_env()  # int8 [N, N, 17], as SB3 users get it without options
    model = MaskablePPO(
        "MlpPolicy", env, policy_kwargs=TINY_NET, n_steps=32, batch_size=16, n_epochs=1, seed=0
    )
    model.learn(32)
    action, _ = model.predict(env.reset(seed=0)[0], action_masks=env.unwrapped.action_masks())
    assert 0 <= int(action) <= SIZE * SIZE


def test_stable_baselines3_check_env_passes_in_both_layouts():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 notes that 0/1 planes are no image; not a failure
        check_env(make_env().unwrapped)
        check_env(make_env(channels_first=True, observation_dtype="float32").unwrapped)


# -- players -------------------------------------------------------------------------------


def test_the_model_sees_what_the_env_shows_its_learner(model_path):
    model = MaskablePPO.load(model_path)
    env = make_env(channels_first=True, observation_dtype="float32").unwrapped
    observation, _ = env.reset(seed=1)
    for action in (12, 7):
        assert np.array_equal(observation_for_model(model, env.game), observation)
        observation, *_ = env.step(action)


def test_the_sb3_spec_plays_legal_moves_to_the_end_of_a_game(model_path):
    player = make_agent(f"sb3:{model_path}")
    assert player.name == "sb3" and len(player.weights_digest()) == 64
    opponent = make_agent("random")
    for color in (BLACK, WHITE):
        assert play_out(player, opponent, color).is_over
    sampler = make_agent(f"sb3:{model_path},temperature=1,seed=3")
    first, again = (play_out(sampler, opponent, BLACK, seed=1).moves for _ in range(2))
    assert first == again  # the draws restart from the game's seed
    with pytest.warns(DeprecationWarning, match="deterministic= is now temperature="):
        old = make_agent(f"sb3:{model_path},deterministic=false,seed=3")
    assert old.temperature == 1.0 and play_out(old, opponent, BLACK, seed=1).moves == first
    policy = player.policy(Game(SIZE))
    assert policy.shape == (SIZE * SIZE + 1,) and policy.sum() == pytest.approx(1.0)
    check_spec(f"sb3:{model_path}", GameContext(SIZE, Rules()))
    with pytest.raises(AgentSpecError, match="cannot play this game"):
        check_spec(f"sb3:{model_path}", GameContext(9, Rules()))


@pytest.mark.parametrize("search", ["", ",simulations=16,batch=4"])
def test_temperature_0_plays_the_best_move(model_path, search):
    game = Game(SIZE)
    game.play(12)
    moves = set()
    for seed in range(3):
        player = make_agent(f"sb3:{model_path},temperature=0{search}", seed=seed)
        player.reset(GameContext(SIZE, Rules(), seed=seed))
        move = player.select_move(game)
        policy = player.policy(game)  # the model's, or the search's visits
        assert policy[move] == policy.max()
        moves.add(move)
    if not search:
        assert len(moves) == 1
    with pytest.warns(DeprecationWarning):
        check_spec(f"sb3:{model_path},deterministic=true", GameContext(SIZE, Rules()))
    with pytest.raises(AgentSpecError, match="temperature"):
        check_spec(f"sb3:{model_path},temperature=-1")


def test_check_spec_reads_the_model_file_it_is_given(tmp_path):
    with pytest.raises(AgentSpecError, match="sb3"):
        check_spec(f"sb3:{tmp_path / 'missing.zip'}")


def test_a_plain_ppo_model_plays_too(tmp_path):
    path = tmp_path / "ppo.zip"
    PPO("MlpPolicy", make_env(), policy_kwargs=TINY_NET, n_steps=16, batch_size=16, seed=0).save(path)
    assert play_out(SB3Agent(path), make_agent("random"), WHITE).is_over


def test_puct_over_the_model_plays_legal_moves(model_path):
    player = make_agent(f"sb3:{model_path},simulations=24,batch=4,seed=0")
    assert play_out(player, make_agent("random"), BLACK).is_over
    game = Game(SIZE)
    game.play(12)
    visits = player.policy(game)
    assert visits.sum() == pytest.approx(1.0) and visits[12] == 0  # no visit to an occupied point


def test_a_model_refuses_another_board_size(model_path):
    player = SB3Agent(model_path)
    with pytest.raises(UnsupportedGame, match="5x5, not 9x9"):
        player.reset(GameContext(9, Rules()))
    with pytest.raises(UnsupportedGame):
        SB3Agent.check_options(GameContext(9, Rules()), model_path)
    SB3Agent.check_options(GameContext(SIZE, Rules()), model_path, simulations=10)
    with pytest.raises(ValueError, match="need simulations"):
        SB3Agent.check_options(None, model_path, fpu=0.1)


@pytest.mark.parametrize("simulations", [None, 8])
def test_the_model_follows_the_contexts_device_and_leaves_the_threads_alone(model_path, simulations):
    threads = torch.get_num_threads()
    torch.set_num_threads(threads + 1)
    try:
        player = SB3Agent(model_path, simulations=simulations)
        assert torch.get_num_threads() == threads + 1  # the process's owner sets them, not a player
    finally:
        torch.set_num_threads(threads)
    player.reset(GameContext(SIZE, Rules(), device="cpu"))
    with pytest.raises(ValueError, match="device 'cuda:7' asked for, but"):
        player.reset(GameContext(SIZE, Rules(), device="cuda:7"))
    SB3Agent(model_path, device="cpu").reset(GameContext(SIZE, Rules(), device="cuda:7"))  # its own wins
    with pytest.raises(ValueError, match="unsupported device 'mps'"):
        SB3Agent.check_options(GameContext(SIZE, Rules(), device="mps"), model_path)


def test_a_file_that_is_no_model_gets_a_clear_error(tmp_path, model_path):
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"definitely not a zip")
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(model_path.read_bytes()[:300])
    other_zip = tmp_path / "other.zip"
    with zipfile.ZipFile(other_zip, "w") as archive:
        archive.writestr("hello.txt", "hi")
    bad_weights = tmp_path / "bad_weights.zip"
    with zipfile.ZipFile(model_path) as source, zipfile.ZipFile(bad_weights, "w") as archive:
        for name in source.namelist():
            archive.writestr(name, b"garbage" if name == "policy.pth" else source.read(name))
    cases = [
        (tmp_path / "missing.zip", "no Stable-Baselines3 model at"),
        (garbage, "not a zip file"),
        (truncated, "not a zip file, or a truncated one"),
        (other_zip, "no 'data' entry"),
        (bad_weights, "weights are not readable"),
    ]
    for path, message in cases:
        with pytest.raises(SB3ModelError, match=message):
            SB3Agent(path)
    with pytest.raises(AgentSpecError, match="not a zip file"):
        make_agent(f"sb3:{garbage}")


class _CreatesAFile:
    """Unpickled, it creates ``path``: the code a hostile model hides in its data."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def hostile_model(model_path, path, entry, marker):
    """``model_path`` with its data's ``entry`` replaced by a pickle that creates ``marker``."""
    with zipfile.ZipFile(model_path) as source, zipfile.ZipFile(path, "w") as archive:
        for name in source.namelist():
            content = source.read(name)
            if name == "data":
                data = json.loads(content)
                serialized = base64.b64encode(pickle.dumps(_CreatesAFile(marker))).decode()
                data[entry] = {":type:": "<class 'object'>", ":serialized:": serialized}
                content = json.dumps(data).encode()
            archive.writestr(name, content)
    return path


def test_a_model_is_data_the_code_hidden_in_it_never_runs(tmp_path, model_path):
    marker = tmp_path / "pwned"
    needed = hostile_model(model_path, tmp_path / "needed.zip", "observation_space", marker)
    for build in (
        lambda: check_spec(f"sb3:{needed}", GameContext(SIZE, Rules())),
        lambda: make_agent(f"sb3:{needed}"),
    ):
        with pytest.raises(AgentSpecError, match="refused, as a model is data and runs no code"):
            build()
        assert not marker.exists()
    unread = hostile_model(model_path, tmp_path / "unread.zip", "lr_schedule", marker)
    check_spec(f"sb3:{unread}", GameContext(SIZE, Rules()))  # a training-only entry is never read
    assert play_out(make_agent(f"sb3:{unread}"), make_agent("random"), BLACK).is_over
    assert not marker.exists()


def _text(value: str) -> bytes:
    data = value.encode()
    return pickle.BINUNICODE + struct.pack("<I", len(data)) + data


def _call(module: str, name: str, *arguments: bytes) -> bytes:
    """Pickle opcodes that call the global ``module``, ``name`` on ``arguments`` (opcodes that
    push them): a GLOBAL opcode, whose dotted name pickle (protocol 4 and above) follows through
    modules, a tuple, REDUCE."""
    return (
        pickle.GLOBAL
        + f"{module}\n{name}\n".encode()
        + pickle.MARK
        + b"".join(arguments)
        + pickle.TUPLE
        + pickle.REDUCE
    )


def _list(*items: str) -> bytes:
    return pickle.EMPTY_LIST + pickle.MARK + b"".join(map(_text, items)) + pickle.APPENDS


def with_entry(model_path, path, entry: str, pickled: bytes):
    """``model_path`` with its data's ``entry`` replaced by the pickle ``pickled``."""
    with zipfile.ZipFile(model_path) as source, zipfile.ZipFile(path, "w") as archive:
        for name in source.namelist():
            content = source.read(name)
            if name == "data":
                data = json.loads(content)
                data[entry] = {
                    ":type:": "<class 'object'>",
                    ":serialized:": base64.b64encode(pickled).decode(),
                }
                content = json.dumps(data).encode()
            archive.writestr(name, content)
    return path


def entry_pickle(model_path, entry: str) -> bytes:
    with zipfile.ZipFile(model_path) as archive:
        return base64.b64decode(json.loads(archive.read("data"))[entry][":serialized:"])


def test_a_dotted_global_runs_nothing_and_is_refused_as_such(tmp_path, model_path):
    marker = tmp_path / "pwned"
    popen = (
        pickle.PROTO
        + bytes([4])
        + _call(
            "numpy.random.mtrand",
            "np.f2py.subprocess.Popen",  # subprocess.Popen, reached through numpy.random.mtrand's np
            _list(sys.executable, "-c", f"open({str(marker)!r}, 'w')"),
        )
        + pickle.STOP
    )
    file_io = (
        pickle.PROTO
        + bytes([4])
        + _call(  # io.FileIO, which creates (truncates) a file
            "numpy.lib._format_impl", "io.FileIO", _text(str(marker)), _text("w")
        )
        + pickle.STOP
    )
    # The stealth variant: the real observation space, with the call hidden in its state, loads
    # and plays as the model did (as it did before this check).
    box = entry_pickle(model_path, "observation_space")
    stealth = (
        box[:-1]
        + pickle.EMPTY_DICT
        + _text("_cache")
        + _call("numpy.random.mtrand", "np.lib._format_impl.io.FileIO", _text(str(marker)), _text("w"))
        + pickle.SETITEM
        + pickle.BUILD
        + pickle.STOP
    )
    cases = [
        ("policy_kwargs", popen, "numpy.random.mtrand.np.f2py.subprocess.Popen is a dotted name"),
        ("observation_space", file_io, "numpy.lib._format_impl.io.FileIO is a dotted name"),
        ("observation_space", stealth, "numpy.random.mtrand.np.lib._format_impl.io.FileIO is a dotted name"),
    ]
    for index, (entry, pickled, why) in enumerate(cases):
        path = with_entry(model_path, tmp_path / f"hostile-{index}.zip", entry, pickled)
        for build in (make_agent, lambda spec: check_spec(spec, GameContext(SIZE, Rules()))):
            with pytest.raises(
                AgentSpecError, match=f"refused, as a model is data and runs no code: '{entry}': {why}"
            ):
                build(f"sb3:{path}")
    time.sleep(0.5)  # a process started would have had time to write the file
    assert not marker.exists()


def test_a_global_outside_the_model_classes_is_refused_even_in_an_allowed_module(tmp_path, model_path):
    seeds = pickle.PROTO + bytes([4]) + _call("numpy.random._pickle", "BitGenerators") + pickle.STOP
    path = with_entry(model_path, tmp_path / "other.zip", "action_space", seeds)
    with pytest.raises(
        SB3ModelError, match="numpy.random._pickle.BitGenerators is none of the classes an SB3 model holds"
    ):
        SB3Agent(path)


def test_data_cannot_change_our_own_classes_or_functions(tmp_path, model_path):
    from numpy._core.numeric import _frombuffer

    before = _frombuffer.__defaults__
    # BUILD on a global sets its attributes: here numpy's array rebuilder's default arguments.
    tamper = (
        pickle.PROTO
        + bytes([4])
        + pickle.GLOBAL
        + b"numpy._core.numeric\n_frombuffer\n"
        + pickle.NONE
        + pickle.EMPTY_DICT
        + _text("__defaults__")
        + pickle.NONE
        + pickle.TUPLE1
        + pickle.SETITEM
        + pickle.TUPLE2
        + pickle.BUILD
        + pickle.STOP
    )
    path = with_entry(model_path, tmp_path / "tamper.zip", "policy_kwargs", tamper)
    with pytest.raises(
        SB3ModelError, match="sets the attributes of <function _frombuffer.*which data may not"
    ):
        SB3Agent(path)
    assert _frombuffer.__defaults__ == before


def test_a_network_larger_than_its_weights_is_refused_before_it_is_built(tmp_path, model_path):
    kwargs = pickle.loads(entry_pickle(model_path, "policy_kwargs"))  # the test's own file
    kwargs["net_arch"] = dict(pi=[4096, 4096], vf=[4096, 4096])  # 134 MB of layers, weights of 0.1 MB
    path = with_entry(model_path, tmp_path / "huge.zip", "policy_kwargs", pickle.dumps(kwargs))
    with pytest.raises(SB3ModelError, match=r"asks for a network of \d+ bytes, more than its weights hold"):
        SB3Agent(path)


def rewrite_weights(model_path, path, weights: bytes, compress: int = zipfile.ZIP_STORED):
    with zipfile.ZipFile(model_path) as source, zipfile.ZipFile(path, "w") as archive:
        for name in source.namelist():
            if name != "policy.pth":
                archive.writestr(name, source.read(name))
        archive.writestr("policy.pth", weights, compress)
    return path


def test_a_zip_bomb_is_refused_before_it_is_decompressed(tmp_path, model_path):
    outer = rewrite_weights(model_path, tmp_path / "outer.zip", bytes(100 << 20), zipfile.ZIP_DEFLATED)
    with pytest.raises(SB3ModelError, match=r"its entries unpack to 1\d\d\.\d MiB .* \(a zip bomb\?\)"):
        SB3Agent(outer)
    state = io.BytesIO()  # policy.pth is torch.save's own zip: its records are checked too
    with zipfile.ZipFile(state, "w") as archive:
        archive.writestr("policy/data/0", bytes(100 << 20), zipfile.ZIP_DEFLATED)
    inner = rewrite_weights(model_path, tmp_path / "inner.zip", state.getvalue())
    with pytest.raises(SB3ModelError, match=r"weights \(policy.pth\): its entries unpack to 100\.0 MiB"):
        SB3Agent(inner)


def test_weights_holding_nan_are_refused_at_load(tmp_path, model_path):
    with zipfile.ZipFile(model_path) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    name = next(name for name, tensor in state.items() if tensor.is_floating_point())
    state[name][0] = float("nan")
    weights = io.BytesIO()
    torch.save(state, weights)
    path = rewrite_weights(model_path, tmp_path / "nan.zip", weights.getvalue())
    with pytest.raises(SB3ModelError, match=f"{path}: .*its weight '{name}' holds NaN or infinite values"):
        SB3Agent(path)


# -- training ------------------------------------------------------------------------------


def tiny_config(**changes) -> training.SB3Config:
    config = training.SB3Config(
        steps=256,
        n_envs=2,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        blocks=1,
        filters=8,
        eval_every=64,
        eval_games=2,
        checkpoint_every=64,
        snapshot_every=64,
        self_play=True,
    )
    return replace(config, **changes)


def test_a_stopped_run_resumes_from_its_last_checkpoint(tmp_path, monkeypatch, capsys):
    run_dir = tmp_path / "run"
    config = tiny_config()
    real_evaluate = training.evaluate
    calls = []

    def stop_at_the_third_evaluation(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # as Ctrl-C or a kill would, mid-run
        return real_evaluate(*args, **kwargs)

    monkeypatch.setattr(training, "evaluate", stop_at_the_third_evaluation)
    with pytest.raises(KeyboardInterrupt):
        training.train_sb3(config, run_dir)
    checkpoint = MaskablePPO.load(run_dir / "checkpoints" / "last.zip")
    assert 0 < checkpoint.num_timesteps < config.steps
    assert not (run_dir / "model.zip").exists()
    snapshots = sorted(path.name for path in (run_dir / "pool").iterdir())
    assert snapshots and all(name.startswith("step-") for name in snapshots)

    monkeypatch.setattr(training, "evaluate", real_evaluate)
    metrics = training.train_sb3(config, run_dir)
    assert f"resuming {run_dir} at step {checkpoint.num_timesteps:,}" in capsys.readouterr().out
    final = MaskablePPO.load(run_dir / "model.zip")
    assert final.num_timesteps == metrics["steps"] >= config.steps
    assert json.loads((run_dir / "metrics.json").read_text())["win_rates"].keys() == {"random"}
    assert list((run_dir / "tensorboard").iterdir())  # SB3's event files
    assert play_out(make_agent(f"sb3:{run_dir / 'model.zip'}"), make_agent("random"), WHITE).is_over

    with pytest.raises(RunConfigError, match="another config"):
        training.train_sb3(replace(config, lr=0.1), run_dir)


def test_the_command_line_takes_comma_separated_evaluation_opponents():
    assert training.split_specs("random, uct:playouts=100,c=1,sb3:a.zip,simulations=8") == [
        "random",
        "uct:playouts=100,c=1",
        "sb3:a.zip,simulations=8",
    ]
    args = training.parser().parse_args(["--run", "r", "--self-play", "--steps", "1000"])
    assert (args.self_play, args.steps, args.size, args.opponent) == (True, 1000, 5, "random")
    with pytest.raises(ValueError, match="learner"):
        training.SB3Config(learner="both")
