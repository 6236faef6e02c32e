"""Difficulty ladders (issue 46 item 3): the strict ladder files, the calibration's line-ups and ``dw ladder``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dw_cli.main import main
from policies import ladders
from training.evaluation import ladder as calibration

TINY = """\
game: conquer
options: {width: 5, height: 5}
label: {es: "5×5", en: "5×5"}
levels:
  - scripted: random
    description: {es: "Al azar.", en: "At random."}
  - scripted: heuristic
    description: {es: "Reglas simples.", en: "Simple rules."}
"""


@pytest.mark.parametrize("name", ladders.names())
def test_shipped_ladders_load_with_levels_in_both_languages(name: str) -> None:
    ladder = ladders.load(name)
    assert len(ladder.levels) >= 2 and [lv.number for lv in ladder.levels] == list(range(1, len(ladder.levels) + 1))
    assert all(set(lv.description) == {"es", "en"} for lv in ladder.levels)


def test_every_game_has_a_ladder_and_domain_wheel_tops_with_the_stage_that_beats_its_standard_agent() -> None:
    """The top is the strongest seat measured: search over the standard agent was not, its ninth stage is
    (docs/LADDERS.md), rated above it in the committed calibration."""
    assert {ladders.load(n).game for n in ladders.names()} == {"domain_wheel", "alveole", "conquer"}
    levels = ladders.load("domain_wheel").levels
    below, top = levels[-2], levels[-1]
    assert below.kind == top.kind == "network"
    assert (below.strategy, top.strategy) == ("standard-agent.pt", "standard-stage9.pt")
    assert top.spec().endswith("standard-stage9.pt")
    rated = ladders.ratings("domain_wheel")
    assert rated[top.number]["low"] > rated[below.number]["high"]
    assert rated[top.number]["rating"] - rated[below.number]["rating"] >= 100


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("scripted: random", "scripted: nobody"), "one of random, heuristic"),
        (("scripted: random", "network: missing.pt"), "no shipped checkpoint"),
        (("scripted: random", "network: ../../etc/passwd"), "a strategy name or a checkpoint file name"),
        (("scripted: random", "scripted: random\n    playouts: 3"), "only a search level has playouts"),
        (('es: "Al azar."', 'es: "**Al azar**"'), "without Markdown"),
        (('en: "At random."', 'fr: "Au hasard."'), "exactly the languages es, en"),
        (("game: conquer", "game: chess"), "one of domain_wheel"),
        (("options: {width: 5, height: 5}", "options: {width: 99}"), "options"),
        (("label:", "colour: 1\nlabel:"), "needs exactly the keys"),
        (("scripted: heuristic", "scripted: random"), "a seat appears twice"),
        (("  - scripted: random", "  - scripted: random\n    search: conquer-agent.pt"), "exactly one of"),
    ],
)
def test_a_bad_ladder_file_is_refused_naming_what_and_the_value(change: tuple[str, str], words: str) -> None:
    with pytest.raises(ladders.LadderError, match="ladder tiny") as err:
        ladders.parse(TINY.replace(*change, 1), "tiny")
    assert words in str(err.value)


def test_an_unknown_ladder_names_the_ladders_there_are() -> None:
    with pytest.raises(ladders.LadderError, match="allowed: alveole, conquer"):
        ladders.load("chess")


def test_lineups_pair_levels_one_and_two_rungs_apart_in_every_seat_count() -> None:
    two = ladders.load("conquer")
    specs = [lv.spec() for lv in two.levels]
    assert calibration.lineups(two) == [
        (specs[0], specs[1]),
        (specs[1], specs[2]),
        (specs[2], specs[3]),
        (specs[0], specs[2]),
        (specs[1], specs[3]),
    ]
    three = calibration.lineups(ladders.load("domain_wheel"))  # 4 levels, 3 seats: A,B,B and B,A,A for 5 pairs
    assert len(three) == 10 and three[0][1] == three[0][2] and three[1] == (three[0][1], three[0][0], three[0][0])
    small = [lv.spec() for lv in ladders.load("domain_wheel-small").levels]
    assert calibration.lineups(ladders.load("domain_wheel-small"))[:2] == [
        (small[0], small[1], small[1]),
        (small[1], small[0], small[0]),
    ]


def test_a_gap_holds_only_when_100_points_apart_with_intervals_apart() -> None:
    lv = ladders.load("conquer").levels
    low = calibration.Step(lv[0], 1400, 1350, 1450, None, 1.0)
    assert calibration.Step(lv[1], 1520, 1460, 1580, 0.7, 1.0).gap_ok(low)
    assert not calibration.Step(lv[1], 1490, 1460, 1520, 0.7, 1.0).gap_ok(low)  # 90 points
    assert not calibration.Step(lv[1], 1520, 1440, 1600, 0.7, 1.0).gap_ok(low)  # intervals overlap
    assert calibration.failures([low, calibration.Step(lv[1], 1490, 1460, 1520, 0.7, 1.0)])[0].startswith("level 2")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path, Path]:
    folder = tmp_path_factory.mktemp("ladder")
    (folder / "tiny.yaml").write_text(TINY, encoding="utf-8")
    out = folder / "LADDERS.md"
    out.write_text("# Ladders\n\nintro kept\n", encoding="utf-8")
    argv = ["ladder", str(folder / "tiny.yaml"), "--games", "4", "--workers", "1", "--out", str(out)]
    return main(argv), folder, out


def test_dw_ladder_writes_a_table_row_per_level_and_the_menus_ratings(tiny_run: tuple[int, Path, Path]) -> None:
    code, folder, out = tiny_run
    text = out.read_text(encoding="utf-8")
    assert code in (0, 1) and text.startswith("# Ladders\n\nintro kept\n")
    section = text[text.index("<!-- ladder:tiny -->") : text.index("<!-- /ladder:tiny -->")]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| level")]
    assert [r.split("|")[1].strip() for r in rows] == ["1", "2"]
    assert "scripted AI random" in rows[0] and "scripted AI heuristic" in rows[1]
    assert rows[1].split("|")[4].strip().endswith("%")  # win rate against level 1
    assert "1 line-ups x 4 games = 4 games" in section
    rated = ladders.ratings("tiny", folder)
    assert sorted(rated) == [1, 2] and all(r["low"] <= r["rating"] <= r["high"] for r in rated.values())
    assert rated[1]["games"] == 4
    assert code == (0 if rows[1].rstrip(" |").endswith("yes") else 1)  # a failed gap is exit status 1


def test_dw_ladder_run_again_replaces_its_section(tiny_run: tuple[int, Path, Path]) -> None:
    _, folder, out = tiny_run
    before = out.read_text(encoding="utf-8")
    calibration.write_docs(out, "tiny", "<!-- ladder:tiny -->\nnew\n<!-- /ladder:tiny -->")
    after = out.read_text(encoding="utf-8")
    assert after.count("<!-- ladder:tiny -->") == 1 and "\nnew\n" in after and "intro kept" in after
    assert len(after) < len(before)


def test_ratings_of_an_uncalibrated_or_broken_ladder_are_empty(tmp_path: Path) -> None:
    assert ladders.ratings("tiny", tmp_path) == {}
    ladders.ratings_path("tiny", tmp_path).write_text(json.dumps({"levels": "x"}), encoding="utf-8")
    assert ladders.ratings("tiny", tmp_path) == {}


def test_dw_ladder_refuses_an_out_file_in_a_missing_folder_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tiny.yaml").write_text(TINY, encoding="utf-8")
    code = main(["ladder", str(tmp_path / "tiny.yaml"), "--out", str(tmp_path / "no" / "L.md")])
    assert code == 2 and "no such folder" in capsys.readouterr().err
    assert not ladders.ratings_path("tiny", tmp_path).exists()


def test_dw_ladder_names_an_unknown_ladder_and_the_ones_there_are(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "chess"]) == 2
    assert "unknown ladder 'chess'; allowed: alveole, conquer, domain_wheel" in capsys.readouterr().err


def test_a_rating_of_a_level_since_redefined_is_not_shown(tmp_path: Path) -> None:
    (tmp_path / "tiny.yaml").write_text(TINY, encoding="utf-8")
    rows = [
        {"level": 1, "what": "scripted AI random", "rating": 1200, "low": 1150, "high": 1250},
        {"level": 2, "what": "scripted AI balanced", "rating": 1800, "low": 1750, "high": 1850},  # not level 2 now
    ]
    data = {"games": 8, "levels": rows}
    ladders.ratings_path("tiny", tmp_path).write_text(json.dumps(data), encoding="utf-8")
    assert ladders.ratings("tiny", tmp_path) == {1: {"rating": 1200, "low": 1150, "high": 1250, "games": 8}}


SEARCH_TOP = """\
  - search: conquer-agent.pt
    playouts: 8
    options: {backup: paranoid, all_viewers: true, c_puct: 2}
    description: {es: "Busca.", en: "Searches."}
"""


def test_a_search_level_carries_its_options_into_the_seat_spec() -> None:
    ladder = ladders.parse(TINY + SEARCH_TOP, "tiny")
    top = ladder.levels[-1]
    assert top.spec().endswith("conquer-agent.pt?playouts=8&all_viewers=1&backup=paranoid&c_puct=2")
    assert top.what() == "search over conquer-agent.pt, 8 playouts a move, all_viewers 1, backup paranoid, c_puct 2"
    from policies.search_spec import split_spec

    assert split_spec(top.spec())[1].backup == "paranoid"


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ("{backup: minimax}", "backup must be one of maxn, paranoid, best_reply, got 'minimax'"),
        ("{time: 0.5}", "unknown search option 'time'; allowed: c_puct, greedy"),
        ("{playouts: 9}", "unknown search option 'playouts'"),
        ("{c_puct: [1]}", "c_puct: a number, 0/1 or a word, got [1]"),
        ("{backup: 'paranoid&c_puct=9'}", "backup: a number, 0/1 or a word"),
        ("{c_puct: -1}", "c_puct"),
        ("{}", "a mapping of search options"),
    ],
)
def test_a_search_levels_bad_options_are_refused_naming_the_option(options: str, words: str) -> None:
    text = TINY + SEARCH_TOP.replace("{backup: paranoid, all_viewers: true, c_puct: 2}", options)
    with pytest.raises(ladders.LadderError, match="levels\\[2\\].options") as err:
        ladders.parse(text, "tiny")
    assert words in str(err.value)


def test_only_a_search_level_has_options() -> None:
    text = TINY.replace("scripted: random", "scripted: random\n    options: {backup: paranoid}", 1)
    with pytest.raises(ladders.LadderError, match="only a search level has options"):
        ladders.parse(text, "tiny")
