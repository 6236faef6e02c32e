"""``run.overlap``: rollouts collected while the learner updates, for a learner (a GPU's) that would otherwise wait.

The default run alternates: collect rollout k with the weights of update k-1, then update on it. Overlapped,
the env's games and the scripted AIs play rollout k+1 on a thread of their own while the learner updates on
rollout k::

    main thread     | update k on R_k          | update k+1 on R_k+1      | ...
    collect thread  | R_k+1 with weights W_k-1 | R_k+2 with weights W_k   | ...

so the behaviour policy lags the learner by one update. PPO's ratio already divides by the log-probs stored
with each decision (the behaviour policy's), so the objective stays right; the clip bounds the lag's effect.

Determinism: the two threads never share a random stream. The collect thread draws the actions from torch's
global generator (as a default run's rollout does) and the games from the run's numpy Generator; the update
shuffles its minibatches with a generator of its own (``update_rng``, seeded ``run.seed + 1``). The league
and the counters change only between the two threads' work, so a seed gives the same weights on a CPU.

``--resume``: a checkpoint holds the rollout collected and not yet trained on (whole, under
``training.overlap``) with the update generator's state, so a resumed run trains on it next, exactly as the
uninterrupted run would have. The env steps count when a rollout is trained on; the last rollout a run
collects waits in its checkpoint.
"""

from __future__ import annotations

import contextlib
import copy
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from gamecore.errors import brief
from policies import state as st
from policies.checkpoint import CheckpointError

#: the checkpoint entry (under ``training``) of the pending rollout
ENTRY = "overlap"
#: Python's thread switch interval while both threads run (seconds; Python's default is 0.005): the update
#: gives the GIL up at every torch op and, with the rollout thread busy in Python, waited up to the whole
#: interval to take it back, op after op
SWITCH_INTERVAL = 0.0002


def side_stream(device: torch.device) -> torch.cuda.Stream | None:
    """Return a CUDA stream for the rollout thread's passes on ``device`` (None on a CPU), after the current
    stream's work (the behaviour weights' copy): on one stream the rollout's kernels would queue behind the
    update's."""
    if device.type != "cuda":
        return None
    stream = torch.cuda.Stream(device)
    stream.wait_stream(torch.cuda.current_stream(device))
    return stream


def carry_into(source: Any, target: Any) -> None:
    """Start ``target`` with each slot's open decision of ``source`` at index 0 (``Rollout.carry_over``'s
    move, into the other buffer: ``source`` keeps its decisions for its update)."""
    slots = np.flatnonzero(source.open)
    last = source.count[slots] - 1
    for name in source.ARRAYS:
        getattr(target, name)[0, slots] = getattr(source, name)[last, slots]
    target.count[:] = 0
    target.count[slots] = 1
    target.open[:] = source.open


@dataclass
class Collector:
    """A rollout's collection on a thread of its own; ``result()`` joins it and returns its counts (or raises
    what it raised)."""

    thread: threading.Thread
    out: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, collect: Callable[[], dict[str, Any]]) -> Collector:
        out: dict[str, Any] = {}

        def run() -> None:
            try:
                out["got"] = collect()
            except BaseException as exc:  # handed to the main thread by result()
                out["error"] = exc

        thread = threading.Thread(target=run, name="dw-overlap-rollout", daemon=True)
        thread.start()
        return cls(thread, out)

    def result(self) -> dict[str, Any]:
        self.thread.join()
        if "error" in self.out:
            raise self.out["error"]
        return dict(self.out["got"])


@dataclass
class Pipeline:
    """The overlapped loop's state: the behaviour network, the second rollout buffer, the update's generator
    and the rollout collected but not trained on yet (``s.rollout`` while ``pending`` is set)."""

    behaviour: nn.Module
    spare: Any  # the buffer the collect thread fills
    update_rng: torch.Generator
    collect: Callable[..., dict[str, Any]]  # training/ppo/ppo.py's collect_rollout
    pending: dict[str, Any] | None = None  # the counts of the collected rollout: {"steps", "games"}

    @classmethod
    def build(cls, net: nn.Module, rollout: Any, seed: int, collect: Callable[..., dict[str, Any]]) -> Pipeline:
        """Return a pipeline for ``net`` and ``rollout`` (copied: neither copy draws a random number)."""
        behaviour = copy.deepcopy(net).eval()
        return cls(behaviour, copy.deepcopy(rollout), torch.Generator().manual_seed(seed + 1), collect)

    def step(self, s: Any, update: Callable[..., dict[str, float]]) -> tuple[dict[str, Any], dict[str, float], float]:
        """Train on the pending rollout while the next one is collected; return (its counts, the update's
        statistics, the seconds the update waited for a rollout: the first one, or a collection slower than
        the update)."""
        config, steps = s.config, s.config.env.num_steps
        collect_ctx = {k: v for k, v in s.ctx.items() if k != "threads"}  # the update's threads stay its own
        waited = time.perf_counter()
        if self.pending is None:  # the first rollout (or after a checkpoint of a run that did not overlap)
            s.net.eval()
            self.pending = self.collect(s.table, s.rollout, s.net, s.frozen, steps, collect_ctx)
        self.behaviour.load_state_dict(s.net.state_dict())
        carry_into(s.rollout, self.spare)
        stream = side_stream(s.ctx["device"])

        def collect() -> dict[str, Any]:
            with contextlib.nullcontext() if stream is None else torch.cuda.stream(stream):
                return self.collect(s.table, self.spare, self.behaviour, s.frozen, steps, collect_ctx)

        switch = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)  # see SWITCH_INTERVAL
        collector = Collector.start(collect)
        try:
            s.net.train()
            waited = time.perf_counter() - waited
            stats = update(s.net, s.optimizer, s.rollout, config, {**s.ctx, "update_rng": self.update_rng})
        finally:
            waiting = time.perf_counter()
            got_next = collector.result()  # always joined: no thread outlives a failed update
            sys.setswitchinterval(switch)
            if stream is not None:  # the next weights' copy waits for the rollout's last kernels
                torch.cuda.current_stream(stream.device).wait_stream(stream)
            waited += time.perf_counter() - waiting
        got, self.pending = self.pending, got_next
        s.rollout, self.spare = self.spare, s.rollout
        return got, stats, waited

    # ---- checkpoints ----------------------------------------------------------------------------------
    def add_state(self, state: dict[str, Any], rollout: Any) -> None:
        """Put the pending rollout ``rollout`` (whole) and the update generator into the training ``state``;
        its ``table.rollout`` entry then carries nothing (the pending rollout holds the open decisions)."""
        carried = state["table"]["rollout"]
        carried["count"] = torch.zeros_like(carried["count"])
        carried["open"] = torch.zeros_like(carried["open"])
        entry: dict[str, Any] = {"update_rng": self.update_rng.get_state()}
        if self.pending is not None:
            entry["pending"] = {
                "arrays": {name: torch.from_numpy(getattr(rollout, name).copy()) for name in rollout.ARRAYS},
                "count": torch.from_numpy(rollout.count.copy()),
                "open": torch.from_numpy(rollout.open.copy()),
                "steps": int(self.pending["steps"]),
                "games": int(self.pending["games"]),
            }
        state[ENTRY] = entry

    def restore(self, saved: dict[str, Any], rollout: Any) -> None:
        """Put back what :func:`read_state` read: the update generator's state and the pending rollout."""
        self.update_rng.set_state(saved["update_rng"])
        if "pending" in saved:
            pending = saved["pending"]
            for name, value in pending["arrays"].items():
                getattr(rollout, name)[:] = value
            rollout.count[:], rollout.open[:] = pending["count"], pending["open"]
            self.pending = {"steps": pending["steps"], "games": pending["games"]}


def take_state(payload: dict[str, Any], overlap: bool, rollout: Any, path: str | Path) -> dict[str, Any] | None:
    """Remove the ``training.overlap`` entry from a checkpoint's ``payload`` and return it checked against
    ``rollout`` (None where there is none); CheckpointError naming what does not fit, nothing changed."""
    training = payload.get("training")
    if not isinstance(training, dict) or ENTRY not in training:
        return None
    if not overlap:
        raise CheckpointError(
            f"{path}: written by an overlapped run (run.overlap: true), whose last rollout waits in the file to be "
            "trained on; resume it with run.overlap: true"
        )
    try:
        return read_state(training.pop(ENTRY), rollout)
    except st.StateError as exc:
        raise CheckpointError(f"{path}: damaged training state: {exc}") from None


def read_state(value: Any, rollout: Any) -> dict[str, Any]:
    """Return the checked ``training.overlap`` entry ``value`` (arrays as numpy); StateError otherwise."""
    where = f"training.{ENTRY}"
    keys = ("update_rng", "pending") if isinstance(value, dict) and "pending" in value else ("update_rng",)
    st.check_keys(value, keys, where)
    rng = value["update_rng"]
    like = torch.Generator().get_state()
    if not isinstance(rng, torch.Tensor) or rng.dtype != like.dtype or rng.shape != like.shape:
        raise st.StateError(
            f"{where}.update_rng: must be a generator state (uint8 of {tuple(like.shape)}), got {brief(rng)}"
        )
    out: dict[str, Any] = {"update_rng": rng.clone()}
    if "pending" in value:
        out["pending"] = read_pending(value["pending"], rollout, f"{where}.pending")
    return out


def read_pending(value: Any, rollout: Any, where: str) -> dict[str, Any]:
    """Return the checked pending rollout ``value``; StateError naming the entry that does not fit."""
    st.check_keys(value, ("arrays", "count", "open", "steps", "games"), where)
    st.check_keys(value["arrays"], rollout.ARRAYS, f"{where}.arrays")
    arrays = {
        name: _array(value["arrays"][name], getattr(rollout, name), f"{where}.arrays.{name}") for name in rollout.ARRAYS
    }
    for name, array in arrays.items():
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            raise st.StateError(f"{where}.arrays.{name}: holds a NaN or an infinity; allowed: finite numbers")
    actions, choices = arrays["actions"], rollout.masks.shape[-1]
    if actions.size and (actions.min() < 0 or actions.max() >= choices):
        raise st.StateError(
            f"{where}.arrays.actions: values must be in 0..{choices - 1}, got {actions.min()}..{actions.max()}"
        )
    count = _array(value["count"], rollout.count, f"{where}.count")
    if count.size and (count.min() < 0 or count.max() > rollout.capacity):
        raise st.StateError(f"{where}.count: values must be in 0..{rollout.capacity}, got {count.min()}..{count.max()}")
    opened = _array(value["open"], rollout.open, f"{where}.open")
    if (opened & (count == 0)).any():
        raise st.StateError(f"{where}.open: a slot with an open decision must hold one at least (count >= 1)")
    steps = st.read_int(value["steps"], f"{where}.steps", 0, 2**62)
    games = st.read_int(value["games"], f"{where}.games", 0, 2**62)
    return {"arrays": arrays, "count": count, "open": opened, "steps": steps, "games": games}


def _array(value: Any, like: NDArray[Any], where: str) -> NDArray[Any]:
    """Return tensor ``value`` as a numpy array of ``like``'s dtype and shape; StateError otherwise."""
    if not isinstance(value, torch.Tensor) or value.layout != torch.strided:
        raise st.StateError(f"{where}: must be a tensor, got {brief(value)}")
    array = value.detach().cpu().numpy()
    if array.dtype != like.dtype or array.shape != like.shape:
        raise st.StateError(
            f"{where}: must be {like.dtype} of shape {tuple(like.shape)} for this run, got {array.dtype} of shape "
            f"{tuple(array.shape)}"
        )
    return array.copy()
