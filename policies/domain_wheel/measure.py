"""Measure the scripted AIs against issue 4's acceptance: strength against Random and behaviour.

``python -m policies.domain_wheel.measure`` plays, on the standard map by default:

* each scripted AI against two Random players, with seat rotation (win rate, >= 90 % wanted);
* every line-up of three different scripted AIs in every seat order (endings, game lengths);
* each scripted AI with one other scripted AI and one Random, for behaviour contrasts;

and prints the behaviour metrics per AI, measured in every game:

* ``lands_mid``: lands owned (start land included) at round :data:`MID_ROUND` ("by mid-game");
* ``centre``: share of games in which its king stood on the centre throne (an attempt, rule 6.8);
* ``taken``: rival lands it conquered (rule 6.6) or liberated (rule 7.4), per game;
* ``blocks``: rival positions it broke, per game. A block is a knight move into a land where a
  rival holds a conquest or liberation counter >= 1 (rules 6.4, 7.3) whose condition held before
  the move and fails after it (the rival's counter will reset unless it repairs, rule 6.5).

Decisions are also timed (median and p99 ms per AI).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field

import numpy as np

from dw_env.engine import Game
from dw_env.info import NUM_PLAYERS
from dw_env.options import GameOptions
from dw_env.rules import layout as lay
from policies.domain_wheel import toolkit as tk
from policies.registry import available, make

#: the round at which "mid-game" land counts are taken: spec A57 puts a competent game at about
#: 200 / 3 = 67 rounds, so mid-game is round 33-35
MID_ROUND = 35
SCRIPTED: tuple[str, ...] = tuple(name for name in available() if name != "random")


@dataclass
class GameStats:
    """What one game says about each seat (lists are indexed by seat)."""

    seats: tuple[str, ...]
    seed: int
    end_reason: str
    rounds: int
    winners: list[int]
    scores: list[int]
    lands_mid: list[int] = field(default_factory=lambda: [0] * NUM_PLAYERS)
    centre: list[bool] = field(default_factory=lambda: [False] * NUM_PLAYERS)
    taken: list[int] = field(default_factory=lambda: [0] * NUM_PLAYERS)
    blocks: list[int] = field(default_factory=lambda: [0] * NUM_PLAYERS)
    decision_s: list[list[float]] = field(default_factory=lambda: [[] for _ in range(NUM_PLAYERS)])


def _open_positions(sit: tk.Situation, game: Game, p: int) -> list[tuple[int, int, str]]:
    """Return rivals' (player, land, kind) positions with a counter >= 1 that hold now."""
    out: list[tuple[int, int, str]] = []
    lands = game.lands
    for q in range(NUM_PLAYERS):
        if q == p or not (np.any(lands[lay.HOLD + q] > 0) or np.any(lands[lay.LIB + q] > 0)):
            continue
        sit.update(game, p)
        out.extend((t.player, t.land, t.kind) for t in tk.threats(sit, q, game.options.turns_to_conquer))
    return out


def _still_holds(sit: tk.Situation, game: Game, q: int, land: int, kind: str) -> bool:
    if kind == "conquest":
        return sit.seated_on(q, land) and tk.conquest_holds(sit, q, land, starting=False)
    return tk.liberation_holds(sit, q, land)


def play_game(seats: tuple[str, ...], seed: int, options: GameOptions | None = None) -> GameStats:
    """Play one game with the named policies in seat order and return its statistics."""
    game = Game.new(options or GameOptions())
    policies = [make(name, seed=seed * NUM_PLAYERS + i) for i, name in enumerate(seats)]
    for policy in policies:
        policy.reset()
    sit = tk.Situation(game.geometry)
    stats = GameStats(seats, seed, "none", 0, [], [])
    centre_throne = int(game.geometry.land_throne[game.geometry.centre_land])
    mid_taken = False
    while not game.over:
        p = game.turn
        if not mid_taken and game.round >= MID_ROUND:
            stats.lands_mid = [int(np.count_nonzero(game.lands[lay.OWNER] == q)) for q in range(NUM_PLAYERS)]
            mid_taken = True
        before = game.lands[lay.OWNER].copy()
        positions = _open_positions(sit, game, p)
        start = time.perf_counter()
        move = policies[p].act(game, p)
        stats.decision_s[p].append(time.perf_counter() - start)
        knight_move = move.src >= 0 and int(game.board[move.src]) == lay.piece_code(p, lay.KNIGHT)
        game.play(move)
        if move.is_end_request:
            continue
        after = game.lands[lay.OWNER]
        stats.taken[p] += int(np.count_nonzero((before >= 0) & (before != p) & (after != before)))
        if game.king_cell(p) == centre_throne:
            stats.centre[p] = True
        if knight_move and positions:
            entered = int(game.geometry.cell_land[move.dst])
            sit.update(game, p)
            for q, land, kind in positions:
                if land == entered and not _still_holds(sit, game, q, land, kind):
                    stats.blocks[p] += 1
    if not mid_taken:
        stats.lands_mid = [int(np.count_nonzero(game.lands[lay.OWNER] == q)) for q in range(NUM_PLAYERS)]
    stats.end_reason = game.end_reason
    stats.rounds = game.round
    stats.winners = game.winners
    stats.scores = game.scores()
    return stats


def rotations(names: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Return the three cyclic seat rotations of a line-up."""
    return [names[k:] + names[:k] for k in range(len(names))]


def run_games(lineups: list[tuple[str, ...]], games: int, seed: int, options: GameOptions | None) -> list[GameStats]:
    """Play ``games`` games cycling through the line-ups; game i uses seed ``seed + i``."""
    return [play_game(lineups[i % len(lineups)], seed + i, options) for i in range(games)]


@dataclass
class Summary:
    """Per-policy aggregates over a set of games."""

    games: int = 0
    wins: int = 0
    lands_mid: float = 0.0
    centre: float = 0.0
    taken: float = 0.0
    blocks: float = 0.0
    decisions: list[float] = field(default_factory=list)

    def finish(self) -> dict[str, float]:
        n = max(1, self.games)
        d = np.asarray(self.decisions) * 1e3 if self.decisions else np.zeros(1)
        return {
            "games": self.games,
            "win_rate": self.wins / n,
            "lands_mid": self.lands_mid / n,
            "centre_rate": self.centre / n,
            "taken_per_game": self.taken / n,
            "blocks_per_game": self.blocks / n,
            "median_ms": float(np.median(d)),
            "p99_ms": float(np.percentile(d, 99)),
        }


def summarise(results: list[GameStats]) -> dict[str, dict[str, float]]:
    """Return per-policy aggregates (win = a seat among the winners, rule 9.5)."""
    acc: dict[str, Summary] = defaultdict(Summary)
    for g in results:
        for seat, name in enumerate(g.seats):
            s = acc[name]
            s.games += 1
            s.wins += int(seat in g.winners)
            s.lands_mid += g.lands_mid[seat]
            s.centre += int(g.centre[seat])
            s.taken += g.taken[seat]
            s.blocks += g.blocks[seat]
            s.decisions.extend(g.decision_s[seat])
    return {name: s.finish() for name, s in sorted(acc.items())}


def endings(results: list[GameStats]) -> dict[str, object]:
    """Return the distribution of end reasons and game lengths (rounds)."""
    reasons: dict[str, int] = defaultdict(int)
    for g in results:
        reasons[g.end_reason] += 1
    rounds = np.asarray([g.rounds for g in results], dtype=float)
    by_rule = sum(v for k, v in reasons.items() if k != "truncation") / max(1, len(results))
    return {
        "games": len(results),
        "reasons": dict(reasons),
        "by_rule": by_rule,
        "rounds_median": float(np.median(rounds)) if len(rounds) else 0.0,
        "rounds_p10_p90": [float(np.percentile(rounds, 10)), float(np.percentile(rounds, 90))] if len(rounds) else [],
    }


def vs_random(name: str, games: int, seed: int = 0, options: GameOptions | None = None) -> list[GameStats]:
    """Play ``name`` against two Random players with seat rotation."""
    return run_games(rotations((name, "random", "random")), games, seed, options)


def among_scripted(games: int, seed: int = 0, options: GameOptions | None = None) -> list[GameStats]:
    """Play every line-up of three different scripted AIs in every seat order."""
    lineups = [perm for combo in itertools.combinations(SCRIPTED, 3) for perm in itertools.permutations(combo)]
    return run_games(lineups, games, seed, options)


def with_random(games: int, seed: int = 0, options: GameOptions | None = None) -> list[GameStats]:
    """Play every pair of different scripted AIs with one Random player, in every seat order."""
    lineups = [
        perm for combo in itertools.combinations(SCRIPTED, 2) for perm in itertools.permutations((*combo, "random"))
    ]
    return run_games(lineups, games, seed, options)


def _print_table(title: str, table: dict[str, dict[str, float]]) -> None:
    print(title)
    print(
        f"  {'policy':<13} {'games':>5} {'win':>6} {'lands@' + str(MID_ROUND):>9} {'centre':>7} "
        f"{'taken':>6} {'blocks':>7} {'med ms':>7} {'p99 ms':>7}"
    )
    for name, s in table.items():
        print(
            f"  {name:<13} {s['games']:>5} {s['win_rate']:>6.1%} {s['lands_mid']:>9.2f} {s['centre_rate']:>7.1%} "
            f"{s['taken_per_game']:>6.2f} {s['blocks_per_game']:>7.2f} {s['median_ms']:>7.3f} {s['p99_ms']:>7.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per AI against Random (default 300)")
    parser.add_argument("--among", type=int, default=300, help="games among the scripted AIs (default 300)")
    parser.add_argument("--mixed", type=int, default=0, help="games of two scripted AIs and a Random (default 0)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write every number to this JSON file")
    args = parser.parse_args(argv)
    report: dict[str, object] = {}
    start = time.perf_counter()
    if args.games > 0:
        report["vs_random"] = {}
        for name in SCRIPTED:
            results = vs_random(name, args.games, args.seed)
            table = summarise(results)
            report["vs_random"][name] = {"summary": table, "endings": endings(results)}  # type: ignore[index]
            _print_table(f"{name} vs two Random, {args.games} games: {endings(results)}", table)
    if args.among > 0:
        results = among_scripted(args.among, args.seed)
        table = summarise(results)
        report["among"] = {"summary": table, "endings": endings(results)}
        _print_table(f"among the scripted AIs, {args.among} games: {endings(results)}", table)
        report["games"] = [asdict(g) | {"decision_s": None} for g in results]
    if args.mixed > 0:
        results = with_random(args.mixed, args.seed)
        table = summarise(results)
        report["mixed"] = {"summary": table, "endings": endings(results)}
        _print_table(f"two scripted AIs and a Random, {args.mixed} games: {endings(results)}", table)
    print(f"done in {time.perf_counter() - start:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
