"""Evaluation on the batched env: the network as one seat against copies of a scripted AI (two in Domain Wheel).

Game ``g`` seats the network at seat ``g % P`` (P players), so every seating is played equally often (the arena's
"all seatings" for a line-up of one network and two copies of an AI). With ``opening_plies`` K > 0 game ``g``
first plays the arena's opening ``g // P`` (:func:`training.evaluation.arena.opening_moves`: K random legal plies, a
pure function of the options, the seed and the index), so each opening is played from every seat and every opponent
meets the same openings; the seats take over from the position it leaves. Without openings a deterministic AI
and a nearly deterministic network replay the same few games, and the win rate measures those few games
(issue 11, item 8): the result counts the distinct games (seat and move list) next to the win rate.
Games are run in parallel slots of a vector env; only the first ``games`` games started count, whatever order
they finish in, so long games are not under-counted. The win credit follows the arena: a shared win of ``k``
players counts ``1/k``, a truncated game 0. Intervals are Wilson 95% intervals (training/evaluation/rating.py).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from policies import games as game_adapters
from training.evaluation.arena import game_hash, opening_moves
from training.evaluation.rating import wilson_interval
from training.ppo.game_setup import eval_env, scripted_seats
from training.ppo.league import game_result


@dataclass(frozen=True)
class EvalResult:
    """The network's results against two copies of one opponent."""

    opponent: str
    wins: float  # win credit (shared wins count 1/k)
    games: int
    seat_wins: tuple[float, ...]  # win credit by the network's seat (Blue, Green, Red in Domain Wheel)
    truncated: int
    env_steps: int
    distinct: int = 0  # games with a different seat or move list (the opening's plies included)
    opening_plies: int = 0

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
    opening_plies: int = 0,
) -> EvalResult:
    """Play ``games`` games of ``net`` (one seat, rotating) against copies of scripted AI ``opponent``.

    ``opening_plies`` > 0 starts game ``g`` from opening ``g // players`` of the arena's openings for ``seed``.
    """
    import torch

    from policies.domain_wheel.network import policy_step

    device = device or torch.device("cpu")
    geometry = None
    if game_id == game_adapters.DEFAULT_GAME:
        from dw_env.envs.actions import move_to_actions
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
    opening: list[deque[Any]] = [deque() for _ in range(n)]  # each slot's opening moves still to play
    queued: list[deque[int]] = [deque() for _ in range(n)]  # env actions of the opening move being played
    played: list[list[int]] = [[] for _ in range(n)]  # each slot's env actions this game (distinct games)
    hashes: set[str] = set()

    def start(slot: int) -> None:
        nonlocal started
        g, started = started, started + 1
        game_of[slot] = g
        scripted.start_game(slot, opponent, int(rng.integers(2**31)))
        opening[slot] = deque(opening_moves(options, seed, g // players, opening_plies, game_id))
        queued[slot].clear()
        played[slot] = []

    def opening_action(slot: int) -> int:
        """The next env action of the slot's opening: a Domain Wheel move is a piece, then its destination."""
        if not queued[slot]:
            move = opening[slot].popleft()
            if geometry is None:  # a one-action game: the opening's move is the env action
                queued[slot].append(int(move))
            else:
                queued[slot].extend(move_to_actions(geometry, int(player[slot]), move))
        return queued[slot].popleft()

    for first in range(n):
        start(first)
    seat = game_of % players
    wins, seat_wins, truncated, done, steps = 0.0, [0.0] * players, 0, 0, 0
    torch_state = torch.get_rng_state()
    torch.manual_seed(seed)
    try:
        while done < games:
            in_opening = np.array([bool(opening[s] or queued[s]) for s in range(n)])
            learner = (np.asarray(player) == seat) & ~in_opening
            actions = np.zeros(n, dtype=np.int64)
            for slot in np.flatnonzero(in_opening):
                actions[slot] = opening_action(int(slot))
            rows = np.flatnonzero(learner)
            if len(rows):
                actions[rows] = policy_step(net, obs[rows], masks[rows], device, amp, greedy)[0]
            for slot in np.flatnonzero(~learner & ~in_opening):
                actions[slot] = scripted.action(int(slot), opponent, int(player[slot]))
            for k in range(n):
                played[k].append(int(actions[k]))
            obs, masks, player, _, term, trunc, info = env.step(actions)
            steps += n
            for slot in np.flatnonzero(np.asarray(term) | np.asarray(trunc)):
                if game_of[slot] < games:
                    credit, _ = game_result(info["winners"][slot], info["final_scores"][slot], int(seat[slot]))
                    wins += credit
                    seat_wins[int(seat[slot])] += credit
                    truncated += int(bool(trunc[slot]))
                    done += 1
                    hashes.add(game_hash((str(seat[slot]),), played[slot]))  # the network's seat, every action
                start(int(slot))
                seat[slot] = game_of[slot] % players
    finally:
        torch.set_rng_state(torch_state)
    return EvalResult(opponent, wins, games, tuple(seat_wins), truncated, steps, len(hashes), opening_plies)


def format_results(results: list[EvalResult]) -> str:
    """Return a small table: win rate with its 95% interval and the distinct games against each opponent."""
    lines = [f"{'opponent (x2)':<16} {'games':>6} {'distinct':>8} {'win rate':>9}  95% interval   truncated"]
    for r in results:
        low, high = r.interval
        lines.append(
            f"{r.opponent:<16} {r.games:>6} {r.distinct:>8} {r.rate:>9.1%}  [{low:.1%}, {high:.1%}]  {r.truncated:>5}"
        )
    k = max((r.opening_plies for r in results), default=0)
    if k:
        lines.append(f"each game from {k} random opening plies (the arena's openings, the same for every opponent)")
    return "\n".join(lines)
