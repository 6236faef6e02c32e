"""Train sb3-contrib's MaskablePPO on one seat of Domain Wheel against scripted or random opponents.

    pip install -e '.[env,sb3]'
    python examples/train_maskable_ppo.py --timesteps 50000 --opponent random
    python examples/train_maskable_ppo.py --land-radius 1 --map-radius 2 --max-rounds 30 --opponent balanced

The learner plays through :class:`dw_env.envs.gym_single.SingleSeatEnv`, whose
``action_masks()`` MaskablePPO reads unchanged; the two other seats are played by a
registered policy (``policies.available()``). After training the script plays evaluation
games with the masked greedy policy and prints the learner's results.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timesteps", type=int, default=50_000, help="env steps to train (default 50000)")
    p.add_argument("--seat", type=int, default=0, choices=(0, 1, 2), help="learner seat: 0 Blue, 1 Green, 2 Red")
    p.add_argument("--opponent", default="random", help="policy name for the two other seats (default random)")
    p.add_argument("--land-radius", type=int, default=1, help="cells from a throne to its land's edge (default 1)")
    p.add_argument("--map-radius", type=int, default=2, help="lands from the centre to the border (default 2)")
    p.add_argument("--max-rounds", type=int, default=40, help="engine truncation in rounds (default 40)")
    p.add_argument("--score-shaping", action="store_true", help="add the score-difference shaping reward")
    p.add_argument("--eval-games", type=int, default=20, help="evaluation games after training (default 20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", type=Path, default=None, help="save the trained model to this .zip path")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch
    from sb3_contrib import MaskablePPO

    import policies
    from dw_env.envs.gym_single import SingleSeatEnv

    torch.set_num_threads(1)  # a small MLP: one thread is fastest next to the env
    options = {"land_radius": args.land_radius, "map_radius": args.map_radius, "max_rounds": args.max_rounds}

    def make_env(seed: int) -> SingleSeatEnv:
        opponents = [policies.make(args.opponent, seed=seed + k) for k in (1, 2)]
        return SingleSeatEnv(seat=args.seat, opponents=opponents, score_shaping=args.score_shaping, **options)

    env = make_env(args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    if args.save:
        model.save(args.save)
        print(f"saved the model to {args.save}")

    results = {"win": 0, "shared win": 0, "loss": 0, "truncated": 0}
    returns = []
    eval_env = make_env(args.seed + 1000)
    for game in range(args.eval_games):
        obs, _ = eval_env.reset(seed=args.seed + 1000 + game)
        done, total, info = False, 0.0, {}
        while not done:
            action, _ = model.predict(obs, action_masks=eval_env.action_masks(), deterministic=True)
            obs, reward, terminated, truncated, info = eval_env.step(int(action))
            total += reward
            done = terminated or truncated
        returns.append(total)
        if truncated:
            results["truncated"] += 1
        elif info["winners"] == [eval_env.agent]:
            results["win"] += 1
        elif eval_env.agent in info["winners"]:
            results["shared win"] += 1
        else:
            results["loss"] += 1
    mean = float(np.mean(returns)) if returns else 0.0
    print(
        f"MaskablePPO ({args.timesteps} steps) as seat {args.seat} vs {args.opponent} x2, "
        f"{args.eval_games} games: {results}, mean return {mean:+.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
