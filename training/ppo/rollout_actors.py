"""Training rollouts on Ray: ``run.rollout_workers: N`` collects each rollout on N Ray actors, the update stays here.

Each actor (:class:`RolloutWorker`) owns a vector env, a copy of the network, an optimizer of the same shape
(only so that the training state restores whole) and its own table of games, all built from the run's
config the way ``training/ppo/ppo.py`` builds its own. Each update the driver sends the current weights and
the run's training state, exactly what a checkpoint holds (:func:`training.ppo.resume.training_state`: the
games in progress, the league, every RNG stream); the actor restores it, runs the trainer's own
``collect_rollout`` and sends back the rollout's decisions and the training state after it, which the driver
restores into its session before the update. So the driver's session stays the one true state of the run:
checkpoints and ``--resume`` are unchanged and exact. The learner keeps the driver's device (its GPU when
present); the actors' networks run on their nodes' CPUs.

* **One actor** plays every game from the run's own state and RNG streams: the same decisions as
  ``collect_rollout`` here (same code, same state, same streams; on the CPU, with the same
  ``run.torch_threads``), so the run's weights are bit-identical to the local trainer's.
* **N actors** each play a share of the game slots (:func:`slot_groups`: a share of the network
  opponents' slots and of the scripted ones). The driver cuts the state into shares
  (:func:`split_state`), seeds each share's RNG streams from seeds it draws from its own stream, and
  merges the shares' games, decisions and league results back in actor order (:func:`merge_states`,
  :func:`merge_rollouts`). A run is reproducible and resumes exactly for a given N; it is not the
  local trainer's run (the games draw other random numbers).

An actor that dies (its node lost) is restarted by Ray and the rollout is asked again: the state it is
given is the driver's, so the repeated rollout is the same and nothing is counted twice.

This module imports nothing from ``training/ppo/ppo.py`` (which imports it): the trainer hands over its
``Table``, ``Rollout``, ``Frozen``, ``collect_rollout`` and ``make_network`` as :class:`Parts`.
"""

from __future__ import annotations

import contextlib
import os
import random
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np
import torch

from policies import state as st
from training.distributed import cluster
from training.ppo.config import TrainConfig
from training.ppo.game_setup import is_domain_wheel, make_env, num_players, rollout_capacity, scripted_seats
from training.ppo.league import LATEST, League, split_groups
from training.ppo.resume import env_arrays, restore_training, training_state

#: what the driver calls the actor's state in error messages
SOURCE = "rollout worker"


class Parts(NamedTuple):
    """The trainer's own pieces the actor builds its table from (top-level objects: they travel by name)."""

    table: Any
    rollout: Any
    frozen: Any
    collect: Any
    make_network: Any


def _env_threads(wanted: int) -> int:
    import numba

    return min(wanted, numba.config.NUMBA_NUM_THREADS) if wanted > 0 else numba.config.NUMBA_NUM_THREADS


class RolloutWorker:
    """A vector env, a network copy and a table of games that collect rollouts from a shipped training state.

    Plain Python: :class:`RemoteRollouts` runs it as a Ray actor; tests may also call it directly.
    """

    def __init__(
        self, config: TrainConfig, parts: Parts, slots: int | None = None, scripted: int | None = None
    ) -> None:
        torch.set_num_threads(config.run.torch_threads or os.cpu_count() or 1)
        device = torch.device("cpu")
        n = config.env.num_envs if slots is None else slots
        self.parts, self.config = parts, config
        env = make_env(config, n, _env_threads(config.run.env_threads), config.run.seed)
        self.net = parts.make_network(config, device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.ppo.learning_rate, eps=1e-5)
        league = League(config.league, n, num_players(config.game_id, config.options))
        if scripted is not None:  # a share of the run's slots: its scripted ones are the run's scripted ones
            league.num_scripted = scripted
        obs, masks, player = env.reset()
        zeros = np.zeros(n, np.int64)
        scripted = scripted_seats(config.game_id, env)
        self.table = parts.table(env, league, scripted, obs, masks, player.astype(np.int64), zeros, [LATEST] * n, zeros)
        self.table.opening, self.table.opening_plies = np.zeros(n, np.int64), config.env.opening_plies
        packing = getattr(env, "packing", None)
        self.rollout = parts.rollout.allocate(
            config.env.num_steps, n, obs.shape[1], masks.shape[1], packing, rollout_capacity(config)
        )
        self.rng = np.random.default_rng(config.run.seed)  # replaced by the driver's stream at every rollout
        layout = None
        if is_domain_wheel(config):
            from dw_env.envs.observation import describe_observation

            layout = describe_observation(config.options)
        shaping = config.env.conquest_shaping if layout is not None else 0.0
        self.ctx = {"device": device, "amp": False, "rng": self.rng, "layout": layout, "conquest_shaping": shaping}
        self.ctx["score_potential"] = config.env.score_potential if layout is not None else 0.0
        self.frozen = parts.frozen(lambda: parts.make_network(config, device))

    def collect(
        self, weights: dict[str, torch.Tensor], state: dict[str, Any], num_steps: int, seed: int | None = None
    ) -> dict[str, Any]:
        """Restore ``state`` and ``weights``, collect one rollout; return its counts, decisions and the new state.

        With ``seed`` (a share of the run's games), every RNG stream of the rollout (Python's, numpy's,
        torch's, the env's) starts from it instead of the shipped state's. The result's ``games`` lists the
        finished games' (opponent, credit, order, learner's seat) in the order the league counted them.
        """
        self.net.load_state_dict(weights)
        restore_training(state, self.table, self.rollout, self.optimizer, self.rng, self.net, SOURCE)
        if seed is not None:
            random.seed(seed)
            torch.manual_seed(seed)
            self.rng.bit_generator.state = np.random.default_rng(seed).bit_generator.state
            generators = [
                g for _, g in sorted(env_arrays(self.table.env).items()) if isinstance(g, np.random.Generator)
            ]
            for i, generator in enumerate(generators):
                generator.bit_generator.state = np.random.default_rng([seed, i + 1]).bit_generator.state
        games: list[tuple[str, float, Any, int | None]] = []
        results = self.table.league.results
        count = results.add

        def add(opponent: str, credit: float, order: Any, seat: int | None = None) -> None:
            games.append((opponent, credit, order, seat))
            count(opponent, credit, order, seat)

        results.add = add
        self.net.eval()
        got = self.parts.collect(self.table, self.rollout, self.net, self.frozen, num_steps, self.ctx)
        del results.add
        rows = int(self.rollout.count.max())
        # the state's rollout entry describes a rollout between updates (at most the one open decision per
        # slot); the decisions travel whole beside it, so it describes none here
        n = len(self.rollout.count)
        between = SimpleNamespace(
            ARRAYS=self.rollout.ARRAYS,
            count=np.zeros(n, np.int64),
            open=np.zeros(n, np.bool_),
            **{name: getattr(self.rollout, name) for name in self.rollout.ARRAYS},
        )
        return {
            "got": got,
            "state": training_state(self.table, between, self.optimizer, self.rng),
            "decisions": {name: getattr(self.rollout, name)[:rows].copy() for name in self.rollout.ARRAYS},
            "count": self.rollout.count.copy(),
            "open": self.rollout.open.copy(),
            "games": games,
        }

    def env_shapes(self) -> dict[str, tuple[int, ...]]:
        """Return the shape of each state array of this actor's vector env (per-slot arrays follow its size)."""
        return {k: tuple(v.shape) for k, v in env_arrays(self.table.env).items() if isinstance(v, np.ndarray)}


def apply_rollout(session: Any, out: dict[str, Any]) -> dict[str, Any]:
    """Put a worker's rollout into the driver's ``session`` (training state, then decisions); return its counts."""
    restore_training(
        out["state"], session.table, session.rollout, session.optimizer, session.ctx["rng"], session.net, SOURCE
    )
    rollout = session.rollout
    for name, rows in out["decisions"].items():
        getattr(rollout, name)[: len(rows)] = rows
    rollout.count[:], rollout.open[:] = out["count"], out["open"]
    got: dict[str, Any] = out["got"]
    return got


def shipped_state(session: Any) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Return (CPU weights, training state) of the driver's ``session``: what a worker needs for one rollout."""
    weights = {k: v.detach().cpu() for k, v in session.net.state_dict().items()}
    state = training_state(session.table, session.rollout, session.optimizer, session.ctx["rng"])
    return weights, state


# ---- several actors: each plays a share of the run's game slots --------------------------------------------
def slot_groups(num_envs: int, num_scripted: int, workers: int) -> list[np.ndarray]:
    """Return each actor's slots of the run: its share of the network slots, then its share of the scripted ones.

    The league puts the scripted opponents in the table's last ``num_scripted`` slots; each actor's share
    keeps that order, so its own league (of its share's size) sees the same split.
    """
    if workers > num_envs:
        raise ValueError(f"run.rollout_workers ({workers}) must not exceed env.num_envs ({num_envs}): one game each")
    first = num_envs - num_scripted
    network, scripted = np.arange(first), np.arange(first, num_envs)
    return [
        np.concatenate([a, b]).astype(np.int64)
        for a, b in zip(np.array_split(network, workers), np.array_split(scripted, workers), strict=True)
    ]


def _take(value: Any, slots: np.ndarray) -> Any:
    if isinstance(value, torch.Tensor):
        return value[torch.from_numpy(slots)].clone()
    return [value[int(i)] for i in slots]


#: the table's per-slot rows a share of the slots carries (``opening``: older states have none)
PER_SLOT_ROWS = ("obs", "masks", "player", "seat", "games", "pending", "opening")


def split_state(full: dict[str, Any], slots: np.ndarray, per_slot: set[str]) -> dict[str, Any]:
    """Return the training state of the share ``slots`` of the run's ``full`` state (slots renumbered from 0).

    The env's per-slot arrays (``per_slot``), the table's rows, the scripted AIs of those slots and the
    rollout's open decisions are cut out; the league, the optimizer and the RNG entries are shared.
    """
    table = full["table"]
    local = {int(g): i for i, g in enumerate(slots)}
    scripted = [
        {**entry, "slot": local[entry["slot"]]}
        for entry in st.from_json(table["scripted"], "table.scripted")
        if entry["slot"] in local
    ]
    roll = table["rollout"]
    part = {
        "env": {k: (_take(v, slots) if k in per_slot else v) for k, v in table["env"].items()},
        **{k: _take(table[k], slots) for k in ("obs", "masks", "player", "seat", "games", "opponent", "pending")},
        **({"opening": _take(table["opening"], slots)} if "opening" in table else {}),
        "scripted": st.to_json(scripted),
        "rollout": {
            "open_decisions": {k: _take(v, slots) for k, v in roll["open_decisions"].items()},
            "count": _take(roll["count"], slots),
            "open": _take(roll["open"], slots),
        },
    }
    return {**full, "table": part}


def merge_states(
    full: dict[str, Any], shares: list[tuple[np.ndarray, dict[str, Any]]], per_slot: set[str]
) -> dict[str, Any]:
    """Return ``full`` with each share's games put back into its slots (the inverse of :func:`split_state`)."""
    table = full["table"]
    merged = {
        **table,
        "env": {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in table["env"].items()},
        **{k: table[k].clone() for k in PER_SLOT_ROWS if k in table},
        "opponent": list(table["opponent"]),
    }
    entries = st.from_json(table["scripted"], "table.scripted")
    for slots, state in shares:
        part, index = state["table"], torch.from_numpy(slots)
        for k in per_slot:
            merged["env"][k][index] = part["env"][k]
        for k in PER_SLOT_ROWS:
            if k in part:
                merged[k][index] = part[k]
        for i, g in enumerate(slots):
            merged["opponent"][int(g)] = part["opponent"][i]
        mine = {int(g) for g in slots}
        entries = [e for e in entries if e["slot"] not in mine]
        entries += [{**e, "slot": int(slots[e["slot"]])} for e in st.from_json(part["scripted"], "table.scripted")]
    merged["scripted"] = st.to_json(sorted(entries, key=lambda e: (e["slot"], e["seat"], e["kind"])))
    return {**full, "table": merged}


class RemoteRollouts:
    """The run's rollout actors on a Ray cluster (``run.cluster``, a fresh local one by default).

    One actor plays every game of the run from the run's own state and RNG streams (the local trainer's
    results). Several actors each play a share of the game slots (:func:`slot_groups`), their RNG
    streams seeded at every update from seeds the driver draws from its own stream (so a run is still
    reproducible and resumes exactly, with the same number of actors); the driver merges the shares'
    games, decisions and league results, in actor order, before the update.
    """

    def __init__(self, config: TrainConfig, parts: Parts) -> None:
        workers = config.run.rollout_workers
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"run.rollout_workers must be an integer >= 1 here, got {workers!r}")
        n = config.env.num_envs
        self.groups = (
            [np.arange(n)] if workers == 1 else slot_groups(n, split_groups(config.league.weights, n), workers)
        )
        first = n - split_groups(config.league.weights, n)
        self.num_steps = config.env.num_steps
        self.per_slot: set[str] | None = None
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(cluster.connect(config.run.cluster or "local", num_cpus=workers))
        ray = cluster.require_ray()
        actor = ray.remote(RolloutWorker).options(num_cpus=1, max_restarts=2, max_task_retries=2)
        if workers == 1:
            self.actors = [actor.remote(config, parts)]
        else:
            self.actors = [actor.remote(config, parts, len(g), int((g >= first).sum())) for g in self.groups]
        try:
            self.shapes = ray.get([a.env_shapes.remote() for a in self.actors], timeout=300)
        except Exception:
            self.close()
            raise

    def _per_slot(self, session: Any) -> set[str]:
        """Return the names of the env's per-slot arrays: those whose first axis follows the number of games."""
        if self.per_slot is None:
            n, k = len(session.table.opponent), len(self.groups[0])
            ours = {name: v.shape for name, v in env_arrays(session.table.env).items() if isinstance(v, np.ndarray)}
            self.per_slot = {
                name for name, shape in ours.items() if shape[:1] == (n,) and self.shapes[0].get(name, ())[:1] == (k,)
            }
        return self.per_slot

    def collect(self, session: Any) -> dict[str, Any]:
        """Collect one rollout of ``session`` on the actors and put it into the session; return its counts."""
        ray = cluster.require_ray()
        try:
            if len(self.actors) == 1:
                weights, state = shipped_state(session)
                return apply_rollout(session, ray.get(self.actors[0].collect.remote(weights, state, self.num_steps)))
            seeds = [int(x) for x in session.ctx["rng"].integers(2**62, size=len(self.actors))]
            weights, full = shipped_state(session)
            per_slot = self._per_slot(session)
            shared = ray.put(weights)
            refs = [
                a.collect.remote(shared, split_state(full, g, per_slot), self.num_steps, seed)
                for a, g, seed in zip(self.actors, self.groups, seeds, strict=True)
            ]
            outs = ray.get(refs)
        except ray.exceptions.RayActorError as exc:
            raise cluster.ClusterError(
                f"a rollout actor was lost and could not be restarted ({exc}); the run's state is unchanged: "
                "resume from the last checkpoint"
            ) from None
        return merge_rollouts(session, full, list(zip(self.groups, outs, strict=True)), per_slot)

    def close(self) -> None:
        """Stop the actors and leave the cluster (a local one shuts down)."""
        ray = cluster.require_ray()
        for actor in getattr(self, "actors", []):
            with contextlib.suppress(Exception):
                ray.kill(actor)
        self._stack.close()


def merge_rollouts(
    session: Any, full: dict[str, Any], shares: list[tuple[np.ndarray, dict[str, Any]]], per_slot: set[str]
) -> dict[str, Any]:
    """Put the shares' rollouts into the driver's ``session``: games, league results, decisions; return counts."""
    merged = merge_states(full, [(g, out["state"]) for g, out in shares], per_slot)
    restore_training(merged, session.table, session.rollout, session.optimizer, session.ctx["rng"], session.net, SOURCE)
    rollout, results = session.rollout, session.table.league.results
    for slots, out in shares:
        for opponent, credit, order, seat in out["games"]:
            results.add(opponent, credit, order, seat)
        for name, rows in out["decisions"].items():
            getattr(rollout, name)[: len(rows), slots] = rows
        rollout.count[slots], rollout.open[slots] = out["count"], out["open"]
    return {k: sum(out["got"][k] for _, out in shares) for k in ("steps", "games")}
