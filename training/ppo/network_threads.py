"""The trainer's network passes on several threads: ``run.network_threads: T`` (training/ppo/config.py).

Why threads. On a CPU the network takes its observations in cache-sized chunks of a few dozen
(``policies.domain_wheel.network.chunk_rows``): thousands of small ops per rollout and per minibatch. torch's own
threads (``run.torch_threads``) split every op and mostly wait on each other (two of them gained 16% on the standard
map's forward and backward passes); whole chunks on separate threads keep every core busy (two threads: 2.1x).
Each op runs on the thread that calls it (one torch thread) and releases the GIL while it computes, so plain
Python threads suffice and share the rollout's arrays without copies. Two kinds of work are shared out:

* **forward passes** while playing (:meth:`NetworkThreads.map`: the learner's and the frozen opponents'
  chunks). A chunk's numbers do not depend on the thread that computes it, and the actions are drawn
  afterwards from the whole batch, so a rollout is the same, bit for bit, for every ``T``. Meanwhile the
  calling thread plays the scripted AIs' moves of the same step (:meth:`NetworkThreads.beside`), which
  left the other cores idle when they came after the passes (0.3 s of a 4.5 s standard-map update). This
  pays only because the passes run through TorchScript traces (below): with eager passes the workers' ops
  fought the AIs' Python for the GIL (the small map 3% slower, measured);
* **forward and backward passes** of the PPO update (:meth:`NetworkThreads.run`). Replica ``k`` of the
  network (replica 0 is the network itself) takes the minibatch's chunks ``k, k + T, k + 2T, ...`` and keeps
  its own gradients; at the end they are added to the network's in replica order. So an update is
  reproducible and ``--resume`` exact for a given ``T``; another ``T`` changes only the rounding of the
  gradient's sum (the chunks' gradients add up in another order), not what is computed. Nothing in a forward
  or backward pass draws random numbers, so the threads' timing cannot change a run. On a CPU, replicas
  ``1, 2, ...`` of a :class:`training.ppo.update_processes.BatchedWork` run in worker processes instead
  (``processes``, ``run.update_processes``): the same chunks and sums, bit for bit, without the GIL that
  two threads' Python passes take turns on (training/ppo/update_processes.py).

While playing, a caller on several threads runs the network through TorchScript traces, which hold no GIL
either (policies/traced_forward.py, ``policy_steps(traced=True)``).

On a GPU a batch is one chunk and runs on the calling thread.
"""

from __future__ import annotations

import contextlib
import copy
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

import torch
from torch import Tensor, nn

from training.ppo.update_processes import BatchedWork, UpdateProcess, add_stats, is_batched_work, run_part

#: one chunk's work in the update: (replica, first row, end row) -> statistics (scalar tensors); it runs the
#: backward pass itself
ChunkWork = Callable[[nn.Module, int, int], dict[str, Tensor]]

#: the GIL's switch interval (s) while the calling thread runs Python beside the workers' passes
#: (:meth:`NetworkThreads.map_beside`): a worker needs the GIL between two ops, and with Python's default
#: (5 ms) it waited that long for each
SIDE_SWITCH_INTERVAL = 0.0002

T = TypeVar("T")
R = TypeVar("R")


def thread_count(wanted: int) -> int:
    """Return ``wanted``, or one thread per core when 0."""
    if wanted < 0:
        raise ValueError(f"run.network_threads must be >= 0 (0: one per core), got {wanted!r}")
    return wanted if wanted > 0 else os.cpu_count() or 1


class NetworkThreads:
    """``threads`` threads (the caller's and ``threads - 1`` workers) for ``net``'s passes; see the module doc."""

    def __init__(self, net: nn.Module, threads: int, processes: bool = False) -> None:
        if threads < 1:
            raise ValueError(f"network threads must be >= 1, got {threads!r}")
        if threads > 1 and any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in net.modules()):
            raise ValueError("run.network_threads > 1 needs a network whose passes change no state (no batch norm)")
        self.net = net
        self.threads = threads
        self.replicas: list[nn.Module] = [net]  # the update's copies, made on its first use
        self.pool: ThreadPoolExecutor | None = None
        if threads > 1:
            self.pool = ThreadPoolExecutor(threads - 1, thread_name_prefix="dw-network")
        #: replicas 1.. of the update in processes (training/ppo/update_processes.py), for work that allows it
        self.processes = processes and threads > 1 and os.name == "posix"
        self.workers: list[UpdateProcess] = []  # started on the update's first use

    def close(self) -> None:
        """Stop the worker threads and processes (idempotent); the caller's thread alone runs what comes after."""
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None
        self.close_processes()

    def close_processes(self) -> None:
        """Stop the update's worker processes (idempotent); its replicas 1.. run on threads from then on."""
        workers, self.workers, self.processes = self.workers, [], False
        for worker in workers:
            worker.close()

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """Return ``[fn(x) for x in items]``, the items shared out round-robin over the threads.

        ``fn`` runs in worker threads: torch's thread-local modes (``inference_mode``, autocast) must be
        entered inside it.
        """
        shares = self._shares(list(items))
        if len(shares) == 1:
            return [fn(x) for x in shares[0]]
        done = self._spread(shares, lambda share: [fn(x) for x in share])
        out: list[R] = [None] * len(items)  # type: ignore[list-item]
        for k, results in enumerate(done):
            out[k :: self.threads] = results
        return out

    def beside(self, side: Callable[[], Any]) -> Callable[[Callable[[T], R], Sequence[T]], list[R]]:
        """Return a chunk map like :meth:`map` whose first call also runs ``side()`` (:meth:`map_beside`)."""
        calls = 0

        def chunk_map(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
            nonlocal calls
            calls += 1
            return self.map_beside(fn, items, side) if calls == 1 else self.map(fn, items)

        return chunk_map

    def map_beside(self, fn: Callable[[T], R], items: Sequence[T], side: Callable[[], Any]) -> list[R]:
        """Return ``[fn(x) for x in items]`` while the calling thread first runs ``side()``.

        The workers take the items one at a time from the front; the calling thread runs ``side`` and then
        takes items too, so the workers' network passes go on while it plays the scripted AIs' moves, Python
        that holds the GIL (it runs with a short switch interval, :data:`SIDE_SWITCH_INTERVAL`). Which thread
        computes an item does not change its result (see :meth:`map`); ``side`` must not use the items'
        results or torch's random stream. On one thread: ``side()``, then the items.
        """
        if self.pool is None:
            side()
            return [fn(x) for x in items]
        items = list(items)
        out: list[Any] = [None] * len(items)
        taken = iter(range(len(items)))  # next() on a range iterator is atomic under the GIL

        def take() -> None:
            for i in taken:
                out[i] = fn(items[i])

        futures = [self.pool.submit(take) for _ in range(self.threads - 1)]
        interval = sys.getswitchinterval()
        try:
            sys.setswitchinterval(SIDE_SWITCH_INTERVAL)
            try:
                side()
            finally:
                sys.setswitchinterval(interval)
            take()
        finally:
            wait(futures)
        for f in futures:
            f.result()
        return out

    def run(self, chunks: list[tuple[int, int]], work: ChunkWork) -> dict[str, Tensor]:
        """Run ``work`` on every chunk, add every replica's gradients to the network's; return the summed stats.

        The network's gradients are accumulated into, not reset: the caller zeroes them before the minibatch.
        """
        shares = self._shares(chunks)
        if len(shares) == 1:
            return run_part(self.net, shares[0], work)
        if self.processes and is_batched_work(work) and all(p.device.type == "cpu" for p in self.net.parameters()):
            done = self._run_in_processes(shares, work)  # type: ignore[arg-type]
            if done is not None:
                return done
        self._sync(len(shares))
        jobs = list(zip(self.replicas, shares, strict=False))  # replica k takes share k
        parts = self._spread(jobs, lambda job: run_part(job[0], job[1], work))
        with torch.no_grad():
            for rep in self.replicas[1 : len(shares)]:
                for mine, theirs in zip(self.net.parameters(), rep.parameters(), strict=True):
                    if theirs.grad is None:
                        continue
                    if mine.grad is None:
                        mine.grad = theirs.grad.clone()
                    else:
                        mine.grad.add_(theirs.grad)
        total: dict[str, Tensor] = {}
        for part in parts:
            add_stats(total, part)
        return total

    def _run_in_processes(self, shares: list[list[tuple[int, int]]], work: BatchedWork) -> dict[str, Tensor] | None:
        """:meth:`run` with replicas 1.. in worker processes: the same chunks, sums and order as threads.

        None (nothing run) if a worker cannot start: a warning says why, and threads take over for good.
        """
        while len(self.workers) < len(shares) - 1:
            try:
                self.workers.append(UpdateProcess(self.net, torch.get_num_threads()))
            except RuntimeError as e:  # the same numbers on threads, only slower
                warnings.warn(f"{e}; the PPO update runs on threads instead", RuntimeWarning, stacklevel=2)
                self.close_processes()
                return None
        started: list[UpdateProcess] = []
        try:
            for worker, share in zip(self.workers, shares[1:], strict=False):
                worker.sync(self.net)
                worker.start(work, share, self.net.training)
                started.append(worker)
            first = run_part(self.net, shares[0], work)
        except BaseException:
            for worker in started:  # wait for every started worker before this error goes up
                with contextlib.suppress(Exception):  # the caller's error is the one raised
                    worker.finish()
            raise
        results, error = [], None
        for worker in started:  # every one is waited for before a worker's error goes up
            try:
                results.append(worker.finish())
            except Exception as e:  # noqa: BLE001 - the first error is raised below
                error = error or e
        if error is not None:
            raise error
        total: dict[str, Tensor] = {}
        add_stats(total, first)
        with torch.no_grad():
            for worker, (stats, has_grad) in zip(started, results, strict=True):
                for mine, got, theirs in zip(self.net.parameters(), has_grad, worker.grads, strict=True):
                    if not got:
                        continue
                    if mine.grad is None:
                        mine.grad = theirs.clone()
                    else:
                        mine.grad.add_(theirs)
                add_stats(total, stats)
        return total

    def _shares(self, items: list[T]) -> list[list[T]]:
        """Split ``items`` round-robin into at most ``threads`` non-empty shares (one without a pool)."""
        if self.pool is None or len(items) < 2:
            return [items]
        return [items[k :: self.threads] for k in range(min(self.threads, len(items)))]

    def _spread(self, jobs: Sequence[Any], fn: Callable[[Any], R]) -> list[R]:
        """Run ``fn(jobs[0])`` here and the other jobs on the workers; return the results in order."""
        assert self.pool is not None
        futures: list[Future[R]] = [self.pool.submit(fn, job) for job in jobs[1:]]
        try:
            first = fn(jobs[0])
        finally:
            wait(futures)  # no worker may still be running when this returns or raises
        return [first, *(f.result() for f in futures)]

    def _sync(self, count: int) -> None:
        """Give the first ``count`` replicas the network's current weights and mode, and no gradients."""
        while len(self.replicas) < count:
            # a copy draws no random number; no fork_rng either: its restore would undo what run.overlap's
            # rollout thread draws meanwhile (training/ppo/overlap.py)
            self.replicas.append(copy.deepcopy(self.net))
        with torch.no_grad():
            for rep in self.replicas[1:count]:
                rep.train(self.net.training)
                for mine, theirs in zip(self.net.parameters(), rep.parameters(), strict=True):
                    theirs.copy_(mine)
                    theirs.grad = None
