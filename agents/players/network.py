"""One network player: a network's policy, one ply greedy by its value, or a search over it.

``NetworkPlayer`` plays any network the house has (``agents.nets``), read through one
``NetworkEvaluator`` (``agents.inference``: one feature build and one forward pass per batch
of positions, for all its heads), in one of four ways (``play``):

- ``policy``: the network's policy, its most likely move (``temperature=0``) or one drawn from
  ``p ** (1 / temperature)``. The network learned to pass where the games it learned from
  ended, dead stones and all, so it passes only when the board's count wins for it
  (``playing_on``); otherwise it plays on among its moves that fill no own eye.
- ``greedy``: every legal move played on a copy of the position, and all the children valued in
  one forward pass, each for the opponent who moves there: it plays the child best for it, by
  the network's value (``rank="value"``) or by its score V, the expected final margin
  (``rank="score"``, a network with an ownership head; a win network ranks by its value). A
  child that ends the game (a pass after a pass) is valued by the game's own count.
- ``puct``: ``PUCTAgent`` over the network (tree reuse, a time budget, resignation, analysis).
- ``gumbel``: a deterministic Gumbel search (``search.GumbelSearch``, sequential halving) over
  the game as a batch of one, its improved policy and root value reported; it keeps to its
  simulations and, on a clock (``set_move_time``), plans them from the time it is given.
  Its analysis runs the same search (GTP ``lz-genmove_analyze`` plays what ``genmove`` plays).

``policy`` and ``greedy`` search with PUCT when given ``simulations`` or ``seconds``.

The registry's entries (``agents.specs.BUILTIN_AGENTS``) are this player configured: its
name, the kind of network its weights hold, the shipped weights and its way of playing::

    sl-policy         the SL policy network, play=policy
    rl-policy         the RL policy network, play=policy
    value-greedy      the value network, play=greedy, rank=value
    ownership-greedy  the ownership network, play=greedy, rank=score
    zero              AlphaZero's network, play=puct (200 simulations), play=gumbel too

Its options are ``NetworkOptions`` (``NetworkOptions.help()``). With a network that has an
ownership head, ``act()`` gives the ownership map of the position it moved from, and
``ownership(game)`` gives it alone (``OwnershipAgent``, for GTP ``kata-analyze``).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, cast

import numpy as np

from go_env import Game, GameBatch
from go_env import core as K
from goarena.agents.declared import one_of, option, positive
from goarena.agents.nets.load import load_network
from goarena.agents.players.options import OptionsPlayer, at_least, temperature
from goarena.agents.players.policy import playing_on, playing_on_state
from goarena.agents.players.search import (
    COUNTED_BATCH,
    TIMED_BATCH,
    PUCTAgent,
    SearchOptions,
    analysis_nodes,
    move_info,
    precision,
)
from goarena.agents.protocols import (
    Action,
    GameContext,
    MoveInfo,
    analyze_policy,
    check_board_size,
    game_context,
    move_time,
    restart_seed,
)
from goarena.search import GumbelSearch, Leaves
from goarena.search.settle import black_view
from goarena.search.warmup import warmup_game

PLAYS = ("policy", "greedy", "puct", "gumbel")
RANKS = ("value", "score")
DEFAULT_SIMULATIONS = 200  # a network player's search without simulations= or seconds=
ANALYSIS_CANDIDATES = 20  # moves a greedy player's analysis reports
GUMBEL_ANALYSIS_SIMULATIONS = 1 << 17  # the largest Gumbel search an open-ended analysis runs

# Options that only a search reads (temperature and seed are every way's).
_SEARCH_ONLY = tuple(
    each.name for each in dataclasses.fields(SearchOptions) if each.name not in ("temperature", "seed")
)


@dataclass(frozen=True, kw_only=True)
class NetworkOptions(SearchOptions):
    """A network player's options: its network, its way of playing, and PUCT's search options."""

    simulations: int | None = option(
        None,
        f"simulations per move (default {DEFAULT_SIMULATIONS} when seconds is not given)",
        check=positive,
    )
    temperature: float = option(
        0.0,
        "0 plays the most likely move (the most visited when searching); above 0, moves are drawn in "
        "proportion to p^(1/temperature) (visits^(1/temperature))",
        check=temperature,
    )
    weights: str | None = option(None, "the network's weights file (default: the shipped one)")
    network: Any = option(
        None,
        "a network in memory in place of weights: a module that declares its features and heads "
        "(nets.features; a network in training is read as it is now)",
    )
    play: str = option(
        "policy",
        "policy (its policy's move), greedy (the child of the best value), puct or gumbel (a search); "
        "policy and greedy search with puct given simulations= or seconds=",
        check=one_of(*PLAYS),
    )
    rank: str = option(
        "value",
        "what greedy ranks the children by: value, or score (V, with an ownership head)",
        check=one_of(*RANKS),
    )
    max_considered: int = option(16, "root moves Gumbel search considers", check=at_least(1))
    device: str | None = option(None, "where the network runs (cpu, cuda, cuda:N; default: the game's)")
    precision: str = option(
        "auto",
        "the network's arithmetic: float32, bfloat16, or auto (bfloat16 where the CPU has AVX512-BF16)",
        check=precision,
    )
    score_utility: float = option(
        0.0,
        "KataGo's score utility u: a leaf's value (w + u * 2/pi * atan(score / 2N)) / (1 + u), with a "
        "score or ownership head; 0: the win value alone",
        check=at_least(0.0),
    )
    seed: int | None = option(None, "seed of the move draws and of the search")

    RENAMES = {"search": ("play", None)}  # zero's search=puct|gumbel
    FIRST: ClassVar[tuple[str, ...]] = (
        "weights",
        "play",
        "temperature",
        "simulations",
        "seconds",
        "device",
        "seed",
    )

    @property
    def mode(self) -> str:
        """How it plays: ``play``, where ``policy`` and ``greedy`` given a budget search with PUCT."""
        if self.play in ("policy", "greedy") and (self.simulations is not None or self.seconds is not None):
            return "puct"
        return self.play

    def check(self) -> None:
        if self.mode == "gumbel" and self.seconds is not None:
            raise ValueError("play=gumbel takes a budget in simulations, not seconds")
        if self.mode in ("policy", "greedy"):
            defaults = {each.name: each.default for each in dataclasses.fields(self)}
            given = [name for name in _SEARCH_ONLY if getattr(self, name) != defaults[name]]
            if given:
                names = ", ".join(given)
                raise ValueError(
                    f"{names}: search options need simulations= or seconds= (or play=puct or gumbel)"
                )
        if self.mode == "greedy" and self.play_temperature != 0:
            raise ValueError("play=greedy plays its best child: it takes no temperature")

    @property
    def play_temperature(self) -> float:
        """The temperature of its draws (0: the best move)."""
        return float(self.temperature)

    def searching(self) -> dict[str, Any]:
        """PUCT's options, with a network player's default budget."""
        options = self.search_options()
        options["simulations"] = options["simulations"] or None
        options["temperature"] = self.play_temperature
        if options["simulations"] is None and options["seconds"] is None:
            options["simulations"] = DEFAULT_SIMULATIONS
        if options["batch"] is None:
            options["batch"] = TIMED_BATCH if options["seconds"] is not None else COUNTED_BATCH
        return options


_DEFAULTS = {each.name: each.default for each in dataclasses.fields(NetworkOptions)}


class LoadedNetwork(NamedTuple):
    """A player's network as it reads it: the module the evaluator runs, its board, its digest."""

    model: Any  # a network with heads and features (``nets``), or an adapter (``inference``)
    board_size: int
    digest: str | None  # of its weights (None: a model in memory)


class MoveValues(NamedTuple):
    """Every legal move of a position, and what the network says after each, for the player who
    makes it (a network without an ownership head: ``scores`` and ``ownership`` None)."""

    moves: np.ndarray  # int64[L]: the legal moves, pass included (last)
    scores: np.ndarray | None  # float64[L]: V after each move (the expected final margin)
    values: np.ndarray  # float64[L] in [-1, 1]: the value after each move
    ownership: np.ndarray | None  # float32[N*N]: the position's own ownership map, its side to move's


class NetworkPlayer(OptionsPlayer):
    """A network as a player (see the module documentation); its options are ``NetworkOptions``'.

    A registry entry configures it (``options.configured``): its ``name``, the ``kind`` of
    network its ``weights`` hold (``nets.load.load_network``'s) and the defaults of its options.

    Raises:
        NetworkFileError: the weights are no readable network of its kind.
        ValueError: bad options, or a way of playing its network cannot (policy without a
            policy head, greedy or a search without a value).
    """

    Options = NetworkOptions
    options: NetworkOptions
    positional: ClassVar[tuple[str, ...]] = ("weights",)
    name = "network"
    kind = "zero"  # the network its weights hold
    plays_on: ClassVar[bool] = True  # a policy passes only when the count wins for it (playing_on)
    cache: ClassVar[int] = 1 << 16  # positions whose outputs the evaluator keeps (0: a network that changes)
    heads_needed: ClassVar[dict[str, tuple[str, ...]]] = {
        "policy": ("policy",),
        "greedy": ("value", "ownership"),
        "puct": ("value", "ownership"),
        "gumbel": ("value", "ownership"),
    }

    def __init__(self, *args: Any, **options: Any):
        super().__init__(*args, **options)
        network = self._load(self.options, self.options.device or "cpu")
        self.network = network
        self.board_size = network.board_size
        self.device = self.options.device
        self.seed = self.options.seed
        self.temperature = self.options.play_temperature
        self.rng = np.random.default_rng(self.seed)
        self.mode = self.options.mode
        in_memory = self.options.network is not None  # it may be in training: its outputs are not kept
        # A search's leaves seldom repeat (14 of 12,000 over 30 moves of 400 simulations), and
        # keeping them cost a tenth of its time: only the one-pass ways of playing keep outputs.
        self._cache = 0 if in_memory or self.mode in ("puct", "gumbel") else self.cache
        self.evaluator = self._evaluator(network.model, self._cache)
        self._model = network.model
        self.search: PUCTAgent | None = None
        if self.mode in ("puct", "gumbel"):
            searching = self.options.searching()
            if self.mode == "gumbel":
                searching["seconds"] = None
            self.search = PUCTAgent(evaluator=self.evaluator, **searching)
            self.simulations = self.search.simulations
            if "ownership" in self.heads:  # its dead stones by its own ownership head
                self.search.judge_dead_stones_by(self._black_ownership)
        self._gumbel: GumbelSearch | None = None
        self._gumbel_seed = self.seed
        self._move_time: float | None = None  # Gumbel's time per move (set_move_time)
        self.__class__ = _capable(cast(Any, type(self)), self._absent())

    @classmethod
    def configured(
        cls, name: str, defaults: Any, fixed: Any = None, **attributes: Any
    ) -> type[OptionsPlayer]:
        """This player as a registry entry configures it, offering the protocols of the
        entry's way of playing (what the web board reads from the class)."""
        entry: Any = super().configured(name, defaults, fixed, **attributes)
        play = str(entry.Options.__dataclass_fields__["play"].default)
        absent = set(_ABSENT[play])
        if entry.kind not in _OWNERSHIP_KINDS:
            absent.add("ownership")
        return cast(type[OptionsPlayer], _capable(entry, frozenset(absent)))

    def _absent(self) -> frozenset[str]:
        """The protocol methods its way of playing does not offer: no time per move without a
        search (``MoveTimeAgent``: the callers that see one take it for a search), no policy and
        no batch for greedy (its one-hot choice is no distribution), no ownership map without
        an ownership head (an ownership network's file may hold a win network: it says None)."""
        absent = set(_ABSENT[self.mode])
        if "ownership" not in self.heads and self.kind != "ownership":
            absent.add("ownership")
        return frozenset(absent)

    # -- the network -----------------------------------------------------------------------

    @classmethod
    def _weights(cls, options: NetworkOptions) -> str:
        if options.weights is None:
            raise ValueError(f"{cls.name} needs weights=PATH (a {cls.kind} network's file)")
        return str(options.weights)

    @classmethod
    def _load(cls, options: NetworkOptions, device: str) -> LoadedNetwork:
        """The network, read (on ``device``) and checked for the heads its way of playing needs."""
        module = getattr(options, "network", None)
        if module is not None:
            if options.weights != type(options).__dataclass_fields__["weights"].default:
                raise ValueError("give weights= or network=, not both")
            cls._check_heads(_heads(module), options.mode)
            return LoadedNetwork(module, int(module.board_size), None)
        network = load_network(cls._weights(options), cls.kind, device, options.precision)
        cls._check_heads(_heads(network.model), options.mode)
        return LoadedNetwork(network.model, network.board_size, network.digest)

    @classmethod
    def _check_heads(cls, heads: tuple[str, ...], mode: str) -> None:
        if not set(cls.heads_needed[mode]) & set(heads):
            needed = " or ".join(cls.heads_needed[mode])
            raise ValueError(
                f"{cls.name} cannot play={mode}: its network has no {needed} head (its heads: {heads})"
            )

    def _evaluator(self, model: Any, cache: int = 1 << 16) -> Any:
        """The one evaluator of the network's heads (``inference.NetworkEvaluator``)."""
        from goarena.agents.inference import NetworkEvaluator

        heads = _heads(model)
        return NetworkEvaluator(
            policy=model if "policy" in heads else None,
            value=model if {"value", "ownership"} & set(heads) else None,
            cache=cache,
            score_utility=self.options.score_utility,
        )

    @property
    def model(self) -> Any:
        """The network the player runs."""
        return self._model

    @model.setter
    def model(self, model: Any) -> None:
        """Play another network (of the same heads and board): a stand-in, in tests."""
        self._model = model
        self.evaluator = self._evaluator(model, self._cache)

    @property
    def heads(self) -> tuple[str, ...]:
        return _heads(self._model)

    @classmethod
    def check_files(cls, context: GameContext | None, options: Any) -> None:
        """Check the weights file as the player reads it (and, given a context, the board size
        and the device)."""
        from goarena.agents.nets.predict import player_device

        player_device(options.device, context)
        network = cls._load(options, "cpu")
        if context is not None:
            check_board_size(network.board_size, context.size, f"{cls._what()} was")

    @classmethod
    def _what(cls) -> str:
        """The network as messages name it."""
        return f"the {cls.kind} network"

    def reset(self, context: GameContext) -> None:
        """A new game: refuses a board size the network was not trained for; moves the network
        to the player's device (its own, else the context's); the draws and the search restart
        from the seed (the player's own, else the context's)."""
        self._check_size(game_context(context).size)
        self._move(context)
        seed = restart_seed(self.seed, context)
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._gumbel_seed = seed if seed is not None else self.seed
        self._gumbel = None
        if self.search is not None:
            self.search.reset(context)

    def _move(self, context: GameContext) -> None:
        """Move the network to the player's device (its own, else the context's)."""
        from goarena.agents.nets.predict import move_networks

        move_networks([self._model], self.device, context)

    def weights_digest(self) -> str | None:
        return self.network.digest

    @classmethod
    def warmup(cls, size: int) -> None:
        """Compile the kernels its way of playing runs: the feature planes, the children played
        in a batch, the eye test of ``playing_on``, the searches (see ``Warmable``)."""
        from go_env.features import NUM_HISTORY_PLANES, batch_history_planes
        from go_env.features.alphago import batch_alphago_planes, new_alphago_planes

        game = warmup_game(size)
        leaves = K.GoState(*(field[None] for field in game.state))
        for colour in (False, True):
            batch_alphago_planes(leaves, game.geometry, new_alphago_planes(size, colour, batch=1))
        batch_history_planes(leaves, game.geometry, np.zeros((1, size, size, NUM_HISTORY_PLANES), np.int8))
        play = cls.Options.__dataclass_fields__["play"].default
        if play == "policy":
            playing_on(game, game.legal_mask())
            K.is_eye(game.state, game.geometry, 0, game.to_play)
        count = 2
        children = K.GoState(*(np.repeat(field[None], count, axis=0) for field in game.state))
        K.batch_play(
            children, game.geometry, game.legal_moves()[:count].astype(np.int64), np.empty(count, np.int64)
        )
        K.batch_legal_mask(children, game.geometry, np.empty((count, game.num_points + 1), np.int8))
        K.batch_score(children, game.geometry, np.empty(count, np.float64))
        if play in ("puct", "gumbel") or cls.kind in ("sb3", "function"):  # those search given a budget
            PUCTAgent.warmup(size)
            GumbelSearch(seed=0).search(GameBatch(size, 1), simulations=2)

    # -- what the network says -------------------------------------------------------------

    def _check_size(self, size: int) -> None:
        check_board_size(self.board_size, size, f"{self._what()} was")

    def outputs(self, game: Game) -> Any:
        """The network's ``LeafOutputs`` of ``game``'s position (a batch of one)."""
        self._check_size(game.size)
        return self._leaf_outputs(_leaves(game))

    def _leaf_outputs(self, leaves: Leaves) -> Any:
        """The evaluator's ``LeafOutputs`` of ``leaves``."""
        return self.evaluator.outputs(leaves)

    def _policy_and_value(self, found: Any) -> tuple[np.ndarray, float | None]:
        """The policy (the priors normalised) and the value (None without a value or ownership
        head) of the first position of the ``LeafOutputs`` ``found``."""
        priors = found.priors[0].astype(np.float64)
        total = priors.sum()
        value = float(found.values[0]) if {"value", "ownership"} & set(self.heads) else None
        return (priors / total if total > 0 else priors), value

    def evaluate(self, game: Game) -> tuple[np.ndarray, float | None]:
        """(float64[N*N+1]: the network's policy over the legal moves, its value for the side
        to move or None) of ``game``, without search."""
        return self._policy_and_value(self.outputs(game))

    def ownership(self, game: Game) -> np.ndarray | None:
        """float32[N*N]: the network's ownership map of ``game``'s position, for its side to
        move (``OwnershipAgent``); None from a network without an ownership head."""
        return self._ownership(game)

    def _black_ownership(self, game: Game) -> np.ndarray | None:
        """The ownership map in Black's view, as the pass check reads dead stones off it."""
        found = self._ownership(game)
        return None if found is None else black_view(found, game.to_play)

    def _ownership(self, game: Game) -> np.ndarray | None:
        if "ownership" not in self.heads:
            return None
        found = self.outputs(game).ownership
        return None if found is None else found[0]

    # -- play=policy -------------------------------------------------------------------------

    def _choose(self, state: K.GoState, geometry: K.Geometry, priors: np.ndarray, legal: np.ndarray) -> int:
        """The policy's move in the game of ``state`` among the moves ``playing_on`` weighs,
        at the temperature (a game of a batch needs no ``Game``: ``core.state_item``)."""
        if not legal.any():
            raise ValueError("no legal move to choose: the game is over")
        weighed = playing_on_state(state, geometry, legal) if self.plays_on else legal
        weighed = _without_repeats(state, geometry, weighed)
        weights = priors.astype(np.float64) * weighed
        if not weights.any():  # all underflowed: the moves it weighs, alike
            weights = weighed.astype(np.float64)
        if self.temperature == 0:
            return int(weights.argmax())
        if self.temperature != 1:
            weights = weights ** (1.0 / self.temperature)
        return int(self.rng.choice(len(weights), p=weights / weights.sum()))

    def _policy_action(self, game: Game) -> Action:
        found = self.outputs(game)
        move = self._choose(game.state, game.geometry, found.priors[0], game.legal_mask())
        policy, value = self._policy_and_value(found)
        ownership = None if found.ownership is None else found.ownership[0]
        return Action(move, policy, value, ownership)

    # -- play=greedy -------------------------------------------------------------------------

    def move_values(self, game: Game) -> MoveValues:
        """Every legal move's value (and V) for the side to move, and the position's ownership
        map: the children (and the position itself, with an ownership head) in one forward pass."""
        self._check_size(game.size)
        if game.is_over:
            raise ValueError("the game is over: no move to value")
        moves = game.legal_moves().astype(np.int64)
        count = len(moves)
        own = 1 if "ownership" in self.heads else 0  # row 0: the position itself, for its map
        states = K.GoState(*(np.repeat(field[None], count + own, axis=0) for field in game.state))
        children = K.GoState(*(field[own:] for field in states))
        K.batch_play(children, game.geometry, moves, np.empty(count, np.int64))
        legal = np.empty((count + own, game.num_points + 1), np.int8)
        K.batch_legal_mask(states, game.geometry, legal)
        found = self._leaf_outputs(Leaves(states, legal, game.geometry))
        values = -np.asarray(found.values[own:], np.float64)  # the opponent moves in each child
        scores = None if found.score is None else -np.asarray(found.score[own:], np.float64)
        over = children.info[:, K.INFO_OVER] != K.RUNNING
        if over.any():  # a pass after a pass: the count is known
            margins = np.empty(count, np.float64)
            K.batch_score(children, game.geometry, margins)
            black = 1.0 if game.to_play == K.BLACK else -1.0
            if scores is not None:
                scores[over] = margins[over] * black
            values[over] = np.sign(margins[over]) * black
        ownership = found.ownership[0] if own and found.ownership is not None else None
        return MoveValues(moves, scores, values, ownership)

    def _ranking(self, found: MoveValues) -> np.ndarray:
        """What greedy maximises: V (rank=score, where the network gives it), else the value."""
        if self.options.rank == "score" and found.scores is not None:
            return found.scores
        return found.values

    def _best(self, game: Game, found: MoveValues) -> int:
        """The index in ``found`` of the best move; ranked by V, the pass where passing keeps it."""
        ranking = np.where(np.isin(found.moves, game.repeating_moves()), -np.inf, self._ranking(found))
        best = int(np.argmax(ranking))
        keeps = self.options.rank == "score" and ranking[-1] >= ranking[best]
        if found.moves[-1] == game.pass_move and keeps:
            best = len(found.moves) - 1
        return best

    def _greedy_action(self, game: Game) -> Action:
        found = self.move_values(game)
        best = self._best(game, found)
        policy = np.zeros(game.num_points + 1)
        policy[found.moves[best]] = 1.0
        return Action(int(found.moves[best]), policy, float(found.values[best]), found.ownership)

    def _greedy_analysis(self, game: Game, report: Callable[[list[MoveInfo]], None]) -> int:
        found = self.move_values(game)
        best = self._best(game, found)
        ranking = self._ranking(found)
        order = [best, *(int(i) for i in np.argsort(-ranking, kind="stable") if i != best)]
        prior = 1.0 / len(found.moves)
        infos = []
        for i in order[:ANALYSIS_CANDIDATES]:
            move, winrate = int(found.moves[i]), (float(found.values[i]) + 1.0) / 2.0
            lead = None if found.scores is None else float(found.scores[i])
            infos.append(MoveInfo(move, 1, winrate, prior, winrate, (move,), lead))
        report(infos)
        return int(found.moves[best])

    # -- play=gumbel -------------------------------------------------------------------------

    def _gumbel_action(
        self,
        game: Game,
        simulations: int | None = None,
        timed: bool = True,
        stop: Callable[[], bool] | None = None,
        report: Callable[[list[MoveInfo]], None] | None = None,
        interval: float = 1.0,
    ) -> Action:
        """The Gumbel search's move of ``game``: ``simulations`` (default: its own) planned
        within its move's time where it has one (``timed``), until ``stop()``, its candidates
        to ``report`` about every ``interval`` seconds."""
        started = time.perf_counter()
        self._check_size(game.size)
        if self._gumbel is None:
            self._gumbel = GumbelSearch(
                self.evaluator,
                seed=self._gumbel_seed,
                max_considered=self.options.max_considered,
                gumbel=False,
            )
        search = self._gumbel
        batch = GameBatch(game.size, 1, game.rules)
        K.copy_into(K.state_item(batch.state, 0), game.state)
        seconds = None
        if timed and self._move_time is not None:
            seconds = max(self._move_time - (time.perf_counter() - started), 1e-3)
        heard = None
        if report is not None:
            heard = lambda: report([move_info(c) for c in search.candidates()])  # noqa: E731
        budget = cast(int, self.simulations) if simulations is None else simulations
        found = search.search(batch, budget, seconds=seconds, stop=stop, report=heard, interval=interval)
        move = int(found[0])
        policy = search.policy_targets()[0]
        if game.repeats_position(move):  # the best improved-policy move that does not
            weighed = _without_repeats(game.state, game.geometry, game.legal_mask())
            move = int(np.argmax(np.where(weighed, policy, -1.0)))
        return Action(move, policy, float(search.root_values()[0]))

    def _gumbel_ponder(
        self, game: Game, stop: Callable[[], bool], report: Callable[[list[MoveInfo]], None], interval: float
    ) -> int:
        """Open-ended analysis with Gumbel search: the search ``genmove`` runs, then searches
        twice as large (sequential halving plans a whole budget, so each starts afresh), up to
        ``GUMBEL_ANALYSIS_SIMULATIONS`` and ``analysis_nodes``; the reports show the larger of
        the last finished search and the one under way. Returns the last finished one's move."""
        budget = cast(int, self.simulations)
        cap = max(min(GUMBEL_ANALYSIS_SIMULATIONS, analysis_nodes(game.num_points + 1)), budget)
        finished: list[MoveInfo] = []
        latest: list[MoveInfo] = []
        move = None

        def shown(infos: list[MoveInfo]) -> None:
            latest[:] = infos
            visits = sum(info.visits for info in infos)
            report(finished if sum(info.visits for info in finished) > visits else infos)

        while True:
            found = self._gumbel_action(game, budget, False, stop, shown, interval).move
            if stop():
                return found if move is None else move
            move, finished = found, list(latest)
            if budget >= cap:
                return move
            budget = min(2 * budget, cap)

    # -- the player --------------------------------------------------------------------------

    def act(self, game: Game) -> Action:
        """The move, the policy behind it (the search's visits or improved policy; greedy's
        one-hot), its value for the side to move, and the position's ownership map."""
        if self.mode == "policy":
            return self._policy_action(game)
        if self.mode == "greedy":
            return self._greedy_action(game)
        action = (
            self._gumbel_action(game) if self.mode == "gumbel" else cast(PUCTAgent, self.search).act(game)
        )
        return dataclasses.replace(action, ownership=self._ownership(game))

    def select_move(self, game: Game) -> int:
        if self.mode == "puct":
            return cast(PUCTAgent, self.search).select_move(game)
        return self.act(game).move

    def policy(self, game: Game) -> np.ndarray:
        """float64[N*N+1]: the network's move distribution (the search's when searching)."""
        if self.mode == "puct":
            return cast(PUCTAgent, self.search).policy(game)
        if self.mode in ("greedy", "gumbel"):
            return cast(np.ndarray, self.act(game).policy)
        return self.evaluate(game)[0]

    def select_moves(self, batch: GameBatch) -> np.ndarray:
        """The move ``select_move`` would play in each game of ``batch`` (``BatchAgent``): the
        policy's from one forward pass over all of them, a search's over all of them at once."""
        self._check_size(batch.size)
        if self.mode == "puct":
            return cast(PUCTAgent, self.search).select_moves(batch)
        if self.mode == "policy":
            legal = batch.legal_masks()
            found = self._leaf_outputs(Leaves(batch.state, legal, batch.geometry))
            states = (K.state_item(batch.state, b) for b in range(batch.batch_size))
            return np.array(
                [
                    self._choose(state, batch.geometry, found.priors[b], legal[b])
                    for b, state in enumerate(states)
                ],
                np.int64,
            )
        return np.array([self.select_move(batch.game(b)) for b in range(batch.batch_size)], np.int64)

    def observe_move(self, game: Game, move: int) -> None:
        if self.mode == "puct":
            cast(PUCTAgent, self.search).observe_move(game, move)

    def set_move_time(self, seconds: float | None) -> None:
        """A cap on each move's time (``MoveTimeAgent``): the PUCT search's, or Gumbel's (which
        plans its simulations from it); the others' moves take one forward pass."""
        self._move_time = move_time(seconds)
        if self.search is not None:
            self.search.set_move_time(seconds)

    def analyze(
        self, game: Game, stop: Callable[[], bool], report: Callable[[list[MoveInfo]], None], interval: float
    ) -> int:
        """GTP ``lz-analyze``: the search's candidates (Gumbel's for ``gumbel``: the move it
        plays first), greedy's best children (the one played first), or the policy's (no search);
        a search's candidates carry the network's score lead after each move (``_with_leads``)."""
        report = self._with_leads(game, report)
        if self.mode == "gumbel":
            return self._gumbel_action(game, stop=stop, report=report, interval=interval).move
        if self.search is not None:
            return self.search.analyze(game, stop, report, interval)
        if self.mode == "greedy":
            return self._greedy_analysis(game, report)
        return analyze_policy(self.evaluate(game)[0], report)

    def ponder(
        self, game: Game, stop: Callable[[], bool], report: Callable[[list[MoveInfo]], None], interval: float
    ) -> int:
        """Open-ended analysis (GTP ``lz-analyze`` until the next command): a search past the
        player's budget (PUCT's tree grows, Gumbel's searches double; see ``PUCTAgent.ponder``
        and ``_gumbel_ponder``), else ``analyze``."""
        report = self._with_leads(game, report)
        if self.mode == "gumbel":
            return self._gumbel_ponder(game, stop, report, interval)
        if self.search is not None:
            return self.search.ponder(game, stop, report, interval)
        return self.analyze(game, stop, report, interval)

    def _with_leads(
        self, game: Game, report: Callable[[list[MoveInfo]], None]
    ) -> Callable[[list[MoveInfo]], None]:
        """``report``, with each search candidate's ``score_lead`` set to the network's estimate
        of the mover's margin after that move (``move_values``: its children in one forward pass,
        made at the first report; not averaged over the tree as KataGo's scoreLead is). As it
        is for a network without a score, and for greedy (whose candidates have theirs)."""
        if self.search is None and self.mode != "gumbel":
            return report
        leads: dict[int, float] | None = None

        def with_leads(infos: list[MoveInfo]) -> None:
            nonlocal leads
            if leads is None:
                found = self.move_values(game)
                leads = {}
                if found.scores is not None:
                    leads = dict(zip(found.moves.tolist(), found.scores.tolist(), strict=True))
            report(
                [
                    dataclasses.replace(info, score_lead=leads.get(info.move, info.score_lead))
                    for info in infos
                ]
            )

        return with_leads


# What each way of playing does not offer of the players' protocols (see ``_absent``).
_ABSENT = {
    "policy": ("set_move_time",),
    "greedy": ("set_move_time", "policy", "select_moves"),
    "puct": (),
    "gumbel": (),
}


_CAPABILITIES = ("set_move_time", "policy", "select_moves", "ownership")
_OWNERSHIP_KINDS = ("ownership", "zero")  # the networks that have an ownership head (or say None)


@functools.cache
def _capable(player: type, absent: frozenset[str]) -> type:
    """``player`` with the protocol methods ``absent`` set to None, which the runtime protocol
    checks read as absent (``isinstance(player, PolicyAgent)`` is False without ``policy``),
    and the others its own (a class made for another way of playing may have hidden them)."""
    namespace: dict[str, Any] = {}
    for name in _CAPABILITIES:
        own = next(base.__dict__[name] for base in player.__mro__ if base.__dict__.get(name) is not None)
        namespace[name] = None if name in absent else own
    namespace.update(__module__=player.__module__, __doc__=player.__doc__)
    return type(player.__name__, (player,), namespace)


def _without_repeats(state: K.GoState, geometry: K.Geometry, moves: np.ndarray) -> np.ndarray:
    """The mask ``moves`` (int8[N*N+1]) less the moves that recreate an earlier whole board
    of the game of ``state``: a positional-superko referee forfeits them, whatever the game's
    ko rule."""
    repeating = np.empty(len(moves), np.int8)
    K.repeating_mask(state, geometry, repeating)
    if not repeating.any():
        return moves
    moves = np.where(repeating != 0, 0, moves).astype(moves.dtype)
    if not moves.any():
        moves[-1] = 1  # the pass never repeats, and is legal while the game runs
    return moves


def _heads(model: Any) -> tuple[str, ...]:
    """The heads a network declares (``nets``: policy, value, ownership)."""
    return tuple(getattr(model, "heads", ()))


def _leaves(game: Game) -> Leaves:
    return Leaves(K.GoState(*(field[None] for field in game.state)), game.legal_mask()[None], game.geometry)
