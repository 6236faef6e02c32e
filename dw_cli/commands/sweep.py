"""``dw sweep SPEC.yaml``: a design study over a grid of game options and line-ups, with a report.

See docs/DESIGNERS.md. The work happens in :mod:`training.studies.sweep` (spec, cells, playing, cache),
:mod:`training.studies.sweep_stats` (facts and statistics), :mod:`training.studies.exploits` (the exploit finder) and
:mod:`training.studies.sweep_report` (report.html), imported when the command runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from dw_cli.commands.arguments import int_at_least


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "sweep",
        help="a design study: a grid of game options x line-ups, measured and reported for designers",
        description=(
            "Play every cell of the study in SPEC.yaml (option sets x grid x line-ups, N games per cell over "
            "every seating) on all cores, cache finished cells (a rerun continues an interrupted sweep), run "
            "the exploit finder and write report.html. See docs/DESIGNERS.md."
        ),
    )
    p.add_argument("spec", type=Path, help="the study's YAML spec (configs/sweeps/*.yaml)")
    p.add_argument("--out", type=Path, default=None, help="output folder (default runs/sweeps/<name>)")
    p.add_argument("--workers", type=int_at_least(1), default=None, help="worker processes (default: all cores)")
    p.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="play the games as Ray tasks on a cluster: auto, HOST:PORT (its head node) or local; the cells "
        "are the same as a local run's (needs the cluster extra; docs/SCALING.md)",
    )
    p.add_argument("--fresh", action="store_true", help="replay every cell, ignoring the cache")
    p.add_argument("--check", action="store_true", help="validate the spec, list its cells and stop")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from training.distributed.cluster import ClusterError
    from training.studies.sweep import expand, load_spec, run_sweep
    from training.studies.sweep_report import format_summary, write_report

    if not args.spec.is_file():
        raise FileNotFoundError(f"no such sweep spec: {args.spec}")
    spec = load_spec(args.spec)
    cells = expand(spec)
    out = args.out or Path("runs") / "sweeps" / spec.name
    if args.check:
        print(
            f"{args.spec}: valid; {len(cells)} cell(s) x {spec.games_per_cell} games "
            f"= {len(cells) * spec.games_per_cell} games"
        )
        for cell in cells:
            print(f"  {cell.key}  {cell.label}")
        return 0
    workers = args.workers or os.cpu_count() or 1
    start = time.perf_counter()
    try:
        cells, done, played = run_sweep(
            spec, out, workers=workers, progress=not args.no_progress, fresh=args.fresh, cluster=args.cluster
        )
    except ClusterError as exc:
        raise ValueError(str(exc)) from None  # one clear line: Ray missing, cluster unreachable, nodes lost
    report = write_report(out, spec, cells, done)
    print(format_summary(spec, cells, done, out))
    elapsed = time.perf_counter() - start
    where = f"the Ray cluster {args.cluster}" if args.cluster else f"{workers} worker(s)"
    print(
        f"({played} game(s) played in {elapsed:.1f} s on {where}; other cells from the cache)",
        file=sys.stderr,
    )
    print(f"wrote {report}", file=sys.stderr)
    return 0
