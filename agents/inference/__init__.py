"""Where torch meets search: networks as evaluators of search leaves."""

from goarena.agents.inference.evaluator import PolicyNetEvaluator, load_policy_net

__all__ = ["PolicyNetEvaluator", "load_policy_net"]
