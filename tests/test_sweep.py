"""``dw sweep`` end to end on the CI study (K in {2, 4, 6} x both variants, small map, two line-ups): the
report's numbers against a direct computation from the saved game records, the cache and resume, the
strict spec, and reproducibility."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dw_cli.main import main
from dw_env.engine import Game
from dw_env.info import NUM_PLAYERS, PLAYER_NAMES
from dw_env.record import GameRecord
from dw_env.rules import layout as lay
from gamecore.loaders import read_yaml
from training.studies.sweep import expand, load_games, parse_spec, record_of, run_sweep

CI_SPEC = Path(__file__).resolve().parent.parent / "configs" / "sweeps" / "ci.yaml"


@pytest.fixture(scope="module")
def ci_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sweep") / "ci"
    assert main(["sweep", str(CI_SPEC), "--out", str(out), "--workers", "2", "--no-progress"]) == 0
    return out


def _records(out: Path) -> list[tuple[dict[str, Any], list[GameRecord]]]:
    """Return each cell's cell.json and its games rebuilt as verified records (replayed by GameRecord)."""
    result = []
    for cell in expand(parse_spec(_spec_data())):
        data = json.loads((out / "cells" / cell.key / "cell.json").read_text())
        records = [GameRecord.from_dict(record_of(cell, g).to_dict()) for g in load_games(out, cell)]
        result.append((data, records))
    return result


def _spec_data() -> dict[str, Any]:
    data: dict[str, Any] = read_yaml(CI_SPEC.read_text(), str(CI_SPEC), ValueError)
    return data


def _direct(record: GameRecord) -> dict[str, Any]:
    """Count a game's events straight from its positions (a second reading of sweep_stats' conventions)."""
    positions = list(record.positions())
    centre = positions[0].geometry.centre_land
    throne = int(positions[0].geometry.land_throne[centre])
    conquests = liberations = exiles = lead_changes = parked = 0
    leader = -1
    for move, before, after in zip(record.moves, positions[:-1], positions[1:], strict=True):
        p = before.turn
        for land in np.flatnonzero(after.lands[lay.OWNER] != before.lands[lay.OWNER]):
            if not move.is_end_request:
                conquests += int(after.owner(int(land)) == p)
                liberations += int(after.owner(int(land)) == -1)
        exiles += sum(after.king_cell(q) != before.king_cell(q) for q in range(NUM_PLAYERS) if q != p)
        if not after.over and after.king_cell(p) == throne and after.lands[lay.HOLD + p, centre] == 0:
            parked += 1
        scores = after.scores()
        top = [q for q in range(NUM_PLAYERS) if scores[q] == max(scores)]
        if len(top) == 1 and max(scores) > 0 and top[0] != leader:
            lead_changes += leader >= 0
            leader = top[0]
    final = positions[-1]
    return {
        "rounds": final.round,
        "plies": len(record.moves),
        "end_reason": final.end_reason,
        "winners": [PLAYER_NAMES[w] for w in final.winners],
        "scores": final.scores(),
        "conquests": conquests,
        "liberations": liberations,
        "exiles": exiles,
        "lead_changes": lead_changes,
        "parked": parked,
    }


def test_ci_sweep_covers_the_grid(ci_sweep: Path) -> None:
    cells = json.loads((ci_sweep / "sweep.json").read_text())["cells"]
    assert len(cells) == 3 * 2 * 2 * 2  # K x fast knights x king alone x line-ups
    labels = {c["label"] for c in cells}
    assert "K=6, fast=off, alone=off | vs-random" in labels
    assert all(c["summary"]["games"] == 6 for c in cells)


def test_report_numbers_match_the_game_records(ci_sweep: Path) -> None:
    report = (ci_sweep / "report.html").read_text()
    for data, records in _records(ci_sweep):
        m = data["summary"]
        games = [_direct(r) for r in records]
        n = len(games)
        rounds = [g["rounds"] for g in games]
        assert m["rounds"]["mean"] == pytest.approx(statistics.fmean(rounds))
        assert m["rounds"]["median"] == pytest.approx(statistics.median(rounds))
        assert m["rounds"]["p90"] == pytest.approx(float(np.percentile(rounds, 90)))
        assert m["plies"]["mean"] == pytest.approx(statistics.fmean(g["plies"] for g in games))
        for reason in ("centre", "countdown", "end_request", "truncation"):
            assert m["endings"][reason] == pytest.approx(sum(g["end_reason"] == reason for g in games) / n)
        decided = sum(1 for g in games if g["winners"])
        distinct = {(tuple(r.players or ()), tuple(r.moves)): g for r, g in zip(records, games, strict=True)}
        n_eff = sum(1 for g in distinct.values() if g["winners"])
        assert (m["distinct_games"], m["distinct_decided"]) == (len(distinct), n_eff)
        chi2 = 0.0
        for s, name in enumerate(PLAYER_NAMES):
            wins = sum(1 / len(g["winners"]) for g in games if name in g["winners"])
            share = wins / decided if decided else 0.0
            assert m["seats"][s]["share_of_wins"] == pytest.approx(share)
            chi2 += (share * n_eff - n_eff / 3) ** 2 / (n_eff / 3) if n_eff else 0.0
            assert m["seats"][s]["mean_score"] == pytest.approx(statistics.fmean(g["scores"][s] for g in games))
        assert m["seat_equality"]["p_value"] == pytest.approx(np.exp(-chi2 / 2))
        per = m["per_game"]
        assert per["conquests"] == pytest.approx(statistics.fmean(g["conquests"] for g in games))
        assert per["liberations"] == pytest.approx(statistics.fmean(g["liberations"] for g in games))
        assert per["exiles_caused"] == pytest.approx(statistics.fmean(g["exiles"] for g in games))
        assert per["lead_changes"] == pytest.approx(statistics.fmean(g["lead_changes"] for g in games))
        assert per["parked_turns"] == pytest.approx(statistics.fmean(g["parked"] for g in games))
        # the page shows the same numbers: mean / median / p90 rounds of the cell's row
        row = f"{m['rounds']['mean']:.1f} / {m['rounds']['median']:g} / {m['rounds']['p90']:.0f}"
        assert re.search(re.escape(data["cell"]["label"]) + r"</td><td>\d+ \(\d+\)</td><td>" + re.escape(row), report)


def test_kept_records_replay_and_are_the_extremes(ci_sweep: Path) -> None:
    for data, records in _records(ci_sweep):
        plies = [len(r.moves) for r in records]
        folder = ci_sweep / "cells" / data["cell"]["key"]
        kept = {what: GameRecord.load(folder / path) for what, path in data["records"].items()}
        assert len(kept["longest"].moves) == max(plies)
        assert len(kept["shortest"].moves) == min(plies)
        assert min(plies) <= len(kept["typical"].moves) <= max(plies)
        assert kept["longest"].players == records[data["record_games"]["longest"]].players


def test_report_is_self_contained(ci_sweep: Path) -> None:
    page = (ci_sweep / "report.html").read_text()
    assert page.count("data:image/png;base64,") >= 5  # seats x2, length, endings, heatmaps, findings
    assert "<script" not in page and "http" not in page  # nothing fetched from elsewhere
    for link in re.findall(r"href='([^']+)'", page):
        assert (ci_sweep / link).is_file(), link


def test_rerun_uses_the_cache_and_resumes(ci_sweep: Path, tmp_path: Path) -> None:
    spec = parse_spec(_spec_data())
    out = tmp_path / "copy"
    import shutil

    shutil.copytree(ci_sweep, out)
    assert run_sweep(spec, out, workers=1, progress=False)[2] == 0  # every cell cached
    victim = expand(spec)[5]
    (out / "cells" / victim.key / "cell.json").unlink()  # as if interrupted while playing this cell
    cells, done, played = run_sweep(spec, out, workers=1, progress=False)
    assert played == victim.games
    fresh = (out / "cells" / victim.key / "games.jsonl").read_text()
    assert fresh == (ci_sweep / "cells" / victim.key / "games.jsonl").read_text()  # 1 worker = 2 workers


def test_cell_key_follows_what_the_games_depend_on() -> None:
    data = _spec_data()
    keys = [c.key for c in expand(parse_spec(data))]
    assert len(set(keys)) == len(keys)
    assert [c.key for c in expand(parse_spec(data))] == keys  # stable
    for change in ({"games_per_cell": 12}, {"seed": 1}, {"opening_plies": 0}):
        assert not set(keys) & {c.key for c in expand(parse_spec({**data, **change}))}, change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"grid": {"turns_to_conquer": [2, 9]}}, "turns_to_conquer=9 is out of range; allowed: 1..8"),
        ({"grid": {"turns": [2]}}, "grid.turns: Extra inputs are not permitted"),
        ({"games_per_cell": "6"}, "games_per_cell: Input should be a valid integer"),
        ({"games_per_cell": 0}, "games_per_cell: Input should be greater than or equal to 1"),
        ({"lineups": [["balanced", "randomm", "random"]]}, "unknown strategy 'randomm'"),
        ({"lineups": [{"seats": ["balanced", "random"]}]}, "lineups.0"),
        ({"grid": {"fast_knights": [True, True]}}, "lists a value twice"),
        ({"options": {"max_rounds": 1}, "opening_plies": 3}, "opening_plies"),
        ({"colour": "blue"}, "colour: Extra inputs are not permitted"),
    ],
)
def test_spec_is_strict(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_spec({**_spec_data(), **change})


def test_cli_check_lists_cells(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", str(CI_SPEC), "--check"]) == 0
    out = capsys.readouterr().out
    assert "valid; 24 cell(s) x 6 games = 144 games" in out


def test_cli_names_a_bad_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ngames_per_cell: 6\nlineups: [[balanced, random, random]]\ngrid: {K: [2]}\n")
    assert main(["sweep", str(bad), "--check"]) == 2
    assert "grid.K: Extra inputs are not permitted" in capsys.readouterr().err


def test_observer_replays_to_the_arena_result() -> None:
    spec = parse_spec({**_spec_data(), "grid": {}, "lineups": [["center", "guardian", "balanced"]]})
    cell = expand(spec)[0]
    from training.studies.sweep import cell_tasks, play_cell_game

    game = play_cell_game(cell, cell_tasks(cell)[0])
    final = record_of(cell, game).replay()
    assert isinstance(final, Game) and final.over
    assert game["plies"] == len(game["moves"]) and game["rounds"] == final.round


def test_cell_key_follows_the_bytes_of_policy_files(tmp_path: Path) -> None:
    from training.studies.sweep import _file_digest

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "strategy.json").write_text("{}")
    (package / "model.onnx").write_bytes(b"1")
    first = _file_digest(str(package))
    (package / "model.onnx").write_bytes(b"2")
    assert _file_digest(str(package)) != first
    single = tmp_path / "agent.pt"
    single.write_bytes(b"x")
    assert _file_digest(str(single)) != _file_digest(str(package)) and _file_digest("balanced") is None


def test_a_damaged_cell_file_is_played_again_and_a_damaged_games_file_names_its_line(tmp_path: Path) -> None:
    from training.studies.sweep import SpecError, cell_dir, load_cell

    cell = expand(parse_spec(_spec_data()))[0]
    folder = cell_dir(tmp_path, cell)
    folder.mkdir(parents=True)
    (folder / "cell.json").write_text("[" * 100_000)  # deeper than the loader allows: a RecursionError before
    assert load_cell(tmp_path, cell) is None
    (folder / "games.jsonl").write_text('{"plies": 3}\n\n{"plies": [[[\n')
    with pytest.raises(SpecError, match=r"games.jsonl, line 3: not valid JSON .*delete the cell's folder"):
        load_games(tmp_path, cell)
    (folder / "games.jsonl").write_text('{"plies": 3}\n\n{"plies": 4}\n')
    assert load_games(tmp_path, cell) == [{"plies": 3}, {"plies": 4}]
