"""Random-play speed of goarena against PettingZoo's ``go_v5`` and OpenSpiel's ``go``, in one run.

Every runner plays whole games of uniformly random legal moves for a fixed time and
reports moves per second. The Python-driven runners share one driver loop per API, so
the figures compare the engines, not the loops. The in-numba playouts pick uniformly among
legal moves that fill no own eye (passing when there is none), as search uses them.

    goarena bench env
    goarena bench env --sizes 9 --seconds 1 --json

``goarena``'s ``Game`` and AEC env, ``go_v5`` and OpenSpiel, the rows the targets compare, are
timed in turns (``interleaved_rates``), so that a load on the machine that comes and goes falls
on all of them alike. Per-call costs come after, in microseconds of CPU time, as the peers' own
tables give them: ``play`` (OpenSpiel's ``apply_action``, an AEC env's ``step``),
``legal_moves`` (``legal_actions``) and ``observe`` (``observation_tensor``, an AEC env's
``observe``), each timed over the same recorded random games replayed, less the replay
without it. goarena's ``play`` writes the
next legal mask and list in its own kernel call, so its ``legal_moves`` only copies them out.

A batch of games stepped in lock step is measured too: by the fused kernel that draws each
game's move from given probabilities and plays it, and by the same step from Python (legal
masks, a numpy draw per game, play), both against the in-numba playouts.

OpenSpiel is optional (``pip install 'goarena[peers]'``); a missing peer is reported and skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

import numba
import numpy as np

from go_env import Game, Rules
from go_env import core as K
from go_env.aec import env as aec_env
from go_env.batch import GameBatch
from goarena.benchmarks.bench import add_seconds, rate

# Moves replayed for the per-call costs (go_v5, about 100 times slower, replays a twentieth).
CALL_COST_MOVES = 20_000


@dataclass
class Measurement:
    name: str
    size: int
    moves_per_second: float | None
    note: str = ""


def core_python_loop(size: int, seconds: float) -> float:
    """The rules core driven move by move from Python through ``Game``: a legal move chosen,
    played; ``play`` answers the legal moves after it (none once the game is over)."""
    return rate(_core_game(size), seconds)


def _core_game(size: int) -> Callable[[], int]:
    """One random game driven through ``Game`` (``core_python_loop``); returns its moves."""
    rng = random.Random(0)

    def game() -> int:
        game = Game(size)
        legal = game.legal_moves()
        while len(legal):
            legal = game.play(int(legal[rng.randrange(len(legal))]))
        return game.move_number

    return game


def interleaved_rates(
    works: dict[str, Callable[[], int]], seconds: float, turns: int = 6
) -> dict[str, float]:
    """Units per second of each of ``works`` (as ``rate``), timed in turns: ``turns`` slices of
    ``seconds / turns`` each, one runner after the other, so that a load on the machine that
    comes and goes falls on every runner alike and the ratios between them hold."""
    for work in works.values():
        work()  # warm up: compiling, caches
    done = dict.fromkeys(works, 0)
    spent = dict.fromkeys(works, 0.0)
    for _ in range(turns):
        for name, work in works.items():
            start = time.perf_counter()
            while (elapsed := time.perf_counter() - start) < seconds / turns:
                done[name] += work()
            spent[name] += elapsed
    return {name: done[name] / spent[name] for name in works}


def numba_playouts(size: int, seconds: float, threads: int = 1) -> float:
    """Whole random playouts inside numba: one core, or a batch over ``threads`` cores."""
    geometry = K.make_geometry(size)
    rules = Rules().kernel_rules(size)  # positional superko, area scoring, komi 7.5
    root = K.new_state(size, *rules)
    previous_threads = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        if threads == 1:
            scratch = K.copy_state(root)
            rng = np.array([12345], np.uint64)
            return rate(lambda: K.random_playouts(root, geometry, scratch, 64, rng)[0], seconds)
        batch_size = 64 * threads
        batch = K.new_state(size, *rules, batch=batch_size)
        moves_out = np.zeros(batch_size, np.int64)
        seeds = np.arange(1, batch_size + 1, dtype=np.int64)

        def batch_game() -> int:
            seeds[:] += batch_size
            K.batch_reset(batch, geometry, np.array(rules, np.int64))
            K.batch_random_playout(batch, geometry, seeds, moves_out)
            return int(moves_out.sum())

        return rate(batch_game, seconds)
    finally:
        numba.set_num_threads(previous_threads)


def batch_stepping(size: int, seconds: float, threads: int, fused: bool) -> float:
    """Whole games in a ``GameBatch`` of ``64 · threads`` stepped in lock step, each move drawn
    uniformly among the legal ones (pass included): by the fused sample-and-play kernel, or
    with legal masks, a numpy draw per game and ``play``."""
    batch_size = 64 * threads
    batch = GameBatch(size, batch_size, seed=0)
    uniform = np.ones((batch_size, batch.num_actions))
    rng = np.random.default_rng(0)
    previous_threads = numba.get_num_threads()
    numba.set_num_threads(threads)

    def lockstep() -> None:
        masks = batch.legal_masks()
        moves = np.array([rng.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in masks])
        batch.play(moves)

    def batch_games() -> int:
        batch.reset()
        while not batch.is_over.all():
            if fused:
                batch.sample_and_play(uniform)
            else:
                lockstep()
        return int(batch.state.info[:, K.INFO_MOVE_NUMBER].sum())

    try:
        return rate(batch_games, seconds)
    finally:
        numba.set_num_threads(previous_threads)


def aec_loop(make_env: Callable[[], object], seconds: float) -> float:
    """The PettingZoo AEC loop with masked random actions, identical for every AEC env.

    The action is drawn with Python's ``random`` rather than ``action_space(agent).sample(mask)``,
    whose ``Generator.choice`` alone costs about as much as a whole step of our env.
    """
    return rate(_aec_game(make_env), seconds)


def _aec_game(make_env: Callable[[], object]) -> Callable[[], int]:
    """One game of ``aec_loop``'s loop on a new env; returns its moves."""
    env = make_env()
    env.reset(seed=0)  # type: ignore[attr-defined]
    rng = random.Random(0)

    def game() -> int:
        env.reset()  # type: ignore[attr-defined]
        moves = 0
        for _agent in env.agent_iter():  # type: ignore[attr-defined]
            observation, _, termination, truncation, _ = env.last()  # type: ignore[attr-defined]
            if termination or truncation:
                env.step(None)  # type: ignore[attr-defined]
                continue
            legal = observation["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))  # type: ignore[attr-defined]
            moves += 1
        return moves

    return game


def openspiel_loop(size: int, seconds: float) -> float:
    """OpenSpiel's C++ ``go`` driven from Python through its state API."""
    return rate(_openspiel_game(size), seconds)


def _openspiel_game(size: int) -> Callable[[], int]:
    """One game of ``openspiel_loop``'s loop; returns its moves."""
    import pyspiel

    game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
    rng = random.Random(0)

    def one_game() -> int:  # the loop of ``core_python_loop``, through this API
        state = game.new_initial_state()
        moves = 0
        legal = state.legal_actions()
        while legal:  # none once the game is over
            state.apply_action(legal[rng.randrange(len(legal))])
            legal = state.legal_actions()
            moves += 1
        return moves

    return one_game


@dataclass
class CallCost:
    """Microseconds per call of one implementation's ``play``, ``legal_moves`` and ``observe``
    (``None`` where it has no such call)."""

    name: str
    size: int
    play: float | None
    legal_moves: float | None = None
    observe: float | None = None
    note: str = ""


@dataclass
class _Api:
    """How to drive one implementation move by move: a new game, the legal moves of a
    position (for recording random games), a move, and the calls timed after each move."""

    new: Callable[[], Any]
    legal: Callable[[Any], Any]
    play: Callable[[Any, int], None]
    calls: dict[str, Callable[[Any], object]]


def _record(api: _Api, min_moves: int, seed: int = 0) -> list[list[int]]:
    """Random games played with ``api`` until ``min_moves`` moves in all, as move lists."""
    rng = random.Random(seed)
    games: list[list[int]] = []
    total = 0
    while total < min_moves:
        state, moves = api.new(), []
        while len(legal := api.legal(state)):
            move = int(legal[rng.randrange(len(legal))])
            api.play(state, move)
            moves.append(move)
        games.append(moves)
        total += len(moves)
    return games


def _replay_seconds(api: _Api, games: list[list[int]], call: Callable[[Any], object] | None) -> float:
    """CPU seconds of this process to replay ``games`` on new games (``call`` after every move
    but the last, which ends the game), the new games' own cost left out."""
    states = [api.new() for _ in games]
    play = api.play
    start = time.process_time()
    for state, moves in zip(states, games, strict=True):
        for move in moves[:-1]:
            play(state, move)
            if call is not None:
                call(state)
        play(state, moves[-1])
    return time.process_time() - start


def call_costs(name: str, size: int, api: _Api, min_moves: int) -> CallCost:
    """µs per ``play`` and per each of ``api.calls``, over recorded random games replayed."""
    games = _record(api, min_moves)
    moves = sum(len(moves) for moves in games)
    calls = moves - len(games)
    _replay_seconds(api, games[:1], None)  # warm up: compiling, caches
    # The best of five, the replays with and without each call in turns (CPU time: what the
    # machine's other work takes is left out).
    best: dict[str | None, float] = {}
    for _ in range(5):
        for what, call in [(None, None), *api.calls.items()]:
            seconds = _replay_seconds(api, games, call)
            best[what] = min(best.get(what, seconds), seconds)
    plays = best[None]
    costs = {what: (best[what] - plays) / calls * 1e6 for what in api.calls}
    return CallCost(name, size, plays / moves * 1e6, costs.get("legal_moves"), costs.get("observe"))


def _game_api(size: int) -> _Api:
    return _Api(
        new=lambda: Game(size),
        legal=lambda game: game.legal_moves(),
        play=lambda game, move: game.play(move),
        calls={"legal_moves": lambda game: game.legal_moves(), "observe": lambda game: game.observe()},
    )


def _aec_api(make_env: Callable[[], Any]) -> _Api:
    """An AEC env, ``step`` as its play and ``observe`` of the agent to move as its observe."""

    def new() -> Any:
        env = make_env()
        env.reset(seed=0)
        return env

    def legal(env: Any) -> np.ndarray:
        observation, _, termination, truncation, _ = env.last()
        return np.zeros(0, np.int64) if termination or truncation else observation["action_mask"].nonzero()[0]

    return _Api(
        new=new,
        legal=legal,
        play=lambda env, move: env.step(move),
        calls={"observe": lambda env: env.observe(env.agent_selection)},
    )


def _openspiel_api(size: int) -> _Api:
    import pyspiel

    game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
    return _Api(
        new=game.new_initial_state,
        legal=lambda state: [] if state.is_terminal() else state.legal_actions(),
        play=lambda state, move: state.apply_action(move),
        calls={
            "legal_moves": lambda state: state.legal_actions(),
            "observe": lambda state: state.observation_tensor(),
        },
    )


def run_call_costs(size: int, min_moves: int) -> list[CallCost]:
    """Per-call costs of goarena's ``Game`` and AEC env, OpenSpiel's state API and ``go_v5``."""
    costs = [
        call_costs("goarena Game", size, _game_api(size), min_moves),
        call_costs(
            "goarena AEC env (step, observe)", size, _aec_api(partial(aec_env, board_size=size)), min_moves
        ),
    ]
    try:
        costs.append(call_costs("OpenSpiel go (state API)", size, _openspiel_api(size), min_moves))
    except ImportError as error:
        costs.append(CallCost("OpenSpiel go (state API)", size, None, note=f"skipped: {error}"))
    try:
        from pettingzoo.classic import go_v5

        api = _aec_api(partial(go_v5.env, board_size=size))
        costs.append(call_costs("PettingZoo go_v5 (step, observe)", size, api, max(1, min_moves // 20)))
    except ImportError as error:
        costs.append(CallCost("PettingZoo go_v5 (step, observe)", size, None, note=f"skipped: {error}"))
    return costs


def _compared(size: int, seconds: float) -> list[Measurement]:
    """``Game`` driven from Python, the AEC env, ``go_v5`` and OpenSpiel's state API, timed in
    turns (``interleaved_rates``): the rows the targets compare."""
    works = {
        "goarena Game, Python-driven": _core_game(size),
        "goarena AEC env": _aec_game(partial(aec_env, board_size=size)),
    }
    skipped: dict[str, str] = {}
    try:
        from pettingzoo.classic import go_v5

        works["PettingZoo classic go_v5"] = _aec_game(partial(go_v5.env, board_size=size))
    except ImportError as error:
        skipped["PettingZoo classic go_v5"] = f"skipped: {error}"
    try:
        works["OpenSpiel go (state API)"] = _openspiel_game(size)
    except ImportError as error:
        skipped["OpenSpiel go (state API)"] = f"skipped: {error}; pip install 'goarena[peers]'"
    speeds = interleaved_rates(works, 4 * seconds)  # four runners' time, shared in turns
    names = [
        "goarena Game, Python-driven",
        "goarena AEC env",
        "PettingZoo classic go_v5",
        "OpenSpiel go (state API)",
    ]
    return [
        Measurement(name, size, speeds[name])
        if name in speeds
        else Measurement(name, size, None, skipped[name])
        for name in names
    ]


def run(sizes: list[int], seconds: float) -> list[Measurement]:
    results: list[Measurement] = []
    cores = os.cpu_count() or 1
    for size in sizes:
        compared = {m.name: m for m in _compared(size, seconds)}
        results.append(compared["goarena Game, Python-driven"])
        results.append(Measurement("goarena playouts in numba, 1 core", size, numba_playouts(size, seconds)))
        for threads in sorted({2, cores}):
            speed = numba_playouts(size, seconds, threads=threads)
            results.append(Measurement(f"goarena batched playouts, {threads} threads", size, speed))
        for threads in (1, 2):
            speed = batch_stepping(size, seconds, threads, fused=True)
            name = f"goarena batch sample-and-play, {threads} thread{'s' if threads > 1 else ''}"
            results.append(Measurement(name, size, speed))
        speed = batch_stepping(size, seconds, 2, fused=False)
        results.append(Measurement("goarena batch masks + numpy + play, 2 threads", size, speed))
        names = ("goarena AEC env", "PettingZoo classic go_v5", "OpenSpiel go (state API)")
        results.extend(compared[name] for name in names)
    return results


def _speed(results: list[Measurement], name: str, size: int) -> float | None:
    return next((m.moves_per_second for m in results if m.name == name and m.size == size), None)


def report(results: list[Measurement], costs: Sequence[CallCost] = ()) -> str:
    lines = []
    for size in sorted({m.size for m in results}):
        ours = _speed(results, "goarena AEC env", size)
        lines.append(f"\n{size}x{size} random play")
        lines.append(f"  {'implementation':46s} {'moves/s':>12s} {'goarena AEC / this':>20s}")
        for m in (m for m in results if m.size == size):
            if m.moves_per_second is None:
                lines.append(f"  {m.name:46s} {m.note}")
                continue
            ratio = f"{ours / m.moves_per_second:.2f}x" if ours else "-"
            lines.append(f"  {m.name:46s} {m.moves_per_second:12,.0f} {ratio:>20s}")
    for size in sorted({c.size for c in costs}):
        lines.append(f"\n{size}x{size} cost per call (µs)")
        lines.append(f"  {'implementation':46s} {'play':>8s} {'legal_moves':>12s} {'observe':>8s}")
        for c in (c for c in costs if c.size == size):
            if c.play is None:
                lines.append(f"  {c.name:46s} {c.note}")
                continue
            cells = [f"{v:.2f}" if v is not None else "-" for v in (c.play, c.legal_moves, c.observe)]
            lines.append(f"  {c.name:46s} {cells[0]:>8s} {cells[1]:>12s} {cells[2]:>8s}")
    lines.append("\nTargets")
    for size in sorted({m.size for m in results}):
        aec, pz = _speed(results, "goarena AEC env", size), _speed(results, "PettingZoo classic go_v5", size)
        playouts = _speed(results, "goarena playouts in numba, 1 core", size)
        spiel = _speed(results, "OpenSpiel go (state API)", size)
        driven = _speed(results, "goarena Game, Python-driven", size)
        if aec and pz:
            lines.append(f"  {size}x{size}: AEC env / PettingZoo go_v5 = {aec / pz:6.1f}x  (target 25x)")
        if driven and spiel:
            ratio = f"{driven / spiel:6.2f}x"
            lines.append(f"  {size}x{size}: Game, Python-driven / OpenSpiel state API = {ratio}  (target 1x)")
        for threads, plural in ((1, ""), (2, "s")):
            fused = _speed(results, f"goarena batch sample-and-play, {threads} thread{plural}", size)
            in_kernel = _speed(
                results,
                "goarena playouts in numba, 1 core"
                if threads == 1
                else "goarena batched playouts, 2 threads",
                size,
            )
            if fused and in_kernel:
                lines.append(
                    f"  {size}x{size}: batch sample-and-play / in-kernel playouts = {fused / in_kernel:6.2f}x"
                    f"  ({threads} thread{plural})"
                )
        fused = _speed(results, "goarena batch sample-and-play, 2 threads", size)
        stepped = _speed(results, "goarena batch masks + numpy + play, 2 threads", size)
        if fused and stepped:
            gain = fused / stepped
            lines.append(
                f"  {size}x{size}: batch sample-and-play / masks + numpy + play = {gain:6.1f}x  (2 threads)"
            )
        if playouts and spiel:
            lines.append(
                f"  {size}x{size}: numba playouts / OpenSpiel = {playouts / spiel:6.1f}x  (target 10x on 9x9)"
            )
    return "\n".join(lines)


def show(sizes: list[int], seconds: float, as_json: bool) -> None:
    """``goarena bench env``: measure and print the tables (or JSON)."""
    results = run(sizes, seconds)
    costs = [cost for size in sizes for cost in run_call_costs(size, CALL_COST_MOVES)]
    if as_json:
        measured = {"random_play": [asdict(m) for m in results], "per_call_us": [asdict(c) for c in costs]}
        print(json.dumps(measured, indent=2))
    else:
        print(report(results, costs))


# -- the command: ``goarena bench env`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench env``."""
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19], help="board sizes (default 9 19)")
    add_seconds(parser, 3.0)
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")


def command(args: argparse.Namespace) -> None:
    """``goarena bench env``: measure and print."""
    show(args.sizes, args.seconds, args.json)
