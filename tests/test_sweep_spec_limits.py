"""Sweep specs that cost too much are refused up front (issue 45, finding 12): alias bombs, keys given twice,
huge files, deep nesting, long names and grids of too many cells each give one SpecError naming what is wrong
and what is allowed, before any grid is expanded or any game played."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dw_cli.main import main
from training.studies import sweep
from training.studies.sweep import MAX_CELLS, SpecError, load_spec, parse_spec

BASE = "name: x\ngames_per_cell: 6\nlineups: [[balanced, random, random]]\n"
ALIAS_BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True))
    + "seed: *i\n"
)


def _spec(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_alias_bomb_is_refused_at_its_first_anchor(tmp_path: Path) -> None:
    path = _spec(tmp_path, BASE + ALIAS_BOMB.replace("a: &a", "description: &a", 1))
    with pytest.raises(SpecError, match=r"spec\.yaml: line 4: YAML anchors and aliases \(&'a'\) are not allowed"):
        load_spec(path)


def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"spec\.yaml: line 5: key 'seed' is given twice; keep one"):
        load_spec(_spec(tmp_path, BASE + "seed: 1\nseed: 2\n"))


def test_a_spec_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    path = _spec(tmp_path, BASE + "# " + "x" * sweep.MAX_SPEC_BYTES + "\n")
    with pytest.raises(SpecError, match=r"spec\.yaml is larger than 1,048,576 bytes"):
        load_spec(path)


def test_deep_yaml_is_refused_with_the_depth_allowed(tmp_path: Path) -> None:
    path = _spec(tmp_path, BASE + "description: " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(SpecError, match=r"line 4: nested too deeply; allowed: at most 64 levels"):
        load_spec(path)


@pytest.mark.parametrize("name", ["x" * 101, "x" * 300, "a/b", ""])
def test_a_study_name_must_be_one_short_folder_name(name: str) -> None:
    with pytest.raises(SpecError, match=r"name: String should match pattern") as info:
        parse_spec({"name": name, "games_per_cell": 6, "lineups": [["balanced", "random", "random"]]})
    assert len(str(info.value)) < 500
    assert parse_spec({"name": "x" * 100, "games_per_cell": 6, "lineups": [["random"] * 3]}).name == "x" * 100


def test_a_grid_of_too_many_cells_is_refused_before_it_is_expanded(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_expansion(*args: object) -> object:
        raise AssertionError("the grid was expanded")

    monkeypatch.setattr(sweep, "cell_key", no_expansion)
    monkeypatch.setattr(sweep.GameOptions, "replace", no_expansion)
    grid = {"max_rounds": list(range(10, 20_010)), "turns_to_conquer": list(range(1, 9))}
    data = {"name": "x", "games_per_cell": 6, "lineups": [["random"] * 3], "grid": grid}
    shape = "1 x 8 x 20000 x 1"
    message = f"the study has 160,000 cells (option sets x grid x line-ups: {shape}); allowed: at most {MAX_CELLS:,}"
    with pytest.raises(SpecError, match=re.escape(message)):
        parse_spec(data)


def test_the_cell_limit_itself_is_allowed() -> None:
    grid = {"max_rounds": list(range(10, 10 + MAX_CELLS // 2))}
    data = {"name": "x", "games_per_cell": 6, "lineups": [["random"] * 3, ["balanced"] * 3], "grid": grid}
    assert sweep.count_cells(parse_spec(data)) == MAX_CELLS


def test_values_in_messages_are_quoted_briefly() -> None:
    data = {"name": "x", "games_per_cell": 6, "lineups": [["random"] * 3], "description": ["y" * 1_000_000]}
    with pytest.raises(SpecError) as info:
        parse_spec(data)
    assert "description" in str(info.value) and len(str(info.value)) < 500


def test_dw_sweep_check_names_an_alias_bomb_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _spec(tmp_path, BASE + ALIAS_BOMB.replace("a: &a", "description: &a", 1))
    assert main(["sweep", str(path), "--check"]) == 2
    err = capsys.readouterr().err
    assert "anchors and aliases" in err and "Traceback" not in err and len(err) < 1000
