"""Search-guided self-play (expert iteration, multiplayer AlphaZero) for every game, top to bottom.

The game is reached through its view (training/search_guided/games.py): Alveole's and Conquer's engines as
they are, Domain Wheel's moves as two decisions of one player (a piece, then its destination), so below a
"move" is one decision. One iteration: play ``learn.games_per_iteration`` self-play games, every move
chosen by the Gumbel max^n search (training/search_guided/search.py) over the current network; with
playout-cap randomisation a move gets the full ``search.simulations`` with probability
``search.full_fraction`` and is then a training target, otherwise ``search.cheap_simulations`` and no
target. Each target is (observation, legal mask, the search's improved policy, the game's outcome vector
in the player to move's frame) in a bounded replay buffer of
preallocated arrays (the oldest positions overwritten). Then ``learn.updates_per_iteration`` minibatches:
cross-entropy of the masked policy to the improved policy, and mean squared error of the value vector to the
outcome vector (a network's one value ``v`` is ``(v, -v)`` with two players, ``(v, -v/2, -v/2)`` with
three: self_play.value_vectors), each position
drawn as one of its board's symmetric images (Alveole's 12, Conquer's 8 on a square board) with
``learn.symmetries``. After the iteration,
optionally, the bare network (greedy) plays ``eval.games`` against each of the game's scripted seats, every game
opened by ``eval.opening_plies`` random plies (the arena's openings); TensorBoard gets its win rate and the rating
gap that win rate implies (:func:`rating_gap`).

Self-play runs in the trainer's process, or in ``run.selfplay_workers`` worker processes or Ray actors
(training/search_guided/workers.py). Determinism: each game's Gumbel noise and playout caps come from its own
generator seeded by (run seed, iteration, game index) and the games join the replay buffer in game order, so
the worker count changes nothing; one numpy generator drives the minibatch draws, the learner runs on the
CPU with ``run.torch_threads`` threads, and the checkpoint holds the weights, the optimizer, the replay
buffer, the generator and torch's RNG: ``--resume`` continues exactly, in another process too. A stop signal
drops the self-play games under way and writes the last whole iteration's checkpoint. The
checkpoint is a ``dw train`` checkpoint of the game (policies/checkpoint.py), so the arena, ``search:`` seats
and ``dw export`` take it as they take PPO's.
"""

from __future__ import annotations

import contextlib
import copy
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gamecore.errors import brief
from training.distributed.interrupt import StopRequest
from training.search_guided.config import Config
from training.search_guided.run_files import run_folder, save_run
from training.search_guided.self_play import value_vectors

FORMAT_TRAINING = "search-guided-1"


class Replay:
    """A bounded replay buffer on preallocated arrays: the newest ``capacity`` training targets."""

    def __init__(self, capacity: int, obs_size: int, actions: int, players: int) -> None:
        self.obs = np.zeros((capacity, obs_size), dtype=np.int8)
        self.mask = np.zeros((capacity, actions), dtype=np.int8)
        self.policy = np.zeros((capacity, actions), dtype=np.float32)
        self.value = np.zeros((capacity, players), dtype=np.float32)
        self.size = self.next = 0

    def add(self, obs: NDArray[np.int8], mask: NDArray[np.int8], policy: NDArray[np.float32], value: Any) -> None:
        """Store one target, overwriting the oldest when full."""
        i = self.next
        self.obs[i], self.mask[i], self.policy[i], self.value[i] = obs, mask, policy, value
        self.next = (i + 1) % len(self.obs)
        self.size = min(self.size + 1, len(self.obs))

    def state(self) -> dict[str, Any]:
        """Return the buffer as plain data for a checkpoint."""
        import torch

        n = self.size
        arrays = {k: torch.from_numpy(getattr(self, k)[:n].copy()) for k in ("obs", "mask", "policy", "value")}
        return {**arrays, "next": self.next}

    def load(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state`'s data (same capacity and shapes)."""
        n = int(state["obs"].shape[0])
        for k in ("obs", "mask", "policy", "value"):
            getattr(self, k)[:n] = state[k].numpy()
        self.size, self.next = n, int(state["next"])


def learn(
    net: Any, optimizer: Any, replay: Replay, config: Config, rng: np.random.Generator, symmetries: Any = None
) -> dict[str, float]:
    """Run the iteration's minibatch updates; return the mean policy and value losses.

    ``symmetries``: the board's gather indices (``BoardGrid.symmetries``); each position of a minibatch is
    then drawn as one of its images, at random.
    """
    import torch

    players, device = replay.value.shape[1], next(net.parameters()).device
    sums = {"policy": 0.0, "value": 0.0}
    updates = config.learn.updates_per_iteration if replay.size else 0
    for _ in range(updates):
        idx = rng.integers(0, replay.size, size=min(config.learn.batch_size, replay.size))
        obs, mask, policy = replay.obs[idx], replay.mask[idx], replay.policy[idx]
        if symmetries is not None and len(symmetries[0]) > 1:
            k = rng.integers(0, len(symmetries[0]), size=len(idx))
            obs = np.take_along_axis(obs, symmetries[0][k], 1)
            mask = np.take_along_axis(mask, symmetries[1][k], 1)
            policy = np.take_along_axis(policy, symmetries[1][k], 1)
        obs = torch.from_numpy(obs).to(device)
        legal = torch.from_numpy(mask).to(device).bool()
        target_pi = torch.from_numpy(policy).to(device)
        target_v = torch.from_numpy(replay.value[idx]).to(device)
        logits, values = net(obs)
        log_pi = torch.log_softmax(logits.masked_fill(~legal, -1e9), 1)
        policy_loss = -(target_pi * log_pi.masked_fill(~legal, 0.0)).sum(1).mean()
        value_loss = ((value_vectors(values, players) - target_v) ** 2).mean()
        optimizer.zero_grad()
        (policy_loss + value_loss).backward()
        optimizer.step()
        sums["policy"] += policy_loss.item()
        sums["value"] += value_loss.item()
    return {k: v / max(updates, 1) for k, v in sums.items()}


def evaluate(
    view: Any, net: Any, opponents: list[str], games: int, seed: int, opening_plies: int = 0
) -> dict[str, float]:
    """Return the bare network's (greedy) win rate against each scripted seat, seats rotating.

    ``view`` is the game's search-guided view (training/search_guided/games.py): the network plays its
    decisions (Domain Wheel's two a move), a scripted seat whole moves. Game ``g`` seats the network in seat
    ``g mod players`` and opens with the arena's opening ``g // players`` (``opening_plies`` random plies,
    training/evaluation/arena.py), so every opening is played from every seat, as in ``dw arena``. A shared
    win counts ``1/k``.
    """
    import torch

    from training.evaluation.arena import opening_moves

    rates = {}
    for name in opponents:
        wins = 0.0
        for g in range(games):
            seat = g % view.players
            rival = view.adapter.make_seat(name, seed=seed + g)
            game = view.new_game()
            for move in opening_moves(view.options, seed, g // view.players, opening_plies, view.adapter.game_id):
                view.play_opening(game, move)
            while not game.over:
                if int(game.turn) == seat:
                    obs, mask = game.observe()
                    with torch.inference_mode():
                        logits = net(torch.from_numpy(obs)[None])[0][0].numpy()
                    game.play(int(np.argmax(np.where(mask > 0, logits, -np.inf))))
                else:
                    view.play_seat(game, rival)
            wins += (seat in game.winners) / max(len(game.winners), 1)
        rates[name] = wins / max(games, 1)
    return rates


def rating_gap(win_rate: float, players: int, games: int) -> float:
    """Return the rating points of one seat above ``players - 1`` copies of a rival it wins ``win_rate`` against.

    Plackett-Luce (Bradley-Terry with two players) on the Elo scale, as ``dw arena`` rates: a seat of strength
    ``s`` against ``n - 1`` rivals of strength 1 wins ``s / (s + n - 1)``, so the gap is
    ``400 log10(p (n - 1) / (1 - p))``; a fair share (``1/n``) is 0. The rate is kept half a game from 0 and 1
    so that a clean sweep reads as a large finite gap.
    """
    if players < 2 or games < 1 or not 0.0 <= win_rate <= 1.0:
        raise ValueError(
            f"rating_gap: need players >= 2, games >= 1 and a rate in [0, 1]; got {players}, {games}, {win_rate}"
        )
    p = min(max(win_rate, 0.5 / games), 1.0 - 0.5 / games)
    return float(400.0 * np.log10(p * (players - 1) / (1.0 - p)))


def _payload(config: Config, view: Any, net: Any, training: dict[str, Any] | None) -> dict[str, Any]:
    from policies import checkpoint

    payload = {
        "format": checkpoint.FORMAT,
        "format_version": checkpoint.FORMAT_VERSION,
        "observation_version": view.observation_version(),
        "game": view.adapter.game_id,
        "options": view.adapter.options_to_dict(view.options),
        "network": view.network_size(config.network),
        "model": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        "config": config.to_dict(),
    }
    if training is not None:
        payload["training"] = training
    return payload


#: what the run does on a first stop signal (training/distributed/interrupt.py prints it)
STOPPING = "stopping: the self-play games under way are dropped, then the last iteration's checkpoint is written"
#: the same for Domain Wheel's value refit, whose games are played one after another in this process
REFIT_STOPPING = "stopping after the game under way, then writing the checkpoint of every game played"


def train(
    config: Config, resume: Path | None = None, run_dir: Path | None = None, overwrite: bool = False
) -> dict[str, Any]:
    """Run (or continue, from ``resume``) a search-guided run; return its folder, counters, last losses, and
    the stop signal's name and exit status if one ended it (``interrupted``, ``exit_code``; "" and 0 if not)."""
    from training.search_guided.games import training_game

    stopping = REFIT_STOPPING if training_game(config).refits_value(config) else STOPPING
    with StopRequest(stopping) as stop, contextlib.ExitStack() as stack:
        result = _train(config, resume, run_dir, overwrite, stop, stack)
    return {**result, "interrupted": stop.name, "exit_code": stop.exit_code}


def _train(
    config: Config,
    resume: Path | None,
    run_dir: Path | None,
    overwrite: bool,
    stop: StopRequest,
    stack: contextlib.ExitStack,
) -> dict[str, Any]:
    """Run the iterations of :func:`train`, its self-play stopped by ``stack``; return folder, counters, losses."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from policies import checkpoint
    from training.search_guided.games import training_game
    from training.search_guided.workers import open_self_play, weights_of

    view = training_game(config)
    if view.refits_value(config):  # Domain Wheel's warm start, a run of its own (value_fit.py)
        from training.search_guided import value_fit

        # a first signal ends its games after the one under way, every game played saved (--resume goes on)
        return value_fit.train(config, resume, run_dir, overwrite, stop)
    torch.set_num_threads(config.run.torch_threads)
    adapter = view.adapter
    for name in config.eval.opponents:  # a misspelt seat is refused now, not after the first iteration
        if not adapter.is_registered(name):
            raise ValueError(
                f"eval.opponents: {brief(name)} is not a seat of {adapter.game_id}; allowed: "
                f"{', '.join(adapter.registered_seats())}"
            )
    torch.manual_seed(config.run.seed)
    n = config.network
    net = view.make_network(n)
    optimizer = torch.optim.AdamW(
        net.parameters(), lr=config.learn.learning_rate, weight_decay=config.learn.weight_decay
    )
    players = view.players
    probe = view.new_game()
    obs, mask = probe.observe()
    replay = Replay(config.learn.buffer_size, obs.size, mask.size, players)
    rng = np.random.default_rng(config.run.seed)
    symmetries = view.symmetries() if config.learn.symmetries else None
    counters = {"iterations": 0, "moves": 0, "targets": 0, "games": 0, "samples": 0, "seconds": 0.0}
    if resume is not None:
        payload = checkpoint.load(resume, game_id=adapter.game_id)
        state = payload.get("training")
        if not isinstance(state, dict) or state.get("algo") != FORMAT_TRAINING:
            raise ValueError(f"{resume}: not a search-guided training checkpoint (a policy or a PPO run's)")
        checkpoint.load_weights(net, payload, resume)
        replay.load(state["replay"])
        rng.bit_generator.state = _rng_state(state["numpy_rng"])
        torch.set_rng_state(state["torch_rng"])
        counters = dict(state["counters"])
        folder = Path(resume).parent
    else:
        if n.init_from:  # a warm start: any dw train checkpoint of this game and network size (PPO's too)
            checkpoint.load_weights(net, checkpoint.load(n.init_from, game_id=adapter.game_id), n.init_from)
        folder = run_folder(config, run_dir, overwrite)
    # the learner on a GPU when there is one; self-play's one-position evaluations stay on the CPU, on a copy
    device = (
        "cuda" if config.run.device == "cuda" or (config.run.device == "auto" and torch.cuda.is_available()) else "cpu"
    )
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("run.device: cuda, but torch sees no GPU here; allowed: auto, cpu (or cuda on a GPU)")
    player = net if device == "cpu" else copy.deepcopy(net)
    net.to(device)
    if resume is not None:
        optimizer.load_state_dict(state["optimizer"])  # after the move: its moments follow the parameters' device
    writer = SummaryWriter(str(folder), purge_step=counters["iterations"] if resume else None)
    losses: dict[str, float] = {}
    saved = counters["iterations"] if resume is not None else -1

    def save() -> None:
        training = {
            "algo": FORMAT_TRAINING,
            "optimizer": optimizer.state_dict(),
            "replay": replay.state(),
            "numpy_rng": _rng_text(rng),
            "torch_rng": torch.get_rng_state(),
            "counters": dict(counters),
        }
        save_run(folder, _payload(config, view, net, training))

    games_played = stack.enter_context(open_self_play(config, player))  # stopped when the run ends
    while counters["iterations"] < config.run.iterations and not stop.requested:
        start = time.perf_counter()
        player.eval()
        # each game's randomness is its own (workers.game_rng): where it is played changes nothing
        records = games_played.play(
            weights_of(player), int(counters["iterations"]), config.learn.games_per_iteration, stop
        )
        if records is None:
            break  # stopped: the iteration's games are dropped, the state is the last iteration's
        moves = sum(r.moves for r in records)
        targets = sum(r.add_to(replay) for r in records)
        play_s = time.perf_counter() - start
        net.train()
        losses = learn(net, optimizer, replay, config, rng, symmetries)
        learn_s = time.perf_counter() - start - play_s
        if player is not net:
            player.load_state_dict(net.state_dict())
        player.eval()
        counters["iterations"] += 1
        counters["moves"] += moves
        counters["targets"] += targets
        counters["games"] += config.learn.games_per_iteration
        samples = config.learn.updates_per_iteration * min(config.learn.batch_size, replay.size)
        counters["samples"] += samples
        counters["seconds"] += time.perf_counter() - start
        step = counters["iterations"]
        rates = {
            "losses/policy": losses["policy"],
            "losses/value": losses["value"],
            "charts/selfplay_moves_per_s": moves / max(play_s, 1e-9),
            "charts/learner_samples_per_s": samples / max(learn_s, 1e-9),
            "charts/replay_size": replay.size,
        }
        for name, value in rates.items():
            writer.add_scalar(name, value, step)
        if config.eval.games and not stop.requested:
            rates = evaluate(
                view, player, config.eval.opponents, config.eval.games, config.run.seed, config.eval.opening_plies
            )
            for name, rate in rates.items():
                writer.add_scalar(f"eval/win_rate_{name}", rate, step)
                writer.add_scalar(f"eval/rating_gap_{name}", rating_gap(rate, view.players, config.eval.games), step)
        if step % config.run.checkpoint_every == 0 or step == config.run.iterations or stop.requested:
            save()
            saved = step
    if stop.requested and saved != counters["iterations"]:
        save()  # the state of the last whole iteration: --resume continues exactly from it
    writer.close()
    return {"run_dir": folder, "counters": counters, "losses": losses}


def _rng_text(rng: np.random.Generator) -> dict[str, Any]:
    """Return a generator's state with its 128-bit integers as text (a checkpoint holds plain data)."""
    state = rng.bit_generator.state
    return {
        "bit_generator": state["bit_generator"],
        "state": {k: str(v) for k, v in state["state"].items()},
        "has_uint32": int(state["has_uint32"]),
        "uinteger": int(state["uinteger"]),
    }


def _rng_state(saved: dict[str, Any]) -> dict[str, Any]:
    return {**saved, "state": {k: int(v) for k, v in saved["state"].items()}}
