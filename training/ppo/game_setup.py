"""What the trainer and its evaluation need from the game they train on: env, network and scripted seats.

Domain Wheel (the default) trains on :class:`training.ppo.objectives.ObjectiveVectorEnv` with the hex network of
:mod:`policies.domain_wheel.network` and its two-phase scripted AIs; every other game of :mod:`policies.games` follows
the board-game contract (:mod:`policies.games.board`): its own vector env with the same API, the board network of
:mod:`policies.board_network` and seats that return env actions. The PPO loop (training/ppo/ppo.py) is the same.
"""

from __future__ import annotations

from typing import Any

from policies import games
from training.ppo.config import TrainConfig, is_network_teacher
from training.ppo.league import ScriptedSeats


def is_domain_wheel(config: TrainConfig) -> bool:
    return config.game_id == games.DEFAULT_GAME


def num_players(game_id: str, options: Any = None) -> int:
    """Return the seats of a game of ``game_id`` (with ``options``: of those options, e.g. Frontera's ``players``)."""
    adapter = games.get(game_id)
    return (
        adapter.num_players
        if options is None or game_id == games.DEFAULT_GAME
        else adapter.for_options(options).num_players
    )


def make_env(config: TrainConfig, num_envs: int, threads: int, seed: int) -> Any:
    """Return the training vector env of the config's game (``copy=False``: the rollout copies what it keeps)."""
    if is_domain_wheel(config):
        from training.ppo.objectives import ObjectiveVectorEnv

        return ObjectiveVectorEnv(
            num_envs,
            config.options,
            threads,
            seed,
            score_shaping=config.env.score_shaping,
            truncation_reward=config.env.truncation_reward,
            copy=False,
            objective=config.env.objective,
            packed_observations=config.env.packed_observations,
        )
    if config.env.objective != "win":
        raise ValueError(f"env.objective {config.env.objective} is a Domain Wheel objective; {config.game_id}: win")
    if config.env.packed_observations:
        raise ValueError(
            f"env.packed_observations: true is for Domain Wheel's env only; {config.game_id}'s env gives its "
            "observations unpacked (allowed: false)"
        )
    adapter = games.get(config.game_id)
    if config.env.fog_rows is not None:  # the game's own rows split by fog (checked by the config: a game with fog)
        return adapter.make_vector_env(  # type: ignore[attr-defined]
            num_envs, config.options, threads, seed, fog_rows=config.env.fog_rows, fog_spread=config.env.fog_spread
        )
    return adapter.make_vector_env(num_envs, config.options, threads, seed)  # type: ignore[attr-defined]


def rollout_capacity(config: TrainConfig) -> int | None:
    """Return the learner decisions one rollout slot may hold (None: the loop's default, half the steps + 4).

    A game whose turn is many consecutive decisions of one seat (Frontera: deploy, attacks, regroup) says so
    with ``long_turns``: the learner may then act in every step of a rollout.
    """
    if is_domain_wheel(config) or not getattr(games.get(config.game_id), "long_turns", False):
        return None
    return config.env.num_steps + 1


def update_chunk_rows(net: Any, device: Any, default: int) -> int:
    """Return the rows of a PPO update's (or a warm start's) chunks: ``default``, or the network's own on a CPU.

    A network that knows its cache-sized chunk (Frontera's graph network, ``cpu_chunk_rows``) names it: chunks
    of ~2,000 territories halve its update's CPU time against one pass over a minibatch (docs/FRONTERA.md,
    "Training speed"). The rollout's forward passes keep their chunks, so its numbers do not move.
    """
    own = getattr(net, "cpu_chunk_rows", None)
    return int(own()) if own is not None and getattr(device, "type", device) == "cpu" else default


def eval_env(game_id: str, options: Any, num_envs: int, threads: int, seed: int) -> Any:
    """Return a plain vector env of ``game_id`` for evaluation games."""
    if game_id == games.DEFAULT_GAME:
        from dw_env.envs.vector import DomainWheelVectorEnv

        return DomainWheelVectorEnv(num_envs, options, threads, seed, copy=False)
    return games.get(game_id).make_vector_env(num_envs, options, threads, seed)  # type: ignore[attr-defined]


def make_network(config: TrainConfig, device: Any) -> Any:
    """Return a fresh network of the config's game and size on ``device``."""
    options = config.options
    if is_domain_wheel(config):
        from dw_env.geometry import build_geometry
        from policies.domain_wheel.network import HexPolicyNet

        net = HexPolicyNet(build_geometry(options.land_radius, options.map_radius), **config.network_size())
    else:
        net = games.get(config.game_id).make_network(options, config.network_size())  # type: ignore[attr-defined]
    return net.to(device)


def scripted_seats(game_id: str, env: Any) -> ScriptedSeats:
    """Return the scripted seats of ``env``'s slots (Domain Wheel's two-phase AIs or the game's seats)."""
    if game_id == games.DEFAULT_GAME:
        return ScriptedSeats(env)
    adapter = games.get(game_id)
    # a game whose seats return engine actions rather than env actions (Frontera) hands over its index seats
    return ScriptedSeats(env, adapter.training_seats(env) if hasattr(adapter, "training_seats") else adapter)


def teacher_network(path: str, game_id: str, options: Any) -> Any:
    """Return the network of the ``dw train`` file ``path`` (a warm start's teacher, ``imitation.teacher``) on
    the map of ``options``, in eval mode; FileNotFoundError or CheckpointError naming the key and the file."""
    from policies import checkpoint

    try:
        payload = checkpoint.load(path, game_id=game_id)
        return checkpoint.build_network(payload, path, options).eval()
    except (FileNotFoundError, checkpoint.CheckpointError) as exc:
        raise type(exc)(f"imitation.teacher: {exc}") from None


def check_teachers(config: TrainConfig) -> None:
    """Build every network teacher of the warm start (``imitation.teacher``, each table's) on its table's map,
    before any work: a missing or unfit file stops the run before its folder is touched."""
    for _, table in config.table_configs():
        if is_network_teacher(table.imitation.teacher):
            teacher_network(table.imitation.teacher, table.game_id, table.options)


def initial_weights(config: TrainConfig) -> dict[str, Any] | None:
    """Return the checkpoint payload ``network.init_from`` names (None: not set), checked whole before any work.

    It must be a ``dw train`` file of the config's game with the config's network size; its map and options
    may differ (no weight depends on them). FileNotFoundError or CheckpointError naming what does not fit.
    """
    from policies import checkpoint

    path = config.network.init_from
    if path is None:
        return None
    payload = checkpoint.load(path, game_id=config.game_id)
    size, want = checkpoint.network_size(payload, path), config.network_size()
    if any(size.get(k) != want[k] for k in want):
        differ = ", ".join(f"{k} {size[k]} (this config: {want[k]})" for k in want if size.get(k) != want[k])
        raise checkpoint.CheckpointError(
            f"network.init_from: {path} holds a network of another size: {differ}; set network.* to the file's "
            f"sizes to start from its weights"
        )
    return payload
