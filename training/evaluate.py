"""Evaluation on the batched env: the network as one seat against copies of a scripted AI (two in Domain Wheel).

Game ``g`` seats the network at seat ``g % P`` (P players), so every seating is played equally often (the arena's
"all seatings" for a line-up of one network and two copies of an AI). Games are run in parallel slots of a
vector env; only the first ``games`` games started count, whatever order they finish in, so long games are
not under-counted. The win credit follows the arena: a shared win of ``k`` players counts ``1/k``, a
truncated game 0. Intervals are Wilson 95% intervals (training/rating.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from policies import games as game_adapters
from training.game_setup import eval_env, scripted_seats
from training.league import game_result
from training.rating import wilson_interval


@dataclass(frozen=True)
class EvalResult:
    """The network's results against two copies of one opponent."""

    opponent: str
    wins: float  # win credit (shared wins count 1/k)
    games: int
    seat_wins: tuple[float, ...]  # win credit by the network's seat (Blue, Green, Red in Domain Wheel)
    truncated: int
    env_steps: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


def evaluate(
    net: Any,
    options: Any,
    opponent: str,
    games: int,
    *,
    seed: int = 0,
    greedy: bool = False,
    num_envs: int = 64,
    device: Any = None,
    amp: bool = False,
    env_threads: int = 1,
    game_id: str = game_adapters.DEFAULT_GAME,
) -> EvalResult:
    """Play ``games`` games of ``net`` (one seat, rotating) against copies of scripted AI ``opponent``."""
    import torch

    from policies.network import policy_step

    device = device or torch.device("cpu")
    if game_id == game_adapters.DEFAULT_GAME:
        from dw_env.geometry import build_geometry

        geometry = build_geometry(options.land_radius, options.map_radius)
        if net.geometry is not geometry:
            net.set_geometry(geometry)
    n = max(1, min(num_envs, games))
    env = eval_env(game_id, options, n, env_threads, seed)
    obs, masks, player = env.reset()
    scripted = scripted_seats(game_id, env)
    players = scripted.players
    rng = np.random.default_rng(seed)
    game_of = np.zeros(n, dtype=np.int64)  # index of the game in each slot; games >= ``games`` do not count
    started = 0

    def start(slot: int) -> None:
        nonlocal started
        game_of[slot] = started
        started += 1
        scripted.start_game(slot, opponent, int(rng.integers(2**31)))

    for slot in range(n):
        start(slot)
    seat = game_of % players
    wins, seat_wins, truncated, done, steps = 0.0, [0.0] * players, 0, 0, 0
    torch_state = torch.get_rng_state()
    torch.manual_seed(seed)
    try:
        while done < games:
            learner = np.asarray(player) == seat
            actions = np.zeros(n, dtype=np.int64)
            rows = np.flatnonzero(learner)
            if len(rows):
                actions[rows] = policy_step(net, obs[rows], masks[rows], device, amp, greedy)[0]
            for slot in np.flatnonzero(~learner):
                actions[slot] = scripted.action(int(slot), opponent, int(player[slot]))
            obs, masks, player, _, term, trunc, info = env.step(actions)
            steps += n
            for slot in np.flatnonzero(np.asarray(term) | np.asarray(trunc)):
                if game_of[slot] < games:
                    credit, _ = game_result(info["winners"][slot], info["final_scores"][slot], int(seat[slot]))
                    wins += credit
                    seat_wins[int(seat[slot])] += credit
                    truncated += int(bool(trunc[slot]))
                    done += 1
                start(int(slot))
                seat[slot] = game_of[slot] % players
    finally:
        torch.set_rng_state(torch_state)
    return EvalResult(opponent, wins, games, tuple(seat_wins), truncated, steps)


def format_results(results: list[EvalResult]) -> str:
    """Return a small table: win rate with its 95% interval against two copies of each opponent."""
    lines = [f"{'opponent (x2)':<16} {'games':>6} {'win rate':>9}  95% interval   truncated"]
    for r in results:
        low, high = r.interval
        lines.append(f"{r.opponent:<16} {r.games:>6} {r.rate:>9.1%}  [{low:.1%}, {high:.1%}]  {r.truncated:>5}")
    return "\n".join(lines)
