"""One ``dw train`` PPO run over several tables (training/ppo/tables.py, docs/TRAINING.md "Tables").

Frontera's smoke config (configs/frontera_smoke.yaml) with two tables: 2 players on the small map and 3 players
on the medium map, so the learner switches maps between updates. One run stops after 3 updates and is resumed
in another process; another goes straight through: the two must end with the same counters and bit-identical
weights. The config's refusals are checked without running anything, and a list of one table trains exactly
as the same config without tables.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from policies import checkpoint  # noqa: E402
from training.ppo import config as cfg  # noqa: E402
from training.ppo.table_config import schedule_cycle  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = str(ROOT / "configs" / "frontera_smoke.yaml")
TWO_TABLES = "tables=[{players: 2, num_envs: 4}, {players: 3, map: medium, max_turns: 3, num_envs: 4, name: medium3}]"
#: 5 updates of 4 games x 48 steps, the tables in turn: small2, medium3, small2, medium3, small2
TWO_TABLE_RUN = [TWO_TABLES, "run.total_env_steps=960", "eval.final_games=2", "eval.opening_plies=0"]


def dw_train(*args: str) -> None:
    """Run ``dw train`` in a process of its own (a resume must continue exactly across processes)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = "import sys; from dw_cli.main import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", code, "train", *args], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


def sets(overrides: list[str]) -> list[str]:
    return [arg for text in overrides for arg in ("--set", text)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("tables")
    split, straight = base / "split", base / "straight"
    dw_train("--config", CONFIG, "--run-dir", str(split), *sets([*TWO_TABLE_RUN, "run.stop_after_updates=3"]))
    first = checkpoint.load(split / "checkpoint.pt")
    dw_train("--resume", str(split / "checkpoint.pt"), "--set", "run.stop_after_updates=0")
    dw_train("--config", CONFIG, "--run-dir", str(straight), *sets(TWO_TABLE_RUN))
    return {"split": split, "straight": straight, "first": first}


def test_two_tables_resume_across_processes_exactly(runs: dict[str, Any]) -> None:
    resumed = checkpoint.load(runs["split"] / "checkpoint.pt")
    straight = checkpoint.load(runs["straight"] / "checkpoint.pt")
    keys = ("env_steps", "updates", "games", "decisions")
    assert runs["first"]["counters"]["updates"] == 3  # stopped before a medium3 update, its games mid-rollout
    assert {k: resumed["counters"][k] for k in keys} == {k: straight["counters"][k] for k in keys}
    assert straight["counters"]["updates"] == 5 and straight["counters"]["env_steps"] == 5 * 4 * 48
    for name, tensor in straight["model"].items():
        assert torch.equal(resumed["model"][name], tensor), name
    assert any(not torch.equal(runs["first"]["model"][k], v) for k, v in straight["model"].items())


def test_two_tables_checkpoint_holds_every_tables_games(runs: dict[str, Any]) -> None:
    state = runs["first"]["training"]
    assert state["table"]["obs"].shape[0] == 4  # the first table, as a one-table run saves it
    (other,) = state["tables"]
    assert other["name"] == "medium3"
    assert other["table"]["obs"].shape[1] > state["table"]["obs"].shape[1]  # the medium map's observations
    assert runs["first"]["config"]["tables"][1]["map"] == "medium"


def test_two_tables_log_win_rates_per_table(runs: dict[str, Any]) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(runs["straight"]))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    for table in ("players2", "medium3"):
        assert any(t.startswith(f"charts/win_rate/{table}/") for t in tags), (table, sorted(tags))
        assert f"eval/win_rate/{table}/expansionist" in tags
        assert f"charts/rating/{table}/learner" in tags  # every table's, though the last update trained players2
    assert not any(t.startswith("charts/win_rate/") and t.count("/") == 2 for t in tags)  # none outside a table
    steps = [e.step for e in events.Scalars("charts/learning_rate")]
    assert steps == [192, 384, 576, 768, 960]  # the env steps summed over the tables


def test_table_schedule_spreads_each_tables_updates_over_a_cycle() -> None:
    assert schedule_cycle("round_robin", 3) == [0, 1, 2]
    assert schedule_cycle([3, 1], 2) == [0, 0, 1, 0]
    assert schedule_cycle([1, 2, 1], 3) == [1, 0, 2, 1]


def test_table_configs_take_the_sections_with_each_entrys_overrides() -> None:
    config = cfg.load(CONFIG, [TWO_TABLES, "table_schedule=[2, 1]"])
    (small, first), (medium, second) = config.table_configs()
    assert (small, first.game["players"], first.game["map"], first.env.num_envs) == ("players2", 2, "small", 4)
    assert (medium, second.game["map"], second.game["max_turns"], second.tables) == ("medium3", "medium", 3, None)
    assert second.env.fog_rows == config.env.fog_rows and second.ppo == config.ppo


def test_a_config_without_tables_saves_no_table_keys() -> None:
    assert "tables" not in cfg.load(CONFIG).to_dict() and "table_schedule" not in cfg.load(CONFIG).to_dict()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("tables=[]", r"tables: must be a list of 1\.\.16 tables .*got \[\]"),
        ("tables=[{players: 2}, 3]", r"tables\[1\] must be a mapping of game options and name, .*got 3"),
        ("tables=[{land_radius: 2}]", r"tables\[0\]: 'land_radius' is not a key a table may set for frontera.*"),
        ("tables=[{players: 7}]", r"tables\[0\] \(players7\): game: option players must be an integer 2\.\.6, got 7"),
        ("tables=[{num_envs: 1}]", r"tables\[0\] \(table0\): env\.num_envs: must be an integer in 3\.\.65536, got 1"),
        ("tables=[{name: 'a b'}]", r"tables\[0\]\.name: must be letters, digits.*, got 'a b'"),
        ("tables=[{players: 2}, {players: 2}]", r"tables\[0\] and tables\[1\] are both named 'players2'"),
        ("table_schedule=fair", r"table_schedule: must be round_robin or a list of whole numbers .*got 'fair'"),
        ("table_schedule=[1, 0]", r"table_schedule: must be round_robin or .*got \[1, 0\]"),
        ("table_schedule=[1]", r"table_schedule: a run without tables has one table; allowed: round_robin"),
    ],
)
def test_bad_tables_are_refused_naming_the_key_and_value(override: str, message: str) -> None:
    with pytest.raises(cfg.ConfigError, match=message):
        cfg.load(CONFIG, [override])


def test_tables_refuse_schedules_and_runs_that_do_not_fit() -> None:
    with pytest.raises(cfg.ConfigError, match=r"table_schedule: 1 shares for 2 tables; allowed: round_robin or"):
        cfg.load(CONFIG, [TWO_TABLES, "table_schedule=[1]"])
    with pytest.raises(cfg.ConfigError, match=r"run\.overlap: a run of several tables .*; allowed: false"):
        cfg.load(CONFIG, [TWO_TABLES, "run.overlap=true"])


def test_tables_of_a_game_whose_network_reads_one_map_are_refused() -> None:
    smoke = str(ROOT / "configs" / "smoke.yaml")
    with pytest.raises(cfg.ConfigError, match=r"tables: domain_wheel's network reads one map .*: frontera\)"):
        cfg.load(smoke, ["tables=[{map_radius: 3}]"])


def test_one_table_list_trains_exactly_as_the_config_without_tables(tmp_path: Path) -> None:
    stop = "run.stop_after_updates=2"
    dw_train("--config", CONFIG, "--run-dir", str(tmp_path / "plain"), "--set", stop)
    dw_train("--config", CONFIG, "--run-dir", str(tmp_path / "listed"), *sets([stop, "tables=[{}]"]))
    plain = checkpoint.load(tmp_path / "plain" / "checkpoint.pt")
    listed = checkpoint.load(tmp_path / "listed" / "checkpoint.pt")
    assert plain["counters"]["updates"] == listed["counters"]["updates"] == 2
    assert "tables" not in listed["training"]  # one table: saved as a run without tables saves it
    for name, tensor in plain["model"].items():
        assert torch.equal(listed["model"][name], tensor), name


def test_frontera_mixed_config_trains_the_three_tables_of_issue_48() -> None:
    config = cfg.load(ROOT / "configs" / "frontera-mixed.yaml")
    got = [(name, c.game["players"], c.game["map"], c.env.fog_rows) for name, c in config.table_configs()]
    assert got == [("2p-medium", 2, "medium", 0.5), ("4p-medium", 4, "medium", 0.5), ("6p-large", 6, "large", 0.5)]
    weights = config.league.weights
    assert max(weights, key=lambda kind: weights[kind]) == "expansionist"


def test_resume_refuses_to_change_the_tables(
    runs: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dw_cli.main import main

    one = "tables=[{players: 2, num_envs: 4}]"
    args = ["train", "--resume", str(runs["split"] / "checkpoint.pt"), "--run-dir", str(tmp_path / "one")]
    assert main([*args, "--set", one]) != 0
    assert "--set tables cannot change when resuming" in capsys.readouterr().err
    assert not (tmp_path / "one").exists()  # refused before anything was written


def test_resume_refuses_a_checkpoint_without_the_other_tables(runs: dict[str, Any], tmp_path: Path) -> None:
    from policies.checkpoint import CheckpointError
    from training.ppo import ppo
    from training.ppo.resume import saved_config

    payload = checkpoint.load(runs["split"] / "checkpoint.pt")
    del payload["training"]["tables"]
    cut = tmp_path / "cut.pt"
    checkpoint.save(cut, payload)
    config = saved_config(payload, cut, ["run.progress=false"])
    with pytest.raises(CheckpointError, match=r"tables: the checkpoint holds 0 tables besides the first, this run 1"):
        ppo.start_session(config, cut, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_resume_refuses_a_table_saved_under_another_name(runs: dict[str, Any], tmp_path: Path) -> None:
    from policies.checkpoint import CheckpointError
    from training.ppo import ppo
    from training.ppo.resume import saved_config

    payload = checkpoint.load(runs["split"] / "checkpoint.pt")
    payload["training"]["tables"][0]["name"] = "large6"
    renamed = tmp_path / "renamed.pt"
    checkpoint.save(renamed, payload)
    config = saved_config(payload, renamed, ["run.progress=false"])
    with pytest.raises(CheckpointError, match=r"tables\[0\]\.name: must be one of medium3, got 'large6'"):
        ppo.start_session(config, renamed, tmp_path / "run")
