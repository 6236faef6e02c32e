"""A sweep's outputs for designers: sweep.json, exploits.json, the evidence records and one self-contained
report.html (tables, and matplotlib figures embedded as base64 PNGs; links to replayable game records); the
figures also go to figures/*.png for documents.

Figures: seat advantage per option set (each seat's share of the wins with its 95% interval, pooled over
the line-ups), game-length distributions, the ending mix, heatmaps over the first two grid options with
more than one value, and the exploit finder's rates.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dw_env.info import PLAYER_COLOURS, PLAYER_NAMES
from training.evaluation.arena_config import END_REASONS
from training.studies.exploits import Thresholds, find_exploits
from training.studies.sweep import FORMAT, VERSION, Cell, SweepSpec, load_games, record_of
from training.studies.sweep_stats import CONVENTIONS, Facts, summarize_cell

_ENDING_COLOURS = {"centre": "#8e44ad", "countdown": "#e67e22", "end_request": "#16a085", "truncation": "#7f8c8d"}


def _rgb(colour: Sequence[int]) -> tuple[float, ...]:
    return tuple(c / 255 for c in colour)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> str:
    plt = _pyplot()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def option_groups(cells: Sequence[Cell]) -> dict[str, list[int]]:
    """Return {option-point label: cell indices}: the cells of each option set and grid point (all line-ups)."""
    groups: dict[str, list[int]] = {}
    for i, cell in enumerate(cells):
        label = cell.option_label or "all"
        groups.setdefault(label, []).append(i)
    return groups


# ---- figures -------------------------------------------------------------------------------------------
def seat_figure(labels: Sequence[str], summaries: Sequence[dict[str, Any]], title: str) -> str:
    """Return a PNG: per row, the three seats' shares of the wins with 95% intervals and the 1/3 line."""
    plt = _pyplot()
    n = len(labels)
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.42 * n * 1.2))
    height = 0.26
    for s, name in enumerate(PLAYER_NAMES):
        ys = [i + (s - 1) * height for i in range(n)]
        shares = [m["seats"][s]["share_of_wins"] for m in summaries]
        lows = [max(0.0, m["seats"][s]["share_of_wins"] - m["seats"][s]["share_ci95"][0]) for m in summaries]
        highs = [max(0.0, m["seats"][s]["share_ci95"][1] - m["seats"][s]["share_of_wins"]) for m in summaries]
        ax.barh(ys, shares, height, xerr=[lows, highs], color=_rgb(PLAYER_COLOURS[s]), label=name, capsize=2)
    ax.axvline(1 / 3, color="black", linestyle="--", linewidth=1)
    ax.set_yticks(range(n))
    ax.set_yticklabels(
        [f"{lab}  (p={m['seat_equality']['p_value']:.2g})" for lab, m in zip(labels, summaries, strict=True)]
    )
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the wins (95% Wilson interval); dashed: equal seats (1/3)")
    ax.set_title(title)
    ax.legend(loc="lower right")
    return _png(fig)


def length_figure(labels: Sequence[str], games: Sequence[Sequence[Facts]]) -> str:
    """Return a PNG: the distribution of game length in rounds per row (box plot with every game's dot)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.4 * len(labels)))
    data = [[g["rounds"] for g in gs] for gs in games]
    ax.boxplot(data, orientation="horizontal", whis=(5, 95), showmeans=True)
    for i, values in enumerate(data):
        ax.scatter(values, [i + 1] * len(values), s=6, alpha=0.3, color="black")
    ax.set_yticks(range(1, len(labels) + 1))
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xlabel("game length (rounds); box: quartiles, whiskers: 5-95%, triangle: mean")
    ax.set_title("Game length")
    return _png(fig)


def endings_figure(labels: Sequence[str], summaries: Sequence[dict[str, Any]]) -> str:
    """Return a PNG: stacked bars of the ending mix per row."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.4 * len(labels)))
    left = [0.0] * len(labels)
    for reason in END_REASONS:
        widths = [m["endings"][reason] for m in summaries]
        ax.barh(range(len(labels)), widths, left=left, color=_ENDING_COLOURS[reason], label=reason.replace("_", " "))
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of games")
    ax.set_title("How games end (centre 9.1, countdown 9.2, end request 9.4, truncation A57)")
    ax.legend(loc="lower right", fontsize=8)
    return _png(fig)


def heatmap_figure(
    rows: Sequence[Any], cols: Sequence[Any], names: tuple[str, str], grids: dict[str, list[list[float]]], title: str
) -> str:
    """Return a PNG: one heatmap per metric over two grid options (rows x columns), values printed."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(grids), figsize=(4.2 * len(grids), 0.9 + 0.55 * len(rows)), squeeze=False)
    for ax, (metric, values) in zip(axes[0], grids.items(), strict=True):
        image = ax.imshow(values, cmap="viridis", aspect="auto")
        middle = (min(map(min, values)) + max(map(max, values))) / 2
        for r in range(len(rows)):
            for c in range(len(cols)):
                colour = "black" if values[r][c] > middle else "white"
                ax.text(c, r, f"{values[r][c]:.2f}", ha="center", va="center", color=colour, fontsize=8)
        ax.set_xticks(range(len(cols)))
        ax.set_xticklabels([str(v) for v in cols])
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([str(v) for v in rows])
        ax.set_xlabel(names[1])
        ax.set_ylabel(names[0])
        ax.set_title(metric, fontsize=9)
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.suptitle(title, y=1.04)
    return _png(fig)


def findings_figure(findings: Sequence[dict[str, Any]]) -> str:
    """Return a PNG: each detector's rate with its 95% interval."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 0.8 + 0.45 * len(findings)))
    rates = [f["rate"] for f in findings]
    low = [max(0.0, f["rate"] - f["ci95"][0]) for f in findings]
    high = [max(0.0, f["ci95"][1] - f["rate"]) for f in findings]
    ax.barh(range(len(findings)), rates, xerr=[low, high], color="#c0392b", capsize=3)
    ax.set_yticks(range(len(findings)))
    ax.set_yticklabels([f"{f['detector']} ({f['wins']:g}/{f['n']} {f['unit']})" for f in findings])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share flagged (95% Wilson interval)")
    ax.set_title("Exploit finder")
    return _png(fig)


# ---- heatmaps ------------------------------------------------------------------------------------------
def _seat_gap(summary: dict[str, Any]) -> float:
    shares = [float(s["share_of_wins"]) for s in summary["seats"]]
    return max(shares) - min(shares)


def _mean_rounds(summary: dict[str, Any]) -> float:
    return float(summary["rounds"]["mean"])


def _truncation(summary: dict[str, Any]) -> float:
    return float(summary["endings"]["truncation"])


HEATMAP_METRICS: dict[str, Callable[[dict[str, Any]], float]] = {
    "mean rounds": _mean_rounds,
    "seat gap (max - min share of wins)": _seat_gap,
    "truncation share": _truncation,
}


def heatmaps(spec: SweepSpec, cells: Sequence[Cell], games: Sequence[Sequence[Facts]]) -> list[tuple[str, str]]:
    """Return (caption, PNG) heatmaps over the first two multi-valued grid options, one per line-up."""
    axes = [k for k, v in spec.grid.axes().items() if len(v) > 1]
    if len(axes) < 2:
        return []
    a, b = axes[:2]
    rows, cols = spec.grid.axes()[a], spec.grid.axes()[b]
    result = []
    for lineup, _ in spec.named_lineups():
        grids: dict[str, list[list[float]]] = {m: [] for m in HEATMAP_METRICS}
        for va in rows:
            pooled = []
            for vb in cols:
                mine = [
                    g
                    for c, gs in zip(cells, games, strict=True)
                    if c.lineup == lineup and c.grid[a] == va and c.grid[b] == vb
                    for g in gs
                ]
                pooled.append(summarize_cell(mine))
            for metric, f in HEATMAP_METRICS.items():
                grids[metric].append([f(m) for m in pooled])
        others = [k for k in spec.grid.axes() if k not in (a, b)] + (["option sets"] if spec.option_sets else [])
        pooled_text = f", pooled over {', '.join(others)}" if others else ""
        caption = f"{lineup}: {a} x {b}{pooled_text}"
        result.append((caption, heatmap_figure(rows, cols, (a, b), grids, caption)))
    return result


# ---- the page ------------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _ci(pair: Sequence[float]) -> str:
    return f"[{pair[0]:.2f}, {pair[1]:.2f}]"


def _cell_row(data: dict[str, Any]) -> str:
    cell, m = data["cell"], data["summary"]
    key = cell["key"]
    seats = " ".join(
        f"<span class='{s['seat']}'>{s['share_of_wins']:.2f} {_ci(s['share_ci95'])}</span>" for s in m["seats"]
    )
    strategies = "<br>".join(f"{html.escape(s['name'])} {s['rate']:.2f} {_ci(s['ci95'])}" for s in m["strategies"])
    links = " ".join(
        f"<a href='cells/{key}/{path}' title='dw show cells/{key}/{path} --all'>{what}</a>"
        for what, path in data["records"].items()
    )
    ends = " / ".join(_pct(m["endings"][r]) for r in END_REASONS)
    per = m["per_game"]
    return (
        f"<tr><td>{html.escape(cell['label'])}</td><td>{m['games']} ({m['distinct_games']})</td>"
        f"<td>{m['rounds']['mean']:.1f} / {m['rounds']['median']:g} / {m['rounds']['p90']:.0f}</td>"
        f"<td>{m['plies']['mean']:.0f} / {m['plies']['median']:g} / {m['plies']['p90']:.0f}</td><td>{ends}</td>"
        f"<td>{seats}</td><td>{m['seat_equality']['p_value']:.3g}</td><td>{m['first_mover']['blue_edge']:+.2f}</td>"
        f"<td>{strategies}</td><td>{m['points']['mean_winner_score']:.1f} (+{m['points']['mean_margin']:.1f})</td>"
        f"<td>{per['conquests']:.1f} / {per['liberations']:.1f} / {per['exiles_caused']:.1f} / "
        f"{per['lead_changes']:.1f} / {per['parked_turns']:.1f}</td><td>{links}</td></tr>"
    )


def _rounded(value: Any) -> Any:
    """Return ``value`` with every float rounded to 3 decimals (for reading, not for the JSON files)."""
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _finding_html(f: dict[str, Any], evidence_paths: dict[tuple[str, int], str]) -> str:
    skip = {"detector", "title", "unit", "n", "wins", "rate", "ci95", "evidence"}
    details = ", ".join(
        f"{k.replace('_', ' ')}: {html.escape(json.dumps(_rounded(v)))}" for k, v in f.items() if k not in skip
    )
    items = "".join(
        f"<li><a href='{evidence_paths[(e['cell'], e['game'])]}'>{html.escape(e['label'])}, game {e['game']}</a>: "
        f"{html.escape(e['detail'])}</li>"
        for e in f["evidence"]
    )
    return (
        f"<h3>{html.escape(f['title'])}</h3><p><b>{f['wins']:g} of {f['n']} {f['unit']}</b> "
        f"({_pct(f['rate'])}, 95% {_ci(f['ci95'])}). <small>{details}</small></p>"
        + (f"<ul>{items}</ul>" if items else "")
    )


_CSS = """body{font-family:sans-serif;max-width:1400px;margin:auto;padding:1em;color:#222}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:3px 5px;vertical-align:top}
th{background:#eee}.blue{color:#2868e6}.green{color:#28aa46}.red{color:#d7322d}img{max-width:100%}
code{background:#f4f4f4;padding:1px 3px}"""


def write_evidence(
    out: Path, cells: Sequence[Cell], games: Sequence[Sequence[Facts]], findings: Sequence[dict[str, Any]]
) -> dict[tuple[str, int], str]:
    """Write each finding's evidence games as replayable records; return {(cell key, game): relative path}."""
    by_key = {c.key: (c, gs) for c, gs in zip(cells, games, strict=True)}
    paths: dict[tuple[str, int], str] = {}
    for f in findings:
        folder = out / "exploits" / f["detector"]
        folder.mkdir(parents=True, exist_ok=True)
        for e in f["evidence"]:
            cell, gs = by_key[e["cell"]]
            name = f"{e['cell']}-game{e['game']:05d}.json"
            record_of(cell, gs[e["game"]]).save(folder / name)
            e["record"] = paths[(e["cell"], e["game"])] = f"exploits/{f['detector']}/{name}"
    return paths


def write_report(out: Path, spec: SweepSpec, cells: Sequence[Cell], done: Sequence[dict[str, Any]]) -> Path:
    """Write sweep.json, exploits.json, the evidence records, report.html and figures/*.png; return the report."""
    games = [load_games(out, c) for c in cells]
    thresholds = Thresholds(**spec.detectors.model_dump())
    findings = find_exploits([(c.key, c.label, gs) for c, gs in zip(cells, games, strict=True)], thresholds)
    evidence_paths = write_evidence(out, cells, games, findings)
    groups = option_groups(cells)
    pooled = {label: summarize_cell([g for i in idx for g in games[i]]) for label, idx in groups.items()}
    index = {
        "format": FORMAT,
        "version": VERSION,
        "spec": spec.model_dump(),
        "conventions": CONVENTIONS,
        "cells": [{"key": d["cell"]["key"], "label": d["cell"]["label"], "summary": d["summary"]} for d in done],
        "option_sets": pooled,
    }
    (out / "sweep.json").write_text(json.dumps(index, indent=1))
    (out / "exploits.json").write_text(json.dumps({"thresholds": thresholds.__dict__, "findings": findings}, indent=1))
    labels = [c.label for c in cells]
    summaries = [d["summary"] for d in done]
    figures = [
        (
            "Seat advantage per option set (pooled over line-ups)",
            seat_figure(list(pooled), list(pooled.values()), "Seat advantage per option set"),
        ),
        ("Seat advantage per cell", seat_figure(labels, summaries, "Seat advantage per cell")),
        ("Game length per cell", length_figure(labels, games)),
        ("Ending mix per cell", endings_figure(labels, summaries)),
        *heatmaps(spec, cells, games),
        ("Exploit finder", findings_figure(findings)),
    ]
    figure_dir = out / "figures"
    figure_dir.mkdir(exist_ok=True)
    for i, (caption, png) in enumerate(figures):
        slug = re.sub(r"[^a-z0-9]+", "-", caption.lower()).strip("-")[:60]
        (figure_dir / f"{i:02d}-{slug}.png").write_bytes(base64.b64decode(png))
    total = sum(len(g) for g in games)
    head = (
        "<tr><th>cell</th><th>games (distinct)</th><th>rounds mean/median/p90</th><th>plies mean/median/p90</th>"
        "<th>centre / countdown / end request / truncation</th><th>share of wins: blue green red [95%]</th>"
        "<th>p equal seats</th><th>first mover (blue - 1/3)</th><th>win rate per strategy [95%]</th>"
        "<th>winner's points (+margin)</th><th>per game: conquests / liberations / exiles / lead changes / "
        "parked turns</th><th>records</th></tr>"
    )
    conventions = "".join(f"<li><b>{k}</b>: {html.escape(v)}</li>" for k, v in CONVENTIONS.items())
    page = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>Sweep {html.escape(spec.name)}</title>"
        f"<style>{_CSS}</style></head><body>",
        f"<h1>Sweep {html.escape(spec.name)}</h1><p>{html.escape(spec.description)}</p>",
        f"<p>{len(cells)} cells x {spec.games_per_cell} games = {total} games, every seating of every line-up, "
        f"seed {spec.seed}, {spec.opening_plies} random opening plies. Base options: "
        f"<code>{html.escape(json.dumps(spec.options.changes()))}</code>; grid: "
        f"<code>{html.escape(json.dumps(spec.grid.axes()))}</code>.</p>",
        "<h2>Exploit finder</h2>",
        *(_finding_html(f, evidence_paths) for f in findings),
        "<h2>Figures</h2>",
        *(f"<h3>{html.escape(caption)}</h3><img src='data:image/png;base64,{png}'>" for caption, png in figures),
        "<h2>Cells</h2><p>Records open with <code>dw show FILE --all</code> (hover a link for the command).</p>",
        f"<table>{head}{''.join(_cell_row(d) for d in done)}</table>",
        f"<h2>Conventions</h2><ul>{conventions}</ul></body></html>",
    ]
    path = out / "report.html"
    path.write_text("\n".join(page))
    return path


def format_summary(spec: SweepSpec, cells: Sequence[Cell], done: Sequence[dict[str, Any]], out: Path) -> str:
    """Return a short text table: per cell, length, endings and the seats' shares of the wins."""
    width = max(len(c.label) for c in cells)
    lines = [
        f"Sweep {spec.name}: {len(cells)} cell(s) x {spec.games_per_cell} games; report: {out / 'report.html'}",
        f"{'cell':<{width}}  rounds  centre  cdown  endreq  trunc   blue  green    red  p(equal)",
    ]
    for cell, data in zip(cells, done, strict=True):
        m = data["summary"]
        ends = "  ".join(f"{100 * m['endings'][r]:>5.0f}%" for r in END_REASONS)
        shares = "  ".join(f"{s['share_of_wins']:>5.2f}" for s in m["seats"])
        lines.append(
            f"{cell.label:<{width}}  {m['rounds']['mean']:>6.1f}  {ends}  {shares}  "
            f"{m['seat_equality']['p_value']:>8.3g}"
        )
    findings = json.loads((out / "exploits.json").read_text())["findings"]
    lines.append(
        "Exploit finder: " + "; ".join(f"{f['detector']} {f['wins']:g}/{f['n']} {f['unit']}" for f in findings)
    )
    return "\n".join(lines)
