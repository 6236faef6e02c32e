"""The end-of-run evaluation (training/ppo/evaluate.py): every seating, the arena's openings, distinct games.

Issue 11, item 8: a deterministic scripted AI against a nearly deterministic network replays a few games over
and over, so the evaluation plays each game from one of the arena's random openings (the same for every
opponent) and says how many of its games differ.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from dw_env.envs.actions import move_to_actions  # noqa: E402
from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies.domain_wheel.network import HexPolicyNet  # noqa: E402
from training.evaluation.arena import opening_moves  # noqa: E402
from training.ppo import evaluate as evaluation  # noqa: E402
from training.ppo import game_setup  # noqa: E402

OPTIONS = GameOptions(land_radius=1, map_radius=2, max_rounds=25)


def _net() -> HexPolicyNet:
    import torch

    torch.manual_seed(0)
    return HexPolicyNet(build_geometry(OPTIONS.land_radius, OPTIONS.map_radius), channels=8, head_hidden=16)


def test_openings_make_a_greedy_networks_games_differ() -> None:
    """Greedy against Balanced from the start position replays games; the arena's openings make them differ.

    12 games from 3 random plies are 4 openings x 3 seats, the same 12 games as without openings otherwise.
    """
    plain = evaluation.evaluate(_net(), OPTIONS, "balanced", 12, greedy=True, num_envs=4)
    opened = evaluation.evaluate(_net(), OPTIONS, "balanced", 12, greedy=True, num_envs=4, opening_plies=3)
    assert plain.games == opened.games == 12
    assert (plain.opening_plies, opened.opening_plies) == (0, 3)
    assert plain.distinct < 12  # the same game played again
    assert plain.distinct < opened.distinct <= 12


def test_each_game_starts_with_the_arena_opening_of_its_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game g plays opening g // 3 as env actions (a piece, then its destination), then the seats take over."""
    recorded: list[np.ndarray] = []
    make_env = game_setup.eval_env

    def recording_env(*args: Any) -> Any:
        env = make_env(*args)
        step = env.step

        def record(actions: Any) -> Any:
            recorded.append(np.array(actions, copy=True))
            return step(actions)

        env.step = record
        return env

    monkeypatch.setattr(evaluation, "eval_env", recording_env)
    seed, plies = 7, 4
    result = evaluation.evaluate(_net(), OPTIONS, "random", 2, seed=seed, num_envs=1, opening_plies=plies)
    assert result.games == 2
    geometry = build_geometry(OPTIONS.land_radius, OPTIONS.map_radius)
    expected: list[int] = []
    for ply, move in enumerate(opening_moves(OPTIONS, seed, 0, plies)):
        expected += move_to_actions(geometry, ply % 3, move)  # no opening ply ends a turn early: seat = ply % 3
    played = [int(a[0]) for a in recorded]
    assert played[: len(expected)] == expected


def test_the_table_names_the_distinct_games_and_the_openings() -> None:
    result = evaluation.EvalResult("balanced", 7.5, 12, (3.0, 2.5, 2.0), 1, 999, distinct=11, opening_plies=3)
    table = evaluation.format_results([result])
    assert "distinct" in table.splitlines()[0]
    assert "balanced" in table and " 11 " in table and "62.5%" in table
    assert "3 random opening plies" in table
    assert "opening" not in evaluation.format_results([evaluation.EvalResult("random", 1, 2, (1, 0, 0), 0, 9)])
