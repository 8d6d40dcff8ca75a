"""Tree-search players: ``UCTAgent`` (random or pattern playouts) and ``PUCTAgent`` (an evaluator's priors).

Both are ``Agent``, ``PolicyAgent`` (the root's visit distribution), ``Actor`` (the move
with that distribution and the root's value), ``MoveObserver`` (the search tree follows the
moves played, for reuse) and ``AnalysisAgent`` (live candidates for GTP ``lz-analyze``).
``PUCTAgent`` is a ``BatchAgent`` too: it searches many games at once over ``BatchedPUCT``
(one evaluator call per step for all of them), as ``GoVectorEnv``'s opponent.
Their options are plain keywords, so spec strings reach them all::

    uct:simulations=2000,c=1.4,rave=true
    uct:seconds=1.5,reuse=false
    uct:simulations=1000,rollout_weights=rollout.npz          # the rollout policy's playouts
    uct:simulations=3000,resign_threshold=None                # plays every game out
    uct:pass_check=false                                      # passes by the raw count
    puct:simulations=800,evaluator=rollout,batch=16
    puct:prior=policy.pt,evaluator=pattern,rollout_weights=rollout.npz   # networks' priors
    puct:prior=uniform,value=ownership.pt                     # the ownership value V as the leaf value
    puct:noise=0.25,temperature=1.0,temperature_moves=30,seed=7     # self-play

A player searches each position once: ``policy`` and then ``select_move`` on the same
position share one search. It resigns once its best move's win rate has stayed below
``resign_threshold`` (5%) for ``resign_moves`` (3) of its moves in a row; callers that need
games played out (self-play targets, scoring studies) pass ``resign_threshold=None``.

Under a clock, the GTP engine gives each move a budget (``set_move_time``, the
``MoveTimeAgent`` protocol): the search then stops at the first of the budget (counted from
the call, settling dead stones included), ``seconds`` and ``simulations``, so that
``uct:simulations=100000`` plays as fast as the clock asks.

Where a game ended by two passes has its dead stones taken off before the count (the
context's ``dead_stones_removed``: a league with an engine, GTP under Chinese or Japanese
rules), a search that values two passes by the raw count would pass while its own dead stones
stand in the other side's area. There, an ownership map of each position (its network's where
the player has one with an ownership head, ``judge_dead_stones_by``; else playouts,
``search.settle``) says which stones are dead: the search scores the games that finish in its
tree without them, and before passing the player judges the settled score and plays on while
its count rests on dead stones of its own. Counted as the board stands (Tromp-Taylor, or a
clean-up phase under way), it passes only when it wins both by that count and without its own
dead stones, since an opponent or a referee may judge them itself (GNU Go's count does); a
player with a network passes only where the playouts agree with its ownership.
Before any pass it captures the other side's dead stones in its own area that are in atari
(under area scoring, every dead stone it can take off without risk: it costs nothing), so
that no judge can read the board either way (``search.settle.settling_move``); it resigns only
when the board is lost by both counts too. It never plays a move that recreates an earlier
whole board, whatever the ko rule (the search leaves them out at its root): a referee that
enforces positional superko forfeits it.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np

from go_env import Game, GameBatch
from go_env import core as K
from go_env.features import NUM_HISTORY_PLANES, batch_history_planes
from go_env.features.patterns import PatternPolicy
from goarena.agents.declared import option, positive
from goarena.agents.nets.load import Network, check_sizes, load_network
from goarena.agents.players.options import OptionsPlayer, PlayerOptions, at_least, temperature
from goarena.agents.protocols import (
    RESIGN,
    Action,
    GameContext,
    MoveInfo,
    game_context,
    move_time,
    restart_seed,
)
from goarena.agents.specs import Renamed
from goarena.search import (
    PUCT,
    UCT,
    BatchedPUCT,
    Candidate,
    Evaluator,
    LeafValues,
    Leaves,
    MixedEvaluator,
    RolloutEvaluator,
    TreeSearch,
    UniformEvaluator,
)
from goarena.search.rollout import PatternRolloutEvaluator
from goarena.search.settle import (
    PassCheck,
    best_move_but_pass,
    clean_up_under_way,
    fills_seki,
    settling_move,
)
from goarena.search.warmup import warmup_game

if TYPE_CHECKING:  # torch is imported only by players that load a network
    from goarena.agents.nets.ownership import OwnershipNet, WinNet
    from goarena.agents.nets.policy import PolicyNet
    from goarena.agents.nets.value import ValueNet

EvaluatorSpec = str | Evaluator | Callable[[Leaves], tuple[np.ndarray, np.ndarray]]
EVALUATORS = ("uniform", "rollout", "pattern")
UNIFORM = "uniform"  # prior=uniform: uniform priors in place of a policy network's
UCT_RENAMES: dict[str, Renamed] = {"playouts": ("simulations", None)}  # deprecated spellings
_LEAST_SEARCH = 0.001  # seconds: a search whose move's time is spent still runs its first chunk
# The most memory the tree of an open-ended analysis (``ponder``) may take, a tree being grown
# (its old and new arrays) included: live analysis runs until the controller says stop.
ANALYSIS_TREE_BYTES = 1 << 30


def analysis_nodes(num_actions: int) -> int:
    """The most nodes an open-ended analysis's tree may hold over ``num_actions`` moves: a node
    holds a child and a prior, or a child and RAVE's pair, per move (12 bytes at most), and a
    tree that grows holds its old arrays and new ones twice as large for a moment."""
    return max(ANALYSIS_TREE_BYTES // (3 * (12 * num_actions + 32)), 1024)


def _check_evaluator(evaluator: EvaluatorSpec, rollout_weights: str | None) -> None:
    if isinstance(evaluator, str) and evaluator not in EVALUATORS:
        raise ValueError(f"unknown evaluator {evaluator!r}: {', '.join(EVALUATORS)}, or an Evaluator")
    if evaluator == "pattern" and rollout_weights is None:
        raise ValueError("evaluator=pattern needs rollout_weights=PATH (a rollout.npz)")


def _check_value(prior: str | None, value: str | None, mixing: float) -> None:
    if not 0.0 <= mixing <= 1.0:
        raise ValueError(f"mixing is AlphaGo's λ, in [0, 1], got {mixing}")
    if value is not None and prior is None:
        raise ValueError("value=PATH needs prior=PATH (a policy network) or prior=uniform")


def _with_networks(
    leaves: EvaluatorSpec,
    evaluator: EvaluatorSpec,
    policy: PolicyNet | None,
    value: ValueNet | OwnershipNet | WinNet | None,
    mixing: float,
) -> Evaluator:
    """Priors from the policy network (uniform without one); values from the value network
    (an ownership network's: its V's win probability; a win network's: its w), the evaluator's
    playouts, or AlphaGo's blend of both (``mixing`` = λ). The networks are one
    ``NetworkEvaluator``: each leaf batch's planes are made once per kind for both."""
    from goarena.agents.inference import NetworkEvaluator

    playouts = None if evaluator == "uniform" else cast(LeafValues, leaves)
    if playouts is not None and mixing == 1.0:
        value = None  # the playouts alone
    if policy is None and value is None:
        return UniformEvaluator(playouts)
    network = NetworkEvaluator(policy, value, values=None if value is not None else playouts)
    if value is not None and playouts is not None and mixing > 0.0:
        return MixedEvaluator(network, playouts, mixing)
    return network


def _value_kind(path: str) -> str:
    """What value=PATH holds: "ownership" for an ownership network (its value V), else
    "value" (AlphaGo's value network; a bad file is refused by that load, with its message)."""
    from goarena.agents.nets.checkpoint import describe

    try:
        return "ownership" if describe(path)[0] == "ownership" else "value"
    except Exception:  # unreadable: the load that follows says what is wrong
        return "value"


def _rollout_policy(path: str | None, networks: list[Network]) -> PatternPolicy | None:
    """The rollout policy at ``path`` (None without one), added to ``networks``."""
    if path is None:
        return None
    networks.append(load_network(path, "rollout"))
    return networks[-1].model


def move_info(candidate: Candidate) -> MoveInfo:
    """A search candidate as analysis reports it: win rate in [0, 1] for the side to move,
    and the lower bound of its 95% Wilson score interval as ``lcb``."""
    winrate = (candidate.value + 1.0) / 2.0
    n, z2 = candidate.visits, 1.96**2
    centre = winrate + z2 / (2 * n)
    spread = math.sqrt(z2 * (winrate * (1.0 - winrate) / n + z2 / (4 * n * n)))
    return MoveInfo(
        move=candidate.move,
        visits=n,
        winrate=winrate,
        prior=candidate.prior,
        lcb=max(0.0, (centre - spread) / (1.0 + z2 / n)),
        pv=candidate.pv,
    )


def _without_repeats(batch: GameBatch, moves: np.ndarray, visits: np.ndarray) -> np.ndarray:
    """``moves`` (int64[B]), each that recreates an earlier whole board of its game replaced
    by the game's most visited legal move that does not (``visits``: int[B, A])."""
    for b in np.flatnonzero(moves < batch.size * batch.size):
        state = K.state_item(batch.state, int(b))
        if K.repeats_position(state, batch.geometry, int(moves[b])):
            legal, repeating = np.empty((2, visits.shape[1]), np.int8)
            K.legal_mask(state, batch.geometry, legal)
            K.repeating_mask(state, batch.geometry, repeating)
            moves[b] = int(np.argmax(np.where((legal == 1) & (repeating == 0), visits[b], -1)))
    return moves


class _SearchAgent:
    """What the search players share: budgets, one search per position, analysis, resigning.

    The searcher is made by ``make_searcher(seed)``, again at each ``reset`` that restarts
    the random generators (see ``agents.protocols.restart_seed``).
    """

    name: str
    device: str | None = None  # a network player's own device; None: the game context's
    _dead_stones_removed = False  # the game's, from its context
    _passes: PassCheck | None = None
    _judged: tuple[tuple, np.ndarray] | None = None  # a position and its ownership (Black's view)
    _network_ownership: Callable[[Game], np.ndarray | None] | None = None  # see judge_dead_stones_by
    _played_out: tuple[tuple, np.ndarray] | None = None  # a position and its playouts' ownership
    _modules: tuple = ()  # its torch networks, moved to its device at each reset
    _move_time: float | None = None  # a cap on each move's time from outside (set_move_time)

    def __init__(
        self,
        make_searcher: Callable[[int | None], TreeSearch],
        options: TreeSearchOptions,
        simulations: int,
        networks: list[Network],
    ):
        """``options``, checked; ``simulations`` the budget when neither it nor seconds is given."""
        self._make_searcher = make_searcher
        self.seed = options.seed
        self.searcher = make_searcher(self.seed)
        given = options.simulations
        self.simulations = simulations if given is None and options.seconds is None else given
        self.seconds = options.seconds
        self.resign_threshold = options.resign_threshold
        self.resign_moves = options.resign_moves
        self._losing = 0  # consecutive moves whose best win rate was below the threshold
        self._searched: tuple | None = None  # the position of the last search
        self._networks = networks  # each network the player uses (sizes checked at reset)
        self._digests = [network.digest for network in self._networks]
        self.pass_check = options.pass_check

    @staticmethod
    def _position(game: Game) -> tuple:
        return (game.size, game.rules, tuple(game.setup_black), tuple(game.setup_white), tuple(game.moves))

    def set_move_time(self, seconds: float | None) -> None:
        """Answer each move within ``seconds`` from its call, its own budget still capping it
        (``agents.protocols.MoveTimeAgent``; the GTP engine's budget from the clock); None:
        its own budget alone."""
        self._move_time = move_time(seconds)

    def _seconds(self, started: float) -> float | None:
        """The search's time: the player's own ``seconds``, capped by the move's time less what
        the move has spent since ``started`` (settling its dead stones)."""
        if self._move_time is None:
            return self.seconds
        left = max(self._move_time - (time.perf_counter() - started), _LEAST_SEARCH)
        return left if self.seconds is None else min(self.seconds, left)

    def _search(self, game: Game) -> None:
        position = self._position(game)
        if position != self._searched:
            started = time.perf_counter()
            self._settle(game)
            self.searcher.search(game, simulations=self.simulations, seconds=self._seconds(started))
            self._searched = position

    def _settle(self, game: Game) -> None:
        """Where the game's dead stones are taken off before the count, the search scores the
        games that finish in its tree without the stones the ownership of ``game`` judges
        dead; else by the raw count."""
        owner = None
        if self.pass_check and self._dead_stones_removed:
            owner = self._pass_check().owner(self._ownership_of(game))
        self.searcher.settle_finished_games(owner)

    def judge_dead_stones_by(self, ownership: Callable[[Game], np.ndarray | None]) -> None:
        """Read the dead stones off ``ownership(game)`` (float[N*N], Black's view: a network's
        ownership head, ``search.settle.black_view``), playouts only where it gives None."""
        self._network_ownership = ownership
        self._judged = None

    def _pass_check(self) -> PassCheck:
        if self._passes is None:
            self._passes = PassCheck(seed=self.seed)
        return self._passes

    def _ownership_of(self, game: Game) -> np.ndarray:
        """float64[N*N], Black's view: who ends up owning each point of ``game``, by the
        player's network where it has one, else by playouts; kept for the position."""
        position = self._position(game)
        if self._judged is None or self._judged[0] != position:
            found = None if self._network_ownership is None else self._network_ownership(game)
            ownership = self._playout_ownership(game) if found is None else np.asarray(found, np.float64)
            self._judged = (position, ownership)
        return self._judged[1]

    def _temperature(self, game: Game) -> float:
        return 0.0

    def weights_digest(self) -> str | None:
        """The digest of the networks' weights (None without any)."""
        return "+".join(self._digests) or None

    def reset(self, context: GameContext) -> None:
        """A new game; the search restarts from the context's seed (or its own), if any, and
        the networks move to the player's device (its own, else the context's).

        Raises:
            UnsupportedGame: the player's networks were trained for another board size.
            ValueError: the device is unsupported or absent.
        """
        check_sizes(self._networks, game_context(context).size)
        if self._modules:
            from goarena.agents.nets.predict import move_networks

            move_networks(self._modules, self.device, context)
        seed = restart_seed(self.seed, context)
        if seed is None:
            self.searcher.reset()
        else:
            self.searcher = self._make_searcher(seed)
        self._dead_stones_removed = game_context(context).dead_stones_removed
        if seed is not None or self._passes is None:
            self._passes = PassCheck(seed=seed)
        self._searched = None
        self._judged = None
        self._losing = 0

    def select_move(self, game: Game) -> int:
        self._search(game)
        if self.resign_threshold is not None and self._resigns(game):
            return RESIGN
        move = self.searcher.choose_move(self._temperature(game))
        if self.pass_check and (move == game.pass_move or self._fills_seki_in_clean_up(game, move)):
            move = self._instead_of_passing(game)
        return move

    @staticmethod
    def _fills_seki_in_clean_up(game: Game, move: int) -> bool:
        """Whether ``move`` fills a seki's shared liberty in a clean-up phase, where it plays
        as GTP's ``kgs-genmove_cleanup`` does: a referee's clean-up asks it for moves."""
        return clean_up_under_way(game) and fills_seki(game, move)

    def _resigns(self, game: Game) -> bool:
        """Whether to resign: the best move's win rate has stayed under the threshold for
        ``resign_moves`` moves, and the board is lost by both counts (``PassCheck.lost``)."""
        best = self.searcher.best_move()
        losing = (self.searcher.values()[best] + 1.0) / 2.0 < cast(float, self.resign_threshold)
        self._losing = self._losing + 1 if losing else 0
        return self._losing >= self.resign_moves and self._pass_check().lost(game, self._ownership_of(game))

    def _instead_of_passing(self, game: Game) -> int:
        """Where the search would pass: first a move that takes the other side's dead stones
        off (those in atari; every one under area scoring, where it costs nothing), then the
        pass if the counts allow it (``PassCheck.pass_is_safe``) by every judge it has (a
        network's ownership and the playouts: against GNU Go level 10 the network alone let
        dead stones of its own through), or where the game is lost by every count; else the
        best other move."""
        ownership, check = self._ownership_of(game), self._pass_check()
        captures_only = game.rules.scoring != "area"
        settling = settling_move(game, ownership, check.threshold, captures_only=captures_only)
        if settling is not None:
            return settling
        as_it_stands = not self._dead_stones_removed or clean_up_under_way(game)
        judges = [ownership]
        if self._network_ownership is not None:  # the playouts too: each misreads what the other may not
            judges.append(self._playout_ownership(game))
        if all(check.pass_is_safe(game, judged, as_it_stands=as_it_stands) for judged in judges):
            return game.pass_move
        if all(check.lost(game, judged) for judged in judges):
            return game.pass_move  # lost however it is counted: more moves only give stones away
        return best_move_but_pass(game, self.searcher)

    def _playout_ownership(self, game: Game) -> np.ndarray:
        """``game``'s ownership by the pass check's playouts, kept for the position."""
        position = self._position(game)
        if self._played_out is None or self._played_out[0] != position:
            self._played_out = (position, self._pass_check().ownership(game))
        return self._played_out[1]

    def act(self, game: Game) -> Action:
        """The move, the root's visit distribution, and the root's value for the side to
        move (its moves' values weighted by their visits)."""
        move = self.select_move(game)
        visits = self.searcher.visit_counts()
        value = float(visits @ self.searcher.values() / max(int(visits.sum()), 1))
        return Action(move, self.searcher.visit_distribution(), value)

    def policy(self, game: Game) -> np.ndarray:
        """float64[N*N+1]: the root's visit distribution (the training target of self-play)."""
        self._search(game)
        return self.searcher.visit_distribution()

    def observe_move(self, game: Game, move: int) -> None:
        self._searched = None  # the tree's root moves on: the last search's answer is stale
        if self.searcher.reuse and not game.is_over:
            self.searcher.sync(game)

    def analyze(
        self,
        game: Game,
        stop: Callable[[], bool],
        report: Callable[[list[MoveInfo]], None],
        interval: float,
    ) -> int:
        """Search until ``stop()`` or the player's budget, reporting the candidates as it goes."""
        started = time.perf_counter()
        self._settle(game)
        move = self.searcher.search(
            game,
            simulations=self.simulations,
            seconds=self._seconds(started),
            stop=stop,
            report=lambda candidates: report([move_info(c) for c in candidates]),
            interval=interval,
        )
        self._searched = self._position(game)
        return move

    def ponder(
        self,
        game: Game,
        stop: Callable[[], bool],
        report: Callable[[list[MoveInfo]], None],
        interval: float,
    ) -> int:
        """Live analysis as KataGo's: search until ``stop()``, past the player's own budget
        (its tree grows chunk by chunk, kept for the position), up to ``analysis_nodes`` nodes;
        report the candidates about every ``interval`` seconds and at the end. The next move's
        search on the position builds on the tree."""
        self._settle(game)
        cap = analysis_nodes(game.num_points + 1)
        searcher = self.searcher

        def done() -> bool:
            return stop() or (searcher.tree is not None and int(searcher.tree.num_nodes[0]) >= cap)

        return searcher.search(
            game,
            stop=done,
            report=lambda candidates: report([move_info(c) for c in candidates]),
            interval=interval,
        )


def win_rate(name: str, value: float | None) -> str | None:
    """In (0, 1) (None passes: never)."""
    return None if value is None or 0.0 < value < 1.0 else f"{name} is a win rate in (0, 1), got {value}"


@dataclass(frozen=True, kw_only=True)
class TreeSearchOptions(PlayerOptions):
    """The options every tree-search player takes (``uct``; ``puct`` and the players that search
    with it, through ``SearchOptions``): the time per move (each search says what its
    ``simulations`` count), keeping the tree, resigning and the pass check; the budget is listed
    first (``FIRST``)."""

    FIRST: ClassVar[tuple[str, ...]] = ("simulations", "seconds")

    simulations: int | None = option(None, "simulations per move", check=positive)
    seconds: float | None = option(
        None, "time per move; with simulations too, the first limit reached ends the search", check=positive
    )
    reuse: bool = option(True, "keep the search tree of the moves played between searches")
    resign_threshold: float | None = option(
        0.05, "resign when the best move's win rate stays below it (None: never)", check=win_rate
    )
    resign_moves: int = option(3, "... for this many of the player's moves in a row", check=positive)
    pass_check: bool = option(
        True,
        "before passing, capture the dead stones in its area; where dead stones are taken off before "
        "the count, pass only if the count without its own dead ones is no worse, and counted as the "
        "board stands only if it wins both ways (by its network's ownership and playouts: "
        "search.settle.PassCheck)",
    )
    seed: int | None = option(None, "seed of the search's random generator")


@dataclass(frozen=True, kw_only=True)
class UCTOptions(TreeSearchOptions):
    """``uct``'s options."""

    simulations: int | None = option(
        None, "playouts per move (default 1000 when seconds is not given)", check=positive
    )
    c: float = option(0.5, "exploration constant (values in [-1, 1])")
    rave: bool = option(False, "blend in all-moves-as-first values (MC-RAVE)")
    rave_equivalence: float = option(
        1000.0, "RAVE's k, the visits at which a move's own and AMAF values weigh the same"
    )
    rollout_weights: str | None = option(
        None, "the rollout policy's weights (rollout.npz): playouts draw their moves from it"
    )

    RENAMES = UCT_RENAMES


class UCTAgent(_SearchAgent, OptionsPlayer):
    """UCT with random or pattern playouts (see ``search.uct``); its options are
    ``UCTOptions``' (``playouts``, the old name of ``simulations``, is deprecated)."""

    Options = UCTOptions
    positional = (
        "simulations",
        "seconds",
        "c",
        "rave",
        "rave_equivalence",
        "rollout_weights",
        "reuse",
        "resign_threshold",
        "resign_moves",
        "pass_check",
        "seed",
    )  # as it took them before its declaration
    options: UCTOptions
    name = "uct"

    def __init__(self, *args: Any, **options: Any):
        OptionsPlayer.__init__(self, *args, **options)
        o = self.options
        networks: list[Network] = []
        rollout_policy = _rollout_policy(o.rollout_weights, networks)

        def make_searcher(seed: int | None) -> TreeSearch:
            return UCT(
                c=o.c,
                rave=o.rave,
                rave_equivalence=o.rave_equivalence,
                rollout_policy=rollout_policy,
                reuse=o.reuse,
                seed=seed,
            )

        super().__init__(make_searcher, o, 1000, networks)

    @classmethod
    def check_files(cls, context: GameContext | None, options: Any) -> None:
        """The rollout policy's file as the player reads it (and its board size, given a context)."""
        if options.rollout_weights is not None:
            networks = [load_network(str(options.rollout_weights), "rollout")]
            check_sizes(networks, context.size if context is not None else None)

    @staticmethod
    def warmup(size: int) -> None:
        """Compile UCT's kernels, random and pattern playouts (see ``agents.protocols.Warmable``)."""
        from go_env.features.patterns import load_weights
        from goarena.agents.weights import ROLLOUT_9X9

        pattern_policy, pattern_size = load_weights(ROLLOUT_9X9)
        for board, rollout_policy in ((size, None), (pattern_size, pattern_policy)):
            game = warmup_game(board)
            search = UCT(rollout_policy=rollout_policy, seed=0)
            game.play(search.search(game, simulations=8))
            search.search(game, simulations=8)  # the tree follows the move: rerooting
        PassCheck(playouts=1, seed=0).settle(game)  # the ownership playouts of a pass check


# PUCT's leaves per evaluator call. For the zero network at 400 simulations a move, 8 scored
# 69% against 32 (60 games); at 0.1 s a move 32, which runs about twice the simulations, came
# first of 8, 16 and 32 (59% of its 48 games; 16 46%, 8 45%).
COUNTED_BATCH, TIMED_BATCH = 8, 32


def precision(name: str, value: str) -> str | None:
    """auto, float32 or bfloat16: a network's arithmetic (``nets.predict.resolve_precision``)."""
    from goarena.agents.nets.predict import PRECISION_NAMES

    return None if value in PRECISION_NAMES else f"unknown {name} {value!r}: {', '.join(PRECISION_NAMES)}"


@dataclass(frozen=True, kw_only=True)
class SearchOptions(TreeSearchOptions):
    """PUCT's search options, which every player that searches with it takes (``puct``,
    ``alphago``, the network players)."""

    simulations: int | None = option(
        None, "simulations per move (default 800 when seconds is not given)", check=positive
    )
    c_puct: float = option(1.5, "exploration constant")
    batch: int | None = option(
        None,
        f"leaves per evaluator call (default {COUNTED_BATCH}; a network player's under a time budget "
        f"{TIMED_BATCH}, whose extra simulations pay for the wider batch)",
        check=positive,
    )
    selection: str = option(
        "alphazero",
        "alphazero (Q + c·P·sqrt(ΣN)/(1+N)), alphago (Q + c·P/(1+N)) or ucb1 (see search.selection)",
    )
    fpu: float = option(0.0, "the value of a move not tried yet (first-play urgency)")
    fpu_reduction: float | None = option(
        None, "a move not tried yet is valued at its position's mean value less this, in place of fpu"
    )
    virtual_loss: float = option(1.0, "the visits, valued as losses, that a pending leaf puts on its path")
    expansion_threshold: int = option(
        0,
        "AlphaGo's n_thr: evaluations of a leaf before its priors are asked for (0: at once)",
        check=at_least(0),
    )
    noise: float = option(0.0, "weight of Dirichlet noise in the root's priors (0.25 for self-play)")
    dirichlet_alpha: float | None = option(None, "the noise's alpha (default 10 / number of legal moves)")
    temperature: float = option(
        0.0,
        "moves drawn in proportion to visits^(1/temperature); 0 plays the most visited",
        check=temperature,
    )
    temperature_moves: int | None = option(
        None, "play with temperature for this many moves of the game, then the most visited (default: all)"
    )
    seed: int | None = option(None, "seed of the noise, the move choice and the rollouts")

    def search_options(self) -> dict[str, Any]:
        """These options, by name, as ``PUCTAgent`` takes them."""
        return {each.name: getattr(self, each.name) for each in dataclasses.fields(SearchOptions)}


@dataclass(frozen=True, kw_only=True)
class PUCTOptions(SearchOptions):
    """``puct``'s options: PUCT's search options, and where the leaves' priors and values come from."""

    evaluator: Any = option(
        "uniform",
        "uniform (uniform priors, value 0), rollout (value from random playouts), pattern (the rollout "
        "policy's priors and playouts; needs rollout_weights), an Evaluator or f(leaves) -> (priors, values)",
    )
    rollouts: int = option(1, "playouts per leaf for evaluator=rollout or pattern", check=positive)
    prior: str | None = option(
        None, "a policy network's weights (policy.pt): its priors; uniform: uniform priors"
    )
    rollout_weights: str | None = option(None, "the rollout policy's weights (rollout.npz) for pattern")
    value: str | None = option(
        None,
        "a value network's weights (value.pt), or an ownership network's (its value V): the leaf value; "
        "needs prior; with playouts too, AlphaGo's (1 - mixing)·v + mixing·z",
    )
    net: str | None = option(
        None, "a dual network's weights (zero's: zero-9x9.pt): its priors and values; prior and value unused"
    )
    mixing: float = option(0.5, "AlphaGo's λ, in [0, 1] (0: the value network alone; 1: the playouts alone)")
    device: str | None = option(None, "where the networks run (cpu, cuda, cuda:N; default: the game's)")
    precision: str = option(
        "auto",
        "the networks' arithmetic: float32, bfloat16, or auto (bfloat16 where the CPU has AVX512-BF16)",
        check=precision,
    )

    def check(self) -> None:
        _check_evaluator(self.evaluator, self.rollout_weights)
        _check_value(self.prior, self.value, self.mixing)


class PUCTAgent(_SearchAgent, OptionsPlayer):
    """PUCT over an evaluator (see ``search.puct``); its options are ``PUCTOptions``' (one
    field each, with its help: ``PUCTOptions.help()``)::

        PUCTAgent(simulations=800, evaluator="rollout", batch=16)
        PUCTAgent(prior="policy.pt", evaluator="pattern", rollout_weights="rollout.npz")
        PUCTAgent(evaluator=my_evaluator, noise=0.25, temperature=1.0, seed=7)

    Raises:
        TypeError: an option it does not take, or of the wrong type.
        ValueError: a value it refuses.
        NetworkFileError: a network's file it cannot read.
    """

    Options = PUCTOptions
    positional = ("simulations", "seconds", "evaluator")  # the first it took by position before
    options: PUCTOptions
    name = "puct"

    def __init__(self, *args: Any, **options: Any):
        OptionsPlayer.__init__(self, *args, **options)
        o = self.options
        evaluator, rollouts = o.evaluator, o.rollouts
        prior, rollout_weights, value, mixing = o.prior, o.rollout_weights, o.value, o.mixing
        device, precision, c_puct, selection = o.device, o.precision, o.c_puct, o.selection
        batch = o.batch if o.batch is not None else COUNTED_BATCH
        fpu, fpu_reduction, virtual_loss = o.fpu, o.fpu_reduction, o.virtual_loss
        expansion_threshold, noise, dirichlet_alpha = o.expansion_threshold, o.noise, o.dirichlet_alpha
        temperature, temperature_moves, reuse = o.temperature, o.temperature_moves, o.reuse
        networks: list[Network] = []
        network = value_network = None
        if o.net is not None:  # one network, both roles: one forward pass a leaf batch
            networks.append(load_network(o.net, "zero", device or "cpu", precision))
            network = value_network = networks[-1].model
            prior = str(o.net)
        elif prior not in (None, UNIFORM) or value is not None:
            if prior not in (None, UNIFORM):
                networks.append(load_network(str(prior), "policy", device or "cpu", precision))
                network = networks[-1].model
            if value is not None:
                networks.append(load_network(value, _value_kind(value), device or "cpu", precision))
                value_network = networks[-1].model
        pattern_policy = _rollout_policy(rollout_weights, networks)

        def make_searcher(seed: int | None) -> TreeSearch:
            leaves: EvaluatorSpec = evaluator
            if evaluator == "uniform":
                leaves = UniformEvaluator()
            elif evaluator == "rollout":
                leaves = RolloutEvaluator(rollouts, seed=seed)
            elif evaluator == "pattern":
                leaves = PatternRolloutEvaluator(pattern_policy, rollouts, seed=seed)  # type: ignore[arg-type]
            if prior is not None:
                leaves = _with_networks(leaves, evaluator, network, value_network, mixing)
            return PUCT(
                leaves,  # type: ignore[arg-type]  # an Evaluator or a callable, as PUCT takes
                c_puct=c_puct,
                batch=batch,
                selection=selection,
                fpu=fpu,
                fpu_reduction=fpu_reduction,
                virtual_loss=virtual_loss,
                expansion_threshold=expansion_threshold,
                noise=noise,
                dirichlet_alpha=dirichlet_alpha,
                reuse=reuse,
                seed=seed,
            )

        super().__init__(make_searcher, o, 800, networks)
        self.temperature = temperature
        self.temperature_moves = temperature_moves
        self.device = device
        self._modules = tuple(
            dict.fromkeys(module for module in (network, value_network) if module is not None)
        )
        self._expansion_threshold = expansion_threshold
        self._batched_options = dict(
            c_puct=c_puct,
            leaves_per_game=batch,
            noise=noise,
            dirichlet_alpha=dirichlet_alpha,
            selection=selection,
            fpu=fpu,
            fpu_reduction=fpu_reduction,
            virtual_loss=virtual_loss,
        )
        self._batched_seed = self.seed
        self._batched: BatchedPUCT | None = None  # made at the first select_moves after a reset

    def reset(self, context: GameContext) -> None:
        super().reset(context)
        self._batched_seed = restart_seed(self.seed, context)
        self._batched = None

    def select_moves(self, batch: GameBatch) -> np.ndarray:
        """The moves ``select_move`` would play in every game of ``batch``, searched at once
        (``BatchAgent``) by ``BatchedPUCT``: each game's tree is the one ``select_move`` grows
        without reuse, and every step's leaves of all the games go to the evaluator in one
        call. It never resigns, and needs a simulation budget and no ``expansion_threshold``.
        """
        if self.simulations is None or self._expansion_threshold:
            raise ValueError("puct searches many games at once with simulations=N and no expansion_threshold")
        if self._batched is None:
            evaluator = cast(PUCT, self.searcher).evaluator  # the reset's, seeded as select_move's
            self._batched = BatchedPUCT(evaluator, seed=self._batched_seed, **self._batched_options)  # type: ignore[arg-type]
        moves = self._batched.search(batch, self.simulations)
        if self.temperature > 0:
            drawn = self._batched.choose_moves(self.temperature)
            played = batch.state.info[:, K.INFO_MOVE_NUMBER]
            early = played >= 0 if self.temperature_moves is None else played < self.temperature_moves
            moves = np.where(early, drawn, moves)
        return _without_repeats(batch, moves, self._batched.visit_counts())

    @staticmethod
    def warmup(size: int) -> None:
        """Compile PUCT's kernels with every evaluator it may run: random and pattern
        playouts, and the networks' feature planes (see ``agents.protocols.Warmable``)."""
        from go_env import core as K
        from go_env.features.alphago import batch_alphago_planes, new_alphago_planes
        from go_env.features.patterns import load_weights
        from goarena.agents.weights import ROLLOUT_9X9

        game = warmup_game(size)
        search = PUCT(RolloutEvaluator(seed=0), batch=2, seed=0)
        game.play(search.search(game, simulations=8))
        search.search(game, simulations=8)
        PassCheck(playouts=1, seed=0).settle(game)  # the ownership playouts of a pass check
        leaves = K.GoState(*(field[None] for field in game.state))
        for colour in (False, True):  # the policy network's planes, the value network's
            batch_alphago_planes(leaves, game.geometry, new_alphago_planes(size, colour, batch=1))
        history = np.zeros((1, size, size, NUM_HISTORY_PLANES), np.int8)
        batch_history_planes(leaves, game.geometry, history)  # an ownership network's planes
        pattern_policy, pattern_size = load_weights(ROLLOUT_9X9)
        game = warmup_game(pattern_size)
        PUCT(PatternRolloutEvaluator(pattern_policy, 1, seed=0), batch=2, seed=0).search(game, simulations=8)

    @classmethod
    def check_files(cls, context: GameContext | None, options: Any) -> None:
        """Check the networks' files as the player reads them (and their board size and the
        device, given a context)."""
        prior, value, rollout_weights = options.prior, options.value, options.rollout_weights
        networks = []
        if options.net is not None:
            from goarena.agents.nets.predict import player_device

            player_device(options.device, context)
            networks.append(load_network(str(options.net), "zero", precision=options.precision))
        elif prior not in (None, UNIFORM) or value is not None:
            from goarena.agents.nets.predict import player_device

            player_device(options.device, context)
            if prior not in (None, UNIFORM):
                networks.append(load_network(str(prior), "policy", precision=options.precision))
            if value is not None:
                networks.append(
                    load_network(str(value), _value_kind(str(value)), precision=options.precision)
                )
        if rollout_weights is not None:
            networks.append(load_network(str(rollout_weights), "rollout"))
        check_sizes(networks, context.size if context is not None else None)

    def _temperature(self, game: Game) -> float:
        if self.temperature_moves is None or len(game.moves) < self.temperature_moves:
            return self.temperature
        return 0.0
