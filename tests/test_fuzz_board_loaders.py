"""Fuzzing Alveole's and Conquer's position and record loaders (issue 45): their own error or a valid game.

Documents start as real positions and records from seeded play (start, mid-game, finished) and get
one to three mutations: a field replaced by a value of the wrong type, a huge or negative number, a
deeply nested list, a near-miss string, a field deleted or an unknown one added. Random JSON values,
random bytes and random text diagrams are thrown at the loaders too. Whatever comes in, each loader
either returns a game (which then round-trips) or raises the package's :class:`PositionError`; never
another exception. Bounded: few examples of bounded size, a fixed seed, no example database.
"""

from __future__ import annotations

import contextlib
import copy
import json
import random
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import alveole_env.position as a_position
import alveole_env.record as a_record
import conquer_env.position as c_position
import conquer_env.record as c_record
from alveole_env.engine import AlveoleGame
from alveole_env.errors import PositionError as AlveolePositionError
from alveole_env.options import AlveoleOptions
from conquer_env.engine import ConquerGame
from conquer_env.errors import PositionError as ConquerPositionError
from conquer_env.options import ConquerOptions

FUZZ = settings(
    max_examples=60,
    deadline=None,  # no wall-clock limit: a loaded machine must not fail it; inputs are bounded by the loaders
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CONQUER = ConquerOptions(width=5, height=5)


def _alveole_documents() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    positions, records = [], []
    for seed in range(4):
        rng = random.Random(seed)
        game, actions = AlveoleGame.new(AlveoleOptions(max_plies=40 + 30 * seed)), []
        while not game.over:
            actions.append(rng.choice(game.legal_actions()))
            game.play(actions[-1])
            if len(actions) == 10:
                positions.append(a_position.to_dict(game))
        positions.append(a_position.to_dict(game))
        records.append(a_record.make_record(game, actions))
    return positions, records


def _conquer_documents() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    positions, records = [], []
    for seed in range(4):
        rng = random.Random(seed)
        game, actions = ConquerGame.new(CONQUER), []
        while not game.over:
            actions.append(rng.choice(game.legal_actions()))
            game.play(actions[-1])
            if len(actions) == 8:
                positions.append(c_position.to_dict(game))
        positions.append(c_position.to_dict(game))
        records.append(c_record.make_record(CONQUER, ["a", "b"], actions, game))
    return positions, records


A_POSITIONS, A_RECORDS = _alveole_documents()
C_POSITIONS, C_RECORDS = _conquer_documents()

KEYS = [
    *a_position.KEYS,
    *a_record.KEYS,
    "dots",
    "owners",
    "passes",
    "width",
    "height",
    "scoring",
    "start",
    "max_plies",
    "end_reason",
    "winners",
]
NEAR_MISSES = ["R", "B", "r", "b", ".", "X", "O", "pass", "RRRRR", "R.B..", "٥", "1" * 60, "alveole-record-v1"]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 700),
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


#: a string that :func:`_as_text` turns into that many nested brackets (json.dumps itself stops near 1,000)
DEEP = st.integers(50, 20_000).map(lambda n: f"\x00deep{n}")
WEIRD = st.one_of(VALUES, st.integers(50, 3000).map(_nested), DEEP)
_DEEP_TEXT = re.compile(r'"\\u0000deep(\d+)"')


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
        if not slots:
            break
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


def _alveole_position(doc: Any) -> None:
    try:
        game = a_position.from_dict(doc)
    except AlveolePositionError:
        return
    assert a_position.to_dict(a_position.from_dict(a_position.to_dict(game))) == a_position.to_dict(game)


def _alveole_record(doc: Any) -> None:
    try:
        game = a_record.replay(doc)
    except AlveolePositionError:
        return
    assert a_record.result_of(game) == doc["result"]


def _conquer_position(doc: Any) -> None:
    try:
        game = c_position.from_dict(doc)
    except ConquerPositionError:
        return
    assert c_position.to_dict(c_position.from_dict(c_position.to_dict(game))) == c_position.to_dict(game)


def _conquer_record(doc: Any) -> None:
    try:
        game = c_record.replay(doc)
    except ConquerPositionError:
        return
    assert c_position.to_dict(c_record.replay(doc)) == c_position.to_dict(game)


def _as_text(check: Callable[[Any], None], loads: Callable[[str], Any], error: type[Exception], doc: Any) -> None:
    """Check ``doc`` as a mapping, then as JSON text through ``loads`` (the bounded loader)."""
    check(doc)
    try:
        text = json.dumps(doc)
    except (ValueError, RecursionError):
        return
    text = _DEEP_TEXT.sub(lambda m: "[" * int(m.group(1)) + "]" * int(m.group(1)), text)
    with contextlib.suppress(error):
        loads(text)


CASES = {
    "alveole position": (A_POSITIONS, _alveole_position, a_position.loads, AlveolePositionError),
    "alveole record": (A_RECORDS, _alveole_record, a_record.loads, AlveolePositionError),
    "conquer position": (C_POSITIONS, _conquer_position, c_position.loads, ConquerPositionError),
    "conquer record": (C_RECORDS, _conquer_record, c_record.loads, ConquerPositionError),
}


@pytest.mark.parametrize("case", list(CASES))
@FUZZ
@given(data=st.data())
def test_mutated_documents_load_or_raise_position_error(case: str, data: st.DataObject) -> None:
    docs, check, loads, error = CASES[case]
    doc = _mutated(data, docs[data.draw(st.sampled_from(range(len(docs))), label="document")])
    _as_text(check, loads, error, doc)


@FUZZ
@given(VALUES)
def test_random_json_is_refused_cleanly(doc: Any) -> None:
    for _, check, loads, error in CASES.values():
        _as_text(check, loads, error, doc)


@FUZZ
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_random_bytes_are_refused_cleanly(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "doc.json"
        path.write_bytes(raw)
        for module, error in (
            (a_position, AlveolePositionError),
            (a_record, AlveolePositionError),
            (c_position, ConquerPositionError),
            (c_record, ConquerPositionError),
        ):
            with contextlib.suppress(error):
                module.load(path)
            with contextlib.suppress(error):
                module.loads(raw)


DIAGRAM_CHARS = st.sampled_from(list(".XORBrb:= \n-0123456789tompasylx"))


@FUZZ
@given(st.text(DIAGRAM_CHARS, max_size=300), st.integers(-2, 4))
def test_random_text_diagrams_are_refused_cleanly(text: str, to_move: int) -> None:
    with contextlib.suppress(AlveolePositionError):
        a_position.from_text(text, to_move)
    with contextlib.suppress(ConquerPositionError):
        c_position.from_text(text)
