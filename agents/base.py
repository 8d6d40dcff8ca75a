"""The one interface every player implements, and building players from spec strings.

A player is anything with a ``name``, ``reset(context)`` and ``select_move(game) -> int``
(the ``Agent`` protocol). ``reset`` starts a game; its ``GameContext`` says which (board
size, rules, the player's colour), the seed the player's random generator restarts from,
and where a network player runs (``device``) and may write (``run_dir``). A player refuses
a game it cannot play (a network trained for 9x9 asked for 19x19) by raising
``UnsupportedGame`` there. Every caller (a league, the referee, the GTP engine, the
Gymnasium env) builds a player once and resets it with a context before each game.

Players written before contexts, whose ``reset(rules)`` reads the rules' fields from what it
is given, keep working for now: a ``GameContext`` answers ``context.komi`` (and every other
field of ``Rules``) from ``context.rules``, with a ``DeprecationWarning`` that says to read
``context.rules.komi``. The built-in players refuse a bare ``Rules`` with a ``TypeError``.

Optional capabilities are protocols of their own, checked with ``isinstance``:
``PolicyAgent`` (``policy(game)``, a move distribution), ``Actor`` (``act(game)``, the move
with the policy and value behind it), ``MoveObserver`` (``observe_move(game, move)``, told
of every move played, both sides) and ``WeightedAgent`` (``weights_digest()``, the sha256
of its weights, which leagues record beside its spec).
Players that hold resources (an engine subprocess) also have ``close()`` (``Closeable``);
engines that pass with dead stones on the board capture them on request (``CleanupPlayer``)
and name them (``StatusReporter``);
search players can stream their live analysis (``AnalysisAgent``, for GTP ``lz-analyze``).

A player declares the numba kernels it needs compiled by a ``warmup(size)`` static or class
method on its factory (``Warmable``): it runs them on a small position, without loading any
weights. ``player_warmup(spec)`` finds it from a spec string; the league, ``goarena warmup``
and ``goarena gtp`` call it before the first timed move, so that a cold numba cache costs
start-up time, not a game lost on time.

Spec strings name a player and its options, as leagues and the command line take them:

==========================================  ==============================================
spec                                        player
==========================================  ==============================================
``random``                                  a built-in by name
``uct:simulations=2000,c=1.4``              a built-in with options (``key=value``, commas)
``gtp:gnugo --mode gtp --level 10``         an external GTP engine: the rest is its command
``sb3:runs/ppo/model.zip,simulations=200``  a Stable-Baselines3 model: its path, then options
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
import hashlib
import importlib
import inspect
import os
import sys
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from go_env import Game, Rules
from go_env.game import RESIGN as RESIGN  # players import it from here

ENTRY_POINT_GROUP = "goarena.agents"


class UnsupportedGame(ValueError):
    """A player cannot play the game it is asked to (its board size or rules)."""


def check_board_size(trained: int, asked: int, weights: str = "the network was") -> None:
    """Refuse (``UnsupportedGame``) an ``asked`` x ``asked`` game to a player whose ``weights``
    (named with their verb in the message) were made for ``trained`` x ``trained``."""
    if trained != asked:
        raise UnsupportedGame(f"{weights} trained for {trained}x{trained}, not {asked}x{asked}")


@dataclass(frozen=True)
class GameContext:
    """What a player learns at ``reset``: the game it is about to play, and how to play it.

    Attributes:
        size: board size.
        rules: the rules.
        seed: the seed to restart the player's random generator from (players built with a
            seed of their own keep to it); None keeps the generator running.
        color: the player's colour (BLACK or WHITE), None when it plays both or is unknown.
        device: where a network runs (``"cpu"``, ``"cuda"``, ``"cuda:1"``).
        run_dir: a directory the player may write to (logs, caches), if any.
        dead_stones_removed: whether a game ended by two passes has its dead stones taken
            off before the count (by agreement, an arbiter or a clean-up phase: a league
            with an engine, GTP under Chinese or Japanese rules, KGS); False: the board is
            counted as it stands (Tromp-Taylor), so a player must capture dead stones itself.
    """

    size: int
    rules: Rules
    seed: int | None = None
    color: int | None = None
    device: str = "cpu"
    run_dir: Path | None = None
    dead_stones_removed: bool = False

    def __getattr__(self, name: str) -> Any:
        """A field of ``Rules`` (``context.komi``), for players written for ``reset(rules)``:
        deprecated, read ``context.rules`` instead."""
        rules = self.__dict__.get("rules")  # absent while unpickling: never recurse
        if name in _RULES_ATTRIBUTES and rules is not None:
            warnings.warn(
                f"reset(context) is given a GameContext, not Rules: read context.rules.{name} "
                f"rather than context.{name} (Rules' fields on a GameContext go in a later release)",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(rules, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


# What a reset(rules) player may read from its argument (see GameContext.__getattr__).
_RULES_ATTRIBUTES = frozenset(f.name for f in fields(Rules)) | {"move_cap", "kernel_rules", "to_dict"}


def game_context(context: object) -> GameContext:
    """``context``, checked to be a ``GameContext``: a built-in player's ``reset`` refuses
    anything else (a bare ``Rules`` from a caller written before contexts) with a TypeError
    that names the fix."""
    if isinstance(context, GameContext):
        return context
    if isinstance(context, Rules):
        raise TypeError("reset takes a GameContext, not Rules: call player.reset(GameContext(size, rules))")
    raise TypeError(f"reset takes a GameContext, got {type(context).__name__}")


@runtime_checkable
class Agent(Protocol):
    """A player. ``select_move`` must not change ``game``; it returns a legal move or RESIGN."""

    name: str

    def reset(self, context: GameContext) -> None: ...

    def select_move(self, game: Game) -> int: ...


def restart_seed(own: int | None, context: GameContext) -> int | None:
    """The seed a player restarts its random generator from at ``reset``: its own, else the
    context's; None (no seed anywhere) keeps the generator running."""
    return own if own is not None else game_context(context).seed


@runtime_checkable
class Warmable(Protocol):
    """A player (or its factory) that declares the numba kernels it needs compiled."""

    @staticmethod
    def warmup(size: int) -> None:
        """Run every kernel the player uses on a small ``size`` x ``size`` position (they
        serve every size), loading no weights: numba compiles them, or loads them from its
        cache, now rather than in the player's first timed move."""
        ...


@dataclass(frozen=True)
class Action:
    """A move with what the player based it on: for analysis, training targets, the web board."""

    move: int  # a point, N*N (pass) or RESIGN
    policy: np.ndarray | None = None  # float[N*N+1], the move distribution (sums to 1)
    value: float | None = None  # the position's value for the side to move, in [-1, 1]


@runtime_checkable
class Actor(Protocol):
    def act(self, game: Game) -> Action:
        """What ``select_move(game)`` would do (and counts as that call), with its reasons."""
        ...


@runtime_checkable
class WeightedAgent(Protocol):
    def weights_digest(self) -> str | None:
        """The sha256 (hex) of the player's weights, None when it has none."""
        ...


def weights_digest(paths: Iterable[Path | str]) -> str:
    """The sha256 (hex) of the files at ``paths``, in order: a player's weights digest."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


@runtime_checkable
class PolicyAgent(Protocol):
    def policy(self, game: Game) -> np.ndarray:
        """float[N*N + 1]: the player's move distribution in ``game`` (sums to 1)."""
        ...


@runtime_checkable
class MoveObserver(Protocol):
    def observe_move(self, game: Game, move: int) -> None:
        """``move`` was just played in ``game`` (by either side); e.g. to reuse a search tree."""
        ...


@runtime_checkable
class Closeable(Protocol):
    def close(self) -> None: ...


@runtime_checkable
class StatusReporter(Protocol):
    def final_status_list(self, game: Game, status: str) -> list[int]:
        """The points of the stones judged ``alive``, ``dead`` or ``seki`` in ``game``
        (GTP's ``final_status_list``)."""
        ...


@runtime_checkable
class CleanupPlayer(Protocol):
    def cleanup_move(self, game: Game) -> int:
        """A move of the clean-up phase after both passed: dead stones must be captured
        before the area count (GTP's ``kgs-genmove_cleanup``). Players that play their games
        out anyway need not have it."""
        ...


@dataclass(frozen=True)
class MoveInfo:
    """One candidate move of a search's live analysis (as GTP ``lz-analyze`` reports it)."""

    move: int  # 0..N*N-1, or N*N for pass
    visits: int
    winrate: float  # for the side to move, 0..1
    prior: float  # 0..1
    lcb: float  # lower confidence bound of the winrate, 0..1
    pv: tuple[int, ...]  # principal variation, starting with ``move``


@runtime_checkable
class AnalysisAgent(Protocol):
    def analyze(
        self,
        game: Game,
        stop: Callable[[], bool],
        report: Callable[[list[MoveInfo]], None],
        interval: float,
    ) -> int:
        """Search ``game`` until ``stop()`` is true (or the player's own budget runs out when
        ``stop`` never fires), calling ``report`` with the candidates, best first, about every
        ``interval`` seconds; return the move the search would play."""
        ...


def analyze_policy(policy: np.ndarray, report: Callable[[list[MoveInfo]], None]) -> int:
    """``AnalysisAgent.analyze`` for a player without search, whose budget is spent at once:
    one report of its policy's candidates (prior above 0.1%, at most 20, best first) with 0
    visits and no win rate estimate (reported as 50%, lcb 0); returns the best."""
    order = np.argsort(-policy, kind="stable")
    shown = [int(move) for move in order[:20] if policy[move] > 0.001] or [int(order[0])]
    report([MoveInfo(move, 0, 0.5, float(policy[move]), 0.0, (move,)) for move in shown])
    return shown[0]


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


# Built-in players: spec name -> "module:factory", imported only when asked for.
BUILTIN_AGENTS: dict[str, str] = {
    "random": "goarena.agents.random_agent:RandomAgent",
    "uct": "goarena.agents.mcts_agents:UCTAgent",
    "puct": "goarena.agents.mcts_agents:PUCTAgent",
    "minimax": "goarena.agents.minimax_agents:MinimaxAgent",
    "expectimax": "goarena.agents.minimax_agents:ExpectimaxAgent",
    "gtp": "goarena.agents.gtp.client:GTPAgent",
    "sl-policy": "goarena.agents.policy_agents:SLPolicyAgent",
    "rollout-policy": "goarena.agents.rollout_agent:RolloutPolicyAgent",
    "rl-policy": "goarena.agents.policy_agents:RLPolicyAgent",
    "value-greedy": "goarena.agents.value_agent:ValueGreedyAgent",
    "alphago": "goarena.agents.alphago_agent:AlphaGoAgent",
    "sb3": "goarena.agents.sb3:SB3Agent",
}


def parse_options(text: str) -> dict[str, Any]:
    """``"simulations=2000,c=1.4,rave=true"`` -> ``{"simulations": 2000, "c": 1.4, "rave": True}``.

    Values are Python literals where they parse as one (numbers, ``True``/``true``,
    ``None``, quoted strings) and plain strings otherwise.
    """
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise AgentSpecError(f"malformed option {item!r}: expected key=value")
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
        raise AgentSpecError(f"bad options for {spec!r}: {error}") from error
    if not isinstance(agent, Agent):
        raise AgentSpecError(f"{spec!r} did not build a player (no name/reset/select_move)")
    return agent


def _takes_seed(factory: Callable[..., Agent]) -> bool:
    return "seed" in _signature(factory).parameters


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


def _resolve(spec: str) -> tuple[Callable[..., Agent], tuple[Any, ...], dict[str, Any]]:
    """A spec's factory, with its positional arguments and its options."""
    name, _, rest = spec.partition(":")
    if name == "gtp":
        if not rest.strip():
            raise AgentSpecError("gtp needs the engine's command: gtp:gnugo --mode gtp")
        return _load(BUILTIN_AGENTS["gtp"]), (rest.strip(),), {}
    if name == "sb3":
        path, _, options = rest.partition(",")
        if not path.strip():
            raise AgentSpecError("sb3 needs the model's path: sb3:runs/ppo/model.zip")
        return _load(BUILTIN_AGENTS["sb3"]), (path.strip(),), parse_options(options)
    if name in BUILTIN_AGENTS:
        return _load(BUILTIN_AGENTS[name]), (), parse_options(rest)
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


def player_warmup(spec: str) -> Callable[[int], None] | None:
    """The ``warmup(size)`` that ``spec``'s factory declares (see ``Warmable``), None when it
    declares none; the factory is looked up, not called."""
    factory, _, _ = _resolve(spec.strip())
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
        if spec.partition(":")[0] not in BUILTIN_AGENTS:  # a plug-in: its signature alone
            _signature(factory).bind(*args, **options)
            return
    except AgentSpecError:
        raise
    except UnsupportedGame as error:
        raise AgentSpecError(f"{spec!r} cannot play this game: {error}") from error
    except (TypeError, ValueError) as error:
        raise AgentSpecError(f"bad options for {spec!r}: {error}") from error
    agent = _build(factory, spec, *args, options=options)
    try:
        if context is not None:
            agent.reset(context)
    except UnsupportedGame as error:
        raise AgentSpecError(f"{spec!r} cannot play this game: {error}") from error
    finally:
        if isinstance(agent, Closeable):
            agent.close()
