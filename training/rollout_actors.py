"""Training rollouts on Ray: ``run.rollout_workers: 1`` collects each rollout on a Ray actor, the update stays here.

The actor (:class:`RolloutWorker`) owns a vector env, a copy of the network, an optimizer of the same shape
(only so that the training state restores whole) and its own table of games, all built from the run's
config the way ``training/ppo.py`` builds its own. Each update the driver sends the current weights and
the run's training state, exactly what a checkpoint holds (:func:`training.resume.training_state`: the
games in progress, the league, every RNG stream); the actor restores it, runs the trainer's own
``collect_rollout`` and sends back the rollout's decisions and the training state after it, which the driver
restores into its session before the update. So the driver's session stays the one true state of the run:
checkpoints and ``--resume`` are unchanged and exact, and a rollout on the actor gives the same decisions
as ``collect_rollout`` here would (same code, same state, same RNG streams; on the CPU, with the same
``run.torch_threads``). The learner keeps the driver's device (its GPU when present); the actor's
network runs on its node's CPU.

An actor that dies (its node lost) is restarted by Ray and the rollout is asked again: the state it is
given is the driver's, so the repeated rollout is the same and nothing is counted twice.

This module imports nothing from ``training/ppo.py`` (which imports it): the trainer hands over its
``Table``, ``Rollout``, ``Frozen``, ``collect_rollout`` and ``make_network`` as :class:`Parts`.
"""

from __future__ import annotations

import contextlib
import os
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np
import torch

from training import cluster
from training.config import TrainConfig
from training.game_setup import is_domain_wheel, make_env, num_players, scripted_seats
from training.league import LATEST, League
from training.resume import restore_training, training_state

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

    def __init__(self, config: TrainConfig, parts: Parts) -> None:
        torch.set_num_threads(config.run.torch_threads or os.cpu_count() or 1)
        device = torch.device("cpu")
        n = config.env.num_envs
        self.parts, self.config = parts, config
        env = make_env(config, n, _env_threads(config.run.env_threads), config.run.seed)
        self.net = parts.make_network(config, device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.ppo.learning_rate, eps=1e-5)
        league = League(config.league, n, num_players(config.game_id))
        obs, masks, player = env.reset()
        zeros = np.zeros(n, np.int64)
        scripted = scripted_seats(config.game_id, env)
        self.table = parts.table(env, league, scripted, obs, masks, player.astype(np.int64), zeros, [LATEST] * n, zeros)
        self.rollout = parts.rollout.allocate(config.env.num_steps, n, obs.shape[1], masks.shape[1])
        self.rng = np.random.default_rng(config.run.seed)  # replaced by the driver's stream at every rollout
        layout = None
        if is_domain_wheel(config):
            from dw_env.envs.observation import describe_observation

            layout = describe_observation(config.options)
        shaping = config.env.conquest_shaping if layout is not None else 0.0
        self.ctx = {"device": device, "amp": False, "rng": self.rng, "layout": layout, "conquest_shaping": shaping}
        self.frozen = parts.frozen(lambda: parts.make_network(config, device))

    def collect(self, weights: dict[str, torch.Tensor], state: dict[str, Any], num_steps: int) -> dict[str, Any]:
        """Restore ``state`` and ``weights``, collect one rollout; return its counts, decisions and the new state."""
        self.net.load_state_dict(weights)
        restore_training(state, self.table, self.rollout, self.optimizer, self.rng, self.net, SOURCE)
        self.net.eval()
        got = self.parts.collect(self.table, self.rollout, self.net, self.frozen, num_steps, self.ctx)
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
        }

    def ping(self) -> int:
        """Return this actor's process id (a cheap call that shows the actor is up)."""
        return os.getpid()


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


class RemoteRollouts:
    """The run's rollout actors on a Ray cluster (``run.cluster``, a fresh local one by default)."""

    def __init__(self, config: TrainConfig, parts: Parts) -> None:
        workers = config.run.rollout_workers
        if workers != 1:
            raise ValueError(f"run.rollout_workers: this trainer runs 0 (here) or 1 rollout actor, got {workers}")
        self._stack = contextlib.ExitStack()
        address = config.run.cluster or "local"
        self._stack.enter_context(cluster.connect(address, num_cpus=workers))
        ray = cluster.require_ray()
        actor = ray.remote(RolloutWorker).options(num_cpus=1, max_restarts=2, max_task_retries=2)
        self.actor = actor.remote(config, parts)
        self.num_steps = config.env.num_steps
        try:
            ray.get(self.actor.ping.remote(), timeout=300)
        except Exception:
            self.close()
            raise

    def collect(self, session: Any) -> dict[str, Any]:
        """Collect one rollout of ``session`` on the actor and put it into the session; return its counts."""
        ray = cluster.require_ray()
        weights, state = shipped_state(session)
        try:
            out = ray.get(self.actor.collect.remote(weights, state, self.num_steps))
        except ray.exceptions.RayActorError as exc:
            raise cluster.ClusterError(
                f"the rollout actor was lost and could not be restarted ({exc}); the run's state is unchanged: "
                "resume from the last checkpoint"
            ) from None
        return apply_rollout(session, out)

    def close(self) -> None:
        """Stop the actor and leave the cluster (a local one shuts down)."""
        with contextlib.suppress(Exception):
            cluster.require_ray().kill(self.actor)
        self._stack.close()
