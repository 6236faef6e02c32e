"""Training configs (training/ppo/config.py): strict validation, overrides, and the shipped YAML files."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from training.ppo import config as cfg  # noqa: E402

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
        (
            {"ppo": {"learning_rate": "fast"}},
            r"ppo\.learning_rate: must be a finite number in 0\.0\.\.1\.0, got 'fast'",
        ),
        ({"ppo": {"learning_rate": -1}}, r"ppo\.learning_rate: must be a finite number in 0\.0\.\.1\.0, got -1"),
        ({"env": {"num_envs": 2.5}}, r"env\.num_envs: must be an integer in 3\.\.65536, got 2\.5"),
        ({"env": {"num_envs": True}}, r"env\.num_envs: must be an integer in 3\.\.65536, got True"),
        ({"env": {"num_envs": 1}}, r"env\.num_envs: must be an integer in 3\.\.65536, got 1"),
        ({"ppo": {"gamma": 1.5}}, r"ppo\.gamma: must be a finite number in 0\.0\.\.1\.0, got 1\.5"),
        ({"run": {"device": "tpu"}}, r"run\.device: must be one of auto, cpu, cuda, got 'tpu'"),
        (
            {"ppo": {"anneal_until": "minutes"}},
            r"ppo\.anneal_until: must be one of steps, first_limit, got 'minutes'",
        ),
        ({"ppo": {"norm_adv": "yes"}}, r"ppo\.norm_adv: must be true or false, got 'yes'"),
        ({"eval": {"opening_plies": -1}}, r"eval\.opening_plies: must be an integer in 0\.\.1000, got -1"),
        ({"league": {"weights": {"sensei": 1}}}, r"league\.weights: unknown opponent kind 'sensei'; allowed: latest"),
        (
            {"league": {"weights": {"random": -1}}},
            r"league\.weights: the weight of random must be a finite number in 0\.\.1,000,000, got -1",
        ),
        ({"league": {"weights": {"random": 0}}}, r"at least one opponent kind a positive weight"),
        (
            {"eval": {"final_opponents": ["sensei"]}},
            r"eval\.final_opponents\[0\]: must be one of random, .*got 'sensei'",
        ),
        ({"game": {"land_radius": 9}}, r"game: option land_radius=9 is out of range; allowed: 1\.\.5"),
        ({"run": []}, r"run: must be a mapping of keys \(name, seed, "),
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


# ---- issue 8: bad input is refused quickly, with a bounded message -----------------------------------
ALIAS_BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
)


def test_yaml_alias_bomb_is_refused_at_its_first_anchor(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(ALIAS_BOMB)
    with pytest.raises(cfg.ConfigError, match=r"bomb\.yaml: line 1: YAML anchors and aliases \(&'a'\) are not allowed"):
        cfg.load(path)


def test_yaml_aliases_in_an_override_are_refused() -> None:
    with pytest.raises(cfg.ConfigError, match="anchors and aliases"):
        cfg.load(None, ["eval.final_opponents=[*x]"])


def test_duplicate_yaml_keys_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "twice.yaml"
    path.write_text("ppo:\n  learning_rate: 0.1\n  gamma: 0.9\n  learning_rate: 0.2\n")
    with pytest.raises(cfg.ConfigError, match=r"twice\.yaml: line 4: key 'learning_rate' is given twice"):
        cfg.load(path)
    path.write_text("ppo: {}\nrun: {}\nppo: {}\n")
    with pytest.raises(cfg.ConfigError, match=r"line 3: key 'ppo' is given twice"):
        cfg.load(path)


def test_huge_values_are_quoted_briefly(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text("run:\n  name: " + "x" * 1_000_000 + "\n")
    with pytest.raises(cfg.ConfigError, match=r"run\.name: must be one folder name") as info:
        cfg.load(path)
    assert len(str(info.value)) < 500
    with pytest.raises(cfg.ConfigError) as info:
        cfg.from_dict({"ppo": {"k" * 100_000: 1}, "game": {"max_rounds": 10**5000}})
    assert len(str(info.value)) < 1000


def test_oversized_config_file_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("# " + "x" * (cfg.MAX_CONFIG_BYTES + 1) + "\n")
    with pytest.raises(cfg.ConfigError, match=r"big\.yaml is larger than 1,048,576 bytes"):
        cfg.load(path)


def test_deep_yaml_is_refused_with_the_depth_allowed(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("run: " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(cfg.ConfigError, match=r"deep\.yaml: line 1: nested too deeply; allowed: at most 64 levels"):
        cfg.load(path)


def test_an_override_is_read_with_the_depth_limit_too() -> None:
    with pytest.raises(cfg.ConfigError, match=r"line 1: nested too deeply; allowed: at most 64 levels"):
        cfg.load(None, ["run.seed=" + "[" * 70 + "]" * 70])


@pytest.mark.parametrize("text", ["game:\n", "game: {}\n", "", "game:\n  max_rounds: 150\n"])
def test_empty_or_missing_game_section_is_the_default_small_map(tmp_path: Path, text: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    options = cfg.load(path).options
    assert (options.land_radius, options.map_radius, options.max_rounds) == (1, 2, 150)
    assert cfg.load(path).game == cfg.TrainConfig().game


def test_partial_game_section_keeps_the_other_default_options(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("game:\n  max_rounds: 40\n")
    options = cfg.load(path).options
    assert (options.land_radius, options.map_radius, options.max_rounds) == (1, 2, 40)
    assert cfg.load(None, ["game.max_rounds=40"]).options == options  # a file and an override agree


@pytest.mark.parametrize("name", ["../../x", "a/b", "..", ".", "", "/abs", "a\\b", "-rf", "x" * 101, "nul\x00"])
def test_run_name_must_be_one_safe_folder_name(name: str) -> None:
    with pytest.raises(cfg.ConfigError, match=r"run\.name: must be one folder name"):
        cfg.from_dict({"run": {"name": name}})


def test_run_name_that_is_a_folder_name_is_accepted() -> None:
    assert cfg.from_dict({"run": {"name": "small-agent_v2.1"}}).run.name == "small-agent_v2.1"


FLOAT_KEYS = [
    f"{section}.{key}"
    for section, model in cfg.SECTIONS.items()
    for key, field in model.model_fields.items()
    if field.annotation is float
]


@pytest.mark.parametrize("key", FLOAT_KEYS)
@pytest.mark.parametrize("text", [".nan", ".inf", "-.inf"])
def test_non_finite_numbers_are_refused_everywhere(key: str, text: str) -> None:
    with pytest.raises(cfg.ConfigError, match=re.escape(f"{key}: must be a finite number")):
        cfg.load(None, [f"{key}={text}"])


@pytest.mark.parametrize("text", [".nan", ".inf"])
def test_non_finite_league_weight_is_refused(text: str) -> None:
    with pytest.raises(cfg.ConfigError, match=r"league\.weights\.random: must be a finite number in 0\.\.1,000,000"):
        cfg.load(None, [f"league.weights.random={text}"])


def test_numbers_in_e_notation_are_numbers_and_quoted_numbers_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("ppo:\n  learning_rate: 1e-4\n  gamma: 9.9E-1\n")
    config = cfg.load(path)
    assert config.ppo.learning_rate == 1e-4 and config.ppo.gamma == 0.99
    path.write_text('ppo:\n  learning_rate: "0.1"\n')
    with pytest.raises(
        cfg.ConfigError, match=r"ppo\.learning_rate: must be a finite number in 0\.0\.\.1\.0, got '0\.1'"
    ):
        cfg.load(path)


def test_every_shipped_config_is_valid() -> None:
    """Each config loads with its algorithm's strict loader (``algo:`` chooses it, as ``dw train`` does)."""
    from training.search_guided import config as sg

    algos = set()
    for path in sorted(CONFIGS.glob("*.yaml")):
        algo = sg.algo_of(sg.read(path))
        (sg if algo == sg.ALGO else cfg).load(path)
        algos.add(algo)
    assert sg.ALGO in algos and len(algos) == 2  # both algorithms have shipped configs, and only they


def test_league_weights_whose_sum_overflows_are_refused() -> None:
    """Issue 45, finding 14: 1e308 + 1e308 is infinite and the league's probabilities would be NaN."""
    with pytest.raises(
        cfg.ConfigError,
        match=r"league\.weights: the weight of latest must be a finite number in 0\.\.1,000,000, got 1e\+308",
    ):
        cfg.load(None, ["league.weights={latest: 1e308, past: 1e308}"])
    weights = cfg.load(None, [f"league.weights={{latest: {cfg.MAX_WEIGHT}, past: {cfg.MAX_WEIGHT}}}"]).league.weights
    assert math.isfinite(sum(weights.values()))


def test_a_rollout_larger_than_its_buffers_may_hold_is_refused() -> None:
    """Issue 45, finding 14: env.num_envs * env.num_steps sizes the rollout's buffers."""
    with pytest.raises(
        cfg.ConfigError,
        match=r"env\.num_envs \* env\.num_steps = 268,435,456 steps a rollout.*"
        r"allowed: at most 1,048,576",
    ):
        cfg.load(None, ["env.num_envs=65536", "env.num_steps=4096"])
    assert cfg.load(None, ["env.num_envs=8192", "env.num_steps=128"]).env.num_envs == 8192  # exactly the limit


def test_dw_train_refuses_an_overflowing_config_before_writing_anything(tmp_path: Path) -> None:
    from dw_cli.main import main

    run_dir = tmp_path / "run"
    argv = ["train", "--run-dir", str(run_dir), "--set", "league.weights={latest: 1e308, past: 1e308}"]
    assert main(argv) == 2
    assert not run_dir.exists()
