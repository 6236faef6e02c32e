"""Calibrating a difficulty ladder (policies/ladders): one arena run puts every level on one rating scale.

Line-ups: every pair of levels at most two rungs apart (adjacent pairs measure each step, pairs two apart tie
the scale together); a two-player game seats the pair as ``(a, b)``, a three-player game as ``(a, b, b)`` and
``(b, a, a)``. The arena (:func:`training.evaluation.arena.run_arena`) plays each line-up in every seating from
varied openings and fits one Plackett–Luce rating with bootstrap intervals over all games
(:mod:`training.evaluation.rating`). A ladder *holds* when every level is at least :data:`MIN_GAP` points above
the one below and their 95% intervals do not overlap.

``ms per move`` is measured apart from the arena (whose games run in parallel workers): one game per level,
seated against the level below (level 1 against level 2), timing the level's decisions after its first (which
compiles its kernels) on this machine.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policies import games, ladders
from training.evaluation.arena import run_arena
from training.evaluation.arena_config import ArenaConfig, Lineup

#: the least rating gap between adjacent levels (issue 46: "at least 100 points apart")
MIN_GAP = 100.0
#: the most decisions of a level timed for its ms per move (a long game need not be played to its end)
TIMED_MOVES = 40
START, END = "<!-- ladder:{} -->", "<!-- /ladder:{} -->"


@dataclass(frozen=True)
class Step:
    """One level's calibrated row: its rating and interval, its win rate against the level below, its speed."""

    level: ladders.Level
    rating: float
    low: float
    high: float
    win_rate_below: float | None
    ms_per_move: float

    def gap_ok(self, below: Step | None) -> bool:
        """Return True if this level is :data:`MIN_GAP` above ``below`` with intervals apart (level 1: True)."""
        return below is None or (self.rating - below.rating >= MIN_GAP and self.low > below.high)


def lineups(ladder: ladders.Ladder) -> list[Lineup]:
    """Return the calibration's line-ups: every pair of levels one or two rungs apart, in each seat count."""
    players = games.get(ladder.game).num_players
    specs = [lv.spec() for lv in ladder.levels]
    out: list[Lineup] = []
    for gap in (1, 2):
        for i in range(len(specs) - gap):
            a, b = specs[i], specs[i + gap]
            out.append((a,) + (b,) * (players - 1))
            if players > 2:
                out.append((b,) + (a,) * (players - 1))
    return out


def time_level(ladder: ladders.Ladder, number: int, seed: int = 0) -> float:
    """Return the mean milliseconds of level ``number``'s decisions in one game against its neighbour below."""
    adapter = games.get(ladder.game)
    options = adapter.options_from_dict(ladder.options)
    other = ladder.levels[number - 2 if number > 1 else 1].spec()
    seats = [adapter.make_seat(ladder.levels[number - 1].spec(), seed)]
    seats += [adapter.make_seat(other, seed + s) for s in range(1, adapter.num_players)]
    game = adapter.new_game(options)
    spent, timed, warm = 0.0, 0, False
    while not game.over and timed < TIMED_MOVES:
        seat = game.turn
        start = time.perf_counter()
        move = seats[seat].act(game.copy(), seat)
        if seat == 0 and warm:
            spent += time.perf_counter() - start
            timed += 1
        warm = warm or seat == 0  # the level's first decision compiles its kernels: not timed
        game.play(move)
    return 1000.0 * spent / max(timed, 1)


def calibrate(
    ladder: ladders.Ladder, games_per_lineup: int, seed: int = 0, workers: int = 1, progress: bool = True
) -> tuple[list[Step], dict[str, Any]]:
    """Play the ladder's arena run and return (one Step per level, easiest first; the arena's summary)."""
    adapter = games.get(ladder.game)
    config = ArenaConfig(
        tuple(lineups(ladder)),
        games_per_lineup=games_per_lineup,
        seed=seed,
        options=adapter.options_from_dict(ladder.options),
        game=ladder.game,
    )
    summary, _ = run_arena(config, workers=workers, progress=progress)
    by_spec = {s["name"]: s for s in summary["strategies"]}
    names = summary["matrix"]["strategies"]
    matrix = summary["matrix"]["win_rate"]
    steps = []
    for lv in ladder.levels:
        entry = by_spec[lv.spec()]
        below = None if lv.number == 1 else names.index(ladder.levels[lv.number - 2].spec())
        rate = None if below is None else matrix[names.index(lv.spec())][below]
        low, high = entry["rating_ci95"]
        ms = time_level(ladder, lv.number, seed)
        steps.append(Step(lv, entry["rating"], low, high, rate, ms))
    return steps, summary


def failures(steps: list[Step]) -> list[str]:
    """Return one line per level that is not :data:`MIN_GAP` above the one below with intervals apart."""
    out = []
    for below, step in zip(steps, steps[1:], strict=False):
        if not step.gap_ok(below):
            out.append(
                f"level {step.level.number} ({step.rating:.0f} [{step.low:.0f}, {step.high:.0f}]) is not {MIN_GAP:.0f} "
                f"points above level {below.level.number} ({below.rating:.0f} [{below.low:.0f}, {below.high:.0f}]) "
                "with intervals apart"
            )
    return out


def table(ladder: ladders.Ladder, steps: list[Step], games_per_lineup: int, seed: int, command: str) -> str:
    """Return the ladder's Markdown section: how it was made, then one row per level."""
    adapter = games.get(ladder.game)
    n_lineups = len(lineups(ladder))
    options = adapter.describe_options(adapter.options_to_dict(adapter.options_from_dict(ladder.options)))
    lines = [
        START.format(ladder.name),
        f"### {adapter.title}: {ladder.label['en']} (`{ladder.name}`)",
        "",
        f"`{command}`: {n_lineups} line-ups x {games_per_lineup} games = {n_lineups * games_per_lineup} games, "
        f"seed {seed}, options {options}.",
        "",
        "| level | what it is | rating [95% interval] | win rate vs the level below | ms per move | gap holds |",
        "|---|---|---|---|---|---|",
    ]
    for i, s in enumerate(steps):
        rate = "" if s.win_rate_below is None else f"{100 * s.win_rate_below:.1f}%"
        ok = "" if i == 0 else ("yes" if s.gap_ok(steps[i - 1]) else "**no**")
        lines.append(
            f"| {s.level.number} | {s.level.what()} | {s.rating:.0f} [{s.low:.0f}, {s.high:.0f}] | {rate} "
            f"| {s.ms_per_move:.1f} | {ok} |"
        )
    return "\n".join([*lines, END.format(ladder.name)])


def write_docs(path: Path, ladder_name: str, section: str) -> None:
    """Replace the ladder's section of ``path`` (between its markers), or append it; create the file if needed."""
    text = path.read_text(encoding="utf-8") if path.is_file() else "# Difficulty ladders\n"
    start, end = START.format(ladder_name), END.format(ladder_name)
    if start in text and end in text:
        head, _, rest = text.partition(start)
        _, _, tail = rest.partition(end)
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")


def write_ratings(path: Path, steps: list[Step], games_per_lineup: int, total_games: int, seed: int) -> None:
    """Write the ratings the menu shows (:func:`policies.ladders.ratings`) as JSON."""
    data = {
        "games_per_lineup": games_per_lineup,
        "games": total_games,
        "seed": seed,
        "levels": [
            {
                "level": s.level.number,
                "what": s.level.what(),
                "rating": round(s.rating),
                "low": round(s.low),
                "high": round(s.high),
            }
            for s in steps
        ],
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
