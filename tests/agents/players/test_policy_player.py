"""PolicyPlayer (any network as a player) and torch:PATH (an exported program, read as data, or a
TorchScript module, which is code and loads only with run_code=true)."""

from __future__ import annotations

import hashlib
import json
import pickle
import zipfile
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
from torch import nn

import go_env  # noqa: F401 - registers goarena/Go-v0
from go_env import BLACK, WHITE, Game, Rules
from go_env.gym_env import ENV_ID
from goarena.agents.nets.errors import NetworkFileError
from goarena.agents.players.policy_player import PolicyPlayer, TorchPlayer
from goarena.agents.players.random import RandomAgent
from goarena.agents.protocols import GameContext, UnsupportedGame
from goarena.agents.specs import AgentSpecError, check_spec, make_agent

SIZE = 5
MOVES = SIZE * SIZE + 1


class TinyNet(nn.Module):
    """A policy and value head over the planes, for 5x5."""

    def __init__(self, size: int = SIZE):
        super().__init__()
        self.conv = nn.Conv2d(17, 4, 3, padding=1)
        self.policy = nn.Linear(4 * size * size, size * size + 1)
        self.value = nn.Linear(4 * size * size, 1)

    def forward(self, planes: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = torch.relu(self.conv(planes)).flatten(1)
        return self.policy(hidden), torch.tanh(self.value(hidden))[:, 0]


class PlanesOnly(nn.Module):
    """A network whose forward takes the planes alone and gives logits alone."""

    def __init__(self, size: int = SIZE):
        super().__init__()
        self.policy = nn.Linear(17 * size * size, size * size + 1)

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        return self.policy(planes.flatten(1))


@pytest.fixture(scope="module")
def net() -> TinyNet:
    torch.manual_seed(0)
    return TinyNet().eval()


def context(size: int = SIZE, seed: int | None = None, color: int | None = None) -> GameContext:
    return GameContext(size, Rules(), seed=seed, color=color)


def play_out(player, color: int, seed: int = 0) -> list[int]:
    """A 5x5 game of ``player`` against random; ``Game.play`` refuses an illegal move.
    Returns the player's moves."""
    opponent = RandomAgent(seed=seed)
    game = Game(SIZE, Rules())
    player.reset(context(seed=seed, color=color))
    opponent.reset(context(seed=seed, color=3 - color))
    ours = []
    while not game.is_over:
        mover = player if game.to_play == color else opponent
        move = mover.select_move(game.copy())
        if mover is player:
            ours.append(move)
        game.play(move)
    return ours


def fixed_logits(preferences: dict[int, float]):
    """A function whose logits ignore the position: ``preferences`` over zeros; it records the masks."""
    masks = []

    def fn(planes, mask):
        masks.append(mask.clone())
        logits = torch.zeros(len(planes), MOVES)
        for move, logit in preferences.items():
            logits[:, move] = logit
        return logits

    fn.masks = masks  # type: ignore[attr-defined]
    return fn


# -- playing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("sample", [False, True])
def test_plays_legal_moves_through_whole_games(net, sample):
    player = PolicyPlayer(net, sample=sample, board_size=SIZE, seed=1)
    for color in (BLACK, WHITE):
        assert play_out(player, color)


def test_greedy_plays_the_best_legal_move_whatever_the_logits_say_of_illegal_ones():
    game = Game(SIZE, Rules())
    game.play(7)  # Black on 7: White may not play there
    fn = fixed_logits({7: 100.0, 3: 5.0, 11: 4.0})
    player = PolicyPlayer(fn)
    player.reset(context())
    assert player.select_move(game) == 3
    assert fn.masks[-1].dtype == torch.bool
    assert np.array_equal(fn.masks[-1][0].numpy(), game.legal_mask().astype(bool))
    action = player.act(game)
    assert action.policy[7] == 0 and action.policy.sum() == pytest.approx(1.0)
    assert action.value is None  # fn gives no value


def test_sampling_is_seeded_and_draws_from_the_tempered_policy():
    game = Game(SIZE, Rules())
    fn = fixed_logits({3: 2.0, 11: 2.0, 12: 2.0})

    def draws(seed: int, temperature: float = 1.0) -> list[int]:
        player = PolicyPlayer(fn, sample=True, temperature=temperature, seed=seed)
        player.reset(context())
        return [player.select_move(game) for _ in range(40)]

    assert draws(5) == draws(5)
    assert draws(5) != draws(6)
    assert set(draws(5, temperature=0.05)) == {3, 11, 12}  # the three best, evenly at a low temperature
    assert len(set(draws(5, temperature=10.0))) > 3  # a high one spreads over the others
    reseeded = PolicyPlayer(fn, sample=True)  # no seed of its own: the context's
    reseeded.reset(context(seed=9))
    first = [reseeded.select_move(game) for _ in range(10)]
    reseeded.reset(context(seed=9))
    assert [reseeded.select_move(game) for _ in range(10)] == first


def test_the_planes_are_the_envs_channels_first_float32_observation():
    """What a policy trained on goarena/Go-v0 saw is what it is given."""
    env = gymnasium.make(ENV_ID, board_size=SIZE, channels_first=True, observation_dtype="float32")
    observation, _ = env.reset(seed=3)
    seen = []

    def fn(planes, mask):
        seen.append((planes.clone(), mask.clone()))
        return torch.zeros(len(planes), MOVES)

    player = PolicyPlayer(fn)
    for move in (6, 8, 12):
        player.select_move(env.unwrapped.game.copy())
        planes, mask = seen[-1]
        assert planes.dtype == torch.float32 and planes.shape == (1, 17, SIZE, SIZE)
        assert np.array_equal(planes[0].numpy(), observation)
        assert np.array_equal(mask[0].numpy(), env.unwrapped.action_masks())
        observation, *_ = env.step(move)
    assert observation[0].sum() == 3 and observation[8].sum() > 0  # both sides' stones: a real position
    channels_last = PolicyPlayer(fn, channels_first=False)
    channels_last.select_move(env.unwrapped.game.copy())
    assert np.array_equal(seen[-1][0][0].numpy(), np.moveaxis(observation, 0, -1))


def test_a_module_in_training_is_played_in_eval_mode_and_left_training():
    class Dropping(TinyNet):
        modes: list[bool] = []

        def forward(self, planes, mask):
            self.modes.append(self.training)
            return super().forward(planes, mask)

    torch.manual_seed(0)
    network = Dropping().train()
    player = PolicyPlayer(network)
    player.select_move(Game(SIZE, Rules()))
    assert Dropping.modes == [False] and network.training


def test_numpy_outputs_are_taken_as_tensors_are(net):
    game = Game(SIZE, Rules())

    def as_numpy(planes, mask):
        logits, value = net(planes, mask)
        return logits.numpy(), value.numpy()[:, None]  # [B, 1] values too

    assert PolicyPlayer(as_numpy).act(game).move == PolicyPlayer(net).act(game).move
    assert PolicyPlayer(as_numpy).act(game).value == pytest.approx(PolicyPlayer(net).act(game).value)


def test_search_runs_puct_over_the_policy_and_value(net):
    player = PolicyPlayer(net, simulations=24, seed=2)
    assert play_out(player, BLACK)
    game = Game(SIZE, Rules())
    player.reset(context(seed=2))
    action = player.act(game)
    assert action.policy.sum() == pytest.approx(1.0) and action.policy.max() < 1.0  # visits spread
    assert -1.0 <= action.value <= 1.0
    again = PolicyPlayer(net, simulations=24, seed=2)
    again.reset(context(seed=2))
    assert again.select_move(game) == action.move


def test_search_without_a_value_is_refused_at_reset():
    player = PolicyPlayer(fixed_logits({3: 1.0}), simulations=8)
    with pytest.raises(ValueError, match=r"needs fn to return \(logits, value\)"):
        player.reset(context())


def test_a_board_size_it_does_not_play_is_refused(net):
    with pytest.raises(UnsupportedGame, match="plays 5x5, not 9x9"):
        PolicyPlayer(net, board_size=SIZE).reset(context(9))
    PolicyPlayer(net, board_size=[5, 9]).reset(context(5))
    with pytest.raises(UnsupportedGame, match="cannot play 9x9"):  # the network fails on 9x9 planes
        PolicyPlayer(net).reset(context(9))
    with pytest.raises(UnsupportedGame, match=r"logits of shape \(1, 26\), not \(1, 50\)"):
        PolicyPlayer(fixed_logits({})).reset(context(7))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(temperature=0), "above 0"),
        (dict(simulations=-1), "simulations must be"),
        (dict(layout="nchw"), "layout must be one of"),
        (dict(board_size=1), "board_size"),
        (dict(noise=0.25), "search options need simulations"),
    ],
)
def test_bad_options_are_refused(net, options, message):
    with pytest.raises(ValueError, match=message):
        PolicyPlayer(net, **options)


# -- torch:PATH ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def saved(net, tmp_path_factory):
    """The network scripted, traced, and exported with a dynamic and with a fixed batch."""
    folder = tmp_path_factory.mktemp("torch")
    planes, mask = torch.zeros(1, 17, SIZE, SIZE), torch.ones(1, MOVES, dtype=torch.bool)
    paths = {kind: folder / f"{kind}.pt" for kind in ("script", "trace")}
    torch.jit.script(net).save(paths["script"])
    torch.jit.trace(net, (planes, mask)).save(paths["trace"])
    batch = torch.export.Dim("batch")
    two = (planes.expand(2, -1, -1, -1), mask.expand(2, -1))  # a batch of 1 would be taken as fixed
    dynamic = torch.export.export(net, two, dynamic_shapes=({0: batch}, {0: batch}))
    for kind, program in (("export", dynamic), ("export-batch-1", torch.export.export(net, (planes, mask)))):
        paths[kind] = folder / f"{kind}.pt2"
        torch.export.save(program, paths[kind])
    return paths


@pytest.mark.parametrize("kind", ["script", "trace", "export", "export-batch-1"])
def test_a_saved_network_plays_as_the_network_does(net, saved, kind):
    code = ",run_code=true" if kind in ("script", "trace") else ""
    for simulations in (0, 16):
        loaded = make_agent(f"torch:{saved[kind]},simulations={simulations},seed=4{code}")
        original = PolicyPlayer(net, simulations=simulations, seed=4)
        assert play_out(loaded, BLACK, seed=1) == play_out(original, BLACK, seed=1)
    assert loaded.name == "torch"
    assert loaded.weights_digest() == hashlib.sha256(saved[kind].read_bytes()).hexdigest()


def test_a_network_of_the_planes_alone_plays_too(tmp_path):
    torch.manual_seed(0)
    network = PlanesOnly().eval()
    path = tmp_path / "planes-only.pt"
    torch.jit.script(network).save(path)
    assert play_out(TorchPlayer(path, run_code=True), WHITE) == play_out(
        PolicyPlayer(lambda planes, _: network(planes)), WHITE
    )


def test_the_size_option_is_checked_without_running_the_network(saved):
    check_spec(f"torch:{saved['export']},size=5,sample=true", context())
    with pytest.raises(AgentSpecError, match="cannot play this game.*plays 5x5, not 9x9"):
        check_spec(f"torch:{saved['export']},size=5", context(9))
    with pytest.raises(AgentSpecError, match="above 0"):
        check_spec(f"torch:{saved['export']},temperature=-1")
    with pytest.raises(AgentSpecError, match="run_code must be true or false"):
        check_spec(f"torch:{saved['script']},run_code=yes")


def test_files_that_are_no_saved_network_are_refused_clearly(saved, tmp_path):
    cut = tmp_path / "cut.pt"
    cut.write_bytes(saved["script"].read_bytes()[:2000])
    state_dict = tmp_path / "state.pt"
    torch.save(TinyNet().state_dict(), state_dict)
    text = tmp_path / "notes.pt"
    text.write_text("not a network")
    damaged = tmp_path / "damaged.pt2"
    data = bytearray(saved["export"].read_bytes())
    data[len(data) // 3 : len(data) // 3 + 64] = bytes(64)
    damaged.write_bytes(bytes(data))
    cases = {
        tmp_path / "missing.pt": "no network file there",
        cut: "not a zip archive",
        state_dict: "neither a TorchScript module nor an exported program",
        text: "not a zip archive",
    }
    for path, message in cases.items():
        with pytest.raises(NetworkFileError, match=f"{path}: .*{message}"):
            TorchPlayer(path)
        with pytest.raises(AgentSpecError, match=message):
            check_spec(f"torch:{path}")
    with pytest.raises(NetworkFileError, match=f"{damaged}: corrupt: its entry .* fails its checksum"):
        TorchPlayer(damaged)


# -- torch:PATH is data, unless the spec says the file's code may run --------------------------


class _CreatesAFile:
    """Unpickled, it creates ``path``: the code a hostile file hides in a pickle."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


class WritesOnLoad(nn.Module):
    """A TorchScript module whose ``__setstate__`` (run by ``torch.jit.load``) writes a file."""

    def __init__(self, marker: str):
        super().__init__()
        self.marker = marker
        self.weight = torch.zeros(MOVES, 17 * SIZE * SIZE)

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        return planes.flatten(1) @ self.weight.T

    @torch.jit.export
    def __getstate__(self) -> tuple[str, torch.Tensor, bool]:
        return (self.marker, self.weight, self.training)

    @torch.jit.export
    def __setstate__(self, state: tuple[str, torch.Tensor, bool]) -> None:
        self.marker, self.weight, self.training = state
        torch.save(torch.zeros(1), self.marker)


def test_a_torchscript_module_is_code_and_loads_only_when_the_spec_says_so(tmp_path):
    marker = tmp_path / "written-at-load"
    path = tmp_path / "policy.pt"
    torch.jit.script(WritesOnLoad(str(marker))).save(path)
    for build in (lambda: make_agent(f"torch:{path}"), lambda: check_spec(f"torch:{path}", context())):
        with pytest.raises(AgentSpecError, match="TorchScript module is code .*run_code=true"):
            build()
    assert not marker.exists()
    assert play_out(make_agent(f"torch:{path},run_code=true"), BLACK)  # opted in: it plays...
    assert marker.exists()  # ...and its code ran, as the option's name says


def rewritten(source: Path, target: Path, **entries: bytes | None) -> Path:
    """A copy of the exported program ``source`` with entries (under the archive's root folder;
    ``__`` for ``/``, ``_dot_`` for ``.``) replaced, added, or removed (None)."""
    changes = {name.replace("__", "/").replace("_dot_", "."): data for name, data in entries.items()}
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        root = original.namelist()[0].partition("/")[0]
        for name in original.namelist():
            entry = name.partition("/")[2]
            if entry not in changes:
                copy.writestr(name, original.read(name))
        for entry, data in changes.items():
            if data is not None:
                copy.writestr(f"{root}/{entry}", data, zipfile.ZIP_DEFLATED)
    return target


def entry(path: Path, suffix: str) -> bytes:
    with zipfile.ZipFile(path) as archive:
        return archive.read(next(name for name in archive.namelist() if name.endswith(suffix)))


def test_an_exported_program_asking_for_a_pickle_is_refused_before_it_runs(saved, tmp_path):
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_CreatesAFile(marker))
    config = json.loads(entry(saved["export"], "model_weights_config.json"))
    first = next(iter(config["config"]))
    config["config"][first]["use_pickle"] = True
    pickled_weight = rewritten(
        saved["export"],
        tmp_path / "pickled-weight.pt2",
        data__weights__model_weights_config_dot_json=json.dumps(config).encode(),
        **{f"data__weights__{config['config'][first]['path_name']}": payload},
    )
    pickled_inputs = rewritten(  # torch reads them weights-only, then unpickles them if that fails
        saved["export"], tmp_path / "pickled-inputs.pt2", data__sample_inputs__model_dot_pt=payload
    )
    opaque = rewritten(saved["export"], tmp_path / "opaque.pt2", data__constants__opaque_obj_0=payload)
    compiled = rewritten(
        saved["export"], tmp_path / "aoti.pt2", data__aotinductor__model__model_dot_so=b"\x7fELF"
    )
    cases = {
        pickled_weight: f"its weight '{first}' is stored as a pickle \\(use_pickle\\), which runs code",
        pickled_inputs: "not a readable exported program .*a pickle",
        opaque: "its entry '.*/data/constants/opaque_obj_0' is no part of an exported program's data",
        compiled: "its entry '.*/data/aotinductor/model/model.so' is no part of an exported program's data",
    }
    for path, message in cases.items():
        with pytest.raises(AgentSpecError, match=message):
            make_agent(f"torch:{path}")
        with pytest.raises(AgentSpecError, match=message):
            check_spec(f"torch:{path}", context())
        assert not marker.exists(), path.name


def test_an_exported_program_whose_shapes_are_python_is_refused(saved, tmp_path):
    marker = tmp_path / "pwned"
    model = entry(saved["export"], "models/model.json").decode()
    symbol = model[model.index("Symbol('") : model.index(")", model.index("Symbol('")) + 1]
    hostile = model.replace(symbol, f"__import__('builtins').open('{marker}', 'w') and 0 or {symbol}")
    path = rewritten(saved["export"], tmp_path / "shapes.pt2", models__model_dot_json=hostile.encode())
    with pytest.raises(AgentSpecError, match="its shape expression .* is not plain arithmetic"):
        make_agent(f"torch:{path}")
    assert not marker.exists()


def test_an_exported_program_that_touches_files_is_refused_before_it_plays(net, tmp_path):
    marker = tmp_path / "grown-at-every-move"
    planes, mask = torch.zeros(2, 17, SIZE, SIZE), torch.ones(2, MOVES, dtype=torch.bool)
    program = torch.export.export(net, (planes, mask))
    output = next(node for node in program.graph.nodes if node.op == "output")
    with program.graph.inserting_before(output):  # maps (and creates) the file, shared, as it plays
        node = program.graph.call_function(
            torch.ops.aten.from_file.default, (str(marker), True, 4096), {"dtype": torch.uint8}
        )
    node.meta["val"] = torch.empty(4096, dtype=torch.uint8, device="meta")
    path = tmp_path / "files.pt2"
    torch.export.save(program, path)
    with pytest.raises(
        AgentSpecError, match="its graph calls aten.from_file.default, which reads or writes a file"
    ):
        play_out(make_agent(f"torch:{path}"), BLACK)
    assert not marker.exists()


def test_a_zip_bomb_is_refused_before_it_is_decompressed(saved, tmp_path):
    config = json.loads(entry(saved["export"], "model_weights_config.json"))
    weight = next(iter(config["config"].values()))["path_name"]
    bomb = rewritten(saved["export"], tmp_path / "bomb.pt2", **{f"data__weights__{weight}": bytes(100 << 20)})
    assert bomb.stat().st_size < 1 << 20  # 100 MiB of zeros deflate to about 100 KiB
    with pytest.raises(AgentSpecError, match=r"its entries unpack to 100\.\d MiB from .* \(a zip bomb\?\)"):
        make_agent(f"torch:{bomb}")
    script_bomb = tmp_path / "bomb.pt"
    with zipfile.ZipFile(saved["script"]) as original, zipfile.ZipFile(script_bomb, "w") as copy:
        for name in original.namelist():
            copy.writestr(name, original.read(name))
        copy.writestr("script/extra/padding", bytes(100 << 20), zipfile.ZIP_DEFLATED)
    with pytest.raises(NetworkFileError, match="a zip bomb"):
        TorchPlayer(script_bomb, run_code=True)
