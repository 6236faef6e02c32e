"""``dw train``: self-play PPO from a YAML config (training/ppo/ppo.py); torch is imported only when it runs.

Examples::

    dw train                                   # the default run: configs/small.yaml's settings
    dw train --config configs/standard_gpu.yaml
    dw train --config configs/small.yaml --set ppo.learning_rate=3e-4 --set run.seed=2
    dw train --resume runs/small-s1-20250101-120000 --set run.total_env_steps=6000000
    dw train --config configs/smoke.yaml --run-dir runs/try --overwrite   # replace the run in runs/try

A folder that already holds a run is never replaced silently: ``--run-dir`` naming one is refused before
any work starts unless ``--overwrite`` is given (or the run is continued with ``--resume``). Ctrl-C (or
SIGTERM) stops the run after the current update, writes its checkpoint and policy, says how to continue
and exits with status 130 (143 for SIGTERM); a second Ctrl-C aborts at once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

#: keys an override may change when resuming (the rest must stay as the checkpoint's run was configured)
RESUME_OVERRIDABLE: tuple[str, ...] = (
    "run.total_env_steps",
    "run.max_minutes",
    "run.checkpoint_every",
    "run.stop_after_updates",
    "run.progress",
    "run.device",
    "run.torch_threads",
    "run.env_threads",
    "run.scripted_workers",  # the same run for any count (training/ppo/scripted_processes.py)
    "run.cluster",  # the same rollouts on another cluster (the actor count, run.rollout_workers, stays)
    "eval.final_games",
    "eval.final_opponents",
    "eval.greedy",
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("train", help="self-play PPO training (needs the 'train' extra: torch)")
    p.add_argument("--config", type=Path, default=None, help="a YAML config (default: the small-map CPU run)")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config value, e.g. --set ppo.learning_rate=1e-4 (repeatable)",
    )
    p.add_argument(
        "--resume", type=Path, default=None, metavar="RUN", help="continue a run: its folder or its checkpoint.pt"
    )
    p.add_argument("--run-dir", type=Path, default=None, help="write the run here (default: out_dir/name-seed-time)")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the run already in --run-dir (its checkpoint, policy, config and logs); refused otherwise",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``dw train``; a signal before the run has anything to save (or a second one) ends it: 130 or 143."""
    from training.distributed.interrupt import exit_code

    try:
        return _run(args)
    except KeyboardInterrupt as exc:
        print("dw train: aborted; the last checkpoint written, if any, is intact", file=sys.stderr)
        return exit_code(exc)


def _run(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401
    except ImportError:
        raise ValueError("dw train needs torch: pip install -e '.[train]' (see the README)") from None
    from training.ppo import config as cfg
    from training.ppo.ppo import train

    if args.resume is not None and args.resume.is_dir():
        args.resume = args.resume / "checkpoint.pt"
    if _is_search_guided(args):
        return _run_search_guided(args)
    config = _resume_config(args) if args.resume is not None else cfg.load(args.config, args.overrides)

    result = train(config, resume=args.resume, run_dir=args.run_dir, overwrite=args.overwrite)
    c = result["counters"]
    if result["interrupted"]:
        print(
            f"dw train: stopped by {result['interrupted']} after {c['updates']} updates ({c['env_steps']:,} env "
            f"steps); checkpoint and policy written to {result['run_dir']}; continue with: "
            f"dw train --resume {result['run_dir']}",
            file=sys.stderr,
        )
        return int(result["exit_code"])
    print(
        f"trained {c['env_steps']:,} env steps ({c['decisions']:,} learner decisions, {c['updates']} updates, "
        f"{c['games']:,} games) in {c['seconds'] / 60:.1f} min; run: {result['run_dir']}"
    )
    if result["results"]:
        print("win rates as one seat against two copies of each opponent (every seating, 95% Wilson interval):")
        print(result["table"])
    return 0


#: what ``--set`` may change when a search-guided run is resumed: where it runs, how long, and what its evaluation
#: plays (the evaluation draws from no stream of the run's, so its weights are the same either way)
SEARCH_GUIDED_RESUME_OVERRIDABLE = (
    "run.iterations",
    "run.selfplay_workers",
    "run.cluster",
    "eval.games",
    "eval.opponents",
    "eval.opening_plies",
)


def _is_search_guided(args: argparse.Namespace) -> bool:
    """Return whether the run is a search-guided one (``algo: search_guided`` in its config or checkpoint)."""
    from training.search_guided import config as sg

    if args.resume is not None:
        from policies import checkpoint

        if not args.resume.exists():
            return False  # PPO's path names the missing file
        saved = checkpoint.load(args.resume).get("config")
        return sg.algo_of(saved) == sg.ALGO
    return args.config is not None and sg.algo_of(sg.read(args.config)) == sg.ALGO


def _run_search_guided(args: argparse.Namespace) -> int:
    """Run or continue a search-guided run (training/search_guided/search_guided.py) and print its figures."""
    from dw_env.errors import brief
    from policies import checkpoint
    from training.search_guided import config as sg
    from training.search_guided.search_guided import train

    if args.resume is not None:
        if args.config is not None:
            raise ValueError("--resume continues a run with the config saved in its checkpoint; do not pass --config")
        for text in args.overrides:  # where and how long it runs, and what its evaluation plays; not the run
            if text.partition("=")[0].strip() not in SEARCH_GUIDED_RESUME_OVERRIDABLE:
                raise ValueError(
                    f"--set {brief(text.partition('=')[0].strip())} cannot change when resuming; "
                    f"allowed: {', '.join(SEARCH_GUIDED_RESUME_OVERRIDABLE)}"
                )
        config = sg.from_dict(checkpoint.load(args.resume)["config"], args.overrides)
    else:
        config = sg.load(args.config, args.overrides)
    result = train(config, resume=args.resume, run_dir=args.run_dir, overwrite=args.overwrite)
    c = result["counters"]
    if result["interrupted"]:
        print(
            f"dw train: stopped by {result['interrupted']} after {c['iterations']} iterations; checkpoint and "
            f"policy written to {result['run_dir']}; continue with: dw train --resume {result['run_dir']}",
            file=sys.stderr,
        )
        return int(result["exit_code"])
    print(
        f"search-guided: {c['iterations']} iterations, {c['games']:,} self-play games, {c['moves']:,} moves "
        f"({c['targets']:,} training targets), {c['samples']:,} learner samples in {c['seconds'] / 60:.1f} min; "
        f"run: {result['run_dir']}"
    )
    return 0


def _resume_config(args: argparse.Namespace) -> Any:
    """Return the config saved in the checkpoint, with the few overrides a resumed run may take."""
    from dw_env.errors import brief
    from policies import checkpoint

    if args.config is not None:
        raise ValueError("--resume continues a run with the config saved in its checkpoint; do not pass --config")
    for text in args.overrides:
        key = text.partition("=")[0].strip()
        if key not in RESUME_OVERRIDABLE:
            raise ValueError(
                f"--set {key if len(key) <= 80 else brief(key)} cannot change when resuming; "
                f"allowed: {', '.join(RESUME_OVERRIDABLE)}"
            )
    from training.ppo.resume import saved_config

    payload = checkpoint.load(args.resume)
    return saved_config(payload, args.resume, list(args.overrides))
