"""``dw bench WHAT``: speed benchmarks that print ratios against a reference measured in the same run."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

#: benchmark name -> module with ``run(seconds) -> dict``
BENCHMARKS: dict[str, str] = {
    "engine": "dw_cli.bench.engine",
    "env": "dw_cli.bench.env",
    "ai": "dw_cli.bench.ai",
    "train": "dw_cli.bench.train",
}


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("bench", help="speed benchmarks against references measured in the same run")
    p.add_argument("what", choices=sorted(BENCHMARKS), help="what to benchmark")
    p.add_argument("--seconds", type=float, default=5.0, help="time per measured configuration (default 5)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.seconds <= 0:
        raise ValueError(f"--seconds must be positive, got {args.seconds}")
    importlib.import_module(BENCHMARKS[args.what]).run(seconds=args.seconds)
    return 0
