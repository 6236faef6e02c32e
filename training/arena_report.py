"""The arena's outputs: the text table, results.json, results.csv, the designers' chart and game records."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dw_env.info import NUM_PLAYERS, PLAYER_NAMES
from training.arena import record_game, schedule, select_games
from training.arena_config import END_REASONS, SEATINGS, ArenaConfig

_ENDING_LABELS = {"centre": "centre", "countdown": "countdown", "end_request": "end req", "truncation": "trunc"}


def _ci(pair: Sequence[float], digits: int = 3) -> str:
    return f"[{pair[0]:.{digits}f}, {pair[1]:.{digits}f}]"


def _options_text(options: dict[str, Any]) -> str:
    return (
        f"n={options['land_radius']} R={options['map_radius']} K={options['turns_to_conquer']}, "
        f"{'fast' if options['fast_knights'] else 'slow'} knights, "
        f"king {'may be alone' if options['king_may_be_alone'] else 'never alone (4.11)'}, "
        f"max {options['max_rounds']} rounds"
    )


def format_table(summary: dict[str, Any]) -> str:
    """Return the run's report as fixed-width text: strategies, seats, endings and conventions."""
    cfg, overall = summary["config"], summary["overall"]
    per_lineup = cfg["games_per_lineup"]
    lines = [
        f"Arena: {overall['games']} games = {overall['lineups']} line-up(s) x {per_lineup} games over "
        f"{len(SEATINGS)} seatings ({cfg['mode']}), {_options_text(cfg['options'])}, seed {cfg['seed']}",
        "Wins: a game's k joint winners each get 1/k of a win; truncated games (round limit, A57) have no "
        "winner (leaders shown apart).",
        "95% CI: Wilson. Rating: Plackett-Luce on finishing order (winners, then score), Elo scale, mean 1500, "
        f"95% bootstrap over games ({cfg['bootstrap']} resamples).",
    ]
    if per_lineup % len(SEATINGS):
        lines.append(f"Note: {per_lineup} is not a multiple of {len(SEATINGS)}; some seatings got one game more.")
    width = max(8, *(len(s["name"]) for s in summary["strategies"]))
    endings = "  ".join(f"{_ENDING_LABELS[r]:>9}" for r in END_REASONS)
    lines += [
        "",
        f"{'strategy':<{width}}  {'seat-games':>10}  {'win rate':>8}  {'95% CI':<16}  {'rating':>6}  "
        f"{'95% CI':<12}  {'leader':>6}  {'score':>6}  {'rounds':>6}  {'lands@mid':>9}  {endings}",
    ]
    for s in sorted(summary["strategies"], key=lambda x: -x["rating"]):
        ends = "  ".join(f"{100 * s['endings'][r]:>8.1f}%" for r in END_REASONS)
        lines.append(
            f"{s['name']:<{width}}  {s['n']:>10}  {s['win_rate']:>8.3f}  {_ci(s['ci95']):<16}  "
            f"{s['rating']:>6.0f}  {_ci(s['rating_ci95'], 0):<12}  {s['leader_rate']:>6.3f}  "
            f"{s['mean_score']:>6.1f}  {s['mean_rounds']:>6.1f}  {s['mean_lands_mid']:>9.2f}  {ends}"
        )
    lines += ["", f"{'seat':<8}  {'games':>6}  {'win rate':>8}  {'95% CI':<16}  {'leader':>6}  {'score':>6}"]
    for seat in summary["seats"]:
        lines.append(
            f"{seat['seat']:<8}  {seat['n']:>6}  {seat['win_rate']:>8.3f}  {_ci(seat['ci95']):<16}  "
            f"{seat['leader_rate']:>6.3f}  {seat['mean_score']:>6.1f}"
        )
    games = max(1, overall["games"])
    ended = ", ".join(f"{r.replace('_', ' ')} {100 * overall['endings'][r] / games:.1f}%" for r in END_REASONS)
    lines += [
        "",
        f"Games: {overall['games']}; rounds mean {overall['mean_rounds']:.1f}, median {overall['median_rounds']:g}, "
        f"range {overall['min_rounds']}-{overall['max_rounds']}; ended by {ended}; "
        f"by a rule (not truncation) {100 * overall['rule_endings']:.1f}%",
        "Per-strategy columns count seat-games (a strategy in two seats of a game counts twice); endings are "
        "the share of its seat-games that ended each way.",
    ]
    groups = summary["rating_groups"]
    if len(groups) > 1:
        lines.append(
            "The results split the strategies into groups that the data cannot rate against each other (between "
            f"two groups wins go one way only): {' | '.join(', '.join(g) for g in groups)}. Rating gaps between "
            "groups come from the rating's weak prior; compare those by win rate."
        )
    return "\n".join(lines)


# ---- files -----------------------------------------------------------------------------------------------
ROW_FIELDS = (
    ["game", "lineup", "seating"]
    + [f"strategy_{p}" for p in PLAYER_NAMES]
    + [f"score_{p}" for p in PLAYER_NAMES]
    + ["winners", "leaders", "end_reason", "rounds", "plies", "mid_round"]
    + [f"lands_mid_{p}" for p in PLAYER_NAMES]
    + [f"lands_end_{p}" for p in PLAYER_NAMES]
    + [f"seed_{p}" for p in PLAYER_NAMES]
)


def csv_row(row: dict[str, Any]) -> dict[str, Any]:
    """Return a game row flattened for results.csv (lists per seat become one column per player)."""
    flat: dict[str, Any] = {k: row[k] for k in ("game", "lineup", "seating", "end_reason", "rounds", "plies")}
    flat["mid_round"] = row["mid_round"]
    flat["winners"] = ";".join(row["winners"])
    flat["leaders"] = ";".join(row["leaders"])
    for s, p in enumerate(PLAYER_NAMES):
        flat[f"strategy_{p}"] = row["strategies"][s]
        flat[f"score_{p}"] = row["scores"][s]
        flat[f"lands_mid_{p}"] = row["lands_mid"][s]
        flat[f"lands_end_{p}"] = row["lands_end"][s]
        flat[f"seed_{p}"] = row["seeds"][s]
    return flat


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=ROW_FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow(csv_row(row))


def write_json(path: Path, summary: dict[str, Any], rows: Sequence[dict[str, Any]]) -> None:
    path.write_text(json.dumps({**summary, "games": list(rows)}, indent=1) + "\n")


def write_chart(path: Path, summary: dict[str, Any]) -> None:
    """Write the designers' PNG: win-rate matrix, seat advantage, ratings and endings per strategy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm

    names = summary["matrix"]["strategies"]
    k = len(names)
    fig, axes = plt.subplots(2, 2, figsize=(12, 9.5))
    ax = axes[0, 0]
    matrix = np.array([[np.nan if v is None else v for v in row] for row in summary["matrix"]["win_rate"]])
    # red below, green above the share of a fair seat: a third of the games that have a winner
    fair = min(max(summary["overall"]["rule_endings"] / NUM_PLAYERS, 1e-3), 0.999)
    image = ax.imshow(matrix, norm=TwoSlopeNorm(vcenter=fair, vmin=0, vmax=1), cmap="RdYlGn")
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("with at least one opponent of")
    ax.set_ylabel("win rate of")
    ax.set_title(f"Win-rate matrix (fair share {fair:.2f})")
    for i in range(k):
        for j in range(k):
            if not np.isnan(matrix[i, j]):
                ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, fraction=0.046)

    ax = axes[0, 1]
    seats = summary["seats"]
    rates = [s["win_rate"] for s in seats]
    err = np.array([[max(r - s["ci95"][0], 0), max(s["ci95"][1] - r, 0)] for r, s in zip(rates, seats, strict=True)]).T
    colours = [tuple(c / 255 for c in rgb) for rgb in ((40, 110, 230), (40, 170, 70), (215, 50, 45))]
    ax.bar(PLAYER_NAMES[:NUM_PLAYERS], rates, yerr=err, color=colours, capsize=6)
    overall = summary["overall"]
    ax.axhline(overall["rule_endings"] / NUM_PLAYERS, color="grey", ls="--", label="no seat advantage")
    ax.set_ylim(0, 1)
    ax.set_title("Seat advantage: win rate per seat (95% Wilson CI)")
    ax.legend()

    ax = axes[1, 0]
    order = sorted(summary["strategies"], key=lambda s: s["rating"])
    y = np.arange(len(order))
    elo = np.array([s["rating"] for s in order])
    lo = np.array([s["rating_ci95"][0] for s in order])
    hi = np.array([s["rating_ci95"][1] for s in order])
    # percentile intervals may miss the estimate by rounding when every resample agrees
    ax.errorbar(elo, y, xerr=[np.maximum(elo - lo, 0), np.maximum(hi - elo, 0)], fmt="o", capsize=5)
    ax.set_yticks(y, [s["name"] for s in order])
    ax.axvline(1500, color="grey", ls=":")
    ax.set_title("Plackett-Luce rating, Elo scale (95% bootstrap CI)")

    ax = axes[1, 1]
    left = np.zeros(len(order))
    for reason, colour in zip(END_REASONS, ("#6a3d9a", "#ff7f00", "#1f78b4", "#bbbbbb"), strict=True):
        share = np.array([s["endings"][reason] for s in order])
        ax.barh(y, share, left=left, color=colour, label=reason.replace("_", " "))
        left += share
    ax.set_yticks(y, [s["name"] for s in order])
    ax.set_xlim(0, 1)
    ax.set_title("How games ended (share of seat-games)")
    ax.legend(loc="lower right", fontsize=8)

    cfg = summary["config"]
    fig.suptitle(f"Arena: {overall['games']} games, {_options_text(cfg['options'])}, seed {cfg['seed']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", Path(text).stem if "/" in text else text).strip("-") or "seat"


def save_game_records(
    directory: Path, config: ArenaConfig, rows: Sequence[dict[str, Any]], k: int
) -> list[dict[str, Any]]:
    """Replay ``k`` selected games with a recorder and save them as game records; return what was saved."""
    tasks = schedule(config)
    directory.mkdir(parents=True, exist_ok=True)
    saved = []
    for index in select_games(rows, k):
        record, replayed = record_game(tasks[index], config)
        original = rows[index]
        same = all(replayed[f] == original[f] for f in ("end_reason", "winners", "scores", "plies"))
        name = f"game_{index:05d}_{'_'.join(_slug(s) for s in tasks[index].seats)}.json"
        record.save(directory / name)
        saved.append(
            {"game": index, "file": f"{directory.name}/{name}", "end_reason": original["end_reason"], "same": same}
        )
    return saved


def write_outputs(
    out: Path, config: ArenaConfig, summary: dict[str, Any], rows: Sequence[dict[str, Any]], k: int
) -> None:
    """Write results.json, results.csv, chart.png and ``k`` game records under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    if k:
        summary["saved_games"] = save_game_records(out / "games", config, rows, k)
    write_json(out / "results.json", summary, rows)
    write_csv(out / "results.csv", rows)
    write_chart(out / "chart.png", summary)
