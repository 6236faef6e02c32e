"""The arena's outputs: the text table, results.json, results.csv, the designers' chart and game records."""

from __future__ import annotations

import csv
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dw_env.info import PLAYER_NAMES
from policies import games
from policies.games.base import TRUNCATION, BoardGame
from training.evaluation.arena import record_game, schedule, select_games
from training.evaluation.arena_config import ArenaConfig, seatings

#: line-ups beyond this many are left out of the printed table (results.json has them all)
MAX_PRINTED_LINEUPS = 24

_ENDING_LABELS = {"centre": "centre", "countdown": "countdown", "end_request": "end req", "truncation": "trunc"}


def _ci(pair: Sequence[float], digits: int = 3) -> str:
    return f"[{pair[0]:.{digits}f}, {pair[1]:.{digits}f}]"


def _game(summary: dict[str, Any]) -> BoardGame:
    """Return the adapter of the game a summary is about (results written before games had ids: Domain Wheel)."""
    adapter = games.get(summary["config"].get("game", games.DEFAULT_GAME))
    return adapter.for_options(summary["config"]["options"])


def _label(reason: str) -> str:
    return _ENDING_LABELS.get(reason, reason.replace("_", " ")[:9])


def _metric_label(metric: str) -> str:
    return {"lands_mid": "lands@mid"}.get(metric, metric[:9])


def format_table(summary: dict[str, Any]) -> str:
    """Return the run's report as fixed-width text: strategies, seats, endings and conventions."""
    cfg, overall = summary["config"], summary["overall"]
    game = _game(summary)
    reasons = game.end_reasons
    n_seatings = len(seatings(game.num_players))
    metric = next(iter(game.seat_metrics), None)
    per_lineup = cfg["games_per_lineup"]
    plies = cfg.get("opening_plies", 0)
    opening = (
        f"{plies} random opening plies, opening j shared by game j of every seating and line-up"
        if plies
        else "no random opening; each game's seed varies its deal and dice"
        if "dice" in game.conventions
        else "no random opening (games from the same start repeat when the seats are deterministic)"
    )
    title = "" if game.game_id == games.DEFAULT_GAME else f" {game.title},"
    lines = [
        f"Arena:{title} {overall['games']} games = {overall['lineups']} line-up(s) x {per_lineup} games over "
        f"{n_seatings} seatings ({cfg['mode']}), {game.describe_options(cfg['options'])}, seed {cfg['seed']}; "
        f"{opening}",
        "Wins: a game's k joint winners each get 1/k of a win; truncated games "
        f"({'round limit, A57' if game.game_id == games.DEFAULT_GAME else game.length_limit}) have no winner "
        "(leaders shown apart).",
        "95% CI: Wilson. Rating: Plackett-Luce on finishing order (winners, then score), Elo scale, mean 1500, "
        f"95% bootstrap over games ({cfg['bootstrap']} resamples).",
        "distinct: seat-games with different move lists; outcomes: with different results (seats, scores, "
        "winners, ending, rounds, plies). CI(ess): Wilson at Kish's effective size over the outcomes.",
    ]
    if per_lineup % n_seatings:
        lines.append(f"Note: {per_lineup} is not a multiple of {n_seatings}; some seatings got one game more.")
    width = max(8, *(len(s["name"]) for s in summary["strategies"]))
    endings = "  ".join(f"{_label(r):>9}" for r in reasons)
    fair = game.report_fair_share
    if fair:
        lines.append(
            "fair: the win rate an equally strong strategy would have in the same games (1/players of each "
            "seat-game ended by a rule, 0 of a truncated one)."
        )
    metric_head = f"{_metric_label(metric):>9}  " if metric else ""
    lines += [
        "",
        f"{'strategy':<{width}}  {'seat-games':>10}  {'win rate':>8}  "
        + f"{'fair':>5}  " * fair
        + f"{'95% CI':<16}  {'distinct':>8}  "
        f"{'outcomes':>8}  {'rating':>6}  {'95% CI':<12}  {'leader':>6}  {'score':>6}  {'rounds':>6}  "
        f"{metric_head}{endings}",
    ]
    ordered = sorted(summary["strategies"], key=lambda x: -x["rating"])
    for s in ordered:
        ends = "  ".join(f"{100 * s['endings'][r]:>8.1f}%" for r in reasons)
        metric_value = f"{s[f'mean_{metric}']:>9.2f}  " if metric else ""
        lines.append(
            f"{s['name']:<{width}}  {s['n']:>10}  {s['win_rate']:>8.3f}  {_fair(s)}{_ci(s['ci95']):<16}  "
            f"{_distinct(s, 'distinct_games'):>8}  {_distinct(s, 'distinct_outcomes'):>8}  "
            f"{s['rating']:>6.0f}  {_ci(s['rating_ci95'], 0):<12}  {s['leader_rate']:>6.3f}  "
            f"{s['mean_score']:>6.1f}  {s['mean_rounds']:>6.1f}  {metric_value}{ends}"
        )
    lines += ["", "Worst seat of each strategy (its lowest win rate by colour) and its most repeated loss:"]
    for s in ordered:
        lines.append(f"  {s['name']:<{width}}  {_worst_text(s)}")
    lines += [
        "",
        f"{'seat':<8}  {'games':>6}  {'win rate':>8}  " + f"{'fair':>5}  " * fair + f"{'95% CI':<16}  "
        f"{'distinct':>8}  {'outcomes':>8}  "
        f"{'leader':>6}  {'score':>6}",
    ]
    for seat in summary["seats"]:
        lines.append(
            f"{seat['seat']:<8}  {seat['n']:>6}  {seat['win_rate']:>8.3f}  {_fair(seat)}{_ci(seat['ci95']):<16}  "
            f"{_distinct(seat, 'distinct_games'):>8}  {_distinct(seat, 'distinct_outcomes'):>8}  "
            f"{seat['leader_rate']:>6.3f}  {seat['mean_score']:>6.1f}"
        )
    lines += _lineup_lines(summary.get("lineups", []), game.seat_names)
    played = max(1, overall["games"])
    ended = ", ".join(f"{r.replace('_', ' ')} {100 * overall['endings'][r] / played:.1f}%" for r in reasons)
    lines += [
        "",
        f"Games: {overall['games']} ({overall.get('distinct_games', '?')} distinct, "
        f"{overall.get('distinct_outcomes', '?')} distinct outcomes, the most repeated outcome "
        f"{overall.get('max_repeated_outcome', '?')} times); rounds mean {overall['mean_rounds']:.1f}, median "
        f"{overall['median_rounds']:g}, range {overall['min_rounds']}-{overall['max_rounds']}; ended by {ended}; "
        f"by a rule (not truncation) {100 * overall['rule_endings']:.1f}%",
        "Per-strategy columns count seat-games (a strategy in two seats of a game counts twice); endings are "
        "the share of its seat-games that ended each way.",
    ]
    lines += _fault_lines(summary.get("faults", {}), summary["config"].get("seat_time_limit"))
    groups = summary["rating_groups"]
    if len(groups) > 1:
        lines.append(
            "The results split the strategies into groups that the data cannot rate against each other (between "
            f"two groups wins go one way only): {' | '.join(', '.join(g) for g in groups)}. Rating gaps between "
            "groups come from the rating's weak prior; compare those by win rate."
        )
    return "\n".join(lines)


def _fault_lines(faults: dict[str, dict[str, int]], limit: float | None) -> list[str]:
    """Return the report's lines on seat faults (none when every decision was legal and in time)."""
    if not faults:
        return []
    lines = [
        f"Seat faults (each played the game's fallback action; time limit {limit:g} s a decision):"
        if limit is not None
        else "Seat faults (each played the game's fallback action):"
    ]
    for name, kinds in faults.items():
        lines.append(f"  {name}: " + ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())))
    return lines


def _fair(entry: dict[str, Any]) -> str:
    """Return the fair-share cell printed after a win rate, or nothing for games that do not report it."""
    return f"{entry['fair_share']:>5.3f}  " if "fair_share" in entry else ""


def _distinct(entry: dict[str, Any], key: str) -> str:
    return str(entry.get(key, "?"))


def _worst_text(s: dict[str, Any]) -> str:
    worst = s.get("worst_seat")
    if not worst:
        return "-"
    repeats = s.get("max_repeated_loss", 0)
    lost = f"one game lost {repeats} times" if repeats > 1 else "no game lost twice"
    return (
        f"as {worst['seat']}: {worst['win_rate']:.3f} {_ci(worst['ci95'])} over {worst['n']} seat-games "
        f"({worst['distinct_games']} distinct, {worst['distinct_outcomes']} outcomes); {lost}"
    )


def _lineup_lines(entries: Sequence[dict[str, Any]], seat_names: Sequence[str] = PLAYER_NAMES) -> list[str]:
    """Return the per line-up table: each strategy's win rate, diversity, per-seat rates and worst seat."""
    if not entries:
        return []
    shown = entries[:MAX_PRINTED_LINEUPS]
    width = max(8, *(len(",".join(e["lineup"])) for e in shown))
    name_width = max(8, *(len(s["name"]) for e in shown for s in e["strategies"]))
    lines = [
        "",
        f"{'line-up':<{width}}  {'strategy':<{name_width}}  {'games':>6}  {'win rate':>8}  "
        + f"{'fair':>5}  " * ("fair_share" in shown[0]["strategies"][0])
        + f"{'95% CI':<16}  "
        f"{'distinct':>8}  {'outcomes':>8}  {'CI(ess)':<16}  "
        + "  ".join(f"{p[:5]:>5}" for p in seat_names)
        + f"  {'worst':<6}  {'trunc':>5}",
    ]
    for e in shown:
        for i, s in enumerate(e["strategies"]):
            seats = "  ".join(
                f"{s['by_seat'][p]['win_rate']:>5.3f}" if p in s["by_seat"] else f"{'-':>5}" for p in seat_names
            )
            worst = s["worst_seat"]["seat"] if s.get("worst_seat") else "-"
            label = ",".join(e["lineup"]) if i == 0 else ""
            trunc = e["endings"][TRUNCATION] if i == 0 else ""
            lines.append(
                f"{label:<{width}}  {s['name']:<{name_width}}  {s['n']:>6}  {s['win_rate']:>8.3f}  {_fair(s)}"
                f"{_ci(s['ci95']):<16}  {s['distinct_games']:>8}  {s['distinct_outcomes']:>8}  "
                f"{_ci(s['ci95_ess']):<16}  {seats}  {worst:<6}  {trunc!s:>5}"
            )
    if len(entries) > len(shown):
        lines.append(f"({len(entries) - len(shown)} more line-ups in results.json)")
    lines.append(
        f"Per line-up columns count seat-games; {'/'.join(seat_names)} are the strategy's win rates in each seat."
    )
    return lines


# ---- files -----------------------------------------------------------------------------------------------
def row_fields(game: BoardGame) -> list[str]:
    """Return the columns of a game's results.csv: per-seat lists become one column per seat."""
    seats = game.seat_names
    return (
        ["game", "lineup", "seating", "opening", "game_hash"]
        + [f"strategy_{p}" for p in seats]
        + [f"score_{p}" for p in seats]
        + ["winners", "leaders", "end_reason", "rounds", "plies", *game.row_columns]
        + [f"{metric}_{p}" for metric in game.seat_metrics for p in seats]
        + [f"seed_{p}" for p in seats]
        + [f"faults_{p}" for p in seats]
    )


#: Domain Wheel's results.csv columns
ROW_FIELDS = row_fields(games.get())


def csv_row(row: dict[str, Any], game: BoardGame | None = None) -> dict[str, Any]:
    """Return a game row flattened for results.csv (lists per seat become one column per player)."""
    game = game or games.get()
    flat: dict[str, Any] = {k: row[k] for k in ("game", "lineup", "seating", "end_reason", "rounds", "plies")}
    flat["opening"] = row.get("opening", 0)
    flat["game_hash"] = row.get("game_hash", "")
    for column in game.row_columns:
        flat[column] = row[column]
    flat["winners"] = ";".join(row["winners"])
    flat["leaders"] = ";".join(row["leaders"])
    for s, p in enumerate(game.seat_names):
        flat[f"strategy_{p}"] = row["strategies"][s]
        flat[f"score_{p}"] = row["scores"][s]
        for metric in game.seat_metrics:
            flat[f"{metric}_{p}"] = row[metric][s]
        flat[f"seed_{p}"] = row["seeds"][s]
        flat[f"faults_{p}"] = sum(row["faults"][s].values()) if "faults" in row else 0
    return flat


#: the files a run writes into its folder; ``--overwrite`` removes these and nothing else
OUTPUT_FILES = ("results.json", "results.csv", "chart.png")
GAMES_DIR = "games"
#: the names of saved game records inside :data:`GAMES_DIR`
GAME_RECORD_PATTERN = re.compile(r"^game_\d{5,}_.*\.json$")


def existing_outputs(out: Path) -> list[Path]:
    """Return the files of an earlier run in ``out``: :data:`OUTPUT_FILES` and saved game records."""
    found = [out / name for name in OUTPUT_FILES if (out / name).exists()]
    games = out / GAMES_DIR
    if games.is_dir():
        found += sorted(p for p in games.iterdir() if p.is_file() and GAME_RECORD_PATTERN.match(p.name))
    return found


def check_out(out: Path, overwrite: bool = False) -> None:
    """Make sure the run can write into ``out`` before any game is played; ValueError says why not.

    Creates the folder. Refuses a folder that holds an earlier run unless ``overwrite`` (its files are
    then replaced when the new ones are written, see :func:`write_outputs`); files of other programs are
    never touched.
    """
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    earlier = existing_outputs(out) if out.is_dir() else []
    if earlier and not overwrite:
        names = [p.name for p in earlier if p.parent == out]
        records = len(earlier) - len(names)
        listed = ", ".join(names + ([f"{records} game record(s) in {GAMES_DIR}/"] if records else []))
        raise ValueError(
            f"--out {out} already holds an arena run ({listed}); pass --overwrite to replace those files "
            "(nothing else in the folder is touched) or choose another folder"
        )
    if (out / GAMES_DIR).exists() and not (out / GAMES_DIR).is_dir():
        raise ValueError(f"--out {out}: {out / GAMES_DIR} is a file, but the game records go in a folder of that name")
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".arena-write-check-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"--out {out} is not writable: {exc.strerror or exc}") from None


@contextmanager
def _atomic(path: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path`` (same suffix); rename it onto ``path`` when the block succeeds."""
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}{path.suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Write ``path`` through ``write(tmp)`` and a rename, so a reader never sees a half-written file."""
    with _atomic(path) as tmp:
        write(tmp)


def write_csv(path: Path, rows: Sequence[dict[str, Any]], game: BoardGame | None = None) -> None:
    game = game or games.get()

    def write(tmp: Path) -> None:
        with tmp.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=row_fields(game))
            writer.writeheader()
            for row in rows:
                writer.writerow(csv_row(row, game))

    write_atomic(path, write)


def write_json(path: Path, summary: dict[str, Any], rows: Sequence[dict[str, Any]]) -> None:
    text = json.dumps({**summary, "games": list(rows)}, indent=1) + "\n"

    def write(tmp: Path) -> None:
        tmp.write_text(text)

    write_atomic(path, write)


def write_chart(path: Path, summary: dict[str, Any]) -> None:
    """Write the designers' PNG: win-rate matrix, seat advantage, ratings and endings per strategy."""
    write_atomic(path, lambda tmp: _draw_chart(tmp, summary))


def _draw_chart(path: Path, summary: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm

    names = summary["matrix"]["strategies"]
    game = _game(summary)
    players = game.num_players
    k = len(names)
    fig, axes = plt.subplots(2, 2, figsize=(12, 9.5))
    ax = axes[0, 0]
    matrix = np.array([[np.nan if v is None else v for v in row] for row in summary["matrix"]["win_rate"]])
    # red below, green above the share of a fair seat: a third of the games that have a winner
    fair = min(max(summary["overall"]["rule_endings"] / players, 1e-3), 0.999)
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
    palette = ((40, 110, 230), (40, 170, 70), (215, 50, 45), (120, 120, 120))
    colours = [tuple(c / 255 for c in palette[s % len(palette)]) for s in range(players)]
    ax.bar(list(game.seat_names), rates, yerr=err, color=colours, capsize=6)
    overall = summary["overall"]
    ax.axhline(overall["rule_endings"] / players, color="grey", ls="--", label="no seat advantage")
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
    palette = ("#6a3d9a", "#ff7f00", "#1f78b4", "#33a02c", "#e31a1c", "#b15928")
    rule_endings = [r for r in game.end_reasons if r != TRUNCATION]
    colours = [palette[i % len(palette)] for i in range(len(rule_endings))] + ["#bbbbbb"]
    for reason, colour in zip([*rule_endings, TRUNCATION], colours, strict=True):
        share = np.array([s["endings"][reason] for s in order])
        ax.barh(y, share, left=left, color=colour, label=reason.replace("_", " "))
        left += share
    ax.set_yticks(y, [s["name"] for s in order])
    ax.set_xlim(0, 1)
    ax.set_title("How games ended (share of seat-games)")
    ax.legend(loc="lower right", fontsize=8)

    cfg = summary["config"]
    fig.suptitle(f"Arena: {overall['games']} games, {game.describe_options(cfg['options'])}, seed {cfg['seed']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
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
    for index in select_games(rows, k, config.adapter.end_reasons):
        record, replayed = record_game(tasks[index], config)
        original = rows[index]
        same = all(replayed[f] == original[f] for f in ("end_reason", "winners", "scores", "plies"))
        name = f"game_{index:05d}_{'_'.join(_slug(s) for s in tasks[index].seats)}.json"
        write_atomic(directory / name, record.save)
        saved.append(
            {"game": index, "file": f"{directory.name}/{name}", "end_reason": original["end_reason"], "same": same}
        )
    return saved


def write_outputs(
    out: Path,
    config: ArenaConfig,
    summary: dict[str, Any],
    rows: Sequence[dict[str, Any]],
    k: int,
    overwrite: bool = False,
) -> None:
    """Write results.json, results.csv, chart.png and ``k`` game records under ``out``.

    Refuses (ValueError, before writing anything) a folder with an earlier run unless ``overwrite``; then
    the earlier run's game records are removed and its files replaced, nothing else. Every file is written
    to a temporary name and renamed, results.json last: a folder with a results.json holds a whole run.
    """
    check_out(out, overwrite)
    games = out / GAMES_DIR
    for old in existing_outputs(out):
        if old.parent == games or old.name == "results.json":  # the rest is replaced by rename below
            old.unlink()
    if k:
        summary["saved_games"] = save_game_records(games, config, rows, k)
    write_csv(out / "results.csv", rows, config.adapter)
    write_chart(out / "chart.png", summary)
    write_json(out / "results.json", summary, rows)
