"""Scale-out on Ray: connect to a cluster and run picklable work items there as Ray tasks.

This module knows nothing of any game: the arena, the sweeps and the trainer give it a top-level function
and a list of items. It is the one place that imports Ray (lazily: Ray is the optional ``cluster`` extra).

* :func:`connect` (a context manager) attaches this process to a cluster: ``"auto"`` (the one that
  ``ray start`` left on this machine, or ``RAY_ADDRESS``), ``"HOST:PORT"`` (a head node's GCS address,
  ``ray start --head --port=6379`` prints it) or ``"local"`` (a fresh single-machine cluster, gone when the
  block ends). An address that is malformed or does not answer is refused at once, naming what was wrong.
* :func:`imap` runs ``fn(item)`` for every item as a Ray task and yields ``(index, result)`` in the order
  the tasks finish. A task whose worker or node is lost is retried by Ray (``max_retries``) and then, if it
  still failed, resubmitted by :func:`imap` itself (``resubmits``); a task that runs past ``task_timeout``
  gets a second copy. Every index is yielded exactly once, whichever copy finishes first, so nothing is
  counted twice. An exception raised by ``fn`` itself is not retried (the work is deterministic: it would
  fail again): it is raised here, with the remote traceback.
* :func:`loopback_cluster` starts a head and extra nodes on this machine, all on 127.0.0.1, with small
  bounded resources: the tests and the benchmark use it; real clusters are started with ``ray start``
  (docs/SCALING.md).

Workers import the project by name, so every node needs the same code and Python packages (the same
``pip install -e .[cluster,...]``), and policy files given by path must exist at that path on every node.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gamecore.errors import brief

T = TypeVar("T")
R = TypeVar("R")

#: what to install when Ray is missing
INSTALL_HINT = 'pip install -e ".[cluster]"  (Ray >= 2.9)'
#: object store of a local or loopback cluster: small, the work items and results are small
DEFAULT_OBJECT_STORE_BYTES = 100 * 2**20
#: seconds to wait for a cluster's head to accept a TCP connection before calling it unreachable
CONNECT_TIMEOUT_S = 5.0
#: the default port of ``ray start --head``
DEFAULT_PORT = 6379
#: what an HTTP/2 client sends first (RFC 9113, 3.4), and an empty SETTINGS frame: a gRPC server answers
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HTTP2_EMPTY_SETTINGS = bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
#: the frame type of SETTINGS, the fourth byte of a frame's header
HTTP2_SETTINGS = 4

_HOST_PORT = re.compile(r"^(?P<host>[A-Za-z0-9._-]+|\[[0-9A-Fa-f:]+\]):(?P<port>[0-9]{1,5})$")


class ClusterError(RuntimeError):
    """Ray is missing, a cluster address is malformed or unreachable, or work could not be finished."""


#: whether this process has attached to a Ray cluster (:func:`connect`, :func:`loopback_cluster`)
_attached = False


def ray_client_ran() -> bool:
    """Return whether a Ray client has run in this process: ours (:func:`connect`, :func:`loopback_cluster`)
    or anyone's still initialised.

    Its gRPC threads keep running after ``ray.shutdown()``, so a process forked from this one can wait for ever
    on a lock one of them held at the fork (training.evaluation.arena.worker_start_method spawns instead).
    """
    ray = sys.modules.get("ray")
    initialized = getattr(ray, "is_initialized", None)
    return _attached or bool(callable(initialized) and initialized())


def require_ray() -> Any:
    """Return the ``ray`` module, or raise :class:`ClusterError` saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ClusterError(f"Ray is not installed ({exc}); install the cluster extra: {INSTALL_HINT}") from None
    return ray


# ---- addresses -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Address:
    """A parsed cluster address: ``kind`` is "auto", "local" or "host" (then ``host`` and ``port`` are set)."""

    kind: str
    host: str = ""
    port: int = 0

    def __str__(self) -> str:
        if self.kind != "host":
            return self.kind
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_address(address: str) -> Address:
    """Return the parsed ``address`` ("auto", "local" or "HOST:PORT"), or raise ValueError naming the problem."""
    if not isinstance(address, str) or not address.strip():
        raise ValueError(f"cluster address must be 'auto', 'local' or HOST:PORT, got {address!r}")
    text = address.strip()
    if text in ("auto", "local"):
        return Address(text)
    if text.startswith("ray://"):
        raise ValueError(
            f"cluster address {text!r}: Ray Client (ray://) addresses are not supported; run dw on a node of "
            f"the cluster and give --cluster auto, or the head's GCS address HOST:{DEFAULT_PORT}"
        )
    if "://" in text:
        raise ValueError(f"cluster address {text!r}: give HOST:PORT without a scheme (e.g. 10.0.0.5:{DEFAULT_PORT})")
    match = _HOST_PORT.match(text)
    if match is None:
        raise ValueError(
            f"cluster address {text!r} is not 'auto', 'local' or HOST:PORT (e.g. 10.0.0.5:{DEFAULT_PORT}, "
            f"head-node:{DEFAULT_PORT})"
        )
    host, port = match["host"].strip("[]"), int(match["port"])
    if not 1 <= port <= 65535:
        raise ValueError(f"cluster address {text!r}: port {port} is outside 1..65535")
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        ip = None  # a host name
    if ip is not None and (ip.is_unspecified or ip.is_multicast):
        raise ValueError(f"cluster address {text!r}: {host} is not a host one can connect to")
    return Address("host", host, port)


def check_reachable(address: Address, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Raise :class:`ClusterError` unless a gRPC server (as Ray's head is) answers at ``address`` within ``timeout``.

    Ray's own connection retries for minutes when something else listens at the port, so the head is asked
    first for HTTP/2's opening exchange, which every gRPC server answers with a SETTINGS frame.
    """
    try:
        conn = socket.create_connection((address.host, address.port), timeout=timeout)
    except OSError as exc:
        reason = f"no answer in {timeout:g} s" if isinstance(exc, TimeoutError) else exc.strerror or type(exc).__name__
        raise ClusterError(
            f"no Ray cluster answers at {address} ({reason}); start one there with "
            f"`ray start --head --port={address.port}`, check the host and port (and the firewall), "
            "or use --cluster local for a cluster on this machine only"
        ) from None
    with conn:
        try:
            conn.sendall(HTTP2_PREFACE + HTTP2_EMPTY_SETTINGS)
            header = _read_exactly(conn, 9, time.monotonic() + timeout)
            got = "closed the connection" if len(header) < 9 else f"answered {brief(header)}"
        except OSError as exc:
            header, got = b"", f"gave no answer in {timeout:g} s" if isinstance(exc, TimeoutError) else str(exc)
    if len(header) < 9 or header[3] != HTTP2_SETTINGS:
        raise ClusterError(
            f"something listens at {address} but it is not a Ray cluster's head: it {got}, where Ray's GCS "
            f"server (gRPC) answers an HTTP/2 SETTINGS frame; give the head's GCS port (`ray start --head "
            f"--port=PORT`, default {DEFAULT_PORT})"
        )


def _read_exactly(conn: socket.socket, size: int, deadline: float) -> bytes:
    """Return up to ``size`` bytes from ``conn`` (fewer if it closes); TimeoutError once ``deadline`` passes."""
    got = b""
    while len(got) < size:
        conn.settimeout(max(0.0, deadline - time.monotonic()) or 1e-3)
        chunk = conn.recv(size - len(got))
        if not chunk:
            break
        got += chunk
    return got


# ---- connecting ----------------------------------------------------------------------------------------
@contextlib.contextmanager
def connect(
    address: str,
    *,
    num_cpus: int | None = None,
    object_store_bytes: int = DEFAULT_OBJECT_STORE_BYTES,
    timeout: float = CONNECT_TIMEOUT_S,
) -> Iterator[dict[str, float]]:
    """Attach this process to the cluster at ``address`` for the block; yield its total resources.

    If Ray is already initialised in this process (a test fixture, a notebook, an outer block), that
    connection is used as it is and left open. Otherwise the connection made here is closed when the block
    ends (for "local", the whole cluster goes with it). ``num_cpus`` and ``object_store_bytes`` only size a
    "local" cluster.
    """
    ray = require_ray()
    if ray.is_initialized():
        yield dict(ray.cluster_resources())
        return
    parsed = parse_address(address)
    global _attached
    _attached = True  # from the first attempt: a failed ray.init can leave its threads too
    common: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if parsed.kind == "local":
        if num_cpus is not None and (isinstance(num_cpus, bool) or not isinstance(num_cpus, int) or num_cpus < 1):
            raise ValueError(f"num_cpus must be an integer >= 1, got {num_cpus!r}")
        kwargs = {"num_cpus": num_cpus, "object_store_memory": object_store_bytes, **common}
        ray.init(address="local", **kwargs)
    else:
        if parsed.kind == "host":
            check_reachable(parsed, timeout)
        try:
            ray.init(address=str(parsed), **common)
        except ConnectionError as exc:
            hint = (
                "no cluster was started on this machine with `ray start` and RAY_ADDRESS is not set"
                if parsed.kind == "auto"
                else "something answers there but it is not a Ray head node of this Ray version"
            )
            raise ClusterError(f"could not connect to a Ray cluster at {address!r}: {hint} ({exc})") from None
    try:
        yield dict(ray.cluster_resources())
    finally:
        ray.shutdown()


def cluster_cpus() -> int:
    """Return the number of CPUs of the connected cluster (at least 1)."""
    ray = require_ray()
    if not ray.is_initialized():
        raise ClusterError("not connected to a Ray cluster: use training.distributed.cluster.connect(address) first")
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


# ---- running work ----------------------------------------------------------------------------------------
def _check_function(fn: Callable[..., Any]) -> None:
    qualname = getattr(fn, "__qualname__", "")
    if not callable(fn) or "<lambda>" in qualname or "<locals>" in qualname:
        raise ValueError(
            f"imap needs a top-level function that workers can import by name, got {fn!r}; define it at module level"
        )


def _is_lost_worker(exc: BaseException) -> bool:
    """Return whether ``exc`` (from ``ray.get``) means the task's worker or node went away, not a bug in it."""
    from ray import exceptions as rex

    if isinstance(exc, rex.RayTaskError | rex.TaskCancelledError):
        return False
    return isinstance(exc, rex.RayError)


@dataclass
class _Flight:
    """The copies of each item's task in flight: object ref -> (index, submit time)."""

    refs: dict[Any, tuple[int, float]] = field(default_factory=dict)
    copies: dict[int, int] = field(default_factory=dict)

    def add(self, ref: Any, index: int) -> None:
        self.refs[ref] = (index, time.monotonic())
        self.copies[index] = self.copies.get(index, 0) + 1

    def pop(self, ref: Any) -> int:
        index, _ = self.refs.pop(ref)
        self.copies[index] -= 1
        return index

    def of(self, index: int) -> list[Any]:
        return [ref for ref, (i, _) in self.refs.items() if i == index]


def imap(
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    num_cpus: float = 1.0,
    max_retries: int = 3,
    resubmits: int = 2,
    task_timeout: float | None = None,
    max_in_flight: int | None = None,
) -> Iterator[tuple[int, R]]:
    """Run ``fn(items[i])`` for every ``i`` as Ray tasks; yield ``(i, result)`` as they finish, each ``i`` once.

    Needs a connection (:func:`connect`). ``fn`` must be a top-level function (workers import it by name);
    items and results travel pickled. ``max_retries`` is Ray's own retry of a task whose worker died;
    ``resubmits`` is how many more times an item whose task still failed that way is submitted again (then
    :class:`ClusterError`); ``task_timeout`` (seconds) starts a second copy of a task that runs longer (a
    hung node), the first copy to finish counts and the other is cancelled. At most ``max_in_flight`` tasks
    are queued at once (default: twice the cluster's CPUs), so results stream back while work goes out.
    Leaving the loop early cancels what is still queued.
    """
    ray = require_ray()
    _check_function(fn)
    for name, value, low in (("max_retries", max_retries, 0), ("resubmits", resubmits, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if task_timeout is not None and not task_timeout > 0:
        raise ValueError(f"task_timeout must be a positive number of seconds or None, got {task_timeout!r}")
    limit = max_in_flight if max_in_flight is not None else 2 * cluster_cpus()
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"max_in_flight must be an integer >= 1, got {max_in_flight!r}")
    remote = ray.remote(fn).options(num_cpus=num_cpus, max_retries=max_retries, retry_exceptions=False)
    flight = _Flight()
    failures: dict[int, int] = {}
    done: set[int] = set()
    queue = list(range(len(items)))[::-1]  # popped from the end: items go out in order

    def submit(index: int) -> None:
        flight.add(remote.remote(items[index]), index)

    try:
        while queue or flight.refs:
            while queue and len(flight.refs) < limit:
                submit(queue.pop())
            wait = 1.0 if task_timeout is None else min(1.0, task_timeout)
            ready, _ = ray.wait(list(flight.refs), num_returns=1, timeout=wait)
            if not ready:
                if task_timeout is not None:
                    now = time.monotonic()
                    slow = {i for i, t in flight.refs.values() if now - t > task_timeout and flight.copies[i] == 1}
                    for index in sorted(slow):
                        submit(index)  # a second copy: whichever finishes first counts
                continue
            ref = ready[0]
            index = flight.pop(ref)
            try:
                result = ray.get(ref)
            except Exception as exc:
                if index in done or _cancelled(exc):
                    continue
                if not _is_lost_worker(exc):
                    raise
                if flight.copies[index] > 0:
                    continue  # another copy is still running
                failures[index] = failures.get(index, 0) + 1
                if failures[index] > resubmits:
                    raise ClusterError(
                        f"item {index} failed {failures[index]} time(s) because its worker or node was lost "
                        f"(last: {type(exc).__name__}: {exc}); check the cluster's nodes (`ray status`)"
                    ) from exc
                submit(index)
                continue
            if index in done:
                continue  # a slower copy of an item already counted
            done.add(index)
            for other in flight.of(index):  # a slower copy: stop it (its worker may hang) and forget it
                flight.pop(other)
                with contextlib.suppress(Exception):
                    ray.cancel(other, force=True)
            yield index, result
    finally:
        for ref in list(flight.refs):
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=False)


def _cancelled(exc: BaseException) -> bool:
    from ray import exceptions as rex

    return isinstance(exc, rex.TaskCancelledError)


def chunked(items: Sequence[T], size: int) -> list[list[T]]:
    """Return ``items`` cut into consecutive chunks of ``size`` (the last one shorter)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"chunk size must be an integer >= 1, got {size!r}")
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def chunk_size(total: int, cpus: int, per_cpu: int = 4, largest: int = 32) -> int:
    """Return a chunk size giving each CPU about ``per_cpu`` chunks (load balance) and at most ``largest`` items."""
    return max(1, min(largest, -(-total // max(1, cpus * per_cpu))))


# ---- a cluster on this machine (tests, benchmarks) ------------------------------------------------------
@dataclass
class LoopbackCluster:
    """A head and extra nodes on 127.0.0.1 (``ray.cluster_utils.Cluster``): ``address`` and the live nodes."""

    address: str
    cluster: Any
    nodes: list[Any]

    def remove_node(self, node: Any) -> None:
        """Kill one extra node's processes (its tasks' workers die with it)."""
        self.cluster.remove_node(node, allow_graceful=False)
        self.nodes.remove(node)


@contextlib.contextmanager
def loopback_cluster(
    nodes: int = 2,
    cpus_per_node: int = 1,
    head_cpus: int | None = None,
    object_store_bytes: int = DEFAULT_OBJECT_STORE_BYTES,
    timeout: float = 60.0,
) -> Iterator[LoopbackCluster]:
    """Start ``nodes`` Ray nodes (the head and ``nodes - 1`` more) on 127.0.0.1 and connect this process.

    The head has ``head_cpus`` CPUs (default ``cpus_per_node``; 0 makes it a pure coordinator), each other
    node ``cpus_per_node``. Everything binds to the loopback interface, Ray's files go to a fresh folder
    under the system temp dir, no dashboard runs, and the whole cluster is shut down when the block ends.
    Node start-up is bounded by ``timeout`` seconds.
    """
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise ValueError(f"nodes must be an integer >= 1, got {nodes!r}")
    saved = {k: os.environ.get(k) for k in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_TMPDIR")}
    # Ray replaces 127.0.0.1 in an address by the machine's outward IP unless it runs in "single machine"
    # mode; that mode is what this flag selects (for this process and the node processes it starts).
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    temp = tempfile.mkdtemp(prefix="dwray-", dir="/tmp" if os.path.isdir("/tmp") else None)
    os.environ["RAY_TMPDIR"] = temp  # short: Ray's socket paths must fit in 107 bytes
    ray = require_ray()
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        raise ClusterError("Ray is already initialised in this process: shut it down before a loopback cluster")
    flag = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    args = {
        "object_store_memory": object_store_bytes,
        "node_ip_address": "127.0.0.1",
        "include_dashboard": False,
    }
    cluster = None
    global _attached
    _attached = True
    try:
        head = {"num_cpus": cpus_per_node if head_cpus is None else head_cpus, **args}
        cluster = Cluster(initialize_head=True, head_node_args=head)
        # this process attaches to the head (before the other nodes exist): any other node may be removed
        ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
        extra = [cluster.add_node(num_cpus=cpus_per_node, **args) for _ in range(nodes - 1)]
        cluster.wait_for_nodes(timeout=timeout)
        yield LoopbackCluster(cluster.address, cluster, extra)
    finally:
        with contextlib.suppress(Exception):
            ray.shutdown()
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.shutdown()
        ray_constants.ENABLE_RAY_CLUSTER = flag
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        import shutil

        shutil.rmtree(temp, ignore_errors=True)
