"""Bad input at the engine's boundary (issue 8): a clear error, the value quoted, nothing changed.

The compiled kernels trust their arrays; :class:`dw_env.engine.Game` is their boundary, so a
state of the wrong map, dtype or layout is refused there instead of crashing the process. An
action or query argument that is not a plain integer in range is refused too: Python would
otherwise truncate ``46.9`` to 46, take ``True`` for 1 or read outside a table.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest

from dw_env import position
from dw_env.engine import Game, IllegalActionError, Move, StateError
from dw_env.envs import actions
from dw_env.envs.observation import check_encoder_inputs, describe_observation
from dw_env.options import GameOptions
from dw_env.position import PositionError
from dw_env.record import GameRecord, Recorder, RecordError, parse_move
from dw_env.rules import layout as lay

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=40)


def small() -> Game:
    return Game.new(SMALL)


def first_move(game: Game) -> Move:
    return next(m for m in game.legal_moves() if m.src >= 0)


# ---- finding 2: arrays into compiled code ------------------------------------------------------------
def test_state_of_another_map_is_refused_not_a_segfault() -> None:
    """A standard map's arrays under small-map options crashed ``legal_moves``; the reverse read outside."""
    big, little = Game.new(), small()
    with pytest.raises(StateError, match=r"board must be an array of dtype int8 and shape \(133,\).*\(1159,\)"):
        Game(SMALL, big.board, big.lands, big.scalars)
    with pytest.raises(StateError, match=r"shape \(1159,\)"):
        Game(GameOptions(), little.board, little.lands, little.scalars)


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        ("board", lambda a: a.astype(np.int64), "dtype int8"),
        ("lands", lambda a: a.astype(np.int32), "dtype int16"),
        ("scalars", lambda a: a.astype(np.int64), "dtype int32"),
        ("board", lambda a: a.tolist(), "must be a numpy array"),
        ("lands", lambda a: np.asfortranarray(a), "C-contiguous"),
        ("board", lambda a: np.repeat(a, 2)[::2], "C-contiguous"),
        ("scalars", lambda a: _read_only(a), "writeable"),
    ],
)
def test_state_arrays_need_the_kernels_dtype_and_layout(name: str, make: Any, message: str) -> None:
    game = small()
    arrays = {"board": game.board.copy(), "lands": game.lands.copy(), "scalars": game.scalars.copy()}
    arrays[name] = make(arrays[name])
    with pytest.raises(StateError, match=message):
        Game(SMALL, **arrays)


def _read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda b, l, s: b.__setitem__(0, 9), r"board holds 9; allowed: 0\.\.6"),
        (lambda b, l, s: l.__setitem__((lay.OWNER, 0), 5), r"lands\[OWNER\] holds 5"),
        (lambda b, l, s: s.__setitem__(lay.TURN, 3), r"scalars\[TURN\] holds 3; allowed: 0\.\.2"),
        (lambda b, l, s: s.__setitem__(lay.KING_CELL + 1, 10**6), r"KING_CELL \+ 1\] holds 1000000"),
        (lambda b, l, s: s.__setitem__(lay.CD_HOLDER, 7), r"scalars\[CD_HOLDER\] holds 7"),
        (lambda b, l, s: s.__setitem__(lay.KING_CELL, 0), "blue's king must stand once on the board"),
    ],
)
def test_state_values_used_as_indices_are_in_range(edit: Any, message: str) -> None:
    game = small()
    b, l, s = game.board.copy(), game.lands.copy(), game.scalars.copy()
    edit(b, l, s)
    with pytest.raises(StateError, match=message):
        Game(SMALL, b, l, s)


def test_options_must_be_game_options_and_arrays_cannot_be_swapped_later() -> None:
    game = small()
    with pytest.raises(StateError, match="options must be a GameOptions"):
        Game(SMALL.to_dict(), game.board, game.lands, game.scalars)  # type: ignore[arg-type]
    with pytest.raises(AttributeError, match="cannot be replaced"):
        game.board = Game.new().board
    assert game.board.shape == (133,)


def test_movable_mask_output_array_is_checked() -> None:
    game = small()
    with pytest.raises(StateError, match=r"out must be an array of dtype int8 and shape \(133,\)"):
        game.movable_mask(np.zeros(10, dtype=np.int8))
    assert game.movable_mask(np.zeros(133, dtype=np.int8)).sum() > 0


# ---- finding 7: silent acceptance in the engine API --------------------------------------------------
@pytest.mark.parametrize(
    ("move", "message"),
    [
        ((46.9, 25.4), r"source must be an integer cell index, got 46\.9"),
        (("46", "25"), r"source must be an integer cell index, got '46'"),
        ((np.float64(3.0), 4), "source must be an integer"),
        ((True, 3), "got True"),
        ((3, np.bool_(True)), "destination must be an integer"),
        ((1, 2, 99), r"a Move or a \(src, dst\) pair.*got \(1, 2, 99\)"),
        (Move(lay.PASS, 12345), "a pass has no destination: dst must be -1, got 12345"),
        (Move(lay.END_REQUEST_ACTION, 0), "an end request has no destination"),
        ((-7, -1), "unknown action source -7"),
        ((5000, 0), "source cell 5000 is not on the map"),
        ((0, 10**40), r"destination cell 1000+\.\.\.0+ is not on the map"),
        (None, "got None"),
        ("ab", "source must be an integer"),
    ],
)
def test_play_refuses_malformed_actions_and_changes_nothing_rule_3_2(move: Any, message: str) -> None:
    game = small()
    game.play(first_move(game))
    before = game.copy()
    with pytest.raises(IllegalActionError, match=message):
        game.play(move)
    assert game == before


def test_play_accepts_numpy_integers() -> None:
    game, other = small(), small()
    move = first_move(game)
    game.play((np.int64(move.src), np.int32(move.dst)))
    other.play(move)
    assert game == other


@pytest.mark.parametrize(
    ("query", "argument", "message"),
    [
        ("score", -1, "player -1 is not a seat; allowed: 0..2"),
        ("king_cell", 3, "player 3 is not a seat"),
        ("territory", 7, "player 7 is not a seat"),
        ("pieces", True, "player must be a seat index.*got True"),
        ("score", 1.0, "player must be a seat index.*got 1.0"),
        ("owner", -1, r"land -1 is not on the map; allowed: 0\.\.18"),
        ("owner", 19, "land 19 is not on the map"),
        ("owner", "0", "land must be an integer land index, got '0'"),
        ("destinations", 1.5, "cell must be an integer cell index, got 1.5"),
        ("destinations", 133, r"cell 133 is not on the map; allowed: 0\.\.132"),
        ("destination_cells", 2.0, "cell must be an integer cell index"),
        ("destination_cells", -1, "cell -1 is not on the map"),
    ],
)
def test_queries_refuse_out_of_range_and_non_integer_arguments(query: str, argument: Any, message: str) -> None:
    game = small()
    with pytest.raises(ValueError, match=message):
        getattr(game, query)(argument)


def test_queries_accept_numpy_integers() -> None:
    game = small()
    assert game.score(np.int64(0)) == game.score(0)
    assert game.owner(np.int16(0)) == game.owner(0)
    assert game.destinations(np.int32(first_move(game).src))


def test_games_compare_by_options_and_arrays() -> None:
    game = small()
    twin = game.copy()
    assert game == twin and game != Game.new()
    twin.pass_turn()
    assert game != twin


# ---- finding 3: the recorder validates before the game moves --------------------------------------------
@pytest.mark.parametrize("move", [(46.7, 25.2), (np.float64(46.0), np.float64(25.0)), ("46", "25"), (True, 1)])
def test_recorder_refuses_a_malformed_move_before_the_game_moves(move: Any) -> None:
    recorder = Recorder(small())
    recorder.play(first_move(recorder.game))
    before = recorder.game.copy()
    with pytest.raises(IllegalActionError):
        recorder.play(move)
    assert recorder.game == before
    assert recorder.record.replay() == recorder.game  # the record still replays to the game


def test_recorder_refuses_an_illegal_move_and_records_nothing() -> None:
    recorder = Recorder(small())
    with pytest.raises(IllegalActionError):
        recorder.play((0, 1))
    assert recorder.record.moves == []


# ---- finding 7: notation digits, versions, booleans ----------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "٤,-٢>٣,-١",  # Arabic-Indic digits, which int() accepts
        "５,-2>4,-1",  # fullwidth digit
        "5,-2>4,-1\n",
        "1" * 5000 + ",0>0,0",  # an integer too long for int()
    ],
)
def test_move_notation_takes_ascii_digits_only(text: str) -> None:
    g = small().geometry
    with pytest.raises(RecordError, match="not valid notation"):
        parse_move(g, text)


def test_ascii_move_notation_still_parses() -> None:
    g = small().geometry
    assert parse_move(g, "5, -2 > 4, -1") == Move(g.cell_index(5, -2), g.cell_index(4, -1))


@pytest.mark.parametrize("version", [True, 1.0, "1", None])
def test_position_and_record_versions_are_the_integer_1(version: Any) -> None:
    data = position.to_dict(small())
    data["version"] = version
    with pytest.raises(PositionError, match="unsupported version"):
        position.from_dict(data)
    record = GameRecord.from_game(small()).to_dict()
    record["version"] = version
    with pytest.raises(RecordError, match="unsupported version"):
        GameRecord.from_dict(record)


def test_record_move_pairs_refuse_booleans_and_pass_with_a_destination() -> None:
    record = GameRecord.from_game(small())
    with pytest.raises(RecordError, match=r"moves\[0\]: move \(True, 1\)"):
        record.append((True, 1))
    with pytest.raises(RecordError, match="a pass has no destination"):
        record.append((lay.PASS, 12345))
    assert record.moves == []


def test_record_longer_than_any_game_is_refused() -> None:
    game = Game.new(land_radius=1, map_radius=2, max_rounds=2)
    data = GameRecord.from_game(game).to_dict()
    data["moves"] = ["pass"] * 7  # two rounds hold six turns
    with pytest.raises(RecordError, match="7 actions, but a game from this initial position ends after at most 6"):
        GameRecord.from_dict(data)
    data["moves"] = ["pass"] * 6
    assert GameRecord.from_dict(data).replay().truncated


# ---- finding 6 and 7: impossible results in positions --------------------------------------------------------
def base(options: GameOptions = SMALL) -> dict[str, Any]:
    return copy.deepcopy(position.to_dict(Game.new(options)))


def test_winners_must_be_player_names_rule_9_5() -> None:
    data = base()
    data["round"] = data["options"]["max_rounds"]
    for winners, message in (
        ([1, "blue"], r"result\.winners\[0\] must be a player name.*got 1"),
        (["blue", "blue"], "must list each winner once"),
        ("blue", "result.winners must be a list"),
        ([[[]]], "must be a player name"),
    ):
        data["result"] = {"end_reason": "truncation", "winners": winners}
        with pytest.raises(PositionError, match=message):
            position.from_dict(data)


def test_truncation_happens_only_after_reds_turn_of_the_last_round_a57() -> None:
    data = base()
    data["result"] = {"end_reason": "truncation", "winners": []}
    with pytest.raises(PositionError, match="blue is to act in round 40; got blue in round 1"):
        position.from_dict(data)
    data["round"] = 40
    data["turn"] = "green"
    with pytest.raises(PositionError, match="got green in round 40"):
        position.from_dict(data)
    data["turn"] = "blue"
    assert position.from_dict(data).truncated
    one = base(GameOptions(land_radius=1, map_radius=2, max_rounds=1))
    one["result"] = {"end_reason": "truncation", "winners": []}
    assert position.from_dict(one).truncated  # round 1 is the last round here


def _centre_throne(options: GameOptions = SMALL) -> list[int]:
    g = Game.new(options).geometry
    return list(g.cell_coord(int(g.land_throne[g.centre_land])))


def test_centre_result_needs_the_conqueror_to_act_and_own_the_centre_rule_9_1() -> None:
    data = base()
    data["result"] = {"end_reason": "centre", "winners": ["blue", "green", "red"]}
    with pytest.raises(PositionError, match="result 'centre'.*must own the centre land"):
        position.from_dict(data)
    data["owners"]["blue"] = [[0, 0]]
    data["pieces"]["blue"]["king"] = _centre_throne()
    data["result"]["winners"] = ["blue"]
    assert position.from_dict(data).end_reason == "centre"
    data["turn"] = "green"  # blue conquered it, yet green is to act: the turn never passes after 9.1
    with pytest.raises(PositionError, match="so blue, the player|so green, the player"):
        position.from_dict(data)


def test_an_owned_centre_means_the_game_has_ended_rule_9_1() -> None:
    data = base()
    data["owners"]["green"] = [[0, 0]]
    with pytest.raises(PositionError, match="green owns the centre land .* got result null"):
        position.from_dict(data)


def test_countdown_result_needs_the_holder_to_act_rule_9_2() -> None:
    data = base()
    data["pieces"]["green"]["king"] = _centre_throne()
    data["countdown"] = {"holder": "green", "turns_left": 0}
    data["result"] = {"end_reason": "countdown", "winners": ["blue", "green", "red"]}
    with pytest.raises(PositionError, match="the holder must be the player to act"):
        position.from_dict(data)
    data["turn"] = "green"
    assert position.from_dict(data).end_reason == "countdown"


def test_end_request_result_needs_points_the_requester_could_have_had_rule_9_3() -> None:
    data = base()
    data["result"] = {"end_reason": "end_request", "winners": ["blue", "green", "red"]}
    with pytest.raises(PositionError, match="has 0 points and can have lost at most 0 .* needs 17"):
        position.from_dict(data)


def test_end_request_results_reached_by_play_load() -> None:
    """The end-request check is necessary, never stricter than the rules: real endings load back."""
    data = base()
    ring1 = [[1, 0], [1, -1], [0, 1]]
    data["owners"]["blue"] = ring1
    data["first_conquests"]["blue"] = ring1
    data["pieces"]["blue"]["knights"] = [[5, -2], [5, -1], [3, -2], [2, -2], [2, 1]]
    game = position.from_dict(data)
    assert game.can_request_end()
    game.request_end()
    back = position.loads(position.dumps(game))
    assert back == game and back.end_reason == "end_request"


# ---- finding 6: text that breaks the JSON reader -----------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000, "nested too deeply"),
        ('{"a": ' * 50_000 + "1" + "}" * 50_000, "nested too deeply"),
        ("1" * 5000, "not valid JSON"),
    ],
)
def test_json_that_breaks_the_parser_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        position.loads(text)
    with pytest.raises(RecordError, match=message):
        GameRecord.loads(text)


def test_loaders_cap_the_file_size(tmp_path: Any) -> None:
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(position.to_dict(small())) + " " * position.MAX_POSITION_BYTES)
    with pytest.raises(PositionError, match="huge.json is larger than 1,048,576 bytes"):
        position.load(path)
    with pytest.raises(PositionError, match="is a directory"):
        position.load(tmp_path)
    (tmp_path / "latin.json").write_bytes(b'{"format": "\xff"}')
    with pytest.raises(RecordError, match="not UTF-8"):
        GameRecord.load(tmp_path / "latin.json")


def test_error_messages_quote_huge_values_briefly() -> None:
    data = base()
    data["turn"] = "x" * 1_000_000
    with pytest.raises(PositionError) as info:
        position.from_dict(data)
    assert len(str(info.value)) < 300


# ---- finding 7: the env's action helpers -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: actions.action_to_cell(g, 0, 1.5), "action must be an integer, got 1.5"),
        (lambda g: actions.action_to_cell(g, True, 3), "player must be an integer, got True"),
        (lambda g: actions.action_to_cell(g, 3, 0), "player 3 is not a seat"),
        (lambda g: actions.cell_to_action(g, 0, "5"), "cell must be an integer, got '5'"),
        (lambda g: actions.land_to_frame(g, 0, 19), r"land 19 is not on the map; allowed: 0\.\.18"),
        (lambda g: actions.move_to_actions(g, 0, (46.9, 25.4)), "must be an integer cell index, got 46.9"),
        (lambda g: actions.move_to_actions(g, 0, Move(lay.PASS, 7)), "a pass has no destination"),
        (lambda g: actions.actions_to_move(g, 0, [1, 2, 3]), "one or two env actions"),
    ],
)
def test_env_action_helpers_refuse_non_integers_and_out_of_range(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(small().geometry)


# ---- finding 2: the observation encoder's outside arrays --------------------------------------------------
def test_encoder_inputs_are_checked_before_the_compiled_encoder() -> None:
    game = small()
    layout = describe_observation(game.options)
    obs, mask = np.zeros(layout.size, np.int8), np.zeros(layout.mask_size, np.int8)
    ctrl = np.array([0, -1], np.int32)
    check_encoder_inputs(game, 0, ctrl, obs, mask)
    for args, message in (
        ((game, 3, ctrl, obs, mask), "viewer must be a seat 0..2, got 3"),
        ((game, True, ctrl, obs, mask), "viewer must be a seat"),
        (
            (game, 0, ctrl, np.zeros(layout.size + 1, np.int8), mask),
            r"obs must be an array of dtype int8 and shape \(2420,\)",
        ),
        ((game, 0, ctrl, obs, mask.astype(np.int32)), "mask must be an array of dtype int8"),
        ((game, 0, np.array([1, -1], np.int32), obs, mask), r"ctrl must be \[0, any\] or \[1, a cell"),
        ((game, 0, np.array([0, -1], np.int64), obs, mask), "ctrl must be an array of dtype int32"),
        ((Game.new(), 0, ctrl, obs, mask), r"obs must be an array of dtype int8 and shape \(18692,\)"),
    ):
        with pytest.raises(ValueError, match=message):
            check_encoder_inputs(*args)


def test_games_still_pickle_deepcopy_and_replace() -> None:
    """The guard against swapping a Game's arrays leaves pickling, deepcopy and dataclasses.replace working."""
    import dataclasses
    import pickle

    game = small()
    arrays = {"board": game.board.copy(), "lands": game.lands.copy(), "scalars": game.scalars.copy()}
    for twin in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game), dataclasses.replace(game, **arrays)):
        assert twin == game and twin.board is not game.board
        twin.pass_turn()
        assert twin != game
