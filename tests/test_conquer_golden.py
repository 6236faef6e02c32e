"""A seeded golden game transcript (OpenSpiel playthrough style): any change to the rules' outcome shows here.

The game is played by ``random.Random(7)`` with "near existing dots" play (80 % of moves next to a dot),
which makes captures; its final position, scores and ending are pinned. If a deliberate rules change
moves them, re-derive the game by hand from the diagrams and update the pin in the same commit.
"""

from __future__ import annotations

import random

from conquer_env.engine import ConquerGame
from conquer_env.layout import BASE_FIRED, CAPTURED
from conquer_env.options import ConquerOptions
from conquer_env.position import from_text, to_text

FINAL = """\
to_move: B
passes: 0
ply: 79
RBBRBRRRB   .........
BRRbRR.RR   ...R..R..
RBBRbb.RB   ....RRR..
RBBBRRRBB   .........
BrBrBRBBR   .B.B.....
RBBBBRBRR   .........
RRRBBRBBR   .........
BRBRRBRRR   .........
BRBRRBBBB   .........
"""


def golden_game() -> tuple[ConquerGame, int]:
    rng = random.Random(7)
    game = ConquerGame.new(ConquerOptions.preset("small"))
    captures = 0
    while not game.over:
        points = [int(p) for p in game.legal_points()]
        occupied = [i for i in range(81) if game.dots[i]]
        near = [p for p in points if any(max(abs(p % 9 - o % 9), abs(p // 9 - o // 9)) <= 1 for o in occupied)]
        pool = near if near and rng.random() < 0.8 else points
        flags = game.play(rng.choice(pool))
        captures += bool(flags & (CAPTURED | BASE_FIRED))
    return game, captures


def test_golden_transcript_9x9_seed_7() -> None:
    game, captures = golden_game()
    assert to_text(game) == FINAL
    assert game.end_reason == "board_full" and game.ply == 79 and captures == 4
    assert game.dots_scores() == [3, 2] and game.territory_scores() == [5, 2] and game.winners == [0]


def test_golden_final_position_loads_back() -> None:
    loaded = from_text(FINAL)
    assert loaded.over and loaded.end_reason == "board_full" and loaded.dots_scores() == [3, 2]
