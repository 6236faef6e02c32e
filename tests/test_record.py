"""Game records (dw_env/record.py): notation, exact replay, files and their errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import BiasedPlayer, play_biased_game

from dw_env import position
from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, Game, IllegalActionError, Move
from dw_env.options import GameOptions
from dw_env.record import GameRecord, Recorder, RecordError, format_move, parse_move, result_of

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=40)


def same_state(a: Game, b: Game) -> bool:
    return a.options == b.options and all(
        np.array_equal(getattr(a, name), getattr(b, name)) for name in ("board", "lands", "scalars")
    )


@pytest.fixture(scope="module")
def played() -> tuple[Game, GameRecord, list[Game]]:
    """A seeded biased game played to its end through a Recorder, its record and every state on the way."""
    states: list[Game] = [Game.new(SMALL)]
    recorder = Recorder(Game.new(SMALL), players=["biased", "biased", "biased"])
    player = BiasedPlayer(4, end_prob=0.5)
    while not recorder.game.over:
        recorder.play(player.choose(recorder.game))
        states.append(recorder.game.copy())
    return recorder.game, recorder.record, states


# ---- notation ----------------------------------------------------------------------------------------
def test_move_notation_round_trips_for_every_legal_action() -> None:
    game = Game.new()
    g = game.geometry
    moves = game.legal_moves()
    for move in moves:
        text = format_move(g, move)
        assert parse_move(g, text) == move
    assert format_move(g, PASS_MOVE) == "pass" and parse_move(g, "pass") == PASS_MOVE
    assert format_move(g, END_REQUEST_MOVE) == "end" and parse_move(g, "end") == END_REQUEST_MOVE
    blue_king = Move(g.cell_index(20, -8), g.cell_index(19, -9))
    assert format_move(g, blue_king) == "20,-8>19,-9"
    assert parse_move(g, " 20, -8 > 19, -9 ") == blue_king


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("20,-8-19,-9", r"move '20,-8-19,-9' is not valid notation; allowed: \"q,r>q,r\""),
        ("20,-8>", "not valid notation"),
        ("PASS", "not valid notation"),
        ("99,0>98,0", r"move '99,0>98,0': cell \(99, 0\) is not on the map"),
        (17, "a move must be a string"),
        (None, "a move must be a string"),
    ],
)
def test_bad_notation_is_named(text: Any, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        parse_move(Game.new().geometry, text)


# ---- replay -----------------------------------------------------------------------------------------
def test_replay_reproduces_the_final_state(played: tuple[Game, GameRecord, list[Game]]) -> None:
    final, record, _ = played
    assert final.over and record.result == result_of(final)
    assert same_state(record.replay(), final)
    assert same_state(record.replay(), record.replay())  # deterministic


def test_positions_yield_every_intermediate_state(played: tuple[Game, GameRecord, list[Game]]) -> None:
    _, record, states = played
    replayed = list(record.positions())
    assert len(replayed) == len(record.moves) + 1 == len(states)
    for a, b in zip(replayed, states, strict=True):
        assert same_state(a, b)
    replayed[0].pass_turn()  # the yielded games are independent copies
    assert same_state(next(iter(record.positions())), states[0])


def test_save_load_round_trip(played: tuple[Game, GameRecord, list[Game]], tmp_path: Path) -> None:
    final, record, _ = played
    path = tmp_path / "game.json"
    record.save(path)
    text = path.read_text()
    data = json.loads(text)
    assert data["format"] == "domain-wheel-game" and data["version"] == 1
    assert data["players"] == ["biased"] * 3
    assert data["result"]["end_reason"] == final.end_reason
    assert data["result"]["scores"] == dict(zip(("blue", "green", "red"), final.scores(), strict=True))
    assert data["moves"] == record.notation and len(data["moves"]) == len(record.moves)
    assert data["initial"] == position.to_dict(Game.new(SMALL))
    loaded = GameRecord.load(path)
    assert loaded.moves == record.moves and loaded.initial == record.initial
    assert loaded.dumps() == text
    assert same_state(loaded.replay(), final)


def test_record_from_a_position_in_mid_game() -> None:
    """A record may start anywhere; its initial position keeps the ply, round and counters."""
    game, moves, _ = play_biased_game(SMALL, 11, BiasedPlayer(11))
    middle = Game.new(SMALL)
    for move in moves[:40]:
        middle.play(move)
    record = GameRecord.from_game(middle)
    for move in moves[40:]:
        record.append(move)
    assert record.initial["ply"] == 40
    assert same_state(GameRecord.loads(record.dumps()).replay(), game)


def test_append_accepts_moves_pairs_notation_and_numpy_integers() -> None:
    record = GameRecord.from_game(Game.new(SMALL))
    g = record.geometry
    first = Game.new(SMALL).legal_moves()[0]
    record.append(first)
    record.append("pass")
    record.append((np.int64(-1), np.int32(-1)))
    assert record.moves == [first, PASS_MOVE, PASS_MOVE]
    assert record.notation == [format_move(g, first), "pass", "pass"]
    with pytest.raises(RecordError, match=r"moves\[3\] must be a Move, a \(src, dst\) pair"):
        record.append([1, 2])  # type: ignore[arg-type]
    with pytest.raises(RecordError, match=r"moves\[3\]: move \(5000, 0\): source cell 5000 is not on the map"):
        record.append((5000, 0))
    assert len(record.moves) == 3


def test_recorder_keeps_the_record_unchanged_on_an_illegal_action() -> None:
    recorder = Recorder(Game.new(SMALL))
    g = recorder.game.geometry
    with pytest.raises(IllegalActionError):
        recorder.play(Move(g.cell_index(6, -2), g.cell_index(0, 0)))
    with pytest.raises(IllegalActionError):
        recorder.request_end()
    assert recorder.record.moves == [] and recorder.record.result is None
    recorder.pass_turn()
    assert recorder.record.moves == [PASS_MOVE]


# ---- malformed files ---------------------------------------------------------------------------------
def small_record() -> dict[str, Any]:
    recorder = Recorder(Game.new(SMALL), players=["a", "b", "c"])
    for _ in range(4):
        recorder.play(recorder.game.legal_moves()[0])
    return recorder.record.to_dict()


def with_change(key: str, value: Any) -> dict[str, Any]:
    data = small_record()
    if value == "-":
        del data[key]
    else:
        data[key] = value
    return data


BAD_RECORDS: list[tuple[str, Any, str]] = [
    ("format", "domain-wheel-position", "format must be 'domain-wheel-game', got 'domain-wheel-position'"),
    ("version", 3, "unsupported version 3; this engine reads version 1"),
    ("comment", "hi", "unknown field 'comment'; allowed: format, version, initial, moves, players, result"),
    ("moves", "-", "missing field.*moves; required: format, version, initial, moves"),
    ("initial", "-", "missing field.*initial"),
    ("moves", "pass", "moves must be a list"),
    ("moves", ["pass", "6,-2>"], r"moves\[1\]: move '6,-2>' is not valid notation"),
    ("moves", ["pass", 3], r"moves\[1\] must be a Move|a move must be a string"),
    ("moves", ["6,-2>0,0"], r"moves\[0\] '6,-2>0,0' \(ply 1\) is illegal: blue's piece on \(6, -2\) cannot move"),
    ("moves", ["pass", "6,-2>6,-1"], r"moves\[1\] '6,-2>6,-1' \(ply 2\) is illegal: cell \(6, -2\) holds no piece"),
    ("moves", ["end"], r"moves\[0\] 'end' \(ply 1\) is illegal: blue may not request the end"),
    ("initial", {"format": "domain-wheel-position"}, "initial: missing field"),
    ("initial", [], "initial: a position must be a JSON object"),
    ("players", ["a", "b"], "players must be a list of 3 strategy names"),
    ("players", "abc", "players must be a list of 3"),
    ("result", {"end_reason": "centre"}, "result must be null or an object with exactly end_reason, scores, winners"),
    (
        "result",
        {"end_reason": "centre", "winners": ["blue"], "scores": {"blue": 13, "green": 0, "red": 0}},
        "result .* does not match the replayed game, which gives None",
    ),
]


@pytest.mark.parametrize(("key", "value", "message"), BAD_RECORDS, ids=[f"{k}={v!r}" for k, v, _ in BAD_RECORDS])
def test_malformed_records_are_rejected_with_a_clear_message(key: str, value: Any, message: str) -> None:
    data = with_change(key, value)
    with pytest.raises(RecordError, match=message):
        GameRecord.from_dict(data)
    with pytest.raises(RecordError, match=message):
        GameRecord.loads(json.dumps(data))


def test_a_small_record_is_valid() -> None:
    """Guards the table above: the unedited record loads and replays."""
    data = small_record()
    assert len(GameRecord.from_dict(data).replay().legal_moves()) > 0
    illegal = with_change("moves", ["6,-2>0,0"])
    assert GameRecord.from_dict(illegal, verify=False).moves[0].src >= 0  # syntax only


@pytest.mark.parametrize(
    ("text", "message"),
    [("{", "not valid JSON"), ("[]", "a game record must be a JSON object, got list"), ("7", "got int")],
)
def test_text_that_is_not_a_record_is_rejected(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        GameRecord.loads(text)


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(with_change("moves", ["pass", "nonsense"])))
    with pytest.raises(RecordError, match=r"broken\.json: moves\[1\]: move 'nonsense' is not valid notation"):
        GameRecord.load(path)


def test_every_fuzz_record_kind_replays(biased_game: Any) -> None:
    """Records of games ending each way (centre, countdown, end request, truncation) round-trip and replay."""
    reasons: set[str] = set()
    for seed in range(40):
        game, moves, _ = biased_game(SMALL, seed, BiasedPlayer(seed, end_prob=(0.0, 1.0)[seed % 2]))
        if game.end_reason in reasons:
            continue
        reasons.add(game.end_reason)
        record = GameRecord(position.to_dict(Game.new(SMALL)), list(moves), result=result_of(game))
        loaded = GameRecord.loads(record.dumps())
        assert same_state(loaded.replay(), game)
    assert {"centre", "truncation", "end_request"} <= reasons
