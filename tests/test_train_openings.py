"""The training env's random openings (env.opening_plies) in Domain Wheel: a move is never cut in two.

A Domain Wheel move is two env actions (a piece, then its destination). An opening draws 0..K env actions,
so a draw may end after a piece's action; the rollout then draws that piece's destination too, and every
seat, the scripted AIs' included, takes over at a move's first action. Before, a scripted AI handed the
position mid-move answered with a piece where a destination was due and the run stopped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from training.ppo import config as cfg  # noqa: E402
from training.ppo import ppo  # noqa: E402
from training.ppo.league import ScriptedSeats  # noqa: E402

SMOKE = Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml"


def test_scripted_ais_take_over_from_an_opening_at_a_moves_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overrides = [
        "env.opening_plies=5",
        "env.num_envs=24",
        "env.num_steps=120",
        "game.max_rounds=30",
        "league.weights={balanced: 1.0, center: 1.0, latest: 0.2}",
        "imitation.teacher=none",
        "eval.final_games=0",
        "run.network_threads=1",
    ]
    config = cfg.load(SMOKE, overrides)
    session = ppo.start_session(config, None, tmp_path / "run")
    table = session.table
    assert table.league.num_scripted > 0
    asked: list[int] = []  # the phase of every fresh move a scripted AI was asked for
    original = ScriptedSeats.action

    def spy(self: ScriptedSeats, slot: int, kind: str, seat: int) -> int:
        if self.pending[slot] < 0:
            asked.append(int(table.env.phase()[slot]))
        return original(self, slot, kind, seat)

    monkeypatch.setattr(ScriptedSeats, "action", spy)
    drawn = table.opening.copy()
    assert drawn.max() > 0 and (drawn % 2 == 1).any()  # some draws end after a piece's action
    got = ppo.collect_rollout(table, session.rollout, session.net, session.frozen, 120, session.ctx)
    session.ctx["threads"].close()
    assert got["steps"] == 120 * 24 and got["games"] > 0  # games ended and new ones opened at random too
    assert len(asked) > 100 and set(asked) == {1}
