"""Masked PPO on goarena's vector env, CleanRL-style: one file, plain PyTorch.

Trains a small convolutional actor-critic against an opponent on ``goarena/Go-v0``'s batched
env (every step is one kernel call over all games), masking illegal moves out of the policy,
then saves the policy as an exported program (``torch.export``) for goarena's ``torch:PATH``
player, rates it with
``goarena.benchmarks.evaluate``, and prints the league command that rates it among others::

    python docs/ppo_go.py --board-size 5 --total-timesteps 200000
    goarena league --size 5 --player torch:runs/ppo_go/policy.pt2 --player random \\
        --player uct:simulations=100 --games-per-pair 20 --dir runs/ppo_go/league

The saved module is ``forward(planes, mask) -> (logits, value)``: ``planes`` float32[B, 17,
N, N], goarena's history planes from the side to move's view, channels first (what the env
gives with ``channels_first=True, observation_dtype="float32"``), ``mask`` bool[B, N*N + 1]
the legal moves; ``logits`` float32[B, N*N + 1] over the moves (pass last), ``value`` the
side to move's expected result in [-1, 1]. Follows CleanRL's ``ppo.py`` (GAE, clipped
objective, value clipping, entropy bonus, annealed learning rate), with invalid-action masking
as in Huang and Ontañón, "A Closer Look at Invalid Action Masking in Policy Gradient
Algorithms" (2020).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium
import numpy as np
import torch
from torch import nn

import go_env  # noqa: F401 - registers goarena/Go-v0


@dataclass
class Args:
    board_size: int = 5
    opponent: str | None = None  # a player spec, e.g. "uct:simulations=8"; None: random moves
    total_timesteps: int = 200_000
    num_envs: int = 64
    num_steps: int = 32  # steps per env per rollout
    learning_rate: float = 3e-4
    gamma: float = 1.0  # Go's reward comes once, at the end
    gae_lambda: float = 0.95
    num_minibatches: int = 8
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    filters: int = 32
    seed: int = 1
    eval_games: int = 20
    out: str = "runs/ppo_go"


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in vars(Args()).items():
        kind = type(default) if default is not None else str
        parser.add_argument("--" + name.replace("_", "-"), type=kind, default=default)
    return Args(**vars(parser.parse_args()))


class Agent(nn.Module):
    """Three 3x3 convolutions, then a policy head (a logit per point and one for pass) and a
    value head, as in AlphaZero, only smaller."""

    def __init__(self, board_size: int, filters: int):
        super().__init__()
        points = board_size * board_size
        self.trunk = nn.Sequential(
            nn.Conv2d(17, filters, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(filters, filters, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(filters, filters, 3, padding=1),
            nn.ReLU(),
        )
        self.policy = nn.Sequential(
            nn.Conv2d(filters, 2, 1), nn.ReLU(), nn.Flatten(), nn.Linear(2 * points, points + 1)
        )
        self.value = nn.Sequential(
            nn.Conv2d(filters, 1, 1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(points, 64),
            nn.ReLU(),
            nn.Linear(64, 1),
            nn.Tanh(),
        )

    def forward(self, planes: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.trunk(planes)
        logits = self.policy(features).masked_fill(~mask, -1e9)  # illegal moves get no probability
        return logits, self.value(features).squeeze(-1)


def evaluate_actions(
    agent: Agent, planes: torch.Tensor, mask: torch.Tensor, actions: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Actions (sampled when not given), their log-probabilities, the entropy and the values."""
    logits, value = agent(planes, mask)
    distribution = torch.distributions.Categorical(logits=logits)
    if actions is None:
        actions = distribution.sample()
    return actions, distribution.log_prob(actions), distribution.entropy(), value


def train(args: Args) -> Agent:
    torch.manual_seed(args.seed)
    envs = gymnasium.make_vec(
        "goarena/Go-v0",
        num_envs=args.num_envs,
        vectorization_mode="vector_entry_point",
        board_size=args.board_size,
        learner="alternate",
        opponent=args.opponent,
        channels_first=True,
        observation_dtype="float32",
    )
    agent = Agent(args.board_size, args.filters)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    steps, n = args.num_steps, args.num_envs
    batch_size = steps * n
    minibatch_size = batch_size // args.num_minibatches
    num_updates = max(1, args.total_timesteps // batch_size)

    observations = torch.zeros((steps, n, *envs.single_observation_space.shape))
    masks = torch.zeros((steps, n, envs.single_action_space.n), dtype=torch.bool)
    actions = torch.zeros((steps, n), dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros((steps, n)) for _ in range(4))

    next_obs, _ = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs)
    next_mask = torch.as_tensor(envs.unwrapped.action_masks())
    next_done = torch.zeros(n)
    results: list[float] = []
    start = time.time()
    for update in range(1, num_updates + 1):
        for group in optimizer.param_groups:  # anneal the learning rate to 0
            group["lr"] = (1.0 - (update - 1.0) / num_updates) * args.learning_rate
        for step in range(steps):
            observations[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = evaluate_actions(agent, next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            obs, reward, terminated, truncated, _ = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            ended = np.logical_or(terminated, truncated)
            results.extend(reward[ended].tolist())
            next_obs, next_done = torch.as_tensor(obs), torch.as_tensor(ended, dtype=torch.float32)
            next_mask = torch.as_tensor(envs.unwrapped.action_masks())  # the next episode's, where one ended

        with torch.no_grad():  # generalized advantage estimation
            _, next_value = agent(next_obs, next_mask)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(n)
            for t in reversed(range(steps)):
                following = next_value if t == steps - 1 else values[t + 1]
                alive = 1.0 - (next_done if t == steps - 1 else dones[t + 1])
                delta = rewards[t] + args.gamma * following * alive - values[t]
                last = delta + args.gamma * args.gae_lambda * alive * last
                advantages[t] = last
            returns = advantages + values

        flat = [
            x.reshape(batch_size, *x.shape[2:])
            for x in (observations, masks, actions, logprobs, advantages, returns, values)
        ]
        b_obs, b_masks, b_actions, b_logprobs, b_advantages, b_returns, b_values = flat
        for _ in range(args.update_epochs):
            for indices in torch.randperm(batch_size).split(minibatch_size):
                _, logprob, entropy, value = evaluate_actions(
                    agent, b_obs[indices], b_masks[indices], b_actions[indices]
                )
                ratio = (logprob - b_logprobs[indices]).exp()
                advantage = b_advantages[indices]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                policy_loss = torch.max(
                    -advantage * ratio, -advantage * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                clipped = b_values[indices] + (value - b_values[indices]).clamp(
                    -args.clip_coef, args.clip_coef
                )
                value_loss = (
                    0.5
                    * torch.max((value - b_returns[indices]) ** 2, (clipped - b_returns[indices]) ** 2).mean()
                )
                loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        recent = results[-200:]
        win_rate = (np.mean(recent) + 1) / 2 if recent else float("nan")
        rate = update * batch_size / (time.time() - start)
        print(
            f"update {update}/{num_updates}  steps {update * batch_size}  games {len(results)}  "
            f"win rate (last 200) {win_rate:.2f}  {rate:,.0f} steps/s",
            flush=True,
        )
    envs.close()
    return agent


def main() -> None:
    from goarena.agents.players.policy_player import PolicyPlayer
    from goarena.benchmarks.evaluate import evaluate

    args = parse_args()
    agent = train(args).eval()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    points = args.board_size * args.board_size
    example = (
        torch.zeros(2, 17, args.board_size, args.board_size),
        torch.ones(2, points + 1, dtype=torch.bool),
    )
    batch = torch.export.Dim("batch")
    program = torch.export.export(agent, example, dynamic_shapes=({0: batch}, {0: batch}))
    torch.export.save(program, str(out / "policy.pt2"))
    print(f"saved {out / 'policy.pt2'} (goarena's torch:{out / 'policy.pt2'})")

    player = PolicyPlayer(agent, board_size=args.board_size, name="ppo_go")
    for opponent in ("random", "uct:simulations=100"):
        result = evaluate(player, opponent, games=args.eval_games, size=args.board_size)
        low, high = result.interval
        print(f"vs {opponent}: {result.win_rate:.1%} of {result.games} games (95% {low:.0%}-{high:.0%})")
    print(
        f"goarena league --size {args.board_size} --player torch:{out / 'policy.pt2'} --player random "
        f"--player uct:simulations=100 --games-per-pair 20 --dir {out / 'league'}"
    )


if __name__ == "__main__":
    main()
