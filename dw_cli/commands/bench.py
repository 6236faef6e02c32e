"""``dw bench WHAT``: speed benchmarks that print ratios against a reference measured in the same run."""

from __future__ import annotations

import argparse
import importlib
import math
from typing import Any

#: benchmark name -> module with ``run(seconds) -> dict``
BENCHMARKS: dict[str, str] = {
    "engine": "dw_cli.bench.engine",
    "env": "dw_cli.bench.env",
    "ai": "dw_cli.bench.ai",
    "train": "dw_cli.bench.train",
    "play": "dw_cli.bench.play",
    "export": "dw_cli.bench.export",
    "cluster": "dw_cli.bench.cluster",
    "selfplay": "dw_cli.bench.selfplay",
}


#: (benchmark, game) -> module for the games other than Domain Wheel (``dw bench engine --game alveole``)
GAME_BENCHMARKS: dict[tuple[str, str], str] = {
    ("engine", "alveole"): "dw_cli.bench.alveole",
    ("engine", "conquer"): "dw_cli.bench.conquer",
    ("engine", "frontera"): "dw_cli.bench.frontera_engine",
    ("train", "frontera"): "dw_cli.bench.frontera_train",
}
#: the games ``--game`` accepts (Domain Wheel is the default of every benchmark)
GAMES = ("domain_wheel", "alveole", "conquer", "frontera")


#: the time one benchmark configuration may be measured for (seconds): long enough for one measured
#: call of every driver, short enough to end
MIN_SECONDS, MAX_SECONDS = 0.1, 3600.0


def check_seconds(text: str) -> float:
    """Return ``--seconds`` as a float if it is a number in MIN_SECONDS..MAX_SECONDS, else raise ValueError.

    ``nan`` and ``inf`` parse as floats but would never end a measuring loop; float() also reads
    non-ASCII digits, which no other option takes.
    """
    try:
        seconds = float(text) if text.isascii() else math.nan
    except ValueError:
        seconds = math.nan
    if not MIN_SECONDS <= seconds <= MAX_SECONDS:  # false for nan
        raise ValueError(f"--seconds must be a number in {MIN_SECONDS:g}..{MAX_SECONDS:g}, got {text[:40]!r}")
    return seconds


def check_workers(text: str, largest: int) -> int:
    """Return ``--workers`` as an int in 0..``largest`` (0: not measured), else raise ValueError naming it."""
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text) <= largest:
        raise ValueError(f"--workers must be an integer in 0..{largest} (0: not measured), got {text[:40]!r}")
    return int(text)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("bench", help="speed benchmarks against references measured in the same run")
    p.add_argument("what", choices=sorted(BENCHMARKS), help="what to benchmark")
    p.add_argument("--seconds", type=str, default="5", help="time per measured configuration, 0.1..3600 (default 5)")
    p.add_argument(
        "--game",
        choices=GAMES,
        default=None,
        help="the game (default domain_wheel; selfplay: every game); alveole, conquer and frontera have the engine "
        "benchmark, alveole, conquer and domain_wheel the selfplay one, frontera the train one (its cases of dw bench "
        "train)",
    )
    p.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        default="cpu",
        help="train only: cuda measures the GPU config's throughput and GPU utilisation (dw_cli/bench/gpu_train.py)",
    )
    p.add_argument(
        "--workers",
        type=str,
        default="0",
        help="selfplay only: also measure self-play in 1 and in N worker processes (run.selfplay_workers), 1..256",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    seconds = check_seconds(args.seconds)  # before any import or warm-up: nan would never end a loop
    named = getattr(args, "game", None)  # None: not given (selfplay then measures every game)
    game = named or "domain_wheel"
    if getattr(args, "device", "cpu") == "cuda":
        if args.what != "train" or game != "domain_wheel":
            asked = f"dw bench {args.what} --game {game}"
            raise ValueError(f"--device cuda is for dw bench train (Domain Wheel); got {asked}")
        from dw_cli.bench import gpu_train

        gpu_train.run(seconds=seconds)  # refuses at once without CUDA
        return 0
    if args.what == "selfplay":  # search-guided training's games: every one by default, or the one named
        from dw_cli.bench import selfplay

        if named is not None and named not in selfplay.GAMES:
            raise ValueError(f"dw bench selfplay measures {', '.join(selfplay.GAMES)}, not {named}")
        workers = check_workers(getattr(args, "workers", "0"), selfplay.MAX_WORKERS)
        selfplay.run(seconds=seconds, games=selfplay.GAMES if named is None else (named,), workers=workers)
        return 0
    if getattr(args, "workers", "0") != "0":
        raise ValueError(f"--workers is for dw bench selfplay, not {args.what}")
    if game == "domain_wheel":
        module = BENCHMARKS[args.what]
    else:
        module = GAME_BENCHMARKS.get((args.what, game), "")
        if not module:
            offered = ", ".join(sorted(w for w, g in GAME_BENCHMARKS if g == game))
            raise ValueError(f"dw bench {args.what} is for domain_wheel; {game} has: {offered}")
    importlib.import_module(module).run(seconds=seconds)
    return 0
