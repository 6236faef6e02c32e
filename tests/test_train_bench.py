"""``dw bench train``'s configs: the default training run, minus the warm start and the evaluation."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from dw_cli.bench.train import TARGET, bench_config  # noqa: E402
from training.config import TrainConfig  # noqa: E402


def test_the_small_map_runs_the_default_config(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config, default = bench_config("small", 30, str(tmp_path)), TrainConfig()
    assert config.options == default.options and config.network == default.network and config.env == default.env
    assert config.run.torch_threads == default.run.torch_threads
    assert config.imitation.teacher == "none" and config.eval.final_games == 0
    assert config.run.max_minutes == 0.5


def test_the_standard_map_changes_only_the_map(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config, default = bench_config("standard", 30, str(tmp_path)), TrainConfig()
    assert (config.options.land_radius, config.options.map_radius) == (2, 4)
    assert config.run.torch_threads == default.run.torch_threads and config.network == default.network
    assert TARGET == 3000


def test_the_turn_trunk_and_the_all_cores_cases_change_one_thing_each(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from dw_cli.bench.train import CASES

    standard = bench_config("standard", 30, str(tmp_path), CASES["standard"][1])
    shared = bench_config("standard", 30, str(tmp_path), CASES["standard, turn_trunk"][1])
    cores = bench_config("standard", 30, str(tmp_path), CASES["standard, turn_trunk, all cores"][1])
    plain_cores = bench_config("standard", 30, str(tmp_path), CASES["standard, all cores"][1])
    assert not standard.network.turn_trunk and shared.network.turn_trunk
    assert shared.network.model_dump(exclude={"turn_trunk"}) == standard.network.model_dump(exclude={"turn_trunk"})
    assert (cores.run.torch_threads, cores.run.env_threads) == (0, 1)
    assert cores.network == shared.network and cores.options == shared.options == standard.options
    assert (plain_cores.run.torch_threads, plain_cores.run.env_threads) == (0, 1)
    assert plain_cores.network == standard.network and plain_cores.options == standard.options
    assert [CASES[c][0] for c in CASES] == ["small", "standard", "standard", "standard", "standard"]


def test_the_all_cores_cases_spin_their_openmp_workers() -> None:
    from dw_cli.bench.train import CASE_ENVIRONMENT, CASES

    spinning = {case for case, env in CASE_ENVIRONMENT.items() if env.get("OMP_WAIT_POLICY") == "ACTIVE"}
    assert spinning == {case for case in CASES if case.endswith("all cores")}
