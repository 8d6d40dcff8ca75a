"""The one interface every player implements, and building players from spec strings.

A player is anything with a ``name``, ``reset(rules)`` and ``select_move(game) -> int``
(the ``Agent`` protocol). Two optional capabilities are protocols of their own, checked
with ``isinstance``: ``PolicyAgent`` (``policy(game)``, a move distribution) and
``MoveObserver`` (``observe_move(game, move)``, told of every move played, both sides).
Players that hold resources (an engine subprocess) also have ``close()`` (``Closeable``);
engines that pass with dead stones on the board capture them on request (``CleanupPlayer``)
and name them (``StatusReporter``);
search players can stream their live analysis (``AnalysisAgent``, for GTP ``lz-analyze``).

Spec strings name a player and its options, as leagues and the command line take them:

==========================================  ==============================================
spec                                        player
==========================================  ==============================================
``random``                                  a built-in by name
``uct:playouts=2000,c=1.4``                 a built-in with options (``key=value``, commas)
``gtp:gnugo --mode gtp --level 10``         an external GTP engine: the rest is its command
``mypackage.players:make_player``           ``module:factory``, called with the options
``mypackage.players:make_player:depth=3``   ... and options after a second colon
``myplayer``                                a ``goarena.agents`` entry point's factory
==========================================  ==============================================
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

import numpy as np

from go_env import Game, Rules

ENTRY_POINT_GROUP = "goarena.agents"

# What ``select_move`` returns to resign. Moves are 0..N*N-1 and N*N (pass).
RESIGN = -1


@runtime_checkable
class Agent(Protocol):
    """A player. ``select_move`` must not change ``game``; it returns a legal move or RESIGN."""

    name: str

    def reset(self, rules: Rules) -> None: ...

    def select_move(self, game: Game) -> int: ...


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


class AgentSpecError(ValueError):
    """A spec string that names no player, or options the player does not take."""


# Built-in players: spec name -> "module:factory", imported only when asked for.
BUILTIN_AGENTS: dict[str, str] = {
    "random": "agents.random_agent:RandomAgent",
    "uct": "agents.mcts_agents:UCTAgent",
    "puct": "agents.mcts_agents:PUCTAgent",
    "minimax": "agents.minimax_agents:MinimaxAgent",
    "expectimax": "agents.minimax_agents:ExpectimaxAgent",
    "gtp": "agents.gtp:GTPAgent",
}


def parse_options(text: str) -> dict[str, Any]:
    """``"playouts=2000,c=1.4,rave=true"`` -> ``{"playouts": 2000, "c": 1.4, "rave": True}``.

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
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AgentSpecError(f"cannot import {module_name!r} for player {target!r}: {error}") from error
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise AgentSpecError(f"module {module_name!r} has no {attribute!r}") from None


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
    try:
        return "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


def make_agent(spec: str, *, seed: int | None = None) -> Agent:
    """Build a player from a spec string (see the module documentation).

    ``seed`` is passed to players whose factory takes a ``seed`` and whose spec names none,
    so that a league can make its games reproducible.
    """
    spec = spec.strip()
    name, _, rest = spec.partition(":")
    if name == "gtp":
        if not rest.strip():
            raise AgentSpecError("gtp needs the engine's command: gtp:gnugo --mode gtp")
        return _build(_load(BUILTIN_AGENTS["gtp"]), spec, rest.strip())
    if name in BUILTIN_AGENTS:
        return _build(_load(BUILTIN_AGENTS[name]), spec, options=parse_options(rest), seed=seed)
    plugins = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    if name in plugins:
        return _build(plugins[name].load(), spec, options=parse_options(rest), seed=seed)
    if rest:
        attribute, _, options = rest.partition(":")
        return _build(_load(f"{name}:{attribute}"), spec, options=parse_options(options), seed=seed)
    known = sorted(BUILTIN_AGENTS) + sorted(plugins)
    raise AgentSpecError(f"unknown player {spec!r}; built-in and plugged-in players: {', '.join(known)}")
