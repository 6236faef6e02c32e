"""Property tests: a thousand seeded biased-random games, checked after every action.

The games come from :class:`conftest.BiasedPlayer`, which steers play into
conquests, liberations, exiles, countdowns and end requests; the coverage test
fails if it stops reaching any of them. After every action the invariants of the
rules hold (rules 1.1, 2.2, 2.3, 3.1, 4.1, 4.3, 5.2, 6.7, 8.3, 9.2; A57), sampled
positions survive a JSON round trip unchanged, and every finished game's record
replays to the identical arrays. Every twelfth game is also played on a slow
plain-Python model of the spec (``tests/reference.py``): the legal actions, with
their move kinds, and the whole state after each action must match. Perft-style
counts and one golden transcript pin move generation down, so any change to it
shows up here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import pytest
from conftest import BiasedPlayer, Events, play_biased_game
from reference import Model, legal_move_differences

from dw_env import position
from dw_env.engine import Game, Move
from dw_env.info import COUNTDOWN_TURNS, INITIAL_KNIGHTS, LIBERATION_TURNS
from dw_env.options import GameOptions
from dw_env.record import GameRecord, format_move
from dw_env.rules import layout as lay

#: name -> (options, number of games). Small maps make conquests quick; the many short games check the
#: opening and middle game, the long ones reach liberations, countdowns, end requests and every ending.
OPTION_SETS: dict[str, tuple[GameOptions, int]] = {
    "n1R2": (GameOptions(land_radius=1, map_radius=2, max_rounds=12), 515),
    "n1R2-long": (GameOptions(land_radius=1, map_radius=2, max_rounds=60), 100),
    "n2R2-slow-knights": (GameOptions(land_radius=2, map_radius=2, fast_knights=False, max_rounds=35), 100),
    "n1R3-not-alone-K1": (
        GameOptions(land_radius=1, map_radius=3, king_may_be_alone=False, turns_to_conquer=1, max_rounds=30),
        150,
    ),
    "n2R2-K2": (GameOptions(land_radius=2, map_radius=2, turns_to_conquer=2, max_rounds=35), 125),
    "standard": (GameOptions(max_rounds=15), 10),
}
ROUND_TRIP_EVERY = 15  # actions between JSON round-trip checks
MODEL_EVERY = 12  # every 12th game is also played on the plain-Python spec model (tests/reference.py)
PLAYERS = np.arange(3)
KING_CODES = np.array([lay.piece_code(p, lay.KING) for p in range(3)])


def _player(set_index: int, game_index: int) -> tuple[int, BiasedPlayer]:
    """Return the seed and the player of one fuzz game; the knobs vary so every rule gets its turn."""
    seed = 10_000 * set_index + game_index
    end_prob = (0.0, 0.2, 1.0)[game_index % 3]
    block = (20, 0)[game_index // 3 % 2]
    return seed, BiasedPlayer(seed, end_prob=end_prob, block=block)


# ---- invariants ----------------------------------------------------------------------------------
def invariant_violations(before: Game, move: Move, after: Game) -> list[str]:
    """Return every invariant the state after ``move`` breaks (an empty list when all hold)."""
    g = after.geometry
    opts = after.options
    board, lands, scalars = after.board, after.lands, after.scalars
    bad: list[str] = []
    codes = np.bincount(board.view(np.uint8), minlength=7)
    kings = scalars[lay.KING_CELL : lay.KING_CELL + 3]
    if (codes[1::2] != 1).any():  # rule 2.3: one king each, never removed (1.1)
        bad.append(f"king counts {codes[1::2].tolist()}, expected one each")
    if not (board[kings] == KING_CODES).all():
        bad.append(f"king-cell cache {kings.tolist()} disagrees with the board {board[kings].tolist()}")
    firsts = lands[lay.FIRST : lay.FIRST + 3].sum(axis=1)
    if (codes[2::2] != INITIAL_KNIGHTS + firsts).any():  # rules 2.3 and 6.7
        bad.append(f"knights {codes[2::2].tolist()} but first conquests {firsts.tolist()}")
    if lands[lay.FIRST : lay.FIRST + 3, g.start_lands].any():
        bad.append("a first conquest of a start land")
    owner = lands[lay.OWNER]
    if not (owner[g.start_lands] == PLAYERS).all():  # rule 2.2
        bad.append(f"start lands are owned by {owner[g.start_lands].tolist()}")
    points = np.bincount(owner + 1, weights=g.land_points, minlength=4)[1:].astype(int).tolist()
    if after.scores() != points:  # rule 8.3
        bad.append(f"scores {after.scores()} but owned lands are worth {points}")
    holds = lands[lay.HOLD : lay.HOLD + 3]
    if holds.min() < 0 or holds.max() >= opts.turns_to_conquer or np.count_nonzero(holds, axis=1).max() > 1:
        bad.append(f"conquest counters {holds[holds != 0].tolist()} (at most one land each, below K)")
    if (holds > 0)[owner[None, :] == PLAYERS[:, None]].any():
        bad.append("a conquest counter on a land its player owns")
    libs = lands[lay.LIB : lay.LIB + 3]
    if libs.min() < 0 or libs.max() >= LIBERATION_TURNS:
        bad.append(f"liberation counters reach {libs.max()}")
    pieces, before_pieces = int(codes[1:].sum()), int(np.count_nonzero(before.board))
    new_firsts = int(firsts.sum() - before.lands[lay.FIRST : lay.FIRST + 3].sum())
    if pieces - before_pieces != new_firsts:  # rule 1.1: pieces are only added, by first conquests
        bad.append(f"pieces went from {before_pieces} to {pieces} with {new_firsts} new first conquests")
    throne_pieces = board[g.land_throne]
    if ((throne_pieces > 0) & (throne_pieces % 2 == 0)).any():  # rule 4.3
        bad.append("a knight stands on a throne")
    king_lands = g.cell_land[kings]
    crowded = (king_lands[:, None] == king_lands[None, :]).sum(axis=1) > 1
    if (crowded & (g.is_throne[kings] == 1)).any():  # rule 5.2: a seated king is alone in its land
        bad.append(f"a seated king shares its land with another king (kings on {kings.tolist()})")
    cd = after.countdown
    if cd is not None:  # rule 9.2
        holder, left = cd
        if kings[holder] != g.land_throne[g.centre_land]:
            bad.append(f"countdown holder {holder} is not on the centre throne")
        if not 0 <= left <= COUNTDOWN_TURNS or (left == 0) != (after.end_reason == "countdown"):
            bad.append(f"countdown has {left} turns left ({after.end_reason})")
        if before.countdown is not None and before.countdown[0] != holder:
            bad.append("the countdown changed holder")
    elif before.countdown is not None:
        bad.append("the countdown vanished")
    if int(scalars[lay.PLY]) != int(before.scalars[lay.PLY]) + 1:
        bad.append("ply did not advance by one")
    if not 1 <= after.round <= opts.max_rounds:
        bad.append(f"round {after.round} is outside 1..{opts.max_rounds}")
    if after.over:
        reason = after.end_reason
        if reason == "none":
            bad.append("game over without an end reason")
        expected = [] if reason == "truncation" else after.leaders()
        if after.winners != expected:  # rule 9.5, A57
            bad.append(f"winners {after.winners} but leaders {after.leaders()} ({reason})")
        if move.is_end_request != (reason == "end_request"):
            bad.append(f"end reason {reason} after {move}")
    else:
        if after.turn != (before.turn + 1) % 3:  # rule 3.1
            bad.append(f"turn went from {before.turn} to {after.turn}")
        if after.round != before.round + (before.turn == 2):
            bad.append(f"round went from {before.round} to {after.round} after player {before.turn}")
    return bad


def _round_trip_failure(game: Game) -> str | None:
    """Return why the JSON round trip of ``game`` is not the identity, or None."""
    try:
        text = position.dumps(game)
        back = position.loads(text)
    except position.PositionError as exc:
        return f"position does not load back: {exc}"
    for name in ("board", "lands", "scalars"):
        if not np.array_equal(getattr(game, name), getattr(back, name)):
            return f"{name} differs after the round trip"
    if position.dumps(back) != text:
        return "the JSON text differs after the round trip"
    return None


# ---- the fuzz run, shared by the tests below -----------------------------------------------------
@dataclass
class FuzzReport:
    events: dict[str, Events] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    round_trips: int = 0
    round_trip_failures: list[str] = field(default_factory=list)
    replays: int = 0
    replay_failures: list[str] = field(default_factory=list)
    model_checks: int = 0
    model_failures: list[str] = field(default_factory=list)
    games: int = 0


def run_fuzz(option_sets: dict[str, tuple[GameOptions, int]]) -> FuzzReport:
    """Play every fuzz game of ``option_sets`` and check it; return what was seen."""
    report = FuzzReport()
    for set_index, (name, (options, count)) in enumerate(option_sets.items()):
        events = Events()
        for game_index in range(count):
            seed, player = _player(set_index, game_index)
            tag = f"{name} seed {seed}"
            with_model = game_index % MODEL_EVERY == 0

            def hook(
                before: Game, move: Move, after: Game, ev: Events, tag: str = tag, with_model: bool = with_model
            ) -> None:
                ply = f"{tag} ply {after.scalars[lay.PLY]} {format_move(after.geometry, move)}"
                for problem in invariant_violations(before, move, after):
                    if len(report.violations) < 50:
                        report.violations.append(f"{ply}: {problem}")
                if with_model:  # the spec model must agree on the legal actions and on the next state
                    report.model_checks += 1
                    model = Model(before)
                    problems = legal_move_differences(before, model)
                    model.play(move)
                    problems += model.differences(after)
                    if problems and len(report.model_failures) < 20:
                        report.model_failures.append(f"{ply}: " + "; ".join(problems[:8]))
                if int(after.scalars[lay.PLY]) % ROUND_TRIP_EVERY == 0 or after.over:
                    report.round_trips += 1
                    failure = _round_trip_failure(after)
                    if failure and len(report.round_trip_failures) < 50:
                        report.round_trip_failures.append(f"{tag} ply {after.scalars[lay.PLY]}: {failure}")

            game, moves, game_events = play_biased_game(options, seed, player, hook)
            events.add(game_events)
            report.games += 1
            if not game.over:
                report.unfinished.append(f"{tag}: not over after {len(moves)} actions (round {game.round})")
            record = GameRecord(position.to_dict(Game.new(options)), list(moves))
            report.replays += 1
            try:
                replayed = record.replay()
            except ValueError as exc:
                report.replay_failures.append(f"{tag}: {exc}")
                continue
            for array in ("board", "lands", "scalars"):
                if not np.array_equal(getattr(replayed, array), getattr(game, array)):
                    report.replay_failures.append(f"{tag}: {array} differs after replay")
        report.events[name] = events
    return report


@pytest.fixture(scope="module")
def fuzz() -> FuzzReport:
    return run_fuzz(OPTION_SETS)


def test_invariants_hold_after_every_action(fuzz: FuzzReport) -> None:
    assert fuzz.games >= 1000
    assert not fuzz.violations, "\n".join(fuzz.violations[:20])


def test_engine_agrees_with_the_spec_model(fuzz: FuzzReport) -> None:
    """Differential test: legal actions with their move kinds (rule 4, 5.1) and the state after every action
    (rules 3.3, 5.2-5.3, 6-9) match a plain-Python model written from the spec (tests/reference.py)."""
    assert fuzz.model_checks > 5_000
    assert not fuzz.model_failures, "\n".join(fuzz.model_failures)


def test_every_game_ends(fuzz: FuzzReport) -> None:
    """Rule 1.4 and A57: a game ends by a rule or by truncation at max_rounds."""
    assert not fuzz.unfinished, "\n".join(fuzz.unfinished[:20])
    total = sum(sum(e.endings.values()) for e in fuzz.events.values())
    assert total == fuzz.games


def test_json_round_trip_is_the_identity_on_sampled_positions(fuzz: FuzzReport) -> None:
    assert fuzz.round_trips > 4_000
    assert not fuzz.round_trip_failures, "\n".join(fuzz.round_trip_failures[:20])


def test_replay_of_every_record_is_deterministic(fuzz: FuzzReport) -> None:
    assert fuzz.replays == fuzz.games
    assert not fuzz.replay_failures, "\n".join(fuzz.replay_failures[:20])


def test_generator_exercises_every_rule(fuzz: FuzzReport) -> None:
    """Coverage: if the biased player stops reaching a rule, the property tests stop testing it."""
    total = Events()
    for events in fuzz.events.values():
        total.add(events)
    print({name: events for name, events in fuzz.events.items()})
    # thresholds sit near half of what the seeded run reaches today
    assert total.conquests > 2500 and total.first_conquests > 2500  # rules 6.1-6.7
    assert total.liberations >= 15  # rules 7.1-7.4
    assert total.exiles >= 200  # rules 5.2-5.3
    assert total.countdowns >= 10  # rule 9.2 trigger
    assert total.end_requests >= 15 and total.concretised > 0  # rules 9.3-9.4
    assert total.endings.get("centre", 0) >= 35  # rule 9.1
    assert total.endings.get("countdown", 0) >= 7  # rule 9.2 expiry
    assert total.endings.get("end_request", 0) >= 15
    assert total.endings.get("truncation", 0) > 0  # A57
    assert min(total.move_kinds.values()) >= 20, total.move_kinds  # every move kind of rule 4 is played
    for name in ("n1R2", "n1R2-long", "n2R2-slow-knights", "n1R3-not-alone-K1", "n2R2-K2"):
        events = fuzz.events[name]
        assert events.conquests > 0 and events.exiles > 0, name
    for name in ("n1R2-long", "n2R2-slow-knights", "n1R3-not-alone-K1", "n2R2-K2"):  # small maps reach an end
        events = fuzz.events[name]
        assert events.endings.get("centre", 0) + events.endings.get("countdown", 0) > 0, name
    assert fuzz.events["standard"].conquests > 0


# ---- perft-style guards --------------------------------------------------------------------------
def perft(game: Game, depth: int) -> int:
    """Return the number of action sequences of length ``depth`` (a finished game counts as one leaf)."""
    if depth == 0 or game.over:
        return 1
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = game.copy()
        child.play(move)
        total += perft(child, depth - 1)
    return total


def move_kinds(game: Game) -> dict[str, int]:
    """Return how many legal piece moves carry each move-kind flag (rules 4.2-4.10)."""
    counts = dict.fromkeys(lay.MOVE_KIND_NAMES, 0)
    for src in game.movable_pieces():
        for flags in game.destinations(src).values():
            for bit, name in enumerate(lay.MOVE_KIND_NAMES):
                counts[name] += flags >> bit & 1
    return counts


def position_hash(game: Game) -> str:
    """Return a short stable hash of a position (of its canonical JSON text)."""
    return hashlib.sha256(position.dumps(game).encode()).hexdigest()[:16]


#: option set -> (perft 1, perft 2, move kinds) from the initial position (rules 2.3, 4; spec 1.4-1.5)
INITIAL_PERFT: dict[str, tuple[int, int, dict[str, int]]] = {
    "n1R2": (29, 841, {"step": 12, "king_move": 10, "fast_knight": 18, "double_step": 0, "jump": 7, "swap": 0}),
    "n1R2-long": (29, 841, {"step": 12, "king_move": 10, "fast_knight": 18, "double_step": 0, "jump": 7, "swap": 0}),
    "n2R2-slow-knights": (
        76,
        5776,
        {"step": 12, "king_move": 25, "fast_knight": 50, "double_step": 0, "jump": 7, "swap": 0},
    ),
    "n1R3-not-alone-K1": (
        23,
        529,
        {"step": 12, "king_move": 4, "fast_knight": 18, "double_step": 0, "jump": 2, "swap": 0},
    ),
    "n2R2-K2": (76, 5776, {"step": 12, "king_move": 25, "fast_knight": 50, "double_step": 0, "jump": 7, "swap": 0}),
    "standard": (76, 5776, {"step": 12, "king_move": 25, "fast_knight": 50, "double_step": 0, "jump": 7, "swap": 0}),
}

#: option set -> [(ply, position hash, legal actions, perft 2)] along the seeded game of seed 7
PLAYED_PERFT: dict[str, list[tuple[int, str, int, int]]] = {
    "n1R2": [(20, "dba187dda527a9be", 57, 3135)],
    "n1R2-long": [
        (20, "7cd58fb2543f0dc7", 57, 3135),
        (45, "bfd7a5992fb9718c", 114, 4326),
        (70, "a97ccd9c673676d6", 20, 2337),
    ],
    "n2R2-slow-knights": [
        (20, "af7a704d49afd146", 27, 729),
        (45, "ea54d002ca45b5bb", 70, 2170),
        (70, "3c0bcc865fa8385b", 287, 10898),
    ],
    "n1R3-not-alone-K1": [
        (20, "d2c48da4b0e7dd33", 37, 814),
        (45, "b927fbcf045bb00a", 124, 1612),
        (70, "75685f0f44dcb6b4", 49, 1323),
    ],
    "n2R2-K2": [
        (20, "50cfb6ea78005024", 69, 1863),
        (45, "f07808e173a1ac88", 83, 6799),
        (70, "50527cf6d4b2ff23", 79, 2442),
    ],
    "standard": [(20, "d2a5871a567a8b32", 27, 756)],
}


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_perft_from_the_initial_position(name: str) -> None:
    game = Game.new(OPTION_SETS[name][0])
    got = (perft(game, 1), perft(game, 2), move_kinds(game))
    assert got == INITIAL_PERFT[name]


def _played_positions(name: str, plies: tuple[int, ...] = (20, 45, 70)) -> list[Game]:
    options = OPTION_SETS[name][0]
    reached: list[Game] = []

    def hook(before: Game, move: Move, after: Game, events: Events) -> None:
        if int(after.scalars[lay.PLY]) in plies and not after.over:
            reached.append(after.copy())

    play_biased_game(options, 7, BiasedPlayer(7, end_prob=0.2), hook)
    return reached


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_perft_from_positions_reached_by_seeded_play(name: str) -> None:
    got = [
        (int(game.scalars[lay.PLY]), position_hash(game), perft(game, 1), perft(game, 2))
        for game in _played_positions(name)
    ]
    expected = PLAYED_PERFT[name]
    assert [(ply, digest) for ply, digest, _, _ in got] == [(ply, digest) for ply, digest, _, _ in expected], (
        "the seeded game reached different positions: move generation, the rules or the biased player changed"
    )
    assert got == expected


# ---- a golden game transcript --------------------------------------------------------------------
GOLDEN_OPTIONS = GameOptions(land_radius=1, map_radius=2, max_rounds=40)
GOLDEN_SEED = 19
#: the first 60 actions of the golden game (OpenSpiel-playthrough style)
GOLDEN_MOVES: list[str] = [
    "5,-1>4,-1",
    "-4,6>-4,4",
    "-2,-4>-1,-3",
    "5,-2>4,-2",
    "-4,4>-3,4",
    "-1,-3>-1,-2",
    "6,-2>4,0",
    "-4,5>-2,6",
    "-2,-3>-1,-3",
    "4,0>4,-1",
    "-3,4>-2,3",
    "-1,-4>-2,-2",
    "4,0>3,0",
    "-2,3>-4,4",
    "pass",
    "4,-1>3,-1",
    "-2,6>-2,5",
    "-1,-3>-1,-4",
    "3,-1>5,-3",
    "-4,4>-2,2",
    "-1,-2>-4,-2",
    "5,-3>3,-1",
    "-2,5>-2,4",
    "-1,-3>-3,-2",
    "pass",
    "-2,2>-3,3",
    "-1,-4>0,-2",
    "pass",
    "-3,3>-2,2",
    "-4,-2>-4,-1",
    "3,-1>5,-3",
    "-2,2>-2,3",
    "0,-2>-3,-1",
    "5,-3>3,-1",
    "pass",
    "-2,-2>-4,-2",
    "pass",
    "pass",
    "pass",
    "pass",
    "pass",
    "-4,-1>-5,0",
    "pass",
    "-2,4>-1,3",
    "-3,-2>-3,0",
    "3,-1>6,-4",
    "-1,3>-3,3",
    "-4,-2>-5,1",
    "4,-1>3,-3",
    "-3,3>0,2",
    "-3,-1>1,-2",
    "3,-3>4,-3",
    "-3,4>-4,3",
    "-5,0>0,-3",
    "6,-4>5,-4",
    "-3,5>-1,3",
    "0,-3>2,-3",
    "4,-2>2,-1",
    "-2,3>0,1",
    "pass",
]
GOLDEN_END: dict[str, object] = {
    "moves": 107,
    "end_reason": "centre",
    "scores": [10, 25, 8],
    "winners": [1],
    "hash": "a0a8e866207e9989",
    "conquests": 8,
    "exiles": 1,
    "countdowns": 1,
    "move_kinds": {"step": 35, "king_move": 15, "fast_knight": 33, "double_step": 19, "jump": 13, "swap": 1},
}


def test_golden_game_transcript() -> None:
    """A seeded biased game on n=1, R=2: conquests, a reconquest, an exile, a swap, a countdown, a centre win."""
    game, moves, events = play_biased_game(GOLDEN_OPTIONS, GOLDEN_SEED, BiasedPlayer(GOLDEN_SEED, end_prob=0.5))
    notation = [format_move(game.geometry, m) for m in moves]
    assert notation[:60] == GOLDEN_MOVES
    summary = {
        "moves": len(moves),
        "end_reason": game.end_reason,
        "scores": game.scores(),
        "winners": game.winners,
        "hash": position_hash(game),
        "conquests": events.conquests,
        "exiles": events.exiles,
        "countdowns": events.countdowns,
        "move_kinds": events.move_kinds,
    }
    assert summary == GOLDEN_END
    assert GameRecord.loads(GameRecord(position.to_dict(Game.new(GOLDEN_OPTIONS)), moves).dumps()).notation == notation
