"""The training configuration: one dataclass per section, loaded from strictly validated YAML.

A config file has the sections below; every key is optional and defaults to the value given here, which is
the default run (``configs/small.yaml``: the small map on a CPU)::

    run:     name, seed, out_dir, total_env_steps, max_minutes, device, amp, torch_threads, env_threads,
             checkpoint_every, stop_after_updates, progress
    game:    the game options (dw_env.options.GameOptions): land_radius, map_radius, ...
    env:     num_envs, num_steps, score_shaping, conquest_shaping
    ppo:     learning_rate, anneal_lr, gamma, gae_lambda, num_minibatches, update_epochs, ...
    network: channels, cell_layers, land_layers, head_hidden
    league:  snapshot_every, keep, weights (opponent kind -> sampling weight), rating_window
    imitation: teacher, decisions, epochs, learning_rate, batch_size, workers (warm start: clone an AI)
    eval:    final_games, final_opponents, greedy

Validation is strict (pgx's ``extra="forbid"``): an unknown section or key is an error that names it and
lists the allowed keys; a value of the wrong type or out of range is an error naming the key, the value
received and what is allowed. Command-line overrides use the same path syntax: ``ppo.learning_rate=1e-4``.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dw_env.options import GameOptions

#: opponent kinds a game can be sampled with: the learner itself, a frozen past self, or a scripted AI
NETWORK_OPPONENTS: tuple[str, ...] = ("latest", "past")
SCRIPTED_OPPONENTS: tuple[str, ...] = ("random", "balanced", "expansionist", "center", "raider", "guardian")
OPPONENT_KINDS: tuple[str, ...] = NETWORK_OPPONENTS + SCRIPTED_OPPONENTS


def _opt(default: Any, low: float | None = None, high: float | None = None, choices: tuple[Any, ...] = ()) -> Any:
    """Return a dataclass field with its allowed range or choices recorded for validation."""
    meta = {"low": low, "high": high, "choices": choices}
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class RunConfig:
    """What to run, where to write it and when to stop."""

    name: str = "small"
    seed: int = _opt(1, 0, 2**31 - 1)
    out_dir: str = "runs"
    #: stop after this many environment steps (decisions of every seat, both phases) ...
    total_env_steps: int = _opt(5_000_000, 1)
    #: ... or after this many minutes of wall-clock time (warm start included), whichever comes first
    #: (0: no time limit); the learning rate anneals with the steps, so this limit is the safety net
    max_minutes: float = _opt(12.0, 0.0)
    device: str = _opt("auto", choices=("auto", "cpu", "cuda"))
    #: bf16 autocast on CUDA ("auto": on when the device is CUDA; CPUs gain nothing from it here)
    amp: str = _opt("auto", choices=("auto", "on", "off"))
    torch_threads: int = _opt(1, 0, 256)  # 0: all cores
    env_threads: int = _opt(1, 0, 256)  # 0: all cores
    checkpoint_every: int = _opt(20, 1)  # updates
    #: end this session after this many updates in total (0: never); the schedule still follows
    #: total_env_steps, so ``--resume`` later continues exactly (for runs split over sessions)
    stop_after_updates: int = _opt(0, 0)
    progress: bool = True


@dataclass
class EnvConfig:
    """The batched environment: games stepped together and steps per rollout."""

    num_envs: int = _opt(128, 3, 65536)
    #: vector steps per rollout; the learner decides in about a third of them (one seat of three)
    num_steps: int = _opt(96, 4, 4096)
    #: add the change of (own score - rivals' mean) / total points to every action's reward (zero-sum; it
    #: telescopes to the final score difference over a game); the terminal win/loss reward stays
    score_shaping: bool = True
    #: potential-based shaping (Ng et al. 1999) from the learner's running conquests: the potential is
    #: this weight x sum over lands of points x hold counter / K (rule 6.4) / total points; it guides the
    #: first conquests without changing which policies are optimal (0: off)
    conquest_shaping: float = _opt(1.0, 0.0, 100.0)


@dataclass
class PPOConfig:
    """PPO's hyperparameters (names as in CleanRL's ppo.py)."""

    learning_rate: float = _opt(3e-4, 0.0, 1.0)
    anneal_lr: bool = True
    gamma: float = _opt(0.995, 0.0, 1.0)
    gae_lambda: float = _opt(0.95, 0.0, 1.0)
    num_minibatches: int = _opt(8, 1, 4096)
    update_epochs: int = _opt(2, 1, 100)
    norm_adv: bool = True
    clip_coef: float = _opt(0.2, 0.0, 10.0)
    clip_vloss: bool = False
    ent_coef: float = _opt(0.005, 0.0, 10.0)
    vf_coef: float = _opt(0.5, 0.0, 100.0)
    max_grad_norm: float = _opt(0.5, 0.0, 1000.0)
    #: stop the epochs of an update early when the approximate KL exceeds this (0: never)
    target_kl: float = _opt(0.0, 0.0, 10.0)


@dataclass
class NetworkConfig:
    """The hex network's size (see policies/network.py); the weights do not depend on the map size."""

    channels: int = _opt(16, 4, 1024)
    cell_layers: int = _opt(1, 0, 64)  # hex convolutions over the cells
    land_layers: int = _opt(3, 0, 64)  # rounds of message passing between lands
    head_hidden: int = _opt(64, 8, 4096)


@dataclass
class LeagueConfig:
    """Opponents: frozen past selves and scripted AIs, sampled per game with these weights."""

    #: freeze a copy of the learner every this many updates ...
    snapshot_every: int = _opt(10, 1)
    #: ... and keep the last this many
    keep: int = _opt(5, 1, 1000)
    #: opponent kind -> weight; "latest" is the learner itself, "past" a frozen past self (uniform over the
    #: kept ones), the others are scripted AIs. Kinds left out get weight 0.
    weights: dict = _opt({"latest": 0.4, "past": 0.3, "random": 0.1, "balanced": 0.2})
    #: win rates and the rating use the last this many games against each opponent
    rating_window: int = _opt(400, 10)


@dataclass
class ImitationConfig:
    """Optional warm start (training/imitation.py): clone a scripted AI before PPO ("none": off)."""

    teacher: str = _opt("balanced", choices=("none",) + SCRIPTED_OPPONENTS)
    decisions: int = _opt(60_000, 1, 100_000_000)  # env steps of demonstrations (both phases)
    epochs: int = _opt(4, 1, 1000)
    learning_rate: float = _opt(1e-3, 0.0, 1.0)
    batch_size: int = _opt(512, 1, 1_000_000)
    workers: int = _opt(0, 0, 1024)  # processes collecting demonstrations (0: every core)


@dataclass
class EvalConfig:
    """The evaluation printed at the end of a run: the learner as one seat vs two copies of each opponent."""

    final_games: int = _opt(150, 0, 1_000_000)
    final_opponents: list = _opt(["random", "balanced"])
    #: play the most probable action (True) or sample from the policy (False)
    greedy: bool = False


@dataclass
class TrainConfig:
    """Everything a training run needs; ``game`` holds the game options as a plain mapping."""

    run: RunConfig = field(default_factory=RunConfig)
    game: dict = field(default_factory=lambda: {"land_radius": 1, "map_radius": 2, "max_rounds": 150})
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    league: LeagueConfig = field(default_factory=LeagueConfig)
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)

    @property
    def options(self) -> GameOptions:
        """Return the validated game options."""
        return GameOptions.from_dict(self.game)

    def to_dict(self) -> dict[str, Any]:
        """Return the full config as a plain mapping (what is saved with every run)."""
        return dataclasses.asdict(self)


SECTIONS: dict[str, type] = {
    "run": RunConfig,
    "env": EnvConfig,
    "ppo": PPOConfig,
    "network": NetworkConfig,
    "league": LeagueConfig,
    "imitation": ImitationConfig,
    "eval": EvalConfig,
}
ALL_SECTIONS: tuple[str, ...] = ("run", "game", "env", "ppo", "network", "league", "imitation", "eval")


class ConfigError(ValueError):
    """A config value, key or file that is not allowed; the message names it and what is allowed."""


def _check_value(where: str, value: Any, f: dataclasses.Field[Any]) -> Any:
    """Return ``value`` checked (and int widened to float) for field ``f``; raise ConfigError otherwise."""
    kind = f.type if isinstance(f.type, str) else f.type.__name__
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, got {value!r}")
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where} must be an integer, got {value!r}")
    elif kind == "float":
        value = _yaml_float(value)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ConfigError(f"{where} must be a finite number, got {value!r}")
        value = float(value)
    elif kind == "str":
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where} must be a non-empty string, got {value!r}")
    elif kind == "dict" and not isinstance(value, dict):
        raise ConfigError(f"{where} must be a mapping, got {value!r}")
    elif kind == "list" and not isinstance(value, list):
        raise ConfigError(f"{where} must be a list, got {value!r}")
    low, high, choices = f.metadata.get("low"), f.metadata.get("high"), f.metadata.get("choices")
    if choices and value not in choices:
        raise ConfigError(f"{where}={value!r} is not allowed; allowed: {', '.join(map(str, choices))}")
    if low is not None and value < low:
        raise ConfigError(f"{where}={value!r} is out of range; allowed: {_range_text(low, high)}")
    if high is not None and value > high:
        raise ConfigError(f"{where}={value!r} is out of range; allowed: {_range_text(low, high)}")
    return value


def _yaml_float(value: Any) -> Any:
    """Return ``value`` as a float if it is a string like ``1e-4`` (YAML 1.1 reads those as strings)."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _range_text(low: float | None, high: float | None) -> str:
    if high is None:
        return f">= {low}"
    return f"{low}..{high}"


def _section(name: str, data: Any) -> Any:
    """Return the dataclass of section ``name`` built from ``data`` (a mapping), strictly validated."""
    cls = SECTIONS[name]
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"section {name!r} must be a mapping, got {data!r}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in data:
        if key not in fields:
            raise ConfigError(f"unknown key {name}.{key!s}; allowed in {name!r}: {', '.join(fields)}")
    values = {key: _check_value(f"{name}.{key}", value, fields[key]) for key, value in data.items()}
    return cls(**values)


def _check_league(league: LeagueConfig) -> None:
    for kind, weight in league.weights.items():
        if kind not in OPPONENT_KINDS:
            raise ConfigError(f"unknown opponent kind league.weights.{kind}; allowed: {', '.join(OPPONENT_KINDS)}")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight < math.inf:
            raise ConfigError(f"league.weights.{kind} must be a number >= 0, got {weight!r}")
    league.weights = {kind: float(league.weights.get(kind, 0.0)) for kind in OPPONENT_KINDS}
    if sum(league.weights.values()) <= 0:
        raise ConfigError("league.weights must give at least one opponent kind a positive weight")


def _check_eval(ev: EvalConfig) -> None:
    for kind in ev.final_opponents:
        if kind not in SCRIPTED_OPPONENTS:
            raise ConfigError(f"unknown eval.final_opponents entry {kind!r}; allowed: {', '.join(SCRIPTED_OPPONENTS)}")


def from_dict(data: Any) -> TrainConfig:
    """Return the config described by a mapping (a parsed YAML file), strictly validated."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"a config must be a mapping of sections, got {type(data).__name__}")
    for key in data:
        if key not in ALL_SECTIONS:
            raise ConfigError(f"unknown section {key!r}; allowed: {', '.join(ALL_SECTIONS)}")
    sections = {name: _section(name, data.get(name)) for name in SECTIONS}
    game = data.get("game", TrainConfig().game)
    if game is None:
        game = {}
    try:
        GameOptions.from_dict(game)
    except ValueError as exc:
        raise ConfigError(f"game: {exc}") from None
    config = TrainConfig(game=dict(game), **sections)
    _check_league(config.league)
    _check_eval(config.eval)
    if config.env.num_envs * config.env.num_steps < 3 * config.ppo.num_minibatches:
        raise ConfigError(
            f"env.num_envs * env.num_steps = {config.env.num_envs * config.env.num_steps} is too small for "
            f"ppo.num_minibatches={config.ppo.num_minibatches}; the learner decides in about a third of the steps"
        )
    return config


def parse_override(text: str) -> tuple[list[str], Any]:
    """Return (key path, value) of an override ``section.key=value``; the value is read as YAML."""
    import yaml

    key, sep, raw = text.partition("=")
    path = [part for part in key.strip().split(".")]
    if not sep or not all(path):
        raise ConfigError(f"an override must look like section.key=value (e.g. ppo.learning_rate=1e-4), got {text!r}")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        raise ConfigError(f"override {text!r}: the value is not valid YAML ({exc})") from None
    return path, value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Return a copy of the raw mapping ``data`` with each ``section.key=value`` override applied."""
    merged: dict[str, Any] = copy.deepcopy(data)
    for text in overrides:
        path, value = parse_override(text)
        if path[0] not in ALL_SECTIONS:
            raise ConfigError(f"override {text!r}: unknown section {path[0]!r}; allowed: {', '.join(ALL_SECTIONS)}")
        default: Any = TrainConfig().to_dict()[path[0]]
        if merged.get(path[0]) is None:  # a section the file leaves out starts from its defaults
            merged[path[0]] = copy.deepcopy(default)
        node = merged[path[0]]
        for part in path[1:-1]:
            default = default.get(part, {}) if isinstance(default, dict) else {}
            if part not in node:  # a mapping value (league.weights) starts from its default, then changes
                node[part] = dict(default) if isinstance(default, dict) else {}
            node = node[part]
            if not isinstance(node, dict):
                raise ConfigError(f"override {text!r}: {part!r} is not a mapping")
        if len(path) == 1:
            merged[path[0]] = value
        else:
            node[path[-1]] = value
    return merged


def load(path: str | Path | None, overrides: Sequence[str] = ()) -> TrainConfig:
    """Return the config of a YAML file (None: the defaults) with overrides applied, strictly validated."""
    import yaml

    data: Any = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"no such config file: {path}")
        try:
            data = yaml.safe_load(p.read_text()) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML ({exc})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: a config must be a mapping of sections, got {type(data).__name__}")
    try:
        return from_dict(apply_overrides(data, list(overrides)))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}" if path is not None else str(exc)) from None


def to_yaml(config: TrainConfig) -> str:
    """Return the full config as YAML text."""
    import yaml

    return yaml.safe_dump(config.to_dict(), sort_keys=False)
