"""Optional warm start: behaviour cloning of a scripted AI before self-play PPO.

Random play almost never completes a conquest (the king must sit on a throne with enough knights in the land
for K own turns, rule 6.4), so a PPO learner starting from random weights sees a win or a point only rarely
and learns slowly on a small CPU budget. Cloning a scripted AI first gives it a policy that already conquers,
blocks and ends games; PPO then improves on it against the league.

The demonstrations are the scripted AI playing every seat of games on the vector env; each env step is one
example (the observation, the mask and the AI's action in that phase), so the network learns both phases
with the same encoder it plays with. The value head learns the game's outcome for the player to act (its
final terminal reward), which gives the critic a sensible start.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policies import games
from training.distributed.worker_process import ignore_stop_signals, stop_signals_blocked
from training.ppo.config import TrainConfig, is_network_teacher
from training.ppo.game_setup import eval_env, scripted_seats, teacher_network

#: games the demonstrations are played in at once, all workers together: every game slot is played for about
#: decisions / 64 steps, restarting when a game ends, whatever the number of workers
GAMES_IN_FLIGHT = 64

#: seed offset between the tables' demonstrations in a run of several (each table's workers take seeds
#: ``seed + offset * table + worker``)
DEMONSTRATION_SEEDS = 1_000


def collect_demonstrations(
    options: Any,
    teacher: str,
    decisions: int,
    *,
    seed: int,
    explore: float = 0.15,
    num_envs: int = GAMES_IN_FLIGHT,
    env_threads: int = 1,
    game_id: str = games.DEFAULT_GAME,
) -> dict[str, NDArray[Any]]:
    """Return ``decisions`` examples of ``teacher`` playing every seat: obs, masks, actions, outcomes.

    A scripted AI facing copies of itself plays the same game every time, so a share ``explore`` of the
    turns is played at random instead (and not recorded): the games, and so the examples, stay varied.
    ``teacher`` may also be the path of a ``dw train`` checkpoint (:func:`training.ppo.config.is_network_teacher`):
    its network, built on ``options``' map, then plays by sampling from its masked policy (a Gumbel draw from
    the collection's own random stream, so the examples repeat for a seed).
    """
    env = eval_env(game_id, options, num_envs, env_threads, seed)
    obs, masks, acting = env.reset()
    scripted = scripted_seats(game_id, env)
    network = teacher_network(teacher, game_id, options) if is_network_teacher(teacher) else None
    players = scripted.players
    rng = np.random.default_rng(seed)
    for slot in range(num_envs):
        start_game(scripted, network, slot, teacher, int(rng.integers(2**31)))
    size = decisions + num_envs
    out_obs = np.zeros((size, obs.shape[1]), np.int8)
    out_masks = np.zeros((size, masks.shape[1]), np.int8)
    out_actions = np.zeros(size, np.int64)
    out_value = np.zeros(size, np.float32)
    game_rows: list[list[tuple[int, int]]] = [[] for _ in range(num_envs)]  # (row, seat) of each game's steps
    n = 0
    wild = np.zeros(num_envs, dtype=bool)  # this turn is played at random
    while n < decisions:
        first_phase = env.phase() == 1 if scripted.two_phase else np.ones(num_envs, dtype=bool)
        wild = np.where(first_phase, rng.random(num_envs) < explore, wild)
        actions = env.sample_actions().astype(np.int64)
        kept = np.flatnonzero(~wild)
        if network is not None:
            actions[kept] = network_actions(network, obs[kept], masks[kept], rng)
        else:
            for i in kept:
                actions[i] = scripted.action(int(i), teacher, int(acting[i]))
        scripted.pending[wild] = -1
        rows = np.arange(n, n + len(kept))
        out_obs[rows], out_masks[rows], out_actions[rows] = obs[kept], masks[kept], actions[kept]
        for row, i in zip(rows, kept, strict=True):
            game_rows[i].append((int(row), int(acting[i])))
        n += len(kept)
        obs, masks, acting, _, term, trunc, info = env.step(actions)
        for i in np.flatnonzero(term | trunc):
            won = info["winners"][i].astype(np.float32)
            k = won.sum()
            value = (
                np.where(won > 0, 1.0 / max(k, 1), -1.0 / max(players - k, 1)) if 0 < k < players else np.zeros(players)
            )
            for row, seat in game_rows[i]:
                out_value[row] = value[seat]
            game_rows[i] = []
            start_game(scripted, network, int(i), teacher, int(rng.integers(2**31)))
    return {"obs": out_obs[:n], "masks": out_masks[:n], "actions": out_actions[:n], "values": out_value[:n]}


def start_game(scripted: Any, network: Any, slot: int, teacher: str, seed: int) -> None:
    """Start a scripted teacher's next game in ``slot`` (a network teacher keeps no state between games)."""
    if network is None:
        scripted.start_game(slot, teacher, seed)


def network_actions(net: Any, obs: NDArray[np.int8], masks: NDArray[np.int8], rng: np.random.Generator) -> NDArray[Any]:
    """Return one action per row drawn from ``net``'s policy over the legal actions (Gumbel-max with ``rng``)."""
    import torch

    if len(obs) == 0:
        return np.zeros(0, np.int64)
    with torch.inference_mode():
        logits = net(torch.from_numpy(obs))[0].double().numpy()
    scores = np.where(masks > 0, logits + rng.gumbel(size=logits.shape), -np.inf)
    return np.argmax(scores, axis=1).astype(np.int64)


def collect_parallel(
    options: Any,
    teacher: str,
    decisions: int,
    *,
    seed: int,
    workers: int,
    explore: float = 0.15,
    game_id: str = games.DEFAULT_GAME,
) -> dict[str, NDArray[Any]]:
    """Return :func:`collect_demonstrations` split over ``workers`` processes (seeds ``seed + k``), joined.

    The workers share the :data:`GAMES_IN_FLIGHT` games and the decisions in proportion
    (:func:`worker_shares`), so the games reach the same depth on any worker count. (When every worker played 64
    games of its own, 16 workers collecting 50,000 standard-map decisions saw only the first 8 rounds of each
    game and no game's end: the clone learned openings and a value of 0.)
    """
    if workers <= 1:
        return collect_demonstrations(options, teacher, decisions, seed=seed, explore=explore, game_id=game_id)
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    tasks = [
        (options, teacher, share, slots, seed + k, explore, game_id)
        for k, (share, slots) in enumerate(worker_shares(decisions, workers))
        if share > 0
    ]
    # the workers ignore Ctrl-C and SIGTERM: a terminal or `timeout` sends them to the whole process group, and the
    # run itself decides what to do with them (finish the warm start, then write a checkpoint:
    # training/distributed/interrupt.py)
    spawn = mp.get_context("spawn")
    with ProcessPoolExecutor(len(tasks), mp_context=spawn, initializer=ignore_stop_signals) as pool:
        with stop_signals_blocked():  # a signal while they start waits for their initializer (worker_process.py)
            shares = [pool.submit(_collect_share, task) for task in tasks]
        parts = [share.result() for share in shares]
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def worker_shares(decisions: int, workers: int) -> list[tuple[int, int]]:
    """Return each worker's (decisions, games): the :data:`GAMES_IN_FLIGHT` games split as evenly as they go
    (at most that many workers get any), and the decisions in proportion to the games, so that every game slot
    is played for the same number of steps give or take one."""
    if decisions < 0 or workers < 1:
        raise ValueError(f"decisions must be >= 0 and workers >= 1, got {decisions} and {workers}")
    used = min(workers, GAMES_IN_FLIGHT)
    slots = [GAMES_IN_FLIGHT // used + (k < GAMES_IN_FLIGHT % used) for k in range(used)]
    cuts = np.cumsum([0, *slots]) * decisions // GAMES_IN_FLIGHT
    return [(int(cuts[k + 1] - cuts[k]), slots[k]) for k in range(used)]


def _collect_share(args: tuple[Any, str, int, int, int, float, str]) -> dict[str, NDArray[Any]]:
    options, teacher, decisions, slots, seed, explore, game_id = args
    if is_network_teacher(teacher):  # one process per core already: torch's own threads would only contend
        import torch

        torch.set_num_threads(1)
    return collect_demonstrations(
        options, teacher, decisions, seed=seed, explore=explore, num_envs=slots, game_id=game_id
    )


@dataclass
class CloneLoss:
    """The cloning loss of one minibatch, chunk by chunk: ``loss(model, s, e)`` runs the forward and backward
    pass of the minibatch's examples ``s:e`` and returns their statistics (scalar tensors).

    The loss is the minibatch's mean cross-entropy of the teacher's actions plus half the mean squared error
    of the outcomes; each term is a sum over the chunk divided by the minibatch's size ``n``, so the chunks'
    gradients add up to the minibatch's. A :class:`training.ppo.update_processes.BatchedWork` whose ``batch`` is
    the minibatch itself (obs, masks, actions, values): an update process gets a megabyte or two per
    minibatch, never the whole demonstration set (hundreds of MB of shared memory).
    """

    batch: dict[str, Any]
    n: int

    def __call__(self, model: Any, s: int, e: int) -> dict[str, Any]:
        import torch

        from policies.domain_wheel.network import evaluate_actions, masked_logits

        b = self.batch
        masks, actions = b["masks"][s:e], b["actions"][s:e]
        logits, value = model(b["obs"][s:e])
        logp, _ = evaluate_actions(logits, masks, actions)
        loss = (-logp.sum() + 0.5 * ((value - b["values"][s:e]) ** 2).sum()) / self.n
        loss.backward()
        with torch.no_grad():
            chosen = masked_logits(logits, masks).argmax(-1)
            return {"loss": loss.detach(), "correct": (chosen == actions).sum().float()}


def clone(
    net: Any,
    data: dict[str, NDArray[Any]] | list[dict[str, NDArray[Any]]],
    *,
    epochs: int,
    learning_rate: float,
    batch_size: int,
    device: Any,
    threads: Any = None,
    report: Callable[[int, dict[str, float]], None] | None = None,
    on_part: Callable[[int], Any] | None = None,
) -> dict[str, float]:
    """Train ``net`` to choose the teacher's actions (cross-entropy over legal actions) and predict outcomes.

    ``report(epoch, stats)`` is called after each epoch (1-based) with that epoch's mean loss and accuracy: a
    clone of a few hundred thousand decisions takes many minutes on a CPU, and a silent one looks hung.

    Each minibatch runs in cache-sized chunks (``policies.domain_wheel.network.chunk_rows``) on ``threads``
    (a :class:`training.ppo.network_threads.NetworkThreads`: the trainer's, so the clone uses every core the PPO
    update uses; None: the calling thread), as the PPO update does. Return the last epoch's mean loss and
    accuracy.

    ``data`` may be a list of parts, one per table of a run of several (training/ppo/tables.py): their
    observations differ in size, so a minibatch holds one part's examples, and the epoch's minibatches of every
    part come in a shuffled order. ``on_part(k)`` points ``net`` at part ``k``'s map and returns the threads for
    it (one part: ``threads``).
    """
    import torch

    from policies.domain_wheel.network import chunk_rows
    from training.ppo.game_setup import update_chunk_rows
    from training.ppo.network_threads import NetworkThreads

    device = torch.device(device)
    parts = data if isinstance(data, list) else [data]
    if not parts:
        raise ValueError("clone needs at least one set of demonstrations")
    demos = [
        {key: torch.from_numpy(part[key]).to(device) for key in ("obs", "masks", "actions", "values")} for part in parts
    ]
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
    threads = threads or NetworkThreads(net, 1)
    sizes = [len(part["obs"]) for part in demos]
    size = sum(sizes)
    rows: list[int] = []
    for k in range(len(demos)):
        if on_part is not None:
            on_part(k)  # a chunk's rows depend on the map's size
        rows.append(update_chunk_rows(net, device, chunk_rows(net, device)))
    net.train()
    stats: dict[str, float] = {}
    for epoch in range(1, epochs + 1):
        batches: list[tuple[int, Any]] = []
        for k, n_part in enumerate(sizes):
            order = torch.randperm(n_part, device=device)
            batches += [(k, order[start : start + batch_size]) for start in range(0, n_part, batch_size)]
        if len(demos) > 1:  # one part's minibatches after another would pull the weights to each part in turn
            batches = [batches[int(j)] for j in torch.randperm(len(batches))]
        losses, correct = [], 0.0
        for k, idx in batches:
            pool = threads if on_part is None else on_part(k)
            n = len(idx)
            pieces = -(-n // rows[k])  # on a GPU one chunk holds the minibatch, as in the PPO update
            if device.type == "cpu":  # cache-sized chunks of equal size, as many for each thread: 512
                # small-map examples in 3 chunks would leave one of 2 cores idle a third of the time (4 of 128:
                # 1.5x one core's clone)
                pieces = min(n, -(-pieces // pool.threads) * pool.threads)
            cuts = [round(j * n / pieces) for j in range(pieces + 1)]
            work = CloneLoss({key: value[idx] for key, value in demos[k].items()}, n)
            optimizer.zero_grad(set_to_none=True)
            sums = pool.run(list(zip(cuts[:-1], cuts[1:], strict=True)), work)
            optimizer.step()
            losses.append(float(sums["loss"]))
            correct += float(sums["correct"])
        stats = {"loss": float(np.mean(losses)), "accuracy": correct / size}
        if report is not None:
            report(epoch, stats)
    return stats


def warm_start(
    net: Any, config: TrainConfig, writer: Any, device: Any, threads: Any = None, tables: Any = None
) -> None:
    """Clone the configured scripted AI into ``net`` before PPO; log its loss and accuracy, print a line.

    ``threads``: the trainer's :class:`training.ppo.network_threads.NetworkThreads` (None: the calling thread).
    ``tables``: a run of several tables' :class:`training.ppo.tables.TableSet` (None: one table): the
    ``imitation.decisions`` are then split evenly between the tables whose teacher is not "none" (a table's
    ``teacher`` key), each collected in its own games, and the clone learns them all (``clone``'s parts);
    ``net`` is left on the first table's map.
    """
    import os

    im = config.imitation
    started = time.perf_counter()
    workers = im.workers or os.cpu_count() or 1
    named = (
        [(0, "", config)]
        if tables is None
        else [(k, n, c) for k, (n, c) in enumerate(zip(tables.names, tables.configs, strict=True))]
    )
    named = [(k, name, c) for k, name, c in named if c.imitation.teacher != "none"]
    shares = [im.decisions * (j + 1) // len(named) - im.decisions * j // len(named) for j in range(len(named))]
    parts, on_table = [], []
    for (k, name, table), share in zip(named, shares, strict=True):
        seed = config.run.seed + DEMONSTRATION_SEEDS * k  # table 0: the one-table run's games
        teacher = table.imitation.teacher
        parts.append(
            collect_parallel(table.options, teacher, share, seed=seed, workers=workers, game_id=config.game_id)
        )
        on_table.append(k)
        where = f" on table {name}" if name else ""
        print(
            f"warm start: {len(parts[-1]['actions']):,} decisions of {teacher} collected{where} in "
            f"{time.perf_counter() - started:.0f} s",
            flush=True,
        )
    total = sum(len(part["actions"]) for part in parts)
    teachers = ", ".join(dict.fromkeys(table.imitation.teacher for _, _, table in named))
    print(f"warm start: cloning {teachers} on {total:,} decisions for {im.epochs} epochs", flush=True)

    def report(epoch: int, stats: dict[str, float]) -> None:
        print(
            f"warm start: epoch {epoch}/{im.epochs}, loss {stats['loss']:.4f}, accuracy {stats['accuracy']:.1%}, "
            f"{time.perf_counter() - started:.0f} s",
            flush=True,
        )

    try:
        stats = clone(
            net,
            parts if tables is not None else parts[0],
            epochs=im.epochs,
            learning_rate=im.learning_rate,
            batch_size=im.batch_size,
            device=device,
            threads=threads,
            report=report,
            on_part=None if tables is None else (lambda j: tables.threads_on(net, on_table[j])),
        )
    finally:
        if tables is not None:
            tables.point(net, 0)  # the run starts on the first table's map
    for name, value in stats.items():
        writer.add_scalar(f"imitation/{name}", value, 0)
    print(
        f"warm start: cloned {teachers} on {total:,} decisions in "
        f"{time.perf_counter() - started:.0f} s (accuracy {stats['accuracy']:.1%})"
    )
