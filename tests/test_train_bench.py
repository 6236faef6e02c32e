"""``dw bench train``'s configs: the default training run, minus the warm start and the evaluation."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from dw_cli.bench.train import TARGET, bench_config  # noqa: E402
from training.ppo.config import TrainConfig  # noqa: E402


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


def test_the_plain_network_and_the_all_cores_cases_change_one_thing_each(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from dw_cli.bench.train import CASES

    def config(case: str) -> TrainConfig:
        return bench_config(CASES[case][0], 30, str(tmp_path), CASES[case][1])

    standard, plain = config("standard"), config("standard, plain network")
    cores, plain_cores = config("standard, all cores"), config("standard, plain network, all cores")
    small, small_cores = config("small"), config("small, all cores")
    small_plain = config("small, plain network, all cores")
    assert standard.network.turn_trunk and not plain.network.turn_trunk  # the default shares a turn's trunk
    assert plain.network.model_dump(exclude={"turn_trunk"}) == standard.network.model_dump(exclude={"turn_trunk"})
    for one, many in ((standard, cores), (plain, plain_cores), (small, small_cores)):
        assert one.run.network_threads == 1 and many.run.network_threads == 0  # 0: one per core
        assert one.run.model_dump(exclude={"network_threads"}) == many.run.model_dump(exclude={"network_threads"})
        assert one.network == many.network and one.options == many.options and one.ppo == many.ppo
    assert small_plain.network == plain.network and small_plain.run == small_cores.run
    assert small_plain.options == small_cores.options and small_plain.ppo == small_cores.ppo
    assert cores.run.torch_threads == plain_cores.run.torch_threads == 1  # torch's threads would oversubscribe
    assert [CASES[c][0] for c in CASES] == ["small"] * 3 + ["standard"] * 6
    conv32 = config("standard, all cores, float32 conv")
    assert cores.run.conv_precision == "auto" and conv32.run.conv_precision == "float32"
    assert conv32.run.model_dump(exclude={"conv_precision"}) == cores.run.model_dump(exclude={"conv_precision"})
    assert conv32.network == cores.network and conv32.options == cores.options
    packed = config("standard, all cores, packed observations")
    assert packed.env.packed_observations and not cores.env.packed_observations
    assert packed.env.model_dump(exclude={"packed_observations"}) == cores.env.model_dump(
        exclude={"packed_observations"}
    )
    assert packed.run == cores.run and packed.network == cores.network and packed.options == cores.options


def test_every_case_measures_several_updates_of_its_map() -> None:
    from dw_cli.bench.train import CASES, MIN_SECONDS

    assert {CASES[c][0] for c in CASES} == set(MIN_SECONDS)
    assert MIN_SECONDS["standard"] >= 45 and MIN_SECONDS["small"] >= 20
