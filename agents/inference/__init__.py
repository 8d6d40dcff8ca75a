"""Where torch meets search: networks as evaluators of search leaves."""

from goarena.agents.inference.evaluator import PolicyNetEvaluator, load_policy_net
from goarena.agents.inference.value import ValueNetEvaluator, load_value_net

__all__ = ["PolicyNetEvaluator", "ValueNetEvaluator", "load_policy_net", "load_value_net"]
