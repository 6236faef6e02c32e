"""Design studies: ``dw sweep SPEC.yaml`` plays a grid of game options x line-ups and measures each cell.

A *cell* is one set of game options (rule 10) and one line-up of three seats. Each cell plays
``games_per_cell`` arena games split evenly over the six seatings (:func:`training.evaluation.arena.schedule`,
:func:`training.evaluation.arena.play_game`), every game seeded from ``(seed, game index)`` exactly as in the arena, so
the same game index in two cells uses the same seat seeds (common random numbers: differences between
cells are the options', not the dice's). Every game is replayed by :func:`training.studies.sweep_stats.observe_game`
for its facts.

A spec (YAML, strict: an unknown key, a wrong type or an option out of range is an error naming it)::

    name: k-and-variants
    seed: 0
    games_per_cell: 60                # per cell, split over the six seatings (use a multiple of 6)
    opening_plies: 3                  # random legal plies opening game j of every seating (arena openings)
    options: {land_radius: 1, map_radius: 2, max_rounds: 100}  # the base options
    option_sets:                      # optional: named option sets, each crossed with the grid
      - {name: small, options: {}}
    grid:                             # each listed option takes every value; cells are the product
      turns_to_conquer: [2, 4, 6]
      fast_knights: [true, false]
      king_may_be_alone: [true, false]
    lineups:
      - {name: ais, seats: [balanced, center, guardian]}
      - [balanced, random, random]

Outputs under the output folder: ``cells/<key>/cell.json`` (the cell and its statistics; written last, it
marks the cell done), ``cells/<key>/games.jsonl`` (every game: seats, seeds, actions and facts),
``cells/<key>/records/{longest,shortest,typical}.json`` (``dw show FILE --all`` replays them), then
``sweep.json``, ``exploits.json`` and ``report.html``. ``<key>`` is a hash of everything the cell's games
depend on (options, seats, games, seed, the bytes of policy files, :data:`CACHE_VERSION`): a rerun skips
finished cells, so an interrupted sweep continues where it stopped and an edited spec replays only the
cells it changed.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import itertools
import json
import math
import os
import statistics
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from dw_env.engine import Move
from dw_env.info import PLAYER_NAMES
from dw_env.options import GameOptions
from dw_env.record import GameRecord, format_move, parse_move
from gamecore.errors import brief, clip
from gamecore.loaders import load_json, parse_json, read_text, read_yaml
from policies.files import check_seat_spec, is_registered, load_policy_file
from training.distributed.game_pool import GamePool
from training.distributed.worker_process import ignore_stop_signals
from training.evaluation.arena import GameTask, play_game, schedule, worker_start_method
from training.evaluation.arena_config import DEFAULT_OPENING_PLIES, ArenaConfig, Lineup, check_opening_plies
from training.studies.sweep_stats import Facts, observe_game, summarize_cell

FORMAT = "domain-wheel-sweep"
VERSION = 1
#: bump when a cell's stored games or facts change meaning: every cached cell is then replayed
CACHE_VERSION = 1
#: game options a grid may vary (GameOptions fields, rule 10)
GRID_OPTIONS = ("turns_to_conquer", "fast_knights", "king_may_be_alone", "land_radius", "map_radius", "max_rounds")
#: a spec file larger than this is refused, read no further
MAX_SPEC_BYTES = 1 << 20
#: the most cells a study may have (option sets x grid points x line-ups), counted before the grid is expanded
MAX_CELLS = 10_000
#: the most games one cell may play
MAX_GAMES_PER_CELL = 1_000_000
#: a study's name: one folder name (it names runs/sweeps/<name>) of at most 100 characters
NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,100}$"
#: the records kept per cell for the report
KEPT_RECORDS = ("longest", "shortest", "typical")


# ---- the spec ------------------------------------------------------------------------------------------
#: the largest cell.json (and games.jsonl row) and games.jsonl a resumed study reads back
MAX_CELL_BYTES = 16 * 1024 * 1024
MAX_GAMES_BYTES = 1024 * 1024 * 1024


class SpecError(ValueError):
    """A sweep spec, or its file, that is not allowed; the message names what, the value and what is allowed."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class OptionsSpec(_Strict):
    """Game options (rule 10); an omitted option keeps the base (or standard) value."""

    land_radius: int | None = None
    map_radius: int | None = None
    turns_to_conquer: int | None = None
    fast_knights: bool | None = None
    king_may_be_alone: bool | None = None
    max_rounds: int | None = None

    def changes(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class OptionSet(_Strict):
    name: Annotated[str, Field(min_length=1, max_length=100)]
    options: OptionsSpec = OptionsSpec()


class GridSpec(_Strict):
    """Options to vary: each listed option takes every one of its values."""

    turns_to_conquer: list[int] | None = None
    fast_knights: list[bool] | None = None
    king_may_be_alone: list[bool] | None = None
    land_radius: list[int] | None = None
    map_radius: list[int] | None = None
    max_rounds: list[int] | None = None

    @field_validator("*")
    @classmethod
    def _distinct(cls, values: list[Any] | None) -> list[Any] | None:
        if values is not None:
            if not values:
                raise ValueError("needs at least one value (or leave the option out)")
            if len(set(values)) != len(values):
                raise ValueError(f"lists a value twice: {brief(values)}")
        return values

    def axes(self) -> dict[str, list[Any]]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class LineupSpec(_Strict):
    name: Annotated[str, Field(max_length=100)] | None = None
    seats: Annotated[list[str], Field(min_length=3, max_length=3)]


class DetectorSpec(_Strict):
    """Thresholds of the exploit finder (training/studies/exploits.py)."""

    parked_turns: Annotated[int, Field(ge=1)] = 3
    early_rounds: Annotated[int, Field(ge=1)] = 5
    pass_run_rounds: Annotated[int, Field(ge=1)] = 3
    stalemate_rounds: Annotated[int, Field(ge=1)] = 30
    seating_share: Annotated[float, Field(gt=0.5, le=1.0)] = 0.9
    alpha: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.01
    evidence: Annotated[int, Field(ge=0)] = 3


class SweepSpec(_Strict):
    name: Annotated[str, Field(pattern=NAME_PATTERN)]
    description: Annotated[str, Field(max_length=10_000)] = ""
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = 0
    games_per_cell: Annotated[int, Field(ge=1, le=MAX_GAMES_PER_CELL)]
    opening_plies: Annotated[int, Field(ge=0, le=1000)] = DEFAULT_OPENING_PLIES
    options: OptionsSpec = OptionsSpec()
    option_sets: list[OptionSet] = []
    grid: GridSpec = GridSpec()
    lineups: Annotated[list[LineupSpec | list[str]], Field(min_length=1)]
    detectors: DetectorSpec = DetectorSpec()

    def named_lineups(self) -> list[tuple[str, Lineup]]:
        """Return the line-ups as (name, seats); an unnamed one is named by its seats."""
        result = []
        for entry in self.lineups:
            seats = entry.seats if isinstance(entry, LineupSpec) else entry
            if len(seats) != 3:
                raise ValueError(f"lineups: {brief(seats)} must list exactly 3 seats (Blue, Green, Red)")
            name = entry.name if isinstance(entry, LineupSpec) and entry.name else ",".join(seats)
            result.append((name, (seats[0], seats[1], seats[2])))
        names = [n for n, _ in result]
        twice = [n for i, n in enumerate(names) if n in names[:i]]
        if twice:
            raise ValueError(f"lineups: the name {brief(twice[0])} is used twice")
        return result


def _error_text(exc: ValidationError, limit: int = 3) -> str:
    parts = []
    errors = exc.errors(include_url=False)
    for err in errors[:limit]:
        where = ".".join(brief(x, 40) if not isinstance(x, str | int) else str(x)[:40] for x in err["loc"]) or "spec"
        got = brief(err.get("input"))
        parts.append(f"{where}: {clip(err['msg'])} (got {got})" if err["type"] != "missing" else f"{where}: required")
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(parts) + more


def count_cells(spec: SweepSpec) -> int:
    """Return how many cells the spec has (option sets x grid points x line-ups), without expanding the grid."""
    return max(1, len(spec.option_sets)) * math.prod(len(v) for v in spec.grid.axes().values()) * len(spec.lineups)


def check_cell_count(spec: SweepSpec) -> None:
    """Refuse a spec of more than :data:`MAX_CELLS` cells, naming the count and the limit (SpecError)."""
    cells = count_cells(spec)
    if cells > MAX_CELLS:
        sets, axes = max(1, len(spec.option_sets)), [len(v) for v in spec.grid.axes().values()]
        shape = " x ".join(str(n) for n in (sets, *axes, len(spec.lineups)))
        raise SpecError(
            f"the study has {cells:,} cells (option sets x grid x line-ups: {shape}); allowed: at most {MAX_CELLS:,}"
        )


def parse_spec(data: Any) -> SweepSpec:
    """Return the validated spec; SpecError names each bad key, the value received and what is allowed."""
    if not isinstance(data, dict):
        raise SpecError(f"a sweep spec must be a mapping, got {brief(data)}")
    try:
        spec = SweepSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(f"invalid sweep spec: {_error_text(exc)}") from None
    except RecursionError:
        raise SpecError("invalid sweep spec: nested too deeply") from None
    check_cell_count(spec)
    try:
        lineups = spec.named_lineups()
    except ValueError as exc:
        raise SpecError(clip(str(exc))) from None
    for name, seats in lineups:
        for seat in seats:
            try:
                check_seat_spec(seat)
            except (ValueError, FileNotFoundError) as exc:
                raise SpecError(f"lineups: {brief(name, 60)}: {clip(str(exc))}") from None
    expand(spec)  # every option value in range
    return spec


def load_spec(path: str | Path) -> SweepSpec:
    """Read and validate a YAML spec file (strictly: gamecore.loaders); SpecError names the file."""
    text = read_text(path, MAX_SPEC_BYTES, SpecError)
    data = read_yaml(text, str(path), SpecError, limit=MAX_SPEC_BYTES)
    try:
        return parse_spec(data)
    except SpecError as exc:
        raise SpecError(f"{path}: {exc}") from None


# ---- cells ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    """One option set x grid point x line-up: what its games play and where its results live."""

    key: str
    option_set: str
    grid: dict[str, Any]
    lineup: str
    seats: Lineup
    options: GameOptions
    games: int
    seed: int
    opening_plies: int

    @property
    def option_label(self) -> str:
        """Return the option set and grid point, short: ``"small | K=2, fast=on"``."""
        grid = ", ".join(f"{_SHORT.get(k, k)}={_value_text(v)}" for k, v in self.grid.items())
        return " | ".join(p for p in (self.option_set, grid) if p)

    @property
    def label(self) -> str:
        return " | ".join(p for p in (self.option_label, self.lineup) if p)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "option_set": self.option_set,
            "grid": self.grid,
            "lineup": self.lineup,
            "seats": list(self.seats),
            "options": self.options.to_dict(),
            "games": self.games,
            "seed": self.seed,
            "opening_plies": self.opening_plies,
        }


_SHORT = {
    "turns_to_conquer": "K",
    "fast_knights": "fast",
    "king_may_be_alone": "alone",
    "land_radius": "n",
    "map_radius": "R",
    "max_rounds": "maxR",
}


def _value_text(value: Any) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _file_digest(spec: str) -> str | None:
    """Return a hash of a seat's policy file, or of every file of a package folder (None for a name)."""
    if is_registered(spec):
        return None
    path = Path(spec)
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]:
        digest.update(file.relative_to(path).as_posix().encode() if path.is_dir() else b"")
        digest.update(file.read_bytes())
    return digest.hexdigest()


def cell_key(options: GameOptions, seats: Lineup, games: int, seed: int, opening_plies: int) -> str:
    """Return the cache key of a cell: a hash of everything its games depend on."""
    payload = {
        "cache": CACHE_VERSION,
        "options": options.to_dict(),
        "seats": list(seats),
        "files": [_file_digest(s) for s in seats],
        "games": games,
        "seed": seed,
        "opening_plies": opening_plies,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def expand(spec: SweepSpec) -> list[Cell]:
    """Return the sweep's cells: option sets x grid product x line-ups, in that nesting order.

    SpecError for a spec of more than :data:`MAX_CELLS` cells (counted first) or an option out of range.
    """
    check_cell_count(spec)
    base = spec.options.changes()
    sets = spec.option_sets or [OptionSet.model_construct(name="", options=OptionsSpec())]
    axes = spec.grid.axes()
    cells = []
    for option_set in sets:
        for values in itertools.product(*axes.values()):
            point = dict(zip(axes, values, strict=True))
            try:
                options = GameOptions().replace(**{**base, **option_set.options.changes(), **point})
            except ValueError as exc:
                where = (
                    f"option set {brief(option_set.name)}, grid point {point}" if option_set.name else f"grid {point}"
                )
                raise SpecError(clip(f"{where}: {exc}")) from None
            try:
                check_opening_plies(spec.opening_plies, options)
            except ValueError as exc:
                raise SpecError(clip(f"opening_plies: {exc}".replace("--opening-plies ", ""))) from None
            for name, seats in spec.named_lineups():
                n, seed, plies = spec.games_per_cell, spec.seed, spec.opening_plies
                key = cell_key(options, seats, n, seed, plies)
                cells.append(Cell(key, option_set.name, point, name, seats, options, n, seed, plies))
    counts = collections.Counter(c.key for c in cells)
    twice = [c.label for c in cells if counts[c.key] > 1]
    if twice:
        raise SpecError(f"two cells play the same games: {brief(twice[0])} (same options and seats); remove one")
    return cells


# ---- playing -------------------------------------------------------------------------------------------
def play_cell_game(cell: Cell, task: GameTask) -> dict[str, Any]:
    """Play one game of a cell with the arena; return its row: seats, seeds, actions (notation) and facts."""
    moves: list[Move] = []
    row = play_game(task, cell.options, cell.seed, on_move=moves.append, opening_plies=cell.opening_plies)
    facts = observe_game(cell.options, moves)
    if facts["winners"] != row["winners"] or facts["scores"] != row["scores"]:
        raise RuntimeError(f"cell {cell.label}: game {task.index} replayed to a different result")
    from dw_env.geometry import build_geometry

    geometry = build_geometry(cell.options.land_radius, cell.options.map_radius)
    return {
        "game": task.index,
        "seating": task.seating,
        "strategies": list(task.seats),
        "seeds": row["seeds"],
        "opening": row["opening"],
        "game_hash": row["game_hash"],
        "moves": [format_move(geometry, m) for m in moves],
        **facts,
    }


def _play_item(item: tuple[int, Cell, GameTask]) -> tuple[int, dict[str, Any]]:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    index, cell, task = item
    return index, play_cell_game(cell, task)


def cell_tasks(cell: Cell) -> list[GameTask]:
    """Return the arena schedule of a cell: its line-up over the six seatings."""
    config = ArenaConfig(
        (cell.seats,),
        games_per_lineup=cell.games,
        seed=cell.seed,
        options=cell.options,
        opening_plies=cell.opening_plies,
    )
    return schedule(config)


def record_of(cell: Cell, game: dict[str, Any]) -> GameRecord:
    """Return the replayable game record of one stored game (initial position, actions, seats, result)."""
    from dw_env.engine import Game

    record = GameRecord.from_game(Game.new(cell.options), players=game["strategies"])
    for text in game["moves"]:
        record.append(parse_move(record.geometry, text))
    scores = game["scores"]
    record.result = {
        "end_reason": game["end_reason"],
        "winners": game["winners"],
        "scores": {name: scores[p] for p, name in enumerate(PLAYER_NAMES)},
    }
    return record


def pick_records(games: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Return the game indices kept for the report: the longest, the shortest and a typical (median) one."""
    by_plies = sorted(games, key=lambda g: (g["plies"], g["game"]))
    median = statistics.median(g["plies"] for g in games)
    typical = min(games, key=lambda g: (abs(g["plies"] - median), g["game"]))
    return {"longest": by_plies[-1]["game"], "shortest": by_plies[0]["game"], "typical": typical["game"]}


def cell_dir(out: Path, cell: Cell) -> Path:
    return out / "cells" / cell.key


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def save_cell(out: Path, cell: Cell, games: list[dict[str, Any]]) -> dict[str, Any]:
    """Write a finished cell (games, kept records, then cell.json); return its cell.json content."""
    folder = cell_dir(out, cell)
    (folder / "records").mkdir(parents=True, exist_ok=True)
    games = sorted(games, key=lambda g: g["game"])
    _write_atomic(folder / "games.jsonl", "".join(json.dumps(g, separators=(",", ":")) + "\n" for g in games))
    kept = pick_records(games)
    for what, index in kept.items():
        record_of(cell, games[index]).save(folder / "records" / f"{what}.json")
    data = {
        "format": FORMAT,
        "version": VERSION,
        "cell": cell.to_dict(),
        "complete": True,
        "records": {what: f"records/{what}.json" for what in kept},
        "record_games": kept,
        "summary": summarize_cell(games),
    }
    _write_atomic(folder / "cell.json", json.dumps(data, indent=1))
    return data


def load_cell(out: Path, cell: Cell) -> dict[str, Any] | None:
    """Return a finished cell's cell.json, or None when it is missing, incomplete or for other games."""
    path = cell_dir(out, cell) / "cell.json"
    try:
        data = load_json(path, MAX_CELL_BYTES, SpecError)
    except (OSError, SpecError):  # missing, unreadable or damaged: the cell is played again
        return None
    if not isinstance(data, dict) or not data.get("complete") or data.get("cell", {}).get("key") != cell.key:
        return None
    return data


def load_games(out: Path, cell: Cell) -> list[Facts]:
    """Return a finished cell's stored games (rows of games.jsonl); SpecError naming the file and line if damaged."""
    path = cell_dir(out, cell) / "games.jsonl"
    rows = []
    for number, line in enumerate(read_text(path, MAX_GAMES_BYTES, SpecError).splitlines(), 1):
        if line.strip():
            try:
                rows.append(parse_json(line, MAX_CELL_BYTES, SpecError))
            except SpecError as exc:
                raise SpecError(f"{path}, line {number}: {exc}; delete the cell's folder to play it again") from None
    return rows


def _warm_up(items: Sequence[tuple[int, Cell, GameTask]]) -> None:
    """Compile the engine's and the scripted AIs' kernels once, here, before the workers fork."""
    seen: set[str] = set()
    for _, cell, task in items:
        fresh = set(task.seats) - seen
        if fresh:
            seen |= fresh
            play_game(task, cell.options, cell.seed, opening_plies=cell.opening_plies)


def _play_chunk(chunk: list[tuple[int, Cell, GameTask]]) -> list[tuple[int, Facts]]:
    """Return the games of one chunk of items (a Ray task of :func:`_cluster_results`)."""
    return [_play_item(item) for item in chunk]


def _cluster_results(items: list[tuple[int, Cell, GameTask]], address: str) -> Iterator[tuple[int, Facts]]:
    """Yield the items' games played in chunks on the Ray cluster at ``address``; a lost chunk is replayed once."""
    from training.distributed import cluster

    with cluster.connect(address):
        size = cluster.chunk_size(len(items), cluster.cluster_cpus())
        for _, games in cluster.imap(_play_chunk, cluster.chunked(items, size)):
            yield from games


def _results(
    items: list[tuple[int, Cell, GameTask]], workers: int, files: bool, cluster: str | None = None
) -> Iterator[tuple[int, Facts]]:
    if cluster is not None and items:  # nothing to play (every cell cached): no cluster needed
        yield from _cluster_results(items, cluster)
        return
    if workers == 1:
        yield from (_play_item(item) for item in items)
        return
    method = worker_start_method(files)
    if method == "fork":
        _warm_up(items)
    with GamePool(workers, method, ignore_stop_signals) as pool:  # a stop signal is the main process's to answer
        chunk = max(1, min(8, len(items) // (workers * 8)))
        yield from pool.imap_unordered(_play_item, items, chunksize=chunk)


def run_sweep(
    spec: SweepSpec,
    out: Path,
    workers: int = 1,
    progress: bool = True,
    fresh: bool = False,
    cluster: str | None = None,
) -> tuple[list[Cell], list[dict[str, Any]], int]:
    """Play every unfinished cell of the sweep on ``workers`` processes; return (cells, cell.json data, played).

    With ``cluster`` (an address for :func:`training.distributed.cluster.connect`) the games run as Ray tasks instead;
    the cells' files are the same as a local run's.

    Finished cells are read from ``out`` (unless ``fresh``); each cell is written as soon as its last game
    ends, so an interrupted run keeps every finished cell.
    """
    from tqdm import tqdm

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    cells = expand(spec)
    out.mkdir(parents=True, exist_ok=True)
    done: dict[int, dict[str, Any]] = {}
    if not fresh:
        for i, cell in enumerate(cells):
            data = load_cell(out, cell)
            if data is not None:
                data["summary"] = summarize_cell(load_games(out, cell))  # today's statistics of stored games
                done[i] = data
    pending = [i for i in range(len(cells)) if i not in done]
    for spec_text in {s for i in pending for s in cells[i].seats}:
        if not is_registered(spec_text):
            load_policy_file(spec_text, 0)  # fail early, here, with the loader's own message
    items = [(i, cells[i], task) for i in pending for task in cell_tasks(cells[i])]
    files = any(not is_registered(s) for i in pending for s in cells[i].seats)
    workers = max(1, min(workers, len(items)))
    collected: dict[int, list[Facts]] = {i: [] for i in pending}
    bar = tqdm(total=len(items), unit="game", file=sys.stderr, disable=not progress, desc=f"sweep {spec.name}")
    # the games' generator is closed here on any exception: its pool is killed now, not when the generator is
    # collected (after multiprocessing's exit handler, which SIGTERMs daemon workers that ignore it, then joins them)
    with contextlib.closing(bar), contextlib.closing(_results(items, workers, files, cluster)) as results:
        for index, game in results:
            collected[index].append(game)
            bar.update()
            if len(collected[index]) == cells[index].games:
                done[index] = save_cell(out, cells[index], collected.pop(index))
    return cells, [done[i] for i in range(len(cells))], len(items)
