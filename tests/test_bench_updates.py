"""The timed updates of the training benchmarks (dw_cli/bench/updates.py): the first warms up, none is an error."""

from __future__ import annotations

import pytest

from dw_cli.bench.updates import per_second, timed_updates


def _update(steps: int, seconds: float) -> dict[str, float]:
    return {"steps": steps, "seconds": seconds, "rollout": seconds / 2}


def test_the_first_update_is_left_out_when_others_follow() -> None:
    history, secs = timed_updates({"history": [_update(10, 9.0), _update(100, 1.0), _update(300, 3.0)]}, "x", 5)
    assert [h["steps"] for h in history] == [100, 300] and secs == 4.0
    assert per_second(history, "steps", secs) == 100.0 and per_second(history, "rollout", secs) == 0.5


def test_a_lone_update_counts() -> None:
    history, secs = timed_updates({"history": [_update(50, 2.0)]}, "x", 5)
    assert len(history) == 1 and secs == 2.0


def test_no_update_names_the_case_and_the_time() -> None:
    with pytest.raises(RuntimeError, match=r"no update of standard, all cores finished in 3 s; try a larger"):
        timed_updates({"history": []}, "standard, all cores", 3.0)
