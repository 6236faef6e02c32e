"""``dw bench selfplay``: search-guided training's throughput by game, self-play moves/s and learner samples/s.

Each game runs its example config (``configs/search_guided_<game>.yaml``, Domain Wheel's
``search_guided_small.yaml``: the network with its warm start, the search with its playout caps, the batch)
on one core, one torch thread. A Domain Wheel "move" is one decision (a piece move is two: the piece, then
its destination; training/search_guided/games.py):

* **network alone**: moves/s of self-play where each move is the bare network's greedy choice (one forward
  pass), the reference measured in the same run;
* **self-play**: moves/s of :func:`training.search_guided.self_play.self_play_game` as training plays
  them (full searches on ``search.full_fraction`` of the moves, cheap ones on the rest), and the ratio to
  the reference (what the search costs per move);
* **learner**: samples/s of :func:`training.search_guided.search_guided.learn` on minibatches of
  ``learn.batch_size`` from the replay buffer the self-play filled.

The first game and the first update are warm-ups (compilation, allocations) and are left out.

With ``--workers N`` (``run(workers=N)``) it also measures self-play as training runs it with
``run.selfplay_workers`` (training/search_guided/workers.py): moves/s with 1 worker process and with N, in
the same run, on batches of ``2 N`` games (an iteration's hand-out: one game at a time to whichever worker is
free), each after a batch of warm-up, and prints the machine's load average beside them (other jobs on the
same cores lower the figures; read the speed-up against the cores that were free).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np

#: the games search-guided training plays, each with its example config (configs/search_guided_<name>.yaml)
GAMES = ("alveole", "conquer", "domain_wheel")
CONFIG_NAMES = {"alveole": "alveole", "conquer": "conquer", "domain_wheel": "small"}
CONFIGS = Path(__file__).resolve().parents[2] / "configs"
#: the most worker processes ``--workers`` starts
MAX_WORKERS = 256


def config_of(game_id: str) -> Any:
    """Return the example config of ``game_id`` (configs/search_guided_<name>.yaml)."""
    from training.search_guided import config as sg

    return sg.load(CONFIGS / f"search_guided_{CONFIG_NAMES[game_id]}.yaml")


def network_of(config: Any, view: Any) -> Any:
    """Return the config's network: fresh, or its warm start's weights (``network.init_from``) when it has one."""
    from policies import checkpoint

    net = view.make_network(config.network)
    if config.network.init_from:
        path = Path(config.network.init_from)
        path = path if path.is_absolute() else CONFIGS.parent / path
        checkpoint.load_weights(net, checkpoint.load(path, game_id=view.adapter.game_id), path)
    return net


def _network_alone(view: Any, net: Any, seconds: float) -> float:
    import torch

    moves, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = view.new_game()
        while not game.over:
            obs, mask = game.observe()
            with torch.inference_mode():
                logits = net(torch.from_numpy(obs)[None])[0][0].numpy()
            game.play(int(np.argmax(np.where(mask > 0, logits, -np.inf))))
            moves += 1
    return moves / (time.perf_counter() - start)


def measure(game_id: str, seconds: float) -> dict[str, Any]:
    """Return one game's figures: network-alone and self-play moves/s, learner samples/s."""
    import torch

    from training.search_guided import config as sg
    from training.search_guided.games import training_game
    from training.search_guided.search import GumbelSearch, SearchSettings
    from training.search_guided.search_guided import Replay, learn
    from training.search_guided.self_play import network_evaluator, self_play_game

    torch.set_num_threads(1)
    config = config_of(game_id)
    view = training_game(config)
    net = network_of(config, view)
    net.eval()
    obs, mask = view.new_game().observe()
    replay = Replay(config.learn.buffer_size, obs.size, mask.size, view.players)
    s = config.search
    settings = SearchSettings(s.simulations, s.gumbel_k, s.c_visit, s.c_scale, s.c_puct)
    search = GumbelSearch(network_evaluator(net, view.players), view.players, settings)
    rng = np.random.default_rng(0)
    self_play_game(view.new_game(), search, config, rng, replay)  # warm-up
    reference = _network_alone(view, net, seconds)
    moves, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        moves += self_play_game(view.new_game(), search, config, rng, replay)[0]
    play = moves / (time.perf_counter() - start)
    optimizer = torch.optim.AdamW(net.parameters(), lr=config.learn.learning_rate)
    one = sg.from_dict(config.to_dict(), ["learn.updates_per_iteration=1"])
    net.train()
    learn(net, optimizer, replay, one, rng)  # warm-up
    updates, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        learn(net, optimizer, replay, one, rng)
        updates += 1
    samples = updates * min(config.learn.batch_size, replay.size) / (time.perf_counter() - start)
    return {"game": game_id, "network_moves_s": reference, "selfplay_moves_s": play, "learner_samples_s": samples}


def _workers_rate(config: Any, weights: Any, workers: int, batch: int, seconds: float) -> float:
    """Return the self-play moves/s of ``workers`` worker processes playing batches of ``batch`` games."""
    from training.search_guided.workers import NoStop, ProcessPlay

    play = ProcessPlay(config.to_dict(), workers)
    try:
        play.play(weights, 0, batch, NoStop())  # warm-up: imports, compilation, the first weights
        moves, iteration, start = 0, 1, time.perf_counter()
        while time.perf_counter() - start < seconds:
            records = play.play(weights, iteration, batch, NoStop()) or []
            moves, iteration = moves + sum(r.moves for r in records), iteration + 1
        return moves / (time.perf_counter() - start)
    finally:
        play.close()


def measure_workers(game_id: str, seconds: float, workers: int) -> dict[str, Any]:
    """Return one game's self-play moves/s in 1 and in ``workers`` worker processes, and the load average."""
    import torch

    from training.search_guided.games import training_game
    from training.search_guided.workers import weights_of

    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"--workers must be an integer in 1..{MAX_WORKERS}, got {workers!r}")
    config = config_of(game_id)
    torch.manual_seed(0)
    weights = weights_of(network_of(config, training_game(config)))
    load = os.getloadavg()[0]
    one = _workers_rate(config, weights, 1, 2 * workers, seconds)
    many = _workers_rate(config, weights, workers, 2 * workers, seconds)
    return {"game": game_id, "workers": workers, "one_moves_s": one, "workers_moves_s": many, "load": load}


def run(seconds: float = 5.0, games: tuple[str, ...] = GAMES, workers: int = 0) -> dict[str, Any]:
    """Print and return each game's throughput (see the module docstring); with ``workers``, the workers' too."""
    if workers:
        return run_workers(seconds, games, workers)
    rows = []
    print(f"{'game':10} {'network alone':>16} {'self-play':>14} {'ratio':>7} {'learner':>16}")
    for game_id in games:
        row = measure(game_id, seconds)
        rows.append(row)
        print(
            f"{game_id:10} {row['network_moves_s']:>10,.0f} mv/s {row['selfplay_moves_s']:>8,.1f} mv/s "
            f"{row['selfplay_moves_s'] / row['network_moves_s']:>7.3f} {row['learner_samples_s']:>8,.0f} samples/s"
        )
    return {"rows": rows}


def run_workers(seconds: float, games: tuple[str, ...], workers: int) -> dict[str, Any]:
    """Print and return each game's self-play moves/s with 1 and ``workers`` worker processes."""
    rows = []
    cores = os.cpu_count() or 1
    print(f"{'game':10} {'1 worker':>14} {f'{workers} workers':>14} {'speed-up':>9} {'load avg':>9} ({cores} cores)")
    for game_id in games:
        row = measure_workers(game_id, seconds, workers)
        rows.append(row)
        print(
            f"{game_id:10} {row['one_moves_s']:>8,.1f} mv/s {row['workers_moves_s']:>8,.1f} mv/s "
            f"{row['workers_moves_s'] / row['one_moves_s']:>8.2f}x {row['load']:>9.1f}"
        )
    return {"rows": rows}
