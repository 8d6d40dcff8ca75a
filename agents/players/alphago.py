"""``alphago``: AlphaGo's search, PUCT with the AlphaGo paper's choices as its defaults.

Each simulation selects ``a = argmax Q + u`` with ``u = c·P(s, a) / (1 + N(s, a))``
(``selection="alphazero"`` takes the paper's ``c·P·sqrt(ΣN) / (1 + N)`` instead), with the SL
policy network's priors ``P``; a leaf's value is ``V = (1 - λ)·v + λ·z``, ``v`` the value
network's and ``z`` the outcome of a rollout-policy playout; ``Q`` is the mean of ``V`` over the
simulations through the move, and the most visited move is played. Leaves are evaluated in
batches (``batch``) under virtual loss, and the tree is kept between moves.

    alphago:simulations=800                           # λ = 0.5
    alphago:mixing=0,seconds=2                        # the value network alone
    alphago:mixing=1                                  # rollouts alone
    alphago:prior=uniform                             # no policy prior
    alphago:value=my-value.pt,prior=my-policy.pt      # other networks
    alphago:net=zero-9x9.pt                           # a dual network (zero's) as prior and value
    alphago:expansion_threshold=1,precision=bfloat16  # AlphaGo's n_thr; bf16 networks
    alphago:selection=alphazero,c_puct=1.5            # the paper's c·P·sqrt(ΣN) / (1 + N)

The shipped 9x9 SL policy, value network and rollout policy are the defaults.
"""

from __future__ import annotations

from typing import cast

from goarena.agents.players.search import PUCTAgent
from goarena.agents.specs import builtin_factory

# AlphaGo's search: ``PUCTAgent`` configured by its registry entry (``agents.specs``) with
# AlphaGo's defaults: ``prior`` the shipped SL policy, ``value`` the shipped value network,
# ``rollout_weights`` the shipped rollout policy, ``mixing`` (λ) 0.5, ``selection="alphago"``,
# ``c_puct`` 5; it takes no ``evaluator`` (its leaves are its networks' and playouts').
AlphaGoAgent = cast("type[PUCTAgent]", builtin_factory("alphago"))
