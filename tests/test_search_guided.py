"""Search-guided self-play (training/search_guided): the Gumbel max^n search's target, value vectors, exact
resume across processes, and a tiny run that learns a solved game.

The known-answer games are Nim variants written here on the board-game engine contract (a pile of stones,
take 1 or 2, whoever takes the last stone wins), for 2 or 3 players: with two players the winning move
leaves a multiple of 3 (the game's solution), and a pile of 1 or 2 is an immediate win for any number.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from training.search_guided import config as sg
from training.search_guided.search import GumbelSearch, SearchSettings, outcome_vector
from training.search_guided.search_guided import Replay, evaluate, learn, rating_gap, train
from training.search_guided.self_play import network_evaluator, self_play_game

ROOT = Path(__file__).resolve().parents[1]
MAX_PILE = 7


class Nim:
    """Nim on the engine contract: action 0 takes one stone, action 1 takes two; the last stone wins."""

    def __init__(self, pile: int, players: int, turn: int = 0) -> None:
        self.pile, self.players, self.turn, self.ply = pile, players, turn, 0
        self.winners: list[int] = []
        self.truncated = False

    @property
    def over(self) -> bool:
        return self.pile == 0

    def copy(self) -> Nim:
        other = Nim(self.pile, self.players, self.turn)
        other.winners, other.ply = list(self.winners), self.ply
        return other

    def legal_actions(self) -> list[int]:
        return [a for a in (0, 1) if a + 1 <= self.pile]

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        obs = np.zeros(MAX_PILE + 1, dtype=np.int8)
        obs[self.pile] = 1
        mask = np.zeros(2, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return obs, mask

    def play(self, action: int) -> None:
        self.pile -= action + 1
        self.ply += 1
        if self.pile == 0:
            self.winners = [self.turn]
        else:
            self.turn = (self.turn + 1) % self.players


class NimNet(torch.nn.Module):
    """A small policy/value network over Nim's one-hot pile: logits [B, 2] and one value [B] (two players)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(MAX_PILE + 1, 32), torch.nn.ReLU())
        self.policy = torch.nn.Linear(32, 2)
        self.value = torch.nn.Linear(32, 1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.body(obs.float())
        return self.policy(x), torch.tanh(self.value(x)).squeeze(1)


def uniform(players: int):  # type: ignore[no-untyped-def]
    """Return an evaluator that knows nothing: equal logits, a value of 0 for everyone."""
    return lambda obs, mask: (np.zeros(len(mask)), np.zeros(players))


def test_improved_policy_takes_the_immediate_win_with_three_players() -> None:
    """Pile 2, three players: taking both stones wins now; taking one lets the next seat win."""
    search = GumbelSearch(uniform(3), 3, SearchSettings(simulations=8, gumbel_k=2))
    result = search.run(Nim(2, 3, turn=1), 8, np.random.default_rng(0))
    assert result.action == 1
    assert result.improved[list(result.actions).index(1)] > 0.99


def test_improved_policy_finds_the_forced_win_two_moves_deep() -> None:
    """Pile 4, two players: only taking one stone (leaving 3) wins; the evaluator alone cannot tell."""
    search = GumbelSearch(uniform(2), 2, SearchSettings(simulations=32, gumbel_k=2))
    for seed in range(3):
        result = search.run(Nim(4, 2), 32, np.random.default_rng(seed))
        assert result.action == 0
        assert result.improved[0] > 0.9


@pytest.mark.parametrize(
    ("players", "winners", "truncated", "expected"),
    [
        (2, [0], False, [1.0, -1.0]),
        (3, [2], False, [-0.5, -0.5, 1.0]),
        (3, [0, 1], False, [0.25, 0.25, -0.5]),
        (3, [0, 1, 2], False, [0.0, 0.0, 0.0]),
        (3, [1], True, [0.0, 0.0, 0.0]),
    ],
)
def test_outcome_vectors_sum_to_zero(players: int, winners: list[int], truncated: bool, expected: list[float]) -> None:
    game = Nim(0, players)
    game.winners, game.truncated = winners, truncated
    out = outcome_vector(game, players)
    assert out == pytest.approx(expected)
    assert out.sum() == pytest.approx(0.0)


def test_backed_up_value_vectors_sum_as_outcomes_do() -> None:
    """Every backed-up sum at the root is a sum of zero-sum vectors (max^n keeps the whole vector)."""

    def zero_sum(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        v = np.array([0.3, -0.1, -0.2]) * (int(np.argmax(obs)) - 3)
        return np.zeros(len(mask)), v

    search = GumbelSearch(zero_sum, 3, SearchSettings(simulations=24, gumbel_k=2))
    result = search.run(Nim(7, 3), 24, np.random.default_rng(1))
    assert result.root.visits.sum() == 24
    assert result.root.totals.sum(1) == pytest.approx(np.zeros(len(result.actions)))
    assert np.abs(result.root.totals).sum() > 0  # not trivially zero


def _tiny_config(**learn: int) -> sg.Config:
    return sg.from_dict(
        {
            "algo": "search_guided",
            "search": {"simulations": 16, "cheap_simulations": 2, "full_fraction": 1.0, "gumbel_k": 2},
            "learn": {"batch_size": 64, "buffer_size": 2000, "learning_rate": 0.01, **learn},
        }
    )


def test_tiny_run_learns_nims_solution() -> None:
    """After self-play from every pile, the bare network leaves a multiple of 3 from every winning pile."""
    torch.manual_seed(0)
    config = _tiny_config(updates_per_iteration=30)
    net = NimNet()
    search = GumbelSearch(network_evaluator(net, 2), 2, SearchSettings(simulations=16, gumbel_k=2))
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learn.learning_rate)
    replay = Replay(config.learn.buffer_size, MAX_PILE + 1, 2, 2)
    rng = np.random.default_rng(0)
    for _ in range(8):
        net.eval()
        for pile in range(1, MAX_PILE + 1):
            self_play_game(Nim(pile, 2), search, config, rng, replay)
        net.train()
        losses = learn(net, optimizer, replay, config, rng)
    net.eval()
    winning = [p for p in range(1, MAX_PILE + 1) if p % 3]
    obs, masks = zip(*(Nim(p, 2).observe() for p in winning), strict=True)
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(np.stack(obs)))
    legal_logits = logits.masked_fill(torch.from_numpy(np.stack(masks)) == 0, -torch.inf)
    assert [int(a) + 1 for a in legal_logits.argmax(1)] == [p % 3 for p in winning]
    assert losses["value"] < 0.2


def test_self_play_targets_are_full_searches_with_zero_sum_outcomes() -> None:
    """Playout-cap randomisation: with full_fraction 1 every move is a target; the value rows sum to 0."""
    config = _tiny_config()
    replay = Replay(100, MAX_PILE + 1, 2, 3)
    search = GumbelSearch(uniform(3), 3, SearchSettings(simulations=4, gumbel_k=2))
    moves, targets = self_play_game(Nim(7, 3), search, config, np.random.default_rng(0), replay)
    assert moves == targets == replay.size >= 4
    assert replay.value[: replay.size].sum(1) == pytest.approx(np.zeros(replay.size))
    assert replay.policy[: replay.size].sum(1) == pytest.approx(np.ones(replay.size))


def test_config_refuses_unknown_keys_and_bad_values() -> None:
    with pytest.raises(sg.ConfigError, match=r"search\.simulatons.*allowed: simulations"):
        sg.from_dict({"algo": "search_guided", "search": {"simulatons": 8}})
    with pytest.raises(sg.ConfigError, match=r"learn\.full_fraction|search\.full_fraction.*got 0"):
        sg.from_dict({"algo": "search_guided"}, ["search.full_fraction=0"])
    with pytest.raises(sg.ConfigError, match=r"algo"):
        sg.from_dict({"algo": "ppo"})


def test_resume_across_processes_is_exact(tmp_path: Path) -> None:
    """One iteration here, ``dw train --resume`` in a new process for the second: the same as an unbroken run."""
    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml")
    train(sg.from_dict(smoke.to_dict(), ["run.iterations=1"]), run_dir=tmp_path / "split")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "dw_cli.main", "train", "--resume", str(tmp_path / "split")]
    subprocess.run([*command, "--set", "run.iterations=2"], check=True, env=env, cwd=ROOT, timeout=600)
    train(smoke, run_dir=tmp_path / "whole")
    split, whole = (torch.load(tmp_path / r / "checkpoint.pt", weights_only=True) for r in ("split", "whole"))
    assert split["training"]["counters"]["iterations"] == 2
    for key, tensor in whole["model"].items():
        assert torch.equal(split["model"][key], tensor), key
    for key in ("obs", "policy", "value"):
        assert torch.equal(split["training"]["replay"][key], whole["training"]["replay"][key])
    assert split["training"]["numpy_rng"] == whole["training"]["numpy_rng"]


@pytest.mark.parametrize("game_id", ["conquer", "domain_wheel"])
def test_bench_selfplay_reports_each_rate(game_id: str) -> None:
    """``dw bench selfplay``'s row: network-alone and self-play moves/s, learner samples/s, all measured
    (Domain Wheel's on the small map from small-agent.pt, a move being one decision)."""
    from dw_cli.bench import selfplay

    (row,) = selfplay.run(seconds=0.1, games=(game_id,))["rows"]
    assert row["game"] == game_id
    assert row["network_moves_s"] > 0 and row["selfplay_moves_s"] > 0 and row["learner_samples_s"] > 0


def test_warm_start_takes_the_checkpoints_weights(tmp_path: Path) -> None:
    """``network.init_from``: a run that has not updated yet plays with the weights it started from."""
    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml").to_dict()
    train(sg.from_dict(smoke, ["run.iterations=1", "eval.games=0"]), run_dir=tmp_path / "first")
    start = tmp_path / "first" / "policy.pt"
    overrides = ["run.iterations=1", "run.seed=7", "eval.games=0", "learn.updates_per_iteration=0"]
    train(sg.from_dict(smoke, [*overrides, f"network.init_from={start}"]), run_dir=tmp_path / "warm")
    first, warm = (torch.load(tmp_path / r / "policy.pt", weights_only=True)["model"] for r in ("first", "warm"))
    assert all(torch.equal(first[k], warm[k]) for k in first)


@pytest.mark.parametrize(
    ("game_id", "options", "count"),
    [("alveole", {}, 12), ("conquer", {"size": "5x5"}, 8), ("conquer", {"size": "5x4"}, 4)],
)
def test_board_symmetries_map_positions_to_their_images(game_id: str, options: dict, count: int) -> None:
    """A game played in a symmetric image observes, and allows, the image of the original's observation and mask.

    Alveole's start is its own image under 6 of its 12 symmetries (3 turns, 3 mirrors): those are replayed.
    """
    from policies import games

    adapter = games.get(game_id)
    opts = adapter.options_from_dict(options)
    observation, action = adapter.symmetries(opts)  # type: ignore[attr-defined]
    assert len(observation) == len(action) == count
    assert (observation[0] == np.arange(observation.shape[1])).all()
    rng = np.random.default_rng(3)
    replayed = 0
    for k in range(count):
        original, image = adapter.new_game(opts), adapter.new_game(opts)
        if not (original.observe()[0][observation[k]] == image.observe()[0]).all():
            continue
        replayed += 1
        forward = np.argsort(action[k])
        for _ in range(8):
            move = int(rng.choice(original.legal_actions()))
            original.play(move)
            image.play(int(forward[move]))
            obs, mask = original.observe()
            obs_image, mask_image = image.observe()
            assert (obs[observation[k]] == obs_image).all(), k
            assert (mask[action[k]] == mask_image).all(), k
    assert replayed == (6 if game_id == "alveole" else count)


def test_cuda_learner_without_a_gpu_is_refused_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # the refusal, on any machine
    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml").to_dict()
    with pytest.raises(ValueError, match="run.device: cuda, but torch sees no GPU"):
        train(sg.from_dict(smoke, ["run.device=cuda"]), run_dir=tmp_path / "run")
    assert not (tmp_path / "run" / "checkpoint.pt").exists()


def test_unknown_evaluation_seat_is_refused_before_any_work(tmp_path: Path) -> None:
    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml").to_dict()
    with pytest.raises(ValueError, match=r"eval.opponents: 'balanced' is not a seat of conquer; allowed: .*heuristic"):
        train(sg.from_dict(smoke, ["eval.opponents=[balanced]"]), run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_dw_train_resume_refuses_a_change_other_than_iterations(tmp_path: Path) -> None:
    """``dw train --resume`` of a search-guided run may only extend it: the rest is the checkpoint's config."""
    import argparse

    from dw_cli.commands.train import _run

    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml").to_dict()
    train(sg.from_dict(smoke, ["run.iterations=1", "eval.games=0"]), run_dir=tmp_path / "run")
    before = (tmp_path / "run" / "checkpoint.pt").read_bytes()
    args = argparse.Namespace(
        config=None, overrides=["search.simulations=64"], resume=tmp_path / "run", run_dir=None, overwrite=False
    )
    with pytest.raises(ValueError, match=r"--set 'search.simulations' cannot change when resuming; allowed: run"):
        _run(args)
    assert (tmp_path / "run" / "checkpoint.pt").read_bytes() == before


def test_a_board_run_with_a_value_fit_section_still_self_plays(tmp_path: Path) -> None:
    """Runs saved before ``value_fit`` was optional hold its defaults: a board game's run ignores them."""
    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml").to_dict()
    config = sg.from_dict({**smoke, "value_fit": {}}, ["run.iterations=1", "eval.games=0"])
    assert config.value_fit is not None
    train(config, run_dir=tmp_path / "run")
    saved = torch.load(tmp_path / "run" / "checkpoint.pt", weights_only=True)
    assert saved["training"]["algo"] == "search-guided-1" and saved["training"]["counters"]["targets"] > 0


def test_evaluation_opens_every_game_with_the_arenas_opening_from_every_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game g seats the greedy network in seat g mod n and opens with the arena's opening g // n."""
    from training.evaluation.arena import opening_moves
    from training.search_guided.games import BoardTraining, training_game

    config = sg.load(ROOT / "configs" / "search_guided_smoke.yaml")
    view = training_game(config)
    net = view.make_network(config.network).eval()
    played: list[object] = []
    original = BoardTraining.play_opening

    def spy(self, game, move):  # type: ignore[no-untyped-def]
        played.append(move)
        original(self, game, move)

    monkeypatch.setattr(BoardTraining, "play_opening", spy)
    evaluate(view, net, ["random"], 4, seed=5, opening_plies=0)
    assert played == []
    rates = evaluate(view, net, ["random"], 4, seed=5, opening_plies=2)
    first, second = (list(opening_moves(view.options, 5, j, 2, "conquer")) for j in (0, 1))
    assert len(first) == 2 and first != second
    assert played == first + first + second + second  # each opening from both seats
    assert 0.0 <= rates["random"] <= 1.0


def test_evaluation_changes_nothing_in_the_run(tmp_path: Path) -> None:
    """The evaluation draws from none of the run's streams: the weights are the same with or without it."""
    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml").to_dict()
    train(sg.from_dict(smoke, ["eval.games=0"]), run_dir=tmp_path / "none")
    train(sg.from_dict(smoke, ["eval.games=3", "eval.opening_plies=2"]), run_dir=tmp_path / "some")
    a = torch.load(tmp_path / "none" / "checkpoint.pt", weights_only=True)["model"]
    b = torch.load(tmp_path / "some" / "checkpoint.pt", weights_only=True)["model"]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_a_resumed_run_may_change_what_its_evaluation_plays(tmp_path: Path) -> None:
    import argparse

    from dw_cli.commands.train import _run

    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml").to_dict()
    train(sg.from_dict(smoke, ["run.iterations=1", "eval.games=0"]), run_dir=tmp_path / "run")
    overrides = ["run.iterations=2", "eval.games=2", "eval.opponents=[heuristic]", "eval.opening_plies=1"]
    args = argparse.Namespace(config=None, overrides=overrides, resume=tmp_path / "run", run_dir=None, overwrite=False)
    assert _run(args) == 0
    saved = torch.load(tmp_path / "run" / "checkpoint.pt", weights_only=True)
    assert saved["training"]["counters"]["iterations"] == 2
    assert saved["config"]["eval"] == {"games": 2, "opponents": ["heuristic"], "opening_plies": 1}


@pytest.mark.parametrize(
    ("rate", "players", "games", "expected"),
    [
        (0.5, 2, 100, 0.0),  # a fair share is level
        (1 / 3, 3, 99, 0.0),
        (0.64, 2, 100, 99.9),  # 64 % of two-player games: about 100 points
        (0.47, 3, 100, 99.6),  # 47 % against two copies: about 100 points
        (0.25, 2, 100, -190.8),
    ],
)
def test_rating_gap_reads_a_win_rate_on_the_arenas_scale(
    rate: float, players: int, games: int, expected: float
) -> None:
    assert rating_gap(rate, players, games) == pytest.approx(expected, abs=0.1)


def test_rating_gap_keeps_a_sweep_finite_and_refuses_nonsense() -> None:
    assert rating_gap(1.0, 2, 10) == pytest.approx(400 * np.log10(0.95 / 0.05))
    assert rating_gap(0.0, 3, 10) == pytest.approx(400 * np.log10(0.05 * 2 / 0.95))
    for bad in ((0.5, 1, 10), (0.5, 2, 0), (1.5, 2, 10), (-0.1, 3, 10)):
        with pytest.raises(ValueError, match="rating_gap: need players >= 2"):
            rating_gap(*bad)
