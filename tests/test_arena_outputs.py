"""``dw arena --out`` (issue 8 item 4): the folder is checked before any game, an earlier run is never
overwritten without ``--overwrite`` (which removes only the arena's own files), files are written
atomically, and the table is printed even when writing fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dw_cli.main import main
from training.evaluation import arena, arena_report

TINY = ["--land-radius", "1", "--map-radius", "2", "--max-rounds", "20", "--no-progress", "--workers", "1"]
RUN = ["arena", "--players", "random", "--games", "6", "--bootstrap", "5", *TINY]


def _no_games(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a game was played before the output folder was checked")


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def test_an_earlier_run_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    assert main([*RUN, "--out", str(out), "--save-games", "1"]) == 0
    capsys.readouterr()
    before = {name: (out / name).read_bytes() for name in _files(out)}
    monkeypatch.setattr(arena, "play_all", _no_games)
    assert main([*RUN, "--out", str(out), "--seed", "4"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "already holds an arena run (results.json, results.csv, chart.png, 1 game record(s) in games/)" in (
        captured.err
    )
    assert "--overwrite" in captured.err
    assert {name: (out / name).read_bytes() for name in _files(out)} == before


def test_overwrite_replaces_only_the_arenas_own_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main([*RUN, "--out", str(out), "--save-games", "2"]) == 0
    old_records = {p.name for p in (out / "games").iterdir()}
    (out / "notes.txt").write_text("mine")
    (out / "games" / "my_game.json").write_text("{}")
    assert main([*RUN, "--out", str(out), "--seed", "9", "--overwrite"]) == 0
    assert "win rate" in capsys.readouterr().out
    assert json.loads((out / "results.json").read_text())["config"]["seed"] == 9
    assert _files(out) == {"results.json", "results.csv", "chart.png", "notes.txt", "games/my_game.json"}
    assert not old_records & _files(out / "games")  # old game records do not mix with the new run
    assert (out / "notes.txt").read_text() == "mine"


def test_a_folder_that_cannot_be_written_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena, "play_all", _no_games)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main([*RUN, "--out", str(blocker)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    assert main([*RUN, "--out", str(blocker / "sub")]) == 2  # a file where a parent folder should be
    assert "is not writable" in capsys.readouterr().err
    assert main([*RUN, "--overwrite"]) == 2
    assert "--overwrite needs --out" in capsys.readouterr().err


def test_the_table_is_printed_when_writing_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(tmp: Path, summary: Any) -> None:
        tmp.write_bytes(b"half a pn")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(arena_report, "_draw_chart", full_disk)
    out = tmp_path / "run"
    assert main([*RUN, "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "win rate" in captured.out and "seat-games" in captured.out
    assert "could not write the results into" in captured.err and "No space left on device" in captured.err
    assert "the table above is complete" in captured.err
    # results.json is written last, so the folder does not pass for a whole run; no temporary file is left
    assert _files(out) == {"results.csv"}


def test_files_are_written_through_a_rename(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    target.write_text("old")

    def interrupted(tmp: Path) -> None:
        tmp.write_text("new but cut")
        assert target.read_text() == "old"  # a reader meanwhile still sees the old, whole file
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        arena_report.write_atomic(target, interrupted)
    assert target.read_text() == "old" and _files(tmp_path) == {"results.json"}

    def whole(tmp: Path) -> None:
        tmp.write_text("new")

    arena_report.write_atomic(target, whole)
    assert target.read_text() == "new" and _files(tmp_path) == {"results.json"}
