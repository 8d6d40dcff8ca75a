"""Tree search over the rules core: UCT with random playouts, PUCT over evaluators, and one
batched search over many games at once (``BatchedSearch``: one evaluator call per step for all
of them), configured as PUCT (``BatchedPUCT``) or as Gumbel root search with sequential
halving (``GumbelSearch``), with one result surface.

Searches keep their tree in preallocated numba arrays (``Tree``), run their simulation
loops in numba, reuse the tree between moves, and stop on a simulation budget, a time
budget or a callback. Evaluators are plain objects or callables (``Evaluator``); this
package imports nothing of ``agents`` and never imports torch. ``ownership`` estimates who
owns each point at the end, by playouts; ``settle`` decides how a finished game is counted
(the raw count, an ownership estimate, a judge's dead stones with every seki kept alive, the
clean-up move), for the players, the referee, GTP and the web board alike.
"""

from goarena.search.batched import BatchedSearch
from goarena.search.batched_puct import BatchedPUCT
from goarena.search.evaluator import (
    Evaluator,
    EvaluatorError,
    LeafValues,
    Leaves,
    MixedEvaluator,
    RolloutEvaluator,
    UniformEvaluator,
    as_evaluator,
)
from goarena.search.gumbel import GumbelSearch
from goarena.search.puct import PUCT
from goarena.search.tree import ILLEGAL, NO_PARENT, ROOT, UNVISITED, Candidate, Tree, TreeSearch
from goarena.search.uct import UCT

__all__ = [
    "BatchedPUCT",
    "BatchedSearch",
    "ILLEGAL",
    "NO_PARENT",
    "PUCT",
    "ROOT",
    "UCT",
    "UNVISITED",
    "Candidate",
    "Evaluator",
    "EvaluatorError",
    "GumbelSearch",
    "LeafValues",
    "Leaves",
    "MixedEvaluator",
    "RolloutEvaluator",
    "Tree",
    "TreeSearch",
    "UniformEvaluator",
    "as_evaluator",
]
