"""``zero``: AlphaZero's player, one network's priors and values in a tree search.

Spec strings::

    zero                                         # the shipped 9x9 network, 200 simulations, PUCT
    zero:weights=RUN/zero.pt,simulations=400
    zero:seconds=2,search=puct                   # GTP lz-analyze reports PUCT's candidates
    zero:search=gumbel,simulations=32            # Gumbel root search (sequential halving)

With ``search=puct`` it is a ``PUCTAgent`` whose leaves are evaluated by the network
(``ZeroEvaluator``, one forward pass per leaf batch), with everything that player has: tree
reuse, a time budget, resignation, ``act()`` with the visit distribution and the root's
value, ``lz-analyze``. With ``search=gumbel`` it plays the move of a deterministic Gumbel
search (no noise: evaluation play) over its game as a batch of one (``search.GumbelSearch``,
the batched search self-play uses) and reports that search's improved policy and root value;
that search keeps to its simulations, and the GTP engine's time per move (``set_move_time``)
does not shorten it. The kind of search is picked once, at construction.

Either way ``act()`` also gives the ownership map of the position it moved from, and
``ownership(game)`` gives it alone (``OwnershipAgent``, for GTP ``kata-analyze ... ownership
true``): the network's auxiliary ownership head at that position, for its side to move. It is the
root's own estimate, one forward pass; KataGo reports the ownership averaged over its search tree.
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import numpy as np

from go_env import Game, GameBatch
from go_env import core as K
from goarena.agents.inference.zero import ZeroEvaluator
from goarena.agents.nets.load import check_sizes, load_network
from goarena.agents.nets.predict import forward
from goarena.agents.nets.zero import ZeroOutput
from goarena.agents.players.search import PUCTAgent
from goarena.agents.protocols import Action, GameContext, check_board_size
from goarena.agents.weights import ZERO_9X9
from goarena.search import GumbelSearch, Leaves

SEARCHES = ("puct", "gumbel")
DEFAULT_SIMULATIONS = 200


def _zero_options(options: dict[str, Any]) -> tuple[str, str, int, dict[str, Any]]:
    """(weights, search, max_considered, PUCTAgent's options) from a zero spec's options."""
    fixed = {"evaluator", "prior", "value", "rollout_weights", "mixing"} & options.keys()
    if fixed:
        raise TypeError(f"zero's leaves are its network's: it takes no {', '.join(sorted(fixed))}")
    weights = str(options.pop("weights", ZERO_9X9))
    search = options.pop("search", "puct")
    if search not in SEARCHES:
        raise ValueError(f"search is one of {', '.join(SEARCHES)}, got {search!r}")
    if search == "gumbel" and options.get("seconds") is not None:
        raise ValueError("search=gumbel takes a budget in simulations, not seconds")
    max_considered = options.pop("max_considered", 16)
    if isinstance(max_considered, bool) or not isinstance(max_considered, int):
        raise TypeError(f"max_considered must be an integer, got {max_considered!r}")
    if max_considered < 1:
        raise ValueError(f"max_considered must be at least 1, got {max_considered}")
    if options.get("simulations") is None and options.get("seconds") is None:
        options["simulations"] = DEFAULT_SIMULATIONS
    return weights, search, max_considered, options


class ZeroAgent(PUCTAgent):
    """AlphaZero's player (see the module documentation).

    Args:
        weights: the network file (a ``goarena train zero`` ``zero.pt`` or generation).
        search: "puct" or "gumbel".
        max_considered: root moves Gumbel search considers.
        **options: ``PUCTAgent``'s search options (simulations, seconds, c_puct, batch, ...).
    """

    def __init__(self, **options: Any):
        weights, search, max_considered, rest = _zero_options(dict(options))
        device, precision = rest.get("device"), str(rest.pop("precision", "float32"))
        network = load_network(weights, "zero", device or "cpu", precision)
        self.evaluator = ZeroEvaluator(network.model)
        super().__init__(evaluator=self.evaluator, **rest)
        self.name = "zero"
        self.max_considered = max_considered
        self._networks = [network]
        self._digests = [network.digest]
        self._modules = (network.model,)
        self._gumbel: GumbelSearch | None = None
        # The search behind select_move and act, picked once (methods, so that a pickled player
        # keeps its pick).
        gumbel = search == "gumbel"
        self._move = self._gumbel_move if gumbel else self._puct_move
        self._action = self._gumbel_action if gumbel else self._puct_action

    @classmethod
    def check_options(cls, context: GameContext | None, **options: object) -> None:
        weights, _, _, rest = _zero_options(dict(options))
        network = load_network(weights, "zero", precision=str(rest.pop("precision", "float32")))
        check_sizes([network], context.size if context is not None else None)
        PUCTAgent(**rest)  # the other options, checked

    @staticmethod
    def warmup(size: int) -> None:
        """Compile both searches' kernels and the history planes (see ``Warmable``)."""
        from go_env.features import NUM_HISTORY_PLANES, batch_history_planes
        from goarena.search.warmup import warmup_game

        PUCTAgent.warmup(size)
        GumbelSearch(seed=0).search(GameBatch(size, 1), simulations=2)
        game = warmup_game(size)
        leaves = K.GoState(*(field[None] for field in game.state))
        batch_history_planes(leaves, game.geometry, np.zeros((1, size, size, NUM_HISTORY_PLANES), np.int8))

    # -- the search: PUCTAgent's, or Gumbel search over one game as a batch of one ----------

    def _gumbel_action(self, game: Game) -> Action:
        if self._gumbel is None:
            self._gumbel = GumbelSearch(
                self.evaluator, seed=self.seed, max_considered=self.max_considered, gumbel=False
            )
        batch = GameBatch(game.size, 1, game.rules)
        K.copy_into(K.state_item(batch.state, 0), game.state)
        move = int(self._gumbel.search(batch, self.simulations)[0])  # type: ignore[arg-type]  # set: no seconds
        return Action(move, self._gumbel.policy_targets()[0], float(self._gumbel.root_values()[0]))

    def _gumbel_move(self, game: Game) -> int:
        return self._gumbel_action(game).move

    def _puct_move(self, game: Game) -> int:
        return super().select_move(game)

    def _puct_action(self, game: Game) -> Action:
        return super().act(game)  # its move from select_move, hence _puct_move

    def select_move(self, game: Game) -> int:
        return self._move(game)

    def ownership(self, game: Game) -> np.ndarray:
        """float32[N*N]: the network's ownership head at ``game``'s position, for its side to
        move (``OwnershipAgent``)."""
        check_board_size(self.evaluator.board_size, game.size)
        leaves = Leaves(
            K.GoState(*(field[None] for field in game.state)), game.legal_mask()[None], game.geometry
        )
        output = cast(ZeroOutput, forward(self.evaluator.model, self.evaluator.planes(leaves)))
        return output.ownership[0].float().cpu().numpy()

    def act(self, game: Game) -> Action:
        """The move, the search's policy and value, and the position's ownership map."""
        ownership = self.ownership(game)
        return dataclasses.replace(self._action(game), ownership=ownership)
