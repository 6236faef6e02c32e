"""Training configs (training/config.py): strict validation, overrides, and the shipped YAML files."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("yaml")

from training import config as cfg  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


@pytest.mark.parametrize("name", ["small.yaml", "smoke.yaml", "standard_gpu.yaml"])
def test_shipped_configs_load(name: str) -> None:
    config = cfg.load(CONFIGS / name)
    assert config.options.land_radius >= 1


def test_small_yaml_is_the_default_run() -> None:
    """``dw train`` without --config runs the same settings as configs/small.yaml."""
    assert cfg.load(CONFIGS / "small.yaml").to_dict() == cfg.load(None).to_dict()


def test_unknown_key_is_named_with_the_allowed_keys() -> None:
    with pytest.raises(cfg.ConfigError, match=r"unknown key ppo\.learning_rat; allowed in 'ppo': learning_rate, "):
        cfg.from_dict({"ppo": {"learning_rat": 0.1}})


def test_unknown_section_is_named() -> None:
    with pytest.raises(cfg.ConfigError, match=r"unknown section 'optimiser'; allowed: run, game, env"):
        cfg.from_dict({"optimiser": {}})


def test_unknown_game_option_is_named() -> None:
    with pytest.raises(cfg.ConfigError, match=r"game: unknown option 'radius'"):
        cfg.from_dict({"game": {"radius": 2}})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"ppo": {"learning_rate": "fast"}}, r"ppo\.learning_rate must be a finite number, got 'fast'"),
        ({"env": {"num_envs": 2.5}}, r"env\.num_envs must be an integer, got 2\.5"),
        ({"env": {"num_envs": True}}, r"env\.num_envs must be an integer, got True"),
        ({"env": {"num_envs": 1}}, r"env\.num_envs=1 is out of range; allowed: 3\.\.65536"),
        ({"ppo": {"gamma": 1.5}}, r"ppo\.gamma=1\.5 is out of range; allowed: 0\.0\.\.1\.0"),
        ({"run": {"device": "tpu"}}, r"run\.device='tpu' is not allowed; allowed: auto, cpu, cuda"),
        ({"ppo": {"norm_adv": "yes"}}, r"ppo\.norm_adv must be true or false, got 'yes'"),
        ({"league": {"weights": {"sensei": 1}}}, r"unknown opponent kind league\.weights\.sensei; allowed: latest"),
        ({"league": {"weights": {"random": -1}}}, r"league\.weights\.random must be a number >= 0, got -1"),
        ({"league": {"weights": {"random": 0}}}, r"at least one opponent kind a positive weight"),
        ({"eval": {"final_opponents": ["sensei"]}}, r"unknown eval\.final_opponents entry 'sensei'"),
        ({"game": {"land_radius": 9}}, r"game: option land_radius=9 is out of range; allowed: 1\.\.5"),
        ({"run": []}, r"section 'run' must be a mapping"),
    ],
)
def test_wrong_values_name_key_value_and_what_is_allowed(data: dict, message: str) -> None:
    with pytest.raises(cfg.ConfigError, match=message):
        cfg.from_dict(data)


def test_a_file_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("ppo:\n  clip: 0.1\n")
    with pytest.raises(cfg.ConfigError, match=r"bad\.yaml: unknown key ppo\.clip"):
        cfg.load(path)
    path.write_text("ppo: [\n")
    with pytest.raises(cfg.ConfigError, match=r"bad\.yaml: not valid YAML"):
        cfg.load(path)
    with pytest.raises(FileNotFoundError, match="no such config file"):
        cfg.load(tmp_path / "missing.yaml")


def test_overrides_are_typed_as_yaml_and_validated() -> None:
    config = cfg.load(CONFIGS / "smoke.yaml", ["ppo.learning_rate=1e-4", "run.progress=true", "game.max_rounds=9"])
    assert config.ppo.learning_rate == pytest.approx(1e-4)
    assert config.run.progress is True
    assert config.game["max_rounds"] == 9 and config.game["land_radius"] == 1  # the file's other options stay
    with pytest.raises(cfg.ConfigError, match=r"unknown key ppo\.lr"):
        cfg.load(CONFIGS / "smoke.yaml", ["ppo.lr=1"])
    with pytest.raises(cfg.ConfigError, match="must look like section.key=value"):
        cfg.load(None, ["learning_rate"])


def test_override_of_one_weight_keeps_the_others() -> None:
    weights = cfg.load(None, ["league.weights.balanced=0.5"]).league.weights
    assert weights["balanced"] == 0.5
    assert weights["latest"] == cfg.TrainConfig().league.weights["latest"]


def test_full_config_round_trips_through_yaml(tmp_path: Path) -> None:
    config = cfg.load(CONFIGS / "standard_gpu.yaml")
    path = tmp_path / "saved.yaml"
    path.write_text(cfg.to_yaml(config))
    assert cfg.load(path).to_dict() == config.to_dict()
