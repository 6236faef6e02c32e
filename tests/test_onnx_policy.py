"""The onnxruntime seat (policies/onnx_policy.py) with a shipped package: torch-free, a seat everywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from policies.files import make_seat_policy  # noqa: E402
from policies.onnx_policy import PackagePolicy  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "checkpoints" / "small-agent"


def test_the_seat_and_the_package_reader_import_no_torch() -> None:
    code = (
        "import sys\n"
        "import policies.onnx_policy, policies.package, policies.domain_wheel.two_phase, policies.files\n"
        f"seat = policies.files.make_seat_policy({str(PACKAGE)!r}, seed=0)\n"
        "from dw_env.engine import Game\n"
        "from dw_env.options import GameOptions\n"
        "game = Game.new(GameOptions(land_radius=1, map_radius=2))\n"
        "game.play(seat.act(game, 0))\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'onnx', 'onnxscript'))\n"
        "assert not bad, bad\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


def test_make_seat_policy_builds_a_package_seat() -> None:
    seat = make_seat_policy(str(PACKAGE), seed=3)
    assert isinstance(seat, PackagePolicy) and seat.greedy
    assert seat.label == "small-agent" and seat.display_name == "Agente pequeño"
    assert repr(seat) == "PackagePolicy('small-agent', greedy=True)"


def test_a_package_is_an_opponent_of_the_gymnasium_wrapper() -> None:
    pytest.importorskip("gymnasium")
    from dw_env.envs.gym_single import SingleSeatEnv

    env = SingleSeatEnv(
        seat=1, land_radius=1, map_radius=2, max_rounds=30, opponents=make_seat_policy(str(PACKAGE), seed=0)
    )
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        done = terminated or truncated
    assert done


def test_reset_reseeds_sampling_play() -> None:
    from dw_env.engine import Game
    from dw_env.options import GameOptions

    def moves(seat: PackagePolicy, seed: int) -> list[tuple[int, int]]:
        seat.reset(seed)
        game, out = Game.new(GameOptions(land_radius=1, map_radius=2)), []
        for _ in range(12):
            move = seat.act(game, game.turn)
            out.append(tuple(move))
            game.play(move)
        return out

    seat = PackagePolicy(PACKAGE, greedy=False)
    assert moves(seat, 5) == moves(seat, 5)
