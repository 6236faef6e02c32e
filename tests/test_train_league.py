"""The league (training/ppo/league.py): env groups, opponent sampling, snapshots, results, scripted seats."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from training.ppo.config import LeagueConfig  # noqa: E402
from training.ppo.league import League, ScriptedSeats, game_result, split_groups  # noqa: E402


def _weights(**w: float) -> dict[str, float]:
    kinds = ("latest", "past", "random", "balanced", "expansionist", "center", "raider", "guardian")
    return {k: float(w.get(k, 0.0)) for k in kinds}


def test_env_groups_follow_the_weights() -> None:
    assert split_groups(_weights(latest=0.4, past=0.3, random=0.1, balanced=0.2), 100) == 30
    assert split_groups(_weights(latest=1.0), 16) == 0
    assert split_groups(_weights(balanced=1.0), 16) == 16
    assert split_groups(_weights(latest=1.0, random=0.001), 16) == 1  # a positive weight gets a slot


def test_each_slot_plays_only_its_group_and_past_waits_for_a_snapshot() -> None:
    league = League(LeagueConfig(weights=_weights(latest=1.0, past=1.0, balanced=1.0), keep=2), 6)
    rng = np.random.default_rng(0)
    assert league.num_scripted == 2  # a third of 6 slots: 4 and 5
    assert {league.sample(0, rng) for _ in range(50)} == {"latest"}  # no past self yet
    assert {league.sample(5, rng) for _ in range(50)} == {"balanced"}
    for update in (10, 20, 30):
        league.snapshot(update, {"w": torch.zeros(1)})
    assert [sid for sid, _ in league.snapshots] == ["past-000020", "past-000030"]
    drawn = {league.sample(0, rng) for _ in range(200)}
    assert drawn == {"latest", "past-000020", "past-000030"}


def test_dropped_snapshot_stays_while_a_game_plays_it() -> None:
    league = League(LeagueConfig(weights=_weights(latest=1.0, past=1.0), keep=1), 4)
    league.snapshot(1, {"w": torch.ones(1)})
    league.snapshot(2, {"w": torch.zeros(1)})
    assert league.snapshot_state("past-000001") is not None  # retired, maybe still in a running game
    league.prune({"latest", "past-000001"})
    assert league.snapshot_state("past-000001") is not None
    league.prune({"latest"})
    assert league.snapshot_state("past-000001") is None


@pytest.mark.parametrize(
    ("winners", "scores", "seat", "credit", "order"),
    [
        ((1, 0, 0), (20, 5, 3), 0, 1.0, ((0,), (1,), (2,))),  # rule 9.5: the learner alone on top
        ((0, 1, 0), (5, 20, 5), 0, 0.0, ((1,), (0, 2))),  # opponents ordered by score, ties tied
        ((1, 1, 0), (9, 9, 2), 1, 0.5, ((0, 2), (1,))),  # a shared win is worth 1/2 (seat 1 learns)
        ((0, 0, 0), (4, 8, 8), 2, 0.0, ((0, 2), (1,))),  # truncation: no winner; seats 2, 0, 1 by score
    ],
)
def test_game_result_scores_like_the_arena(winners, scores, seat, credit, order) -> None:  # type: ignore[no-untyped-def]
    got_credit, got_order = game_result(np.array(winners), np.array(scores), seat)
    assert got_credit == credit
    assert got_order == order


def test_ratings_rank_a_learner_that_always_wins_first() -> None:
    league = League(LeagueConfig(weights=_weights(latest=1.0, random=1.0)), 4)
    for _ in range(30):
        league.results.add("random", 1.0, ((0,), (1, 2)))
    ratings = league.ratings()
    assert ratings["learner"] > ratings["random"]
    assert league.results.win_rates()["random"] == (1.0, 30)


def test_scripted_seats_keep_one_ai_per_seat_and_replay_its_move_as_two_actions() -> None:
    from dw_env.envs.vector import DomainWheelVectorEnv

    env = DomainWheelVectorEnv(2, {"land_radius": 1, "map_radius": 2, "max_rounds": 30}, copy=False)
    obs, masks, acting = env.reset()
    seats = ScriptedSeats(env)
    seats.start_game(0, "balanced", 1)
    seats.start_game(1, "random", 2)
    assert {key[:2] for key in seats.policies} == {(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)}
    for _ in range(60):
        actions = np.array([seats.action(i, kind, int(acting[i])) for i, kind in enumerate(("balanced", "random"))])
        assert all(masks[i, a] == 1 for i, a in enumerate(actions))
        obs, masks, acting, *_ = env.step(actions)
