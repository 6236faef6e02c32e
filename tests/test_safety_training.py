"""Safety of the training side (issue 8): checkpoints hold data, never code; bad files and folders are refused
with one clear message and nothing changes.

A training checkpoint used to keep its RNG states, league and games in progress as pickled bytes that
``dw train --resume`` unpickled: a crafted file ran its code. These tests put a real pickle payload (its
``__reduce__`` calls ``os.system`` to create a marker file) in every slot that used to be unpickled, and
check that nothing runs and the loader says what is wrong.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from dw_cli.main import main  # noqa: E402
from dw_env.engine import Game  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies import checkpoint  # noqa: E402
from policies.domain_wheel import network_policy  # noqa: E402
from policies.registry import available, make  # noqa: E402

CONFIG = str(Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml")
QUICK = ["--set", "imitation.teacher=none", "--set", "eval.final_games=0"]


class Payload:
    """A pickle that runs a shell command when unpickled (what a malicious checkpoint would carry)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {shlex.quote(str(self.marker))}",))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder after 2 updates of the smoke config: snapshots, results, scripted plans in progress."""
    folder = tmp_path_factory.mktemp("safety") / "run"
    assert (
        main(["train", "--config", CONFIG, "--run-dir", str(folder), *QUICK, "--set", "run.stop_after_updates=2"]) == 0
    )
    return folder


def _copy_run(run: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "copy"
    shutil.copytree(run, folder)
    return folder


def _tamper(path: Path, change: Any) -> None:
    payload = torch.load(path, weights_only=True)
    change(payload)
    torch.save(payload, path)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _resume_refused(run: Path, tmp_path: Path, change: Any, capsys: pytest.CaptureFixture[str]) -> str:
    """Resume a copy of ``run`` whose checkpoint ``change`` edited: return the one-line error, after checking
    that it was refused (exit 2), without a traceback, and that nothing in the folder changed."""
    folder = _copy_run(run, tmp_path)
    _tamper(folder / "checkpoint.pt", change)
    before = _snapshot(folder)
    assert main(["train", "--resume", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert _snapshot(folder) == before
    return err


# ---- finding 1: no code in checkpoints ----------------------------------------------------------------
def _is_plain(value: Any) -> bool:
    if isinstance(value, (torch.Tensor, bool, int, float, str, type(None))):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, (str, int)) and _is_plain(v) for k, v in value.items())
    return False


def test_training_checkpoint_holds_only_plain_data(run: Path) -> None:
    payload = torch.load(run / "checkpoint.pt", weights_only=True)
    assert payload["format_version"] == checkpoint.FORMAT_VERSION == 2
    assert _is_plain(payload["training"])
    scripted = json.loads(payload["training"]["table"]["scripted"])
    assert scripted and all(isinstance(entry["state"]["rng"]["state"]["state"], int) for entry in scripted)
    assert any(entry["state"].get("plan") for entry in scripted)  # the AIs' plans in progress are saved


@pytest.mark.parametrize(
    "slot",
    [
        ("rng",),
        ("league",),
        ("table",),
        ("optimizer",),
        ("rng", "numpy"),
        ("league", "results"),
        ("table", "scripted"),
        ("table", "env"),
    ],
    ids=lambda s: ".".join(s),
)
def test_malicious_pickle_in_a_training_slot_runs_nothing(
    run: Path, tmp_path: Path, slot: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy_run(run, tmp_path)
    marker = tmp_path / "pwned"
    evil = pickle.dumps(Payload(marker))

    def plant(payload: dict[str, Any]) -> None:
        node = payload["training"]
        for key in slot[:-1]:
            node = node[key]
        node[slot[-1]] = evil

    _tamper(folder / "checkpoint.pt", plant)
    before = _snapshot(folder)
    assert main(["train", "--resume", str(folder)]) == 2
    err = capsys.readouterr().err
    assert not marker.exists(), "the pickle in the checkpoint ran"
    assert "damaged training state" in err and slot[-1] in err
    assert "Traceback" not in err
    assert _snapshot(folder) == before  # nothing written


def test_malicious_pickle_in_a_version_1_checkpoint_runs_nothing(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Format 1 kept the training state as pickled bytes: such a file is never unpickled, only refused."""
    folder = _copy_run(run, tmp_path)
    marker = tmp_path / "pwned"
    evil = pickle.dumps(Payload(marker))

    def old_format(payload: dict[str, Any]) -> None:
        payload["format_version"] = 1
        payload["training"] = {"optimizer": {}, "rng": evil, "league": evil, "table": evil}

    _tamper(folder / "checkpoint.pt", old_format)
    assert main(["train", "--resume", str(folder)]) == 2
    err = capsys.readouterr().err
    assert not marker.exists()
    assert "format version 1" in err and "never read" in err and "cannot be resumed" in err
    assert network_policy.load(folder / "checkpoint.pt")  # its weights still play


def test_a_file_that_pickles_code_is_refused_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "checkpoint.pt"
    torch.save({"format": checkpoint.FORMAT, "model": Payload(marker)}, path)
    assert main(["train", "--resume", str(path)]) == 2
    assert not marker.exists()
    assert "not a readable checkpoint" in capsys.readouterr().err
    with pytest.raises(checkpoint.CheckpointError, match="holding code, which is never run") as refused:
        network_policy.load(path)
    assert "weights_only" not in str(refused.value)  # torch's advice to load it unsafely is not passed on
    assert not marker.exists()


def test_scripted_ai_memory_round_trips_as_plain_data() -> None:
    """Every AI's state_dict is JSON; a fresh AI loading it plays on exactly as the original."""
    options = GameOptions(land_radius=1, map_radius=2, max_rounds=60)
    for name in available():
        original = make(name, seed=5)
        game = Game.new(**options.to_dict())
        for _ in range(25):
            if not game.over:
                _play(game, original.act(game, game.turn))
        copy = make(name, seed=99)
        copy.load_state_dict(json.loads(json.dumps(original.state_dict())), num_lands=game.geometry.num_lands)
        for _ in range(25):
            if game.over:
                break
            move = original.act(game, game.turn)
            assert copy.act(game, game.turn) == move, name
            _play(game, move)


def _play(game: Game, move: Any) -> None:
    if move.is_pass:
        game.pass_turn()
    elif move.is_end_request:
        game.request_end()
    else:
        game.play(move)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rng": {"bit_generator": "MT19937"}}, r"rng: missing state"),
        (
            {"plan": {"kind": "conquer", "land": 999, "since": 0, "budget": 1}},
            r"plan\.land: must be an integer in 0\.\.18",
        ),
        ({"turn_index": -1}, r"turn_index: must be an integer in 0\.\."),
        ({"surprise": 1}, r"unknown 'surprise'"),
    ],
)
def test_scripted_ai_refuses_state_that_does_not_fit(change: dict[str, Any], message: str) -> None:
    policy = make("balanced", seed=1)
    before = policy.state_dict()
    with pytest.raises(ValueError, match=message):
        policy.load_state_dict({**before, **change}, num_lands=19)
    assert policy.state_dict() == before  # unchanged


# ---- finding 6: messages, not tracebacks --------------------------------------------------------------
def _set_env_array(name: str, index: tuple[int, ...], value: int) -> Any:
    def change(payload: dict[str, Any]) -> None:
        array = payload["training"]["table"]["env"][name]
        array[index] = value

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_set_env_array("_boards", (0, 5), 99), r"game slot 0 is not a valid position"),
        (_set_env_array("_scalars", (3, 0), -7), r"game slot 3 is not a valid position"),
        (_set_env_array("_ctrls", (1, 1), 10**6), r"_ctrls \(selected cell\)"),
        (_set_env_array("_ctrls", (1, 0), 5), r"_ctrls \(phase\)"),
    ],
    ids=["piece-code", "turn", "selected-cell", "phase"],
)
def test_games_in_progress_must_be_positions_the_engine_accepts(
    run: Path, tmp_path: Path, change: Any, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The compiled kernels index their tables by these values: garbage is refused before anything is restored."""
    err = _resume_refused(run, tmp_path, change, capsys)
    assert re.search(message, err), err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.pop("config"), r"has no saved training config"),
        (lambda p: p["config"]["ppo"].update(learning_rate="fast"), r"saved training config is not valid: ppo\."),
        (lambda p: p["counters"].update(updates=-1), r"counters\.updates: must be an integer in 0\.\."),
        (lambda p: p["counters"].update(env_steps="many"), r"counters\.env_steps: must be an integer"),
        (lambda p: p["counters"].update(seconds=float("nan")), r"counters\.seconds: must be a finite number"),
        (lambda p: p["counters"].pop("games"), r"counters: missing games"),
        (lambda p: p.update(counters=[1, 2]), r"counters: must be a mapping"),
    ],
    ids=["no-config", "bad-config", "negative-updates", "string-steps", "nan-seconds", "no-games", "list"],
)
def test_resume_state_without_config_or_with_bad_counters_is_a_message(
    run: Path, tmp_path: Path, change: Any, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _resume_refused(run, tmp_path, change, capsys)
    assert len(err) < 1000
    assert re.search(message, err), err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p["model"].update({k: torch.zeros(3) for k in list(p["model"])[:1]}), r"weights do not fit"),
        (lambda p: p.update(model={}), r"model must be a non-empty mapping"),
        (lambda p: p["network"].update(blocks=3), r"unknown network key 'blocks'"),
        (lambda p: p["network"].update(channels=10**9), r"network\.channels must be an integer in 4\.\.1024"),
        (lambda p: p["network"].update(channels=32), r"weights do not fit"),
        (lambda p: p["model"].update(extra=torch.zeros(1)), r"unexpected 'extra'"),
        (lambda p: p.update(options={"land_radius": "x" * 10**6}), r"options"),
    ],
    ids=["wrong-shape", "empty-model", "unknown-key", "huge-size", "other-size", "extra-weight", "huge-option"],
)
def test_policy_file_that_does_not_fit_is_a_message(run: Path, tmp_path: Path, change: Any, message: str) -> None:
    path = tmp_path / "policy.pt"
    shutil.copy(run / "policy.pt", path)
    _tamper(path, change)
    with pytest.raises(checkpoint.CheckpointError, match=message) as info:
        network_policy.load(path)
    assert len(str(info.value)) < 1000


@pytest.mark.parametrize("workers", ["1", "2"])
def test_arena_refuses_a_bad_policy_file_with_a_message(
    run: Path, tmp_path: Path, workers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.pt"
    shutil.copy(run / "policy.pt", path)
    _tamper(path, lambda p: p["network"].update(blocks=3))
    argv = ["arena", "--lineup", f"{path},random,random", "--games", "2", "--workers", workers, "--no-progress"]
    argv += ["--land-radius", "1", "--map-radius", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "unknown network key 'blocks'" in err and "Traceback" not in err


# ---- finding 4 and 8: the run folder ------------------------------------------------------------------
def test_run_dir_holding_a_run_is_refused_before_any_work(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy_run(run, tmp_path)
    before = _snapshot(folder)
    assert main(["train", "--config", CONFIG, "--run-dir", str(folder), *QUICK]) == 2
    err = capsys.readouterr().err
    assert f"{folder} already holds a run" in err
    assert "--resume" in err and "another --run-dir" in err and "--overwrite" in err
    assert _snapshot(folder) == before


def test_overwrite_replaces_the_run_and_only_its_files(tmp_path: Path, run: Path) -> None:
    folder = _copy_run(run, tmp_path)
    (folder / "notes.txt").write_text("mine")
    old_events = sorted(folder.glob("events.out.tfevents.*"))
    args = ["train", "--config", CONFIG, "--run-dir", str(folder), *QUICK, "--set", "run.total_env_steps=384"]
    assert main([*args, "--overwrite"]) == 0
    assert checkpoint.load(folder / "checkpoint.pt")["counters"]["updates"] == 1
    assert (folder / "notes.txt").read_text() == "mine"
    assert not any(p.exists() for p in old_events)


def test_stale_checkpoint_temporaries_are_removed_on_resume(tmp_path: Path, run: Path) -> None:
    folder = _copy_run(run, tmp_path)
    stale = [folder / ".checkpoint.pt.k3j_x9ab.tmp", folder / ".policy.pt.abcdefgh.tmp"]
    kept = [folder / ".other.pt.abcdefgh.tmp", folder / "checkpoint.pt.abcdefgh.tmp"]
    for p in stale + kept:
        p.write_bytes(b"half a checkpoint")
    assert main(["train", "--resume", str(folder), "--set", "run.stop_after_updates=2"]) == 0
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in kept)
