"""Where torch meets search: networks as evaluators of search leaves.

``NetworkEvaluator`` serves every network (AlphaGo's, the zero, ownership and win networks, SB3
models through ``inference.sb3.SB3Network``, a player's function through
``inference.function.FunctionNetwork``): the features each declares built once per leaf batch
and kind (``inference.features``), one forward pass per network, ``LeafOutputs`` out.
"""

from goarena.agents.inference.evaluator import (
    PolicyNetEvaluator,
    load_policy_net,
    policy_net_size,
    set_inference_threads,
)
from goarena.agents.inference.features import FeatureBuilder
from goarena.agents.inference.network import LeafOutputs, NetworkEvaluator, komi_terms
from goarena.agents.inference.value import ValueNetEvaluator, load_value_net, value_net_size

__all__ = [
    "FeatureBuilder",
    "LeafOutputs",
    "NetworkEvaluator",
    "PolicyNetEvaluator",
    "ValueNetEvaluator",
    "load_policy_net",
    "komi_terms",
    "load_value_net",
    "policy_net_size",
    "set_inference_threads",
    "value_net_size",
]
