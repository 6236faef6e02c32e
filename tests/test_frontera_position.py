"""Positions (frontera-position/1) round-trip exactly and load strictly; records (frontera-record/1) replay exactly."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from frontera_env import position, record
from frontera_env.actions import Attack, Blitz, Trade
from frontera_env.engine import Game
from frontera_env.map_file import reference_map
from frontera_env.rules_errors import PositionError, RecordError
from tests.frontera_helpers import line_map
from tests.test_frontera_engine_random import choose


def sample_games() -> list[Game]:
    """Return positions from random play: setup, every phase reached, fog and cards off, and a finished game."""
    out = []
    for fog, cards in ((False, True), (True, True), (False, False)):
        rng = random.Random(fog + 2 * cards)
        game = Game.new(reference_map("small"), 3, seed=5 + fog, fog=fog, cards=cards, max_turns=24)
        step = 0
        while not game.over:
            if step % 37 == 0:
                out.append(game.copy())
            game.apply(choose(game, rng))
            step += 1
        out.append(game)
    return out


def test_position_round_trips_exactly_and_play_continues_identically() -> None:
    phases = set()
    for game in sample_games():
        text = position.dumps(game)
        back = position.loads(text, game.ctx.map)
        assert back.state.equals(game.state) and position.dumps(back) == text
        assert (back.ctx.fog, back.ctx.cards, back.ctx.max_turns) == (game.ctx.fog, game.ctx.cards, game.ctx.max_turns)
        phases.add(game.phase)
        if not game.over:
            rng_a, rng_b = random.Random(1), random.Random(1)
            for _ in range(30):
                if game.over:
                    break
                game.apply(choose(game, rng_a))
                back.apply(choose(back, rng_b))
            assert back.state.equals(game.state)
    assert {"setup", "reinforce", "over"} <= phases


def test_position_file_save_and_load(tmp_path: Path) -> None:
    game = Game.new(line_map(8), 2, seed=3)
    position.save(game, tmp_path / "p.json")
    assert position.load(tmp_path / "p.json", game.ctx.map).state.equals(game.state)


def broken(change: dict[str, object]) -> str:
    data = position.to_dict(Game.new(line_map(8), 2, seed=3))
    data.update(change)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"extra": 1}, "unknown key 'extra'"),
        ({"format": "frontera-position/2"}, "format must be"),
        ({"armies": [0, 1, 1, 1, 1, 1, 1, 1]}, "armies must be a list of 8 integers in 1.."),
        ({"owner": [0, 1, 0, 1, 0, 1, 0, 9]}, "owner must be"),
        ({"phase": "lunch"}, "phase must be one of setup, reinforce"),
        ({"players": True}, "players must be an integer in 2..6, got True"),
        ({"rng": 5}, "rng must be a decimal string"),
        ({"draw": [0, 0, 1, 2, 3, 4, 5, 6, 7, 8]}, "each of the 10 cards once"),
        ({"status": ["active", "eliminated"]}, "seat 1 is eliminated but owns"),
        ({"window": [0, 1, 1, 1, 2]}, "window must be given exactly when"),
        ({"options": {"fog": False}}, "options must be an object"),
    ],
)
def test_position_loading_is_strict_and_names_the_field(change: dict[str, object], match: str) -> None:
    with pytest.raises(PositionError, match=match):
        position.loads(broken(change), line_map(8))


def test_position_refuses_another_map_and_oversized_or_deep_text() -> None:
    text = broken({})
    with pytest.raises(PositionError, match="is not the map given"):
        position.loads(text, line_map(8, regions=4))
    with pytest.raises(PositionError, match="nested too deeply"):
        position.loads("[" * 100 + "]" * 100, line_map(8))
    with pytest.raises(PositionError, match="at most"):
        position.loads(" " * (position.MAX_POSITION_BYTES + 1), line_map(8))
    data = json.loads(text)
    del data["pool"]
    with pytest.raises(PositionError, match="missing key 'pool'"):
        position.from_dict(data, line_map(8))


def play_recorded(seed: int) -> record.Recorder:
    """Return a recorder after a random game with an abandonment and timeouts in it."""
    rng = random.Random(seed)
    rec = record.Recorder.new(reference_map("small"), 4, seed, fog=True, max_turns=30)
    rec.deployment_timeout()
    while not rec.game.over:
        roll = rng.random()
        if roll < 0.02 and len(rec.game.state.active_seats()) > 2:
            rec.abandon(rng.choice(rec.game.state.active_seats()))
        elif roll < 0.06:
            rec.timeout()
        else:
            rec.apply(choose(rec.game, rng))
    return rec


def test_record_replays_exactly_with_events() -> None:
    rec = play_recorded(8)
    kinds = {a["type"] for a in rec.actions}
    assert {"abandon", "timeout", "deployment_timeout", "Blitz"} <= kinds
    game = record.loads(rec.dumps(), reference_map("small"))
    assert game.state.equals(rec.game.state)


def test_record_errors_name_the_entry(tmp_path: Path) -> None:
    board = line_map(8)
    rec = record.Recorder.new(board, 2, 4)
    rec.deployment_timeout()
    data = rec.to_dict()
    data["result"] = {"winner": 1, "truncated": False}
    with pytest.raises(RecordError, match="does not match the replay"):
        record.replay(data, board)
    data = rec.to_dict() | {"actions": [{"type": "deployment_timeout"}, {"type": "Attack", "source": 0, "target": 7}]}
    with pytest.raises(RecordError, match="action 1 .*R-"):
        record.replay(data, board)
    data["actions"] = [{"type": "Shout"}]
    with pytest.raises(RecordError, match="unknown action type 'Shout'; allowed: Place"):
        record.replay(data, board)
    data["actions"] = [{"type": "Ready", "seat": 0, "loud": True}]
    with pytest.raises(RecordError, match="Ready takes exactly the keys"):
        record.replay(data, board)
    data = rec.to_dict()
    data["options"]["fog"] = "yes"
    with pytest.raises(RecordError, match="options.fog must be true or false, got 'yes'"):
        record.replay(data, board)
    data["options"] = {"fog": False, "cards": True, "max_turns": -3}
    with pytest.raises(RecordError, match="max_turns must be an integer >= 0"):
        record.replay(data, board)
    (tmp_path / "r.json").write_text(rec.dumps(), encoding="utf-8")
    assert record.load(tmp_path / "r.json", board).state.equals(rec.game.state)


def test_actions_round_trip_through_json() -> None:
    for act in (Trade((1, 4, 9)), Attack(2, 3), Blitz(0, 5)):
        assert record.action_from_json(json.loads(json.dumps(record.action_to_json(act)))) == act
