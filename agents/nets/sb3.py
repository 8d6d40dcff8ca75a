"""Stable-Baselines3 model files, read as data: ``load_sb3_model`` rebuilds a saved
``MaskablePPO`` or ``PPO`` model's policy network from its zip without running anything the file
holds (``read_model_data`` reads its spaces and policy arguments with an unpickler that builds
only the classes a model is made of; ``torch.load(weights_only=True)`` reads its weights).

The features extractor these models are trained with is ``goarena.agents.nets.sb3_extractor``;
the evaluator over a loaded model is ``goarena.agents.inference.sb3``.
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

import torch
from gymnasium import spaces
from stable_baselines3.common.base_class import BaseAlgorithm

from goarena.agents.nets.checkpoint import nonfinite_weight
from goarena.agents.nets.errors import zip_file_problem, zip_size_problem
from goarena.agents.nets.predict import resolve_device
from goarena.agents.nets.sb3_extractor import GoResNetExtractor, board_size_of


class SB3ModelError(ValueError):
    """A file that is no Stable-Baselines3 model this package can play, or a corrupt one."""


def layout_of(model: BaseAlgorithm | SB3Model | spaces.Space) -> bool | None:
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
        problem = zip_file_problem(path)
        if problem is not None:
            raise SB3ModelError(f"{path}: {problem}")
        with zipfile.ZipFile(path) as archive:
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
    check_spaces(path, model.observation_space, model.action_space, layout_of(model))
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


def check_spaces(
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
