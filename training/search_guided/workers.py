"""Self-play games on the machine's cores or on Ray: ``run.selfplay_workers: N`` (0: in the trainer's process).

Why. Self-play is where a search-guided run spends its time (a searched move costs about nine network passes
at the example configs' 16/4 simulations, ``dw bench selfplay``), and a game is independent of the others:
the iteration's games spread over the cores with no change to the learner.

How. Every game's randomness (its Gumbel noise, its playout caps) comes from its own generator seeded by
(run seed, iteration, game index) (:func:`game_rng`), and the games come back in game order, so where a game
is played changes nothing: 0, 1 or N workers give the same replay buffer and bit-identical weights, and
``--resume`` stays exact whatever the worker count of either session. The network's weights go to the
workers once per iteration (numpy arrays: nothing but plain data is unpickled), with the first game each
worker gets; a worker then plays one game at a time, the next one as soon as it is free.

* **Worker processes** (:class:`ProcessPlay`): fresh interpreters (training/distributed/worker_process.py)
  that ignore SIGINT and SIGTERM and die with the trainer. The trainer checks its stop request between
  answers: a stop drops the iteration's games under way and SIGKILLs the workers (nothing they hold is
  needed); a normal end asks them to exit.
* **Ray actors** (:class:`RayPlay`), with ``run.cluster`` (auto, HOST:PORT or local, as PPO's rollout
  actors): one :class:`SelfPlayer` actor per worker, the weights put in the object store once per
  iteration. An actor Ray restarts is handed the weights again with its next game.
* **In process** (:class:`LocalPlay`): the trainer's own network, one game after another.
"""

from __future__ import annotations

import contextlib
import multiprocessing.connection
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from training.distributed.worker_process import POLL_SECONDS, WorkerProcess, ignore_stop_signals, serve_requests

Weights = dict[str, NDArray[Any]]


class Stop(Protocol):
    """What the game loops ask of the run's stop request (training/distributed/interrupt.py)."""

    @property
    def requested(self) -> bool: ...


class NoStop:
    """A stop request that never comes (a benchmark's)."""

    requested = False


@dataclass
class GameRecord:
    """One self-play game's result: its moves and its training targets in move order (Replay.add's rows)."""

    index: int
    moves: int
    obs: NDArray[np.int8]
    mask: NDArray[np.int8]
    policy: NDArray[np.float32]
    value: NDArray[np.float64]

    def add_to(self, replay: Any) -> int:
        """Add the game's targets to ``replay`` in move order; return how many."""
        for i in range(len(self.obs)):
            replay.add(self.obs[i], self.mask[i], self.policy[i], self.value[i])
        return len(self.obs)


class _Targets:
    """Collects what :func:`self_play_game` adds to a replay buffer, in order."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, Any, Any, Any]] = []

    def add(self, obs: Any, mask: Any, policy: Any, value: Any) -> None:
        self.rows.append((obs, mask, policy, np.asarray(value, dtype=np.float64)))

    def record(self, index: int, moves: int, obs_size: int, actions: int, players: int) -> GameRecord:
        shapes = ((obs_size,), (actions,), (actions,), (players,))
        kinds = (np.int8, np.int8, np.float32, np.float64)
        obs, mask, policy, value = (
            np.stack([row[i] for row in self.rows]).astype(k) if self.rows else np.zeros((0, *shape), dtype=k)
            for i, (shape, k) in enumerate(zip(shapes, kinds, strict=True))
        )
        return GameRecord(index, moves, obs, mask, policy, value)


def game_rng(seed: int, iteration: int, index: int) -> np.random.Generator:
    """Return the generator of game ``index`` of iteration ``iteration`` (from 0): the same wherever it is played."""
    return np.random.default_rng([seed, iteration, index])


def weights_of(net: Any) -> Weights:
    """Return ``net``'s weights as numpy arrays on the CPU (what travels to the workers)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}


class SelfPlayer:
    """Plays a run's self-play games: with the trainer's own network, or (``net=None``) a copy built here.

    ``config`` is the run's config as plain data (``Config.to_dict``). A worker process and a Ray actor
    build their own network of the run's size and take the weights with :meth:`load`.
    """

    def __init__(self, config: dict[str, Any], net: Any = None) -> None:
        import torch

        from training.search_guided import config as sg
        from training.search_guided.games import training_game
        from training.search_guided.search import GumbelSearch, SearchSettings
        from training.search_guided.self_play import network_evaluator

        self.config = sg.from_dict(config)
        self.view = training_game(self.config)
        if net is None:
            torch.set_num_threads(self.config.run.torch_threads)  # the trainer's count: the same passes' rounding
            net = self.view.make_network(self.config.network)
        self.net = net
        self.players = self.view.players
        s = self.config.search
        settings = SearchSettings(s.simulations, s.gumbel_k, s.c_visit, s.c_scale, s.c_puct)
        self.search = GumbelSearch(network_evaluator(net, self.players), self.players, settings)
        obs, mask = self.view.new_game().observe()
        self.sizes = (obs.size, mask.size)
        self.iteration = -1  # the iteration whose weights are loaded

    def load(self, weights: Weights, iteration: int) -> None:
        """Take the weights of iteration ``iteration``."""
        import torch

        self.net.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in weights.items()})
        self.net.eval()
        self.iteration = iteration

    def play(self, iteration: int, index: int, weights: Weights | None = None) -> GameRecord:
        """Return game ``index`` of iteration ``iteration``, played by search (weights loaded first if given)."""
        from training.search_guided.self_play import self_play_game

        if weights is not None and self.iteration != iteration:
            self.load(weights, iteration)
        targets = _Targets()
        game = self.view.new_game()
        rng = game_rng(self.config.run.seed, iteration, index)
        moves, _ = self_play_game(game, self.search, self.config, rng, targets)  # type: ignore[arg-type]
        return targets.record(index, moves, *self.sizes, self.players)


class LocalPlay:
    """The iteration's games in the trainer's process, one after another, with its own network."""

    def __init__(self, config: dict[str, Any], net: Any) -> None:
        self.player = SelfPlayer(config, net)

    def play(self, weights: Weights | None, iteration: int, games: int, stop: Stop) -> list[GameRecord] | None:
        """Return the iteration's games in order, or None if a stop was requested before they all finished."""
        records = []
        for index in range(games):
            if stop.requested:
                return None
            records.append(self.player.play(iteration, index))
        return None if stop.requested else records

    def close(self) -> None:
        """Nothing to stop."""

    def kill(self) -> None:
        """Nothing to stop."""


class SelfPlayProcess(WorkerProcess):
    """One worker process serving self-play games (module doc)."""

    what = "a self-play worker process"

    def receive(self) -> Any:
        """Return the answer to the last request; raise the worker's error, or one naming its exit code."""
        kind, value = self.read()
        if kind == "error":
            raise RuntimeError(f"in {self.what}:\n{value}")
        return value

    def kill(self) -> None:
        """SIGKILL the worker (it ignores SIGTERM; the game it plays is dropped) and wait for it."""
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.wait()
        if not self.conn.closed:
            self.conn.close()


class ProcessPlay:
    """The iteration's games in ``workers`` processes on this machine, each playing one game at a time."""

    def __init__(self, config: dict[str, Any], workers: int) -> None:
        self.workers: list[SelfPlayProcess] = []
        try:
            for _ in range(workers):
                self.workers.append(SelfPlayProcess(__name__))
            for worker in self.workers:  # they set up at once, each on its own core
                worker.send(("setup", config))
            for worker in self.workers:
                worker.receive()
        except BaseException:
            self.kill()
            raise

    def play(self, weights: Weights | None, iteration: int, games: int, stop: Stop) -> list[GameRecord] | None:
        """Return the iteration's games in order, or None if a stop was requested before they all finished."""
        pending = list(range(games))[::-1]
        records: dict[int, GameRecord] = {}
        idle, busy = list(self.workers[::-1]), dict[Any, SelfPlayProcess]()
        fresh = {id(w) for w in self.workers}  # workers still without this iteration's weights
        while len(records) < games:
            if stop.requested:  # the games under way are dropped: nothing a worker holds is needed
                self.kill()
                return None
            while idle and pending:
                worker = idle.pop()
                ship = weights if id(worker) in fresh else None
                fresh.discard(id(worker))
                worker.send(("play", iteration, pending.pop(), ship))
                busy[worker.conn] = worker
            for conn in multiprocessing.connection.wait(list(busy), POLL_SECONDS):
                worker = busy.pop(conn)
                record = worker.receive()
                records[record.index] = record
                idle.append(worker)
            for worker in busy.values():
                if worker.process.poll() is not None:
                    raise RuntimeError(f"{worker.what} stopped during self-play ({worker.exit_text()})")
        return [records[i] for i in range(games)]

    def close(self) -> None:
        """Ask every worker to exit and wait for it (idempotent)."""
        for worker in self.workers:
            worker.close()
        self.workers = []

    def kill(self) -> None:
        """SIGKILL every worker and wait for it (idempotent)."""
        for worker in self.workers:
            worker.kill()
        self.workers = []


class RayPlay:
    """The iteration's games on ``workers`` Ray actors of the cluster at ``address`` (module doc)."""

    def __init__(self, config: dict[str, Any], workers: int, address: str) -> None:
        from training.distributed import cluster

        self._stack = contextlib.ExitStack()
        self.actors: list[Any] = []
        self._stack.enter_context(cluster.connect(address, num_cpus=workers))
        try:
            ray = cluster.require_ray()
            actor = ray.remote(SelfPlayer).options(num_cpus=1, max_restarts=2, max_task_retries=2)
            self.actors = [actor.remote(config) for _ in range(workers)]
        except BaseException:
            self.kill()
            raise

    def play(self, weights: Weights | None, iteration: int, games: int, stop: Stop) -> list[GameRecord] | None:
        """Return the iteration's games in order, or None if a stop was requested before they all finished."""
        from training.distributed import cluster

        ray = cluster.require_ray()
        shared = ray.put(weights)  # once per iteration; every game's task names it (a restarted actor gets it too)
        pending, idle = list(range(games))[::-1], list(self.actors[::-1])
        busy: dict[Any, Any] = {}
        records: dict[int, GameRecord] = {}
        try:
            while len(records) < games:
                if stop.requested:  # the games under way are dropped with the actors
                    self.kill()
                    return None
                while idle and pending:
                    actor = idle.pop()
                    busy[actor.play.remote(iteration, pending.pop(), shared)] = actor
                ready, _ = ray.wait(list(busy), num_returns=1, timeout=POLL_SECONDS)
                for ref in ready:
                    record = ray.get(ref)
                    records[record.index] = record
                    idle.append(busy.pop(ref))
        except ray.exceptions.RayActorError as exc:
            if stop.requested:  # a signal to the process group also stops a local cluster's own processes
                self.kill()
                return None
            raise cluster.ClusterError(
                f"a self-play actor was lost and could not be restarted ({exc}); the run's state is unchanged: "
                "resume from the last checkpoint"
            ) from None
        return [records[i] for i in range(games)]

    def close(self) -> None:
        """Stop the actors and leave the cluster (a local one shuts down)."""
        self.kill()

    def kill(self) -> None:
        """Stop the actors and leave the cluster (idempotent)."""
        from training.distributed import cluster

        ray = cluster.require_ray()
        for actor in self.actors:
            with contextlib.suppress(Exception):
                ray.kill(actor)
        self.actors = []
        self._stack.close()


SelfPlay = LocalPlay | ProcessPlay | RayPlay


@contextlib.contextmanager
def open_self_play(config: Any, net: Any) -> Iterator[SelfPlay]:
    """Yield the run's self-play (in process, worker processes or Ray actors, by ``run.selfplay_workers`` and
    ``run.cluster``); on leaving, stop it: workers asked to exit after a normal end, killed after an error or a
    stop request that dropped games."""
    workers, data = config.run.selfplay_workers, config.to_dict()
    if workers == 0:
        play: SelfPlay = LocalPlay(data, net)
    elif config.run.cluster is not None:
        play = RayPlay(data, workers, config.run.cluster)
    else:
        play = ProcessPlay(data, workers)
    try:
        yield play
    except BaseException:
        play.kill()
        raise
    play.close()


# ---- the worker's side ---------------------------------------------------------------------------------
def worker_main(fd: int) -> None:
    """A worker process's entry point: serve the requests that come through socket ``fd`` until told to stop."""
    ignore_stop_signals()  # the trainer decides what a signal means, and kills this process if it must
    player: SelfPlayer | None = None

    def handle(message: Any) -> tuple[str, Any]:
        nonlocal player
        if message[0] == "setup":
            player = SelfPlayer(message[1])
            return ("done", None)
        if message[0] == "play" and player is not None:
            return ("done", player.play(*message[1:]))
        raise ValueError(f"unexpected request {message[0]!r}; allowed: setup, then play, stop")

    serve_requests(fd, handle)
