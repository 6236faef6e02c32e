"""Training on packed observations (``env.packed_observations``) learns exactly what training on int8 ones does.

The smoke config (configs/smoke.yaml: the small map, a tiny network with the default shared turn trunk, past
selves and scripted AIs in the league) trains two updates from the same seed: straight through on unpacked
observations, and on packed ones as one update, a checkpoint and a resumed second update. Every weight must be
equal (torch.equal): the rollout, the turn groups, the update's chunks and the resume check read the packed
rows through the unpacker, and any difference would show in the weights.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from policies import checkpoint  # noqa: E402
from training.ppo.config import ConfigError, TrainConfig, from_dict  # noqa: E402
from training.ppo.game_setup import make_env  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = str(ROOT / "configs" / "smoke.yaml")
QUICK = ["--set", "eval.final_games=0", "--set", "imitation.teacher=none"]


def dw(*args: str) -> None:
    """Run one ``dw`` command in a process of its own (a fresh allocator and thread pool, as a user's run has).

    Within one test process, the memory other tests left behind changes where tensors are placed, and with
    it how the CPU kernels split their sums: two equal computations could differ in the last bit.
    """
    done = subprocess.run([sys.executable, "-m", "dw_cli.main", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("packed")
    plain, packed = base / "plain", base / "packed"
    train = ["train", "--config", CONFIG, *QUICK]
    dw(*train, "--run-dir", str(plain), "--set", "run.stop_after_updates=2")
    packed_on = ["--set", "env.packed_observations=true"]
    dw(*train, *packed_on, "--run-dir", str(packed), "--set", "run.stop_after_updates=1")
    resume = ["train", "--resume", str(packed / "checkpoint.pt"), "--set", "run.stop_after_updates=2"]
    dw(*resume, "--set", "eval.final_games=0")
    return {"plain": checkpoint.load(plain / "checkpoint.pt"), "packed": checkpoint.load(packed / "checkpoint.pt")}


def test_packed_and_unpacked_observations_train_the_same_weights(runs: dict[str, Any]) -> None:
    plain, packed = runs["plain"], runs["packed"]
    assert packed["config"]["env"]["packed_observations"] is True
    assert plain["config"]["env"]["packed_observations"] is False
    keys = ("env_steps", "updates", "games", "decisions")
    assert {k: packed["counters"][k] for k in keys} == {k: plain["counters"][k] for k in keys}
    assert plain["counters"]["updates"] == 2 and plain["counters"]["decisions"] > 0
    assert plain["model"].keys() == packed["model"].keys()
    for name, tensor in plain["model"].items():
        assert torch.equal(packed["model"][name], tensor), name


@pytest.mark.parametrize("value", ["yes", 1, None, "true"])
def test_the_config_key_refuses_what_is_not_true_or_false(value: object) -> None:
    with pytest.raises(ConfigError, match=f"env.packed_observations: must be true or false, got {value!r}"):
        from_dict({"env": {"packed_observations": value}})


def test_the_other_games_refuse_packed_observations() -> None:
    config: TrainConfig = from_dict({"game": {"name": "alveole"}, "env": {"packed_observations": True}})
    with pytest.raises(ValueError, match=r"env.packed_observations: true is for Domain Wheel's env only.*false"):
        make_env(config, 3, 1, 0)
