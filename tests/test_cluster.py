"""Scale-out on Ray (training/distributed/cluster.py) on a loopback cluster: a head and one more node on 127.0.0.1.

One cluster serves the whole module (starting one costs seconds on a small machine); it has 1 CPU per node,
a 100 MB object store per node, no dashboard, files under /tmp, and is shut down at the end. The tests
check that every work item is counted exactly once, when workers crash, when a task hangs and when a whole
node is lost, that the arena and the sweeps give the same bytes as a local run, and that bad or unreachable
addresses are refused with messages that say what to do. These tests need Ray (the ``cluster`` extra):
without it they fail, saying how to install it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dw_env.options import GameOptions
from training.distributed import cluster
from training.evaluation import arena
from training.evaluation.arena_config import ArenaConfig

try:
    import ray
except ImportError:  # the fixture fails every Ray test with the install hint
    ray = None

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=30)
#: the module's whole budget: each test that waits on the cluster asserts it stayed within its share
TEST_TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def loopback() -> Iterator[cluster.LoopbackCluster]:
    """A two-node loopback cluster (head + one node, 1 CPU each) for the module; its tasks see this module."""
    if ray is None:
        pytest.fail(f"Ray is not installed, so the cluster tests cannot run: {cluster.INSTALL_HINT}")
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests/ by name
    with cluster.loopback_cluster(nodes=2, cpus_per_node=1, timeout=TEST_TIMEOUT_S) as lc:
        yield lc


# ---- work functions (pickled by value for the workers) ------------------------------------------------
def square(x: int) -> int:
    return x * x


def crash_once(item: tuple[str, int]) -> int:
    """Kill this worker process the first time an even item runs (a marker file remembers), then succeed."""
    folder, i = item
    marker = Path(folder) / f"{i}.started"
    if i % 2 == 0 and not marker.exists():
        marker.touch()
        os._exit(1)
    return i * 10


def wait_for_file(path: Path) -> None:
    """Block until ``path`` exists (a test's handshake; the bound only keeps a failed test from hanging)."""
    deadline = time.monotonic() + TEST_TIMEOUT_S * 5
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)


def node_of(item: tuple[str, str, int]) -> tuple[int, str]:
    """Return the item and the id of the node that ran it, in the order a node-loss test needs.

    The victim node runs one item, then blocks on its next one until it is killed; the other node blocks
    until the test says the victim is gone. So the victim has worked, and work is left, when it dies.
    """
    folder, victim, i = item
    node = ray.get_runtime_context().get_node_id()
    if node == victim:
        worked = Path(folder) / "victim-worked"
        if worked.exists():
            wait_for_file(Path(folder) / "never")  # the node dies while this item runs
        worked.touch()
    else:
        wait_for_file(Path(folder) / "victim-killed")
    return i, node


def hang_once(item: tuple[str, int]) -> int:
    """The first run of item 0 hangs (a stuck node) until the test releases it; every other run returns at once."""
    folder, i = item
    marker = Path(folder) / f"{i}.started"
    if i == 0 and not marker.exists():
        marker.touch()
        wait_for_file(Path(folder) / "release")
    return i


def fail(x: int) -> int:
    raise ValueError(f"item {x} is bad")


def crash_once_chunk(item: tuple[str, int, Any]) -> list[dict[str, Any]]:
    """Play an arena chunk; the worker of chunk 1 dies once before finishing it."""
    folder, index, job = item
    rows = arena._play_chunk(job)
    marker = Path(folder) / f"chunk{index}"
    if index == 1 and not marker.exists():
        marker.touch()
        os._exit(1)
    return rows


# ---- addresses (no cluster needed) -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("auto", "auto"),
        ("local", "local"),
        ("127.0.0.1:6379", "127.0.0.1:6379"),
        (" head-node:1234 ", "head-node:1234"),
        ("[::1]:6379", "[::1]:6379"),
    ],
)
def test_parse_address_accepts_auto_local_and_host_port(address: str, expected: str) -> None:
    assert str(cluster.parse_address(address)) == expected


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("", ["'auto', 'local' or HOST:PORT"]),
        ("localhost", ["is not 'auto', 'local' or HOST:PORT"]),
        ("10.0.0.5:99999", ["port 99999", "1..65535"]),
        ("ray://10.0.0.5:10001", ["Ray Client", "--cluster auto"]),
        ("http://10.0.0.5:6379", ["without a scheme"]),
        ("0.0.0.0:6379", ["not a host one can connect to"]),
        ("a b:1", ["is not 'auto'"]),
    ],
)
def test_parse_address_refuses_bad_addresses_naming_the_problem(address: str, words: list[str]) -> None:
    with pytest.raises(ValueError) as err:
        cluster.parse_address(address)
    assert address.strip() in str(err.value) or address == ""
    for word in words:
        assert word in str(err.value)


def test_unreachable_cluster_is_refused_at_once_with_what_to_do() -> None:
    if ray is None:
        pytest.fail(f"Ray is not installed: {cluster.INSTALL_HINT}")
    with pytest.raises(cluster.ClusterError) as err, cluster.connect("127.0.0.1:1", timeout=2.0):
        pass
    assert "no Ray cluster answers at 127.0.0.1:1" in str(err.value)
    assert "ray start --head --port=1" in str(err.value)
    assert not ray.is_initialized()


@contextlib.contextmanager
def _listener(answer: bytes | None) -> Iterator[int]:
    """Yield the port of a server on 127.0.0.1 that is not Ray: it sends ``answer``, or nothing (None)."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            conn, _ = server.accept()
            accepted.append(conn)
            if answer is not None:
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        thread.join()
        for conn in accepted:
            conn.close()


@pytest.mark.parametrize(
    ("answer", "words"),
    [(None, "gave no answer in 1 s"), (b"HTTP/1.1 400 Bad Request\r\n\r\n", "answered b'HTTP/1.1 '")],
)
def test_a_port_that_is_not_ray_is_refused_naming_the_address_and_what_was_expected(
    answer: bytes | None, words: str
) -> None:
    """Ray itself retried for over 120 s at a port where something else listens."""
    with _listener(answer) as port, pytest.raises(cluster.ClusterError) as err:
        cluster.check_reachable(cluster.parse_address(f"127.0.0.1:{port}"), timeout=1.0)
    message = str(err.value)
    assert f"something listens at 127.0.0.1:{port} but it is not a Ray cluster's head" in message
    assert words in message and "HTTP/2 SETTINGS frame" in message and "--port=PORT" in message


def test_dw_arena_refuses_a_port_that_is_not_ray_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from dw_cli.main import main

    argv = ["arena", "--players", "random", "--games", "6", "--land-radius", "1", "--map-radius", "2"]
    with _listener(b"SSH-2.0-OpenSSH_9.6\r\n") as port:
        assert main([*argv, "--cluster", f"127.0.0.1:{port}", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dw arena: error: ") and f"something listens at 127.0.0.1:{port}" in err
    assert ray is None or not ray.is_initialized()


def test_auto_without_a_running_cluster_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    if ray is None:
        pytest.fail(f"Ray is not installed: {cluster.INSTALL_HINT}")
    empty = tempfile.mkdtemp(prefix="dwnone-", dir="/tmp")  # no ray_current_cluster file in it
    monkeypatch.setenv("RAY_TMPDIR", empty)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    try:
        started = "no cluster was started on this machine with `ray start`"
        with pytest.raises(cluster.ClusterError, match=started), cluster.connect("auto"):
            pass
    finally:
        shutil.rmtree(empty, ignore_errors=True)
    assert not ray.is_initialized()


def test_dw_arena_reports_an_unreachable_cluster_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from dw_cli.main import main

    argv = ["arena", "--players", "random", "--games", "6", "--land-radius", "1", "--map-radius", "2"]
    assert main([*argv, "--cluster", "127.0.0.1:1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dw arena: error: ") and "no Ray cluster answers at 127.0.0.1:1" in err
    assert main([*argv, "--cluster", "nowhere", "--no-progress"]) == 2
    assert "is not 'auto', 'local' or HOST:PORT" in capsys.readouterr().err


def test_imap_refuses_lambdas_and_needs_a_connection() -> None:
    if ray is None:
        pytest.fail(f"Ray is not installed: {cluster.INSTALL_HINT}")
    with pytest.raises(ValueError, match="top-level function"):
        next(cluster.imap(lambda x: x, [1]))
    if not ray.is_initialized():
        with pytest.raises(cluster.ClusterError, match="connect"):
            next(cluster.imap(square, [1]))


def test_chunks_cover_every_item_in_order() -> None:
    items = list(range(23))
    for size in (1, 5, 23, 40):
        chunks = cluster.chunked(items, size)
        assert [x for c in chunks for x in c] == items and all(len(c) <= size for c in chunks)
    assert cluster.chunk_size(100, 2) == 13 and cluster.chunk_size(3, 8) == 1 and cluster.chunk_size(10_000, 2) == 32


# ---- the loopback cluster ----------------------------------------------------------------------------------
def test_loopback_cluster_has_two_nodes_on_127_0_0_1(loopback: cluster.LoopbackCluster) -> None:
    assert loopback.address.startswith("127.0.0.1:")
    alive = [n for n in ray.nodes() if n["Alive"]]
    assert len(alive) == 2 and {n["NodeManagerAddress"] for n in alive} == {"127.0.0.1"}
    assert cluster.cluster_cpus() == 2


def test_a_ray_head_passes_the_check_that_refuses_other_servers(loopback: cluster.LoopbackCluster) -> None:
    cluster.check_reachable(cluster.parse_address(loopback.address), timeout=TEST_TIMEOUT_S)


def test_imap_yields_every_index_once(loopback: cluster.LoopbackCluster) -> None:
    got = list(cluster.imap(square, list(range(20)), max_in_flight=3))
    assert sorted(i for i, _ in got) == list(range(20))
    assert all(r == i * i for i, r in got)


@pytest.mark.parametrize("ray_retries", [0, 1], ids=["own-resubmission", "ray-retries"])
def test_imap_reruns_the_items_of_a_crashed_worker_once(
    loopback: cluster.LoopbackCluster, tmp_path: Path, ray_retries: int
) -> None:
    items = [(str(tmp_path), i) for i in range(6)]
    got = list(cluster.imap(crash_once, items, max_retries=ray_retries, resubmits=1))
    assert sorted(got) == [(i, i * 10) for i in range(6)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0.started", "2.started", "4.started"]


def test_imap_gives_up_with_a_clear_error_when_workers_keep_dying(
    loopback: cluster.LoopbackCluster, tmp_path: Path
) -> None:
    with pytest.raises(cluster.ClusterError, match=r"item 0 failed 1 time\(s\) .*`ray status`"):
        list(cluster.imap(crash_once, [(str(tmp_path), 0)], max_retries=0, resubmits=0))


def test_imap_raises_the_functions_own_error_without_retrying(loopback: cluster.LoopbackCluster) -> None:
    with pytest.raises(ValueError, match="item 3 is bad"):
        list(cluster.imap(fail, [3]))


def test_imap_second_copy_of_a_hung_task_counts_once(loopback: cluster.LoopbackCluster, tmp_path: Path) -> None:
    try:
        got = list(cluster.imap(hang_once, [(str(tmp_path), i) for i in range(3)], task_timeout=1.0))
        assert not (tmp_path / "release").exists()  # the hung original still hangs: it was not awaited
    finally:
        (tmp_path / "release").touch()
    assert sorted(got) == [(0, 0), (1, 1), (2, 2)]


# ---- the arena and the sweeps --------------------------------------------------------------------------
def _arena_config() -> ArenaConfig:
    return ArenaConfig((("balanced", "center", "random"), ("guardian", "random", "random")), 6, 11, SMALL)


def test_arena_on_the_cluster_gives_the_local_rows_byte_for_byte(
    loopback: cluster.LoopbackCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _arena_config()
    local_summary, local_rows = arena.run_arena(config, workers=1, progress=False)
    summary, rows = arena.run_arena(config, progress=True, cluster=loopback.address)
    assert json.dumps(rows, sort_keys=True) == json.dumps(local_rows, sort_keys=True)
    assert json.dumps(summary, sort_keys=True, default=str) == json.dumps(local_summary, sort_keys=True, default=str)
    assert "12/12" in capsys.readouterr().err  # the progress bar counted every game, once


def test_arena_chunk_of_a_lost_worker_is_replayed_and_counted_once(
    loopback: cluster.LoopbackCluster, tmp_path: Path
) -> None:
    config = _arena_config()
    tasks = arena.schedule(config)
    jobs = [
        (str(tmp_path), k, (config.options, config.seed, config.opening_plies, config.game, chunk))
        for k, chunk in enumerate(cluster.chunked(tasks, 4))
    ]
    rows = [row for _, chunk_rows in cluster.imap(crash_once_chunk, jobs, max_retries=0) for row in chunk_rows]
    assert (tmp_path / "chunk1").exists()  # the crash happened
    rows.sort(key=lambda r: r["game"])
    assert json.dumps(rows) == json.dumps(arena.play_all(config, workers=1, progress=False))


def test_sweep_on_the_cluster_writes_the_local_files(loopback: cluster.LoopbackCluster, tmp_path: Path) -> None:
    from training.studies.sweep import parse_spec, run_sweep

    spec = parse_spec(
        {
            "name": "ray",
            "seed": 2,
            "games_per_cell": 6,
            "options": {"land_radius": 1, "map_radius": 2, "max_rounds": 30},
            "grid": {"turns_to_conquer": [2, 4]},
            "lineups": [["balanced", "random", "random"]],
        }
    )
    run_sweep(spec, tmp_path / "local", workers=1, progress=False)
    run_sweep(spec, tmp_path / "ray", progress=False, cluster=loopback.address)
    local = sorted((tmp_path / "local").rglob("*.json*"))
    assert len(local) >= 4
    for path in local:
        twin = tmp_path / "ray" / path.relative_to(tmp_path / "local")
        assert twin.read_bytes() == path.read_bytes(), path.name


# ---- a node lost mid-run (last: the cluster gets a fresh node back) --------------------------------------
def test_imap_survives_losing_a_node_mid_run(loopback: cluster.LoopbackCluster, tmp_path: Path) -> None:
    victim = loopback.nodes[0]
    victim_id = next(n["NodeID"] for n in ray.nodes() if n["RayletSocketName"] == victim._raylet_socket_name)
    items = [(str(tmp_path), victim_id, i) for i in range(16)]  # node_of orders the work by files
    got: list[tuple[int, tuple[int, str]]] = []
    killed_after = None
    try:
        for index, result in cluster.imap(node_of, items, max_retries=1, resubmits=2):
            got.append((index, result))
            if killed_after is None and result[1] == victim_id:  # the node has worked: now it dies
                loopback.remove_node(victim)
                killed_after = len(got)
                (tmp_path / "victim-killed").touch()  # now the other node may work
    finally:
        if victim not in loopback.nodes:
            loopback.nodes.append(loopback.cluster.add_node(num_cpus=1, **_node_args()))
    assert killed_after is not None and killed_after < len(items)  # it died with work left to do
    assert sorted(i for i, _ in got) == list(range(16))  # every item once
    assert all(index == i for index, (i, _) in got)
    assert sum(node == victim_id for _, (_, node) in got[killed_after:]) == 0  # the rest ran elsewhere


def _node_args() -> dict[str, Any]:
    return {"object_store_memory": cluster.DEFAULT_OBJECT_STORE_BYTES, "node_ip_address": "127.0.0.1"}


# ---- training rollouts on a Ray actor --------------------------------------------------------------------
SMOKE = str(Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml")
QUICK = ["--set", "eval.final_games=0", "--set", "imitation.teacher=none"]


def _train(run_dir: Path, *sets: str) -> dict[str, Any]:
    from dw_cli.main import main
    from policies import checkpoint

    argv = ["train", "--config", SMOKE, "--run-dir", str(run_dir), *QUICK]
    for item in sets:
        argv += ["--set", item]
    assert main(argv) == 0
    return checkpoint.load(run_dir / "checkpoint.pt")


def _resume(run_dir: Path, *sets: str) -> dict[str, Any]:
    from dw_cli.main import main
    from policies import checkpoint

    argv = ["train", "--resume", str(run_dir / "checkpoint.pt"), "--set", "eval.final_games=0"]
    for item in sets:
        argv += ["--set", item]
    assert main(argv) == 0
    return checkpoint.load(run_dir / "checkpoint.pt")


def _same_run(a: dict[str, Any], b: dict[str, Any]) -> None:
    import torch

    keys = ("env_steps", "updates", "games", "decisions")
    assert {k: a["counters"][k] for k in keys} == {k: b["counters"][k] for k in keys}
    for name, tensor in a["model"].items():
        assert torch.equal(b["model"][name], tensor), name
    assert a["training"]["league"]["results"] == b["training"]["league"]["results"]
    for name, tensor in a["training"]["table"]["env"].items():
        if isinstance(tensor, torch.Tensor):
            assert torch.equal(b["training"]["table"]["env"][name], tensor), name


def test_training_on_a_rollout_actor_matches_the_local_trainer(
    loopback: cluster.LoopbackCluster, tmp_path: Path
) -> None:
    """One actor plays the local trainer's games (resuming on actors: the test below)."""
    on_ray = ("run.rollout_workers=1", f"run.cluster={loopback.address}")
    local = _train(tmp_path / "local", "run.stop_after_updates=2")
    remote = _train(tmp_path / "ray", "run.stop_after_updates=2", *on_ray)
    assert remote["counters"]["updates"] == 2 and remote["counters"]["games"] > 0
    _same_run(local, remote)


def test_training_on_two_rollout_actors_is_reproducible_and_resumes_exactly(
    loopback: cluster.LoopbackCluster, tmp_path: Path
) -> None:
    on_ray = ("run.rollout_workers=2", f"run.cluster={loopback.address}")
    straight = _train(tmp_path / "straight", "run.stop_after_updates=2", *on_ray)
    assert straight["counters"]["env_steps"] == 2 * 16 * 24 and straight["counters"]["games"] > 0
    _train(tmp_path / "split", "run.stop_after_updates=1", *on_ray)
    # the saved config keeps the actors: resumed on them, the run ends as the straight one
    _same_run(straight, _resume(tmp_path / "split", "run.stop_after_updates=2"))


def test_slot_groups_share_network_and_scripted_slots_between_actors() -> None:
    from training.ppo.rollout_actors import slot_groups

    groups = slot_groups(10, 4, 3)
    assert [g.tolist() for g in groups] == [[0, 1, 6, 7], [2, 3, 8], [4, 5, 9]]
    assert sorted(x for g in groups for x in g.tolist()) == list(range(10))
    with pytest.raises(ValueError, match=r"rollout_workers \(5\) must not exceed env.num_envs \(4\)"):
        slot_groups(4, 1, 5)


def test_rollout_workers_config_is_strict() -> None:
    from training.ppo.config import ConfigError, from_dict

    assert from_dict({"run": {"rollout_workers": 1, "cluster": " auto "}}).run.cluster == "auto"
    with pytest.raises(ConfigError, match="rollout_workers"):
        from_dict({"run": {"rollout_workers": -1}})
    with pytest.raises(ConfigError, match="cluster"):
        from_dict({"run": {"rollout_workers": 1, "cluster": "ray://head:10001"}})


def test_bench_cluster_measures_the_per_task_overhead_and_refuses_bad_times(
    loopback: cluster.LoopbackCluster,
) -> None:
    from dw_cli.bench import cluster as bench

    with pytest.raises(ValueError, match="seconds"):
        bench.run(float("nan"))
    over = bench._overhead(5)
    assert over["pipelined_ms"] > 0 and 0 < over["round_trip_ms"] < 5_000
    config = bench.train_config(10.0, "/tmp", loopback.address)
    assert config.run.rollout_workers == 1 and config.run.cluster == loopback.address
