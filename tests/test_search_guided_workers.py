"""Search-guided self-play in worker processes (``run.selfplay_workers``, training/search_guided/workers.py).

The worker count is not part of a run's results: every game's randomness is its own, seeded by (run seed,
iteration, game index), and the games join the replay buffer in game order. So 0, 1 and 2 workers give
bit-identical weights, a run resumes exactly in a new process with another worker count, and a SIGINT or
SIGTERM during self-play ends the run with its last checkpoint intact and no worker left behind.
The runs are Conquer 3x3's smoke config (configs/search_guided_smoke.yaml); the signals are also sent to
Domain Wheel runs on the small map (a tiny network, short games), whose workers search two-phase moves.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from process_watch import ignores_sigint, kill_marked, leftovers, marked_env, marked_pids, wait_for

from policies import checkpoint
from training.search_guided import config as sg
from training.search_guided.search_guided import train

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "search_guided_smoke.yaml"
LIMIT = 600  # seconds a command may take on a loaded CI machine (a safety net)
#: two iterations of three games: an odd count, so two workers play unequal shares
RUN = ["eval.games=0", "learn.games_per_iteration=3", "run.iterations=2"]


def _config(*overrides: str) -> sg.Config:
    return sg.from_dict(sg.load(SMOKE).to_dict(), [*RUN, *overrides])


def _saved(folder: Path) -> dict[str, Any]:
    return torch.load(folder / "checkpoint.pt", weights_only=True)


def _assert_same_run(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["training"]["counters"]["iterations"] == b["training"]["counters"]["iterations"] == 2
    assert {k: v for k, v in a["training"]["counters"].items() if k != "seconds"} == {
        k: v for k, v in b["training"]["counters"].items() if k != "seconds"
    }
    for key, tensor in a["model"].items():
        assert torch.equal(b["model"][key], tensor), key
    for key in ("obs", "mask", "policy", "value"):
        assert torch.equal(a["training"]["replay"][key], b["training"]["replay"][key]), key
    assert a["training"]["numpy_rng"] == b["training"]["numpy_rng"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two iterations with 0 and with 2 workers; and one with 1 worker resumed in a new process with 2."""
    base = tmp_path_factory.mktemp("selfplay-workers")
    out: dict[str, Any] = {}
    for workers in (0, 2):
        result = train(_config(f"run.selfplay_workers={workers}"), run_dir=base / f"w{workers}")
        out[workers] = _saved(base / f"w{workers}")
        assert result["counters"]["targets"] > 0 and not result["interrupted"]
    train(_config("run.selfplay_workers=1", "run.iterations=1"), run_dir=base / "split")
    out["after_one"] = _saved(base / "split")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    more = ["--set", "run.iterations=2", "--set", "run.selfplay_workers=2"]
    command = [sys.executable, "-m", "dw_cli.main", "train", "--resume", str(base / "split"), *more]
    done = subprocess.run(command, env=env, cwd=ROOT, timeout=LIMIT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    out["split"] = _saved(base / "split")
    return out


def test_zero_and_two_workers_give_the_same_weights_and_replay(runs: dict[str, Any]) -> None:
    _assert_same_run(runs[0], runs[2])


def test_one_worker_then_two_in_a_new_process_resume_exactly(runs: dict[str, Any]) -> None:
    """One iteration with 1 worker, resumed by ``dw train --resume`` with 2: the unbroken in-process run."""
    assert runs["after_one"]["training"]["counters"]["iterations"] == 1
    assert runs["split"]["config"]["run"]["selfplay_workers"] == 2  # the resumed session's count is saved
    _assert_same_run(runs[0], runs["split"])


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (["run.selfplay_workers=-1"], r"run\.selfplay_workers: .*greater than or equal to 0.*got -1"),
        (["run.selfplay_workers=two"], r"run\.selfplay_workers: .*integer.*got 'two'"),
        (["run.selfplay_workers=2", "run.cluster=ray://head:10001"], r"run\.cluster: .*not supported"),
        (
            ["run.cluster=local"],
            r"run\.cluster is local but run\.selfplay_workers is 0.*allowed: run\.selfplay_workers",
        ),
    ],
)
def test_config_refuses_bad_worker_settings_naming_them(overrides: list[str], words: str) -> None:
    with pytest.raises(sg.ConfigError, match=words):
        sg.from_dict({"algo": "search_guided"}, overrides)


def test_dw_train_resume_takes_a_new_worker_count_but_nothing_else(tmp_path: Path) -> None:
    """The worker count and the cluster change where games run, not the run: ``--resume`` may change them."""
    import argparse

    from dw_cli.commands.train import _run

    train(_config("run.iterations=1"), run_dir=tmp_path / "run")
    before = (tmp_path / "run" / "checkpoint.pt").read_bytes()
    args = argparse.Namespace(
        config=None, overrides=["learn.games_per_iteration=4"], resume=tmp_path / "run", run_dir=None, overwrite=False
    )
    with pytest.raises(ValueError, match=r"allowed: run.iterations, run.selfplay_workers, run.cluster"):
        _run(args)
    assert (tmp_path / "run" / "checkpoint.pt").read_bytes() == before


# ---- a signal during self-play ------------------------------------------------------------------------------
@pytest.fixture
def marked() -> Iterator[list[str]]:
    """The markers of the commands a test starts: whatever a failed test leaves running is killed."""
    tags: list[str] = []
    yield tags
    for tag in tags:
        kill_marked(tag)


#: Domain Wheel's small map with a tiny fresh network and short games (a move is two searched decisions)
DOMAIN_WHEEL = """algo: search_guided
run: {name: sg-dw-signal, seed: 2, iterations: 2}
game: {name: domain_wheel, land_radius: 1, map_radius: 2, max_rounds: 6}
network: {channels: 4, cell_layers: 1, land_layers: 1, head_hidden: 8}
search: {simulations: 6, cheap_simulations: 2, full_fraction: 0.5, gumbel_k: 4}
learn: {games_per_iteration: 3, buffer_size: 400, batch_size: 16, updates_per_iteration: 3}
eval: {games: 0}
"""


def _signal_config(game: str, folder: Path) -> Path:
    """Return the config file of a signalled run of ``game`` (Conquer: the smoke config; Domain Wheel: written)."""
    if game == "conquer":
        return SMOKE
    (folder / "dw.yaml").write_text(DOMAIN_WHEEL)
    return folder / "dw.yaml"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "workers", "sig", "group"),
    [
        ("conquer", 2, signal.SIGTERM, True),
        ("conquer", 0, signal.SIGINT, True),
        ("domain_wheel", 2, signal.SIGTERM, False),
    ],
    ids=["conquer-2-workers", "conquer-in-process", "domain_wheel-2-workers-kill"],
)
def test_a_stop_signal_during_self_play_leaves_no_worker_and_the_last_checkpoint(
    tmp_path: Path, marked: list[str], game: str, workers: int, sig: signal.Signals, group: bool
) -> None:
    """A signal once iteration 2's games are under way, to the process group (as ``timeout`` or Ctrl-C sends it)
    or to the trainer alone (as ``kill PID`` sends it): status 128 + the signal, no traceback, no process left
    (the trainer kills its workers, which ignore the signal), and a checkpoint that resumes (the games under
    way are dropped)."""
    run = tmp_path / "run"
    env, tag = marked_env()
    marked.append(tag)
    sets = [f"run.selfplay_workers={workers}", "run.iterations=100000", "run.checkpoint_every=1", "eval.games=0"]
    args = [a for s in sets for a in ("--set", s)]
    config = _signal_config(game, tmp_path)
    command = [sys.executable, "-m", "dw_cli.main", "train", "--config", str(config), "--run-dir", str(run), *args]
    with (tmp_path / "stderr.txt").open("w") as err:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True
        )
    alive = lambda: process.poll() is None  # noqa: E731
    wait_for(lambda: (run / "checkpoint.pt").exists(), "the first checkpoint", alive)
    helpers = lambda: [p for p in marked_pids(tag) if p != process.pid and ignores_sigint(p)]  # noqa: E731
    wait_for(lambda: len(helpers()) >= workers, f"{workers} self-play workers", alive)
    if group:
        os.killpg(process.pid, sig)
    else:
        process.send_signal(sig)
    code = process.wait(timeout=LIMIT)
    err = (tmp_path / "stderr.txt").read_text()
    assert code == 128 + sig, err[-3000:]
    assert "Traceback" not in err and f"stopped by {sig.name}" in err and f"dw train --resume {run}" in err
    assert leftovers(tag) == []
    saved = checkpoint.load(run / "checkpoint.pt")
    iterations = saved["training"]["counters"]["iterations"]
    assert iterations >= 1 and f"after {iterations} iterations" in err
    assert (run / "policy.pt").exists()
    resumed = train(
        sg.from_dict(saved["config"], [f"run.iterations={iterations + 1}", "run.selfplay_workers=0"]),
        resume=run / "checkpoint.pt",
    )
    assert resumed["counters"]["iterations"] == iterations + 1


# ---- dw bench selfplay --workers ------------------------------------------------------------------------------
def test_bench_selfplay_measures_one_and_n_workers_with_the_load() -> None:
    from dw_cli.bench import selfplay

    (row,) = selfplay.run(seconds=0.1, games=("conquer",), workers=2)["rows"]
    assert row["game"] == "conquer" and row["workers"] == 2
    assert row["one_moves_s"] > 0 and row["workers_moves_s"] > 0 and row["load"] >= 0


@pytest.mark.parametrize(
    ("argv", "games"),
    [
        ([], ("alveole", "conquer", "domain_wheel")),
        (["--game", "domain_wheel"], ("domain_wheel",)),
        (["--game", "conquer"], ("conquer",)),
    ],
)
def test_bench_selfplay_measures_the_game_named_or_every_game(
    argv: list[str], games: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--game domain_wheel`` measures Domain Wheel alone (it used to be read as "no game named": every game)."""
    from dw_cli.bench import selfplay
    from dw_cli.main import main

    asked: list[tuple[str, ...]] = []
    monkeypatch.setattr(selfplay, "run", lambda seconds, games, workers: asked.append(tuple(games)))
    assert main(["bench", "selfplay", "--seconds", "0.1", *argv]) == 0
    assert asked == [games]


@pytest.mark.parametrize(
    ("argv", "words"),
    [(["selfplay", "--workers", "-1"], "0..256"), (["env", "--workers", "2"], "for dw bench selfplay")],
)
def test_bench_refuses_a_bad_worker_count_in_one_line(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from dw_cli.main import main

    assert main(["bench", *argv, "--seconds", "0.1"]) == 2
    assert words in capsys.readouterr().err


def test_a_killed_worker_is_reported_with_its_exit_code_not_waited_on(tmp_path: Path) -> None:
    """A worker lost mid-run (the OOM killer, a stray kill) ends the run with an error naming it, never a hang."""
    from training.search_guided.workers import NoStop, ProcessPlay, weights_of

    config = _config("run.selfplay_workers=1")
    play = ProcessPlay(config.to_dict(), 1)
    try:
        (worker,) = play.workers
        worker.process.kill()
        worker.process.wait()
        net = torch.nn.Linear(1, 1)
        with pytest.raises(RuntimeError, match=r"self-play worker process .*exit code -9"):
            play.play(weights_of(net), 0, 2, NoStop())
    finally:
        play.kill()
