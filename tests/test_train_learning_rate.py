"""The learning rate's decay (training/ppo/ppo.py ``LearningRate``): over the steps, or over the first limit.

``anneal_until: steps`` decays over run.total_env_steps whatever the clock says. ``first_limit`` ends the
decay at the deadline (run.max_minutes) when this session's pace would not reach the steps by then, and is
the steps' schedule wherever the steps end the run first, so those runs still repeat exactly.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from training.ppo import config as cfg  # noqa: E402
from training.ppo.ppo import LearningRate  # noqa: E402

LR, TOTAL = 3e-4, 1_000_000
INF = float("inf")


def config(until: str, anneal: bool = True) -> cfg.TrainConfig:
    return cfg.from_dict(
        {"run": {"total_env_steps": TOTAL}, "ppo": {"learning_rate": LR, "anneal_lr": anneal, "anneal_until": until}}
    )


def test_steps_decay_ignores_the_clock() -> None:
    steps_only = config("steps")
    slow = LearningRate(start_steps=0, started=0.0, deadline=100.0)  # 100k steps in 90 of 100 s: far from TOTAL
    assert slow.at(steps_only, 100_000, 90.0) == pytest.approx(LR * 0.9)
    assert slow.at(steps_only, 0, 0.0) == LR
    assert slow.at(steps_only, TOTAL, 99.0) == 0.0


def test_first_limit_without_a_deadline_is_the_steps_decay() -> None:
    no_limit = LearningRate(start_steps=0, started=0.0, deadline=INF)
    for steps, now in [(0, 0.0), (250_000, 1e4), (900_000, 1e6)]:
        assert no_limit.at(config("first_limit"), steps, now) == no_limit.at(config("steps"), steps, now)


def test_a_slow_session_ends_annealed_at_the_deadline() -> None:
    """400k steps in 40 of 100 s: the pace reaches 1M at the deadline, so the decay ends there, not later."""
    session, first = LearningRate(start_steps=0, started=0.0, deadline=100.0), config("first_limit")
    assert session.end_steps(first, 200_000, 50.0) == pytest.approx(400_000)  # 200k + 4k/s * 50 s
    assert session.at(first, 200_000, 50.0) == pytest.approx(LR * 0.5)  # halfway in time, not 0.8 as by steps
    assert session.at(first, 200_000, 50.0) < session.at(config("steps"), 200_000, 50.0)
    assert session.at(first, 399_000, 99.75) == pytest.approx(LR * (1 - 399_000 / 400_000))
    assert session.at(first, 400_000, 100.0) == 0.0  # the deadline: fully annealed
    assert session.at(first, 410_000, 105.0) == 0.0  # an update that overran it: never negative


def test_the_pace_is_trusted_only_after_a_tenth_of_the_time() -> None:
    """The first updates (processes starting, caches warming) would understate the pace."""
    session, first = LearningRate(start_steps=0, started=0.0, deadline=100.0), config("first_limit")
    assert session.end_steps(first, 1_000, 9.9) == TOTAL  # 100 steps/s would project 10k: not yet believed
    assert session.end_steps(first, 1_000, 10.0) == pytest.approx(1_000 + 100 * 90)


def test_a_fast_session_keeps_the_steps_schedule_exactly() -> None:
    """Where the steps end the run first the projection stays above TOTAL: the same rate at every update."""
    session, first, steps_only = LearningRate(0, 0.0, 100.0), config("first_limit"), config("steps")
    for steps in range(0, TOTAL, 50_000):
        now = steps / 20_000  # 20k steps/s: 1M in 50 of 100 s
        assert session.at(first, steps, now) == session.at(steps_only, steps, now)


def test_a_resumed_session_projects_its_own_pace_and_continues_the_decay() -> None:
    """A resumed run starts at its checkpoint's count; the pace counts this session's steps only."""
    resumed, first = LearningRate(start_steps=600_000, started=1000.0, deadline=1100.0), config("first_limit")
    assert resumed.at(first, 600_000, 1000.0) == pytest.approx(LR * 0.4)  # where the steps' decay left it
    assert resumed.end_steps(first, 700_000, 1050.0) == pytest.approx(800_000)  # 2k/s for the last 50 s
    assert resumed.end_steps(first, 650_000, 1010.0) == TOTAL  # 5k/s would pass TOTAL: capped there


def test_no_anneal_is_constant() -> None:
    session = LearningRate(0, 0.0, 100.0)
    assert session.at(config("first_limit", anneal=False), 400_000, 99.0) == LR
    assert session.at(config("steps", anneal=False), TOTAL - 1, 99.0) == LR
