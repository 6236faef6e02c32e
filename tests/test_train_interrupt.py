"""``dw train`` across processes: Ctrl-C stops cleanly and resumes exactly; runs do not depend on the hash seed.

docs/TRAINING.md promises bit-identical resumption. These tests hold it to that in separate processes, each
with its own ``PYTHONHASHSEED`` (Python randomises the iteration order of sets of strings per process):

* a run interrupted with SIGINT (once its first checkpoint is on disk) exits with status 130 after writing
  its checkpoint and policy, and resumed in a new process ends bit-identical to the uninterrupted run: three
  processes under three hash seeds (the straight run's, the interrupted one's, the resumed one's), one run;
* so does Ctrl-C at a terminal, which sends SIGINT to the run's worker processes too.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from process_watch import wait_for  # noqa: E402

from policies import checkpoint  # noqa: E402

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
CONFIG = str(ROOT / "configs" / "smoke.yaml")
UPDATES = 6  # of 16 games x 24 steps each (the interrupted runs are signalled after their first)
SETTINGS = [
    "--set",
    f"run.total_env_steps={UPDATES * 16 * 24}",
    "--set",
    "run.checkpoint_every=1",
    "--set",
    "imitation.teacher=none",
    "--set",
    "eval.final_games=0",
]
LIMIT = 900  # seconds a process may take on a loaded CI machine


def _start(args: list[str], hash_seed: int, own_group: bool = False) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    return subprocess.Popen(
        [sys.executable, "-m", "dw_cli.main", "train", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=own_group,  # a process group of its own, as a terminal's foreground job has
    )


def _wait_for_checkpoint(folder: Path, process: subprocess.Popen[str]) -> None:
    """Wait until the run wrote its first checkpoint (a file is the handshake, not a length of time)."""
    wait_for(lambda: (folder / "checkpoint.pt").exists(), "the first checkpoint", lambda: process.poll() is None)


def _finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    _, err = process.communicate(timeout=LIMIT)
    return process.returncode, err


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("interrupt")
    out: dict[str, Any] = {key: base / key for key in ("straight", "interrupted")}
    straight = _start(["--config", CONFIG, "--run-dir", str(out["straight"]), *SETTINGS], hash_seed=1)
    stopped = _start(["--config", CONFIG, "--run-dir", str(out["interrupted"]), *SETTINGS], hash_seed=3)
    _wait_for_checkpoint(out["interrupted"], stopped)
    stopped.send_signal(signal.SIGINT)
    out["stopped_rc"], out["stopped_err"] = _finish(stopped)
    out["at_stop"] = checkpoint.load(out["interrupted"] / "checkpoint.pt")
    out["policy_at_stop"] = (out["interrupted"] / "policy.pt").exists()
    resumed = _start(["--resume", str(out["interrupted"])], hash_seed=4)
    out["resumed_rc"], out["resumed_err"] = _finish(resumed)
    out["straight_rc"], out["straight_err"] = _finish(straight)
    return out


KEYS = ("env_steps", "updates", "games", "decisions")


def _assert_same_run(a: Path, b: Path) -> None:
    first, second = checkpoint.load(a / "checkpoint.pt"), checkpoint.load(b / "checkpoint.pt")
    assert {k: first["counters"][k] for k in KEYS} == {k: second["counters"][k] for k in KEYS}
    assert first["counters"]["updates"] == UPDATES
    for name, tensor in first["model"].items():
        assert torch.equal(second["model"][name], tensor), name


def test_sigint_writes_checkpoint_and_policy_then_resumes_bit_identical_under_other_hash_seeds(
    runs: dict[str, Any],
) -> None:
    err = runs["stopped_err"]
    assert runs["stopped_rc"] == 130, err[-2000:]
    assert "Traceback" not in err
    assert "stopped by SIGINT" in err and "dw train --resume" in err
    assert runs["policy_at_stop"]
    assert 1 <= runs["at_stop"]["counters"]["updates"] < UPDATES  # stopped part-way, at an update's end
    assert runs["resumed_rc"] == 0, runs["resumed_err"][-2000:]
    assert runs["straight_rc"] == 0, runs["straight_err"][-2000:]
    _assert_same_run(runs["straight"], runs["interrupted"])


def test_sigterm_stops_cleanly_with_status_143(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    process = _start(["--config", CONFIG, "--run-dir", str(folder), *SETTINGS], hash_seed=5)
    _wait_for_checkpoint(folder, process)
    process.send_signal(signal.SIGTERM)
    code, err = _finish(process)
    assert code == 143, err[-2000:]
    assert "stopped by SIGTERM" in err and "Traceback" not in err
    assert (folder / "policy.pt").exists()
    assert checkpoint.load(folder / "checkpoint.pt")["counters"]["updates"] < UPDATES


def test_ctrl_c_at_a_terminal_stops_cleanly_with_the_workers_in_the_process_group(tmp_path: Path) -> None:
    """A terminal's Ctrl-C signals every process of the foreground job: the update's worker process and the
    scripted AIs' workers must leave the stop to the trainer, which still needs them to finish and save."""
    folder = tmp_path / "run"
    ais = ["--set", "league.weights={latest: 0.4, balanced: 0.3, center: 0.3}", "--set", "run.scripted_workers=2"]
    # minibatches of several chunks, so that the update's second replica runs in its worker process; 4 updates
    big_updates = 4
    big = ["--set", "env.num_envs=48", "--set", "ppo.num_minibatches=1", "--set", "run.network_threads=2"]
    big += ["--set", f"run.total_env_steps={big_updates * 48 * 24}"]
    args = ["--config", CONFIG, "--run-dir", str(folder), *SETTINGS, *ais, *big]
    process = _start(args, hash_seed=6, own_group=True)
    _wait_for_checkpoint(folder, process)
    group = subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert len(group) >= 4, group  # the trainer, its update's worker and the two AIs' workers
    os.killpg(process.pid, signal.SIGINT)
    code, err = _finish(process)
    assert code == 130, err[-2000:]
    assert "stopped by SIGINT" in err and "Traceback" not in err
    assert (folder / "policy.pt").exists()
    assert checkpoint.load(folder / "checkpoint.pt")["counters"]["updates"] < big_updates
