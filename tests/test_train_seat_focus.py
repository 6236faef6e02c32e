"""league.seat_focus (training/ppo/league.py, "Seatings"): the learner plays more games in the seats it loses in.

The turn order makes some seats much harder against some AIs (rule 3.1: Blue, Green, Red play in that
order); with seat_focus the learner's seat is drawn per game, each seat weighted by its recent loss rate
against the game's opponent kind. The per-seat results are part of the run's state, so resuming stays exact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from dw_cli.main import main  # noqa: E402
from policies import checkpoint  # noqa: E402
from policies.state import StateError  # noqa: E402
from training.ppo import league as league_module  # noqa: E402
from training.ppo.config import LeagueConfig, from_dict  # noqa: E402
from training.ppo.league import (  # noqa: E402
    SEAT_FLOOR,
    SEAT_MIN_GAMES,
    League,
    Results,
    opponent_kind,
    seat_probabilities,
)

CONFIG = str(Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml")


def test_seats_are_uniform_without_focus_or_before_every_seat_has_its_games() -> None:
    enough = SEAT_MIN_GAMES
    assert seat_probabilities([(0.9, enough), (0.5, enough), (0.0, enough)], 0.0).tolist() == [1 / 3] * 3
    assert seat_probabilities([(0.9, enough), (0.5, enough), (0.0, enough - 1)], 2.0).tolist() == [1 / 3] * 3


def test_a_seat_that_loses_more_gets_more_games() -> None:
    n = SEAT_MIN_GAMES
    p = seat_probabilities([(0.7, n), (0.7, n), (0.1, n)], 1.0)
    loss = np.array([0.3, 0.3, 0.9]) + SEAT_FLOOR
    assert np.allclose(p, loss / loss.sum())
    assert p[2] > 0.5 > p[0]
    sharper = seat_probabilities([(0.7, n), (0.7, n), (0.1, n)], 3.0)
    assert sharper[2] > p[2]
    always_won = seat_probabilities([(1.0, n), (1.0, n), (0.0, n)], 1.0)
    assert always_won[0] > 0  # the floor: a seat won every time still gets some games
    assert np.isclose(seat_probabilities([(1.0, n)] * 3, 2.0).sum(), 1.0)


def test_results_count_credit_per_opponent_kind_and_seat() -> None:
    results = Results(window=50)
    results.add("balanced", 1.0, ((0,), (1,), (2,)), seat=0)
    results.add("balanced", 0.0, ((1,), (0,), (2,)), seat=2)
    results.add("past-000010", 0.5, ((0, 1), (2,)), seat=1)
    results.add("past-000020", 0.0, ((1,), (2,), (0,)), seat=1)
    results.add("random", 1.0, ((0,), (1,), (2,)))  # no seat given: no seat credit
    assert results.seat_rates("balanced") == [(1.0, 1), (0.0, 0), (0.0, 1)]
    assert results.seat_rates("past") == [(0.0, 0), (0.25, 2), (0.0, 0)]  # past selves pool under their kind
    assert results.seat_rates("random") == [(0.0, 0)] * 3
    assert opponent_kind("past-000020") == "past" and opponent_kind("center") == "center"


def test_draw_seat_follows_the_losses() -> None:
    league = League(LeagueConfig(seat_focus=2.0), 8)
    for _ in range(60):
        for seat, credit in ((0, 1.0), (1, 1.0), (2, 0.0)):
            league.results.add("balanced", credit, ((0,), (1,), (2,)), seat=seat)
    rng = np.random.default_rng(0)
    seats = np.bincount([league.draw_seat("balanced", rng) for _ in range(2000)], minlength=3)
    expected = seat_probabilities(league.results.seat_rates("balanced"), 2.0)
    assert np.allclose(seats / 2000, expected, atol=0.03)
    assert seats[2] > 0.9 * 2000  # Red always lost: nearly every game is played as Red
    uniform = np.bincount([league.draw_seat("center", rng) for _ in range(3000)], minlength=3)  # no results yet
    assert np.all(np.abs(uniform / 3000 - 1 / 3) < 0.04)


def test_seat_results_round_trip_and_older_states_load() -> None:
    results = Results(window=5)
    for k in range(8):
        results.add("balanced", float(k % 2), ((0,), (1,), (2,)), seat=k % 3)
    state = results.state_dict()
    back = Results(window=5).from_state(state, "league.results")
    assert back.state_dict() == state
    older = {key: value for key, value in state.items() if key != "seats"}  # written before seat_focus
    assert Results(window=5).from_state(older, "league.results").seats == {}


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ([1, 2], "league.results.seats: must be a mapping"),
        ({"balanced": [[1.0], [0.0]]}, "must hold 3 lists"),
        ({"balanced": [[1.0], [0.0], [2.0]]}, "seats[balanced][2]: must be numbers in 0..1"),
        ({"balanced": [[0.0] * 6, [], []]}, "seats[balanced][0]"),  # longer than the window
    ],
)
def test_malformed_seat_results_are_refused_by_name(seats: Any, message: str) -> None:
    state = Results(window=5).state_dict()
    state["seats"] = seats
    with pytest.raises(StateError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Results(window=5).from_state(state, "league.results")


@pytest.mark.parametrize("bad", [-0.5, 11.0, float("nan"), "high", True])
def test_seat_focus_is_validated(bad: Any) -> None:
    with pytest.raises(ValueError, match="seat_focus"):
        from_dict({"league": {"seat_focus": bad}})


def test_a_run_with_seat_focus_resumes_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the smoke run's games are few: let every seat count from its first game, so that the draws are weighted
    monkeypatch.setattr(league_module, "SEAT_MIN_GAMES", 1)
    focus = ["--set", "league.seat_focus=2.0", "--set", "eval.final_games=0"]
    split, straight = tmp_path / "split", tmp_path / "straight"
    first = ["train", "--config", CONFIG, "--run-dir", str(split), "--set", "run.stop_after_updates=2", *focus]
    assert main(first) == 0
    resume = ["train", "--resume", str(split / "checkpoint.pt"), "--set", "run.stop_after_updates=0"]
    assert main([*resume, "--set", "eval.final_games=0"]) == 0
    assert main(["train", "--config", CONFIG, "--run-dir", str(straight), *focus]) == 0
    resumed, direct = checkpoint.load(split / "checkpoint.pt"), checkpoint.load(straight / "checkpoint.pt")
    keys = ("env_steps", "updates", "games", "decisions")
    assert {k: resumed["counters"][k] for k in keys} == {k: direct["counters"][k] for k in keys}
    for name, tensor in direct["model"].items():
        assert torch.equal(resumed["model"][name], tensor), name
    assert _results(resumed) == _results(direct)
    seats = Results(window=400).from_state(_results(direct), "league.results").seats
    assert sum(len(v) for per_seat in seats.values() for v in per_seat) == direct["counters"]["games"]
    rotating = tmp_path / "rotating"  # the same run with the seat rotating: other seats, so other weights
    assert main(["train", "--config", CONFIG, "--run-dir", str(rotating), "--set", "eval.final_games=0"]) == 0
    other = checkpoint.load(rotating / "checkpoint.pt")["model"]
    assert any(not torch.equal(other[name], tensor) for name, tensor in direct["model"].items())


def _results(payload: dict[str, Any]) -> Any:
    from policies import state as st

    return st.from_json(payload["training"]["league"]["results"], "league.results")
