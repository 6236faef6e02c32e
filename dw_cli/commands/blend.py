"""``dw blend START TUNED --weight W -o OUT.pt``: a policy file on the line between two checkpoints' weights.

See :mod:`policies.blend` (what is checked, what the file holds, why it works). The file is written atomically:
it appears whole or not at all, and an existing file is replaced only with ``--force``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def _weight(text: str) -> float:
    from policies.blend import check_weight

    try:
        return check_weight(float(text))
    except ValueError as exc:  # float()'s or the range's
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}") from exc


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "blend",
        help="average two checkpoints of one network: a fine-tuned network and the one it started from",
        description=(
            "Write a policy file whose weights are (1 - W) x START + W x TUNED: two checkpoints of the same game "
            "and network, one trained on from the other (WiSE-FT: the blend often keeps the tuned network's gains "
            "and wins back what it lost on games it no longer trained on). The file carries TUNED's options, "
            "config and counters and names both files with their SHA-256; it plays in the arena, exports and "
            "starts training runs as any checkpoint does."
        ),
    )
    p.add_argument("start", type=Path, help="the checkpoint training started from (.pt)")
    p.add_argument("tuned", type=Path, help="the checkpoint trained on from it (.pt)")
    p.add_argument(
        "--weight", type=_weight, required=True, metavar="W", help="the tuned weights' share, 0..1 (0: START, 1: TUNED)"
    )
    p.add_argument("-o", "--out", type=Path, required=True, metavar="OUT.pt", help="the policy file to write")
    p.add_argument("--force", action="store_true", help="replace OUT.pt if it exists")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from policies import checkpoint
    from policies.blend import BLEND_KEY, blend

    out: Path = args.out
    if out.suffix != ".pt":
        raise ValueError(f"--out {str(out)!r} must name a .pt file (a policy file for dw arena, export and train)")
    if out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a folder; name the .pt file to write")
    if out.exists() and not args.force:
        raise ValueError(f"--out {str(out)!r} exists; pass --force to replace it")
    if not out.parent.is_dir():
        raise FileNotFoundError(f"--out {str(out)!r}: no such folder {str(out.parent)!r}")
    payload = blend(args.start, args.tuned, args.weight)
    checkpoint.save(out, payload)
    counted = sum(int(t.numel()) for t in payload["model"].values())
    w = payload[BLEND_KEY]["weight"]
    print(
        f"wrote {out}: {1 - w:g} x {args.start.name} + {w:g} x {args.tuned.name} "
        f"({checkpoint.game_of(payload, out)}, {len(payload['model'])} tensors, {counted:,} numbers)"
    )
    return 0
