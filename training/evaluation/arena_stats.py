"""The arena's statistics: win rates with Wilson intervals per strategy, seat and line-up, the strategy
matrix, endings, game lengths, the Plackett–Luce rating (conventions in :data:`CONVENTIONS`) and how many
distinct games stand behind each win rate.

Deterministic seats replay the same game from the same start, so the games of a run are not all
different. Next to every win rate stand the number of *distinct games* (different move lists) and of
*distinct outcomes* (different seats, scores, winners, ending, rounds and plies: games that differ only
in moves that changed nothing count once), Kish's effective sample size over the outcomes, and the
Wilson interval at that size (``ci95_ess``), a conservative interval for strength beyond the games played.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dw_env.info import PLAYER_NAMES
from policies.games.base import TRUNCATION, BoardGame
from training.evaluation.arena_config import FORMAT, VERSION, ArenaConfig
from training.evaluation.rating import rate, rating_groups, wilson_interval

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
    "openings": "every game starts with opening_plies random legal plies (no pass unless forced, no end request, "
    "never one that ends the game); game j of every seating of every line-up plays opening j",
    "distinct": "distinct_games: seat-games with different move lists (opening included); distinct_outcomes: "
    "different (line-up, spec in each seat, scores, winners, ending, rounds, plies); both per seat for a strategy",
    "ess": "Kish effective sample size n^2 / sum(m^2) over the multiplicities m of the distinct outcomes; "
    "ci95_ess: the Wilson interval of the same win rate at n = ess (what is known beyond the repeats)",
    "worst_seat": "the seat (colour) in which a strategy has its lowest win rate, with its Wilson interval",
    "max_repeated_loss": "how many times the strategy's most repeated lost (or truncated) outcome occurred",
}


def _share(seat: int, names: Sequence[str], seat_names: Sequence[str] = PLAYER_NAMES) -> float:
    """Return the seat's share of a result shared by ``names`` (1/k if it is one of them, else 0)."""
    return 1.0 / len(names) if seat_names[seat] in names else 0.0


def fair_share(row: Row, players: int) -> float:
    """Return an equally strong strategy's expected win share of one seat-game: 1/players, 0 when truncated."""
    return 0.0 if row["end_reason"] == TRUNCATION else 1.0 / players


def rate_entry(wins: float, n: int) -> dict[str, Any]:
    """Return ``{n, wins, win_rate, ci95}`` with the Wilson interval."""
    low, high = wilson_interval(wins, n)
    return {"n": n, "wins": round(wins, 6), "win_rate": wins / n if n else 0.0, "ci95": [low, high]}


def finishing_order(row: Row, index: dict[str, int], seat_names: Sequence[str] = PLAYER_NAMES) -> list[list[int]]:
    """Return a game's finishing order as tiers of strategy indices: winners, then the rest by score."""
    winners = {list(seat_names).index(w) for w in row["winners"]}
    tiers: list[list[int]] = [[index[row["strategies"][s]] for s in sorted(winners)]] if winners else []
    rest = sorted((s for s in range(len(seat_names)) if s not in winners), key=lambda s: -row["scores"][s])
    for _, group in itertools.groupby(rest, key=lambda s: row["scores"][s]):
        tiers.append([index[row["strategies"][s]] for s in group])
    return tiers


def outcome_key(row: Row) -> tuple[Any, ...]:
    """Return what a game's outcome is made of: line-up, who sat where, scores, winners, ending, rounds, plies.

    Seatings that put the same specs in the same seats (the two copies of a gauntlet's opponent swapped)
    count as one, as they do in :func:`training.evaluation.arena.game_hash`.
    """
    return (
        row["lineup"],
        tuple(row["strategies"]),
        tuple(row["scores"]),
        tuple(row["winners"]),
        row["end_reason"],
        row["rounds"],
        row["plies"],
    )


def game_key(row: Row) -> Hashable:
    """Return the game's identity: its move-list hash (rows without one fall back to their outcome)."""
    return row.get("game_hash") or outcome_key(row)


@dataclass
class _Diversity:
    """How many different games (and outcomes) lie behind a set of seat-games, and how often they repeat."""

    games: Counter[Hashable] = field(default_factory=Counter)
    outcomes: Counter[Hashable] = field(default_factory=Counter)
    losses: Counter[Hashable] = field(default_factory=Counter)

    def add(self, row: Row, seat: int, won: bool) -> None:
        self.games[(game_key(row), seat)] += 1
        self.outcomes[(outcome_key(row), seat)] += 1
        if not won:  # by outcome: a sampling seat rarely repeats a move list exactly, but does lose alike
            self.losses[(outcome_key(row), seat)] += 1

    def entry(self, wins: float, n: int) -> dict[str, Any]:
        """Return ``{distinct_games, distinct_outcomes, ess, ci95_ess, max_repeats, max_repeated_loss}``."""
        squares = sum(m * m for m in self.outcomes.values())
        ess = n * n / squares if squares else 0.0
        low, high = wilson_interval(min(ess, wins * ess / n if n else 0.0), ess)
        return {
            "distinct_games": len(self.games),
            "distinct_outcomes": len(self.outcomes),
            "ess": ess,
            "ci95_ess": [low, high],
            "max_repeats": max(self.games.values(), default=0),
            "max_repeated_loss": max(self.losses.values(), default=0),
        }


@dataclass
class _SeatTally:
    """Wins and seat-games of a strategy in one seat, with their diversity."""

    n: int = 0
    wins: float = 0.0
    diversity: _Diversity = field(default_factory=_Diversity)

    def add(self, row: Row, seat: int, share: float) -> None:
        self.n += 1
        self.wins += share
        self.diversity.add(row, seat, share > 0)

    def entry(self) -> dict[str, Any]:
        return {**rate_entry(self.wins, self.n), **self.diversity.entry(self.wins, self.n)}


@dataclass
class _Tally:
    """Sums over the seat-games of one strategy (or one seat) of ``game``."""

    game: BoardGame
    n: int = 0
    wins: float = 0.0
    fair: float = 0.0
    lead: float = 0.0
    score: float = 0.0
    rounds: float = 0.0
    metrics: dict[str, float] = field(default_factory=dict)
    endings: dict[str, int] = field(default_factory=dict)
    won_by: dict[str, float] = field(default_factory=dict)
    by_seat: list[_SeatTally] = field(default_factory=list)
    diversity: _Diversity = field(default_factory=_Diversity)

    def __post_init__(self) -> None:
        reasons = self.game.end_reasons
        self.metrics = dict.fromkeys(self.game.seat_metrics, 0.0)
        self.endings = dict.fromkeys(reasons, 0)
        self.won_by = dict.fromkeys([r for r in reasons if r != TRUNCATION], 0.0)
        self.by_seat = [_SeatTally() for _ in range(self.game.num_players)]

    def add(self, row: Row, seat: int) -> None:
        names = self.game.seat_names
        share = _share(seat, row["winners"], names)
        self.n += 1
        self.wins += share
        self.fair += fair_share(row, len(names))
        self.lead += _share(seat, row["leaders"], names)
        self.score += row["scores"][seat]
        self.rounds += row["rounds"]
        for metric in self.metrics:
            self.metrics[metric] += row[metric][seat]
        self.endings[row["end_reason"]] += 1
        if share:
            self.won_by[row["end_reason"]] += share
        self.by_seat[seat].add(row, seat, share)
        self.diversity.add(row, seat, share > 0)

    def mean(self, total: float) -> float:
        return total / self.n if self.n else 0.0

    def fair_entry(self) -> dict[str, float]:
        """Return ``{fair_share}`` for games whose reports show it (:attr:`BoardGame.report_fair_share`)."""
        return {"fair_share": self.mean(self.fair)} if self.game.report_fair_share else {}

    def seat_entries(self) -> dict[str, dict[str, Any]]:
        return {self.game.seat_names[s]: t.entry() for s, t in enumerate(self.by_seat) if t.n}

    def rate_entries(self) -> dict[str, Any]:
        """Return the win rate, its diversity, the per-seat rates and the worst seat."""
        seats = self.seat_entries()
        order = self.game.seat_names
        worst = min(seats, key=lambda p: (seats[p]["win_rate"], order.index(p))) if seats else None
        return {
            **rate_entry(self.wins, self.n),
            **self.fair_entry(),
            **self.diversity.entry(self.wins, self.n),
            "by_seat": seats,
            "worst_seat": {"seat": worst, **seats[worst]} if worst else None,
        }


def _strategy_entry(name: str, t: _Tally, rating: Any) -> dict[str, Any]:
    return {
        "name": name,
        "display_name": t.game.display_name(name),
        **t.rate_entries(),
        "leader_rate": t.mean(t.lead),
        "rating": rating.elo,
        "rating_ci95": [rating.low, rating.high],
        "mean_score": t.mean(t.score),
        "mean_rounds": t.mean(t.rounds),
        **{f"mean_{metric}": t.mean(total) for metric, total in t.metrics.items()},
        "endings": {r: t.mean(c) for r, c in t.endings.items()},
        "wins_by_ending": {r: round(c, 6) for r, c in t.won_by.items()},
    }


def _diversity_of_games(rows: Sequence[Row]) -> dict[str, Any]:
    """Return the distinct games and outcomes of a set of games, and Kish's effective size over outcomes."""
    outcomes = Counter(outcome_key(r) for r in rows)
    squares = sum(m * m for m in outcomes.values())
    return {
        "distinct_games": len({game_key(r) for r in rows}),
        "distinct_outcomes": len(outcomes),
        "ess": len(rows) ** 2 / squares if squares else 0.0,
        "max_repeats": max(Counter(game_key(r) for r in rows).values(), default=0),
        "max_repeated_outcome": max(outcomes.values(), default=0),
    }


def _lineup_entries(config: ArenaConfig, rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Return per line-up: its games, their diversity, endings, and each of its strategies' win rates."""
    entries = []
    reasons = config.adapter.end_reasons
    for li, lineup in enumerate(config.lineups):
        games = [r for r in rows if r["lineup"] == li]
        per = {name: _Tally(config.adapter) for name in dict.fromkeys(lineup)}
        for row in games:
            for s, name in enumerate(row["strategies"]):
                per[name].add(row, s)
        entries.append(
            {
                "lineup": list(lineup),
                "games": len(games),
                **_diversity_of_games(games),
                "endings": {reason: sum(r["end_reason"] == reason for r in games) for reason in reasons},
                "strategies": [{"name": name, **t.rate_entries()} for name, t in per.items()],
            }
        )
    return entries


def _overall(config: ArenaConfig, rows: Sequence[Row]) -> dict[str, Any]:
    rounds = [r["rounds"] for r in rows]
    endings = {reason: sum(r["end_reason"] == reason for r in rows) for reason in config.adapter.end_reasons}
    n = len(rows)
    return {
        "games": n,
        "lineups": len(config.lineups),
        "mean_rounds": statistics.fmean(rounds) if rounds else 0.0,
        "median_rounds": statistics.median(rounds) if rounds else 0.0,
        "min_rounds": min(rounds, default=0),
        "max_rounds": max(rounds, default=0),
        "endings": endings,
        "rule_endings": (n - endings[TRUNCATION]) / n if n else 0.0,
        "opening_plies": config.opening_plies,
        **_diversity_of_games(rows),
    }


def seat_faults(rows: Sequence[Row]) -> dict[str, dict[str, int]]:
    """Return, per strategy that had any, its seat faults by kind (policies/bounded.py), summed over the rows."""
    total: dict[str, dict[str, int]] = {}
    for row in rows:
        for name, faults in zip(row["strategies"], row.get("faults", ()), strict=False):
            for kind, n in faults.items():
                entry = total.setdefault(name, {})
                entry[kind] = entry.get(kind, 0) + int(n)
    return total


def summarize(config: ArenaConfig, rows: Sequence[Row]) -> dict[str, Any]:
    """Return the run's statistics: per strategy, per seat, the strategy matrix, ratings and endings."""
    game = config.adapter
    names = config.strategies
    index = {n: i for i, n in enumerate(names)}
    per = {n: _Tally(game) for n in names}
    seats = [_Tally(game) for _ in range(game.num_players)]
    m_wins, m_n = np.zeros((len(names), len(names))), np.zeros((len(names), len(names)), dtype=np.int64)
    for row in rows:
        for s, name in enumerate(row["strategies"]):
            per[name].add(row, s)
            seats[s].add(row, s)
            for opponent in {row["strategies"][t] for t in range(game.num_players) if t != s}:
                m_wins[index[name], index[opponent]] += _share(s, row["winners"], game.seat_names)
                m_n[index[name], index[opponent]] += 1
    orders = [finishing_order(r, index, game.seat_names) for r in rows]
    ratings = rate(orders, names, bootstrap=config.bootstrap, seed=config.seed)
    best_first = sorted(rating_groups(orders, len(names)), key=lambda g: -max(ratings[i].elo for i in g))
    groups = [[names[i] for i in g] for g in best_first]
    win_matrix = np.divide(m_wins, m_n, out=np.full_like(m_wins, np.nan), where=m_n > 0)
    return {
        "format": FORMAT,
        "version": VERSION,
        "config": config.to_dict(),
        "conventions": {**CONVENTIONS, **game.conventions},
        "overall": _overall(config, rows),
        "strategies": [_strategy_entry(n, per[n], r) for n, r in zip(names, ratings, strict=True)],
        "rating_groups": groups,
        "faults": seat_faults(rows),
        "lineups": _lineup_entries(config, rows),
        "seats": [
            {
                "seat": game.seat_names[s],
                **rate_entry(t.wins, t.n),
                **t.fair_entry(),
                **t.diversity.entry(t.wins, t.n),
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
