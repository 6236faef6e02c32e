"""The ``start`` opponent (league.weights.start): the weights a run started from, frozen for the whole run.

A next stage that should beat the stage before it trains against that stage's weights, which no past self keeps
for long (snapshots are the learner's own, and only the last ``keep`` stay). The league holds the start weights
from before the first game is drawn, the checkpoint carries them (``--resume`` needs no ``init_from`` file), and
a run that starts from fresh weights has nothing to freeze, so its config is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from dw_cli.main import main  # noqa: E402
from policies import checkpoint  # noqa: E402
from training.ppo.config import LeagueConfig, from_dict, load  # noqa: E402
from training.ppo.league import League  # noqa: E402

CONFIG = str(Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml")
#: every network-group game against the start weights, a few against Random; no imitation, no final games
START = [
    "--set",
    "league.weights={start: 1.0, random: 0.25}",
    "--set",
    "imitation.teacher=none",
    "--set",
    "eval.final_games=0",
]


@pytest.fixture(scope="module")
def first_stage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("stage") / "one"
    assert main(["train", "--config", CONFIG, "--run-dir", str(run), "--set", "eval.final_games=0"]) == 0
    return run / "policy.pt"


def test_the_league_draws_start_only_once_it_holds_the_weights_and_keeps_its_own_copy() -> None:
    league = League(LeagueConfig(weights={"latest": 1.0, "start": 3.0, "balanced": 1.0}), 8)
    rng = np.random.default_rng(0)
    assert {league.sample(0, rng) for _ in range(50)} == {"latest"}  # nothing to play yet
    assert "start" not in league.known() and league.snapshot_state("start") is None
    weights = {"w": torch.ones(2)}
    league.set_start(weights)
    weights["w"].zero_()  # the learner trains on: the frozen copy must not follow
    drawn = [league.sample(0, rng) for _ in range(400)]
    assert set(drawn) == {"latest", "start"}
    assert 0.65 < drawn.count("start") / len(drawn) < 0.85  # 3 of 4 of the network group's weight
    assert "start" in league.known()
    state = league.snapshot_state("start")
    assert state is not None and torch.equal(state["w"], torch.ones(2))
    league.snapshot(10, {"w": torch.zeros(2)})
    league.snapshot(20, {"w": torch.zeros(2)})
    league.snapshot(30, {"w": torch.zeros(2)})  # keep=5 by default; start is never among the dropped
    assert league.snapshot_state("start") is not None
    assert {league.sample(7, rng) for _ in range(50)} == {"balanced"}  # the scripted group never plays it


def test_a_start_opponent_without_initial_weights_is_refused() -> None:
    with pytest.raises(ValueError, match=r"league.weights.start .* network.init_from is not set; allowed: a start"):
        from_dict({"league": {"weights": {"latest": 1.0, "start": 0.5}}})
    config = from_dict({"league": {"weights": {"latest": 1.0, "start": 0.5}}, "network": {"init_from": "x.pt"}})
    assert config.league.weights["start"] == 0.5
    assert from_dict({}).league.weights["start"] == 0.0  # runs that do not name it play no start


def _start_session(first: Path, run: Path) -> Any:
    from training.ppo.ppo import start_session

    config = load(CONFIG, [f"network.init_from={first}", *START[1::2]])
    return start_session(config, None, run)


def test_the_first_games_already_seat_the_start_weights_and_the_frozen_net_is_the_file(
    first_stage: Path, tmp_path: Path
) -> None:
    session = _start_session(first_stage, tmp_path / "run")
    try:
        opponents = session.table.opponent
        network_slots = session.table.league.num_envs - session.table.league.num_scripted
        assert opponents[:network_slots] == ["start"] * network_slots  # drawn after the league held the weights
        frozen = session.frozen.get("start", session.table.league)
        saved = checkpoint.load(first_stage)["model"]
        for name, tensor in frozen.state_dict().items():
            assert torch.equal(tensor, saved[name]), name
    finally:
        session.writer.close()
        session.ctx["threads"].close()


def test_a_run_against_its_start_resumes_exactly_without_the_file(first_stage: Path, tmp_path: Path) -> None:
    start = tmp_path / "start.pt"
    start.write_bytes(first_stage.read_bytes())
    split, straight = tmp_path / "split", tmp_path / "straight"
    args = ["train", "--config", CONFIG, "--set", f"network.init_from={start}", *START]
    assert main([*args, "--run-dir", str(straight)]) == 0
    assert main([*args, "--run-dir", str(split), "--set", "run.stop_after_updates=2"]) == 0
    saved = checkpoint.load(split / "checkpoint.pt")
    first = checkpoint.load(start)["model"]
    assert set(saved["training"]["league"]["start"]) == set(first)
    for name, tensor in first.items():
        assert torch.equal(saved["training"]["league"]["start"][name], tensor), name
    assert any(not torch.equal(saved["model"][k], t) for k, t in first.items())  # the learner moved, start did not
    start.unlink()  # resume reads the run's checkpoint only
    assert main(["train", "--resume", str(split), "--set", "run.stop_after_updates=0"]) == 0
    resumed, whole = checkpoint.load(split / "checkpoint.pt"), checkpoint.load(straight / "checkpoint.pt")
    assert resumed["counters"]["updates"] == whole["counters"]["updates"] == 4
    for name, tensor in whole["model"].items():
        assert torch.equal(resumed["model"][name], tensor), name
    results = resumed["training"]["league"]["results"]
    assert '"start"' in results  # games against it were played and counted


def test_a_checkpoint_that_lost_its_start_weights_is_refused_and_left_as_it_was(
    first_stage: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    args = ["train", "--config", CONFIG, "--set", f"network.init_from={first_stage}", *START]
    assert main([*args, "--run-dir", str(run), "--set", "run.stop_after_updates=1"]) == 0
    payload = torch.load(run / "checkpoint.pt", weights_only=True)
    del payload["training"]["league"]["start"]
    torch.save(payload, run / "checkpoint.pt")
    before = (run / "checkpoint.pt").read_bytes()
    assert main(["train", "--resume", str(run), "--set", "run.stop_after_updates=2"]) != 0
    err = capsys.readouterr().err
    assert "league.start: the run plays its start weights (league.weights.start) but the checkpoint has none" in err
    assert "Traceback" not in err
    assert (run / "checkpoint.pt").read_bytes() == before
