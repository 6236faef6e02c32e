"""``dw train --resume`` checks every restored array of the games in progress (issue 45, finding 11).

A checkpoint's table holds the vector env's last outputs (observations, masks, players to act, rewards,
winners, step counters) and the learner's open decisions. A tampered or damaged one used to be restored
silently: NaN rewards poisoned the advantages, an all-ones mask surfaced many steps later as "action 61
of env 0 is not legal". Each test trains one tiny update per game, edits one array in the checkpoint and
checks that resuming is refused with a message naming the array, before anything changed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from policies.checkpoint import CheckpointError  # noqa: E402
from training.ppo.config import load  # noqa: E402
from training.ppo.ppo import train  # noqa: E402

GAMES = {
    "domain_wheel": "{land_radius: 1, map_radius: 2, max_rounds: 8}",
    "alveole": "{name: alveole, max_plies: 80}",
    "conquer": "{name: conquer, width: 7, height: 7}",
}
#: each game's env array names: (masks, players to act, observations)
NAMES = {
    "domain_wheel": ("_masks", "_acting", "_obs"),
    "alveole": ("_masks", "_acting", "_obs"),
    "conquer": ("_out.1", "_out.2", "_out.0"),
}


def _config(tmp_path: Path, game: str) -> Path:
    text = f"""
run: {{name: tiny, seed: 2, total_env_steps: 4096, max_minutes: 0, device: cpu, torch_threads: 1, network_threads: 1,
       env_threads: 1, checkpoint_every: 1, progress: false, out_dir: {tmp_path / "runs"}}}
game: {GAMES[game]}
env: {{num_envs: 8, num_steps: 24}}
ppo: {{num_minibatches: 2, update_epochs: 1}}
network: {{channels: 8, cell_layers: 1, land_layers: 0, head_hidden: 16}}
league: {{snapshot_every: 1, keep: 2, weights: {{latest: 1.0, past: 0.5, random: 0.5}}}}
imitation: {{teacher: none}}
eval: {{final_games: 0}}
"""
    path = tmp_path / "tiny.yaml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module", params=list(GAMES))
def saved(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Any]:
    """(game, config path, checkpoint payload) after one update of a tiny run of each game."""
    game = request.param
    tmp = tmp_path_factory.mktemp(game)
    config = _config(tmp, game)
    train(load(config, ["run.stop_after_updates=1"]), run_dir=tmp / "run")
    return game, config, torch.load(tmp / "run" / "checkpoint.pt", weights_only=True)


def _refused(saved: tuple[str, Path, Any], tmp_path: Path, change: Callable[[Any, str], None], message: str) -> None:
    game, config, payload = saved
    payload = _copy(payload)
    change(payload["training"]["table"], game)
    path = tmp_path / "tampered" / "checkpoint.pt"
    path.parent.mkdir()
    torch.save(payload, path)
    before = sorted(p.name for p in path.parent.iterdir())
    with pytest.raises(CheckpointError, match=message) as info:
        train(load(config, ["run.stop_after_updates=2"]), resume=path)
    assert len(str(info.value)) < 1000
    assert sorted(p.name for p in path.parent.iterdir()) == before


def _copy(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _open_slot(table: Any) -> int:
    slots = np.flatnonzero(table["rollout"]["open"].numpy())
    assert len(slots), "the run should stop with an open decision"
    return int(slots[0])


def _nan_reward(table: Any, game: str) -> None:
    table["rollout"]["open_decisions"]["rewards"][_open_slot(table)] = float("nan")


def _nan_env_reward(table: Any, game: str) -> None:
    name = "_out.3" if game == "conquer" else "_rewards"
    table["env"][name][2, 1] = float("inf")


def _all_ones_masks(table: Any, game: str) -> None:
    table["env"][NAMES[game][0]][:] = 1
    table["masks"][:] = 1


def _table_masks_only(table: Any, game: str) -> None:
    table["masks"][0] = 1


def _acting(table: Any, game: str) -> None:
    table["env"][NAMES[game][1]][3] = 7


def _acting_other_seat(table: Any, game: str) -> None:
    table["env"][NAMES[game][1]][3] = 1 - int(table["env"][NAMES[game][1]][3])


def _observation(table: Any, game: str) -> None:
    table["env"][NAMES[game][2]][1, 0] += 1


def _winners(table: Any, game: str) -> None:
    table["env"]["_out.7" if game == "conquer" else "_winners"][0, 0] = 5


def _steps(table: Any, game: str) -> None:
    table["env"]["_out.9" if game == "conquer" else "_episode_steps"][0] = -3


def _illegal_open_action(table: Any, game: str) -> None:
    slot = _open_slot(table)
    decisions = table["rollout"]["open_decisions"]
    illegal = np.flatnonzero(decisions["masks"][slot].numpy() == 0)
    decisions["actions"][slot] = int(illegal[0])


def _finished(table: Any, game: str) -> None:
    # (array, OVER entry, END_REASON entry, a truncation's reason): a finished game restarts in its last step
    name, over, reason, truncated = {
        "domain_wheel": ("_scalars", 4, 5, 4),
        "alveole": ("_state.2", 2, 4, 3),
        "conquer": ("_scalars", 2, 3, 2),
    }[game]
    table["env"][name][0, over] = 1
    table["env"][name][0, reason] = truncated


CHANGES = [
    (_nan_reward, r"open_decisions\.rewards: holds nan .*allowed: finite numbers"),
    (_nan_env_reward, r"table\.env\.(_rewards|_out\.3): holds inf at \[2, 1\]; allowed: finite"),
    (_all_ones_masks, r"table\.env\.(_masks|_out\.1): slot 0 allows \d+ actions; its game's legal actions are"),
    (_table_masks_only, r"table\.masks: slot 0 allows \d+ actions; its game's legal actions are"),
    (_acting, r"table\.env\.(_acting|_out\.2): values must be in 0\.\.[12], got 0\.\.7"),
    (_acting_other_seat, r"table\.env\.(_acting|_out\.2): slot 3 holds \d; its game's player to act is \d"),
    (_observation, r"table\.env\.(_obs|_out\.0): slot 1 is not its game's observation"),
    (_winners, r"table\.env\.(_winners|_out\.7): values must be in 0\.\.1, got 0\.\.5"),
    (_steps, r"table\.env\.(_episode_steps|_out\.9): values must be in 0\.\."),
    (_finished, r"slot 0 holds a finished game"),
    (_illegal_open_action, r"open_decisions\.actions: slot \d+ took action \d+, which its mask does not allow"),
]


@pytest.mark.parametrize(("change", "message"), CHANGES, ids=[c.__name__.strip("_") for c, _ in CHANGES])
def test_a_tampered_array_of_the_games_in_progress_is_refused(
    saved: tuple[str, Path, Any], tmp_path: Path, change: Callable[[Any, str], None], message: str
) -> None:
    _refused(saved, tmp_path, change, message)


def test_an_untouched_checkpoint_resumes(saved: tuple[str, Path, Any], tmp_path: Path) -> None:
    _, config, payload = saved
    path = tmp_path / "checkpoint.pt"
    torch.save(payload, path)
    train(load(config, ["run.stop_after_updates=2"]), resume=path)  # raises CheckpointError if refused
