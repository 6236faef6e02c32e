"""JSON positions: exact round trips and strict validation (docs/POSITIONS.md).

Every position the engine can reach must survive ``dumps`` -> ``loads`` with the
identical arrays and text, and every malformed or impossible position must be
refused with a ``PositionError`` that names the field, the value and what is allowed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import BiasedPlayer, Events

from dw_env import position
from dw_env.engine import Game, Move
from dw_env.geometry import build_geometry
from dw_env.options import GameOptions
from dw_env.position import PositionError
from dw_env.rules import layout as lay

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=40)
OPTION_SETS = [
    GameOptions(),
    SMALL,
    GameOptions(land_radius=2, map_radius=2, fast_knights=False, turns_to_conquer=2),
    GameOptions(land_radius=1, map_radius=3, king_may_be_alone=False, turns_to_conquer=1, max_rounds=30),
    GameOptions(land_radius=3, map_radius=5, turns_to_conquer=8, max_rounds=100_000),
]


def assert_same_state(a: Game, b: Game) -> None:
    assert a.options == b.options
    for name in ("board", "lands", "scalars"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert getattr(a, name).dtype == getattr(b, name).dtype, name


def assert_round_trip(game: Game) -> None:
    text = position.dumps(game)
    back = position.loads(text)
    assert_same_state(game, back)
    assert position.dumps(back) == text
    assert position.to_dict(position.from_dict(position.to_dict(game))) == position.to_dict(game)


def base(options: GameOptions = SMALL) -> dict[str, Any]:
    """Return the position dict of a new game (a fresh copy to edit)."""
    return copy.deepcopy(position.to_dict(Game.new(options)))


# ---- round trips ------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_initial_position_round_trips(options: GameOptions) -> None:
    assert_round_trip(Game.new(options))


def test_initial_position_text() -> None:
    """The canonical text of the standard initial position (spec 1.4-1.5), one field a line."""
    text = position.dumps(Game.new())
    assert text.splitlines()[0] == "{" and text.endswith("}\n")
    data = json.loads(text)
    assert data["pieces"]["blue"] == {"king": [20, -8], "knights": [[19, -8], [19, -7]]}
    assert data["pieces"]["green"] == {"king": [-12, 20], "knights": [[-12, 19], [-11, 19]]}
    assert data["pieces"]["red"] == {"king": [-8, -12], "knights": [[-7, -12], [-8, -11]]}
    assert data["owners"] == {"blue": [], "green": [], "red": []}
    assert (data["turn"], data["round"], data["ply"], data["countdown"], data["result"]) == ("blue", 1, 0, None, None)
    assert list(data) == list(position._KEYS)


def test_positions_from_random_games_round_trip(biased_game: Callable[..., tuple[Game, list[Move], Events]]) -> None:
    """Sampled positions of seeded games, finished ones included, load back identical."""
    reasons: set[str] = set()
    sampled = 0
    for options, seeds in ((SMALL, range(12)), (OPTION_SETS[2], range(4)), (OPTION_SETS[3], range(4))):
        for seed in seeds:

            def hook(before: Game, move: Move, after: Game, events: Events) -> None:
                nonlocal sampled
                if after.scalars[lay.PLY] % 7 == 0 or after.over:
                    assert_round_trip(after)
                    sampled += 1

            game, _, _ = biased_game(options, seed, BiasedPlayer(seed, end_prob=(0.0, 1.0)[seed % 2]), hook)
            reasons.add(game.end_reason)
    assert sampled > 200
    assert {"centre", "truncation"} <= reasons


def test_save_and_load_through_a_file(tmp_path: Path) -> None:
    game = Game.new(SMALL)
    game.play(game.legal_moves()[3])
    path = tmp_path / "p.json"
    position.save(game, path)
    assert_same_state(position.load(path), game)
    path.write_text("{not json")
    with pytest.raises(PositionError, match=r"p\.json: not valid JSON"):
        position.load(path)
    data = base()
    data["turn"] = "purple"
    path.write_text(json.dumps(data))
    with pytest.raises(PositionError, match=r"p\.json: turn: unknown player 'purple'"):
        position.load(path)


# ---- regressions found by the property tests --------------------------------------------------------
def test_countdown_that_ended_the_game_round_trips() -> None:
    """Rule 9.2: a game ended by the countdown has 0 turns left; it must load back."""
    g = build_geometry(1, 2)
    data = base()
    data["pieces"]["blue"]["king"] = list(g.cell_coord(int(g.land_throne[g.centre_land])))
    data["countdown"] = {"holder": "blue", "turns_left": 1}
    game = position.from_dict(data)
    game.pass_turn()  # the holder's own end of turn ticks the countdown to 0
    assert (game.over, game.end_reason, game.countdown) == (True, "countdown", (0, 0))
    assert_round_trip(game)
    data["countdown"]["turns_left"] = 0
    with pytest.raises(PositionError, match="turns_left is 0 exactly when the countdown has ended the game"):
        position.from_dict(data)


def test_expelled_kings_pending_counter_round_trips() -> None:
    """Rule 5.3: an expelled king keeps its conquest counter until its own end of turn re-evaluates it."""
    data = base()
    data["owners"]["blue"] = [[1, 0]]
    data["first_conquests"]["blue"] = [[1, 0]]
    data["pieces"]["blue"]["knights"] = [[5, -2], [5, -1], [4, -2]]
    data["pieces"]["green"]["king"] = [3, -1]  # on the throne of blue's land (1, 0)
    data["holds"] = [{"player": "green", "land": [1, 0], "turns": 2}]
    game = position.from_dict(data)
    g = game.geometry
    game.play(Move(g.cell_index(6, -2), g.cell_index(3, 0)))  # blue's king enters its own land: exile (5.2a)
    assert g.cell_land[game.king_cell(1)] != g.land_index(1, 0)
    assert game.lands[lay.HOLD + 1, g.land_index(1, 0)] == 2  # pending until green's end of turn
    assert_round_trip(game)
    game.pass_turn()  # green
    assert game.lands[lay.HOLD + 1, g.land_index(1, 0)] == 0
    assert_round_trip(game)


def test_end_request_leaves_no_counter_on_changed_lands() -> None:
    """Rule 9.4: concretised positions clear the land's counters, so the final position loads back."""
    data = base()
    ring1 = [[1, 0], [1, -1], [0, 1]]
    data["owners"]["blue"] = ring1
    data["first_conquests"]["blue"] = ring1
    data["pieces"]["blue"]["knights"] = [[5, -2], [5, -1], [3, -2], [2, -2], [2, 1]]
    data["pieces"]["green"]["king"] = [-2, 3]  # throne of the neutral ring-1 land (-1, 1), next to green's start
    data["pieces"]["green"]["knights"] = [[-1, 3], [-4, 5]]
    data["holds"] = [{"player": "green", "land": [-1, 1], "turns": 2}]
    game = position.from_dict(data)
    assert game.can_request_end()
    game.request_end()
    g = game.geometry
    land = g.land_index(-1, 1)
    assert game.owner(land) == 1 and game.end_reason == "end_request"
    assert not game.lands[lay.HOLD : lay.LIB + 3, land].any()
    assert_round_trip(game)


# ---- validation ----------------------------------------------------------------------------------------
def edit(path: str, value: Any) -> dict[str, Any]:
    """Return the base position with the dotted ``path`` set to ``value`` (``-`` deletes the key)."""
    data = base()
    *parents, last = path.split(".")
    node: Any = data
    for key in parents:
        node = node[key]
    if value == "-":
        del node[last]
    else:
        node[last] = value
    return data


BAD_POSITIONS: list[tuple[str, Any, str]] = [
    # (dotted field, new value, expected message pattern)
    ("format", "domain-wheel-game", "format must be 'domain-wheel-position'"),
    ("version", 2, "unsupported version 2"),
    ("colour", "blue", r"unknown field 'colour'; allowed: format, version, options"),
    ("ply", "-", "missing field.*ply"),
    ("options", {"land_radius": 9}, r"option land_radius=9 is out of range; allowed: 1\.\.5"),
    ("options", {"land_size": 2}, "unknown option 'land_size'; allowed: land_radius"),
    ("options", [1, 4], "options must be a mapping"),
    ("turn", "purple", "turn: unknown player 'purple'; allowed: blue, green, red"),
    ("turn", 0, "turn must be a player name"),
    ("round", 0, r"round=0 is out of range; allowed: 1\.\.40"),
    ("round", 41, r"round=41 is out of range; allowed: 1\.\.40"),
    ("round", True, "round must be an integer"),
    ("ply", -1, "ply=-1 is out of range"),
    # pieces: cells, one piece a cell (4.1), no knight on a throne (4.3), one king, 2 + first conquests knights
    ("pieces.blue.king", [99, 0], r"pieces\.blue\.king: cell \(99, 0\) is not on the map"),
    ("pieces.blue.king", [[6, -2], [5, -2]], r"pieces\.blue\.king must be a pair of integers"),
    ("pieces.blue.king", "-", r"pieces\.blue must be \{'king': \[q, r\], 'knights'"),
    ("pieces.blue.queen", [6, -2], r"pieces\.blue must be \{'king'"),
    ("pieces.blue.knights", [[5, -2], [6, -2]], r"two pieces on cell \[6, -2\] \(rule 4\.1\)"),
    ("pieces.blue.knights", [[5, -2], [-4, 5]], r"two pieces on cell \[-4, 5\]"),
    ("pieces.blue.knights", [[5, -2], [3, -1]], r"a knight on the throne \[3, -1\].*rule 4\.3"),
    ("pieces.blue.knights", [[5, -2]], r"pieces\.blue: 1 knights, but a player has 2 plus one per first conquest"),
    ("pieces.blue.knights", [[5, -2], [5, -1], [4, -2]], r"3 knights.*\(2 for blue; rules 2\.3 and 6\.7\)"),
    ("pieces.blue.knights", [5, -2], "must be a pair of integers"),
    ("pieces.blue.knights", "none", r"pieces\.blue\.knights must be a list"),
    ("pieces.red", "-", "pieces must map each of blue, green, red"),
    # lands
    ("owners.blue", [[9, 9]], r"owners\.blue land: land \(9, 9\) is not on the map"),
    ("owners.blue", [[2, 0]], r"land \[2, 0\] is a start land; start lands always belong to their player"),
    ("owners.blue", [[1, 0], [1, 0]], r"land \[1, 0\] is listed more than once"),
    ("owners.purple", [], "owners must map each of blue, green, red"),
    ("first_conquests.red", [[0, -2]], r"first_conquests\.red: start land \[0, -2\] is never conquered"),
    ("first_conquests.red", [[1, 0], [1, 0]], "listed twice"),
    # counters (rules 6.4, 7.3)
    (
        "holds",
        [{"player": "blue", "land": [1, 0], "turns": 4}],
        r"holds\[0\]\.turns=4 is out of range; allowed: 1\.\.3",
    ),
    ("holds", [{"player": "blue", "land": [1, 0], "turns": 0}], r"holds\[0\]\.turns=0 is out of range"),
    ("holds", [{"player": "blue", "land": [2, 0], "turns": 1}], "start lands are never conquered or liberated"),
    ("holds", [{"player": "blue", "land": [1, 0]}], r"holds\[0\] must be \{'player', 'land', 'turns'\}"),
    ("holds", [{"player": "blu", "land": [1, 0], "turns": 1}], r"holds\[0\]\.player: unknown player 'blu'"),
    (
        "holds",
        [{"player": "blue", "land": [1, 0], "turns": 1}, {"player": "blue", "land": [1, 0], "turns": 2}],
        r"holds\[1\]: counter listed twice",
    ),
    (
        "holds",
        [{"player": "blue", "land": [1, 0], "turns": 1}, {"player": "blue", "land": [0, 1], "turns": 1}],
        r"holds\[1\]: blue already has a conquest counter on another land",
    ),
    ("holds", {"player": "blue"}, "holds must be a list"),
    ("liberations", [{"player": "blue", "land": [1, 0], "turns": 1}], "only a land owned by a rival can be liberated"),
    ("liberations", [{"player": "blue", "land": [1, 0], "turns": 2}], r"liberations\[0\]\.turns=2 is out of range"),
    # countdown (rule 9.2)
    ("countdown", {"holder": "blue", "turns_left": 3}, "the holder's king must sit on the centre throne"),
    ("countdown", {"holder": "blue"}, r"countdown must be null or \{'holder', 'turns_left'\}"),
    ("countdown", 5, "countdown must be null"),
    # result (rule 9.5)
    ("result", {"end_reason": "boredom", "winners": []}, "result.end_reason 'boredom' unknown; allowed: centre"),
    ("result", {"end_reason": "end_request", "winners": ["blue"]}, r"result\.winners \['blue'\] do not match"),
    ("result", {"end_reason": "truncation"}, r"result must be null or \{'end_reason', 'winners'\}"),
    ("result", {"end_reason": "countdown", "winners": ["blue", "green", "red"]}, "turns_left is 0 exactly when"),
]


@pytest.mark.parametrize(("field", "value", "message"), BAD_POSITIONS, ids=[f"{f}={v!r}" for f, v, _ in BAD_POSITIONS])
def test_invalid_positions_are_rejected_with_a_clear_message(field: str, value: Any, message: str) -> None:
    data = edit(field, value)
    with pytest.raises(PositionError, match=message):
        position.from_dict(data)
    with pytest.raises(PositionError, match=message):
        position.loads(json.dumps(data))


def test_a_valid_edit_is_accepted() -> None:
    """Guards the table above: each bad value is bad, not the edit mechanics."""
    game = position.from_dict(edit("pieces.blue.knights", [[5, -2], [4, -1]]))
    assert game.pieces(0)[1] == sorted(game.geometry.cell_index(*c) for c in [(5, -2), (4, -1)])
    data = edit("countdown", {"holder": "blue", "turns_left": 3})
    data["pieces"]["blue"]["king"] = [0, 0]
    assert position.from_dict(data).countdown == (0, 3)
    data = edit("result", {"end_reason": "truncation", "winners": []})
    data["round"] = data["options"]["max_rounds"]  # truncation ends the last round (A57)
    assert position.from_dict(data).truncated


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ("", "not valid JSON"),
        ("[1, 2]", "a position must be a JSON object, got list"),
        ('"blue"', "a position must be a JSON object, got str"),
    ],
)
def test_text_that_is_not_a_position_object_is_rejected(text: str, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        position.loads(text)


def test_two_kings_on_one_cell_and_a_king_on_a_rival_knight() -> None:
    data = base()
    data["pieces"]["green"]["king"] = data["pieces"]["blue"]["king"]
    with pytest.raises(PositionError, match=r"two pieces on cell \[6, -2\]"):
        position.from_dict(data)
    data = base()
    data["pieces"]["red"]["king"] = data["pieces"]["green"]["knights"][0]
    with pytest.raises(PositionError, match="two pieces on cell"):
        position.from_dict(data)
