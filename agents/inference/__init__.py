"""Where torch meets search: networks as evaluators of search leaves."""

from goarena.agents.inference.evaluator import (
    PolicyNetEvaluator,
    load_policy_net,
    policy_net_size,
    set_inference_threads,
)
from goarena.agents.inference.network import NetworkEvaluator
from goarena.agents.inference.value import ValueNetEvaluator, load_value_net, value_net_size

__all__ = [
    "NetworkEvaluator",
    "PolicyNetEvaluator",
    "ValueNetEvaluator",
    "load_policy_net",
    "load_value_net",
    "policy_net_size",
    "set_inference_threads",
    "value_net_size",
]
