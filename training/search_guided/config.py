"""The search-guided run's configuration: ``algo: search_guided`` and one strict pydantic model per section.

A config file (``configs/search_guided_*.yaml``) has these sections; every key is optional and defaults to
the value given here::

    algo:    search_guided (required: a config without it is a PPO config, training/ppo/config.py)
    run:     name, seed, out_dir, iterations, checkpoint_every, torch_threads, device (the learner's: auto
             picks a GPU when torch sees one; self-play stays on the CPU), selfplay_workers (0: self-play
             in the trainer's process; N: in N worker processes, or on N Ray actors with cluster: auto,
             HOST:PORT or local)
    game:    name (alveole, conquer or domain_wheel: training/search_guided/games.py) and that game's options
    network: channels, cell_layers, head_hidden (policies/board_network.py; Domain Wheel's
             policies/domain_wheel/network.py, with land_layers), init_from (a checkpoint to start from: a PPO
             run's, a shipped agent, a search-guided one's or a value refit's)
    search:  simulations, cheap_simulations, full_fraction (playout-cap randomisation), gumbel_k, c_visit,
             c_scale, c_puct
    learn:   games_per_iteration, buffer_size, batch_size, updates_per_iteration, learning_rate, weight_decay,
             symmetries (each minibatch position drawn in one of the board's symmetric images)
    eval:    games, opponents (the game's scripted seats the bare network meets after every iteration),
             opening_plies (random plies opening each evaluation game, the arena's openings)
    value_fit: (Domain Wheel only, ``game.name: domain_wheel``) games, lineups, opening_plies, held_out,
             epochs, batch_size, learning_rate, weight_decay, reinit: the warm start that refits the value
             head of ``network.init_from`` to game outcomes, the policy frozen (training/search_guided/value_fit.py).
             A config with this section runs that refit instead of self-play; its ``policy.pt`` is then a
             self-play config's ``network.init_from`` (the optional first stage)

Validation is as strict as PPO's: an unknown section or key, a value of the wrong type or out of range is an
error naming the key, the value received (bounded) and what is allowed. The YAML is read by
:func:`gamecore.loaders.read_yaml`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gamecore import loaders
from gamecore.errors import brief

ALGO = "search_guided"
MAX_CONFIG_BYTES = 2**20


class ConfigError(ValueError):
    """A search-guided config that cannot be used: names the key, the value received and what is allowed."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class RunConfig(_Section):
    name: str = Field("search-guided", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    seed: int = Field(1, ge=0, le=2**31 - 1)
    out_dir: str = "runs"
    iterations: int = Field(10, ge=1, le=10**7)
    checkpoint_every: int = Field(1, ge=1, le=10**7)
    torch_threads: int = Field(1, ge=1, le=256)
    device: Literal["auto", "cpu", "cuda"] = "auto"
    #: the self-play games in this many worker processes (0: in the trainer's process), or on as many Ray
    #: actors with ``cluster`` (training/search_guided/workers.py); the run's results are the same for any count
    selfplay_workers: int = Field(0, ge=0, le=1024)
    #: the Ray cluster of the self-play actors: auto, HOST:PORT or local (None: worker processes here)
    cluster: str | None = None

    @field_validator("cluster")
    @classmethod
    def _cluster_address(cls, value: str | None) -> str | None:
        """Refuse a malformed cluster address here, before anything starts (training/distributed/cluster.py)."""
        from training.distributed.cluster import parse_address

        return None if value is None else str(parse_address(value))

    @model_validator(mode="after")
    def _cluster_with_workers(self) -> RunConfig:
        if self.cluster is not None and self.selfplay_workers == 0:
            raise ValueError(
                f"run.cluster is {self.cluster} but run.selfplay_workers is 0 (self-play in the trainer's process); "
                "allowed: run.selfplay_workers >= 1 with a cluster, or no run.cluster"
            )
        return self


class NetworkConfig(_Section):
    channels: int = Field(32, ge=1, le=512)
    cell_layers: int = Field(4, ge=0, le=64)
    head_hidden: int = Field(64, ge=1, le=4096)
    #: Domain Wheel's land message-passing layers (policies/domain_wheel/network.py; None: 3, the shipped
    #: agents'); a board game's network has none, and refuses a value
    land_layers: int | None = Field(None, ge=0, le=64)
    init_from: str = ""


class SearchConfig(_Section):
    simulations: int = Field(16, ge=1, le=100_000)
    cheap_simulations: int = Field(4, ge=0, le=100_000)
    full_fraction: float = Field(0.25, gt=0.0, le=1.0, allow_inf_nan=False)
    gumbel_k: int = Field(8, ge=1, le=4096)
    c_visit: float = Field(50.0, ge=0.0, le=1e6, allow_inf_nan=False)
    c_scale: float = Field(1.0, gt=0.0, le=1e6, allow_inf_nan=False)
    c_puct: float = Field(1.25, gt=0.0, le=1e3, allow_inf_nan=False)


class LearnConfig(_Section):
    games_per_iteration: int = Field(8, ge=1, le=10**6)
    buffer_size: int = Field(20_000, ge=1, le=10**7)
    batch_size: int = Field(128, ge=1, le=65_536)
    updates_per_iteration: int = Field(20, ge=0, le=10**6)
    learning_rate: float = Field(1e-3, gt=0.0, le=1.0, allow_inf_nan=False)
    weight_decay: float = Field(1e-4, ge=0.0, le=1.0, allow_inf_nan=False)
    symmetries: bool = True


class EvalConfig(_Section):
    games: int = Field(0, ge=0, le=100_000)
    opponents: list[str] = Field(default_factory=lambda: ["random"], max_length=16)
    #: random plies opening each evaluation game (training/evaluation/arena.py's openings): the bare network plays
    #: greedy and a scripted seat is nearly deterministic, so from the initial position alone the games repeat
    opening_plies: int = Field(3, ge=0, le=60)


class ValueFitConfig(_Section):
    """Domain Wheel's warm start (training/search_guided/value_fit.py): the value head refitted to outcomes."""

    games: int = Field(60, ge=1, le=10**6)
    lineups: list[str] = Field(
        default_factory=lambda: ["network,network,network", "network,balanced,balanced"], min_length=1, max_length=64
    )
    opening_plies: int = Field(3, ge=0, le=60)
    held_out: float = Field(0.2, ge=0.0, lt=1.0, allow_inf_nan=False)
    epochs: int = Field(20, ge=0, le=10_000)
    batch_size: int = Field(256, ge=1, le=65_536)
    learning_rate: float = Field(1e-3, gt=0.0, le=1.0, allow_inf_nan=False)
    weight_decay: float = Field(0.0, ge=0.0, le=1.0, allow_inf_nan=False)
    reinit: bool = False


class Config(_Section):
    algo: Literal["search_guided"]
    run: RunConfig = RunConfig()
    game: dict[str, Any] = Field(default_factory=lambda: {"name": "conquer", "width": 5, "height": 5})
    network: NetworkConfig = NetworkConfig()
    search: SearchConfig = SearchConfig()
    learn: LearnConfig = LearnConfig()
    eval: EvalConfig = EvalConfig()
    #: Domain Wheel only: with this section the run is the value refit (value_fit.py), without it self-play
    value_fit: ValueFitConfig | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the config as plain data (what :func:`from_dict` reads back)."""
        return self.model_dump(mode="python")


def algo_of(data: Any) -> str:
    """Return the ``algo:`` a config's data names (``ppo`` when it names none)."""
    return str(data.get("algo", "ppo")) if isinstance(data, dict) else "ppo"


def read(path: str | Path) -> dict[str, Any]:
    """Return a config file's data (read strictly: size, duplicates, anchors); ConfigError if it is no mapping."""
    text = loaders.read_text(path, MAX_CONFIG_BYTES, ConfigError)
    data = loaders.read_yaml(text, str(path), ConfigError, limit=MAX_CONFIG_BYTES)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config must be a mapping of sections, got {brief(data)}")
    return data


def from_dict(data: dict[str, Any], overrides: Sequence[str] = ()) -> Config:
    """Return the validated config of ``data`` with ``--set KEY=VALUE`` overrides; ConfigError naming the key."""
    data = {k: dict(v) if isinstance(v, dict) else v for k, v in data.items()}
    for text in overrides:
        key, sep, raw = text.partition("=")
        section, dot, name = key.strip().partition(".")
        if not sep or not dot or not name:
            raise ConfigError(f"--set must be SECTION.KEY=VALUE, got {brief(text)}")
        value = loaders.read_yaml(raw, f"--set {brief(key)}", ConfigError)
        data.setdefault(section, {})
        if not isinstance(data[section], dict):
            raise ConfigError(f"--set {brief(key)}: section {brief(section)} is not a mapping")
        data[section][name] = value
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        allowed = (
            ", ".join(Config.model_fields) if first["type"] == "extra_forbidden" and len(first["loc"]) == 1 else ""
        )
        if first["type"] == "extra_forbidden" and len(first["loc"]) == 2:
            section_model = Config.model_fields[str(first["loc"][0])].annotation
            models = [section_model, *getattr(section_model, "__args__", ())]  # an optional section: its model
            allowed = ", ".join(next((m.model_fields for m in models if hasattr(m, "model_fields")), {}))
        hint = f"; allowed: {allowed}" if allowed else ""
        message = first["msg"].removeprefix("Value error, ")  # a validator's own text names what is allowed
        got = "" if isinstance(first.get("input"), dict) else f", got {brief(first.get('input'))}"
        raise ConfigError(f"{where}: {message}{got}{hint}") from None
    if not isinstance(config.game.get("name"), str):
        raise ConfigError(
            f"game.name: must name a game (alveole, conquer, domain_wheel), got {brief(config.game.get('name'))}"
        )
    return config


def load(path: str | Path, overrides: Sequence[str] = ()) -> Config:
    """Return the validated config of a YAML file with overrides."""
    return from_dict(read(path), overrides)
