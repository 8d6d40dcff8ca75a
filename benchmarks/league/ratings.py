"""Elo ratings by maximum likelihood over all games at once (Bradley-Terry with a colour term).

The model: Black (rating ``r_b``) beats White (``r_w``) with probability
``1 / (1 + 10 ** (-(r_b - r_w + advantage) / 400))``, where ``advantage`` is Black's
first-move edge in Elo (komi included), fitted with the ratings. A draw counts as half a
win and half a loss. Ratings are only defined up to a constant, so one player is anchored
at a fixed rating (ordinarily GNU Go at level 10 = 1000, or random = 0) and every interval
is relative to the anchor. Intervals come from the inverse of the observed information
matrix (the Hessian of the negative log-likelihood); the likelihood of superiority (LOS)
of A over B is ``Phi((r_A - r_B) / sd(r_A - r_B))`` with the covariance included.

A weak prior of ``prior_games`` virtual games on every term keeps the fit finite when the
games alone would send a term to infinity: each player draws that many games against the
field's mean (a player who won or lost every game), and each colour wins half of that many
(a league so young that one colour won every game, where the colour term alone could
explain every result and the ladder would mean nothing). The prior is centred on the mean,
not on the anchor, so that the anchor's own games count like anyone's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
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
        prior_games: weight of the prior in virtual games (0: none). Each player draws that
            many games against the field's mean, and Black and White win that many games
            half each, so no term runs off when a player, or a colour, won or lost all.

    Returns:
        The ratings, their standard errors and covariance, and Black's advantage.
    """
    players = tuple(sorted({r.black for r in results} | {r.white for r in results}))
    if anchor not in players:
        raise ValueError(f"anchor {anchor!r} played no game; players: {', '.join(players)}")
    index = {p: i for i, p in enumerate(players)}
    score = np.array([r.score for r in results], np.float64)
    # One row per game: d = strength[black] - strength[white] + advantage = design @ theta.
    design = np.zeros((len(results), len(players) + int(colour_term)))
    games = np.arange(len(results))
    design[games, [index[r.black] for r in results]] += 1
    design[games, [index[r.white] for r in results]] -= 1
    if colour_term:
        design[:, -1] = 1

    def negative_log_posterior(theta: np.ndarray) -> tuple[float, np.ndarray]:
        d = design @ theta
        # -log sigmoid(x) = logaddexp(0, -x): exact where a game's outcome is all but certain.
        value = np.sum(score * np.logaddexp(0, -d) + (1 - score) * np.logaddexp(0, d))
        grad = design.T @ (expit(d) - score)
        # A virtual game won half by each side: 1/2 (-log sigmoid(t) - log sigmoid(-t)).
        value += prior_games * np.sum(np.logaddexp(0, -theta) + np.logaddexp(0, theta)) / 2
        grad += prior_games * (expit(theta) - 0.5)
        return float(value), grad

    fitted = minimize(
        negative_log_posterior,
        np.zeros(design.shape[1]),
        jac=True,
        method="BFGS",
        options={"gtol": 1e-9},
    )
    theta = fitted.x
    p = expit(design @ theta)
    q = expit(theta)
    information = design.T @ ((p * (1 - p))[:, None] * design) + np.diag(prior_games * q * (1 - q))
    # Without a prior only differences of strengths are defined: the pseudo-inverse still
    # gives their covariance, and every rating below is a difference to the anchor.
    covariance_theta = np.linalg.pinv(information)
    to_anchor = np.eye(len(players), design.shape[1])
    to_anchor[:, index[anchor]] -= 1
    covariance = to_anchor @ covariance_theta @ to_anchor.T * ELO_PER_NATURAL**2
    stderr = np.sqrt(np.clip(np.diag(covariance), 0, None))
    advantage, advantage_variance = (theta[-1], covariance_theta[-1, -1]) if colour_term else (0.0, 0.0)
    return Ratings(
        players=players,
        elo=(to_anchor @ theta) * ELO_PER_NATURAL + anchor_elo,
        stderr=stderr,
        covariance=covariance,
        black_advantage=float(advantage) * ELO_PER_NATURAL,
        black_advantage_stderr=math.sqrt(max(advantage_variance, 0.0)) * ELO_PER_NATURAL,
        anchor=anchor,
        anchor_elo=anchor_elo,
    )
