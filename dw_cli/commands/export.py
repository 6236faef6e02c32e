"""``dw export CHECKPOINT -o DIR``: a trained checkpoint as a strategy package that plays without torch.

See docs/EXPORT.md. The work happens in :mod:`training.export.export` (graphs and manifest),
:mod:`training.export.export_parity` (``--parity``) and the arena (``--measure``), imported when the command runs.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from dw_cli.commands.arguments import int_at_least


def _display_name(text: str) -> tuple[str, str]:
    lang, sep, name = text.partition("=")
    if sep and 2 <= len(lang) <= 3 and lang.isalpha():
        return lang, name
    return "en", text


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "export",
        help="export a trained checkpoint as a strategy package (ONNX + strategy.json) that plays without torch",
        description=(
            "Write a strategy package folder: model.onnx (the trained map or grid), one more graph per --map "
            "(Domain Wheel; Frontera: its three reference maps always, --map FILE.json) or --grid (Conquer), and "
            "strategy.json (names, game and options, observation and "
            "action layouts, tensor names, provenance, strength card, parity). The game is the checkpoint's. "
            "The folder appears complete or not at all."
        ),
    )
    p.add_argument("checkpoint", type=Path, help="a dw train checkpoint or policy file (.pt)")
    p.add_argument("-o", "--out", type=Path, required=True, metavar="DIR", help="the package folder to write")
    p.add_argument("--name", default=None, help="package name (default: the checkpoint's file name)")
    p.add_argument(
        "--display-name",
        action="append",
        default=[],
        metavar="TEXT",
        help="display name; LANG=TEXT for a language (es=..., default language en); repeatable",
    )
    p.add_argument("--description", default=None, help="one paragraph describing the agent")
    p.add_argument(
        "--flavour",
        choices=("plain", "ml-agents"),
        default="plain",
        help="plain: int8 inputs, masked logits and greedy action (default); ml-agents: Unity ML-Agents tensors",
    )
    p.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="N,R",
        help=(
            "also accept this map: Domain Wheel's LAND_RADIUS,MAP_RADIUS, Frontera's small|medium|large or a "
            "frontera-map/1 FILE.json; repeatable; the trained map (Frontera: all three reference maps) is always in"
        ),
    )
    p.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="WxH",
        help="board games: also accept this grid (Conquer: a WxH board); repeatable; the trained grid is always in",
    )
    p.add_argument(
        "--measure",
        type=int_at_least(0),
        default=0,
        metavar="GAMES",
        help="measure the package in the arena: GAMES per opponent line-up (default 0: copy the model card)",
    )
    p.add_argument(
        "--parity",
        type=int_at_least(0),
        default=0,
        metavar="N",
        help="check N positions against the checkpoint (default 0; Frontera always checks, 4 per map, players and fog)",
    )
    p.add_argument("--workers", type=int_at_least(0), default=None, help="arena worker processes (default: all cores)")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the arena and the parity games (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from training.export.export import ExportRequest, export_package, is_map_name, parse_grid, parse_map

    request = ExportRequest(
        checkpoint=args.checkpoint,
        out=args.out,
        name=args.name,
        display_names=tuple(_display_name(t) for t in args.display_name),
        description=args.description,
        flavour=args.flavour,
        maps=tuple(parse_map(m) for m in args.map if not is_map_name(m)),
        map_names=tuple(m for m in args.map if is_map_name(m)),
        grids=tuple(parse_grid(g) for g in args.grid),
        measure=args.measure,
        parity=args.parity,
        workers=args.workers or os.cpu_count() or 1,
        seed=args.seed,
        progress=not args.no_progress,
    )
    manifest = export_package(request)
    graphs = ", ".join(
        f"{g['file']} ({', '.join(f'{k}={v}' for k, v in g['accepts'].items())})" for g in manifest["graphs"]
    )
    print(f"wrote {args.out}: {manifest['flavour']} package {manifest['name']!r}: {graphs}")
    parity = manifest["parity"]
    if parity:
        print(
            f"parity: {parity['agree']}/{parity['positions']} greedy actions agree, "
            f"max |logit difference| {parity['max_abs_logit_diff']:.3g}"
            + (f" (tolerance {parity['tolerance']:g})" if "tolerance" in parity else "")
            + (f", max |value difference| {parity['max_abs_value_diff']:.3g}" if "max_abs_value_diff" in parity else "")
        )
    strength = manifest["strength"]
    for row in strength.get("results", []):
        print(f"  vs {row['opponents']:<18} {row['games']:>5} games  win rate {100 * row['win_rate']:5.1f}%")
    print(f"strength: {strength['source']}")
    return 0
