"""Self-play PPO with action masks for Domain Wheel (and the other games), in the manner of CleanRL's ``ppo.py``:
read top to bottom.

1. **Setup**: config (training/ppo/config.py), seeds, device, the batched vector env, the network
   (policies/domain_wheel/network.py), Adam, the league of opponents (training/ppo/league.py); ``--resume`` restores all
   of it from a checkpoint (policies/checkpoint.py).
2. **Rollout**: ``env.num_steps`` steps of every game. In each game the learner holds one seat (rotated
   game by game) and one opponent kind the other two. A decision of the learner is one env action (phase 1:
   a piece, pass or end request; phase 2: the piece's destination), taken by the same network from the
   egocentric observation; the learner's rewards between two of its decisions belong to the first one.
3. **Advantages**: GAE over each game slot's sequence of learner decisions. The last decision of a slot whose
   outcome is not known yet (the game goes on) is not trained on: its value bootstraps the one before it,
   and it is carried over to the next rollout, where it is trained on once its outcome arrives.
4. **Update**: PPO's clipped objective over shuffled minibatches for ``update_epochs`` epochs; illegal
   actions are masked out of the policy (their logits set to a large negative number) in the ratio and the
   entropy alike.
5. **Logging** to TensorBoard in CleanRL's layout (``charts/``, ``losses/``, ``eval/``), league snapshots,
   atomic checkpoints, and at the end the learner's win rates as one seat against two copies of each
   evaluation opponent.

The game is ``config.game.name`` (Domain Wheel by default): training/ppo/game_setup.py builds its env, network and
scripted seats, the rest of this file is the same for every game (for a two-player game "the other two" are the
other one, and the seat rotates over two).

Everything stochastic draws from three seeded streams (Python's ``random``, one numpy Generator, torch's),
all saved in checkpoints, so a resumed run continues exactly as the uninterrupted run would have.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from dw_env.envs.observation import GF_K, GF_SCORE, LF_HOLD, LF_POINTS, ObservationLayout, describe_observation
from policies import checkpoint
from policies.allocator import keep_freed_memory
from policies.domain_wheel.network import (
    StepBatch,
    TrunkCache,
    chunk_rows,
    cpu_has_bf16_units,
    evaluate_actions,
    forward_grouped,
    map_here,
    policy_steps,
    same_turn_inputs,
    turn_fixed_bytes,
)
from policies.packed_input import TorchUnpacker
from training.distributed.interrupt import StopRequest
from training.ppo import overlap as overlap_pipeline
from training.ppo import rollout_actors, run_folder
from training.ppo.config import TrainConfig, to_yaml
from training.ppo.device_buffers import to_device
from training.ppo.evaluate import evaluate, format_results
from training.ppo.game_setup import (
    check_teachers,
    initial_weights,
    is_domain_wheel,
    make_env,
    num_players,
    rollout_capacity,
    scripted_seats,
    update_chunk_rows,
)
from training.ppo.game_setup import make_network as make_game_network
from training.ppo.imitation import warm_start
from training.ppo.league import LATEST, League, ScriptedSeats, game_result
from training.ppo.network_threads import NetworkThreads, thread_count
from training.ppo.resume import check_resumable, restore_training, save_checkpoint, saved_counters, training_state
from training.ppo.scripted_processes import ScriptedProcesses
from training.ppo.tables import TableSet, build_tables

# ---- 1. setup -----------------------------------------------------------------------------------------
#: a run of several tables seeds table i's env with run.seed + TABLE_SEEDS * i (table 0: run.seed, as one table)
TABLE_SEEDS = 7919


def pick_device(config: TrainConfig) -> torch.device:
    """Return the torch device: CUDA when asked or, with ``auto``, when one is available."""
    want = config.run.device
    if want == "cuda" and not torch.cuda.is_available():
        raise ValueError("run.device=cuda but torch sees no CUDA device; allowed here: auto, cpu")
    return torch.device("cuda" if want == "cuda" or (want == "auto" and torch.cuda.is_available()) else "cpu")


def use_amp(config: TrainConfig, device: torch.device) -> bool:
    """Return whether to run forward passes under bf16 autocast (CUDA only: CPUs gain nothing here)."""
    return config.run.amp == "on" or (config.run.amp == "auto" and device.type == "cuda")


def conv_dtype(config: TrainConfig, device: torch.device) -> torch.dtype | None:
    """Return the hex convolutions' dtype (``run.conv_precision``; None: the network's float32 or autocast's)."""
    precision = config.run.conv_precision
    if device.type != "cpu" or precision == "float32":
        return None
    return torch.bfloat16 if precision == "bfloat16" or cpu_has_bf16_units() else None


def make_network(config: TrainConfig, device: torch.device) -> nn.Module:
    """Return a fresh network of the config's game (training/ppo/game_setup.py) on ``device``."""
    net: nn.Module = make_game_network(config, device)
    if hasattr(net, "conv_dtype"):
        net.conv_dtype = conv_dtype(config, device)
    return net


@dataclass
class Table:
    """The games in progress: the vector env plus who sits where in each slot."""

    env: Any
    league: League
    scripted: ScriptedSeats
    obs: NDArray[Any]  # the env's observations: int8 [N, D], or packed uint8 [N, P] (env.packed_observations)
    masks: NDArray[np.int8]
    player: NDArray[np.int64]
    seat: NDArray[np.int64]  # the learner's seat in each slot
    opponent: list[str]  # the opponent id in each slot
    games: NDArray[np.int64]  # games started in each slot (drives the seat rotation)
    opening: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))  # random plies still to play
    opening_plies: int = 0  # env.opening_plies: the most random plies a game starts with

    def start_game(self, slot: int, rng: np.random.Generator) -> None:
        """Draw the opponent, seat the learner (rotating, or by league.seat_focus) and draw the opening for ``slot``."""
        rotation = (slot + self.games[slot]) % self.scripted.players
        self.games[slot] += 1
        self.opponent[slot] = self.league.sample(slot, rng)
        focus = self.league.config.seat_focus > 0  # the seats it loses in more often (training/ppo/league.py)
        self.seat[slot] = self.league.draw_seat(self.opponent[slot], rng) if focus else rotation
        if slot >= self.league.num_envs - self.league.num_scripted:
            self.scripted.start_game(slot, self.opponent[slot], int(rng.integers(2**31)))
        if self.opening_plies:
            self.opening[slot] = int(rng.integers(self.opening_plies + 1))


def env_threads(wanted: int) -> int:
    """Return the env's thread count: ``wanted``, or every core numba may use when 0."""
    import numba

    return min(wanted, numba.config.NUMBA_NUM_THREADS) if wanted > 0 else numba.config.NUMBA_NUM_THREADS


def seed_everything(seed: int) -> np.random.Generator:
    random.seed(seed)
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


# ---- 2. rollout ---------------------------------------------------------------------------------------
def conquest_potential(obs: NDArray[np.int8], layout: ObservationLayout | None, weight: float) -> NDArray[np.float32]:
    """Return the shaping potential of observations [B, D]: weight x sum of points x hold / K / total points.

    The hold counter (rule 6.4) of the observing player counts its turns towards a conquest, so the
    potential rises while a conquest is being held and falls back when it completes (the score then
    rises) or breaks. Used as ``gamma * potential(next) - potential(now)``, it changes no optimal policy.
    """
    if weight == 0 or layout is None:  # no shaping asked, or a game without conquests
        return np.zeros(len(obs), dtype=np.float32)
    _, lands, glob = layout.split(obs)
    points = lands[..., LF_POINTS].astype(np.float32)
    progress = lands[..., LF_HOLD].astype(np.float32) / np.maximum(glob[..., GF_K : GF_K + 1], 1)
    total = np.maximum(points.sum(-1), 1.0)
    return (weight * (points * progress).sum(-1) / total).astype(np.float32)


def score_potential(obs: NDArray[np.int8], layout: ObservationLayout | None, weight: float) -> NDArray[np.float32]:
    """Return the score's shaping potential of observations [B, D]: weight x (own - rivals' mean) / total points.

    The score is rule 9.5's (the points of the lands one owns, rule 8). As ``gamma * potential(next) -
    potential(now)`` with 0 after the game's end, every point gained pays at once and the whole margin is
    handed back when the game ends: unlike the env's ``score_shaping``, whose rewards add up to the final
    margin, a bigger margin is worth nothing, so a learner that already wins gains nothing by playing on.
    """
    if weight == 0 or layout is None:
        return np.zeros(len(obs), dtype=np.float32)
    _, lands, glob = layout.split(obs)
    total = np.maximum(lands[..., LF_POINTS].astype(np.float32).sum(-1), 1.0)
    pairs = glob[..., GF_SCORE : GF_SCORE + 6].astype(np.float32).reshape(len(obs), 3, 2)
    scores = pairs[..., 0] * 100 + pairs[..., 1]  # own, next, next but one (each a hi/lo pair)
    margin = scores[:, 0] - scores[:, 1:].mean(-1)
    return (weight * margin / total).astype(np.float32)


@dataclass
class Rollout:
    """The learner's decisions of one rollout, per slot in time order: arrays [T, N, ...]."""

    #: the per-decision arrays
    ARRAYS: ClassVar[tuple[str, ...]] = (
        "obs",
        "masks",
        "actions",
        "logprobs",
        "values",
        "rewards",
        "potentials",
        "dones",
    )

    obs: NDArray[Any]  # as the env gives them: int8, or packed uint8 (``unpack`` makes the network's input)
    masks: NDArray[np.int8]
    actions: NDArray[np.int64]
    logprobs: NDArray[np.float32]
    values: NDArray[np.float32]
    rewards: NDArray[np.float32]
    potentials: NDArray[np.float32]  # shaping potential of each decision's observation
    dones: NDArray[np.bool_]
    count: NDArray[np.int64]  # decisions stored per slot
    open: NDArray[np.bool_]  # the slot's last decision still awaits its outcome
    unpack: TorchUnpacker | None = None  # packed observations: what turns them into the network's input

    @classmethod
    def allocate(
        cls, steps: int, n: int, obs_size: int, mask_size: int, packing: Any = None, capacity: int | None = None
    ) -> Rollout:
        """Return an empty rollout for ``n`` games of ``steps`` steps; with the env's ``packing``, the
        observations are stored packed (``obs_size`` is then the packed size). ``capacity``: the learner
        decisions a slot may hold (default: half the steps, as the learner acts at most every other step)."""
        t = capacity or steps // 2 + 4  # the learner acts in at most half the steps (2 actions, then 1+ per rival)
        z = np.zeros
        return cls(
            z((t, n, obs_size), np.int8 if packing is None else np.uint8),
            z((t, n, mask_size), np.int8),
            z((t, n), np.int64),
            z((t, n), np.float32),
            z((t, n), np.float32),
            z((t, n), np.float32),
            z((t, n), np.float32),
            z((t, n), np.bool_),
            z(n, np.int64),
            z(n, np.bool_),
            None if packing is None else TorchUnpacker(packing),
        )

    @property
    def capacity(self) -> int:
        return self.obs.shape[0]

    def store(
        self, slots: NDArray[np.int64], obs: Any, masks: Any, actions: Any, logp: Any, values: Any, potential: Any
    ) -> None:
        t = self.count[slots]
        self.obs[t, slots], self.masks[t, slots], self.potentials[t, slots] = obs, masks, potential
        self.actions[t, slots], self.logprobs[t, slots], self.values[t, slots] = actions, logp, values
        self.rewards[t, slots], self.dones[t, slots] = 0.0, False
        self.count[slots] += 1
        self.open[slots] = True

    def trainable(self) -> NDArray[np.bool_]:
        """Return [T, N]: decisions whose outcome is known (all but each slot's open last one)."""
        known = self.count - self.open
        return np.arange(self.capacity)[:, None] < known[None, :]

    def carry_over(self) -> None:
        """Start the next rollout with each slot's open decision (or nothing) at index 0."""
        slots = np.flatnonzero(self.open)
        last = self.count[slots] - 1
        for name in self.ARRAYS:
            arr = getattr(self, name)
            arr[0, slots] = arr[last, slots]
        self.count[:] = 0
        self.count[slots] = 1


@dataclass
class Frozen:
    """Networks of the frozen past selves, built on demand from the league's snapshots."""

    make: Any
    nets: dict[str, nn.Module] = field(default_factory=dict)

    def get(self, sid: str, league: League) -> nn.Module:
        if sid not in self.nets:
            state = league.snapshot_state(sid)
            if state is None:
                raise KeyError(f"no weights for opponent {sid}")
            with torch.random.fork_rng(devices=[]):  # building a net must not move the run's RNG stream
                net = self.make()
            net.load_state_dict(state)
            self.nets[sid] = net.eval()
        known = league.known()
        for old in [s for s in self.nets if s not in known]:
            del self.nets[old]
        return self.nets[sid]


def collect_rollout(
    table: Table, rollout: Rollout, net: nn.Module, frozen: Frozen, num_steps: int, ctx: dict[str, Any]
) -> dict[str, Any]:
    """Play ``num_steps`` steps of every game; store the learner's decisions; return step and game counts."""
    device, amp, rng = ctx["device"], ctx["amp"], ctx["rng"]
    spread = ctx["threads"].map if "threads" in ctx else map_here  # chunks on run.network_threads threads
    # on several CPU threads the chunks run through TorchScript traces, which hold no GIL (the same numbers)
    traced = "threads" in ctx and ctx["threads"].threads > 1 and device.type == "cpu"
    n = table.obs.shape[0]
    rows = np.arange(n)
    caches: dict[str, TrunkCache] = {}  # a turn's second decision reuses its first's trunk (turn_trunk nets)

    def cache(key: str, model: nn.Module) -> TrunkCache | None:
        if not getattr(model, "turn_trunk", False):
            return None
        if key not in caches:
            caches[key] = TrunkCache(model, n)  # type: ignore[arg-type]
        return caches[key]

    first_scripted = table.league.num_envs - table.league.num_scripted
    finished = 0
    steps = 0
    while steps < num_steps and rollout.count.max() < rollout.capacity:
        opening = table.opening > 0  # a game's first plies may be random (env.opening_plies): no one's decision
        learner = (table.player == table.seat) & ~opening
        opp = np.array(table.opponent, dtype=object)
        actions = np.zeros(n, dtype=np.int64)
        if opening.any():
            actions[opening] = table.env.sample_actions()[opening]
            table.opening[opening] -= 1
        current = np.flatnonzero(learner | ((opp == LATEST) & (rows < first_scripted) & ~opening))
        others = ~learner & ~opening & (rows < first_scripted) & (opp != LATEST)
        seated = [(LATEST, net, current)] if len(current) else []
        for sid in sorted(set(opp[others])):  # a fixed order: each batch's actions draw from torch's RNG
            seated.append((sid, frozen.get(sid, table.league), np.flatnonzero(others & (opp == sid))))
        batches = [
            StepBatch(m, network_input(rollout, table.obs[sel]), table.masks[sel], cache(k, m), sel)
            for k, m, sel in seated
        ]
        scripted = np.flatnonzero(~learner & ~opening & (rows >= first_scripted))
        played: list[list[int]] = []

        def play_scripted(slots: NDArray[np.int64] = scripted, out: list[list[int]] = played) -> None:
            """The scripted AIs' moves this step (each AI draws from its own generator)."""
            out.append(table.scripted.actions(slots, [table.opponent[s] for s in slots], table.player[slots]))

        # on several threads the scripted AIs play on this one while the others start the network's passes
        chunk_map = ctx["threads"].beside(play_scripted) if "threads" in ctx else spread
        steps_taken = policy_steps(batches, device, amp, False, draw=True, chunk_map=chunk_map, traced=traced)
        if not played:  # no network seat this step
            play_scripted()
        actions[scripted] = played[0]
        for (key, _, sel), batch, (a, logp, v) in zip(seated, batches, steps_taken, strict=True):
            actions[sel] = a
            if key == LATEST:
                mine = learner[sel]
                slots = sel[mine]
                o = batch.obs[mine]  # the network's input (unpacked)
                phi = conquest_potential(o, ctx["layout"], ctx["conquest_shaping"])
                phi += score_potential(o, ctx["layout"], ctx.get("score_potential", 0.0))
                rollout.store(slots, table.obs[slots], table.masks[slots], a[mine], logp[mine], v[mine], phi)
        table.obs, table.masks, player, rewards, terminated, truncated, info = table.env.step(actions)
        table.player = np.asarray(player, dtype=np.int64)
        steps += 1
        if opening.any() and table.scripted.two_phase:  # Domain Wheel: a move is a piece, then its destination
            # an opening ends with a whole move: one whose draw ended after a piece's env action (phase 2)
            # draws its destination too, so every seat, the scripted AIs' included, takes over at a move's start
            table.opening[opening & (table.opening == 0) & (table.env.phase() == 2)] = 1
        got = rewards[rows, table.seat]
        open_slots = np.flatnonzero(rollout.open)
        rollout.rewards[rollout.count[open_slots] - 1, open_slots] += got[open_slots]
        for slot in np.flatnonzero(terminated | truncated):
            if rollout.open[slot]:
                rollout.dones[rollout.count[slot] - 1, slot] = True
                rollout.open[slot] = False
            credit, order = game_result(info["winners"][slot], info["final_scores"][slot], int(table.seat[slot]))
            table.league.results.add(table.opponent[slot], credit, order, int(table.seat[slot]))
            table.start_game(int(slot), rng)
            finished += 1
    return {"steps": steps * n, "games": finished}


def network_input(rollout: Rollout, obs: NDArray[Any]) -> NDArray[np.int8]:
    """Return the int8 observations the network reads of the env's observations ``obs`` (unpacked if packed).

    The rollout's forward pass takes numpy rows (its trunk cache compares them on the host), so packed rows
    are unpacked here, by the same torch unpacker as the update's on the CPU.
    """
    if rollout.unpack is None:
        return obs
    return rollout.unpack(torch.from_numpy(obs)).numpy()


# ---- 3. advantages ------------------------------------------------------------------------------------
def compute_advantages(rollout: Rollout, gamma: float, lam: float) -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
    """Return (advantages [T, N], trainable [T, N]) by GAE over each slot's decisions.

    The reward of a decision is the env's reward plus the shaping term ``gamma * potential(next decision) -
    potential(this one)`` (0 potential after the game's end).
    """
    valid = rollout.trainable()
    adv = np.zeros_like(rollout.values)
    last = np.zeros(rollout.values.shape[1], dtype=np.float32)
    for t in reversed(range(rollout.capacity)):
        following = t + 1 < rollout.capacity
        next_value = rollout.values[t + 1] if following else 0.0
        next_potential = rollout.potentials[t + 1] if following else 0.0
        nonterminal = 1.0 - rollout.dones[t]
        shaped = rollout.rewards[t] + gamma * next_potential * nonterminal - rollout.potentials[t]
        delta = shaped + gamma * next_value * nonterminal - rollout.values[t]
        last = np.where(valid[t], delta + gamma * lam * nonterminal * last, 0.0).astype(np.float32)
        adv[t] = last
    return adv, valid


# ---- 4. update ----------------------------------------------------------------------------------------
def turn_groups(rollout: Rollout, valid: NDArray[np.bool_], net: nn.Module) -> NDArray[np.int64]:
    """Return each trainable decision's group (in ``rollout.X[valid]`` order): decisions that share a trunk.

    A ``turn_trunk`` network's trunk reads only the turn-fixed inputs (policies/domain_wheel/network.py), so a slot's
    consecutive decisions of one game whose turn-fixed inputs are equal byte for byte (the two decisions of a
    turn, rule 3.2) have the same trunk: one group, computed once in the update. Any other network: one
    decision per group. Groups are numbered by their first decision.
    """
    flat = np.cumsum(valid.reshape(-1)).reshape(valid.shape) - 1  # index of (t, slot) among the valid ones
    group = np.where(valid, flat, -1)
    if not getattr(net, "turn_trunk", False):
        return group[valid]
    num_cells = net.geometry.num_cells  # type: ignore[attr-defined]
    same_turn = same_turn_inputs
    if rollout.unpack is not None:  # packed rows compare under the packed form of the turn-fixed byte mask
        packing = rollout.unpack.packing
        keep = packing.byte_mask(turn_fixed_bytes(num_cells, packing.size))

        def same_turn(a: NDArray[np.uint8], b: NDArray[np.uint8], _: int) -> NDArray[np.bool_]:
            return np.asarray(~(np.bitwise_xor(a, b) & keep).any(1))

    for t in range(1, rollout.capacity):
        slots = np.flatnonzero(valid[t] & valid[t - 1] & ~rollout.dones[t - 1])
        if len(slots) == 0:
            continue
        same = same_turn(rollout.obs[t, slots], rollout.obs[t - 1, slots], num_cells)
        group[t, slots[same]] = group[t - 1, slots[same]]
    return group[valid]


def group_cuts(starts: NDArray[np.bool_], step: int, count: int) -> list[int]:
    """Return ``count + 1`` cut points near ``0, step, 2 * step, ...`` moved to the next group start.

    ``starts[i]``: position ``i`` of an ordering begins a group (every group contiguous). The last cut is at
    most the ordering's length; with one decision per group the cuts are exactly the multiples of ``step``.
    """
    return cuts_at_groups(starts, np.arange(count + 1) * step)


def cuts_at_groups(starts: NDArray[np.bool_], targets: NDArray[np.int64]) -> list[int]:
    """Return each of the positions ``targets`` moved to the next group start (the ordering's length past the
    last group's start): :func:`group_cuts`' cut points."""
    begin = np.flatnonzero(starts)
    ends = np.searchsorted(begin, targets)
    return [int(begin[e]) if e < len(begin) else len(starts) for e in ends]


def balanced_cuts(starts: NDArray[np.bool_], limit: int, threads: int) -> list[int]:
    """Return the cut points of a minibatch's chunks for ``threads`` threads: a multiple of ``threads`` chunks
    whose sizes differ by one row at most and none exceeds ``limit`` (with one decision per group; a group is
    never split, so a cut moves to the next group start, :func:`group_cuts`).

    The threads take the chunks round-robin (training/ppo/network_threads.py), so equal chunks in a multiple of
    their number keep every thread busy for the whole pass. With a ``turn_trunk`` network's chunks of up to
    984 small-map rows, a minibatch of 516 decisions is two chunks, one a thread, not one chunk that leaves the
    other thread idle; with its 112 standard-map rows, 512 decisions are six chunks, 256 rows a thread, not
    four of 112 and one of 64 (288 rows on one thread, 224 on the other).
    """
    n, threads = len(starts), max(1, threads)
    if n == 0:
        return [0]
    count = -(-n // max(1, limit))
    count = -(-count // threads) * threads
    return cuts_at_groups(starts, np.arange(count + 1) * n // count)


def grouped_order(
    group: NDArray[np.int64], device: torch.device, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, NDArray[np.bool_]]:
    """Return (a random order of the decisions with each group's decisions together, where groups start).

    The groups are shuffled with ``torch.randperm`` (with one decision per group: exactly one randperm over
    the decisions, as an ungrouped update), from ``generator`` (None: torch's global one).
    """
    ids, gid = np.unique(group, return_inverse=True)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[torch.randperm(len(ids), generator=generator).numpy()] = np.arange(len(ids))
    order = np.lexsort((np.arange(len(group)), rank[gid]))
    ranks = rank[gid][order]
    starts = np.ones(len(order), dtype=np.bool_)
    starts[1:] = ranks[1:] != ranks[:-1]
    return torch.from_numpy(order).to(device), starts


@dataclass
class ChunkLoss:
    """The clipped-PPO loss of one minibatch, chunk by chunk: ``loss(model, s, e)`` runs the forward and
    backward pass of the minibatch's decisions ``s:e`` and returns their statistics (scalar tensors).

    Every loss term is a sum over the minibatch divided by its size ``n``, so the chunks' gradients add up to
    the minibatch's. ``batch`` holds the update's tensors (:func:`ppo_update`); an update process receives it
    once per update and the other fields with each minibatch (training/ppo/update_processes.py).
    """

    batch: dict[str, torch.Tensor]
    idx: torch.Tensor  # the minibatch's decisions: rows of the batch
    adv: torch.Tensor  # their advantages (normalized if ppo.norm_adv)
    starts: NDArray[np.bool_]  # where the trunk groups (turn_groups) begin in idx
    n: int
    clip_coef: float
    clip_vloss: bool
    ent_coef: float
    vf_coef: float
    amp: bool
    device_type: str
    unpack: TorchUnpacker | None = None  # packed observations: unpacked here, on the batch's device

    def __call__(self, model: nn.Module, s: int, e: int) -> dict[str, torch.Tensor]:
        b, n, clip = self.batch, self.n, self.clip_coef
        j, a = self.idx[s:e], self.adv[s:e]
        obs = b["obs"][b["obs_row"][j]]
        if self.unpack is not None:
            obs = self.unpack(obs)
        with torch.autocast(self.device_type, dtype=torch.bfloat16, enabled=self.amp):
            logits, value = forward_grouped(model, obs, self.starts[s:e])
        logp, entropy = evaluate_actions(logits, b["masks"][j], b["actions"][j])
        logratio = logp - b["logp"][j]
        ratio = logratio.exp()
        pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - clip, 1 + clip)).sum() / n
        if self.clip_vloss:
            clipped = b["values"][j] + (value - b["values"][j]).clamp(-clip, clip)
            v_loss = 0.5 * torch.max((value - b["returns"][j]) ** 2, (clipped - b["returns"][j]) ** 2).sum() / n
        else:
            v_loss = 0.5 * ((value - b["returns"][j]) ** 2).sum() / n
        ent = entropy.sum() / n
        (pg_loss - self.ent_coef * ent + self.vf_coef * v_loss).backward()
        with torch.no_grad():
            return {
                "old_kl": (-logratio).sum() / n,
                "kl": ((ratio - 1) - logratio).sum() / n,
                "clip": ((ratio - 1.0).abs() > clip).float().sum() / n,
                "pg": pg_loss.detach(),
                "v": v_loss.detach(),
                "ent": ent.detach(),
            }

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the minibatch's rows by value (a few KB; not through shared memory as tensors go)."""
        return {**self.__dict__, "idx": self.idx.numpy(), "adv": self.adv.numpy()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, idx=torch.from_numpy(state["idx"]), adv=torch.from_numpy(state["adv"]))


def minibatch_step(
    net: nn.Module,
    optimizer: torch.optim.Optimizer,
    b: dict[str, torch.Tensor],
    idx: torch.Tensor,
    p: Any,
    ctx: dict[str, Any],
) -> dict[str, float]:
    """Take one clipped-PPO gradient step on the decisions ``idx``; return the minibatch's statistics.

    The forward and backward passes run in cache-sized chunks (``policies.domain_wheel.network.chunk_rows``) of a
    :class:`ChunkLoss`, on several threads or processes with ``run.network_threads``
    (training/ppo/network_threads.py).
    """
    device, n = ctx["device"], len(idx)
    starts = ctx["starts"]  # where the trunk groups (turn_groups) begin in idx
    a_all = b["adv"][idx]
    if p.norm_adv and n > 1:
        a_all = (a_all - a_all.mean()) / (a_all.std() + 1e-8)
    loss = ChunkLoss(
        b,
        idx,
        a_all,
        starts,
        n,
        p.clip_coef,
        p.clip_vloss,
        p.ent_coef,
        p.vf_coef,
        ctx["amp"],
        device.type,
        ctx.get("unpack"),
    )
    optimizer.zero_grad(set_to_none=True)
    cuts = balanced_cuts(starts, ctx["chunk_rows"], ctx["threads"].threads)
    chunks = [(s, e) for s, e in zip(cuts[:-1], cuts[1:], strict=True) if s < e]
    sums = ctx["threads"].run(chunks, loss)
    nn.utils.clip_grad_norm_(net.parameters(), p.max_grad_norm)
    optimizer.step()
    return {k: float(sums.get(k, 0.0)) for k in ("pg", "v", "ent", "kl", "old_kl", "clip")}


def ppo_update(
    net: nn.Module, optimizer: torch.optim.Optimizer, rollout: Rollout, config: TrainConfig, ctx: dict[str, Any]
) -> dict[str, float]:
    """Run PPO's epochs over the rollout's trainable decisions; return the loss statistics."""
    p, device = config.ppo, ctx["device"]
    adv, valid = compute_advantages(rollout, p.gamma, p.gae_lambda)
    b = {  # on CUDA pinned and non-blocking (training/ppo/device_buffers.py); as before on a CPU
        name: to_device(getattr(rollout, field)[valid], device)
        for name, field in (("masks", "masks"), ("actions", "actions"), ("logp", "logprobs"))
    }
    # the observations (about 70 MB on the standard map, 15 MB packed): a chunk reads its rows from the rollout
    # itself on a CPU (b["obs"][b["obs_row"][j]]); a GPU gets the trainable ones copied over once, packed if the
    # env packs them, and each chunk unpacks its rows there (ChunkLoss.unpack)
    flat = torch.from_numpy(rollout.obs.reshape(-1, rollout.obs.shape[-1]))
    rows = torch.from_numpy(np.flatnonzero(valid.reshape(-1)))
    if device.type == "cpu":
        b["obs"], b["obs_row"] = flat, rows
    else:
        b["obs"], b["obs_row"] = to_device(flat[rows], device), torch.arange(len(rows), device=device)
    b["values"] = to_device(rollout.values[valid], device)
    b["adv"] = to_device(adv[valid], device)
    b["returns"] = b["adv"] + b["values"]
    size = b["obs_row"].shape[0]
    mb = max(1, size // p.num_minibatches)
    stats: dict[str, list[float]] = {k: [] for k in ("pg", "v", "ent", "kl", "old_kl", "clip")}
    if size < 2:  # no outcome known yet (tiny rollouts): nothing to learn from
        return {**{k: 0.0 for k in stats}, "explained_variance": float("nan"), "decisions": float(size)}
    group = turn_groups(rollout, valid, net)
    # a shared trunk runs on about half the decisions, and the backward pass gains from larger chunks: 4x
    # (0.25 against 0.30 ms a decision on the standard map, forward and backward on one core, measured with
    # chunks of 14 standard-map rows; they are 28 now, and turn_trunk on both cores kept its speed, 2,354 -> 2,391)
    ctx = {**ctx, "chunk_rows": chunk_rows(net, device) * (4 if getattr(net, "turn_trunk", False) else 1)}
    ctx["chunk_rows"] = update_chunk_rows(net, device, ctx["chunk_rows"])
    ctx["unpack"] = rollout.unpack
    if ctx.get("threads") is None:
        ctx["threads"] = NetworkThreads(net, 1)
    for _ in range(p.update_epochs):
        order, starts = grouped_order(group, device, ctx.get("update_rng"))  # run.overlap: its own stream
        cuts = group_cuts(starts, mb, size // mb)
        for start, end in zip(cuts[:-1], cuts[1:], strict=True):
            idx, mb_ctx = order[start:end], {**ctx, "starts": starts[start:end]}
            for k, v in minibatch_step(net, optimizer, b, idx, p, mb_ctx).items():
                stats[k].append(v)
        if p.target_kl > 0 and np.mean(stats["kl"][-(size // mb) :]) > p.target_kl:
            break
    y, pred = b["returns"].cpu().numpy(), b["values"].cpu().numpy()
    var_y = float(np.var(y))
    out = {k: float(np.mean(v)) if v else 0.0 for k, v in stats.items()}
    out["explained_variance"] = float("nan") if var_y == 0 else 1.0 - float(np.var(y - pred)) / var_y
    out["decisions"] = float(size)
    return out


# ---- 5. logging, checkpoints --------------------------------------------------------------------------
def log_update(
    writer: Any, step: int, stats: dict[str, float], league: League, sps: float, lr: float, table: str = ""
) -> None:
    """Write one update's scalars in CleanRL's layout (several tables: the win rates under the ``table``'s name)."""
    writer.add_scalar("charts/learning_rate", lr, step)
    writer.add_scalar("charts/SPS", sps, step)
    writer.add_scalar("losses/policy_loss", stats["pg"], step)
    writer.add_scalar("losses/value_loss", stats["v"], step)
    writer.add_scalar("losses/entropy", stats["ent"], step)
    writer.add_scalar("losses/approx_kl", stats["kl"], step)
    writer.add_scalar("losses/old_approx_kl", stats["old_kl"], step)
    writer.add_scalar("losses/clipfrac", stats["clip"], step)
    writer.add_scalar("losses/explained_variance", stats["explained_variance"], step)
    rates = league.results.win_rates()
    past = [(r, k) for opp, (r, k) in rates.items() if opp.startswith("past-")]
    at = f"{table}/" if table else ""
    for opp, (rate, _) in rates.items():
        if not opp.startswith("past-"):
            writer.add_scalar(f"charts/win_rate/{at}{opp}", rate, step)
    if past:
        games = sum(k for _, k in past)
        writer.add_scalar(f"charts/win_rate/{at}past", sum(r * k for r, k in past) / games, step)
    for kind in league.results.seats:
        for seat, (rate, games) in enumerate(league.results.seat_rates(kind)):
            if games:
                writer.add_scalar(f"charts/seat_win_rate/{at}{kind}/{seat}", rate, step)


def log_ratings(writer: Any, step: int, league: League, table: str = "") -> dict[str, float]:
    ratings = league.ratings()
    at = f"{table}/" if table else ""
    for name, elo in ratings.items():
        if name == "learner" or not name.startswith("past-"):
            writer.add_scalar(f"charts/rating/{at}{name}", elo, step)
    return ratings


def log_every_rating(s: Session) -> dict[str, float]:
    """Write the league's ratings, every table's under its name; return the (first) table's."""
    if s.tables is None:
        return log_ratings(s.writer, s.counters["env_steps"], s.table.league)
    named = zip(s.tables.names, s.tables.tables, strict=True)
    return [log_ratings(s.writer, s.counters["env_steps"], table.league, name) for name, table in named][0]


# ---- the run ------------------------------------------------------------------------------------------
@dataclass
class Session:
    """Everything one ``dw train`` session holds, from setup to the final evaluation."""

    config: TrainConfig
    net: nn.Module
    optimizer: torch.optim.Optimizer
    table: Table
    rollout: Rollout
    frozen: Frozen
    writer: Any
    run_dir: Path
    ctx: dict[str, Any]
    counters: dict[str, Any]
    deadline: float  # time.monotonic() at which run.max_minutes is over
    history: list[dict[str, float]] = field(default_factory=list)  # this session's updates
    overlap: overlap_pipeline.Pipeline | None = None  # run.overlap (training/ppo/overlap.py)
    tables: TableSet | None = None  # a run of several tables: all of them (``table`` is the current one)

    def running(self) -> bool:
        c, run = self.counters, self.config.run
        return (
            c["env_steps"] < run.total_env_steps
            and time.monotonic() < self.deadline
            and (run.stop_after_updates == 0 or c["updates"] < run.stop_after_updates)
        )

    def opponents(self) -> set[str]:
        """Return the opponents of the running games, every table's (the retired snapshots still needed)."""
        return set(self.table.opponent) if self.tables is None else self.tables.in_use()

    def save(self) -> None:
        """Write checkpoint.pt (atomically) with everything ``--resume`` needs."""
        if self.tables is None:
            state = training_state(self.table, self.rollout, self.optimizer, self.ctx["rng"])
        else:  # the first table as a one-table run's, the others under "tables"
            first, roll = self.tables.tables[0], self.tables.rollouts[0]
            state = training_state(first, roll, self.optimizer, self.ctx["rng"], self.tables.more())
        if self.overlap is not None:  # the rollout collected and not trained on yet travels whole
            self.overlap.add_state(state, self.rollout)
        save_checkpoint(self.run_dir / "checkpoint.pt", self.net, self.config, self.counters, state)


@dataclass
class LearningRate:
    """ppo.anneal_lr's linear decay from ppo.learning_rate to 0 at the run's end (ppo.anneal_until).

    The end is ``run.total_env_steps``; with ``anneal_until: first_limit`` and a deadline (run.max_minutes)
    it is the step count this session's pace reaches at the deadline when that comes first, projected only
    once a tenth of the session's PPO time has passed (the first updates' warm-up would understate the pace).
    Where the steps end the run first the projection stays above them and the schedule is the steps' own.
    """

    MEASURE_AFTER: ClassVar[float] = 0.1  # the share of the PPO time before the pace is trusted

    start_steps: int  # env steps when this session's PPO began (a resumed run's count)
    started: float  # time.monotonic() then
    deadline: float  # time.monotonic() at which run.max_minutes is over (inf: no limit)

    def end_steps(self, config: TrainConfig, steps: int, now: float) -> float:
        """The step count at which the decay reaches 0, as known at ``now``."""
        total = float(config.run.total_env_steps)
        if config.ppo.anneal_until == "steps" or self.deadline == float("inf"):
            return total
        elapsed = now - self.started
        if elapsed < self.MEASURE_AFTER * (self.deadline - self.started) or elapsed <= 0 or steps <= self.start_steps:
            return total
        pace = (steps - self.start_steps) / elapsed
        return min(total, steps + pace * max(0.0, self.deadline - now))

    def at(self, config: TrainConfig, steps: int, now: float) -> float:
        """The learning rate of the update that starts at ``steps`` env steps and time ``now``."""
        if not config.ppo.anneal_lr:
            return config.ppo.learning_rate
        return config.ppo.learning_rate * max(0.0, 1.0 - steps / self.end_steps(config, steps, now))


def new_table(
    config: TrainConfig, env: Any, rng: np.random.Generator, start: dict[str, Any] | None = None
) -> tuple[Table, Rollout]:
    """Return the games of ``env`` (each slot's first game started) and their empty rollout, as ``config`` says.

    ``start``: the weights the run started from, for a league that plays them (league.weights.start)."""
    n = config.env.num_envs
    league = League(config.league, n, num_players(config.game_id, config.options))
    if start is not None:
        league.set_start(start)  # before the first games are drawn, so that they may seat it
    obs, masks, player = env.reset()
    seats, games = np.zeros(n, np.int64), np.zeros(n, np.int64)
    if config.run.scripted_workers and league.num_scripted:
        scripted: ScriptedSeats = ScriptedProcesses(env, config.run.scripted_workers)
    else:
        scripted = scripted_seats(config.game_id, env)
    table = Table(env, league, scripted, obs, masks, player.astype(np.int64), seats, [LATEST] * n, games)
    table.opening, table.opening_plies = np.zeros(n, np.int64), config.env.opening_plies
    for slot in range(n):
        table.start_game(slot, rng)
    rollout = Rollout.allocate(
        config.env.num_steps, n, obs.shape[1], masks.shape[1], getattr(env, "packing", None), rollout_capacity(config)
    )
    return table, rollout


def start_session(
    config: TrainConfig, resume: str | Path | None, run_dir: Path | None, overwrite: bool = False
) -> Session:
    """Set up env, network, optimizer, league and logs; restore a checkpoint or warm-start the network.

    The run folder is checked first (training/ppo/run_folder.py: another run in it is refused unless
    ``overwrite``) and nothing is written until the checkpoint to resume has been read and checked whole.
    """
    import os

    from torch.utils.tensorboard import SummaryWriter

    resume = None if resume is None else Path(resume)
    if resume is not None and resume.is_dir():
        resume = resume / "checkpoint.pt"
    whole, config = config, config.table_configs()[0][1]  # several tables: the first is built here (tables.py)
    run = config.run
    initial = initial_weights(config) if resume is None else None  # network.init_from, checked before any work
    clones = resume is None and any(c.imitation.teacher != "none" for _, c in whole.table_configs())
    if clones:
        check_teachers(whole)  # a network teacher's file too
    folder = run_folder.choose(run.out_dir, run.name, run.seed, run_dir, resume, overwrite)
    minutes = config.run.max_minutes  # counted from here: warm start and PPO together
    deadline = time.monotonic() + minutes * 60 if minutes > 0 else float("inf")
    device = pick_device(config)
    torch.set_num_threads(config.run.torch_threads or os.cpu_count() or 1)
    options, n = config.options, config.env.num_envs
    layout = describe_observation(options) if is_domain_wheel(config) else None
    rng = seed_everything(config.run.seed)
    threads = env_threads(config.run.env_threads)
    env = make_env(config, n, threads, config.run.seed)
    net = make_network(config, device)  # on the first table's map
    if initial is not None:  # a curriculum's next stage: the previous stage's weights on this map
        checkpoint.load_weights(net, initial, str(config.network.init_from))
        steps = initial.get("counters", {}).get("env_steps", "?")
        print(f"initial weights: {config.network.init_from} (trained {steps} env steps)")
    optimizer = torch.optim.Adam(net.parameters(), lr=config.ppo.learning_rate, eps=1e-5)
    plays_start = any(c.league.plays_start() for _, c in whole.table_configs())
    start = net.state_dict() if initial is not None and plays_start else None  # frozen (a copy) by the league
    table, rollout = new_table(config, env, rng, start)
    counters: dict[str, Any] = {"env_steps": 0, "updates": 0, "games": 0, "decisions": 0, "seconds": 0.0}
    pending: dict[str, Any] | None = None  # an overlapped run's rollout not trained on yet
    frozen = Frozen(lambda: make_network(config, device))
    several = None
    if whole.tables is not None:  # the other tables, each on its own env seed (training/ppo/tables.py)
        several = build_tables(
            whole,
            (table, rollout, frozen),
            net,
            lambda cfg, i: new_table(
                cfg, make_env(cfg, cfg.env.num_envs, threads, run.seed + TABLE_SEEDS * i), rng, start
            ),
            lambda cfg: Frozen(lambda: make_network(cfg, device)),
        )
    if resume is not None:
        payload = checkpoint.load(resume, whole.options, game_id=config.game_id)
        pending = overlap_pipeline.take_state(payload, config.run.overlap, rollout, resume)
        state = check_resumable(payload, resume)
        counters = saved_counters(payload, resume)
        checkpoint.load_weights(net, payload, resume)
        more = () if several is None else several.more()
        restore_training(state, table, rollout, optimizer, rng, net, resume, more)
    run_dir = folder
    run_folder.prepare(run_dir, overwrite, resuming_here=resume is not None and run_dir == resume.parent)
    (run_dir / "config.yaml").write_text(to_yaml(whole))
    writer = SummaryWriter(str(run_dir), purge_step=counters["env_steps"] if resume else None)
    writer.add_text("config", "```yaml\n" + to_yaml(whole) + "```", counters["env_steps"])
    passes = NetworkThreads(net, thread_count(config.run.network_threads), processes=config.run.update_processes)
    if several is not None:
        several.passes[0] = passes  # the first table's map: the network's now
    if clones:
        try:
            warm_start(net, config, writer, device, passes, several)  # on the update's threads (or processes) too
        except BaseException:
            for pool in [passes] if several is None else several.passes.values():
                pool.close()  # no worker thread or process outlives a failed start (every map's, with tables)
            raise
    amp = use_amp(config, device)
    shaping = config.env.conquest_shaping if layout is not None else 0.0
    ctx = {"device": device, "amp": amp, "rng": rng, "layout": layout, "conquest_shaping": shaping}
    ctx["score_potential"] = config.env.score_potential if layout is not None else 0.0
    ctx["threads"] = passes
    s = Session(whole, net, optimizer, table, rollout, frozen, writer, run_dir, ctx, counters, deadline)
    s.tables = several
    if config.run.overlap:
        s.overlap = overlap_pipeline.Pipeline.build(net, rollout, config.run.seed, collect_rollout)
        if pending is not None:
            s.overlap.restore(pending, rollout)
    return s


def record_update(
    s: Session, got: dict[str, Any], stats: dict[str, float], lr: float, times: tuple[float, float]
) -> None:
    """Count, log, snapshot and checkpoint after an update (``times``: rollout and total seconds)."""
    c, league = s.counters, s.table.league
    c["env_steps"] += got["steps"]
    c["games"] += got["games"]
    c["decisions"] += int(stats["decisions"])
    c["updates"] += 1
    c["seconds"] += times[1]
    s.history.append({"steps": got["steps"], "decisions": stats["decisions"], "seconds": times[1], "rollout": times[0]})
    name = "" if s.tables is None else s.tables.names[s.tables.on_map]
    log_update(s.writer, c["env_steps"], stats, league, got["steps"] / times[1], lr, name)
    if c["updates"] % s.config.league.snapshot_every == 0:
        league.snapshot(c["updates"], s.net.state_dict())  # a run of several tables: their shared snapshots
    if c["updates"] % 10 == 0:
        log_every_rating(s)
    if c["updates"] % s.config.run.checkpoint_every == 0:
        s.save()


def train(
    config: TrainConfig, resume: str | Path | None = None, run_dir: Path | None = None, overwrite: bool = False
) -> dict[str, Any]:
    """Run PPO self-play as configured (or continue a checkpoint); return the counters and the evaluation.

    SIGINT or SIGTERM stops the run after the current update (training/distributed/interrupt.py): the checkpoint and
    the policy are written, the final evaluation is skipped and the result's ``interrupted`` names the
    signal (its ``exit_code`` is 128 + the signal's number).
    """
    keep_freed_memory()  # the passes' activations reuse freed memory instead of page-faulting it in again
    with StopRequest() as stop:
        return _train(config, resume, run_dir, overwrite, stop)


def _train(
    config: TrainConfig, resume: str | Path | None, run_dir: Path | None, overwrite: bool, stop: StopRequest
) -> dict[str, Any]:
    from tqdm import tqdm

    # 1. setup
    s = start_session(config, resume, run_dir, overwrite)
    remote = None  # rollouts on a Ray actor (training/ppo/rollout_actors.py); the update stays here
    if config.run.rollout_workers:
        parts = rollout_actors.Parts(Table, Rollout, Frozen, collect_rollout, make_network)
        remote = rollout_actors.RemoteRollouts(config, parts)
    total = config.run.total_env_steps
    bar = tqdm(
        total=total,
        initial=min(total, s.counters["env_steps"]),
        unit="step",
        unit_scale=True,
        disable=not config.run.progress,
        dynamic_ncols=True,
    )
    schedule = LearningRate(s.counters["env_steps"], time.monotonic(), s.deadline)
    while s.running() and not stop.requested:
        started = time.perf_counter()
        if s.tables is not None:  # this update's table, the learner pointed at its map (training/ppo/tables.py)
            s.tables.select(s)
        lr = schedule.at(config, s.counters["env_steps"], time.monotonic())
        for group in s.optimizer.param_groups:
            group["lr"] = lr
        if s.overlap is not None:  # run.overlap: the next rollout is collected during this update
            got, stats, waited = s.overlap.step(s, ppo_update)
            s.table.league.prune(s.opponents())
            record_update(s, got, stats, lr, (waited, time.perf_counter() - started))
            bar.update(got["steps"])
            continue
        # 2. rollout
        s.net.eval()
        if remote is None:
            got = collect_rollout(s.table, s.rollout, s.net, s.frozen, config.env.num_steps, s.ctx)
        else:
            got = remote.collect(s)
        rollout_seconds = time.perf_counter() - started
        # 3-4. advantages and update
        s.net.train()
        stats = ppo_update(s.net, s.optimizer, s.rollout, config, s.ctx)
        s.rollout.carry_over()
        s.table.league.prune(s.opponents())
        # 5. logging, snapshots, checkpoints
        record_update(s, got, stats, lr, (rollout_seconds, time.perf_counter() - started))
        rates = s.table.league.results.win_rates()
        bar.set_postfix_str(" ".join(f"{k[:4]}={r:.0%}" for k, (r, _) in sorted(rates.items()) if "-" not in k))
        bar.update(got["steps"])
    bar.close()
    s.ctx["threads"].close()
    if remote is not None:
        remote.close()
    s.save()
    s.table.scripted.close()  # after the checkpoint, which reads their states
    if s.tables is not None:
        s.tables.close()
    save_checkpoint(s.run_dir / "policy.pt", s.net, config, s.counters, None)
    stop.abort_on_signal()  # checkpoint and policy are written: Ctrl-C in the evaluation just ends it
    ratings = log_every_rating(s)
    results = [] if stop.requested else final_evaluation(s)
    s.writer.close()
    return {
        "history": s.history,
        "run_dir": s.run_dir,
        "counters": s.counters,
        "results": results,
        "ratings": ratings,
        "table": format_results(results),
        "interrupted": stop.name,
        "exit_code": stop.exit_code,
    }


def final_evaluation(s: Session) -> list[Any]:
    """6. Play the learner as one seat against two copies of each evaluation opponent, every seating."""
    ev = s.config.eval
    if ev.final_games == 0:
        return []
    s.net.eval()
    threads = env_threads(s.config.run.env_threads)
    named = [("", s.config)] if s.tables is None else list(zip(s.tables.names, s.tables.configs, strict=True))
    results = []
    for i, (name, config) in enumerate(named):  # a run of several tables: each table's games, on its map
        if s.tables is not None:
            s.tables.point(s.net, i)
        for opp in ev.final_opponents:
            r = evaluate(
                s.net,
                config.options,
                opp,
                ev.final_games,
                seed=s.config.run.seed + 1,
                greedy=ev.greedy,
                device=s.ctx["device"],
                amp=s.ctx["amp"],
                env_threads=threads,
                game_id=s.config.game_id,
                opening_plies=ev.opening_plies,
            )
            results.append(dataclasses.replace(r, opponent=f"{name}/{r.opponent}") if name else r)
    for r in results:
        s.writer.add_scalar(f"eval/win_rate/{r.opponent}", r.rate, s.counters["env_steps"])
    return results
