"""The PPO update's chunks in worker processes: threads wait on each other for the GIL, processes do not.

Why. A chunk's forward and backward pass is thousands of small ops, each dispatched from Python (the
network's modules, the autograd Functions of policies/domain_wheel/cell_passes.py, the loss), and only one thread at a
time runs Python. Measured on one standard-map chunk of 28 observations (forward and backward, one torch
thread each, 2-core Intel Xeon): 10.9 ms alone; 14.4 ms each on two threads at once; 11.6-12.1 ms each in two
processes at once (what the cores themselves share). So on a CPU, replica ``k >= 1`` of the update
(training/ppo/network_threads.py) runs in worker process ``k``.

How. A worker is started on the update's first use (a fresh interpreter: multiprocessing's spawn would import
the caller's main script again, and run an unguarded script's training twice) and kept until
:meth:`UpdateProcess.close`; it takes the trainer's key and network through a socket pair. Its replica's
parameters, and one gradient buffer per parameter, live in shared memory: before each minibatch the trainer
copies the network's weights into them (as it does for a thread's replica), the worker runs its share of the
chunks and writes its gradients into the buffers, and the trainer adds them to the network's in replica
order. Each chunk runs the same ops on one torch thread as on a thread's replica, so an update is bit for
bit the one computed with threads: ``--resume`` stays exact, and the thread count alone (not the mechanism)
decides the rounding of the gradients' sum.

The work is a :class:`BatchedWork`: a dataclass whose ``batch`` (the update's decisions: observations, masks,
advantages...) goes to a worker once per update, copied into shared buffers the worker keeps, and whose
other fields (the minibatch's rows, a few kilobytes) go with every minibatch. Nothing else is sent, and a
worker unpickles only what this trainer sends it through its own pipe.

A worker that raises sends its error back, and the trainer raises it after its own share has finished; a
worker that dies (killed, out of memory) is reported by its exit code, never waited on forever.
"""

from __future__ import annotations

import copy
import dataclasses
import multiprocessing
import multiprocessing.connection
import traceback
from collections.abc import Callable
from typing import Any, ClassVar, Protocol

import numpy as np
import torch
from torch import Tensor, nn

from training.distributed.worker_process import WorkerProcess, ignore_stop_signals


class BatchedWork(Protocol):
    """One minibatch's chunk work (training/ppo/network_threads.py ``ChunkWork``) that a process can run.

    A dataclass: ``batch`` holds the update's tensors, the other fields the minibatch's small data
    (picklable). ``work(model, start, end)`` runs one chunk's forward and backward pass and returns its
    statistics (scalar tensors). A worker copies a batch when it first sees the dict (by identity), so a
    batch's tensors must not change while works that hold it run."""

    batch: dict[str, Tensor]
    __dataclass_fields__: ClassVar[dict[str, Any]]

    def __call__(self, model: nn.Module, start: int, end: int) -> dict[str, Tensor]: ...


def is_batched_work(work: Any) -> bool:
    """Return whether ``work`` can run in an update process (a dataclass with a ``batch`` dict)."""
    return dataclasses.is_dataclass(work) and isinstance(getattr(work, "batch", None), dict)


class UpdateProcess(WorkerProcess):
    """One worker process holding a replica of a network for the update's chunks (module doc)."""

    what = "the PPO update's worker process"

    def __init__(self, net: nn.Module, torch_threads: int) -> None:
        import torch.multiprocessing  # noqa: F401 - shared tensors pickle as handles to their memory

        # a copy draws no random number; no fork_rng either: its restore would undo what run.overlap's
        # rollout thread draws meanwhile (training/ppo/overlap.py)
        self.replica = copy.deepcopy(net)
        self.replica.requires_grad_(False)
        self.replica.share_memory()
        self.grads = [_shared(torch.zeros_like(p)) for p in self.replica.parameters()]
        self.buffers: dict[str, Tensor] = {}  # the batch's shared copies, reused from update to update
        self.sent_batch: dict[str, Tensor] | None = None
        super().__init__(__name__)  # a fresh interpreter (training/distributed/worker_process.py)
        try:
            # the worker proves itself with this process's key to fetch the shared memory's file descriptors
            self.conn.send_bytes(bytes(multiprocessing.current_process().authkey))
            self.send((self.replica, self.grads, torch_threads))
            self.finish()  # its answer once it holds the replica
        except Exception as e:
            self.close()
            raise RuntimeError(f"{self.what} did not start ({self.exit_text()}): {e}") from e

    def sync(self, net: nn.Module) -> None:
        """Copy ``net``'s weights into the replica's shared parameters (the worker reads them at the next run)."""
        with torch.no_grad():
            for mine, theirs in zip(net.parameters(), self.replica.parameters(), strict=True):
                theirs.copy_(mine)

    def start(self, work: BatchedWork, chunks: list[tuple[int, int]], training: bool) -> None:
        """Send the worker ``chunks`` of ``work`` (and ``work.batch`` if it has not seen it); do not wait."""
        if work.batch is not self.sent_batch:
            self.sent_batch = None
            self.send(("batch", self._share(work.batch)))  # no answer: the run's comes after
            self.sent_batch = work.batch
        self.send(("run", dataclasses.replace(work, batch={}), chunks, training))

    def finish(self) -> tuple[dict[str, Tensor], list[bool]]:
        """Wait for the running share; return its statistics and which parameters got a gradient (in
        :attr:`grads`). Raise the worker's error, or an error naming its exit code if it died."""
        kind, *rest = self.read(" in a minibatch")
        if kind == "error":
            error, text = rest
            if isinstance(error, BaseException):
                raise error from RuntimeError(f"in the PPO update's worker process:\n{text}")
            raise RuntimeError(f"the PPO update's worker process failed:\n{text}")
        stats, has_grad = rest
        return {k: torch.from_numpy(v) for k, v in stats.items()}, has_grad

    def _share(self, batch: dict[str, Tensor]) -> dict[str, tuple[Tensor | None, tuple[int, ...]]]:
        """Copy ``batch`` into the shared buffers; return per tensor (a new buffer or None, shape)."""
        message: dict[str, tuple[Tensor | None, tuple[int, ...]]] = {}
        for key, value in batch.items():
            if value.device.type != "cpu":
                raise ValueError(f"update processes take CPU tensors; batch[{key!r}] is on {value.device}")
            buffer = self.buffers.get(key)
            fresh = buffer is None or buffer.dtype != value.dtype or buffer.numel() < value.numel()
            if fresh:
                buffer = _shared(torch.empty(max(value.numel(), 1) + value.numel() // 4, dtype=value.dtype))
                self.buffers[key] = buffer
            assert buffer is not None
            buffer[: value.numel()].view(value.shape).copy_(value)
            message[key] = (buffer if fresh else None, tuple(value.shape))
        return message


def _shared(tensor: Tensor) -> Tensor:
    """Return ``tensor`` moved into shared memory."""
    return tensor.share_memory_()  # type: ignore[no-untyped-call, no-any-return]


def worker_main(fd: int) -> None:
    """A worker process's entry point: take the socket ``fd``, the trainer's key, the replica, then serve."""
    ignore_stop_signals()  # the trainer finishes its update, this worker's share included, before it stops
    conn = multiprocessing.connection.Connection(fd)
    try:
        multiprocessing.current_process().authkey = conn.recv_bytes()
        replica, grads, threads = conn.recv()
    except (EOFError, OSError):  # the trainer is gone before it sent its network
        return
    except Exception as e:  # noqa: BLE001 - e.g. a network class this interpreter cannot import
        conn.send(("error", None, f"{type(e).__name__}: {e}"))
        return
    conn.send(("done", {}, []))
    _serve(conn, replica, grads, threads)


def _serve(conn: multiprocessing.connection.Connection, replica: nn.Module, grads: list[Tensor], threads: int) -> None:
    """The worker's loop: keep the batch's buffers, run the chunks it is sent, write its gradients."""
    from policies.allocator import keep_freed_memory

    keep_freed_memory()
    torch.set_num_threads(threads)
    replica.requires_grad_(True)
    buffers: dict[str, Tensor] = {}
    batch: dict[str, Tensor] = {}
    failed: tuple[BaseException, str] | None = None  # a batch that could not be taken, told at the next run
    while True:
        try:
            message = conn.recv()
        except EOFError:  # the trainer is gone
            return
        kind = message[0]
        if kind == "stop":
            return
        if kind == "batch":  # no answer: the trainer sends a run right after
            try:
                batch, failed = {}, None
                for key, (buffer, shape) in message[1].items():
                    if buffer is not None:
                        buffers[key] = buffer
                    batch[key] = buffers[key][: int(np.prod(shape))].view(shape)
            except Exception as e:  # noqa: BLE001 - told at the next run
                failed = (e, traceback.format_exc())
            continue
        try:
            if failed is not None:
                raise RuntimeError(f"the worker could not take the update's batch:\n{failed[1]}") from failed[0]
            _, work, chunks, training = message
            replica.train(training)
            for p in replica.parameters():
                p.grad = None
            stats = run_part(replica, chunks, dataclasses.replace(work, batch=batch))
            has_grad = []
            with torch.no_grad():
                for p, out in zip(replica.parameters(), grads, strict=True):
                    has_grad.append(p.grad is not None)
                    if p.grad is not None:
                        out.copy_(p.grad)
            conn.send(("done", {k: v.detach().cpu().numpy() for k, v in stats.items()}, has_grad))
        except Exception as e:  # noqa: BLE001 - every error goes back to the trainer, which raises it
            text = traceback.format_exc()
            try:
                try:
                    conn.send(("error", e, text))
                except OSError:
                    raise
                except Exception:  # noqa: BLE001 - an error that does not pickle: its text alone
                    conn.send(("error", None, text))
            except OSError:  # the trainer is gone
                return


def run_part(
    net: nn.Module, chunks: list[tuple[int, int]], work: Callable[[nn.Module, int, int], dict[str, Tensor]]
) -> dict[str, Tensor]:
    """Run ``work`` on ``chunks`` in order with ``net``; return the sum of their statistics."""
    total: dict[str, Tensor] = {}
    for start, end in chunks:
        add_stats(total, work(net, start, end))
    return total


def add_stats(total: dict[str, Tensor], part: dict[str, Tensor]) -> None:
    """Add the statistics ``part`` into ``total`` (a key new to ``total`` starts at its value)."""
    for key, value in part.items():
        total[key] = total[key] + value if key in total else value
