"""The warm start's clone over several tables (training/ppo/imitation.py, docs/TRAINING.md "Tables"): a run whose
tables read different maps clones the teacher on every table's games, each minibatch on its own table's map.

Frontera's smoke network on two tables, 2 players on the small map and 3 on the medium map: their observations
differ in size, so a minibatch read on the wrong map fails outright. The clone must learn both tables' examples,
and a list of one part must clone exactly as the part alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from policies import checkpoint  # noqa: E402
from training.ppo import config as cfg  # noqa: E402
from training.ppo.game_setup import make_network  # noqa: E402
from training.ppo.imitation import CloneLoss, clone, collect_demonstrations  # noqa: E402
from training.ppo.network_threads import NetworkThreads  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "frontera_smoke.yaml"
TABLES = "tables=[{players: 2, num_envs: 4}, {players: 3, map: medium, max_turns: 3, num_envs: 4, name: medium3}]"
CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def tables() -> dict[str, Any]:
    whole = cfg.load(CONFIG, [TABLES])
    configs = [c for _, c in whole.table_configs()]
    parts = [
        collect_demonstrations(c.options, "expansionist", 240, seed=3 + k, num_envs=8, game_id="frontera")
        for k, c in enumerate(configs)
    ]
    graphs = [make_network(c, CPU).graph for c in configs]
    return {"configs": configs, "parts": parts, "graphs": graphs}


def network(tables: dict[str, Any]) -> Any:
    torch.manual_seed(11)
    return make_network(tables["configs"][0], CPU)


def accuracy(net: Any, part: dict[str, Any]) -> float:
    batch = {key: torch.from_numpy(part[key]) for key in ("obs", "masks", "actions", "values")}
    net.zero_grad()
    sums = NetworkThreads(net, 1).run([(0, len(part["obs"]))], CloneLoss(batch, len(part["obs"])))
    net.zero_grad()
    return float(sums["correct"]) / len(part["obs"])


def test_the_parts_differ_in_size_so_a_minibatch_on_the_wrong_map_fails(tables: dict[str, Any]) -> None:
    small, medium = tables["parts"]
    assert small["obs"].shape[1] != medium["obs"].shape[1]
    assert small["masks"].shape[1] != medium["masks"].shape[1]
    net = network(tables)
    with pytest.raises(Exception, match="set_map"):
        accuracy(net, medium)


def test_a_clone_of_two_tables_learns_both_each_minibatch_on_its_map(tables: dict[str, Any]) -> None:
    net = network(tables)
    before = []
    for k, part in enumerate(tables["parts"]):
        net.set_map(tables["graphs"][k])
        before.append(accuracy(net, part))
    pool = NetworkThreads(net, 1)
    seen: list[int] = []

    def on_part(k: int) -> NetworkThreads:
        seen.append(k)
        net.set_map(tables["graphs"][k])
        return pool

    torch.manual_seed(5)
    stats = clone(
        net, tables["parts"], epochs=6, learning_rate=1e-2, batch_size=40, device=CPU, threads=pool, on_part=on_part
    )
    after = []
    for k, part in enumerate(tables["parts"]):
        net.set_map(tables["graphs"][k])
        after.append(accuracy(net, part))
    assert all(a > b + 0.1 for a, b in zip(after, before, strict=True)), (before, after)
    assert 0 < stats["accuracy"] <= 1
    minibatches = [k for k in seen[2:]]  # the first two calls size each part's chunks
    sizes = [len(part["obs"]) for part in tables["parts"]]
    assert [minibatches.count(k) for k in (0, 1)] == [6 * -(-n // 40) for n in sizes]
    epoch = minibatches[: len(minibatches) // 6]
    assert epoch != sorted(epoch)  # the tables' minibatches are shuffled together, not one table after the other


def test_a_list_of_one_part_clones_exactly_as_the_part(tables: dict[str, Any]) -> None:
    part = tables["parts"][0]
    nets = []
    for data in (part, [part]):
        net = network(tables)
        torch.manual_seed(5)
        clone(net, data, epochs=2, learning_rate=1e-2, batch_size=40, device=CPU)
        nets.append(net)
    for a, b in zip(nets[0].parameters(), nets[1].parameters(), strict=True):
        assert torch.equal(a, b)
    with pytest.raises(ValueError, match="at least one"):
        clone(nets[0], [], epochs=1, learning_rate=1e-2, batch_size=40, device=CPU)


def test_dw_train_with_tables_clones_on_every_table_then_trains(tmp_path: Path) -> None:
    """The run's warm start collects on each table and leaves the network on the first table's map."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = "import sys; from dw_cli.main import main; sys.exit(main(sys.argv[1:]))"
    overrides = [
        TABLES,
        "imitation.teacher=expansionist",
        "imitation.decisions=301",
        "imitation.epochs=1",
        "imitation.workers=1",
        "run.stop_after_updates=2",
    ]
    args = ["train", "--config", str(CONFIG), "--run-dir", str(tmp_path / "run")]
    done = subprocess.run(
        [sys.executable, "-c", code, *args, *[a for o in overrides for a in ("--set", o)]],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("warm start:")]
    collected = [line for line in lines if "collected on table" in line]
    assert [line.split("on table ")[1].split()[0] for line in collected] == ["players2", "medium3"]
    counts = [int(line.split()[2].replace(",", "")) for line in collected]
    # 301 split 150 / 151; each stops within one step of its 64 games in flight
    assert 150 <= counts[0] < 150 + 64 and 151 <= counts[1] < 151 + 64
    assert any(f"cloning expansionist on {sum(counts):,} decisions" in line for line in lines)
    payload = checkpoint.load(tmp_path / "run" / "checkpoint.pt")
    assert payload["counters"]["updates"] == 2
