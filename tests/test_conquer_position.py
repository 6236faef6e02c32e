"""Options, positions (JSON and text diagrams), records and rendering: round trips and bad input (spec section 7)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conquer_env import position, record
from conquer_env.engine import ConquerGame
from conquer_env.errors import PositionError
from conquer_env.options import ConquerOptions
from conquer_env.render_image import render_image, ring_links
from conquer_env.render_text import render_text

CAPTURE = """
    to_move: B
    B....   .....
    ..R..   .....
    .RbR.   ..R..
    ..R..   .....
    ....B   .....
"""


def random_game(options: ConquerOptions, seed: int, plies: int = 10_000) -> tuple[ConquerGame, list[int]]:
    game, actions = ConquerGame.new(options), []
    rng = np.random.default_rng(seed)
    while not game.over and len(actions) < plies:
        points = game.legal_points()
        action = int(rng.choice(points)) if len(points) and rng.random() > 0.02 else game.pass_action
        game.play(action)
        actions.append(action)
    return game, actions


# ---- options ---------------------------------------------------------------------------------------------
def test_options_presets_and_defaults() -> None:
    assert (ConquerOptions().width, ConquerOptions().height, ConquerOptions().scoring) == (15, 15, "dots")
    assert ConquerOptions.preset("small").num_points == 81
    classic = ConquerOptions.preset("classic", scoring="territory")
    assert (classic.width, classic.height, classic.scoring) == (39, 32, "territory")


def test_options_round_trip() -> None:
    options = ConquerOptions(width=9, height=12, scoring="territory", start="cross", max_plies=50)
    assert ConquerOptions.from_dict(json.loads(json.dumps(options.to_dict()))) == options


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"colour": 9}, r"unknown option 'colour'; allowed: width, height, scoring, start, max_plies, size"),
        ({"size": 9}, r"option size must be a preset \(small, default, classic\) or 'WxH' such as '9x9', got 9"),
        ({"size": "9x9", "width": 9}, r"option size replaces width and height"),
        ({"size": "70x9"}, r"option width=70 is out of range; allowed: 2..64"),
        ({"width": 1}, r"option width=1 is out of range; allowed: 2..64"),
        ({"height": 65}, r"option height=65 is out of range; allowed: 2..64"),
        ({"width": "9"}, r"option width must be an integer in 2..64, got '9'"),
        ({"width": True}, r"option width must be an integer"),
        ({"scoring": "area"}, r"option scoring must be one of dots, territory, got 'area'"),
        ({"start": "x"}, r"option start must be one of empty, cross"),
        ({"width": 9, "height": 9, "max_plies": 0}, r"option max_plies=0 is out of range; allowed: 1..162 or null"),
        ({"width": 3, "height": 3, "start": "cross"}, r"needs a board of at least 4 x 4"),
    ],
)
def test_options_bad_values_name_the_key_and_what_is_allowed(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ConquerOptions.from_dict(data)


def test_options_size_shorthand() -> None:
    assert ConquerOptions.from_dict({"size": "39x32"}) == ConquerOptions.preset("classic")
    assert ConquerOptions.from_dict({"size": "small", "scoring": "territory"}).num_points == 81


def test_options_unknown_preset() -> None:
    with pytest.raises(ValueError, match="unknown preset 'huge'; allowed: small, default, classic"):
        ConquerOptions.preset("huge")


# ---- positions -------------------------------------------------------------------------------------------
def test_text_diagram_round_trip() -> None:
    game = position.from_text(CAPTURE)
    again = position.from_text(position.to_text(game))
    assert position.to_dict(again) == position.to_dict(game)
    assert game.turn == 1 and game.is_dead(2, 2) and game.owner_of(2, 2) == 1


def test_owner_grid_may_be_left_out_for_dead_dots() -> None:
    lines = CAPTURE.strip().splitlines()
    bare = position.from_text("\n".join(line if ":" in line else line.split()[0] for line in lines))
    assert position.to_dict(bare) == position.to_dict(position.from_text(CAPTURE))


def test_json_round_trip_of_random_positions(tmp_path: Path) -> None:
    for seed in range(5):
        game, _ = random_game(ConquerOptions.preset("small"), seed, plies=60)
        path = tmp_path / f"p{seed}.json"
        position.save(game, path)
        loaded = position.load(path)
        assert np.array_equal(loaded.dots, game.dots) and np.array_equal(loaded.owner, game.owner)
        assert np.array_equal(loaded.scalars, game.scalars)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("R..\n..\n...", r"dots row 1 has 2 characters; every row must have 3"),
        ("R..\n.X.\n...", r"dots row 1 column 1: 'X' is not a dot; allowed: \. R B r b"),
        ("...   ...\n.R.   .Q.\n...   ...", r"owners row 1 column 1: 'Q' is not an owner"),
        ("....   ....\n.r..   .R..\n....   ....\n....   ....", r"point \(1, 1\): dead dot 'r' must stand on"),
        ("....   ....\n.B..   .R..\n....   ....\n....   ....", r"point \(1, 1\): live dot 'B' stands on the other"),
        ("R..   R..\n...   ...\n...   ...", r"point \(0, 0\) is on the border and cannot be sealed"),
        (".R.\nRBR\n.R.", r"point \(1, 1\): a live B dot is enclosed by R's ring but not captured"),
        ("to_move: G\n...\n...", r"to_move must be 'R' or 'B', got 'G'"),
        ("passes: 3\n...\n...", r"passes must be 0, 1 or 2"),
        ("passes: x\n...\n...", r"header passes must be an integer, got 'x'"),
        ("colour: R\n...\n...", r"line 1: unknown header key 'colour'"),
        ("...\nto_move: R", r"line 2: header line 'to_move: R' after the grid"),
        ("", r"the diagram has no grid rows"),
        ("...   ...\n...", r"1 rows have an owners grid but 2 have dots"),
        ("ply: 999\n...\n...", r"ply must be an integer in 0..12, got 999"),
    ],
)
def test_malformed_diagram_is_refused_naming_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        position.from_text(text)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": 1}, r"unknown position key 'colour'"),
        ({"format": "go"}, r"format must be 'conquer-position-v1', got 'go'"),
        ({"dots": "R.."}, r"dots must be a non-empty list of row strings"),
        ({"owners": ["...", "..."]}, r"owners has 2 rows; the dots grid has 5"),
        ({"options": {"width": 7}}, r"options say width=7 but the grid has 5"),
        ({"options": {"scoring": "x"}}, r"bad options: option scoring must be one of"),
    ],
)
def test_malformed_json_position_is_refused(change: dict[str, object], message: str) -> None:
    data = {**position.to_dict(position.from_text(CAPTURE)), **change}
    with pytest.raises(PositionError, match=message):
        position.from_dict(data)


def test_bad_json_text() -> None:
    with pytest.raises(PositionError, match="not valid JSON"):
        position.loads("{")


def test_loaded_position_derives_the_ending() -> None:
    assert position.from_text("passes: 2\n...\n...").end_reason == "two_passes"
    assert position.from_text("RB\nBR").end_reason == "board_full"
    game = position.from_text("ply: 3\nmax_plies: 3\n...\n...")
    assert game.truncated


# ---- records ---------------------------------------------------------------------------------------------
def test_record_round_trip_and_replay(tmp_path: Path) -> None:
    options = ConquerOptions.preset("small")
    game, actions = random_game(options, 3)
    data = record.make_record(options, ["random", "random"], actions, game)
    assert data["result"]["end_reason"] == game.end_reason
    assert set(data["result"]["scores"]) == {"dots", "territory"}
    path = tmp_path / "game.json"
    record.save(data, path)
    replayed = record.replay(record.load(path))
    assert np.array_equal(replayed.owner, game.owner) and replayed.ply == len(actions)
    half = record.replay(data, upto=10)
    assert half.ply == 10 and not half.over


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"actions": [0, 0]}, r"record action 1 \(0\) is illegal: action 0: point \(0, 0\) is occupied"),
        ({"actions": "0 1"}, r"record actions must be a list of integers"),
        ({"players": ["a"]}, r"record players must be a list of 2 names"),
        ({"format": "x"}, r"record format must be 'conquer-record-v1'"),
        ({"options": {"width": 99}}, r"record options: option width=99 is out of range"),
        ({"moves": []}, r"unknown record key 'moves'"),
        ({"result": {"end_reason": "two_passes"}}, r"record result .* does not match the replayed game"),
    ],
)
def test_malformed_record_is_refused(change: dict[str, object], message: str) -> None:
    options = ConquerOptions.preset("small")
    game, actions = random_game(options, 1)
    data = {**record.make_record(options, ["a", "b"], actions, game), **change}
    with pytest.raises(PositionError, match=message):
        record.replay(data)


# ---- rendering -------------------------------------------------------------------------------------------
def test_render_text_shows_both_grids_and_both_scores() -> None:
    text = render_text(position.from_text(CAPTURE))
    assert "dots score R 1 B 0; territory R 1 B 0" in text.splitlines()[0]
    assert "  2 .RbR.   ..R.." in text


def test_render_image_draws_the_ring_and_shades_territory() -> None:
    game = position.from_text(CAPTURE)
    links = {tuple(sorted(link)) for link in ring_links(game, 1)}
    assert links == {(7, 11), (7, 13), (11, 17), (13, 17)}
    image = render_image(game, cell=20)
    assert image.shape == (2 * 20 + 4 * 20, 2 * 20 + 4 * 20, 3) and image.dtype == np.uint8
    shade = image[20 + 2 * 20 + 7, 20 + 2 * 20 + 7]  # inside the sealed cell (2,2), off its dot
    assert tuple(int(v) for v in shade) == (250, 205, 205)


def test_ring_links_are_the_region_boundary_only() -> None:
    """After the onion capture the ring is the 8 diagonal links; the revived centre's links lie inside it."""
    game = position.from_text("""
        .......   .......
        ...R...   .......
        ..RbR..   ...R...
        .RbRbR.   ..RRR..
        ..RbR..   ...R...
        ...R...   .......
        .......   .......
    """)
    ring = [(3, 1), (4, 2), (5, 3), (4, 4), (3, 5), (2, 4), (1, 3), (2, 2)]
    expected = {
        tuple(sorted((a[1] * 7 + a[0], b[1] * 7 + b[0]))) for a, b in zip(ring, ring[1:] + ring[:1], strict=True)
    }
    assert {tuple(sorted(link)) for link in ring_links(game, 1)} == expected
    assert ring_links(game, 2) == []


def test_ring_links_skip_chords_of_a_thick_wall() -> None:
    """A 2-dot-thick wall around Blue (2,2): only the inner boundary is drawn, not the links inside the wall."""
    game = position.from_text("""
        RRRRR   .....
        RRRRR   .....
        RRbRR   ..R..
        RRRRR   .....
        RRRRR   .....
    """)
    links = {tuple(sorted(link)) for link in ring_links(game, 1)}
    assert links == {(7, 11), (7, 13), (11, 17), (13, 17)}
