"""Elo ratings by maximum likelihood over all games at once (Bradley-Terry with a colour term).

The model: Black (rating ``r_b``) beats White (``r_w``) with probability
``1 / (1 + 10 ** (-(r_b - r_w + advantage) / 400))``, where ``advantage`` is Black's
first-move edge in Elo (komi included), fitted with the ratings. A draw counts as half a
win and half a loss. Ratings are only defined up to a constant, so one player is anchored
at a fixed rating (ordinarily GNU Go at level 10 = 1000, or random = 0) and every interval
is relative to the anchor. Intervals come from the inverse of the observed information
matrix (the Hessian of the negative log-likelihood); the likelihood of superiority (LOS)
of A over B is ``Phi((r_A - r_B) / sd(r_A - r_B))`` with the covariance included.

A small Gaussian prior (``prior_games`` virtual draws against the mean) keeps ratings finite
for players that won or lost every game; its weight is stated with the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.stats import norm

ELO_PER_NATURAL = 400 / math.log(10)  # 1 logit = 173.7 Elo


@dataclass(frozen=True)
class Result:
    """One game for the fit: ``score`` is Black's (1 win, 0.5 draw, 0 loss)."""

    black: str
    white: str
    score: float


@dataclass(frozen=True)
class Ratings:
    players: tuple[str, ...]
    elo: np.ndarray  # float[P]
    stderr: np.ndarray  # float[P], 0 for the anchor
    covariance: np.ndarray  # float[P, P], Elo^2
    black_advantage: float  # Elo
    black_advantage_stderr: float
    anchor: str
    anchor_elo: float

    def interval(self, player: str, z: float = 1.96) -> tuple[float, float]:
        i = self.players.index(player)
        return self.elo[i] - z * self.stderr[i], self.elo[i] + z * self.stderr[i]

    def los(self, a: str, b: str) -> float:
        """Likelihood that ``a`` is stronger than ``b``."""
        i, j = self.players.index(a), self.players.index(b)
        variance = self.covariance[i, i] + self.covariance[j, j] - 2 * self.covariance[i, j]
        if variance <= 0:
            return 0.5 if self.elo[i] == self.elo[j] else float(self.elo[i] > self.elo[j])
        return float(norm.cdf((self.elo[i] - self.elo[j]) / math.sqrt(variance)))

    def ranked(self) -> list[str]:
        return [self.players[i] for i in np.argsort(-self.elo, kind="stable")]


def fit_ratings(
    results: Sequence[Result],
    anchor: str,
    anchor_elo: float = 0.0,
    *,
    colour_term: bool = True,
    prior_games: float = 0.0,
) -> Ratings:
    """Maximum-likelihood Elo of every player in ``results``.

    Args:
        results: the games.
        anchor: the player whose rating is fixed at ``anchor_elo``.
        colour_term: fit Black's advantage (else it is fixed at 0).
        prior_games: weight of a Gaussian prior pulling every player towards the anchor's
            rating, in virtual drawn games (0: none; needed only if a player won or lost all).

    Returns:
        The ratings, their standard errors and covariance, and Black's advantage.
    """
    players = tuple(sorted({r.black for r in results} | {r.white for r in results}))
    if anchor not in players:
        raise ValueError(f"anchor {anchor!r} played no game; players: {', '.join(players)}")
    index = {p: i for i, p in enumerate(players)}
    black = np.array([index[r.black] for r in results])
    white = np.array([index[r.white] for r in results])
    score = np.array([r.score for r in results], np.float64)
    free = [i for i in range(len(players)) if players[i] != anchor]
    n_free = len(free)

    def unpack(theta: np.ndarray) -> tuple[np.ndarray, float]:
        strength = np.zeros(len(players))
        strength[free] = theta[:n_free]
        return strength, (theta[n_free] if colour_term else 0.0)

    def negative_log_likelihood(theta: np.ndarray) -> tuple[float, np.ndarray]:
        strength, advantage = unpack(theta)
        d = strength[black] - strength[white] + advantage
        p = 1 / (1 + np.exp(-d))
        eps = 1e-300
        value = -np.sum(score * np.log(p + eps) + (1 - score) * np.log(1 - p + eps))
        residual = p - score  # d(value)/dd
        grad_strength = np.bincount(black, residual, len(players)) - np.bincount(
            white, residual, len(players)
        )
        grad = list(grad_strength[free])
        if colour_term:
            grad.append(residual.sum())
        if prior_games:
            # Each virtual draw against the anchor's level adds log sigmoid(s) + log sigmoid(-s), halved.
            s = theta[:n_free]
            q = 1 / (1 + np.exp(-s))
            value += -prior_games * np.sum(0.5 * np.log(q) + 0.5 * np.log(1 - q))
            grad[:n_free] = np.array(grad[:n_free]) + prior_games * (q - 0.5)
        return float(value), np.asarray(grad, np.float64)

    theta0 = np.zeros(n_free + int(colour_term))
    fitted = minimize(negative_log_likelihood, theta0, jac=True, method="BFGS", options={"gtol": 1e-9})
    theta = fitted.x
    covariance_free = np.linalg.pinv(
        _hessian(theta, black, white, free, len(players), colour_term, prior_games)
    )
    strength, advantage = unpack(theta)
    covariance = np.zeros((len(players), len(players)))
    covariance[np.ix_(free, free)] = covariance_free[:n_free, :n_free] * ELO_PER_NATURAL**2
    stderr = np.sqrt(np.clip(np.diag(covariance), 0, None))
    advantage_stderr = math.sqrt(max(covariance_free[-1, -1], 0)) * ELO_PER_NATURAL if colour_term else 0.0
    return Ratings(
        players=players,
        elo=strength * ELO_PER_NATURAL + anchor_elo,
        stderr=stderr,
        covariance=covariance,
        black_advantage=advantage * ELO_PER_NATURAL,
        black_advantage_stderr=advantage_stderr,
        anchor=anchor,
        anchor_elo=anchor_elo,
    )


def _hessian(
    theta: np.ndarray,
    black: np.ndarray,
    white: np.ndarray,
    free: list[int],
    num_players: int,
    colour_term: bool,
    prior_games: float,
) -> np.ndarray:
    """Observed information of the free parameters (strengths in logits, then the advantage)."""
    n_free = len(free)
    strength = np.zeros(num_players)
    strength[free] = theta[:n_free]
    advantage = theta[n_free] if colour_term else 0.0
    p = 1 / (1 + np.exp(-(strength[black] - strength[white] + advantage)))
    weight = p * (1 - p)
    # d = x_black - x_white + a: the information is G^T diag(w) G, G's rows e_black - e_white + e_a.
    games = np.arange(len(black))
    design = np.zeros((len(black), num_players + 1))
    design[games, black] += 1
    design[games, white] -= 1
    design[:, num_players] = 1
    full = design.T @ (weight[:, None] * design)
    keep = free + ([num_players] if colour_term else [])
    hessian = full[np.ix_(keep, keep)]
    if prior_games:
        q = 1 / (1 + np.exp(-theta[:n_free]))
        hessian[np.arange(n_free), np.arange(n_free)] += prior_games * q * (1 - q)
    return hessian
