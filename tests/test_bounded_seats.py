"""Bounded seat decisions (policies/bounded.py; issue 45, findings 4 and 6 and "AI decisions are bounded").

No test waits for a clock: a hanging seat blocks on an event until the test releases it, so it overruns any
limit; a Loop graph with a trip count of 2**62 never ends unless stopped. Timeouts below are safety nets only.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from dw_env.engine import PASS_MOVE, Game, Move
from dw_env.options import GameOptions
from policies import bounded, games
from policies.onnx_policy import OnnxGraph, checked_action, sample_legal
from training.evaluation.arena import play_seat
from training.evaluation.arena_config import ArenaConfig

SAFETY = 120.0  # seconds: only so that a broken build fails instead of hanging


@pytest.fixture(autouse=True)
def _no_warmup(monkeypatch: pytest.MonkeyPatch) -> None:
    """The seats here compile nothing: their first decision gets no warm-up allowance (tested on its own below)."""
    monkeypatch.setitem(bounded._settings, "warmup", 0.0)


class Hanging:
    """A seat whose decision blocks until released (a Python seat that overruns: it cannot be killed)."""

    def __init__(self) -> None:
        self.release, self.ended = threading.Event(), threading.Event()

    def act(self, game: Any, seat: int) -> Any:
        self.release.wait(SAFETY)
        self.ended.set()
        return PASS_MOVE


class Returning:
    def __init__(self, value: Any) -> None:
        self.value = value

    def act(self, game: Any, seat: int) -> Any:
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value


def _small_game() -> Game:
    return Game.new(GameOptions(land_radius=1, map_radius=2))


def test_an_overrunning_seat_is_abandoned_then_busy_until_it_ends() -> None:
    seat = Hanging()
    first = bounded.decide(seat, lambda: seat.act(None, 0), 0.01)
    assert first.fault == "timeout" and first.action is None and "0.01 s" in first.detail
    assert bounded.decide(seat, lambda: seat.act(None, 0), 0.01).fault == "busy"  # never two decisions at once
    running = _running_attempt(seat)
    seat.release.set()
    assert running.finished.wait(SAFETY)  # set once the abandoned decision has unregistered itself
    assert bounded.decide(seat, lambda: "ok", SAFETY) == bounded.Decision(action="ok")


def test_a_seats_first_decision_gets_the_warm_up_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(bounded._settings, "warmup", SAFETY)
    seat, gate = Returning("ok"), threading.Event()

    def slow_first() -> Any:  # compiling: longer than the limit, shorter than limit + warm-up
        gate.wait(SAFETY)
        return "ok"

    threading.Timer(0.05, gate.set).start()  # releases the decision after the 0.01 s limit has passed
    assert bounded.decide(seat, slow_first, 0.01) == bounded.Decision(action="ok")
    blocked = threading.Event()
    assert bounded.decide(seat, lambda: blocked.wait(SAFETY), 0.01).fault == "timeout"  # warm now: the plain limit
    blocked.set()


def test_the_arena_retires_a_seat_after_timeouts_in_a_row() -> None:
    seat = Hanging()
    kinds = []
    for _ in range(bounded_retire() + 2):
        kinds.append(bounded.decide(seat, lambda: seat.act(None, 0), 0.01, retire_after=bounded_retire()).fault)
        if kinds[-1] == "timeout":  # let the abandoned decision end; the next one blocks again
            running = _running_attempt(seat)
            seat.release.set()
            assert running.finished.wait(SAFETY)
            seat.release.clear(), seat.ended.clear()
    assert kinds == ["timeout"] * bounded_retire() + ["retired"] * 2


def bounded_retire() -> int:
    from training.evaluation.arena import RETIRE_AFTER

    return RETIRE_AFTER


def _running_attempt(seat: Any) -> Any:
    """Return ``seat``'s decision still running (abandoned); its ``finished`` is set once it has unregistered."""
    with bounded._running_lock:
        return bounded._running[id(seat)]


def test_a_raising_seat_is_an_error_fault_naming_the_exception() -> None:
    seat = Returning(IndexError("index 4611686018427387904 is out of bounds"))
    decision = bounded.decide(seat, lambda: seat.act(None, 0), SAFETY)
    assert decision.fault == "error" and "IndexError" in decision.detail and "out of bounds" in decision.detail


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), float("inf"), 601, True, "5"])
def test_time_limits_must_be_finite_positive_and_bounded(value: Any) -> None:
    with pytest.raises(ValueError, match="time limit must be"):
        bounded.check_limit(value)
    with pytest.raises(ValueError, match="seat time limit"):
        ArenaConfig(lineups=(("random",) * 3,), seat_time_limit=value)


def test_parse_limit_names_the_text() -> None:
    assert bounded.parse_limit("2.5") == 2.5
    with pytest.raises(ValueError, match="got 'soon'"):
        bounded.parse_limit("soon")


# ---- finding 6: a graph's illegal or non-finite output -------------------------------------------------------
@pytest.mark.parametrize("action", [-1, 2**62, 3])
def test_a_graph_action_outside_the_mask_is_refused_not_wrapped(action: int) -> None:
    mask = np.array([1, 1, 1, 0], np.int8)
    with pytest.raises(bounded.IllegalOutputError, match=f"action {action}"):
        checked_action(np.int64(action), mask, "spin")
    assert checked_action(np.int64(2), mask, "spin") == 2


def test_non_finite_logits_are_refused() -> None:
    mask = np.array([1, 0, 1], np.int8)
    rng = np.random.default_rng(0)
    with pytest.raises(bounded.IllegalOutputError, match="not finite"):
        sample_legal(np.array([np.nan, 0.0, 1.0], np.float32)[[1, 1, 0]], mask, rng, "spin")
    assert sample_legal(np.array([0.0, np.nan, 5.0]), mask, rng, "spin") in (0, 2)  # a masked-out NaN is ignored


@pytest.mark.parametrize(
    ("seat", "fault"),
    [
        (Returning(Move(-1, 5)), "illegal"),  # the engine refuses it, unchanged
        (Returning(bounded.IllegalOutputError("spin: action -1")), "illegal"),
        (Returning(RuntimeError("boom")), "error"),
    ],
)
def test_the_arena_plays_the_fallback_for_a_faulty_seat_and_counts_it(seat: Any, fault: str) -> None:
    adapter, game = games.get(), _small_game()
    faults: dict[str, int] = {}
    played = play_seat(adapter, seat, game, game.turn, SAFETY, faults)
    assert played == adapter.fallback_action(game) == PASS_MOVE and faults == {fault: 1}
    assert game.turn == 1  # the pass was played


def test_the_arena_plays_the_fallback_for_a_hanging_seat_and_goes_on() -> None:
    adapter, game, seat = games.get(), _small_game(), Hanging()
    faults: dict[str, int] = {}
    assert play_seat(adapter, seat, game, 0, 0.01, faults) == PASS_MOVE and faults == {"timeout": 1}
    assert play_seat(adapter, seat, game, 1, 0.01, faults) == PASS_MOVE and faults == {"timeout": 1, "busy": 1}
    seat.release.set()


@pytest.mark.parametrize("game_id", ["alveole", "conquer"])
def test_every_game_has_a_legal_fallback(game_id: str) -> None:
    adapter = games.get(game_id)
    game = adapter.new_game(adapter.default_options())
    game.play(adapter.fallback_action(game))


# ---- finding 4: a graph that never ends is stopped -------------------------------------------------------------
def _spinning_session() -> Any:
    """Return an onnxruntime session whose graph is a Loop of 2**62 iterations (it never ends by itself)."""
    ort = pytest.importorskip("onnxruntime")
    onnx = pytest.importorskip("onnx")
    h, f32 = onnx.helper, onnx.TensorProto.FLOAT
    body = h.make_graph(
        [h.make_node("Identity", ["cond_in"], ["cond_out"]), h.make_node("Add", ["x_in", "one"], ["x_out"])],
        "body",
        [
            h.make_tensor_value_info("i", onnx.TensorProto.INT64, []),
            h.make_tensor_value_info("cond_in", onnx.TensorProto.BOOL, []),
            h.make_tensor_value_info("x_in", f32, [1]),
        ],
        [h.make_tensor_value_info("cond_out", onnx.TensorProto.BOOL, []), h.make_tensor_value_info("x_out", f32, [1])],
        [h.make_tensor("one", f32, [1], [1.0])],
    )
    graph = h.make_graph(
        [h.make_node("Loop", ["trip", "cond", "x0"], ["x"], body=body)],
        "spin",
        [h.make_tensor_value_info("x0", f32, [1])],
        [h.make_tensor_value_info("x", f32, [1])],
        [
            h.make_tensor("trip", onnx.TensorProto.INT64, [], [2**62]),
            h.make_tensor("cond", onnx.TensorProto.BOOL, [], [True]),
        ],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


class Spinning:
    """A seat running a never-ending graph through OnnxGraph's stoppable run."""

    def __init__(self) -> None:
        self.graph = OnnxGraph.__new__(OnnxGraph)  # only the session: the package checks are not under test
        self.graph.session = _spinning_session()
        self.stopped = threading.Event()
        self.error: BaseException | None = None

    def act(self, game: Any, seat: int) -> Any:
        try:
            return self.graph._run(["x"], {"x0": np.zeros(1, np.float32)})
        except Exception as exc:  # noqa: BLE001 - what onnxruntime raised when stopped
            self.error = exc
            raise
        finally:
            self.stopped.set()


def test_an_overrunning_graph_is_terminated_and_its_thread_ends() -> None:
    seat = Spinning()
    decision = bounded.decide(seat, lambda: seat.act(None, 0), 0.05)
    assert decision.fault == "timeout"
    assert seat.stopped.wait(SAFETY), "the Loop graph was not stopped"
    assert "terminate" in str(seat.error)


def test_a_graph_started_after_its_decision_was_abandoned_stops_at_once() -> None:
    seat, gate = Spinning(), threading.Event()

    def act() -> Any:
        gate.wait(SAFETY)  # abandoned while waiting here; the graph starts after that
        return seat.act(None, 0)

    assert bounded.decide(seat, act, 0.01).fault == "timeout"
    gate.set()
    assert seat.stopped.wait(SAFETY) and "terminate" in str(seat.error)


# ---- the server: a hanging AI plays the fallback, the room is told, the game goes on ---------------------------
def test_a_room_whose_ais_hang_plays_their_fallback_and_tells_the_room(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from starlette.testclient import TestClient

    from play.games.domain_wheel import DomainWheelSession
    from play.server import ServerConfig, create_app
    from tests.test_play_server import hello, make_room

    release, armed = threading.Event(), threading.Event()
    answer = DomainWheelSession.ai_action

    def hang(self: Any, policy: Any, snapshot: Any, seat: int) -> Any:
        if not armed.is_set():  # the server's warm-up game: let it play
            return answer(self, policy, snapshot, seat)
        release.wait(30)  # never answers in time: the old code waited here, the room frozen
        raise RuntimeError("released")

    monkeypatch.setattr(DomainWheelSession, "ai_action", hang)
    monkeypatch.setitem(bounded._settings, "limit", 0.05)
    try:
        with TestClient(create_app(ServerConfig(records=tmp_path, ai_workers=1))) as client:
            room = make_room(client)
            with client.websocket_connect("/ws") as ws:
                hello(ws, room)
                armed.set()
                ws.send_json({"type": "pass", "ply": 0})
                seen = [ws.receive_json()]
                while not (seen[-1]["type"] == "state" and seen[-1]["state"]["ply"] == 3):
                    seen.append(ws.receive_json())
    finally:
        release.set()
    faults = [m for m in seen if m.get("code") == "ai_fault"]
    state = seen[-1]["state"]
    assert [(f["type"], f["seat"], f["fault"]) for f in faults] == [("error", 1, "timeout"), ("error", 2, "timeout")]
    assert "fallback" in faults[0]["message"]
    assert state["turn"] == 0 and [e["action"] for e in state["log"]] == ["pass", "pass", "pass"]
