"""``network.init_from``: a run that starts from another run's weights (the next stage of a curriculum over maps).

The smoke config (configs/smoke.yaml) trains a tiny network on the small map; the next stage trains the same
network on a map with one more ring, starting from the first stage's ``policy.pt``. The file is read once,
checked whole before anything is written, and never again: ``--resume`` continues from the run's own weights.
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
NEXT_MAP = ["--set", "game.map_radius=3", "--set", "imitation.teacher=none", "--set", "eval.final_games=0"]


@pytest.fixture(scope="module")
def first_stage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("stage") / "one"
    assert main(["train", "--config", CONFIG, "--run-dir", str(run), "--set", "eval.final_games=0"]) == 0
    return run / "policy.pt"


def _start(first: Path, run: Path, *extra: str) -> Any:
    from training.ppo.config import load
    from training.ppo.ppo import start_session

    config = load(CONFIG, [f"network.init_from={first}", "game.map_radius=3", "imitation.teacher=none", *extra])
    return start_session(config, None, run)


def test_the_next_stage_starts_from_the_previous_weights_on_another_map(first_stage: Path, tmp_path: Path) -> None:
    session = _start(first_stage, tmp_path / "two")
    saved = checkpoint.load(first_stage)["model"]
    assert session.net.geometry.num_lands > 19  # the bigger map
    for name, tensor in session.net.state_dict().items():
        assert torch.equal(tensor, saved[name]), name
    session.writer.close()


def test_a_fresh_run_differs_from_the_started_one(first_stage: Path, tmp_path: Path) -> None:
    from training.ppo.config import load
    from training.ppo.ppo import start_session

    fresh = start_session(load(CONFIG, ["game.map_radius=3", "imitation.teacher=none"]), None, tmp_path / "fresh")
    saved = checkpoint.load(first_stage)["model"]
    assert any(not torch.equal(t, saved[k]) for k, t in fresh.net.state_dict().items())
    fresh.writer.close()


def test_the_started_run_trains_and_resumes_without_the_file(first_stage: Path, tmp_path: Path) -> None:
    start = tmp_path / "start.pt"
    start.write_bytes(first_stage.read_bytes())
    split, straight = tmp_path / "split", tmp_path / "straight"
    args = ["train", "--config", CONFIG, "--set", f"network.init_from={start}", *NEXT_MAP]
    assert main([*args, "--run-dir", str(straight)]) == 0
    assert main([*args, "--run-dir", str(split), "--set", "run.stop_after_updates=2"]) == 0
    start.unlink()  # resume reads the run's checkpoint only
    assert main(["train", "--resume", str(split), "--set", "run.stop_after_updates=0"]) == 0
    resumed, whole = checkpoint.load(split / "checkpoint.pt"), checkpoint.load(straight / "checkpoint.pt")
    assert resumed["counters"]["updates"] == whole["counters"]["updates"] == 4
    for name, tensor in whole["model"].items():
        assert torch.equal(resumed["model"][name], tensor), name
    assert resumed["config"]["network"]["init_from"] == str(start)
    assert "init_from" not in resumed["network"]  # the file's network size keys stay the size only


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        (["network.channels=12"], checkpoint.CheckpointError, r"another size: channels 8 \(this config: 12\)"),
        ([], FileNotFoundError, "no such checkpoint"),
    ],
    ids=["other-size", "missing-file"],
)
def test_a_file_that_does_not_fit_is_refused_before_anything_is_written(
    first_stage: Path, tmp_path: Path, changes: list[str], error: type[Exception], message: str
) -> None:
    source = first_stage if changes else tmp_path / "missing.pt"
    run = tmp_path / "refused"
    with pytest.raises(error, match=message):
        _start(source, run, *changes)
    assert not run.exists()


def test_another_games_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.ppo.config import from_dict
    from training.ppo.game_setup import make_network
    from training.ppo.resume import save_checkpoint

    config = from_dict({"game": {"name": "alveole"}, "network": {"channels": 8, "cell_layers": 1}})
    other = tmp_path / "alveole.pt"
    counters = {"env_steps": 0, "updates": 0, "games": 0, "decisions": 0, "seconds": 0.0}
    save_checkpoint(other, make_network(config, torch.device("cpu")), config, counters, None)
    code = main(["train", "--config", CONFIG, "--run-dir", str(tmp_path / "r"), "--set", f"network.init_from={other}"])
    assert code != 0
    assert "a checkpoint of alveole, not of domain_wheel" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_the_curriculum_configs_chain_their_stages_and_the_first_fits_the_shipped_agent() -> None:
    from training.ppo.config import load
    from training.ppo.game_setup import initial_weights

    root = Path(CONFIG).parent
    small = [
        load(root / f"{name}.yaml")
        for name in ("small_agent", "small_agent_lift1", "small_agent_lift2", "small_agent_lift3")
    ]
    stages = [
        load(root / f"{name}.yaml")
        for name in (
            "curriculum-r3",
            "curriculum-n2r3",
            "curriculum-standard",
            "standard-lift1",
            "standard-lift2",
            "standard-lift3",
            "standard-lift4",
        )
    ]
    maps = [(c.options.land_radius, c.options.map_radius) for c in stages]
    assert maps == [
        (1, 3),
        (2, 3),
        (2, 4),
        (2, 4),
        (2, 4),
        (2, 4),
        (2, 4),
    ]  # after the small map (1, 2) of the small agent's first stage
    assert {(c.options.land_radius, c.options.map_radius) for c in small} == {(1, 2)}
    assert small[0].network.init_from is None and small[0].imitation.teacher == "balanced"
    assert stages[0].network.init_from == f"runs/{small[0].run.name}/policy.pt"  # the first small agent
    chain = [*small, *stages[1:]]
    for before, after in [*zip(small, small[1:], strict=False), *zip(stages, stages[1:], strict=False)]:
        assert after.network.init_from == f"runs/{before.run.name}/policy.pt"
        assert after.network_size() == before.network_size()
    assert all(c.network_size() == stages[0].network_size() for c in chain)
    shipped = load(root / "curriculum-r3.yaml", [f"network.init_from={root.parent / 'checkpoints' / 'small-agent.pt'}"])
    payload = initial_weights(shipped)  # the shipped agent is the last small stage: its weights fit too
    assert payload is not None and payload["counters"]["env_steps"] == 3_010_560
    assert payload["config"]["run"]["name"] == small[-1].run.name
    standard = load(
        root / "curriculum-r3.yaml", [f"network.init_from={root.parent / 'checkpoints' / 'standard-agent.pt'}"]
    )
    payload = initial_weights(standard)  # the shipped standard agent is the last standard stage
    assert payload is not None and payload["counters"]["env_steps"] == 16_011_264
    assert payload["config"]["run"]["name"] == stages[-1].run.name
