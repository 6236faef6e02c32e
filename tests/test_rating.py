"""Wilson intervals and the Plackett–Luce rating (training/evaluation/rating.py), checked on data with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from training.evaluation.rating import (
    ELO_PER_NAT,
    fit_plackett_luce,
    ranking_events,
    rate,
    rating_groups,
    to_elo,
    wilson_interval,
)


# ---- Wilson ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (81, 263, 0.2552885, 0.3662096),  # Newcombe (1998), Stat. Med. 17:857, example (b)
        (0, 10, 0.0, 0.2775328),
        (10, 10, 0.7224672, 1.0),
        (5, 10, 0.2365931, 0.7634069),
        (1, 3, 0.0614919, 0.7923404),
    ],
)
def test_wilson_interval_matches_published_values(successes: int, n: int, low: float, high: float) -> None:
    got = wilson_interval(successes, n)
    assert got == pytest.approx((low, high), abs=1e-6)


def test_wilson_interval_accepts_shared_wins_and_edge_cases() -> None:
    low, high = wilson_interval(2.5, 6)  # ties: 1/k wins are fractional
    assert 0 < low < 2.5 / 6 < high < 1
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="successes <= n"):
        wilson_interval(7, 6)


def test_wilson_interval_covers_the_true_rate_about_95_percent() -> None:
    rng = np.random.default_rng(3)
    p, n = 0.3, 80
    hits = sum(lo <= p <= hi for lo, hi in (wilson_interval(int(k), n) for k in rng.binomial(n, p, size=2000)))
    assert 0.93 <= hits / 2000 <= 0.975


# ---- Plackett–Luce --------------------------------------------------------------------------------------
def _simulate(theta: np.ndarray, games: int, seed: int) -> list[list[list[int]]]:
    """Three seats drawn with repetition; finishing order drawn by Plackett–Luce with strengths exp(theta)."""
    rng = np.random.default_rng(seed)
    rankings = []
    for _ in range(games):
        rest = list(rng.integers(0, len(theta), size=3))
        order = []
        while rest:
            s = np.exp(theta[rest])
            order.append([rest.pop(int(rng.choice(len(rest), p=s / s.sum())))])
        rankings.append(order)
    return rankings


def test_ranking_events_of_strict_and_tied_orders() -> None:
    assert ranking_events([[2], [0], [1]]) == [(0, (0, 1), 1.0), (2, (0, 1, 2), 1.0)]
    # two joint winners: both orders, half weight each; the loser's last place is implied
    assert ranking_events([[0, 1], [2]]) == [
        (0, (0, 1, 2), 0.5),
        (0, (0, 2), 0.5),
        (1, (0, 1, 2), 0.5),
        (1, (1, 2), 0.5),
    ]
    # two seats of the same strategy: the choice set counts it twice
    assert ranking_events([[1], [1], [0]]) == [(1, (0, 1), 1.0), (1, (0, 1, 1), 1.0)]


def test_rating_recovers_known_strengths() -> None:
    true = np.array([0.0, 0.4, 0.8, 1.6])
    ratings = rate(_simulate(true, 3000, seed=1), ["d", "c", "b", "a"], bootstrap=100, seed=0)
    assert [r.name for r in sorted(ratings, key=lambda r: -r.elo)] == ["a", "b", "c", "d"]
    expected = to_elo(true)
    for r, e in zip(ratings, expected, strict=True):
        assert r.low < r.elo < r.high
        assert abs(r.elo - e) < 40, (r, e)  # the intervals are about +-15 Elo here
    covered = sum(r.low - 10 <= e <= r.high + 10 for r, e in zip(ratings, expected, strict=True))
    assert covered >= 3


def test_two_player_plackett_luce_is_elo() -> None:
    """With two seats PL is Elo's logistic model: winning 3 of 4 games is a 400*log10(3) = 191-point gap."""
    rankings = [[[0], [1]]] * 300 + [[[1], [0]]] * 100
    theta = fit_plackett_luce(rankings, 2, prior_sd=1e6)
    assert (theta[0] - theta[1]) * ELO_PER_NAT == pytest.approx(400 * math.log10(3), abs=0.5)


def test_ties_pull_ratings_together_and_unbeaten_strategies_stay_finite() -> None:
    all_tied = [[[0, 1, 2]]] * 50
    assert np.allclose(fit_plackett_luce(all_tied, 3), 0.0)
    unbeaten = [[[0], [1], [1]]] * 200
    theta = fit_plackett_luce(unbeaten, 2)
    assert np.all(np.isfinite(theta)) and theta[0] - theta[1] > 3  # the weak prior keeps it finite


def test_rating_is_reproducible_and_handles_one_strategy() -> None:
    data = _simulate(np.array([0.0, 1.0]), 200, seed=5)
    assert rate(data, ["x", "y"], bootstrap=30, seed=7) == rate(data, ["x", "y"], bootstrap=30, seed=7)
    (only,) = rate([[[0], [0], [0]]] * 10, ["random"], bootstrap=20)
    assert (only.elo, only.low, only.high) == (1500.0, 1500.0, 1500.0)
    with pytest.raises(ValueError, match="out of range"):
        rate([[[0], [3], [1]]], ["a", "b"])


def test_rating_groups_find_strategies_the_data_cannot_rate_against_each_other() -> None:
    """Hunter (2004): finite maximum-likelihood ratings need wins both ways across every split."""
    assert rating_groups([[[0], [1], [1]]] * 3, 2) == [[0], [1]]  # 0 always ahead of 1
    assert rating_groups([[[0], [1], [2]], [[1], [0], [2]]], 3) == [[0, 1], [2]]
    assert rating_groups([[[0, 1], [2]]], 4) == [[0, 1], [2]]  # a tie links both ways; 3 never played
    assert rating_groups([[[0], [1], [2]], [[2], [0], [1]]], 3) == [[0, 1, 2]]  # a cycle links all
