"""What a designer measures in a sweep: per-game facts from a replay, and per-cell statistics.

:func:`observe_game` replays one game's actions on a fresh engine and returns its *facts*: length, ending,
winners, scores and the events only the whole game shows (conquests, liberations, exiles, lead changes,
passes, a king parked on the centre throne, resolution A49). The replay is exact: it is the engine itself,
one action at a time, so a fact is what the rules did, not what a policy believed.

:func:`summarize_cell` turns the facts of a cell's games into its statistics (conventions in
:data:`CONVENTIONS`): game length, ending mix, seat advantage with Wilson intervals and a chi-square test of
equal seats, the first-mover effect, win rates per strategy, points and the per-game event means.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from dw_env.engine import Game, Move
from dw_env.info import NUM_PLAYERS, PLAYER_NAMES
from dw_env.options import GameOptions
from dw_env.rules import layout as lay
from training.evaluation.arena_config import END_REASONS
from training.evaluation.rating import wilson_interval

Facts = dict[str, Any]

CONVENTIONS = {
    "distinct_games": "games with different seats or actions (the arena's game hash): deterministic seats "
    "repeat games, openings (opening_plies) vary them",
    "win": "a game's k joint winners (rule 9.5) each get 1/k of a win; truncated games (A57) have no winner",
    "win_rate": "wins / games of the seat (or seat-games of the strategy), truncated games included; "
    "95% Wilson interval",
    "share_of_wins": "a seat's wins / games with a winner; 1/3 each when the seats are equal. Its interval "
    "(Wilson) and the equality test count distinct decided games (distinct_decided): deterministic seats "
    "replay some games exactly, and a repeated game adds no evidence",
    "seat_equality": "chi-square goodness of fit of the seats' shares of the wins against 1/3 each, on "
    "distinct_decided games, 2 degrees of freedom (p = exp(-chi2/2))",
    "first_mover": "blue_edge = Blue's share of wins - 1/3; first_conqueror_wins = share of games with a "
    "conquest whose first conqueror (rule 6.6) won (1/k for joint wins)",
    "length": "rounds (rule 3.1) and plies (actions, passes and end requests included); p90 is numpy's "
    "linear-interpolation 90th percentile",
    "conquests": "lands that changed hands to the acting player in its own end of turn (rule 6.6, centre "
    "included); liberations: lands the acting player made unowned (rule 7.4); end_request_changes: lands "
    "changed by an end request (rule 9.4), counted apart",
    "exiles": "rival kings moved by the acting player's turn (rules 5.2-5.3)",
    "lead_changes": "times the sole score leader became a different player (a tie keeps the last sole leader)",
    "decided_round": "the round from which the final sole winner led alone to the end (None: no sole winner)",
    "parked_turns": "own ends of turn with the king on the centre throne and no centre conquest counting "
    "(hold = 0; resolution A49); blocked_rival_turns: rival turns during those with the centre's start "
    "conditions met (score >= C, a ring-1 land in the territory) but the king banned by rule 5.1(i)",
}


# ---- one game ------------------------------------------------------------------------------------------
def _sole_leader(scores: Sequence[int]) -> int:
    top = max(scores)
    leaders = [p for p in range(NUM_PLAYERS) if scores[p] == top]
    return leaders[0] if len(leaders) == 1 and top > 0 else -1


def _centre_ready(game: Game, player: int, ring1: set[int]) -> tuple[bool, bool]:
    """Return (points >= C, a ring-1 land in T(player)): the centre's start conditions (rule 6.8)."""
    points = game.score(player) >= game.geometry.centre_min_points
    return points, bool(ring1.intersection(game.territory(player)))


def observe_game(options: GameOptions, moves: Iterable[Move]) -> Facts:
    """Replay ``moves`` from the initial position of ``options``; return the game's facts.

    Raises :class:`dw_env.engine.IllegalActionError` if an action is illegal (a corrupt record).
    """
    game = Game.new(options)
    geo = game.geometry
    centre = geo.centre_land
    centre_throne = int(geo.land_throne[centre])
    ring1 = {int(x) for x in np.flatnonzero(geo.land_ring == 1)}
    piece_moves, passes, conquests, liberations = ([0] * NUM_PLAYERS for _ in range(4))
    exiles_caused, exiles_suffered, parked, parked_spell = ([0] * NUM_PLAYERS for _ in range(4))
    spell = [0] * NUM_PLAYERS
    reasons = {"points": 0, "path": 0, "knights": 0}
    end_requests = end_changes = countdowns = blocked = 0
    lead_changes, current_leader = 0, -1
    first_conqueror, first_conquest_round = -1, 0
    pass_run = longest_pass_run = 0
    last_change_round = 0
    leader_by_ply: list[int] = []
    round_by_ply: list[int] = []
    for move in moves:
        seat, rnd = game.turn, game.round
        owners = game.lands[lay.OWNER].copy()
        kings = [game.king_cell(p) for p in range(NUM_PLAYERS)]
        cd_before = game.countdown
        game.play(move)
        if move.is_pass:
            passes[seat] += 1
            pass_run += 1
            longest_pass_run = max(longest_pass_run, pass_run)
        else:
            pass_run = 0
            if move.is_end_request:
                end_requests += 1
            else:
                piece_moves[seat] += 1
        after = game.lands[lay.OWNER]
        changed = np.flatnonzero(after != owners)
        if len(changed):
            last_change_round = rnd
            if move.is_end_request:
                end_changes += len(changed)
            else:
                for land in changed:
                    if after[land] == seat:
                        conquests[seat] += 1
                        if first_conqueror < 0:
                            first_conqueror, first_conquest_round = seat, rnd
                    elif after[land] == lay.NO_OWNER:
                        liberations[seat] += 1
        for p in range(NUM_PLAYERS):
            if p != seat and game.king_cell(p) != kings[p]:
                exiles_caused[seat] += 1
                exiles_suffered[p] += 1
        if cd_before is None and game.countdown is not None:
            countdowns += 1
        if not move.is_end_request and not game.over:
            # A49: the acting player's king sits on the centre throne but no centre conquest is counting
            if game.king_cell(seat) == centre_throne and game.lands[lay.HOLD + seat, centre] == 0:
                parked[seat] += 1
                spell[seat] += 1
                parked_spell[seat] = max(parked_spell[seat], spell[seat])
                points, path = _centre_ready(game, seat, ring1)
                reasons["points" if not points else "path" if not path else "knights"] += 1
                blocked += sum(all(_centre_ready(game, q, ring1)) for q in range(NUM_PLAYERS) if q != seat)
            else:
                spell[seat] = 0
        leader = _sole_leader(game.scores())
        if leader >= 0 and leader != current_leader:
            lead_changes += current_leader >= 0
            current_leader = leader
        leader_by_ply.append(leader)
        round_by_ply.append(rnd)
    winners = game.winners
    decided_round = None
    if len(winners) == 1:
        w = winners[0]
        behind = [i for i, leader in enumerate(leader_by_ply) if leader != w]
        if not behind:
            decided_round = 1
        elif behind[-1] + 1 < len(round_by_ply):
            decided_round = round_by_ply[behind[-1] + 1]
        else:
            decided_round = game.round  # the last action decided it (an end request or the final conquest)
    scores = game.scores()
    return {
        "end_reason": game.end_reason,
        "winners": [PLAYER_NAMES[p] for p in winners],
        "leaders": [PLAYER_NAMES[p] for p in game.leaders()],
        "scores": scores,
        "rounds": game.round,
        "plies": int(game.scalars[lay.PLY]),
        "piece_moves": piece_moves,
        "passes": passes,
        "end_requests": end_requests,
        "conquests": conquests,
        "liberations": liberations,
        "end_request_changes": end_changes,
        "exiles_caused": exiles_caused,
        "exiles_suffered": exiles_suffered,
        "countdowns": countdowns,
        "lead_changes": lead_changes,
        "first_conqueror": PLAYER_NAMES[first_conqueror] if first_conqueror >= 0 else None,
        "first_conquest_round": first_conquest_round,
        "decided_round": decided_round,
        "longest_pass_run": longest_pass_run,
        "last_change_round": last_change_round,
        "parked_turns": parked,
        "parked_spell": parked_spell,
        "parked_reasons": reasons,
        "blocked_rival_turns": blocked,
    }


# ---- one cell ------------------------------------------------------------------------------------------
def _share(name: str, names: Sequence[str]) -> float:
    return 1.0 / len(names) if name in names else 0.0


def rate(wins: float, n: int) -> dict[str, Any]:
    """Return ``{n, wins, rate, ci95}`` with the 95% Wilson interval."""
    low, high = wilson_interval(wins, n)
    return {"n": n, "wins": round(wins, 6), "rate": wins / n if n else 0.0, "ci95": [low, high]}


def distribution(values: Sequence[float]) -> dict[str, float]:
    """Return mean, median, p90 (numpy linear), min and max of ``values`` (zeros when empty)."""
    if not values:
        return {"mean": 0.0, "median": 0.0, "p90": 0.0, "min": 0.0, "max": 0.0}
    return {
        "mean": statistics.fmean(values),
        "median": float(statistics.median(values)),
        "p90": float(np.percentile(np.asarray(values, dtype=float), 90)),
        "min": float(min(values)),
        "max": float(max(values)),
    }


def seat_equality(wins: Sequence[float]) -> dict[str, float]:
    """Return the chi-square test that every seat wins 1/3 of the decided games (2 degrees of freedom)."""
    decided = sum(wins)
    if decided <= 0:
        return {"chi2": 0.0, "df": NUM_PLAYERS - 1, "p_value": 1.0}
    expected = decided / NUM_PLAYERS
    chi2 = sum((w - expected) ** 2 / expected for w in wins)
    return {"chi2": chi2, "df": NUM_PLAYERS - 1, "p_value": math.exp(-chi2 / 2)}  # exact for df = 2


def _mean(games: Sequence[Facts], key: str) -> float:
    values = [sum(g[key]) if isinstance(g[key], list) else g[key] for g in games]
    return statistics.fmean(values) if values else 0.0


def summarize_cell(games: Sequence[Facts]) -> dict[str, Any]:
    """Return a cell's statistics from its games' facts (each with ``strategies``, see :func:`observe_game`)."""
    n = len(games)
    seat_wins = [sum(_share(name, g["winners"]) for g in games) for name in PLAYER_NAMES]
    decided = sum(1 for g in games if g["winners"])
    distinct = {g["game_hash"]: g for g in games}.values()
    n_eff = sum(1 for g in distinct if g["winners"])  # distinct decided games: a repeated game adds nothing
    eff_wins = [seat_wins[s] / decided * n_eff if decided else 0.0 for s in range(NUM_PLAYERS)]
    endings = {r: sum(g["end_reason"] == r for g in games) for r in END_REASONS}
    seats = []
    for s, name in enumerate(PLAYER_NAMES):
        share_low, share_high = wilson_interval(eff_wins[s], n_eff)
        seats.append(
            {
                "seat": name,
                **rate(seat_wins[s], n),
                "share_of_wins": seat_wins[s] / decided if decided else 0.0,
                "share_ci95": [share_low, share_high],
                "mean_score": statistics.fmean(g["scores"][s] for g in games) if n else 0.0,
            }
        )
    with_conquest = [g for g in games if g["first_conqueror"] is not None]
    first_wins = sum(_share(g["first_conqueror"], g["winners"]) for g in with_conquest)
    strategies: dict[str, dict[str, Any]] = {}
    for g in games:
        for s, spec in enumerate(g["strategies"]):
            t = strategies.setdefault(
                spec, {"n": 0, "wins": 0.0, "score": 0.0, "seat": [[0.0, 0] for _ in PLAYER_NAMES]}
            )
            share = _share(PLAYER_NAMES[s], g["winners"])
            t["n"] += 1
            t["wins"] += share
            t["score"] += g["scores"][s]
            t["seat"][s][0] += share
            t["seat"][s][1] += 1
    winner_scores = [max(g["scores"]) for g in games if g["winners"]]
    margins = [sorted(g["scores"])[-1] - sorted(g["scores"])[-2] for g in games]
    return {
        "games": n,
        "distinct_games": len(distinct),
        "decided": decided,
        "distinct_decided": n_eff,
        "rounds": distribution([g["rounds"] for g in games]),
        "plies": distribution([g["plies"] for g in games]),
        "ending_counts": endings,
        "endings": {r: c / n if n else 0.0 for r, c in endings.items()},
        "seats": seats,
        "seat_equality": seat_equality(eff_wins),
        "first_mover": {
            "blue_edge": (seat_wins[0] / decided - 1 / NUM_PLAYERS) if decided else 0.0,
            "first_conqueror_wins": rate(first_wins, len(with_conquest)),
        },
        "strategies": [
            {
                "name": spec,
                **rate(t["wins"], t["n"]),
                "mean_score": t["score"] / t["n"],
                "by_seat": {PLAYER_NAMES[s]: rate(w, int(c)) for s, (w, c) in enumerate(t["seat"]) if c},
            }
            for spec, t in strategies.items()
        ],
        "points": {
            "mean_winner_score": statistics.fmean(winner_scores) if winner_scores else 0.0,
            "mean_margin": statistics.fmean(margins) if margins else 0.0,
        },
        "per_game": {
            key: _mean(games, key)
            for key in (
                "conquests",
                "liberations",
                "end_request_changes",
                "exiles_caused",
                "lead_changes",
                "passes",
                "countdowns",
                "parked_turns",
                "blocked_rival_turns",
            )
        },
    }
