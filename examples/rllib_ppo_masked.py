"""Train RLlib's PPO with action masking on Domain Wheel's PettingZoo env (RLlib's current API stack).

    pip install -e '.[env,train,rllib]'  # RLlib pins gymnasium==1.2.2: see docs/SCALING.md
    python examples/rllib_ppo_masked.py --iterations 20
    python examples/rllib_ppo_masked.py --iterations 1 --batch 400 --eval-games 3    # a smoke run

The env is ``dw_env.domain_wheel_v0.env()``, the AEC game, through RLlib's own ``PettingZooEnv`` adapter;
this file only renames the observation dict (``observation`` -> ``observations``, both arrays as float32)
to the layout that RLlib's ``ActionMaskingTorchRLModule`` reads. All three seats share one policy
(parameter-sharing self-play): RLlib's multi-agent episodes collect every seat's turns, and each seat's
reward reaches it on its next turn (PettingZoo's cumulative rewards). Illegal actions get a logit of
-inf before sampling, in the loss and in the greedy evaluation alike.

Ray starts a small local instance (``--cpus``, no dashboard, a 100 MB object store) unless ``--address``
names a running cluster. After training, the greedy shared policy plays ``--eval-games`` games in seat
0 against two random seats and the script prints its results.

From scratch this learns slowly: random play on the small map rarely conquers a land before the round
limit, so most games end without a winner; the env's score shaping (on by default here) rewards the
points each move gains. ``dw train`` warm-starts by imitation and adds conquest shaping for this reason.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

POLICY = "shared"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=20, help="PPO training iterations (default 20)")
    p.add_argument("--batch", type=int, default=2000, help="env steps per iteration (default 2000)")
    p.add_argument("--minibatch", type=int, default=200, help="minibatch size (default 200)")
    p.add_argument("--epochs", type=int, default=4, help="epochs over each batch (default 4)")
    p.add_argument("--hidden", type=int, default=128, help="width of the two hidden layers (default 128)")
    p.add_argument("--land-radius", type=int, default=1, help="cells from a throne to its land's edge (default 1)")
    p.add_argument("--map-radius", type=int, default=2, help="lands from the centre to the border (default 2)")
    p.add_argument("--max-rounds", type=int, default=40, help="engine truncation in rounds (default 40)")
    p.add_argument(
        "--no-score-shaping",
        action="store_true",
        help="reward only the game's result (default: also the env's zero-sum score shaping, a denser signal)",
    )
    p.add_argument("--eval-games", type=int, default=20, help="greedy games against two random seats (default 20)")
    p.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance (default 2)")
    p.add_argument("--address", default=None, help="a running Ray cluster (HOST:PORT or auto) instead")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for name in ("iterations", "batch", "minibatch", "epochs", "hidden", "cpus"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.minibatch > args.batch:
        p.error(f"--minibatch ({args.minibatch}) must not exceed --batch ({args.batch})")
    return args


def make_env(env_config: dict[str, Any]) -> Any:
    """Return Domain Wheel's AEC env as an RLlib multi-agent env with the action-masking observation dict."""
    import gymnasium as gym
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from dw_env import domain_wheel_v0

    class MaskedDomainWheel(PettingZooEnv):  # type: ignore[misc]
        """RLlib's PettingZoo adapter; observations as {"observations", "action_mask"} of float32."""

        def __init__(self, aec: Any) -> None:
            super().__init__(aec)
            spaces = {}
            for agent, space in self.observation_spaces.items():
                obs, mask = space["observation"], space["action_mask"]
                spaces[agent] = gym.spaces.Dict(
                    {
                        "observations": gym.spaces.Box(float(obs.low.min()), float(obs.high.max()), obs.shape),
                        "action_mask": gym.spaces.Box(0.0, 1.0, mask.shape),
                    }
                )
            self.observation_spaces = spaces
            self.observation_space = gym.spaces.Dict(spaces)

        @staticmethod
        def _renamed(obs: dict[str, Any]) -> dict[str, Any]:
            return {
                agent: {
                    "observations": o["observation"].astype(np.float32),
                    "action_mask": o["action_mask"].astype(np.float32),
                }
                for agent, o in obs.items()
            }

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
            obs, infos = super().reset(seed=seed, options=options)
            return self._renamed(obs), infos

        def step(self, action: dict[str, Any]) -> Any:
            obs, rewards, terminated, truncated, infos = super().step(action)
            return self._renamed(obs), rewards, terminated, truncated, infos

    return MaskedDomainWheel(domain_wheel_v0.env(**env_config))


def build_config(args: argparse.Namespace) -> Any:
    """Return the PPOConfig: the masked env, one shared masked policy for every seat, a local learner."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env("domain_wheel_masked", make_env)
    env_config = {
        "land_radius": args.land_radius,
        "map_radius": args.map_radius,
        "max_rounds": args.max_rounds,
        "score_shaping": not args.no_score_shaping,
    }
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"head_fcnet_hiddens": [args.hidden, args.hidden], "vf_share_layers": False},
    )
    return (
        PPOConfig()
        # RLlib's env check steps random unmasked actions, which the env's illegal-move wrapper ends games on
        .environment("domain_wheel_masked", env_config=env_config, disable_env_checking=True)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: module}))
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=3e-4,
            gamma=0.99,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )


def evaluate(module: Any, args: argparse.Namespace) -> dict[str, float]:
    """Play the greedy masked policy in seat 0 against two random seats; return win rate, draws, score lead."""
    import torch
    from ray.rllib.core.columns import Columns

    from dw_env import domain_wheel_v0

    rng = np.random.default_rng(args.seed + 1)
    wins = draws = lead = 0.0
    for game in range(args.eval_games):
        env = domain_wheel_v0.env(land_radius=args.land_radius, map_radius=args.map_radius, max_rounds=args.max_rounds)
        env.reset(seed=args.seed + game)
        final: dict[str, float] = {}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                final[agent] = float(reward)
                env.step(None)
                continue
            mask = obs["action_mask"]
            if agent == env.possible_agents[0]:
                batch = {
                    Columns.OBS: {
                        "observations": torch.as_tensor(obs["observation"], dtype=torch.float32)[None],
                        "action_mask": torch.as_tensor(mask, dtype=torch.float32)[None],
                    }
                }
                with torch.no_grad():
                    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
                action = int(torch.argmax(logits))
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
        mine = final.get(env.possible_agents[0], 0.0)
        wins += mine > 0
        draws += mine == 0
        scores = env.unwrapped.game.scores()  # the final position's points (rule 8)
        lead += scores[0] - sum(scores[1:]) / (len(scores) - 1)
    n = max(1, args.eval_games)
    return {"win_rate": wins / n, "draw_rate": draws / n, "score_lead": lead / n}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        import ray
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401  (RLlib itself, not only Ray)
    except ImportError as exc:
        print(f"this example needs RLlib ({exc}): pip install -e '.[env,train,rllib]'", file=sys.stderr)
        return 2
    if args.address:
        ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(num_cpus=args.cpus, include_dashboard=False, object_store_memory=100 * 2**20, log_to_driver=False)
    try:
        algo = build_config(args).build_algo()
        for it in range(1, args.iterations + 1):
            result = algo.train()
            runners = result.get("env_runners", {})
            returns = runners.get("agent_episode_returns_mean", {})
            shown = " ".join(f"{a[-1]}={r:+.2f}" for a, r in sorted(returns.items()))
            steps = runners.get("num_env_steps_sampled_lifetime", 0)
            print(f"iteration {it}: {steps} env steps, episode return by seat {shown or '(no episode ended yet)'}")
        results = evaluate(algo.get_module(POLICY), args)
        print(
            f"greedy shared policy in seat 0 vs two random seats, {args.eval_games} games: "
            f"win rate {results['win_rate']:.0%}, draws {results['draw_rate']:.0%}, "
            f"mean score lead over the rivals {results['score_lead']:+.2f} points"
        )
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
