"""The ``dw`` command line: one subcommand per module, registered below.

Each command module exposes ``register(subparsers)``, which adds its parser and
sets ``func``; heavy imports (torch, pettingzoo) happen inside ``func`` so that
``dw --help`` stays fast and the engine alone never needs them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading

from training.distributed.worker_process import ignore_stop_signals_if_spawning

ignore_stop_signals_if_spawning()  # before numba's imports below: a spawned worker takes no stop signal

# OpenMP workers (numba's and torch's) spin between parallel regions unless told otherwise; on a shared
# machine the spinning starves the other threads. Torch starts its pool on import, before the vector env
# could set this, so the command line sets it first; a value the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from dw_env.info import GAME_TITLE  # noqa: E402
from policies.allocator import keep_freed_memory  # noqa: E402
from training.distributed.interrupt import exit_code, raise_interrupted  # noqa: E402

#: subcommand modules, in the order ``dw --help`` lists them
COMMAND_MODULES: tuple[str, ...] = (
    "dw_cli.commands.show",
    "dw_cli.commands.bench",
    "dw_cli.commands.arena",
    "dw_cli.commands.train",
    "dw_cli.commands.sweep",
    "dw_cli.commands.ladder",
    "dw_cli.commands.export",
    "dw_cli.commands.blend",
    "dw_cli.commands.play",
)


def build_parser() -> argparse.ArgumentParser:
    """Return the ``dw`` argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="dw", description=f"{GAME_TITLE}: rules engine, environments, scripted AIs and training."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``dw`` command line; return the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    keep_freed_memory()  # network passes on a CPU: freed activations stay in the heap (policies/allocator.py)
    # SIGTERM (`timeout`, a job scheduler, `kill`) ends a command as Ctrl-C does: its `with` blocks stop its
    # workers and remove what is half-written (dw train's first signal of either kind stops it cleanly itself)
    main_thread = threading.current_thread() is threading.main_thread()  # only there may a handler be set
    previous = signal.signal(signal.SIGTERM, raise_interrupted) if main_thread else None
    try:
        result = args.func(args)
    except (ValueError, FileNotFoundError) as exc:  # user errors: one clear line, no traceback
        print(f"dw {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        code = exit_code(exc)
        by = "" if code == 130 else f" by {signal.Signals(code - 128).name}"
        print(f"dw {args.command}: interrupted{by}", file=sys.stderr)
        return code
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
