"""``dw show FILE``: print a position, or step through a game record, as a text board."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("show", help="print a position or step through a game record")
    p.add_argument("file", type=Path, help="a position (.json) or a game record (.json) file")
    p.add_argument("--step", type=int, default=None, help="show the position after this many moves of a record")
    p.add_argument("--all", action="store_true", help="show every position of a record, one after another")
    p.add_argument("--interactive", action="store_true", help="step through a record: Enter next, b back, q quit")
    p.add_argument("--color", action="store_true", help="colour lands by owner with ANSI escapes")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dw_env import position
    from dw_env.render_text import render

    path: Path = args.file
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    kind = data.get("format") if isinstance(data, dict) else None
    if kind == position.FORMAT:
        print(render(position.from_dict(data), color=args.color))
        return 0
    from dw_env.record import GameRecord

    if kind != GameRecord.FORMAT:
        raise ValueError(f"{path}: format {kind!r} is neither {position.FORMAT!r} nor {GameRecord.FORMAT!r}")
    record = GameRecord.from_dict(data)
    games = list(record.positions())
    moves = record.notation
    if args.step is not None:
        if not 0 <= args.step < len(games):
            raise ValueError(f"--step {args.step} is out of range; allowed: 0..{len(games) - 1}")
        games = games[args.step : args.step + 1]
        first = args.step
    elif args.all or args.interactive:
        first = 0
    else:
        games, first = games[-1:], len(games) - 1
    i = 0
    while 0 <= i < len(games):
        n = first + i
        last = f"after move {n}: {moves[n - 1]}" if n > 0 else "initial position"
        print(f"[{n}/{len(moves)}] {last}")
        print(render(games[i], color=args.color))
        if not args.interactive:
            i += 1
            continue
        answer = sys.stdin.readline()
        if not answer or answer.strip().lower() == "q":
            break
        i = i - 1 if answer.strip().lower() == "b" else i + 1
    return 0
