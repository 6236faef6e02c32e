"""``dw train`` end to end on the small map (configs/smoke.yaml): a few PPO updates, logs, checkpoints, resume.

The smoke config runs 4 updates of 16 games x 24 steps with a tiny network. One run stops after 2 updates
(``run.stop_after_updates``, which leaves the learning-rate schedule alone) and is resumed from the
checkpoint it wrote; a second run goes straight through. Exact resumption means the two end with the same
counters and bit-identical weights.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from dw_cli.main import main  # noqa: E402
from policies import checkpoint  # noqa: E402

CONFIG = str(Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("train")
    split, straight = base / "split", base / "straight"
    out: dict[str, Any] = {"split": split, "straight": straight}
    assert main(["train", "--config", CONFIG, "--run-dir", str(split), "--set", "run.stop_after_updates=2"]) == 0
    out["first"] = checkpoint.load(split / "checkpoint.pt")
    resume = ["train", "--resume", str(split / "checkpoint.pt"), "--set", "run.stop_after_updates=0"]
    assert main([*resume, "--set", "eval.final_games=0"]) == 0
    assert main(["train", "--config", CONFIG, "--run-dir", str(straight), "--set", "eval.final_games=0"]) == 0
    return out


def test_a_run_writes_checkpoint_policy_config_and_logs(runs: dict[str, Any]) -> None:
    split: Path = runs["split"]
    for name in ("checkpoint.pt", "policy.pt", "config.yaml"):
        assert (split / name).is_file(), name
    assert list(split.glob("events.out.tfevents.*"))
    assert "training" not in checkpoint.load(split / "policy.pt")  # the arena file is small: weights only
    assert "ppo:" in (split / "config.yaml").read_text()


def test_first_session_stopped_after_two_updates(runs: dict[str, Any]) -> None:
    counters = runs["first"]["counters"]
    assert counters["updates"] == 2
    assert counters["env_steps"] == 2 * 16 * 24


def test_resume_continues_counters_and_weights_exactly(runs: dict[str, Any]) -> None:
    resumed = checkpoint.load(runs["split"] / "checkpoint.pt")
    straight = checkpoint.load(runs["straight"] / "checkpoint.pt")
    keys = ("env_steps", "updates", "games", "decisions")
    assert {k: resumed["counters"][k] for k in keys} == {k: straight["counters"][k] for k in keys}
    assert resumed["counters"]["updates"] == 4 and resumed["counters"]["env_steps"] == 1536
    assert resumed["counters"]["games"] > runs["first"]["counters"]["games"] > 0
    for name, tensor in straight["model"].items():
        assert torch.equal(resumed["model"][name], tensor), name


def test_tensorboard_has_cleanrl_layout(runs: dict[str, Any]) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags: set[str] = set()
    for events in runs["split"].glob("events.out.tfevents.*"):
        acc = EventAccumulator(str(events))
        acc.Reload()
        tags |= set(acc.Tags()["scalars"])
    expected = {
        "charts/SPS",
        "charts/learning_rate",
        "losses/policy_loss",
        "losses/value_loss",
        "losses/entropy",
        "losses/approx_kl",
        "losses/clipfrac",
        "losses/explained_variance",
        "eval/win_rate/random",
    }
    assert expected <= tags
    assert any(t.startswith("charts/win_rate/") for t in tags)


def test_final_evaluation_is_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["train", "--config", CONFIG, "--run-dir", str(tmp_path / "r"), "--set", "run.total_env_steps=384"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "win rates as one seat against two copies" in out
    assert "random" in out and "95%" in out


def _tampered(src: Path, dst: Path, **changes: Any) -> Path:
    payload = torch.load(src, weights_only=True)
    payload.update(changes)
    torch.save(payload, dst)
    return dst


def test_resume_refuses_another_observation_version(
    runs: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _tampered(runs["split"] / "checkpoint.pt", tmp_path / "old.pt", observation_version="dw-obs-v0")
    assert main(["train", "--resume", str(bad)]) == 2
    assert "made for observation layout 'dw-obs-v0'" in capsys.readouterr().err


def test_resume_refuses_another_map_size(runs: dict[str, Any]) -> None:
    from training.ppo.config import load
    from training.ppo.ppo import train

    other = load(CONFIG, ["game.map_radius=3"])
    with pytest.raises(checkpoint.CheckpointError, match="made for map size land_radius=1, map_radius=2"):
        train(other, resume=runs["split"] / "checkpoint.pt")


def test_resume_refuses_a_corrupt_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "checkpoint.pt"
    bad.write_bytes(b"PK\x03\x04 not really a checkpoint")
    assert main(["train", "--resume", str(bad)]) == 2
    assert "not a readable checkpoint" in capsys.readouterr().err


def test_resume_refuses_config_changes(runs: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    path = str(runs["split"] / "checkpoint.pt")
    assert main(["train", "--resume", path, "--set", "ppo.learning_rate=0.1"]) == 2
    assert "--set ppo.learning_rate cannot change when resuming" in capsys.readouterr().err
    assert main(["train", "--resume", path, "--config", CONFIG]) == 2


def test_bad_config_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("ppo:\n  learning_rat: 0.1\n")
    assert main(["train", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "unknown key ppo.learning_rat" in err and "allowed in 'ppo': learning_rate" in err


def test_an_exploiter_objective_trains_and_is_recorded(tmp_path: Path) -> None:
    """``env.objective`` swaps the reward for an exploiter's (training/ppo/objectives.py); the run records it."""
    run = tmp_path / "exploiter"
    args = ["train", "--config", CONFIG, "--run-dir", str(run), "--set", "env.objective=centre_denial"]
    assert main([*args, "--set", "run.stop_after_updates=1", "--set", "eval.final_games=0"]) == 0
    assert "objective: centre_denial" in (run / "config.yaml").read_text()
    assert checkpoint.load(run / "checkpoint.pt")["counters"]["updates"] == 1


def test_an_unknown_objective_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["train", "--config", CONFIG, "--run-dir", str(tmp_path / "r"), "--set", "env.objective=cheat"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "env.objective" in err and "centre_denial" in err


def test_a_file_from_before_tuple_arrays_were_saved_resumes_exactly(runs: dict[str, Any], tmp_path: Path) -> None:
    """Domain Wheel's tuple-held env arrays are constants, scratch or aliases: a file without them resumes exactly."""
    old = {**runs["first"], "training": dict(runs["first"]["training"])}
    table = dict(old["training"]["table"])
    table["env"] = {k: v for k, v in table["env"].items() if "." not in k}
    assert len(table["env"]) < len(runs["first"]["training"]["table"]["env"])  # there was something to strip
    old["training"]["table"] = table
    folder = tmp_path / "older"
    folder.mkdir()
    checkpoint.save(folder / "checkpoint.pt", old)
    resume = ["train", "--resume", str(folder), "--set", "run.stop_after_updates=0", "--set", "eval.final_games=0"]
    assert main(resume) == 0
    resumed, straight = checkpoint.load(folder / "checkpoint.pt"), checkpoint.load(runs["straight"] / "checkpoint.pt")
    assert resumed["counters"]["updates"] == straight["counters"]["updates"] == 4
    for name, tensor in straight["model"].items():
        assert torch.equal(resumed["model"][name], tensor), name
