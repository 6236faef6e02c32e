"""The strength card of an exported package: measured in the arena at export, or read from the model card.

:func:`measure_strength` plays the package as one seat against copies of every scripted AI of its game (every
seating, Wilson intervals); :func:`card_strength` reads the "Arena results" table of the checkpoint's model card
(``NAME.md`` beside it) when nothing is measured. Both return the manifest's ``strength`` entry
(docs/EXPORT.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def measure_strength(
    package: Path, options: Any, games: int, workers: int, seed: int, progress: bool, game: Any = None
) -> dict[str, Any]:
    """Return the package's arena results: one seat vs copies of every scripted AI of ``game``, every seating.

    ``game`` is a :mod:`policies.games` adapter (default: Domain Wheel, one seat vs two copies of each AI).
    """
    from policies import games as game_adapters
    from training.evaluation.arena import play_all
    from training.evaluation.arena_config import DEFAULT_OPENING_PLIES, ArenaConfig
    from training.evaluation.arena_stats import summarize

    adapter = game or game_adapters.get()
    copies = adapter.num_players - 1
    # the arena's own default: a game without random openings (Frontera: its games differ by their seeds) takes 0
    plies = min(DEFAULT_OPENING_PLIES, adapter.max_opening_plies(options))
    opponents = list(adapter.registered_seats())
    results = []
    spec = str(package)
    for opponent in opponents:
        config = ArenaConfig(
            lineups=((spec,) + (opponent,) * copies,),
            games_per_lineup=games,
            seed=seed,
            options=options,
            game=adapter.game_id,
            opening_plies=plies,
        )
        rows = play_all(config, workers=workers, progress=progress)
        entry = next(s for s in summarize(config, rows)["strategies"] if s["name"] == spec)
        results.append(
            {
                "opponents": f"{opponent} (x{copies})" if copies > 1 else opponent,
                "games": entry["n"],
                "win_rate": round(entry["win_rate"], 4),
                "ci95": [round(x, 4) for x in entry["ci95"]],
                "by_seat": {k: round(v["win_rate"], 4) for k, v in entry["by_seat"].items()},
                "truncated": sum(1 for r in rows if r["end_reason"] == "truncation"),
            }
        )
    who = {1: "each AI", 2: "two copies of each AI"}.get(copies, f"{copies} copies of each AI")
    return {
        "source": "measured at export",
        "play": "greedy (the package's default)",
        "mode": f"one seat vs {who}, every seating, Wilson 95% intervals; a shared win counts 1/k",
        "games_per_lineup": games,
        "seed": seed,
        "options": adapter.options_to_dict(options),
        "opening_plies": plies,
        "results": results,
    }


def _cells(line: str) -> list[str]:
    return [c.strip().strip("*").strip() for c in line.strip().strip("|").split("|")]


def _percent(text: str) -> float:
    return round(float(text.strip("*% ")) / 100, 4)


def card_strength(checkpoint: Path) -> dict[str, Any]:
    """Return the table of the checkpoint's model card (``NAME.md`` beside it, section "Arena results") or "none".

    The table is read by its header: the columns ``opponents``, ``games``, ``win rate`` and ``95% CI``.
    """
    card = checkpoint.with_suffix(".md")
    if not card.is_file():
        return {"source": "none"}
    results = []
    section, header = "", None
    for line in card.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section, header = line[3:].strip().lower(), None
        if section != "arena results" or not line.lstrip().startswith("|"):  # the checkpoint's own table only
            continue
        cells = _cells(line)
        names = [c.lower() for c in cells]
        if {"opponents", "games", "win rate", "95% ci"} <= set(names):
            header = {name: i for i, name in enumerate(names)}
            continue
        if header is None or not cells[0].endswith(("(x1)", "(x2)")) or len(cells) < len(header):
            continue
        try:
            low, high = (_percent(x) for x in cells[header["95% ci"]].strip("[]").split(","))
            results.append(
                {
                    "opponents": cells[header["opponents"]],
                    "games": int(cells[header["games"]]),
                    "win_rate": _percent(cells[header["win rate"]]),
                    "ci95": [low, high],
                }
            )
        except ValueError:
            continue
    if not results:
        return {"source": "none"}
    return {
        "source": f"model card {card.name}",
        "play": "as the card says (the checkpoint's loader samples); not re-measured for this package",
        "results": results,
    }
