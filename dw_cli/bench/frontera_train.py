"""``dw bench train --game frontera``: Frontera's training cases alone (dw_cli/bench/frontera_cases.py), read
against Domain Wheel's ``standard`` case measured in the same run."""

from __future__ import annotations

from typing import Any

from dw_cli.bench import frontera_cases, train


def run(seconds: float = 5.0) -> dict[str, Any]:
    """``dw bench train --game frontera``: the Frontera cases and their reference; print and return them."""
    from dw_cli.bench.machine import describe

    results: dict[str, Any] = {"machine": describe()}
    print(f"dw bench train --game frontera: PPO, rollout + update ({results['machine']}; higher is better)")
    results[frontera_cases.REFERENCE] = train.measure(
        frontera_cases.REFERENCE, max(seconds, train.MIN_SECONDS["standard"])
    )
    frontera_cases.report(results, seconds, train.measure)
    return results
