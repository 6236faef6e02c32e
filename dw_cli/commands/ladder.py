"""``dw ladder``: calibrate a difficulty ladder of the browser game's menu and write its table (docs/LADDERS.md).

The ladders are the files of policies/ladders (``dw ladder --list``); the work happens in
:mod:`training.evaluation.ladder`, imported when the command runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from dw_cli.commands.arguments import int_at_least

MAX_GAMES = 100_000
MAX_WORKERS = 256
MAX_SEED = 2**63 - 1


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "ladder",
        help="calibrate a difficulty ladder (levels 1..k of a game) and write its rating table",
        description=(
            "Play every pair of levels one or two rungs apart in every seating, rate all levels on one "
            "Plackett-Luce (Elo) scale with 95%% intervals, check that each level is at least 100 points above "
            "the one below with intervals apart, and write the table to --out and the ratings the menu shows "
            "next to the ladder file. Exit status 1 when a gap fails."
        ),
    )
    p.add_argument("ladder", nargs="?", help="a ladder id (see --list) or a ladder .yaml file")
    p.add_argument("--list", action="store_true", help="list the shipped ladders and exit")
    p.add_argument("--games", type=int_at_least(1, MAX_GAMES), default=60, help="games per line-up (default 60)")
    p.add_argument("--seed", type=int_at_least(0, MAX_SEED), default=0, help="base seed (default 0)")
    p.add_argument(
        "--workers", type=int_at_least(1, MAX_WORKERS), default=None, help="worker processes (default: all cores)"
    )
    p.add_argument(
        "--out", type=Path, default=Path("docs/LADDERS.md"), help="the Markdown file whose ladder section is replaced"
    )
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from policies import ladders
    from training.evaluation import ladder as calibration

    if args.list:
        for name in ladders.names():
            lad = ladders.load(name)
            print(f"{name}: {lad.game}, {lad.label['en']}, {len(lad.levels)} levels")
        return 0
    if not args.ladder:
        raise ValueError("name a ladder (dw ladder --list shows them) or a ladder .yaml file")
    given = Path(args.ladder)
    if given.suffix == ".yaml":
        if not given.is_file():
            raise FileNotFoundError(f"no such ladder file: {args.ladder}")
        folder, name = given.resolve().parent, given.stem
    else:
        folder, name = ladders.FOLDER, args.ladder
    ladder = ladders.load(name, folder)
    if not args.out.parent.is_dir():  # checked before the games, not after an hour of them
        raise FileNotFoundError(f"--out {args.out}: no such folder {args.out.parent}; run from the repository's root")
    workers = args.workers or os.cpu_count() or 1
    steps, summary = calibration.calibrate(ladder, args.games, seed=args.seed, workers=workers)
    command = f"dw ladder {args.ladder} --games {args.games} --seed {args.seed}"
    section = calibration.table(ladder, steps, args.games, args.seed, command)
    print(section)
    calibration.write_docs(args.out, ladder.name, section)
    total = int(summary["overall"]["games"])
    calibration.write_ratings(ladders.ratings_path(name, folder), steps, args.games, total, args.seed)
    failed = calibration.failures(steps)
    for line in failed:
        print(f"dw ladder: gap fails: {line}", file=sys.stderr)
    return 1 if failed else 0
