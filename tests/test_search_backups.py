"""The search seat's backups (issue 49 item 3): max^n, paranoid and best-reply pick different moves on small trees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dw_env.engine import Game, Move
from dw_env.options import GameOptions
from policies.domain_wheel.backups import plays_its_policy, selection_values
from policies.search import Node, SearchParams, SearchPolicy, load, split_spec

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "checkpoints" / "small-agent.pt"
SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=30)
GAME = Game.new(SMALL)  # the hand-made trees below never play it: every child is already there


def _tree(spec: Any) -> Node:
    """Return a hand-made tree: a list is a finished game's value vector, ``(player, [(prior, child), ...])`` a node."""
    if isinstance(spec, list):
        value = np.asarray(spec, dtype=np.float64)
        return Node(GAME, 0, terminal=value, value=value)
    player, branches = spec
    node = Node(GAME, player, value=np.zeros(3))
    node.moves = [Move(k, k) for k in range(len(branches))]
    node.priors = np.asarray([prior for prior, _ in branches], dtype=np.float64)
    node.children = [_tree(child) for _, child in branches]
    node.visits = np.zeros(len(branches), dtype=np.int64)
    node.totals = np.zeros((len(branches), 3))
    return node


def _most_visited(spec: Any, backup: str, playouts: int = 3000) -> int:
    seat = SearchPolicy(None, SearchParams(backup=backup, c_puct=1.0))  # type: ignore[arg-type]
    seat.seat = 0
    root = _tree(spec)
    for _ in range(playouts):
        seat._playout(root)
    return int(np.argmax(root.visits))


# Blue (0) searches. After A, Green (1) chooses between a1, good for Blue and a little for itself, and a2, bad for
# Blue and a little less good for Green; after B every reply leaves Blue +0.2.
RIVAL_CHOICE = (
    0,
    [
        (0.5, (1, [(0.5, [0.6, 0.2, -0.8]), (0.5, [-0.2, 0.1, 0.1])])),
        (0.5, (1, [(0.5, [0.3, -0.2, -0.1]), (0.5, [0.2, 0.1, -0.3])])),
    ],
)


def test_maxn_expects_each_rival_to_play_for_itself() -> None:
    # Green takes a1 (0.2 > 0.1 for itself), so A is worth 0.6 to Blue against B's 0.2
    assert _most_visited(RIVAL_CHOICE, "maxn") == 0


def test_paranoid_expects_the_rivals_to_play_against_the_searching_seat() -> None:
    # Green is assumed to take a2 (Blue -0.2), so B (Blue 0.2 whatever Green does) is the safer move
    assert _most_visited(RIVAL_CHOICE, "paranoid") == 1


# Blue searches; Green has one move; Red (moving right before Blue) chooses. After A Red's policy prefers
# a1 (prior 0.9), fine for Blue, but a2 would ruin Blue; after B both of Red's moves leave Blue +0.1.
RED_REPLY = (
    0,
    [
        (0.5, (1, [(1.0, (2, [(0.9, [0.5, 0.0, -0.5]), (0.1, [-1.0, 0.5, 0.5])]))])),
        (0.5, (1, [(1.0, (2, [(0.5, [0.1, 0.0, -0.1]), (0.5, [0.1, -0.1, 0.0])]))])),
    ],
)


@pytest.mark.parametrize(("backup", "expected"), [("maxn", 1), ("paranoid", 1), ("best_reply", 0)])
def test_best_reply_searches_one_rival_and_keeps_the_others_policy_move(backup: str, expected: int) -> None:
    # max^n and paranoid both have Red pick a2 after A (best for Red, worst for Blue): B. best_reply searches
    # Green only; Red plays its most probable move a1, so A is worth 0.5 to Blue
    assert _most_visited(RED_REPLY, backup) == expected


def test_selection_values_read_the_root_players_margin() -> None:
    totals = np.array([[0.6, 0.2, -0.8], [-0.2, 0.1, 0.1]])
    estimate = np.array([0.3, -0.1, -0.2])
    values, fpu = selection_values(totals, estimate, player=1, root=0, backup="maxn")
    assert list(values) == [0.2, 0.1] and fpu == -0.1
    values, fpu = selection_values(totals, estimate, player=1, root=0, backup="paranoid")
    assert np.allclose(values, [-1.2, 0.4]) and fpu == pytest.approx(-0.6)  # minus Blue's margin
    values, fpu = selection_values(totals, estimate, player=0, root=0, backup="paranoid")
    assert np.allclose(values, [1.2, -0.4]) and fpu == pytest.approx(0.6)
    with pytest.raises(ValueError, match="allowed: maxn, paranoid, best_reply"):
        selection_values(totals, estimate, player=0, root=0, backup="minimax")


def test_only_the_rival_before_the_searching_seat_plays_its_policy() -> None:
    assert [plays_its_policy(p, 0, "best_reply") for p in range(3)] == [False, False, True]
    assert [plays_its_policy(p, 1, "best_reply") for p in range(3)] == [True, False, False]
    assert not any(plays_its_policy(p, 0, backup) for p in range(3) for backup in ("maxn", "paranoid"))


def test_the_backup_option_is_read_and_checked() -> None:
    assert split_spec("search:a.pt?backup=paranoid")[1] == SearchParams(backup="paranoid")
    assert SearchParams().backup == "maxn"
    with pytest.raises(ValueError, match=r"backup must be one of maxn, paranoid, best_reply, got 'minimax'"):
        split_spec("search:a.pt?backup=minimax")
    with pytest.raises(ValueError, match=r"backup .* must be one of maxn, paranoid, best_reply, got 3"):
        SearchParams(backup=3)  # type: ignore[arg-type]


@pytest.mark.parametrize("backup", ["paranoid", "best_reply"])
def test_the_seat_plays_legal_reproducible_moves_with_each_backup(backup: str) -> None:
    picked = []
    for _ in range(2):
        seat = load(f"search:{AGENT}?playouts=8&backup={backup}", seed=3)
        game, moves = Game.new(SMALL), []
        for _ in range(6):
            move = seat.act(game, game.turn)
            assert move in game.legal_moves()
            moves.append(move)
            game.play(move)
        picked.append(moves)
    assert picked[0] == picked[1]
