"""The arena: seeded tournaments between seat policies, with every seating of every line-up, for any game.

The game is ``ArenaConfig.game`` (Domain Wheel by default); the arena reaches it only through its adapter
(:mod:`policies.games`): a new engine object, its opening candidates, its result row and its seats.
A *line-up* is one seat spec per player (registry names or policy files, see :mod:`policies.files`). Each
line-up is played in all its seatings (for Domain Wheel six: which spec sits Blue, Green, Red), its games
split evenly between them.
Game ``i`` of a run is a pure function of ``(options, seed, i)``: its seat policies are seeded from
``SeedSequence([seed, i])``, so results are identical for any number of worker processes.

*Openings.* The scripted AIs are (nearly) deterministic, so games from the same start repeat. Game ``j`` of
every seating of every line-up therefore starts with the same ``opening_plies`` random legal plies
(:func:`opening_moves`, a pure function of ``(options, seed, j, plies)``): comparisons stay paired, every
opening is played from all six seats, and the seats' policies take over from the position it leaves.
Each result row carries the opening's index and a hash of the game's whole move list, from which
:mod:`training.evaluation.arena_stats` counts the distinct games behind every win rate.

Scoring conventions (printed with every table):

* a game's ``k`` joint winners (rule 9.5) each get ``1/k`` of a win;
* a game stopped at the round limit (truncation, resolution A57, not a rule ending) has no winner; its
  leaders by score are reported separately (``leader rate``);
* the rating (:mod:`training.evaluation.rating`) ranks each game's seats by result: winners first, then the others
  by score (truncated games by score alone).

:func:`run_arena` plays the games and returns the summary computed by :mod:`training.evaluation.arena_stats`;
:mod:`training.evaluation.arena_report` prints the table and writes results.json, results.csv, the chart and the
selected game records.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import multiprocessing as mp
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from policies import bounded, games
from policies.base import Policy
from policies.games.base import BoardGame
from training.distributed.game_pool import GamePool
from training.distributed.worker_process import ignore_stop_signals
from training.evaluation.arena_config import SEAT_TIME_LIMIT, ArenaConfig, Lineup
from training.evaluation.arena_stats import summarize


@dataclass(frozen=True)
class GameTask:
    """One game to play: its index, line-up, seating, the spec in each seat (Blue, Green, Red) and its opening.

    ``opening`` is the opening's index (:func:`opening_moves`); it is shared by game ``j`` of every seating.
    """

    index: int
    lineup: int
    seating: int
    seats: Lineup
    opening: int = 0
    #: the game's number within its line-up: game j of every line-up plays on the same dice (:func:`game_seed`)
    deal: int = 0

    def seat_seeds(self, base_seed: int) -> list[int]:
        """Return the per-seat policy seeds, a pure function of (base seed, game index)."""
        state = np.random.SeedSequence([base_seed, self.index]).generate_state(len(self.seats))
        return [int(x) for x in state]


def worker_start_method(files: bool) -> str:
    """Return how to start game worker processes: "fork" (fast) when it is safe, else "spawn".

    Fork is safe while only numpy and numba are loaded. Policy files (``files``: torch) get fresh processes. So
    does a process where a Ray client has run (:func:`training.distributed.cluster.ray_client_ran`): its gRPC threads
    keep running even after ``ray.shutdown()``, and a forked child can wait for ever on a lock one of them held at
    the fork (seen: a sweep's workers hung after a cluster run in the same process).
    """
    from training.distributed.cluster import ray_client_ran

    if files or ray_client_ran() or "fork" not in mp.get_all_start_methods():
        return "spawn"
    return "fork"


def schedule(config: ArenaConfig) -> list[GameTask]:
    """Return every game of a run: per line-up, the games split as evenly as possible over the seatings.

    The ``j``-th game of each seating plays opening ``j``, in every line-up: each opening is played from all
    six seatings (the last one from fewer when the games are not a multiple of six).
    """
    tasks: list[GameTask] = []
    seatings = config.seatings
    base, extra = divmod(config.games_per_lineup, len(seatings))
    for li, lineup in enumerate(config.lineups):
        for si, seating in enumerate(seatings):
            seats = tuple(lineup[k] for k in seating)
            for j in range(base + (si < extra)):
                tasks.append(GameTask(len(tasks), li, si, seats, j, len(tasks) - li * config.games_per_lineup))
    return tasks


#: the third word of a game seed's SeedSequence, so that its stream never equals seat seeds or openings
_DICE_STREAM = 0x64696365  # "dice"


def game_seed(base_seed: int, deal: int) -> int:
    """Return the seed of game ``deal`` of every line-up (its lot, deal, deck and dice in games with chance).

    A pure function of (run seed, the game's number within its line-up), never of the line-up: line-ups are
    compared on the same dice (common random numbers).
    """
    state = np.random.SeedSequence([base_seed, deal, _DICE_STREAM]).generate_state(2, dtype=np.uint32)
    return int(state[0]) << 32 | int(state[1])


# ---- openings --------------------------------------------------------------------------------------------
#: the third word of an opening's SeedSequence, so that its stream never equals a game's seat seeds
_OPENING_STREAM = 0x6F70656E  # "open"


@functools.lru_cache(maxsize=4096)
def opening_moves(
    options: Any, seed: int, index: int, plies: int, game_id: str = games.DEFAULT_GAME
) -> tuple[Any, ...]:
    """Return opening ``index``: ``plies`` random legal plies from the initial position, a pure function.

    Each ply is drawn uniformly from the game's opening candidates (:meth:`BoardGame.opening_candidates`;
    for Domain Wheel the acting player's distinct piece moves, rule 4, a pass only when no piece can move,
    rule 3.2b, never an end request, rule 9.3). A ply after which the game would be over is never drawn, so
    no opening ends the game: the draw goes on among the other moves, and only when every move of a ply
    would end the game does the opening start again from a fresh stream.
    """
    if plies == 0:
        return ()
    adapter = games.get(game_id)
    for attempt in range(100):
        rng = np.random.default_rng(np.random.SeedSequence([seed, index, _OPENING_STREAM, attempt]))
        game = adapter.new_game(options)
        moves: list[Any] = []
        for _ in range(plies):
            candidates = adapter.opening_candidates(game)
            for k in rng.permutation(len(candidates)):  # the first that keeps the game going: uniform over those
                trial = game.copy()
                trial.play(candidates[k])
                if not trial.over:
                    game, move = trial, candidates[k]
                    break
            else:
                break
            moves.append(move)
        if len(moves) == plies:
            return tuple(moves)
    raise ValueError(f"no opening of {plies} plies keeps the game going with these options ({options})")


def game_hash(seats: Sequence[str], moves: Sequence[Any]) -> str:
    """Return a short stable hash of a game: the spec in each seat and every action (as integers), opening included."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update("\x1f".join(seats).encode())
    digest.update(np.asarray(moves, dtype=np.int32).tobytes())
    return digest.hexdigest()


# ---- playing ---------------------------------------------------------------------------------------------
#: per-process cache of policies loaded from files (costly), keyed by (game, spec, seat); reset before every game
_FILE_POLICIES: dict[tuple[str, str, int], Policy] = {}


def _seat_policy(adapter: BoardGame, spec: str, seat: int, seed: int) -> Any:
    if adapter.is_registered(spec):
        return adapter.make_seat(spec, seed)
    key = (adapter.game_id, spec, seat)
    policy = _FILE_POLICIES.get(key)
    if policy is None:
        policy = _FILE_POLICIES[key] = adapter.make_seat(spec, seed)
    policy.reset(seed)
    return policy


def play_game(
    task: GameTask,
    options: Any,
    base_seed: int,
    on_move: Callable[[Any], None] | None = None,
    opening_plies: int = 0,
    game_id: str = games.DEFAULT_GAME,
    time_limit: float = SEAT_TIME_LIMIT,
) -> dict[str, Any]:
    """Play one game of ``game_id`` to its end; return its result row (``training.evaluation.arena_report.row_fields``).

    The game first plays the ``opening_plies`` plies of opening ``task.opening`` (:func:`opening_moves`),
    then the seats' policies, each decision within ``time_limit`` seconds (:func:`play_seat`); ``on_move``
    sees every action, the opening's included. The row's ``faults`` counts each seat's faults by kind.
    """
    adapter = games.get(game_id).for_options(options)
    seeds = task.seat_seeds(base_seed)
    policies = [_seat_policy(adapter, spec, s, seeds[s]) for s, spec in enumerate(task.seats)]
    game = adapter.new_seeded_game(options, game_seed(base_seed, task.deal))
    tracker = adapter.start_metrics(game)
    moves: list[tuple[int, ...]] = []
    faults: list[dict[str, int]] = [{} for _ in task.seats]
    opening = opening_moves(options, base_seed, task.opening, opening_plies, game_id)
    while not game.over:
        seat = game.turn
        if len(moves) < len(opening):
            move = opening[len(moves)]
            game.play(move)
        else:
            move = play_seat(adapter, policies[seat], game, seat, time_limit, faults[seat])
        moves.append(adapter.action_ints(move))
        if on_move is not None:
            on_move(move)
        adapter.after_action(game, tracker)
    return {
        "game": task.index,
        "lineup": task.lineup,
        "seating": task.seating,
        "opening": task.opening,
        "game_hash": game_hash(task.seats, moves),
        "seeds": seeds,
        "strategies": list(task.seats),
        **adapter.result_row(game, tracker),
        "faults": faults,
    }


#: timeouts in a row after which the arena stops asking a seat (its moves are the fallback from then on)
RETIRE_AFTER = 3


def play_seat(adapter: BoardGame, policy: Any, game: Any, seat: int, limit: float, faults: dict[str, int]) -> Any:
    """Play and return ``seat``'s action: its policy's decision within ``limit`` seconds, else the fallback.

    The policy thinks on a copy of the game (:func:`policies.bounded.decide`); a decision that overruns,
    raises or is illegal is counted in ``faults`` by kind and the game's fallback action is played instead
    (:meth:`BoardGame.fallback_action`). An illegal action leaves the game unchanged (every engine checks first).
    A seat that overran :data:`RETIRE_AFTER` times in a row is not asked again in this process (fault
    ``retired``): a graph that never answers costs the arena three time limits, not one per move.
    """
    snapshot = game.copy()
    decision = bounded.decide(policy, lambda: policy.act(snapshot, seat), limit, retire_after=RETIRE_AFTER)
    fault = decision.fault
    if fault is None:
        try:
            game.play(decision.action)
            return decision.action
        except (ValueError, TypeError, IndexError, OverflowError):  # IllegalActionError is a ValueError
            fault = "illegal"
    faults[fault] = faults.get(fault, 0) + 1
    move = adapter.fallback_action(game)
    game.play(move)
    return move


_WORKER: dict[str, Any] = {}


def _init_worker(
    options: Any,
    base_seed: int,
    opening_plies: int = 0,
    game_id: str = games.DEFAULT_GAME,
    time_limit: float = SEAT_TIME_LIMIT,
    registered: dict[str, tuple[str, str]] | None = None,
) -> None:
    # one thread per process: the arena's parallelism is across games (learned policies may use torch)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    ignore_stop_signals()  # Ctrl-C and SIGTERM stop the arena in the main process, which kills its pool
    if registered:  # strategies registered at run time (policies.registry.register): a spawned worker lacks them
        from policies import registry

        registry.register_all(registered)
    _WORKER.update(options=options, seed=base_seed, opening_plies=opening_plies, game=game_id, limit=time_limit)


def _play_in_worker(task: GameTask) -> dict[str, Any]:
    return play_game(
        task,
        _WORKER["options"],
        _WORKER["seed"],
        opening_plies=_WORKER["opening_plies"],
        game_id=_WORKER["game"],
        time_limit=_WORKER["limit"],
    )


def _play_chunk(job: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Return the rows of one chunk of games, ``(options, seed, opening plies, game, tasks[, time limit])``."""
    options, seed, plies, game_id, chunk, *rest = job
    limit = rest[0] if rest else SEAT_TIME_LIMIT
    return [play_game(t, options, seed, opening_plies=plies, game_id=game_id, time_limit=limit) for t in chunk]


def _cluster_rows(config: ArenaConfig, tasks: list[GameTask]) -> Iterator[dict[str, Any]]:
    """Yield the rows of ``tasks`` played in chunks on the connected Ray cluster (:mod:`training.distributed.cluster`).

    A chunk whose worker is lost is played again; each chunk's rows are yielded once.
    """
    from training.distributed import cluster

    size = cluster.chunk_size(len(tasks), cluster.cluster_cpus())
    jobs = [
        (config.options, config.seed, config.opening_plies, config.game, c, config.seat_time_limit)
        for c in cluster.chunked(tasks, size)
    ]
    for _, rows in cluster.imap(_play_chunk, jobs):
        yield from rows


def play_all(
    config: ArenaConfig, workers: int = 1, progress: bool = True, cluster: str | None = None
) -> list[dict[str, Any]]:
    """Play every scheduled game on ``workers`` processes, or on the Ray ``cluster``; return the rows in game order.

    ``cluster`` is an address for :func:`training.distributed.cluster.connect` ("auto", "local", HOST:PORT); the rows
    are the same as a local run's, since each game is a pure function of (options, seed, index).
    """
    from tqdm import tqdm

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    tasks = schedule(config)
    adapter = config.adapter
    workers = min(workers, len(tasks))
    rows: list[dict[str, Any]] = []
    bar = tqdm(total=len(tasks), unit="game", file=sys.stderr, disable=not progress, desc="arena")
    with contextlib.ExitStack() as stack:
        if cluster is not None:
            from training.distributed.cluster import connect

            stack.enter_context(connect(cluster))
            results: Iterator[dict[str, Any]] = _cluster_rows(config, tasks)
        elif workers == 1:
            results = (
                play_game(
                    t,
                    config.options,
                    config.seed,
                    opening_plies=config.opening_plies,
                    game_id=config.game,
                    time_limit=config.seat_time_limit,
                )
                for t in tasks
            )
        else:
            files = any(not adapter.is_registered(s) for s in config.strategies)
            method = worker_start_method(files)
            from policies import registry

            init = (
                config.options,
                config.seed,
                config.opening_plies,
                config.game,
                config.seat_time_limit,
                registry.entries(),
            )
            pool = stack.enter_context(GamePool(workers, method, _init_worker, init))
            chunk = max(1, min(8, len(tasks) // (workers * 8)))
            results = pool.imap_unordered(_play_in_worker, tasks, chunksize=chunk)
        stack.enter_context(bar)
        for row in results:
            rows.append(row)
            bar.update()
    rows.sort(key=lambda r: r["game"])
    return rows


def record_game(task: GameTask, config: ArenaConfig) -> tuple[Any, dict[str, Any]]:
    """Replay one scheduled game with a recorder; return (the game's recorder, result row)."""
    adapter = config.adapter
    start = adapter.new_seeded_game(config.options, game_seed(config.seed, task.deal))
    record = adapter.new_recorder(start, list(task.seats))
    row = play_game(
        task,
        config.options,
        config.seed,
        on_move=record.append,
        opening_plies=config.opening_plies,
        game_id=config.game,
        time_limit=config.seat_time_limit,
    )
    return record, row


def select_games(rows: Sequence[dict[str, Any]], k: int, end_reasons: Sequence[str] | None = None) -> list[int]:
    """Return up to ``k`` game indices that cover every ending and as many line-ups as possible."""
    reasons = games.get().end_reasons if end_reasons is None else end_reasons
    groups = {reason: [r for r in rows if r["end_reason"] == reason] for reason in reasons}
    picked: list[int] = []
    lineups_seen: set[int] = set()
    while len(picked) < k and any(groups.values()):
        for reason in reasons:
            group = groups[reason]
            if not group or len(picked) >= k:
                continue
            fresh = [r for r in group if r["lineup"] not in lineups_seen]
            row = (fresh or group)[0]
            group.remove(row)
            picked.append(row["game"])
            lineups_seen.add(row["lineup"])
    return sorted(picked)


def check_file_seats(config: ArenaConfig) -> None:
    """Load every file seat once and check it can play the arena's game; raise the seat's own error otherwise.

    Runs before any game, in this process: a seat that cannot load, or (its ``check_fits``) cannot play these options
    at all, such as a Frontera package without a graph for the arena's map, would otherwise fault every decision and
    leave only a fault count in the report.
    """
    adapter = config.adapter
    start = None
    for spec in config.strategies:
        if adapter.is_registered(spec):
            continue
        seat = adapter.make_seat(spec, 0)
        fits = getattr(seat, "check_fits", None)
        if fits is not None:
            start = start or adapter.for_options(config.options).new_seeded_game(config.options, 0)
            fits(start)


def run_arena(
    config: ArenaConfig, workers: int = 1, progress: bool = True, cluster: str | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play a whole run (locally, or on the Ray ``cluster`` when given) and return (summary, game rows)."""
    check_file_seats(config)
    rows = play_all(config, workers=workers, progress=progress, cluster=cluster)

    return summarize(config, rows), rows
