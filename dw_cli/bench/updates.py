"""The updates a timed ``dw train`` call measured, for the benchmarks that time training (train, gpu, cluster)."""

from __future__ import annotations

from typing import Any


def timed_updates(result: dict[str, Any], what: str, seconds: float) -> tuple[list[dict[str, Any]], float]:
    """Return the updates of ``result`` that count (the first warms up when others follow) and their seconds.

    RuntimeError, naming ``what`` and the time it had, when no update finished.
    """
    history = result["history"][1:] or result["history"]
    if not history:
        raise RuntimeError(f"no update of {what} finished in {seconds:.0f} s; try a larger --seconds")
    return history, sum(h["seconds"] for h in history)


def per_second(history: list[dict[str, Any]], key: str, seconds: float) -> float:
    """Return the sum of ``key`` over the updates, per second of them."""
    return float(sum(h[key] for h in history)) / seconds


def training_rates(result: dict[str, Any], what: str, seconds: float) -> dict[str, float]:
    """Return a timed run's env steps/s, learner decisions/s, rollout share and the number of updates measured."""
    history, secs = timed_updates(result, what, seconds)
    return {
        "env_steps_per_s": per_second(history, "steps", secs),
        "decisions_per_s": per_second(history, "decisions", secs),
        "rollout_share": per_second(history, "rollout", secs),
        "updates": len(history),
    }
