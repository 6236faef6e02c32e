"""Domain Wheel's search-guided warm start: the value head refitted to game outcomes, the policy frozen.

The shipped Domain Wheel networks learned their value head by PPO, on shaped and discounted returns of the
acting player, so the search's max^n vectors (policies/domain_wheel/search.py) read a weak estimate of who
wins (docs/SEARCH.md). This stage keeps every weight the policy uses and refits only ``value_head``:

1. **Collect.** ``value_fit.games`` games on the config's map, each seated by one of ``value_fit.lineups``
   (``network`` is ``network.init_from`` sampling its policy; anything else a scripted seat), the line-ups
   taken in turn and rotated through the three seatings, each game opened by ``value_fit.opening_plies``
   random plies (the arena's openings, training/evaluation/arena.py). At every turn the position is encoded
   from all three players' views, as the search encodes it (phase 1; ``all_viewers``): one sample per view.
2. **Target.** Each view's target is its player's result of the game (rule 9.5, the environments' rewards:
   ``+1/k`` to each of ``k`` winners, ``-1/(3-k)`` to the others, 0 for all in a truncated game), so the
   three targets of a position sum to zero as the game's outcomes do. No discount, no shaping.
3. **Fit.** The trunk is frozen, so each sample is stored as the value head's input (48 numbers on the
   standard agent's size) and the head alone is fitted by Adam on mean squared error; the last
   ``value_fit.held_out`` share of the games is never trained on and gives the reported error.

Decision (the issue left it open): the scalar head read per viewer, not a new three-output head. It needs
no new network shape, so every reader of checkpoints and packages (search, export, onnxruntime) takes the
refitted file unchanged, and the search's ``all_viewers=1`` asks exactly the question it was fitted on.

Resume: a checkpoint every ``run.checkpoint_every`` games holds the samples collected so far; game ``j``
depends only on ``run.seed`` and ``j`` (its seats' seeds, its opening), so ``--resume`` continues exactly,
and the fit (seconds) reruns from the stored samples with the same seed.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gamecore.errors import brief
from training.search_guided.config import Config, ValueFitConfig
from training.search_guided.run_files import run_folder, save_run

FORMAT_TRAINING = "value-fit-1"
#: the line-up token that names the run's own network (``network.init_from``, sampling its policy)
NETWORK_SEAT = "network"


class Samples:
    """The collected samples: value-head inputs, targets, the game each came from and whether its viewer acted."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget every sample."""
        self.features: list[NDArray[np.float32]] = []
        self.targets: list[NDArray[np.float32]] = []
        self.games: list[NDArray[np.int32]] = []
        self.actor: list[NDArray[np.bool_]] = []

    def add(self, features: Any, targets: Any, game: int, actor: Any) -> None:
        """Append one game's samples."""
        self.features.append(np.asarray(features, dtype=np.float32))
        self.targets.append(np.asarray(targets, dtype=np.float32))
        self.games.append(np.full(len(targets), game, dtype=np.int32))
        self.actor.append(np.asarray(actor, dtype=bool))

    def arrays(self) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.int32], NDArray[np.bool_]]:
        """Return (features [N, F], targets [N], game [N], actor [N]) of every sample so far."""
        if not self.targets:
            return np.zeros((0, 0), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int32), np.zeros(0, bool)
        return tuple(np.concatenate(part) for part in (self.features, self.targets, self.games, self.actor))  # type: ignore[return-value]

    def state(self) -> dict[str, Any]:
        """Return the samples as tensors for a checkpoint."""
        import torch

        f, t, g, a = self.arrays()
        return {
            "features": torch.from_numpy(f),
            "targets": torch.from_numpy(t),
            "games": torch.from_numpy(g),
            "actor": torch.from_numpy(a),
        }

    def load(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state`'s samples."""
        self.clear()
        if int(state["targets"].shape[0]):
            self.features = [state["features"].numpy()]
            self.targets = [state["targets"].numpy()]
            self.games = [state["games"].numpy()]
            self.actor = [state["actor"].numpy()]


def outcome_targets(game: Any) -> NDArray[np.float32]:
    """Return each player's result of a finished game (rule 9.5): the three sum to zero; truncation is 0."""
    from policies.domain_wheel.search import result_values

    return result_values(game).astype(np.float32)


def value_inputs(net: Any, obs: NDArray[np.int8]) -> NDArray[np.float32]:
    """Return what ``net.value_head`` reads for observations ``obs`` [B, D] (the frozen trunk's summary)."""
    import torch

    seen: list[Any] = []
    hook = net.value_head.register_forward_hook(lambda _m, args, _out: seen.append(args[0].detach()))
    try:
        with torch.inference_mode():
            net(torch.from_numpy(obs))
    finally:
        hook.remove()
    return seen[0].float().numpy().copy()


def section(config: Config) -> ValueFitConfig:
    """Return the config's ``value_fit`` section; ValueError if it has none (the run is then self-play)."""
    if config.value_fit is None:
        raise ValueError("value_fit: the value refit needs a value_fit section, got none")
    return config.value_fit


def seating(lineups: list[str], index: int) -> list[str]:
    """Return game ``index``'s seats: the line-ups in turn, each rotated through the three seatings."""
    seats = [s.strip() for s in lineups[index % len(lineups)].split(",")]
    shift = (index // len(lineups)) % len(seats)
    return seats[shift:] + seats[:shift]


def play_and_record(
    index: int, config: Config, options: Any, net: Any, seats: dict[int, Any]
) -> tuple[NDArray[np.int8], NDArray[np.float32], NDArray[np.bool_], int]:
    """Play game ``index``; return (every view's observation, its target, whether that viewer acted, turns)."""
    from dw_env.info import NUM_PLAYERS
    from policies import games
    from policies.domain_wheel.two_phase import TwoPhaseDriver
    from training.evaluation.arena import opening_moves

    adapter = games.get("domain_wheel")
    seed = config.run.seed * 1_000_003 + index
    specs = seating(section(config).lineups, index)
    players = []
    for s, spec in enumerate(specs):
        if spec == NETWORK_SEAT:
            players.append(seats[s])
            seats[s].reset(seed * NUM_PLAYERS + s)
        else:
            players.append(adapter.make_seat(spec, seed * NUM_PLAYERS + s))
    driver = TwoPhaseDriver(options)
    game = adapter.new_game(options)
    opening = opening_moves(options, config.run.seed, index, section(config).opening_plies, "domain_wheel")
    views: list[NDArray[np.int8]] = []
    viewers: list[int] = []
    acted: list[bool] = []
    turns = 0
    while not game.over:
        for q in range(NUM_PLAYERS):
            views.append(driver.encode(game, q)[0].copy())
            viewers.append(q)
            acted.append(q == game.turn)
        move = opening[turns] if turns < len(opening) else players[game.turn].act(game.copy(), game.turn)
        game.play(move)
        turns += 1
    targets = outcome_targets(game)[np.asarray(viewers, dtype=np.int64)]
    return np.stack(views), targets, np.asarray(acted), turns


def fit_head(head: Any, features: NDArray[np.float32], targets: NDArray[np.float32], config: Config) -> list[float]:
    """Fit ``head`` (the value head, in place) to ``targets`` by Adam on squared error; return each epoch's loss."""
    import torch

    v = section(config)
    generator = torch.Generator().manual_seed(config.run.seed)
    optimizer = torch.optim.Adam(head.parameters(), lr=v.learning_rate, weight_decay=v.weight_decay)
    x, y = torch.from_numpy(features), torch.from_numpy(targets)
    losses = []
    for _ in range(v.epochs):
        order = torch.randperm(len(y), generator=generator)
        total = 0.0
        for start in range(0, len(y), v.batch_size):
            rows = order[start : start + v.batch_size]
            loss = ((head(x[rows]).squeeze(1) - y[rows]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(rows)
        losses.append(total / max(len(y), 1))
    return losses


def squared_error(head: Any, features: NDArray[np.float32], targets: NDArray[np.float32]) -> float:
    """Return the mean squared error of ``head``'s values against ``targets`` (nan for no samples)."""
    import torch

    if not len(targets):
        return float("nan")
    with torch.no_grad():
        return float(((head(torch.from_numpy(features)).squeeze(1) - torch.from_numpy(targets)) ** 2).mean())


def refit(net: Any, samples: Samples, config: Config) -> dict[str, float]:
    """Fit ``net``'s value head to the samples of the training games; return the held-out errors before and after."""
    import torch

    features, targets, game_of, actor = samples.arrays()
    v = section(config)
    first_held = int(round(v.games * (1.0 - v.held_out)))
    train, held = game_of < first_held, game_of >= first_held
    before = {
        "held_mse_before": squared_error(net.value_head, features[held], targets[held]),
        "held_mse_actor_before": squared_error(net.value_head, features[held & actor], targets[held & actor]),
    }
    head = copy.deepcopy(net.value_head)
    if v.reinit:
        torch.manual_seed(config.run.seed)
        for layer in head:
            if hasattr(layer, "reset_parameters"):
                layer.reset_parameters()
    losses = fit_head(head, features[train], targets[train], config)
    net.value_head.load_state_dict(head.state_dict())
    return {
        **before,
        "held_mse_after": squared_error(net.value_head, features[held], targets[held]),
        "held_mse_actor_after": squared_error(net.value_head, features[held & actor], targets[held & actor]),
        "held_mse_zero": float((targets[held] ** 2).mean()) if held.any() else float("nan"),
        "train_mse": losses[-1] if losses else float("nan"),
        "train_samples": float(train.sum()),
        "held_samples": float(held.sum()),
    }


def train(
    config: Config,
    resume: Path | None = None,
    run_dir: Path | None = None,
    overwrite: bool = False,
    stop: Any = None,
) -> dict[str, Any]:
    """Run (or continue, from ``resume``) the value refit; return its folder, counters and held-out errors.

    ``stop`` (a :class:`training.distributed.interrupt.StopRequest`) ends the games at the next game's start: the
    games played so far are saved and ``--resume`` plays the rest, then fits (losses are then empty).
    """
    import torch

    from policies import checkpoint, games
    from policies.domain_wheel.network_policy import NetworkPolicy

    adapter = games.get("domain_wheel")
    v = section(config)
    if not config.network.init_from:
        raise ValueError("network.init_from: the Domain Wheel value refit needs the network to refit, got none")
    for lineup in v.lineups:
        if len(lineup.split(",")) != 3:
            raise ValueError(f"value_fit.lineups: a line-up seats three players, got {brief(lineup)}")
        for spec in (s.strip() for s in lineup.split(",")):
            if spec != NETWORK_SEAT and not adapter.is_registered(spec):
                raise ValueError(
                    f"value_fit.lineups: {brief(spec)} is not a seat; allowed: {NETWORK_SEAT}, "
                    f"{', '.join(adapter.registered_seats())}"
                )
    torch.set_num_threads(config.run.torch_threads)
    options = adapter.options_from_dict({k: x for k, x in config.game.items() if k != "name"})
    source = checkpoint.load(config.network.init_from, game_id="domain_wheel")
    checkpoint.check_playable(source, config.network.init_from)
    player = NetworkPolicy(source, greedy=False, label=NETWORK_SEAT)
    net = player.net
    seats = {s: NetworkPolicy(source, greedy=False, label=NETWORK_SEAT) for s in range(3)}
    for seat in seats.values():
        seat.net = net  # one network for every seat: the weights are frozen while collecting
    samples = Samples()
    counters: dict[str, Any] = {"iterations": 0, "moves": 0, "targets": 0, "games": 0, "samples": 0, "seconds": 0.0}
    if resume is not None:
        payload = checkpoint.load(resume, game_id="domain_wheel")
        state = payload.get("training")
        if not isinstance(state, dict) or state.get("algo") != FORMAT_TRAINING:
            raise ValueError(f"{resume}: not a value-refit training checkpoint (a policy, or another algorithm's)")
        samples.load(state["samples"])
        counters = dict(state["counters"])
        folder = Path(resume).parent
    else:
        folder = run_folder(config, run_dir, overwrite)
    start = time.perf_counter() - counters["seconds"]

    def save(report: dict[str, float] | None) -> None:
        counters["seconds"] = time.perf_counter() - start
        training = {"algo": FORMAT_TRAINING, "samples": samples.state(), "counters": dict(counters)}
        if report is not None:
            training["report"] = dict(report)
        save_run(folder, _payload(config, source, options, net, training))

    while counters["games"] < v.games:
        if stop is not None and stop.requested:
            save(None)  # every game played so far: --resume goes on with the next one
            return {"run_dir": folder, "counters": counters, "losses": {}}
        obs, targets, acted, turns = play_and_record(counters["games"], config, options, net, seats)
        samples.add(value_inputs(net, obs), targets, counters["games"], acted)
        counters["games"] += 1
        counters["moves"] += turns
        counters["targets"] += len(targets)
        if counters["games"] % config.run.checkpoint_every == 0 and counters["games"] < v.games:
            save(None)
    report = refit(net, samples, config)
    counters["iterations"] = v.epochs
    counters["samples"] = v.epochs * int(report["train_samples"])
    save(report)
    return {"run_dir": folder, "counters": counters, "losses": report}


def _payload(
    config: Config, source: dict[str, Any], options: Any, net: Any, training: dict[str, Any]
) -> dict[str, Any]:
    """Return the run's checkpoint: the source network's file with the refitted value head and this run's config."""
    from policies.games import get

    adapter = get("domain_wheel")
    return {
        **{k: source[k] for k in ("format", "format_version", "observation_version", "network")},
        "options": adapter.options_to_dict(options),
        "model": {k: t.detach().cpu().clone() for k, t in net.state_dict().items()},
        "config": config.to_dict(),
        "training": training,
    }
