"""Ratings and intervals for multiplayer results: Wilson intervals and a Plackett–Luce rating.

**Plackett–Luce.** Each strategy ``i`` has a strength ``s_i = exp(theta_i)``. A game's finishing order is
drawn stage by stage: the first place is strategy ``i`` with probability ``s_i / sum(s over all seats)``,
the second place is drawn the same way from the seats that remain, and so on. A strategy may sit in several
seats of one game (two copies of Random); each copy counts in the denominator. With two players this is
exactly Elo's logistic model, so ratings are shown on the Elo scale::

    rating_i = 1500 + 400 * log10(s_i / geometric mean of s)

A 400-point gap means the stronger side is chosen first ten times as often.

**Ties.** A tier of tied seats (two joint winners, equal scores) is split into every order of its members,
each weighted equally (1/k! of the game), like a shared win counts 1/k of a win. Ties therefore pull the
tied strategies' ratings together, as a draw does in Elo.

**Fit.** The log-likelihood of a strict order is concave in ``theta``; a weak Gaussian prior
``theta ~ N(0, prior_sd^2)`` makes it strictly concave and keeps ratings finite when a strategy never loses.
Damped Newton steps find the maximum in a handful of iterations (strategies are few). Identical choice
events are merged first, so cost grows with the number of distinct results, not games.

**Uncertainty.** A bootstrap over games: resample the games with replacement, refit, and take percentile
intervals of each (centred) rating.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: z for a two-sided 95% interval
Z95 = 1.959963984540054
#: Elo points per natural-log unit of strength
ELO_PER_NAT = 400.0 / math.log(10.0)
ELO_CENTRE = 1500.0

#: A finishing order: tiers best first; each tier lists the strategy index of every seat in it.
Ranking = Sequence[Sequence[int]]


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval for a proportion ``successes / n`` (0, 1 when ``n`` is 0).

    ``successes`` may be fractional (shared wins); the interval then treats it as a count.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def ranking_events(ranking: Ranking) -> list[tuple[int, tuple[int, ...], float]]:
    """Return the Plackett–Luce choice events of one finishing order as (chosen, choice set, weight).

    The choice set is the sorted multiset of strategies still unplaced; tied tiers are expanded into all
    their orders with equal weight. The last place carries no information and yields no event.
    """
    tiers = [list(t) for t in ranking if len(t)]
    orders_per_tier = [sorted(set(itertools.permutations(t))) for t in tiers]
    total = math.prod(len(o) for o in orders_per_tier)
    events: dict[tuple[int, tuple[int, ...]], float] = {}
    for combo in itertools.product(*orders_per_tier):
        order = [item for tier in combo for item in tier]
        for j in range(len(order) - 1):
            key = (order[j], tuple(sorted(order[j:])))
            events[key] = events.get(key, 0.0) + 1.0 / total
    return [(chosen, rest, w) for (chosen, rest), w in sorted(events.items())]


@dataclass
class _Design:
    """Distinct choice events and distinct games (as sparse rows over events) of a data set."""

    counts: NDArray[np.float64]  # events x items: how many seats of each strategy are in the choice set
    chosen: NDArray[np.int64]  # events: the strategy chosen
    game_events: NDArray[np.float64]  # distinct games x events: event weights of each distinct game
    game_counts: NDArray[np.float64]  # distinct games: how many times each occurred


def _design(rankings: Sequence[Ranking], num_items: int) -> _Design:
    event_ids: dict[tuple[int, tuple[int, ...]], int] = {}
    pattern_ids: dict[tuple[tuple[int, ...], ...], int] = {}
    pattern_rows: list[dict[int, float]] = []
    pattern_counts: list[float] = []
    for ranking in rankings:
        key = tuple(tuple(sorted(int(x) for x in tier)) for tier in ranking if len(tier))
        for tier in key:
            for item in tier:
                if not 0 <= item < num_items:
                    raise ValueError(f"strategy index {item} out of range; allowed: 0..{num_items - 1}")
        if key in pattern_ids:
            pattern_counts[pattern_ids[key]] += 1
            continue
        row: dict[int, float] = {}
        for pick, rest, w in ranking_events(key):
            e = event_ids.setdefault((pick, rest), len(event_ids))
            row[e] = row.get(e, 0.0) + w
        pattern_ids[key] = len(pattern_rows)
        pattern_rows.append(row)
        pattern_counts.append(1.0)
    counts = np.zeros((len(event_ids), num_items))
    chosen = np.zeros(len(event_ids), dtype=np.int64)
    for (c, rest), e in event_ids.items():
        chosen[e] = c
        np.add.at(counts[e], list(rest), 1.0)
    game_events = np.zeros((len(pattern_rows), len(event_ids)))
    for i, row in enumerate(pattern_rows):
        for e, w in row.items():
            game_events[i, e] = w
    return _Design(counts, chosen, game_events, np.asarray(pattern_counts))


def _log_posterior(theta: NDArray[np.float64], d: _Design, w: NDArray[np.float64], prec: float) -> float:
    shift = theta.max()
    totals = d.counts @ np.exp(theta - shift)
    return float(w @ (theta[d.chosen] - np.log(totals) - shift) - 0.5 * prec * theta @ theta)


def _newton(
    d: _Design, w: NDArray[np.float64], prec: float, theta: NDArray[np.float64], max_iter: int = 100
) -> NDArray[np.float64]:
    """Return the posterior mode of ``theta`` for event weights ``w`` (damped Newton from ``theta``)."""
    k = d.counts.shape[1]
    current = _log_posterior(theta, d, w, prec)
    for _ in range(max_iter):
        z = d.counts * np.exp(theta - theta.max())
        p = z / z.sum(axis=1, keepdims=True)  # events x items: probability each strategy is chosen
        grad = np.bincount(d.chosen, weights=w, minlength=k) - w @ p - prec * theta
        hess = (p * w[:, None]).T @ p - np.diag(w @ p) - prec * np.eye(k)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            candidate = theta - t * step
            value = _log_posterior(candidate, d, w, prec)
            if value >= current - 1e-12 or t < 1e-6:
                break
            t *= 0.5
        theta, current = candidate, value
        if np.max(np.abs(t * step)) < 1e-10:
            break
    return theta


def fit_plackett_luce(rankings: Sequence[Ranking], num_items: int, prior_sd: float = 3.0) -> NDArray[np.float64]:
    """Return the log-strengths ``theta`` (posterior mode) of ``num_items`` strategies from finishing orders."""
    if prior_sd <= 0:
        raise ValueError(f"prior_sd must be positive, got {prior_sd}")
    d = _design(rankings, num_items)
    w = d.game_counts @ d.game_events
    return _newton(d, w, 1.0 / prior_sd**2, np.zeros(num_items))


def rating_groups(rankings: Sequence[Ranking], num_items: int) -> list[list[int]]:
    """Return the strategies (that played) grouped so that every two in a group are linked by wins both ways.

    Strategy ``a`` *beats* ``b`` when ``a`` was placed while ``b`` was still unplaced (tied orders count
    both ways). The groups are the strongly connected components of that relation: with more than one
    group the maximum-likelihood gaps between groups are infinite (Ford's condition, Hunter 2004), so the
    fitted gaps there come from the prior alone.
    """
    d = _design(rankings, num_items)
    beats = np.eye(num_items, dtype=bool)
    for e, chosen in enumerate(d.chosen):
        beats[chosen] |= d.counts[e] > 0
    for k in range(num_items):  # transitive closure (Floyd-Warshall); strategies are few
        beats |= beats[:, [k]] & beats[[k], :]
    played = d.counts.sum(axis=0) > 0
    groups: list[list[int]] = []
    seen: set[int] = set()
    for i in range(num_items):
        if played[i] and i not in seen:
            group = [j for j in range(num_items) if played[j] and beats[i, j] and beats[j, i]]
            seen.update(group)
            groups.append(group)
    return groups


def to_elo(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """Return Elo-scale ratings of log-strengths, centred so that their mean is 1500."""
    elo: NDArray[np.float64] = ELO_CENTRE + ELO_PER_NAT * (theta - theta.mean())
    return elo


@dataclass(frozen=True)
class Rating:
    """One strategy's rating on the Elo scale with its bootstrap interval."""

    name: str
    elo: float
    low: float
    high: float
    theta: float

    def as_dict(self) -> dict[str, float | str]:
        return {"name": self.name, "elo": self.elo, "low": self.low, "high": self.high, "theta": self.theta}


def rate(
    rankings: Sequence[Ranking],
    names: Sequence[str],
    *,
    bootstrap: int = 200,
    seed: int = 0,
    level: float = 0.95,
    prior_sd: float = 3.0,
) -> list[Rating]:
    """Return Plackett–Luce ratings of ``names`` (indexed by the rankings' items) with bootstrap intervals."""
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be >= 0, got {bootstrap}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    k = len(names)
    d = _design(rankings, k)
    prec = 1.0 / prior_sd**2
    theta = _newton(d, d.game_counts @ d.game_events, prec, np.zeros(k))
    elo = to_elo(theta)
    low, high = elo.copy(), elo.copy()
    n_games = int(d.game_counts.sum())
    if bootstrap and n_games and k > 1:
        rng = np.random.default_rng(seed)
        probs = d.game_counts / n_games
        samples = np.empty((bootstrap, k))
        for b in range(bootstrap):
            resampled = rng.multinomial(n_games, probs).astype(np.float64)
            samples[b] = to_elo(_newton(d, resampled @ d.game_events, prec, theta.copy()))
        alpha = (1 - level) / 2
        low, high = np.quantile(samples, alpha, axis=0), np.quantile(samples, 1 - alpha, axis=0)
    return [
        Rating(str(name), float(elo[i]), float(low[i]), float(high[i]), float(theta[i])) for i, name in enumerate(names)
    ]
