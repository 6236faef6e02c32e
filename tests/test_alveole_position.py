"""Position I/O (spec 1.5, 2.3, 7.10), game records, options, the encoding contract and rendering."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from alveole_env import AlveoleGame, AlveoleOptions, PositionError
from alveole_env import position as pos
from alveole_env import record as rec
from alveole_env.encoding import NUM_ACTIONS, OBS_SIZE, PLANES, decode_action
from alveole_env.render_image import render as render_image
from alveole_env.render_text import render as render_text

GOOD = {"to_move": 2, "pieces": [[0, 0, 1], [2, -1, 1], [-3, -1, 2], [3, 1, 2]], "ply": 7}


def test_spec_1_5_json_round_trip() -> None:
    game = pos.from_dict(GOOD)
    assert game.turn == 1 and game.ply == 7
    assert pos.to_dict(game) == {**GOOD, "pieces": sorted(GOOD["pieces"], key=lambda p: (p[1], p[0]))}
    again = pos.loads(pos.dumps(game))
    assert (again.board == game.board).all() and again.turn == game.turn and again.ply == game.ply


def test_text_diagram_round_trip_from_a_played_game() -> None:
    game = AlveoleGame.new()
    rng = random.Random(3)
    for _ in range(20):
        game.play(rng.choice(game.legal_actions()))
    back = pos.from_text(render_text(game), to_move=game.turn + 1)
    assert (back.board == game.board).all()


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "must be a mapping"),
        ({**GOOD, "extra": 1}, "unknown position key 'extra'; allowed: to_move, pieces, ply"),
        ({"pieces": GOOD["pieces"]}, "missing the key 'to_move'"),
        ({**GOOD, "to_move": 3}, "to_move is 3, out of range; allowed: 1..2"),
        ({**GOOD, "to_move": True}, "to_move must be an integer"),
        ({**GOOD, "ply": -1}, "ply is -1"),
        ({**GOOD, "pieces": "x"}, "pieces must be a list"),
        ({**GOOD, "pieces": [*GOOD["pieces"], [1, 1]]}, r"pieces\[4\] must be a \[q, r, player\] triple"),
        ({**GOOD, "pieces": [*GOOD["pieces"], [4, 4, 1]]}, r"pieces\[4\] is on \(4,4\), which is off the board"),
        ({**GOOD, "pieces": [*GOOD["pieces"], [5, 0, 1]]}, r"pieces\[4\] q is 5"),
        ({**GOOD, "pieces": [*GOOD["pieces"], [0, 0, 2]]}, r"cell \(0,0\) already holds a piece"),
        ({**GOOD, "pieces": [*GOOD["pieces"], [1, 1, 3]]}, r"player is 3, out of range; allowed: 1..2"),
        ({**GOOD, "pieces": [*GOOD["pieces"], [1, 1, 1.0]]}, "player must be an integer"),
        ({**GOOD, "pieces": GOOD["pieces"][1:]}, "player 1 has 1 pieces; a position in progress has 2..9"),
        ({**GOOD, "pieces": [*GOOD["pieces"], [1, 0, 1]]}, "player 1 is already connected"),
        (
            {**GOOD, "pieces": GOOD["pieces"] + [[q, -4, 2] for q in range(0, 5)] + [[-4, q, 2] for q in (2, 4)]},
            "player 2 has 9 pieces",
        ),
    ],
)
def test_spec_7_10_invalid_positions_are_refused_by_name(data: object, words: str) -> None:
    if words == "player 2 has 9 pieces":  # 9 is allowed: one more is not
        data = {**GOOD, "pieces": GOOD["pieces"] + [[q, -4, 2] for q in range(5)] + [[-4, q, 2] for q in (1, 3, 4)]}
        words = "player 2 has 10 pieces; a position in progress has 2..9"
    with pytest.raises(PositionError, match=words):
        pos.from_dict(data)  # type: ignore[arg-type]


def test_malformed_json_and_diagrams_are_refused() -> None:
    with pytest.raises(PositionError, match="JSON"):
        pos.loads("{not json")
    with pytest.raises(PositionError, match="9 rows"):
        pos.from_text(". . .")
    text = render_text(AlveoleGame.new()).replace("O   X   .   O   X", "O   X   ?   O   X", 1)
    with pytest.raises(PositionError, match="'\\?' is not a cell"):
        pos.from_text(text)


def test_loading_at_the_ply_limit_is_truncated() -> None:
    game = pos.from_dict({**GOOD, "ply": 10}, AlveoleOptions(max_plies=10))
    assert game.truncated and game.legal_actions() == []


def test_options_are_strict() -> None:
    assert AlveoleOptions.from_dict({"max_plies": 9}).to_dict() == {"max_plies": 9}
    with pytest.raises(ValueError, match="unknown option 'max_rounds'; allowed: max_plies"):
        AlveoleOptions.from_dict({"max_rounds": 9})
    with pytest.raises(ValueError, match="max_plies must be an integer"):
        AlveoleOptions(max_plies="9")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="out of range; allowed: 1..100000"):
        AlveoleOptions(max_plies=0)
    with pytest.raises(ValueError, match="options must be an AlveoleOptions"):
        AlveoleGame.new({"max_plies": 9})  # type: ignore[arg-type]


def _random_game(seed: int, **options: int) -> tuple[AlveoleGame, list[int]]:
    game = AlveoleGame.new(AlveoleOptions(**options))
    rng = random.Random(seed)
    actions = []
    while not game.over:
        actions.append(rng.choice(game.legal_actions()))
        game.play(actions[-1])
    return game, actions


def test_record_round_trip_and_replay() -> None:
    game, actions = _random_game(1)
    record = rec.make_record(game, actions, ["random", "random"])
    assert json.loads(rec.dumps(record)) == record
    again = rec.loads(rec.dumps(record))
    assert (again.board == game.board).all() and again.end_reason == game.end_reason


def test_record_from_a_position_and_truncated() -> None:
    start = pos.from_dict(GOOD)
    game = start.copy()
    move = game.play(game.legal_actions()[0])
    record = rec.make_record(game, [move.action], start=start)
    assert record["start"] == pos.to_dict(start)
    assert rec.replay(record).ply == 8
    game, actions = _random_game(2, max_plies=5)
    replayed = rec.replay(rec.make_record(game, actions))
    assert replayed.truncated and replayed.ply == 5 and replayed.winners == []


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"result": {"end_reason": "truncated", "winners": [], "ply": 1}}, "does not match"),
        ({"actions": [0]}, "action 0 .*off the board"),
        ({"format": "chess-v1"}, "format is 'chess-v1'; this reads 'alveole-record-v1'"),
        ({"options": {"max_plies": 0}}, "max_plies=0 is out of range"),
        ({"players": ["a"]}, "list of 2 names"),
        ({"extra": 1}, "unknown key 'extra'"),
    ],
)
def test_bad_records_are_refused_by_name(change: dict[str, object], words: str) -> None:
    game, actions = _random_game(4)
    with pytest.raises(PositionError, match=words):
        rec.replay({**rec.make_record(game, actions), **change})


def test_observation_follows_the_encoding_contract() -> None:
    game = AlveoleGame.new()
    obs, mask = game.observe()
    assert obs.dtype == mask.dtype == np.int8 and obs.shape == (OBS_SIZE,) and mask.shape == (NUM_ACTIONS,)
    planes = obs.reshape(PLANES)
    assert planes[0].sum() == planes[1].sum() == 9 and planes[5].sum() == 61
    off = planes[5] == 0
    assert not planes[:, off].any()
    assert sorted(np.flatnonzero(mask).tolist()) == game.legal_actions()
    assert all(decode_action(a)[0] in game.pieces(0) for a in game.legal_actions())
    game.play(game.legal_actions()[0])
    swapped, _ = game.observe()  # egocentric: plane 0 is now player 2's pieces
    assert (swapped.reshape(PLANES)[0] == planes[1]).all()
    # the line-count planes hold each board cell's row / diagonal / column piece counts
    assert planes[2][4].tolist() == [2] * 9  # row r=0 holds (-4,0) and (4,0)


def test_renderers() -> None:
    game, _ = _random_game(5)
    text = render_text(game)
    assert "wins" in text and text.count("\n") == 9
    image = render_image(game, 300)
    assert image.shape == (300, 300, 3) and image.dtype == np.uint8
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 4
    with pytest.raises(ValueError, match="width must be an integer"):
        render_image(game, 10)
