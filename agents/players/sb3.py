"""Stable-Baselines3 models as Go players.

``SB3Agent`` plays a saved ``MaskablePPO`` or ``PPO`` model (spec ``sb3:PATH[,key=value]``):
the policy's most likely legal move (``temperature=0``, the default), a move drawn from it
(``temperature=1``; ``deterministic=false``, the old spelling, is deprecated), or, with
``simulations`` or ``seconds``, PUCT over the model (``SB3Evaluator``: the policy's
probabilities over the legal moves as priors, the critic's value as the leaf value)::

    sb3:runs/ppo5/model.zip
    sb3:runs/ppo5/model.zip,temperature=1,seed=3
    sb3:runs/ppo5/model.zip,simulations=200,c_puct=1.5

The critic estimates the learner's return against the opponent it trained with, so as a
search value it is the win expectation against that opponent, clipped to [-1, 1].

The features extractor these models are trained with is ``goarena.agents.nets.sb3_extractor``.
"""

from __future__ import annotations

import base64
import functools
import importlib
import io
import json
import pickle
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.base_class import BaseAlgorithm

from go_env import Game
from go_env.features import NUM_HISTORY_PLANES, batch_history_planes, planes_in_layout
from goarena.agents.nets.checkpoint import nonfinite_weight
from goarena.agents.nets.errors import zip_size_problem
from goarena.agents.nets.predict import masked_softmax, player_device, resolve_device
from goarena.agents.nets.sb3_extractor import GoResNetExtractor, board_size_of, channels_first_of
from goarena.agents.players.search import PUCTAgent, SearchedNetwork
from goarena.agents.protocols import (
    Action,
    GameContext,
    check_board_size,
    files_digest,
    game_context,
)
from goarena.agents.specs import Renamed, renamed_options
from goarena.search import Leaves


class SB3ModelError(ValueError):
    """A file that is no Stable-Baselines3 model this package can play, or a corrupt one."""


# -- observations ------------------------------------------------------------------------


def planes_for_space(
    planes: np.ndarray, space: spaces.Space, channels_first: bool | None = None
) -> np.ndarray:
    """History planes int8 ``[..., N, N, 17]`` (as ``Game.observation`` and ``go_env.features``
    give them) in the layout and dtype of ``space``."""
    return planes_in_layout(planes, channels_first_of(space, channels_first), space.dtype)


def observation_for_model(model: BaseAlgorithm | SB3Model | spaces.Space, game: Game) -> np.ndarray:
    """The observation a model (or an observation space) expects of ``game``, from the side to
    move's view: ``game.observation()`` transposed and cast to the model's observation space."""
    space = model if isinstance(model, spaces.Space) else model.observation_space
    return planes_for_space(game.observation(), space, _layout_of(model))


def _layout_of(model: BaseAlgorithm | SB3Model | spaces.Space) -> bool | None:
    """The layout a model's ``GoResNetExtractor`` was built with (None for other extractors)."""
    extractor = getattr(getattr(model, "policy", None), "features_extractor", None)
    return extractor.channels_first if isinstance(extractor, GoResNetExtractor) else None


# -- loading -------------------------------------------------------------------------------

# A model file is data: of its ``data`` entry, only the JSON values and the four pickled
# entries a player needs are read, the latter with an unpickler that resolves nothing itself:
# each global a pickle names must be one of the exact (module, name) pairs below, and what it
# gets is our own import of that object (the spaces, their dtypes and seeded generators, the
# policies, extractors, activations and optimizers an SB3 model holds). A dotted name, which
# pickle would follow through modules (numpy.random.mtrand's np.f2py.subprocess.Popen), is
# never resolved. Every other pickled entry (schedules, buffers, ...) is left unread.
_NEEDED = ("policy_class", "observation_space", "action_space", "policy_kwargs")
_DATA_CLASSES: dict[str, tuple[str, ...]] = {
    "builtins": ("slice",),
    "numpy": ("dtype", "ndarray"),
    "numpy._core.multiarray": ("_reconstruct", "scalar"),
    "numpy._core.numeric": ("_frombuffer",),
    "numpy.random._pickle": ("__generator_ctor", "__bit_generator_ctor", "__randomstate_ctor"),
    "numpy.random.bit_generator": ("SeedSequence", "__pyx_unpickle_SeedSequence"),
    "numpy.random._pcg64": ("PCG64", "PCG64DXSM"),
    "numpy.random._mt19937": ("MT19937",),
    "numpy.random._philox": ("Philox",),
    "numpy.random._sfc64": ("SFC64",),
    "gymnasium.spaces.box": ("Box",),
    "gymnasium.spaces.discrete": ("Discrete",),
    "stable_baselines3.common.policies": ("ActorCriticPolicy", "ActorCriticCnnPolicy"),
    "sb3_contrib.common.maskable.policies": ("MaskableActorCriticPolicy", "MaskableActorCriticCnnPolicy"),
    "stable_baselines3.common.torch_layers": ("FlattenExtractor", "NatureCNN"),
    "goarena.agents.nets.sb3_extractor": ("GoResNetExtractor",),
    "torch.nn.modules.activation": ("ReLU", "Tanh", "ELU", "LeakyReLU", "GELU", "SiLU", "Mish", "Sigmoid"),
    "torch.optim.adam": ("Adam",),
    "torch.optim.adamw": ("AdamW",),
    "torch.optim.rmsprop": ("RMSprop",),
    "torch.optim.sgd": ("SGD",),
}
# Other spellings of those modules: numpy 1's, and where earlier releases kept the extractor.
_MOVED = {
    "numpy.core.multiarray": "numpy._core.multiarray",
    "numpy.core.numeric": "numpy._core.numeric",
    "goarena.agents.sb3": "goarena.agents.nets.sb3_extractor",
}


@functools.cache
def _data_globals() -> dict[tuple[str, str], Any]:
    """(module, name) -> the object itself, for each pair above, from our own imports."""
    found = {}
    for module, names in _DATA_CLASSES.items():
        try:
            imported = importlib.import_module(module)
        except ImportError:  # numpy 1 has numpy.core only
            imported = importlib.import_module(module.replace("numpy._core", "numpy.core"))
        found.update({(module, name): getattr(imported, name) for name in names})
    return found


# Python's own unpickler, whose opcodes a subclass can replace (typeshed describes only the C one).
_PythonUnpickler: Any = pickle._Unpickler


class _DataUnpickler(_PythonUnpickler):
    """Builds only the objects a model's data is made of and refuses any other global by name."""

    dispatch: dict[int, Any] = dict(_PythonUnpickler.dispatch)

    def find_class(self, module: str, name: str) -> Any:
        found = _data_globals().get((_MOVED.get(module, module), name))
        if found is not None:
            return found
        if "." in name:
            raise pickle.UnpicklingError(
                f"{module}.{name} is a dotted name, which reaches through modules to anything"
            )
        raise pickle.UnpicklingError(f"{module}.{name} is none of the classes an SB3 model holds")

    def load_build(self) -> None:
        """BUILD sets the state of an object the pickle made, never the attributes of one of our
        own classes or functions (``Box.sample`` or ``_frombuffer.__defaults__``, for every
        model the process loads after)."""
        target = self.stack[-2]
        if any(target is found for found in _data_globals().values()):
            raise pickle.UnpicklingError(f"it sets the attributes of {target!r}, which data may not change")
        super().load_build()

    dispatch[pickle.BUILD[0]] = load_build


def read_model_data(path: Path | str) -> dict[str, Any]:
    """The saved attributes of the SB3 model at ``path`` that a player needs (spaces, policy
    class and its arguments, ``use_sde``), read as data: nothing in the file is run.

    Raises:
        SB3ModelError: no such file, not an SB3 model's zip, a corrupt one, one whose zip
            declares absurd sizes (``zip_size_problem``), or one whose data asks for anything
            but the spaces, policies and layers a model is made of.
    """
    path = Path(path)
    if not path.is_file():
        raise SB3ModelError(f"{path}: no Stable-Baselines3 model at that path")
    try:
        with zipfile.ZipFile(path) as archive:
            problem = zip_size_problem(archive, path.stat().st_size)
            if problem is not None:
                raise SB3ModelError(f"{path}: {problem}")
            text = archive.read("data").decode()
    except zipfile.BadZipFile:
        raise SB3ModelError(
            f"{path}: not a Stable-Baselines3 model (not a zip file, or a truncated one)"
        ) from None
    except KeyError:
        raise SB3ModelError(
            f"{path}: a zip file but no Stable-Baselines3 model (it has no 'data' entry)"
        ) from None
    except (OSError, UnicodeDecodeError, zipfile.LargeZipFile) as error:
        raise SB3ModelError(
            f"{path}: cannot be read as a Stable-Baselines3 model (corrupt?): {error}"
        ) from None
    try:
        saved = json.loads(text)
    except ValueError as error:
        raise SB3ModelError(f"{path}: the model's saved data is not JSON (corrupt?): {error}") from None
    if not isinstance(saved, dict):
        raise SB3ModelError(f"{path}: the model's saved data is not a JSON object")
    data: dict[str, Any] = {"use_sde": bool(saved.get("use_sde", False))}
    for key in _NEEDED:
        entry = saved.get(key)
        if not isinstance(entry, dict) or ":serialized:" not in entry:
            raise SB3ModelError(f"{path}: the model's saved data has no readable {key!r}")
        try:
            data[key] = _DataUnpickler(io.BytesIO(base64.b64decode(entry[":serialized:"]))).load()
        except pickle.UnpicklingError as error:
            raise SB3ModelError(
                f"{path}: refused, as a model is data and runs no code: {key!r}: {error}"
            ) from None
        except Exception as error:  # a corrupt entry fails in many ways
            raise SB3ModelError(f"{path}: the model's {key!r} is not readable (corrupt?): {error}") from None
    if not isinstance(data["policy_kwargs"], dict):
        raise SB3ModelError(f"{path}: the model's 'policy_kwargs' is not a dict")
    return data


@dataclass(frozen=True)
class SB3Model:
    """A saved PPO or MaskablePPO model as a player reads it: its spaces and its policy network
    (in eval mode), without the algorithm around them."""

    policy: Any  # an ActorCriticPolicy or MaskableActorCriticPolicy
    observation_space: spaces.Space
    action_space: spaces.Space


def _policy_class(path: Path | str, data: dict[str, Any]) -> type:
    """The model's actor-critic policy class (MaskablePPO's or PPO's)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.policies import ActorCriticPolicy

    policy_class = data.get("policy_class")
    if isinstance(policy_class, type) and issubclass(
        policy_class, (ActorCriticPolicy, MaskableActorCriticPolicy)
    ):
        return policy_class
    raise SB3ModelError(f"{path}: policy {policy_class!r} is not an actor-critic (MaskablePPO or PPO) policy")


def load_sb3_model(path: Path | str, device: str = "cpu") -> SB3Model:
    """The policy of the MaskablePPO or PPO model saved at ``path``, for play: its data read by
    ``read_model_data`` and its weights by ``torch.load(weights_only=True)``, so that nothing
    in the file runs.

    Raises:
        SB3ModelError: not an SB3 model, not an actor-critic one, not over Go planes, corrupt,
            one whose data asks for code, or one whose weights hold NaN or infinity.
    """
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    data = read_model_data(path)
    policy_class = _policy_class(path, data)
    where = resolve_device(device)
    options = dict(data["policy_kwargs"])
    if not issubclass(policy_class, MaskableActorCriticPolicy):
        options["use_sde"] = data["use_sde"]
    weights, unpacked = _read_weights(path)

    def rebuild() -> Any:
        try:
            return policy_class(data["observation_space"], data["action_space"], lambda _: 0.0, **options)
        except (TypeError, ValueError) as error:
            raise SB3ModelError(
                f"{path}: the model's policy cannot be rebuilt from its data: {error}"
            ) from None

    # The data names the network's shape: measured without memory first, so that a file cannot
    # ask for gigabytes of layers that its weights could never fill.
    with torch.device("meta"):
        shape_only = rebuild()
    needed = sum(t.numel() * t.element_size() for t in (*shape_only.parameters(), *shape_only.buffers()))
    if needed > unpacked:
        raise SB3ModelError(
            f"{path}: the model's data asks for a network of {needed} bytes, more than its weights "
            f"hold ({unpacked} bytes): refused before building it"
        )
    policy = rebuild()
    try:
        state = torch.load(io.BytesIO(weights), map_location=where, weights_only=True)
        policy.load_state_dict(state)
    except Exception as error:  # torch and the state dict raise many kinds
        raise SB3ModelError(f"{path}: the model's weights are not readable (corrupt?): {error}") from None
    problem = nonfinite_weight(state)
    if problem is not None:
        raise SB3ModelError(f"{path}: the model's weights (policy.pth): {problem}")
    policy.to(where)
    policy.set_training_mode(False)
    model = SB3Model(policy, data["observation_space"], data["action_space"])
    _check_spaces(path, model.observation_space, model.action_space, _layout_of(model))
    return model


def _read_weights(path: Path | str) -> tuple[bytes, int]:
    """The model's ``policy.pth`` (torch.save's own zip) and the bytes its entries declare,
    refused before torch reads it when those sizes are absurd."""
    try:
        with zipfile.ZipFile(path) as archive:
            weights = archive.read("policy.pth")
        with zipfile.ZipFile(io.BytesIO(weights)) as inner:
            problem = zip_size_problem(inner, len(weights))
            unpacked = sum(info.file_size for info in inner.infolist())
    except (KeyError, OSError, zipfile.BadZipFile, zipfile.LargeZipFile) as error:
        raise SB3ModelError(f"{path}: the model's weights are not readable (corrupt?): {error}") from None
    if problem is not None:
        raise SB3ModelError(f"{path}: the model's weights (policy.pth): {problem}")
    return weights, unpacked


def _check_spaces(
    path: Path | str, observation: spaces.Space, action: spaces.Space, layout: bool | None
) -> int:
    """The board size of a model's spaces, refusing spaces that are not Go's."""
    try:
        size = board_size_of(observation, layout)
    except ValueError as error:
        raise SB3ModelError(f"{path}: the model does not observe Go planes: {error}") from None
    if not isinstance(action, spaces.Discrete) or int(action.n) != size * size + 1:
        raise SB3ModelError(
            f"{path}: the model's actions are {action}, not Discrete({size * size + 1}) for {size}x{size}"
        )
    return size


# -- playing -------------------------------------------------------------------------------


def model_outputs(
    model: BaseAlgorithm | SB3Model, observations: np.ndarray, legal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One forward pass of an actor-critic model.

    Args:
        model: a PPO or MaskablePPO model.
        observations: ``[B, ...]`` in the model's observation space.
        legal: ``[B, A]`` legal-move masks (nonzero: legal); every row has one (pass is).

    Returns:
        (float64[B, A]: the policy's probabilities over the legal moves, 0 elsewhere;
        float64[B]: the critic's values, clipped to [-1, 1]).
    """
    policy: Any = model.policy  # Maskable or not: no common base class declares the parts used
    policy.set_training_mode(False)
    with torch.inference_mode():
        obs = torch.as_tensor(observations, device=policy.device)
        # ActorCriticPolicy.forward's path, stopping at the logits and the value
        features = policy.extract_features(obs)
        if policy.share_features_extractor:
            latent_pi, latent_vf = policy.mlp_extractor(features)
        else:
            latent_pi = policy.mlp_extractor.forward_actor(features[0])
            latent_vf = policy.mlp_extractor.forward_critic(features[1])
        logits = policy.action_net(latent_pi).float().cpu().numpy()
        values = policy.value_net(latent_vf)[:, 0].double().cpu().numpy()
    return masked_softmax(logits, legal), np.clip(values, -1.0, 1.0)


class SB3Evaluator:
    """A PPO or MaskablePPO model as a search evaluator: each leaf's history planes (from the
    leaf's side to move), one forward pass for the batch; the policy's probabilities over the
    legal moves as priors, the critic's value as the leaf's value.

    Args:
        model: a PPO or MaskablePPO model over Go planes.
    """

    def __init__(self, model: BaseAlgorithm | SB3Model):
        self.model = model
        self.layout = _layout_of(model)
        self.board_size = _check_spaces("the model", model.observation_space, model.action_space, self.layout)
        self._planes = np.empty((1, self.board_size, self.board_size, NUM_HISTORY_PLANES), np.int8)

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        size = leaves.geometry.size
        check_board_size(self.board_size, size, "the model was")
        count = len(leaves)
        if self._planes.shape[0] < count:
            self._planes = np.empty((count, size, size, NUM_HISTORY_PLANES), np.int8)
        planes = self._planes[:count]
        batch_history_planes(leaves.states, leaves.geometry, planes)
        observations = planes_for_space(planes, self.model.observation_space, self.layout)
        return model_outputs(self.model, observations, leaves.legal)


class SB3Agent(SearchedNetwork):
    """A saved MaskablePPO or PPO model as a player (see the module docs).

    Args:
        path: the model's zip file (``model.save``; ``goarena train sb3`` writes ``model.zip``),
            or a model in memory (a ``BaseAlgorithm``, such as one being trained: the player
            reads its policy as it is now, and never moves it from its device).
        temperature: 0 plays the most likely legal move (the search's most visited one);
            above 0, moves are drawn in proportion to ``p ** (1 / temperature)`` (the
            search's visits, likewise). ``deterministic``, its old spelling, is deprecated:
            ``deterministic=True`` is ``temperature=0``, ``False`` is ``temperature=1``.
        simulations: search with PUCT over the model, this many simulations per move.
        seconds: search with PUCT over the model, this long per move.
        c_puct: PUCT's exploration constant.
        batch: leaves per forward pass in the search.
        device: where the model runs (cpu, cuda, cuda:N); None runs it where the game's
            context says (``GameContext.device``). Resolved, and the model moved there, at
            ``reset``; on the CPU until then.
        seed: seed of the move draws and of the search.
        search_options: more ``PUCTAgent`` options for the search (``fpu``, ``noise``,
            ``temperature_moves``, ``reuse``, ``resign_threshold``, ...).

    Raises:
        SB3ModelError: the file is no playable SB3 model (missing, corrupt, not over Go planes).
        ValueError: bad options.
    """

    def __init__(
        self,
        path: Path | str | BaseAlgorithm,
        temperature: float | None = None,
        simulations: int | None = None,
        seconds: float | None = None,
        c_puct: float = 1.5,
        batch: int = 8,
        device: str | None = None,
        seed: int | None = None,
        **search_options: Any,
    ):
        temperature = _check_options(temperature, simulations, seconds, search_options)
        self.device = device
        self.path: Path | None = None
        self.model: BaseAlgorithm | SB3Model
        if isinstance(path, BaseAlgorithm):
            self.model = path
        else:
            self.path = Path(path)
            self.model = load_sb3_model(self.path, device or "cpu")
        self.layout = _layout_of(self.model)
        self.board_size = board_size_of(self.model.observation_space, self.layout)
        self.name = "sb3"
        self.temperature = temperature
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.search: PUCTAgent | None = None
        if simulations is not None or seconds is not None:
            self.search = PUCTAgent(
                simulations=simulations,
                seconds=seconds,
                evaluator=SB3Evaluator(self.model),
                c_puct=c_puct,
                batch=batch,
                temperature=temperature,
                seed=seed,
                **search_options,
            )
        self._digest = files_digest([self.path]) if self.path is not None else None

    @staticmethod
    def check_options(
        context: GameContext | None,
        path: Path | str | None = None,
        temperature: float | None = None,
        simulations: int | None = None,
        seconds: float | None = None,
        c_puct: float = 1.5,
        batch: int = 8,
        device: str | None = None,
        seed: int | None = None,
        **search_options: Any,
    ) -> None:
        """Check the options and, given the path, the model's file as the player reads it
        (and, given a context, its board size)."""
        temperature = _check_options(temperature, simulations, seconds, search_options)
        player_device(device, context)
        if simulations is not None or seconds is not None:
            PUCTAgent(
                simulations=simulations,
                seconds=seconds,
                c_puct=c_puct,
                batch=batch,
                temperature=temperature,
                **search_options,
            )
        if path is not None:
            model = load_sb3_model(path)
            size = board_size_of(model.observation_space, _layout_of(model))
            if context is not None:
                check_board_size(size, context.size, "the model was")

    def reset(self, context: GameContext) -> None:
        """A new game: refuses a board size the model was not trained for; moves a model read
        from a file to the player's device (its own, else the context's)."""
        check_board_size(self.board_size, game_context(context).size, "the model was")
        device = player_device(self.device, context)
        if self.path is not None and self.model.policy.device != device:
            self.model.policy.to(device)
        self.restart(context)

    def weights_digest(self) -> str | None:
        """The sha256 of the model's file (None for a model in memory)."""
        return self._digest

    def evaluate(self, game: Game) -> tuple[np.ndarray, float]:
        """(float64[N*N+1]: the policy over the legal moves, the critic's value in [-1, 1])
        of ``game`` for its side to move, without search."""
        check_board_size(self.board_size, game.size, "the model was")
        observation = planes_for_space(game.observation(), self.model.observation_space, self.layout)
        probabilities, values = model_outputs(self.model, observation[None], game.legal_mask()[None])
        return probabilities[0], float(values[0])

    def act(self, game: Game) -> Action:
        """The move ``select_move`` plays, with the policy behind it (the search's visit
        distribution when searching) and the value."""
        if self.search is not None:
            return self.search.act(game)
        probabilities, value = self.evaluate(game)
        if self.temperature == 0:
            move = int(probabilities.argmax())
        else:
            weights = probabilities if self.temperature == 1 else probabilities ** (1 / self.temperature)
            move = int(self.rng.choice(len(weights), p=weights / weights.sum()))
        return Action(move, probabilities, value)


def _deterministic(value: object) -> float:
    """``deterministic``'s value as the temperature it meant."""
    if not isinstance(value, bool):
        raise ValueError(f"deterministic must be true or false, got {value!r}")
    return 0.0 if value else 1.0


RENAMES: dict[str, Renamed] = {"deterministic": ("temperature", _deterministic)}  # deprecated spellings


def _check_options(
    temperature: float | None, simulations: int | None, seconds: float | None, search_options: dict[str, Any]
) -> float:
    """The temperature (from ``deterministic`` where it is given so, taken out of
    ``search_options``), once the options are checked."""
    old = {name: search_options.pop(name) for name in RENAMES.keys() & search_options.keys()}
    temperature = renamed_options("sb3", old, RENAMES, temperature=temperature)["temperature"]
    temperature = 0.0 if temperature is None else temperature
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
        raise ValueError(f"temperature must be a number, got {temperature!r}")
    if not 0 <= temperature < np.inf:
        raise ValueError(f"temperature must be finite and >= 0, got {temperature!r}")
    if search_options and simulations is None and seconds is None:
        raise ValueError(f"{', '.join(sorted(search_options))}: search options need simulations= or seconds=")
    return float(temperature)
