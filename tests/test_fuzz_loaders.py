"""Fuzzing the loaders and ``dw show`` with mutated and random JSON (issue 8): never a traceback, never a hang.

Documents start as real positions and records (initial, mid-game, finished by several
endings) and get one to three mutations: a field replaced by a value of the wrong type, a
huge or negative number, a deeply nested list, a near-miss string (Unicode digits, player
names), a field deleted or an unknown one added. Whatever comes in, the loaders either
accept it (and then the result round-trips and replays) or raise their documented error
(:class:`PositionError`, :class:`RecordError`); ``dw show`` exits 0 or prints one line and
exits 2; a game that refuses a move equals its copy from before. Bounded: few examples,
a fixed seed (``derandomize``), no example database on disk.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from conftest import BiasedPlayer, play_biased_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dw_cli.main import main
from dw_env import position
from dw_env.engine import Game, IllegalActionError, Move
from dw_env.options import GameOptions
from dw_env.position import PositionError
from dw_env.record import GameRecord, RecordError

FUZZ = settings(
    max_examples=60,
    deadline=None,  # no wall-clock limit: a loaded machine must not fail it; inputs are bounded by the loaders
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=30)


def _sampler(seed: int, out: list[Game]) -> Any:
    """Return a play hook that keeps up to three positions of a game, chosen by ``seed``."""
    rng = random.Random(seed)

    def hook(before: Game, move: Move, after: Game, events: Any) -> None:
        if len(out) < 3 and rng.random() < 0.05:
            out.append(after.copy())

    return hook


def _documents() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return (positions, records) to mutate: real documents from seeded play, every ending included."""
    positions, records = [], []
    for seed in range(6):
        snapshots: list[Game] = []
        end_prob = (0.0, 1.0)[seed % 2]
        final, moves, _ = play_biased_game(
            SMALL, seed, BiasedPlayer(seed, end_prob=end_prob), _sampler(seed, snapshots)
        )
        positions += [position.to_dict(g) for g in (Game.new(SMALL), *snapshots, final)]
        record = GameRecord.from_game(Game.new(SMALL), players=["a", "b", "c"])
        for m in moves[:40]:
            record.append(m)
        records.append(record.to_dict())
    return positions, records


POSITIONS, RECORDS = _documents()

KEYS = ["format", "version", "options", "turn", "round", "countdown", "pieces", "king", "knights", "result"]
NEAR_MISSES = [
    "blue",
    "green",
    "red",
    "purple",
    "pass",
    "end",
    "centre",
    "countdown",
    "end_request",
    "truncation",
    "5,-2>4,-1",
    "٥,-٢>٤,-١",
    "1" * 60 + ",0>0,0",
    "domain-wheel-game",
    "domain-wheel-position",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 300),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(NEAR_MISSES),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner),
    max_leaves=8,
)


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


WEIRD = st.one_of(VALUES, st.integers(50, 400).map(_nested))


def _slots(doc: Any) -> list[tuple[Any, Any]]:
    """Return every (container, key or index) in a JSON document."""
    out: list[tuple[Any, Any]] = []
    todo = [doc]
    while todo:
        node = todo.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            out.append((node, key))
            todo.append(child)
    return out


def _mutated(data: st.DataObject, doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        slots = _slots(doc)
        node, key = data.draw(st.sampled_from(slots), label="slot")
        action = data.draw(st.sampled_from(["replace", "replace", "delete", "add"]), label="action")
        if action == "replace":
            node[key] = data.draw(WEIRD, label="value")
        elif action == "delete":
            del node[key]
        elif isinstance(node, dict):
            node[data.draw(st.sampled_from(KEYS) | st.text(max_size=6), label="key")] = data.draw(WEIRD)
        else:
            node.append(data.draw(WEIRD, label="item"))
    return doc


def _check_position(doc: Any) -> None:
    try:
        game = position.from_dict(doc)
    except PositionError:
        return
    assert position.from_dict(position.to_dict(game)) == game


def _check_record(doc: Any) -> None:
    try:
        record = GameRecord.from_dict(doc)
    except RecordError:
        return
    assert GameRecord.loads(record.dumps()).replay() == record.replay()


def _show(doc: Any) -> None:
    """Run ``dw show`` on the document in a file: exit 0, or one error line and exit 2."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "doc.json"
        path.write_text(json.dumps(doc))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["show", str(path)])
    assert code in (0, 2)
    if code == 2:
        assert err.getvalue().startswith("dw show: error: ") and err.getvalue().count("\n") == 1, err.getvalue()
    else:
        assert "To act" in out.getvalue() or "Game" in out.getvalue()


@FUZZ
@given(st.data(), st.sampled_from(range(len(POSITIONS))))
def test_mutated_positions_load_or_raise_position_error(data: st.DataObject, index: int) -> None:
    doc = _mutated(data, POSITIONS[index])
    _check_position(doc)
    try:
        text = json.dumps(doc)
    except (ValueError, RecursionError):
        return
    with contextlib.suppress(PositionError):
        position.loads(text)


@FUZZ
@given(st.data(), st.sampled_from(range(len(RECORDS))))
def test_mutated_records_load_or_raise_record_error(data: st.DataObject, index: int) -> None:
    _check_record(_mutated(data, RECORDS[index]))


@FUZZ
@given(st.data(), st.booleans())
def test_dw_show_on_mutated_files_never_tracebacks(data: st.DataObject, record: bool) -> None:
    docs = RECORDS if record else POSITIONS
    _show(_mutated(data, docs[data.draw(st.sampled_from(range(len(docs))), label="document")]))


@FUZZ
@given(VALUES)
def test_random_json_is_refused_cleanly(doc: Any) -> None:
    _check_position(doc)
    _check_record(doc)
    _show(doc)


@FUZZ
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_random_bytes_are_refused_cleanly(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "doc.json"
        path.write_bytes(raw)
        for load, error in ((position.load, PositionError), (GameRecord.load, RecordError)):
            with contextlib.suppress(error):
                load(path)


ACTION_PARTS = st.one_of(
    st.integers(-3, 140),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
    st.integers(-3, 140).map(np.int64),
    st.integers(0, 140).map(np.float64),
)
ACTIONS = st.one_of(
    st.tuples(ACTION_PARTS, ACTION_PARTS),
    st.lists(ACTION_PARTS, max_size=4).map(tuple),
    ACTION_PARTS,
)


@FUZZ
@given(st.integers(0, len(POSITIONS) - 1), st.lists(ACTIONS, min_size=1, max_size=6))
def test_a_game_that_refuses_a_move_is_unchanged(index: int, actions: list[Any]) -> None:
    game = position.from_dict(POSITIONS[index])
    for action in actions:
        before = game.copy()
        try:
            game.play(action)
        except IllegalActionError:
            assert game == before
