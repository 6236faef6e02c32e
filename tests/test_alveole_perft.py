"""Perft and differential play against an independent, slow pure-Python move generator (spec 7.9, 7.12).

The reference below is written from the spec's text alone (R-3.2 to R-3.7, R-4.1 to R-4.4) over a
``{(q, r): player}`` dict; it shares no code with the engine. The engine's counts from the start
and from hand-made positions must equal it at every depth it can reach in a test's time, and the
deeper engine counts are pinned as golden numbers.
"""

from __future__ import annotations

import random

import pytest

from alveole_env import AlveoleGame, AlveoleOptions
from alveole_env.geometry import CELLS
from alveole_env.position import from_dict, to_dict

# ---- the reference ---------------------------------------------------------------------------

DIRS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
Board = dict[tuple[int, int], int]


def on(q: int, r: int) -> bool:
    return max(abs(q), abs(r), abs(q + r)) <= 4


def ref_moves(board: Board, player: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Every (from, to) of ``player`` (1 or 2), by the spec's pseudo-code (R-3.7)."""
    out = []
    for (q, r), p in board.items():
        if p != player:
            continue
        for dq, dr in DIRS:
            n = 1  # the piece itself, then both senses of the whole line (R-3.2, A4)
            for sign in (1, -1):
                k = 1
                while on(q + sign * k * dq, r + sign * k * dr):
                    n += (q + sign * k * dq, r + sign * k * dr) in board
                    k += 1
            t = (q + n * dq, r + n * dr)
            if not on(*t):
                continue
            if any(board.get((q + k * dq, r + k * dr), player) != player for k in range(1, n)):
                continue
            if board.get(t) == player:
                continue
            out.append(((q, r), t))
    return out


def ref_connected(board: Board, player: int) -> bool:
    cells = {c for c, p in board.items() if p == player}
    if not cells:
        return False
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        q, r = todo.pop()
        for dq, dr in DIRS:
            x = (q + dq, r + dr)
            if x in cells and x not in seen:
                seen.add(x)
                todo.append(x)
    return seen == cells


def ref_play(board: Board, player: int, move: tuple[tuple[int, int], tuple[int, int]]) -> tuple[Board, int | None]:
    """Return (board after, winner or None); a None winner with no moves for the next player is R-4.4."""
    src, dst = move
    after = dict(board)
    del after[src]
    after[dst] = player  # a capture simply replaces the enemy piece
    other = 3 - player
    if ref_connected(after, player):
        return after, player
    if ref_connected(after, other):
        return after, other
    if not ref_moves(after, other):
        return after, player
    return after, None


def ref_perft(board: Board, player: int, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in ref_moves(board, player):
        after, winner = ref_play(board, player, move)
        if depth == 1:
            total += 1
        elif winner is None:
            total += ref_perft(after, 3 - player, depth - 1)
    return total


def ref_board(game: AlveoleGame) -> tuple[Board, int]:
    data = to_dict(game)
    return {(q, r): p for q, r, p in data["pieces"]}, data["to_move"]


def engine_moves(game: AlveoleGame) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    return {(CELLS[m.src], CELLS[m.dst]) for m in game.legal_moves()}


# ---- fixed positions -------------------------------------------------------------------------


def position(x: list[tuple[int, int]], o: list[tuple[int, int]], to_move: int = 1) -> AlveoleGame:
    return from_dict({"to_move": to_move, "pieces": [[q, r, 1] for q, r in x] + [[q, r, 2] for q, r in o]})


#: hand-made positions: a mid-game crowd, a capture race, a rim fight and a near-connection
POSITIONS = {
    "crowd": position(
        [(0, 0), (1, -1), (-1, 1), (2, 0), (-2, 2), (0, -2), (3, -3)],
        [(1, 0), (-1, 0), (0, 1), (2, -2), (-3, 3), (1, 2), (0, -4)],
    ),
    "captures": position(
        [(0, 0), (-4, 0), (-3, 0), (2, -3), (-2, 3)],
        [(2, 0), (-1, 0), (4, -4), (0, 3), (-3, -1)],
        to_move=2,
    ),
    "rim": position(
        [(0, -4), (1, -4), (3, -4), (4, -2), (4, 0), (-4, 4)],
        [(2, -4), (4, -4), (4, -3), (-4, 0), (0, 4), (2, 2)],
    ),
    "near_connection": position(
        [(0, 0), (1, 0), (0, 1), (2, -2), (-2, 1)],
        [(3, 1), (-3, -1), (-1, 4), (1, -4), (4, -1), (-4, 2)],
    ),
}

#: engine perft of the start position (spec 2.1); depths 1-3 are also checked against the reference
START_PERFT = {1: 15, 2: 219, 3: 3936, 4: 69492}


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_perft_start_matches_reference(depth: int) -> None:
    game = AlveoleGame.new()
    board, player = ref_board(game)
    assert game.perft(depth) == ref_perft(board, player, depth) == START_PERFT[depth]


def test_perft_start_depth_4_golden() -> None:
    assert AlveoleGame.new().perft(4) == START_PERFT[4]


def test_perft_depth_0_is_one() -> None:
    assert AlveoleGame.new().perft(0) == 1


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_perft_positions_match_reference(name: str) -> None:
    game = POSITIONS[name]
    board, player = ref_board(game)
    for depth in (1, 2, 3):
        assert game.perft(depth) == ref_perft(board, player, depth), f"{name} depth {depth}"


def test_divide_sums_to_perft_and_matches_reference() -> None:
    game = AlveoleGame.new()
    divide = game.divide(3)
    assert sum(divide.values()) == START_PERFT[3]
    board, player = ref_board(game)
    for move in ref_moves(board, player):
        after, _ = ref_play(board, player, move)
        (q0, r0), (q1, r1) = move
        text = f"({q0},{r0}){'x' if board.get(move[1]) else '>'}({q1},{r1})"
        assert divide[text] == ref_perft(after, 3 - player, 2), text


@pytest.mark.parametrize("seed", range(12))
def test_differential_random_games(seed: int) -> None:
    """Spec 7.12: move sets and results agree with the reference at every ply of seeded random games."""
    rng = random.Random(seed)
    game = AlveoleGame.new(AlveoleOptions(max_plies=400))
    board, player = ref_board(game)
    while not game.over:
        expected = set(ref_moves(board, player))
        assert engine_moves(game) == expected, f"ply {game.ply}"
        move = rng.choice(sorted(expected))
        action = game.action_between(CELLS.index(move[0]), CELLS.index(move[1]))
        game.play(action)
        board, winner = ref_play(board, player, move)
        player = 3 - player
        if winner is not None or not ref_moves(board, player):
            assert game.over and not game.truncated
            assert game.winners == [(winner if winner is not None else 3 - player) - 1]
            break
        assert ref_board(game) == (board, player)
    else:
        assert game.truncated and game.ply == 400


GOLDEN_FINAL = """\
 r=-4           .   .   O   .   .
 r=-3         O   .   .   .   .   .
 r=-2       O   O   .   .   .   .   .
 r=-1     .   .   .   .   .   .   .   .
 r= 0   .   .   .   O   .   .   .   .   .
 r= 1     .   .   .   .   .   .   .   .
 r= 2       .   .   X   .   .   O   .
 r= 3         .   .   X   .   .   .
 r= 4           .   X   .   .   ."""


def test_golden_seeded_transcript() -> None:
    """A seeded random game (random.Random(7) over the sorted legal actions) ends exactly as recorded."""
    from alveole_env.render_text import diagram

    game = AlveoleGame.new()
    rng = random.Random(7)
    actions = []
    while not game.over:
        actions.append(rng.choice(game.legal_actions()))
        game.play(actions[-1])
    assert actions[:12] == [214, 126, 332, 29, 36, 230, 200, 455, 24, 331, 154, 23]
    assert (game.ply, game.end_reason, game.winners) == (135, "mover_connected", [0])
    assert diagram(game) == GOLDEN_FINAL
