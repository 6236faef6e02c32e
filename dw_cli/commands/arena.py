"""``dw arena``: seeded tournaments between strategies (or policy files) with ratings and intervals.

See docs/ARENA.md. The work happens in :mod:`training.evaluation.arena` (playing, statistics) and
:mod:`training.evaluation.arena_report` (table and files), imported when the command runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from dw_cli.commands.arguments import DEFAULT_GAME, add_game_argument, int_at_least, option_pairs, seconds_limit

#: upper bounds that catch typos before they schedule a billion games or fork a thousand processes
MAX_GAMES = 1_000_000
MAX_WORKERS = 256
MAX_BOOTSTRAP = 100_000
MAX_SEED = 2**63 - 1
#: training.evaluation.arena_config's DEFAULT_OPENING_PLIES and MAX_OPENING_PLIES, repeated so that ``dw --help``
#: need not import the engine (a test checks they agree)
DEFAULT_OPENING_PLIES = 3
MAX_OPENING_PLIES = 30


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "arena",
        help="tournaments between strategies with win rates, ratings and confidence intervals",
        description=(
            "Play every seating of each line-up, N games per line-up, on all cores. A seat is a registered "
            "strategy name or a policy file path. Prints the table; --out also writes results.json, "
            "results.csv, chart.png and game records."
        ),
    )
    add_game_argument(p)
    who = p.add_argument_group("who plays")
    who.add_argument("--players", nargs="+", metavar="SEAT", default=[], help="strategies (or policy files)")
    who.add_argument(
        "--mode",
        choices=("round-robin", "gauntlet", "lineup"),
        default=None,
        help="round-robin: every k-multiset of --players for a k-player game (default with --players); gauntlet: "
        "the first player vs k-1 copies of each other; lineup: the --lineup line-ups (default with --lineup)",
    )
    who.add_argument(
        "--lineup",
        action="append",
        default=[],
        metavar="A,B,C",
        help="a fixed line-up (one seat per player); repeatable",
    )
    run = p.add_argument_group("how many")
    run.add_argument("--games", type=int_at_least(1, MAX_GAMES), default=60, help="games per line-up (default 60)")
    run.add_argument("--seed", type=int_at_least(0, MAX_SEED), default=0, help="base seed (default 0)")
    run.add_argument(
        "--workers", type=int_at_least(1, MAX_WORKERS), default=None, help="worker processes (default: all cores)"
    )
    run.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="play the games as Ray tasks on a cluster: auto (the one `ray start` runs on this machine), "
        "HOST:PORT (its head node) or local (a fresh one on this machine); the results are the same as a "
        "local run's (needs the cluster extra; docs/SCALING.md)",
    )
    run.add_argument(
        "--bootstrap",
        type=int_at_least(0, MAX_BOOTSTRAP),
        default=200,
        help="bootstrap resamples for the rating (default 200)",
    )
    run.add_argument(
        "--opening-plies",
        type=int_at_least(0, MAX_OPENING_PLIES),
        default=None,
        metavar="K",
        help=f"start every game with K random legal plies, the same for game j of every seating and line-up "
        f"(0..{MAX_OPENING_PLIES}, default {DEFAULT_OPENING_PLIES}: one per colour, or the most the game allows "
        "(Frontera: 0, its games differ by their dice); 0: every game from the initial position)",
    )
    run.add_argument(
        "--seat-time-limit",
        type=seconds_limit("the seat time limit"),
        default=60.0,
        metavar="SECONDS",
        help="the most seconds one seat decision may take (0 < S <= 600, default 60); a seat that overruns, "
        "fails or chooses an illegal action plays the game's fallback action and the report counts its faults",
    )
    game = p.add_argument_group("Domain Wheel's options (rule 10; default: the standard game)")
    game.add_argument("--land-radius", type=int, default=None, help="land radius n (1..5, default 2)")
    game.add_argument("--map-radius", type=int, default=None, help="map radius R (2..5, default 4)")
    game.add_argument("--turns-to-conquer", type=int, default=None, help="K (1..8, default 4)")
    game.add_argument("--no-fast-knights", action="store_true", help="variant 10.5: no fast knights")
    game.add_argument("--king-alone-variant", action="store_true", help="variant 4.11: the king may not be alone")
    game.add_argument("--max-rounds", type=int, default=None, help="truncation limit in rounds (default 200)")
    out = p.add_argument_group("output")
    out.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for results.json, results.csv, chart.png (checked before any game; refused if it holds "
        "an earlier run, unless --overwrite)",
    )
    out.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an earlier run's files in --out (only the arena's own files; nothing else is touched)",
    )
    out.add_argument(
        "--save-games", type=int_at_least(0), default=0, metavar="K", help="save K selected games (needs --out)"
    )
    out.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=run_command)


def _options(args: argparse.Namespace) -> Any:
    """Return the options of ``args.game``: Domain Wheel's flags, or ``--option KEY=VALUE`` for the others."""
    from policies import games

    adapter = games.get(args.game)
    pairs = option_pairs(args.option)
    defaults = adapter.options_to_dict(adapter.default_options()) if args.game != DEFAULT_GAME else {}
    if "players" in defaults and "players" not in pairs and args.lineup:
        # a game whose number of players is an option (Frontera) takes it from the line-ups when not given
        pairs["players"] = len(str(args.lineup[0]).split(","))
    if args.game != DEFAULT_GAME:
        used = [f for f, v in _dw_flags(args).items() if v]
        if used:
            raise ValueError(f"{used[0]} is a Domain Wheel option; give {adapter.title}'s as --option KEY=VALUE")
        return adapter.options_from_dict(pairs)
    if pairs:
        raise ValueError("--option is for the other games; Domain Wheel's options have their own flags")
    from dw_env.options import GameOptions

    flags = {
        "land_radius": ("--land-radius", args.land_radius),
        "map_radius": ("--map-radius", args.map_radius),
        "turns_to_conquer": ("--turns-to-conquer", args.turns_to_conquer),
        "max_rounds": ("--max-rounds", args.max_rounds),
    }
    changes: dict[str, Any] = {k: v for k, (_, v) in flags.items() if v is not None}
    if args.no_fast_knights:
        changes["fast_knights"] = False
    if args.king_alone_variant:
        changes["king_may_be_alone"] = False
    try:
        return GameOptions().replace(**changes)
    except ValueError as exc:
        flag = next((f for k, (f, v) in flags.items() if v is not None and k in str(exc)), "game option")
        raise ValueError(f"{flag}: {exc}") from None


def _dw_flags(args: argparse.Namespace) -> dict[str, bool]:
    return {
        "--land-radius": args.land_radius is not None,
        "--map-radius": args.map_radius is not None,
        "--turns-to-conquer": args.turns_to_conquer is not None,
        "--max-rounds": args.max_rounds is not None,
        "--no-fast-knights": args.no_fast_knights,
        "--king-alone-variant": args.king_alone_variant,
    }


def run_command(args: argparse.Namespace) -> int:
    from training.distributed.cluster import ClusterError
    from training.evaluation.arena import run_arena
    from training.evaluation.arena_config import ArenaConfig, build_lineups
    from training.evaluation.arena_report import check_out, format_table, write_outputs

    if args.save_games and args.out is None:
        raise ValueError("--save-games needs --out DIR to write the game records into")
    if args.overwrite and args.out is None:
        raise ValueError("--overwrite needs --out DIR (the folder whose earlier run it replaces)")
    options = _options(args)
    mode = args.mode or ("lineup" if args.lineup else "round-robin")
    if not args.players and not args.lineup:
        raise ValueError("say who plays: --players A B ... (round-robin or gauntlet) or --lineup A,B,C")
    from policies import games

    adapter = games.get(args.game).for_options(options)
    lineups = build_lineups(mode, args.players, args.lineup, adapter)
    plies = args.opening_plies
    if plies is None:
        plies = min(DEFAULT_OPENING_PLIES, adapter.max_opening_plies(options))
    config = ArenaConfig(
        game=args.game,
        lineups=tuple(lineups),
        games_per_lineup=args.games,
        seed=args.seed,
        options=options,
        bootstrap=args.bootstrap,
        mode=mode,
        players=tuple(args.players),
        opening_plies=plies,
        seat_time_limit=args.seat_time_limit,
    )
    if args.out is not None:
        check_out(args.out, args.overwrite)  # before any game: a bad folder must not cost the run
    workers = args.workers or os.cpu_count() or 1
    start = time.perf_counter()
    try:
        summary, rows = run_arena(config, workers=workers, progress=not args.no_progress, cluster=args.cluster)
    except ClusterError as exc:
        raise ValueError(str(exc)) from None  # one clear line: Ray missing, cluster unreachable, nodes lost
    print(format_table(summary), flush=True)  # first: the table survives a failure to write the files
    elapsed = time.perf_counter() - start
    where = f"the Ray cluster {args.cluster}" if args.cluster else f"{min(workers, len(rows))} worker(s)"
    print(f"({len(rows)} games in {elapsed:.1f} s on {where})", file=sys.stderr)
    if args.out is None:
        return 0
    try:
        write_outputs(args.out, config, summary, rows, args.save_games, overwrite=args.overwrite)
    except (OSError, ValueError) as exc:
        print(
            f"dw arena: error: could not write the results into {args.out}: {exc} (the table above is complete)",
            file=sys.stderr,
        )
        return 1
    for saved in summary.get("saved_games", []):
        if not saved["same"]:
            print(f"warning: game {saved['game']} replayed differently (a seat is not deterministic)", file=sys.stderr)
    print(f"wrote {args.out}/results.json, results.csv, chart.png", file=sys.stderr)
    return 0
