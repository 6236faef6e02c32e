"""examples/rllib_ppo_masked.py: RLlib's PPO with action masking on the PettingZoo env, on a tiny budget.

RLlib is its own extra (``rllib``: it pins gymnasium==1.2.2, see docs/SCALING.md), installed in a venv of its
own, so the tests that need it carry the ``rllib`` marker: the main run deselects them (``-m "not rllib"``) and
the RLlib venv runs them (``-m rllib``; .ci/run and the README's test command do both). Selected where RLlib is
missing, they fail saying what to install. With it they train one iteration end to end in a subprocess (its
own bounded Ray instance: 1 CPU, 100 MB object store, no dashboard, files under a temp folder).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rllib_ppo_masked.py"


def _require_rllib() -> None:
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        pytest.fail("RLlib is not installed: pip install -e '.[env,train,rllib,dev]' (its own venv), or -m 'not rllib'")


def needs_rllib(test):  # type: ignore[no-untyped-def]
    """Mark a test as RLlib's (deselected in the main run) and make it fail, not skip, without RLlib."""
    import functools

    @functools.wraps(test)
    def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
        _require_rllib()
        return test(*args, **kwargs)

    return pytest.mark.rllib(wrapper)


def _example():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("rllib_ppo_masked", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_refuses_bad_budgets() -> None:
    example = _example()
    with pytest.raises(SystemExit):
        example.parse_args(["--batch", "0"])
    with pytest.raises(SystemExit):
        example.parse_args(["--batch", "100", "--minibatch", "200"])


@needs_rllib
def test_masked_env_renames_the_observation_and_keeps_the_mask() -> None:
    env = _example().make_env({"land_radius": 1, "map_radius": 2, "max_rounds": 10})
    obs, _ = env.reset(seed=3)
    (agent,) = obs
    space = env.observation_spaces[agent]
    assert set(space.spaces) == {"observations", "action_mask"}
    assert obs[agent]["observations"].dtype == np.float32 and space.contains(obs[agent])
    seen = [agent]
    for _ in range(6):  # a move is two env actions (a piece, then its destination) or one (pass, end request)
        (acting,) = obs
        legal = np.flatnonzero(obs[acting]["action_mask"])
        assert len(legal) > 0 and env.observation_spaces[acting].contains(obs[acting])
        obs, _, terminated, _, _ = env.step({acting: int(legal[0])})
        assert not terminated["__all__"] and len(obs) == 1
        seen.append(next(iter(obs)))
    assert len(set(seen)) > 1  # the turn moved on to the next seat


@needs_rllib
def test_example_trains_one_iteration_and_evaluates() -> None:
    temp = tempfile.mkdtemp(prefix="dwrl-", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes
    env = {**os.environ, "RAY_TMPDIR": temp, "OMP_NUM_THREADS": "1"}
    argv = ["--iterations", "1", "--batch", "200", "--minibatch", "100", "--epochs", "1", "--hidden", "32"]
    argv += ["--eval-games", "2", "--cpus", "1"]
    try:
        done = subprocess.run(
            [sys.executable, str(EXAMPLE), *argv], capture_output=True, text=True, timeout=240, cwd=ROOT, env=env
        )
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "iteration 1: 200" in done.stdout
    assert "greedy shared policy in seat 0 vs two random seats, 2 games: win rate" in done.stdout
