"""Bounded seat decisions: every AI decision has a time limit, and a seat that overruns or fails is reported.

The arena (:mod:`training.evaluation.arena`) and the browser game's rooms (:mod:`play.rooms`) ask a seat for its action
through :func:`decide` (blocking) or :func:`decide_async` (awaitable). Each decision runs on its own daemon
thread, on a copy of the game the caller gives, and is waited for at most ``limit`` seconds:

* it answers in time: :class:`Decision` with the action (the caller still checks it is legal);
* it raises: a fault ``"error"`` naming the exception;
* it overruns: a fault ``"timeout"``. Every ONNX graph it is running is stopped (onnxruntime's
  ``RunOptions.terminate``, registered through :func:`stoppable`), and any graph it starts afterwards stops at
  once. Python code (a scripted AI, a search) cannot be killed in its thread: the decision is abandoned, the
  thread runs on to its end on its copy of the game, and until it ends the seat's next decisions fault at once
  as ``"busy"`` (a seat never thinks twice at the same time). Daemon threads never keep the process alive.

On any fault the caller plays the game's fallback action (``BoardGame.fallback_action`` in the arena,
``GameSession.fallback_action`` in the server) and reports the fault; no other game or room waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gamecore.errors import brief, clip

#: seconds a decision may take unless told (a scripted AI answers in milliseconds, a search seat in about one)
DEFAULT_LIMIT = 5.0
#: the most seconds a decision may be allowed
MAX_LIMIT = 600.0
#: extra seconds a seat's first decision in a process may take: it also compiles its kernels and loads its graph
WARMUP_SECONDS = 120.0
#: the kinds of fault a seat can have, in report order
FAULTS = ("timeout", "error", "illegal", "busy", "retired")

_local = threading.local()
_running_lock = threading.RLock()  # re-entrant: a finalizer (_forget) may run during a collection under it
#: id(seat) -> its decision still running (abandoned or not); a seat thinks once at a time
_running: dict[int, _Attempt] = {}
_settings = {"limit": DEFAULT_LIMIT, "warmup": WARMUP_SECONDS}
#: id(seat) of the seats that finished a decision in this process (their warm-up is over)
_warmed: set[int] = set()
#: id(seat) -> its timeouts in a row (reset by a decision in time)
_strikes: dict[int, int] = {}
#: id(seat) of the seats whose entries above are dropped when they are garbage (ids are reused)
_tracked: set[int] = set()


def _track(seat: Any) -> None:
    """Forget ``seat``'s warm-up and timeouts when it is garbage, so that a new seat at its id starts afresh."""
    key = id(seat)
    if key in _tracked:
        return
    try:
        weakref.finalize(seat, _forget, key)
    except TypeError:  # a seat that takes no weak reference: its entries stay (none of ours is such)
        return
    _tracked.add(key)


def _forget(key: int) -> None:
    with _running_lock:
        _warmed.discard(key)
        _strikes.pop(key, None)
        _tracked.discard(key)


def check_limit(value: Any, name: str = "time limit") -> float:
    """Return ``value`` as seconds if it is a finite number in (0, MAX_LIMIT]; ValueError naming it otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number of seconds, got {brief(value)}")
    if not 0 < value <= MAX_LIMIT:
        raise ValueError(f"{name} must be > 0 and at most {MAX_LIMIT:g} seconds, got {brief(value)}")
    return float(value)


def parse_limit(text: str, name: str = "time limit") -> float:
    """Return a command line's time limit (``"2.5"``) as seconds; ValueError naming it and what is allowed."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {brief(text)}") from None
    return check_limit(value, name)


def set_time_limit(seconds: Any) -> None:
    """Set the process's default decision limit (``dw play --ai-time-limit``); ValueError if not allowed."""
    _settings["limit"] = check_limit(seconds)


def time_limit() -> float:
    """Return the process's default decision limit in seconds."""
    return _settings["limit"]


class IllegalOutputError(ValueError):
    """A seat's output that is no legal action (out of range, masked out, non-finite logits): fault "illegal"."""


@dataclass(frozen=True)
class Decision:
    """A seat's answer: the action (None on a fault), the fault's kind (one of :data:`FAULTS`) and what happened."""

    action: Any = None
    fault: str | None = None
    detail: str = ""


class _Attempt:
    """One decision running on its own daemon thread."""

    def __init__(self, seat: Any, act: Callable[[], Any], notify: Callable[[], None] | None) -> None:
        self.key = id(seat)
        self.lock = threading.Lock()
        self.stoppers: list[Callable[[], None]] = []
        self.abandoned = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.finished = threading.Event()
        self._act, self._notify = act, notify

    def start(self) -> None:
        threading.Thread(target=self._run, daemon=True, name="seat-decision").start()

    def _run(self) -> None:
        _local.attempt = self
        try:
            self.result = self._act()
        except BaseException as exc:  # noqa: BLE001 - whatever a seat raises is its fault, reported by the caller
            self.error = exc
        finally:
            _local.attempt = None
            with _running_lock:
                _running.pop(self.key, None)
                _warmed.add(self.key)
            self.finished.set()
            if self._notify is not None:
                self._notify()

    def abandon(self) -> None:
        """Give the decision up: stop its running graphs, and any it starts from now on."""
        with self.lock:
            self.abandoned = True
            stoppers = list(self.stoppers)
        for stop in stoppers:
            stop()

    def outcome(self) -> Decision:
        if isinstance(self.error, IllegalOutputError):
            return Decision(fault="illegal", detail=clip(str(self.error)))
        if self.error is not None:
            text = clip(f"{type(self.error).__name__}: {self.error}")
            return Decision(fault="error", detail=f"the seat raised {text}")
        return Decision(action=self.result)


def _allowance(seat: Any, limit: float) -> float:
    """Return the seconds ``seat``'s next decision may take: ``limit``, plus the warm-up on its first one."""
    with _running_lock:
        return limit if id(seat) in _warmed else limit + _settings["warmup"]


def _retired(seat: Any, retire_after: int | None) -> Decision | None:
    """Return the "retired" fault if ``seat`` overran ``retire_after`` times in a row, else None."""
    if retire_after is None:
        return None
    with _running_lock:
        strikes = _strikes.get(id(seat), 0)
    if strikes < retire_after:
        return None
    detail = f"it overran the time limit {strikes} times in a row; it is not asked again"
    return Decision(fault="retired", detail=detail)


def _strike(seat: Any, decision: Decision) -> Decision:
    """Count ``decision`` in ``seat``'s timeouts in a row and return it."""
    with _running_lock:
        if decision.fault == "timeout":
            _strikes[id(seat)] = _strikes.get(id(seat), 0) + 1
        elif decision.fault is None:
            _strikes.pop(id(seat), None)
    return decision


def _start(seat: Any, act: Callable[[], Any], notify: Callable[[], None] | None) -> _Attempt | None:
    with _running_lock:
        _track(seat)
        if id(seat) in _running:
            return None
        attempt = _running[id(seat)] = _Attempt(seat, act, notify)
    attempt.start()  # registered first: its thread may end at once and unregister it
    return attempt


_BUSY = Decision(fault="busy", detail="its previous decision, abandoned after the time limit, is still running")


def _timeout(attempt: _Attempt, limit: float) -> Decision:
    attempt.abandon()
    return Decision(fault="timeout", detail=f"no decision within the time limit of {limit:g} s")


def decide(seat: Any, act: Callable[[], Any], limit: float | None = None, retire_after: int | None = None) -> Decision:
    """Return the :class:`Decision` of ``act()`` (a seat's ``act`` on a copy of the game) within ``limit`` seconds.

    ``seat`` is the seat object: while one of its decisions runs, another is refused as ``"busy"``.
    ``limit`` None is the process's default (:func:`time_limit`). A seat's first decision in the process gets
    :data:`WARMUP_SECONDS` more (compiling and loading are not thinking), so that a loaded machine does not
    turn a seat's first move into a fault. With ``retire_after`` (the arena's choice), a seat that overran that
    many times in a row is not asked again: its decisions fault at once as ``"retired"``.
    """
    limit = time_limit() if limit is None else limit
    retired = _retired(seat, retire_after)
    if retired is not None:
        return retired
    allowed = _allowance(seat, limit)
    attempt = _start(seat, act, None)
    if attempt is None:
        return _BUSY
    if not attempt.finished.wait(allowed):
        return _strike(seat, _timeout(attempt, allowed))
    return _strike(seat, attempt.outcome())


async def decide_async(seat: Any, act: Callable[[], Any], limit: float | None = None) -> Decision:
    """Return :func:`decide`'s answer without blocking the event loop (the rooms of ``dw play``).

    Cancelling the awaiting task abandons the decision and raises CancelledError, always: the wait is a plain
    future, not ``asyncio.wait_for``, which before Python 3.12 could swallow a cancellation that came as the
    decision ended (a room then played a move after it was told to stop).
    """
    limit = _allowance(seat, time_limit() if limit is None else limit)
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not waiter.done():
            waiter.set_result(None)

    def notify() -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits any more
            loop.call_soon_threadsafe(wake)

    attempt = _start(seat, act, notify)
    if attempt is None:
        return _BUSY
    timer = loop.call_later(limit, wake)
    try:
        await waiter
    except asyncio.CancelledError:  # the room closed or stopped its AI: nobody wants this decision
        attempt.abandon()
        raise
    finally:
        timer.cancel()
    if not attempt.finished.is_set():
        return _timeout(attempt, limit)
    return attempt.outcome()


@contextlib.contextmanager
def stoppable(stop: Callable[[], None]) -> Iterator[None]:
    """Run a block that ``stop()`` interrupts if the decision running it is abandoned (an ONNX graph's run).

    Outside a bounded decision this does nothing. Inside an abandoned one, ``stop()`` is called at once.
    """
    attempt: _Attempt | None = getattr(_local, "attempt", None)
    if attempt is None:
        yield
        return
    with attempt.lock:
        attempt.stoppers.append(stop)
        abandoned = attempt.abandoned
    if abandoned:
        stop()
    try:
        yield
    finally:
        with attempt.lock:
            attempt.stoppers.remove(stop)
