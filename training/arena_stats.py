"""The arena's statistics: win rates with Wilson intervals per strategy and seat, the strategy matrix,
endings, game lengths and the Plackett–Luce rating (conventions in :data:`CONVENTIONS`)."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dw_env.info import NUM_PLAYERS, PLAYER_NAMES
from policies.files import is_registered
from policies.registry import display_name
from training.arena_config import END_REASONS, FORMAT, VERSION, ArenaConfig
from training.rating import rate, rating_groups, wilson_interval

Row = dict[str, Any]

CONVENTIONS = {
    "win": "a game's k joint winners each get 1/k of a win; truncated games have no winner (A57)",
    "leader": "leader_rate: the same 1/k sharing among the top scores, for every game including truncated ones",
    "per_strategy": "counted per seat-game: a strategy in two seats of a game counts twice",
    "ci95": "Wilson score interval, 95%, shared wins counted as fractions",
    "rating": "Plackett-Luce on each game's finishing order (winners, then the others by score; truncated "
    "games by score), Elo scale with mean 1500, 95% percentile bootstrap over games",
    "rating_groups": "strategies linked by wins both ways; gaps between groups rest on the prior, not the data",
    "matrix": "win_rate[a][b]: a's win rate in its seat-games with at least one opponent of strategy b",
    "lands": "owned lands incl. the start land; mid = at the start of round ceil(rounds/2)",
}


def _share(seat: int, names: Sequence[str]) -> float:
    """Return the seat's share of a result shared by ``names`` (1/k if it is one of them, else 0)."""
    return 1.0 / len(names) if PLAYER_NAMES[seat] in names else 0.0


def rate_entry(wins: float, n: int) -> dict[str, Any]:
    """Return ``{n, wins, win_rate, ci95}`` with the Wilson interval."""
    low, high = wilson_interval(wins, n)
    return {"n": n, "wins": round(wins, 6), "win_rate": wins / n if n else 0.0, "ci95": [low, high]}


def finishing_order(row: Row, index: dict[str, int]) -> list[list[int]]:
    """Return a game's finishing order as tiers of strategy indices: winners, then the rest by score."""
    winners = {PLAYER_NAMES.index(w) for w in row["winners"]}
    tiers: list[list[int]] = [[index[row["strategies"][s]] for s in sorted(winners)]] if winners else []
    rest = sorted((s for s in range(NUM_PLAYERS) if s not in winners), key=lambda s: -row["scores"][s])
    for _, group in itertools.groupby(rest, key=lambda s: row["scores"][s]):
        tiers.append([index[row["strategies"][s]] for s in group])
    return tiers


@dataclass
class _Tally:
    """Sums over the seat-games of one strategy (or one seat)."""

    n: int = 0
    wins: float = 0.0
    lead: float = 0.0
    score: float = 0.0
    rounds: float = 0.0
    lands_mid: float = 0.0
    lands_end: float = 0.0
    endings: dict[str, int] = field(default_factory=lambda: dict.fromkeys(END_REASONS, 0))
    won_by: dict[str, float] = field(default_factory=lambda: dict.fromkeys(END_REASONS[:3], 0.0))
    by_seat: list[list[float]] = field(default_factory=lambda: [[0.0, 0.0] for _ in range(NUM_PLAYERS)])

    def add(self, row: Row, seat: int) -> None:
        share = _share(seat, row["winners"])
        self.n += 1
        self.wins += share
        self.lead += _share(seat, row["leaders"])
        self.score += row["scores"][seat]
        self.rounds += row["rounds"]
        self.lands_mid += row["lands_mid"][seat]
        self.lands_end += row["lands_end"][seat]
        self.endings[row["end_reason"]] += 1
        if share:
            self.won_by[row["end_reason"]] += share
        self.by_seat[seat][0] += share
        self.by_seat[seat][1] += 1

    def mean(self, total: float) -> float:
        return total / self.n if self.n else 0.0


def _display_name(spec: str) -> str:
    return display_name(spec) if is_registered(spec) else spec


def _strategy_entry(name: str, t: _Tally, rating: Any) -> dict[str, Any]:
    return {
        "name": name,
        "display_name": _display_name(name),
        **rate_entry(t.wins, t.n),
        "leader_rate": t.mean(t.lead),
        "rating": rating.elo,
        "rating_ci95": [rating.low, rating.high],
        "mean_score": t.mean(t.score),
        "mean_rounds": t.mean(t.rounds),
        "mean_lands_mid": t.mean(t.lands_mid),
        "mean_lands_end": t.mean(t.lands_end),
        "endings": {r: t.mean(c) for r, c in t.endings.items()},
        "wins_by_ending": {r: round(c, 6) for r, c in t.won_by.items()},
        "by_seat": {PLAYER_NAMES[s]: rate_entry(w, int(c)) for s, (w, c) in enumerate(t.by_seat) if c},
    }


def _overall(config: ArenaConfig, rows: Sequence[Row]) -> dict[str, Any]:
    rounds = [r["rounds"] for r in rows]
    endings = {reason: sum(r["end_reason"] == reason for r in rows) for reason in END_REASONS}
    n = len(rows)
    return {
        "games": n,
        "lineups": len(config.lineups),
        "mean_rounds": statistics.fmean(rounds) if rounds else 0.0,
        "median_rounds": statistics.median(rounds) if rounds else 0.0,
        "min_rounds": min(rounds, default=0),
        "max_rounds": max(rounds, default=0),
        "endings": endings,
        "rule_endings": (n - endings["truncation"]) / n if n else 0.0,
    }


def summarize(config: ArenaConfig, rows: Sequence[Row]) -> dict[str, Any]:
    """Return the run's statistics: per strategy, per seat, the strategy matrix, ratings and endings."""
    names = config.strategies
    index = {n: i for i, n in enumerate(names)}
    per = {n: _Tally() for n in names}
    seats = [_Tally() for _ in range(NUM_PLAYERS)]
    m_wins, m_n = np.zeros((len(names), len(names))), np.zeros((len(names), len(names)), dtype=np.int64)
    for row in rows:
        for s, name in enumerate(row["strategies"]):
            per[name].add(row, s)
            seats[s].add(row, s)
            for opponent in {row["strategies"][t] for t in range(NUM_PLAYERS) if t != s}:
                m_wins[index[name], index[opponent]] += _share(s, row["winners"])
                m_n[index[name], index[opponent]] += 1
    orders = [finishing_order(r, index) for r in rows]
    ratings = rate(orders, names, bootstrap=config.bootstrap, seed=config.seed)
    best_first = sorted(rating_groups(orders, len(names)), key=lambda g: -max(ratings[i].elo for i in g))
    groups = [[names[i] for i in g] for g in best_first]
    win_matrix = np.divide(m_wins, m_n, out=np.full_like(m_wins, np.nan), where=m_n > 0)
    return {
        "format": FORMAT,
        "version": VERSION,
        "config": config.to_dict(),
        "conventions": CONVENTIONS,
        "overall": _overall(config, rows),
        "strategies": [_strategy_entry(n, per[n], r) for n, r in zip(names, ratings, strict=True)],
        "rating_groups": groups,
        "seats": [
            {
                "seat": PLAYER_NAMES[s],
                **rate_entry(t.wins, t.n),
                "leader_rate": t.mean(t.lead),
                "mean_score": t.mean(t.score),
            }
            for s, t in enumerate(seats)
        ],
        "matrix": {
            "strategies": names,
            "win_rate": [[None if np.isnan(v) else float(v) for v in row] for row in win_matrix],
            "seat_games": m_n.tolist(),
        },
    }
