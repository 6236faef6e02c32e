"""Checkpoint files (policies/checkpoint.py): atomic writes, and clear refusals of files that do not fit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies import checkpoint  # noqa: E402
from policies.domain_wheel.network import HexPolicyNet  # noqa: E402

SMALL = GameOptions(land_radius=1, map_radius=2)
HP = {"channels": 8, "cell_layers": 1, "land_layers": 1, "head_hidden": 8}


def _payload(options: GameOptions = SMALL, **changes: object) -> dict:
    net = HexPolicyNet(build_geometry(options.land_radius, options.map_radius), **HP)
    payload = {
        "format": checkpoint.FORMAT,
        "format_version": checkpoint.FORMAT_VERSION,
        "observation_version": net.observation_version,
        "options": options.to_dict(),
        "network": HP,
        "model": net.state_dict(),
        "config": {},
        "counters": {"env_steps": 7},
    }
    payload.update(changes)
    return payload


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "a.pt"
    checkpoint.save(path, _payload())
    assert checkpoint.load(path, SMALL)["counters"] == {"env_steps": 7}


def test_write_is_atomic_and_leaves_no_temporary_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.pt"
    checkpoint.save(path, _payload())
    before = path.read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError("disk pulled out mid-write")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk pulled out"):
        checkpoint.save(path, _payload(counters={"env_steps": 8}))
    assert path.read_bytes() == before  # the previous checkpoint is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.pt"]  # no temporary file left behind


def test_other_observation_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.pt"
    checkpoint.save(path, _payload(observation_version="dw-obs-v0"))
    with pytest.raises(checkpoint.CheckpointError, match=r"observation layout 'dw-obs-v0'.*produces 'dw-obs-v1'"):
        checkpoint.load(path)


def test_other_map_size_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "small.pt"
    checkpoint.save(path, _payload())
    with pytest.raises(
        checkpoint.CheckpointError,
        match=r"made for map size land_radius=1, map_radius=2, but this run uses land_radius=2, map_radius=4",
    ):
        checkpoint.load(path, GameOptions())


def test_other_rules_options_are_refused_unless_only_the_map_matters(tmp_path: Path) -> None:
    path = tmp_path / "small.pt"
    checkpoint.save(path, _payload())
    other = SMALL.replace(turns_to_conquer=3)
    with pytest.raises(checkpoint.CheckpointError, match=r"other game options: turns_to_conquer=4 \(here 3\)"):
        checkpoint.load(path, other)
    assert checkpoint.load(path, other, map_only=True)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a readable checkpoint: an empty or truncated file"),
        (b"\x00garbage" * 50, "not a readable checkpoint: not a PyTorch file, or one holding more than tensors"),
        (b"# notes\n", "not a readable checkpoint: not a PyTorch file, or one holding more than tensors"),
        (None, "not a readable checkpoint: a truncated or damaged PyTorch archive"),  # a valid file cut in half
    ],
)
def test_corrupt_file_gives_a_clear_error(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "bad.pt"
    if content is None:
        checkpoint.save(path, _payload())
        content = path.read_bytes()[: path.stat().st_size // 2]
    path.write_bytes(content)
    with pytest.raises(checkpoint.CheckpointError, match=message) as refused:
        checkpoint.load(path)
    # what is allowed, and never torch's advice to load the file unsafely
    assert "allowed: a .pt file written by dw train or dw blend" in str(refused.value)
    assert "weights_only" not in str(refused.value) and "arbitrary code" not in str(refused.value)


def test_foreign_or_incomplete_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.pt"
    torch.save({"state_dict": {}}, path)
    with pytest.raises(checkpoint.CheckpointError, match="not a dw train checkpoint"):
        checkpoint.load(path)
    payload = _payload()
    del payload["model"]
    torch.save(payload, path)
    with pytest.raises(checkpoint.CheckpointError, match="damaged checkpoint, missing model"):
        checkpoint.load(path)
    torch.save(_payload(format_version=99), path)
    with pytest.raises(checkpoint.CheckpointError, match="format version 99 is not supported"):
        checkpoint.load(path)
    with pytest.raises(FileNotFoundError, match="no such checkpoint"):
        checkpoint.load(tmp_path / "missing.pt")


def test_policy_export_drops_the_training_state() -> None:
    payload = _payload(training={"optimizer": {}})
    assert "training" not in checkpoint.export_policy(payload)
    assert "model" in checkpoint.export_policy(payload)
