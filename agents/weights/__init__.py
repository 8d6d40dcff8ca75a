"""The network weights goarena ships, small and reproducible (see docs/alphago.md's "Shipped
weights" for the commands that made them and what they score).

``sl-policy-9x9.pt``: AlphaGo's SL policy network for 9x9, trained on GNU Go's games.
``rollout-9x9.npz``: the fast rollout policy for 9x9, trained on the same games.
``rl-policy-9x9.pt``: the RL policy network for 9x9, the SL one improved by self-play.
``value-9x9.pt``: the value network for 9x9, regressed on the RL policy's self-play games.
``zero-9x9.pt``: AlphaZero's network for 9x9 with every head (policy, value, ownership, score)
that reads the komi, taught by self-play from zero knowledge (docs/alphazero.md).
``ownership-9x9.pt``: the ownership value network for 9x9 (Methods 1 and 2 on GNU Go's games).
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).parent
SL_POLICY_9X9 = FOLDER / "sl-policy-9x9.pt"
ROLLOUT_9X9 = FOLDER / "rollout-9x9.npz"
RL_POLICY_9X9 = FOLDER / "rl-policy-9x9.pt"
VALUE_9X9 = FOLDER / "value-9x9.pt"
ZERO_9X9 = FOLDER / "zero-9x9.pt"
OWNERSHIP_9X9 = FOLDER / "ownership-9x9.pt"
