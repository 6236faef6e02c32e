"""The scripted AIs' seats in worker processes: ``run.scripted_workers: N`` (Domain Wheel, local rollouts).

Why. The scripted AIs are Python: on the standard map a move costs Center, Balanced, Raider or Guardian
0.24-0.35 ms on one core, and the trainer asks them on its own thread (training/ppo/league.py's
:class:`~training.ppo.league.ScriptedSeats`). A league that plays most of its games against them, as the
shipped standard agent's stages 5-8 did (87% in stage 8), then asks for about 300 moves each time the 1,024
games of a GPU run step once: about 100 ms, against a few ms for the network's batched pass. So on a GPU
machine the AIs, not the GPU, set the pace, and a league light enough in AIs to keep the GPU busy trains the
agent mostly against itself, which cost a GPU stage from the shipped agent half its wins against Center and
Guardian (docs/TRAINING.md, "A GPU stage from the shipped agent"). Here the AIs of the scripted group's
slots play in N worker processes, one share of the slots each, while the trainer's thread waits on them
(and, with ``run.network_threads`` > 1, the other threads start the network's passes).

How. Worker ``k`` owns the AIs of the slots ``slot % N == k``: one object per slot, seat and kind, made and
reseeded exactly as :class:`~training.ppo.league.ScriptedSeats` does. Each step the trainer sends every worker
the games its AIs must move in (their state arrays, stacked: a few kilobytes a game) together with the new games
started since the last step, and reads back the env actions of each move. A move's second action waits in
the trainer (``pending``), as in-process. Every AI draws only from its own generator and sees the same game
at the same call, so a run's decisions are exactly the in-process ones for any N: ``--resume`` is exact and
N is not part of a run's results. A checkpoint reads the AIs' states (:attr:`ScriptedProcesses.policies`)
from the workers, and a resumed run sends them the saved ones.

A worker is a fresh interpreter (training/distributed/worker_process.py) that unpickles only what this trainer sends
through its own socket. A worker's error comes back with its traceback and is raised here; a worker that
dies is reported by its exit code, never waited on forever; a worker whose trainer is gone sees its socket
close and exits.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from dw_env.envs.actions import move_to_actions
from dw_env.info import PLAYER_NAMES
from training.distributed.worker_process import WorkerProcess, ignore_stop_signals, serve_requests
from training.ppo.league import ScriptedSeats, start_seats

Key = tuple[int, int, str]  # (slot, seat, kind)


class SavedPolicy:
    """A worker's AI as the trainer sees it for a checkpoint: its state (``Policy.state_dict``) alone."""

    def __init__(self, state: dict[str, Any]) -> None:
        self._state = state

    def state_dict(self) -> dict[str, Any]:
        return self._state


class ScriptedWorker(WorkerProcess):
    """One worker process serving the AIs of a share of the slots (module doc)."""

    what = "a scripted AIs' worker process"

    def __init__(self, options: dict[str, Any]) -> None:
        super().__init__(__name__)
        try:
            self.send(("options", options))
            self.receive()
        except Exception as e:
            self.close()
            raise RuntimeError(f"{self.what} did not start ({self.exit_text()}): {e}") from e

    def receive(self) -> Any:
        """Wait for the answer to the last request; raise the worker's error, or one naming its exit code."""
        kind, value = self.read()
        if kind == "error":
            raise RuntimeError(f"in {self.what}:\n{value}")
        return value


class ScriptedProcesses(ScriptedSeats):
    """:class:`~training.ppo.league.ScriptedSeats` with the AIs in ``workers`` processes (module doc).

    Domain Wheel's env only (its games travel as the engine's three state arrays). Call :meth:`close` when
    done; the workers also exit when this process does.
    """

    def __init__(self, env: Any, workers: int) -> None:
        super().__init__(env)
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
        self.starts: list[list[tuple[int, str, int]]] = [[] for _ in range(workers)]  # not yet sent
        self.workers: list[ScriptedWorker] = []
        # a run that fails or is dropped without close() still stops them (the list is shared, not copied)
        weakref.finalize(self, _close_all, self.workers)
        try:
            for _ in range(workers):
                self.workers.append(ScriptedWorker(env.options.to_dict()))
        except BaseException:
            self.close()
            raise

    def start_game(self, slot: int, kind: str, seed: int) -> None:
        """Prepare slot ``slot``'s AIs of ``kind`` for a new game; the worker does it before its next move."""
        self.starts[slot % len(self.workers)].append((slot, kind, seed))
        self.pending[slot] = -1

    def action(self, slot: int, kind: str, seat: int) -> int:
        return self.actions([slot], [kind], [seat])[0]

    def actions(self, slots: Any, kinds: list[str], seats: Any) -> list[int]:
        """Return the env actions of the AIs to act in ``slots``: the moves asked of all workers at once."""
        out = [0] * len(slots)
        asks: list[list[tuple[int, int, int, str]]] = [[] for _ in self.workers]
        for i, (slot, kind, seat) in enumerate(zip(slots, kinds, seats, strict=True)):
            slot, seat = int(slot), int(seat)
            if self.pending[slot] >= 0:
                out[i], self.pending[slot] = int(self.pending[slot]), -1
                continue
            asks[slot % len(self.workers)].append((i, slot, seat, kind))
        requests = {}
        for k, ask in enumerate(asks):
            if ask or self.starts[k]:  # the games as three stacked arrays: one copy and one pickle each
                games = self.env.state_arrays(np.array([a[1] for a in ask], dtype=np.int64))
                requests[k] = ("act", self.starts[k], ask, *games)
        for answer in self._exchange(requests).values():
            for i, actions in answer:
                out[i] = actions[0]
                if len(actions) == 2:
                    self.pending[int(slots[i])] = actions[1]
        return out

    def _exchange(self, requests: dict[int, tuple[Any, ...]]) -> dict[int, Any]:
        """Send worker ``k`` its request (with the games started since its last one), then read every answer.

        Every answer is read before the first error is raised, so no worker is left with one unread.
        """
        for k, request in requests.items():
            self.workers[k].send(request)
            self.starts[k] = []
        answers: dict[int, Any] = {}
        error: RuntimeError | None = None
        for k in requests:
            try:
                answers[k] = self.workers[k].receive()
            except RuntimeError as e:
                error = error or e
        if error is not None:
            raise error
        return answers

    @property
    def policies(self) -> dict[Key, Any]:
        """Every AI's state, read from the workers (for a checkpoint), as ``{(slot, seat, kind): SavedPolicy}``."""
        answers = self._exchange({k: ("states", self.starts[k]) for k in range(len(self.workers))})
        return {key: SavedPolicy(state) for answer in answers.values() for key, state in answer}

    @policies.setter
    def policies(self, value: dict[Key, Any]) -> None:
        """Replace every AI with the given ones (a resumed run's): each worker gets its slots' states."""
        if not hasattr(self, "workers"):  # ScriptedSeats.__init__ sets an empty dict before the workers exist
            return
        shares: list[list[tuple[Key, dict[str, Any]]]] = [[] for _ in self.workers]
        for key, policy in value.items():
            shares[key[0] % len(self.workers)].append((key, policy.state_dict()))
        # every worker is asked, so the games started for the replaced AIs are dropped with them
        self._exchange({k: ("load", share) for k, share in enumerate(shares)})

    def close(self) -> None:
        """Stop every worker (idempotent)."""
        _close_all(getattr(self, "workers", []))


def _close_all(workers: list[ScriptedWorker]) -> None:
    for worker in workers:
        worker.close()


# ---- the worker's side ---------------------------------------------------------------------------------
def worker_main(fd: int) -> None:
    """A worker process's entry point: serve the requests that come through socket ``fd`` until told to stop."""
    ignore_stop_signals()  # the trainer stops after its update, and saves the AIs' states from here
    serve_requests(fd, _Served().handle)


class _Served:
    """A worker's AIs and the map they play on."""

    def __init__(self) -> None:
        self.policies: dict[Key, Any] = {}
        self.options: Any = None
        self.geometry: Any = None

    def handle(self, message: tuple[Any, ...]) -> tuple[str, Any]:
        kind = message[0]
        if kind == "options":
            from dw_env.geometry import build_geometry
            from dw_env.options import GameOptions

            self.options = GameOptions.from_dict(message[1])
            self.geometry = build_geometry(self.options.land_radius, self.options.map_radius)
            return ("done", None)
        if kind == "act":
            _, starts, asks, boards, lands, scalars = message
            self.start(starts)
            moves = [
                self.move(i, slot, seat, ai, boards[j], lands[j], scalars[j])
                for j, (i, slot, seat, ai) in enumerate(asks)
            ]
            return ("done", moves)
        if kind == "states":
            self.start(message[1])
            return ("done", [(key, policy.state_dict()) for key, policy in self.policies.items()])
        if kind == "load":
            policies = {}
            for key, state in message[1]:
                policy = self.make(key[2])
                policy.load_state_dict(state, num_lands=self.geometry.num_lands)
                policies[key] = policy
            self.policies = policies
            return ("done", None)
        raise ValueError(f"unknown request {kind!r}; allowed: options, act, states, load, stop")

    def make(self, kind: str, seed: int | None = None) -> Any:
        from policies.registry import make

        return make(kind, seed=seed)

    def start(self, starts: list[tuple[int, str, int]]) -> None:
        """New games, in the order they started: as ScriptedSeats.start_game."""
        for slot, kind, seed in starts:
            start_seats(self.policies, self.make, slot, kind, seed, len(PLAYER_NAMES))

    def move(
        self, i: int, slot: int, seat: int, kind: str, board: Any, lands: Any, scalars: Any
    ) -> tuple[int, list[int]]:
        """Return (i, the env actions of the move of ``kind``'s AI in ``seat`` of the game given)."""
        from dw_env.engine import Game

        game = Game.of_checked_arrays(self.options, self.geometry, board, lands, scalars)
        return i, move_to_actions(self.geometry, seat, self.policies[(slot, seat, kind)].act(game, seat))
