"""Spec strings name a player and its options, as leagues and the command line take them:

==========================================  ==============================================
spec                                        player
==========================================  ==============================================
``random``                                  a built-in by name
``uct:simulations=2000,c=1.4``              a built-in with options (``key=value``, commas)
``gtp:gnugo --mode gtp --level 10``         an external GTP engine: the rest is its command
``sb3:runs/ppo/model.zip,simulations=200``  a Stable-Baselines3 model: its path, then options
``torch:policy.pt2,sample=true``            an exported program (TorchScript: ``run_code=true``)
``mypackage.players:make_player``           ``module:factory``, called with the options
``mypackage.players:make_player:depth=3``   ... and options after a second colon
``myplayer``                                a ``goarena.agents`` entry point's factory
==========================================  ==============================================

A ``module:factory`` spec imports ``module`` as ``python -m`` would: from the installed
packages and from the current directory, so ``mybot.py`` beside the command line is
``mybot:make_player``.

``check_spec`` checks a spec without loading a network's weights: a factory with a
``check_options(context, *args, **options)`` function (a static or class method; ``args`` the
spec's command or path, as ``sb3:PATH`` has) is asked through
it; any other plug-in factory has its options matched against its signature; the cheap
built-ins are built (and GTP engines started) once.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import sys
import warnings
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import Any, NamedTuple, cast

from goarena.agents import weights
from goarena.agents.protocols import (
    Agent,
    Closeable,
    GameContext,
    UnsupportedGame,
)

ENTRY_POINT_GROUP = "goarena.agents"


class AgentSpecError(ValueError):
    """A spec string that names no player, or options the player does not take."""


# An old option's new name, with how its value becomes the new option's (None: as it is).
Renamed = tuple[str, Callable[[Any], Any] | None]


def renamed_options(
    player: str, old: dict[str, Any], renames: dict[str, Renamed], **new: Any
) -> dict[str, Any]:
    """The options ``new`` (name -> value as given, None when not given), with those that
    ``old`` gives by a deprecated spelling (``renames``: old name -> new name and conversion)
    put under their new names, each with a DeprecationWarning that names the new spelling.

    Every player's old spellings go through here (``uct:playouts=`` is ``simulations=``), so
    they keep working for one release and say what to write instead.

    Raises:
        TypeError: an option ``player`` does not take, or one given by both spellings.
    """
    for name, value in old.items():
        if name not in renames:
            raise TypeError(f"{player} got an unexpected option {name!r}")
        renamed, convert = renames[name]
        if new.get(renamed) is not None:
            raise TypeError(f"{player}: give {renamed}= alone, not both {renamed}= and {name}=")
        warnings.warn(
            f"{player}: the option {name}= is now {renamed}= ({name}= goes in a later release)",
            DeprecationWarning,
            stacklevel=3,
        )
        new[renamed] = convert(value) if convert is not None else value
    return new


class BuiltIn(NamedTuple):
    """A built-in player: its factory, imported only when asked for, what it plays, and how the
    entry configures the factory (its ``configured``, ``players.options.OptionsPlayer``'s):
    other defaults for its options, options it does not take (-> why), and class attributes (a
    network player's ``kind`` of network)."""

    target: str  # "module:factory"
    summary: str  # one line, for the command line's help
    defaults: Mapping[str, Any] = MappingProxyType({})
    fixed: Mapping[str, str] = MappingProxyType({})
    attributes: Mapping[str, Any] = MappingProxyType({})


_NETWORK_PLAYER = "goarena.agents.players.network:NetworkPlayer"

BUILTIN_AGENTS: dict[str, BuiltIn] = {
    "random": BuiltIn("goarena.agents.players.random:RandomAgent", "a uniformly random legal move"),
    "uct": BuiltIn(
        "goarena.agents.players.search:UCTAgent", "UCT search with random or pattern playouts (MC-RAVE too)"
    ),
    "puct": BuiltIn(
        "goarena.agents.players.search:PUCTAgent",
        "PUCT search over priors and values (uniform, playouts, nets)",
    ),
    "minimax": BuiltIn(
        "goarena.agents.players.minimax:MinimaxAgent", "alpha-beta search with iterative deepening"
    ),
    "expectimax": BuiltIn(
        "goarena.agents.players.minimax:ExpectimaxAgent",
        "the best expected move against a model of its opponent",
    ),
    "gtp": BuiltIn("goarena.agents.gtp.client:GTPAgent", "an external GTP engine, run by its command"),
    "sl-policy": BuiltIn(
        _NETWORK_PLAYER,
        "the SL policy network's move",
        {"weights": str(weights.SL_POLICY_9X9), "play": "policy"},
        attributes={"kind": "policy"},
    ),
    "rollout-policy": BuiltIn(
        "goarena.agents.players.rollout:RolloutPolicyAgent", "the fast rollout policy's move"
    ),
    "rl-policy": BuiltIn(
        _NETWORK_PLAYER,
        "the RL policy network's move",
        {"weights": str(weights.RL_POLICY_9X9), "play": "policy"},
        attributes={"kind": "policy"},
    ),
    "value-greedy": BuiltIn(
        _NETWORK_PLAYER,
        "the move whose position the value network likes best",
        {"weights": str(weights.VALUE_9X9), "play": "greedy", "rank": "value"},
        attributes={"kind": "value"},
    ),
    "ownership-greedy": BuiltIn(
        _NETWORK_PLAYER,
        "the move whose position has the best ownership value V",
        {"weights": str(weights.OWNERSHIP_9X9), "play": "greedy", "rank": "score"},
        attributes={"kind": "ownership"},
    ),
    "alphago": BuiltIn(
        "goarena.agents.players.search:PUCTAgent",
        "AlphaGo's search: SL priors, value net and rollouts",
        {
            "evaluator": "pattern",
            "prior": str(weights.SL_POLICY_9X9),
            "value": str(weights.VALUE_9X9),
            "rollout_weights": str(weights.ROLLOUT_9X9),
            "mixing": 0.5,
            "selection": "alphago",
            "c_puct": 5.0,  # the AlphaGo paper's, with Q in [-1, 1] and u = c·P/(1 + N)
        },
        fixed={"evaluator": "alphago's leaves are its networks' and rollout policy's"},
    ),
    "zero": BuiltIn(
        _NETWORK_PLAYER,
        "AlphaZero's search over its dual network",
        {"weights": str(weights.ZERO_9X9), "play": "puct"},
        attributes={"kind": "zero"},
    ),
    "sb3": BuiltIn("goarena.agents.players.sb3:SB3Agent", "a saved MaskablePPO or PPO model"),
    "torch": BuiltIn(
        "goarena.agents.players.policy_player:TorchPlayer",
        "an exported program (.pt2, read as data), or TorchScript with run_code=true",
    ),
}

# Built-ins whose spec is a file's path, then options: name -> an example path.
PATH_SPECS = {"sb3": "runs/ppo/model.zip", "torch": "policy.pt2"}


def parse_options(text: str) -> dict[str, Any]:
    """``"simulations=2000,c=1.4,rave=true"`` -> ``{"simulations": 2000, "c": 1.4, "rave": True}``.

    Values are Python literals where they parse as one (numbers, ``True``/``true``,
    ``None``, quoted strings) and plain strings otherwise; a quoted value may hold commas
    (``weights='runs/a,b/ownership.pt'``).
    """
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in _split_options(text))):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise AgentSpecError(
                f"malformed option {item!r}: expected key=value (quote a value that holds a comma: key='a,b')"
            )
        raw = raw.strip()
        lowered = raw.lower()
        if lowered in ("true", "false"):
            options[key] = lowered == "true"
            continue
        try:
            options[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            options[key] = raw
    return options


def _split_options(text: str) -> list[str]:
    """``text`` split at its commas, except those inside quotes."""
    parts: list[str] = []
    current, quote = "", ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ",":
            parts.append(current)
            current = ""
            continue
        current += char
    if quote:
        raise AgentSpecError(f"unclosed quote in options {text!r}")
    return [*parts, current]


def _load(target: str) -> Callable[..., Agent]:
    module_name, _, attribute = target.partition(":")
    _import_from_working_directory()
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AgentSpecError(f"cannot import {module_name!r} for player {target!r}: {error}") from error
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise AgentSpecError(f"module {module_name!r} has no {attribute!r}") from None


def _import_from_working_directory() -> None:
    """Put the current directory on the import path, first, as ``python -m`` does (a console
    script such as ``goarena`` has its own folder there instead)."""
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.insert(0, here)


def _build(
    factory: Callable[..., Agent],
    spec: str,
    *args: Any,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
) -> Agent:
    options = dict(options or {})
    if seed is not None and "seed" not in options and _takes_seed(factory):
        options["seed"] = seed
    try:
        agent = factory(*args, **options)
    except AgentSpecError:
        raise
    except (TypeError, ValueError) as error:  # an unknown option, or a value the player refuses
        raise AgentSpecError(f"bad options for {spec!r}: {error}{_options_hint(factory, options)}") from error
    if not isinstance(agent, Agent):
        raise AgentSpecError(f"{spec!r} did not build a player (no name/reset/select_move)")
    return agent


def _takes_seed(factory: Callable[..., Agent]) -> bool:
    return "seed" in _signature(factory).parameters


def _options_hint(factory: Callable[..., Agent], options: dict[str, Any]) -> str:
    """ "; its options: ..." when ``options`` names one the player does not take, else ""."""
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    known = [name for name, p in _signature(factory).parameters.items() if p.kind in named]
    if not known or all(name in known for name in options):
        return ""
    return f"; its options: {', '.join(known)}"


def _signature(factory: Callable[..., Agent]) -> inspect.Signature:
    """The factory's signature; one that takes anything when it has none Python can read."""
    try:
        return inspect.signature(factory)
    except (TypeError, ValueError):
        anything = [
            inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
            inspect.Parameter("options", inspect.Parameter.VAR_KEYWORD),
        ]
        return inspect.Signature(anything)


def builtin_name(spec: str) -> str | None:
    """The built-in player (a ``BUILTIN_AGENTS`` key) that ``spec`` names, read as
    ``make_agent`` reads it; None for a plug-in or a ``module:factory`` (``"uct :make"``
    imports a module named ``uct ``, so it names no built-in)."""
    name = spec.strip().partition(":")[0]
    return name if name in BUILTIN_AGENTS else None


def _resolve(spec: str) -> tuple[Callable[..., Agent], tuple[Any, ...], dict[str, Any]]:
    """A spec's factory, with its positional arguments and its options."""
    name, _, rest = spec.partition(":")
    if builtin_name(spec) is None:
        return _plugin(spec)
    if name == "gtp":
        if not rest.strip():
            raise AgentSpecError("gtp needs the engine's command: gtp:gnugo --mode gtp")
        return _load(BUILTIN_AGENTS["gtp"].target), (rest.strip(),), {}
    if name in PATH_SPECS:
        path, _, options = rest.partition(",")
        if not path.strip():
            raise AgentSpecError(f"{name} needs the model's path: {name}:{PATH_SPECS[name]}")
        return builtin_factory(name), (path.strip(),), parse_options(options)
    return builtin_factory(name), (), parse_options(rest)


def builtin_factory(name: str) -> Callable[..., Agent]:
    """The factory of the built-in player ``name``: its target, configured as its entry says
    (the target's ``configured``, ``players.options.OptionsPlayer.configured``: the same class
    each time)."""
    entry = BUILTIN_AGENTS[name]
    factory = _load(entry.target)
    if not (entry.defaults or entry.fixed or entry.attributes):
        return factory
    configure = getattr(factory, "configured", None)  # an options player's (players.options)
    if not callable(configure):
        raise AgentSpecError(f"{entry.target} declares no options to configure as {name!r}")
    return cast(Callable[..., Agent], configure(name, entry.defaults, entry.fixed, **entry.attributes))


def option_help(name: str) -> list[str]:
    """The options of the built-in player ``name``, one line each (``name=default  help``), from
    its options' declaration; [] for a player that declares none."""
    declared = getattr(builtin_factory(name), "Options", None)
    help = getattr(declared, "help", None)
    return list(help()) if callable(help) else []


def _plugin(spec: str) -> tuple[Callable[..., Agent], tuple[Any, ...], dict[str, Any]]:
    """A spec's factory that is no built-in: an entry point's, or ``module:factory``."""
    name, _, rest = spec.partition(":")
    plugins = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    if name in plugins:
        return plugins[name].load(), (), parse_options(rest)
    if rest:
        attribute, _, options = rest.partition(":")
        return _load(f"{name}:{attribute}"), (), parse_options(options)
    known = sorted(BUILTIN_AGENTS) + sorted(plugins)
    raise AgentSpecError(f"unknown player {spec!r}; built-in and plugged-in players: {', '.join(known)}")


def make_agent(spec: str, *, seed: int | None = None) -> Agent:
    """Build a player from a spec string (see the module documentation).

    ``seed`` is passed to players whose factory takes a ``seed`` and whose spec names none,
    so that a league can make its games reproducible.
    """
    spec = spec.strip()
    factory, args, options = _resolve(spec)
    return _build(factory, spec, *args, options=options, seed=seed)


def player_factory(spec: str) -> Callable[..., Agent]:
    """The factory (a class, for every built-in) that builds ``spec``'s player, looked up
    but not called: a built-in's module is goarena's own, a plug-in's is imported."""
    factory, _, _ = _resolve(spec.strip())
    return factory


def player_warmup(spec: str) -> Callable[[int], None] | None:
    """The ``warmup(size)`` that ``spec``'s factory declares (see ``Warmable``), None when it
    declares none; the factory is looked up, not called."""
    factory = player_factory(spec)
    warm = getattr(factory, "warmup", None)
    return warm if callable(warm) else None


def check_spec(spec: str, context: GameContext | None = None) -> None:
    """Check that ``spec`` names a player with options it takes (and, given a ``context``,
    that it plays that game) without loading a network's weights: see the module
    documentation. Raises AgentSpecError saying what is wrong."""
    spec = spec.strip()
    factory, args, options = _resolve(spec)
    check = getattr(factory, "check_options", None)
    try:
        if callable(check):
            check(context, *args, **options)
            return
        if builtin_name(spec) is None:  # a plug-in: its signature alone
            _signature(factory).bind(*args, **options)
            return
    except AgentSpecError:
        raise
    except UnsupportedGame as error:
        raise AgentSpecError(f"{spec!r} cannot play this game: {error}") from error
    except (TypeError, ValueError) as error:
        raise AgentSpecError(f"bad options for {spec!r}: {error}{_options_hint(factory, options)}") from error
    agent = _build(factory, spec, *args, options=options)
    try:
        if context is not None:
            agent.reset(context)
    except UnsupportedGame as error:
        raise AgentSpecError(f"{spec!r} cannot play this game: {error}") from error
    finally:
        if isinstance(agent, Closeable):
            agent.close()
