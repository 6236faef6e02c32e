"""The training configuration: one strict pydantic model per section, loaded from YAML.

A config file has the sections below; every key is optional and defaults to the value given here, which is
the default run (``configs/small.yaml``: the small map on a CPU)::

    run:     name, seed, out_dir, total_env_steps, max_minutes, device, amp, conv_precision, torch_threads,
             env_threads, network_threads, update_processes, checkpoint_every, stop_after_updates, progress
    game:    the game options (dw_env.options.GameOptions): land_radius, map_radius, max_rounds, ...;
             ``name: alveole`` (or another id of policies.games) trains that game, with its own options
    env:     num_envs, num_steps, score_shaping, conquest_shaping, score_potential, truncation_reward,
             objective, opening_plies, packed_observations
    ppo:     learning_rate, anneal_lr, gamma, gae_lambda, num_minibatches, update_epochs, ...
    network: channels, cell_layers, land_layers, head_hidden, turn_trunk, init_from
    league:  snapshot_every, keep, weights (opponent kind -> sampling weight), rating_window, seat_focus
    imitation: teacher, decisions, epochs, learning_rate, batch_size, workers (warm start: clone an AI)
    eval:    final_games, final_opponents, greedy, opening_plies
    tables:  several option sets (tables) one network trains on in one run; table_schedule: which one
             each update trains (training/ppo/table_config.py, docs/TRAINING.md "Tables")

A section left out or left empty (``game:`` with nothing under it) takes its defaults, and so does every
key a section leaves out; for ``game`` that is the default run's small map (``land_radius: 1, map_radius:
2, max_rounds: 150``, the other options as in GameOptions), whether the section is missing, empty or names
only some options.

**Other games.** ``game: {name: alveole, ...}`` selects another game of :mod:`policies.games`; the rest of
the section are that game's options (its adapter validates them), and the sections the config leaves out
take the game's own training defaults (:data:`GAME_DEFAULTS`: its scripted seats as league opponents and
evaluation opponents, no warm start unless asked). Opponent kinds, teachers and evaluation opponents are
that game's seat names (``random``, ``heuristic``) besides ``latest`` and ``past``.

Validation is strict (pgx's ``extra="forbid"``, pydantic's strict mode): an unknown section or key is an
error naming it and the allowed keys; a value of the wrong type (``"0.1"`` for a number, ``1`` for true),
out of range or not finite (``.nan``, ``.inf``) is an error naming the key, the value received (bounded,
:func:`dw_env.errors.brief`) and what is allowed, e.g. ``ppo.learning_rate: must be a finite number in
0.0..1.0, got -1``. ``run.name`` must be one safe path component (it names the run's folder under
``out_dir``). The YAML itself is read strictly too: a key given twice, and anchors or aliases (``&x``,
``*x``: a few hundred bytes of them expand to gigabytes) are refused, as are nesting deeper than 64 levels
and files over 1 MiB (:func:`gamecore.loaders.read_yaml`, the project's one YAML loader). Numbers like
``1e-4`` read as numbers (YAML 1.2), not strings. Sums and products are bounded too: a league weight is at
most :data:`MAX_WEIGHT`, a rollout at most :data:`MAX_ROLLOUT_STEPS` env steps. Command-line overrides use
the same path syntax: ``ppo.learning_rate=1e-4``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from dw_env.errors import brief
from dw_env.options import GameOptions
from gamecore import loaders
from policies import games
from training.ppo import table_config

#: opponent kinds a game can be sampled with: the learner itself, a frozen past self, the weights the run started
#: from (``network.init_from``, frozen for the whole run), or a scripted AI
NETWORK_OPPONENTS: tuple[str, ...] = ("latest", "past", "start")
SCRIPTED_OPPONENTS: tuple[str, ...] = ("random", "balanced", "expansionist", "center", "raider", "guardian")
OPPONENT_KINDS: tuple[str, ...] = NETWORK_OPPONENTS + SCRIPTED_OPPONENTS
#: the seats of the other games a config may name (checked against its game's seats after validation)
OTHER_GAME_SEATS: tuple[str, ...] = ("heuristic", "continental", "aggressor", "defender", "automatic")
Scripted = Literal[
    "random",
    "balanced",
    "expansionist",
    "center",
    "raider",
    "guardian",
    "heuristic",
    "continental",
    "aggressor",
    "defender",
    "automatic",
]
Teacher = Literal["none", "random", "balanced", "expansionist", "center", "raider", "guardian", "heuristic"]
assert get_args(Scripted) == SCRIPTED_OPPONENTS + OTHER_GAME_SEATS
#: the training defaults of the other games: sections (or keys) a config leaves out take these
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    "*": {
        "league": {"weights": {"latest": 0.4, "past": 0.3, "random": 0.1, "heuristic": 0.2}},
        "imitation": {"teacher": "none"},
        "eval": {"final_opponents": ["random", "heuristic"]},
        "network": {"channels": 32, "cell_layers": 4, "land_layers": 0, "head_hidden": 64, "turn_trunk": False},
    },
    # Frontera's seats and graph network (docs/FRONTERA.md, "Learned agent"); it has no "heuristic" seat
    "frontera": {
        "league": {"weights": {"latest": 0.3, "past": 0.2, "random": 0.05, "expansionist": 0.3, "aggressor": 0.15}},
        "imitation": {"teacher": "none"},
        "eval": {"final_opponents": ["expansionist", "aggressor"], "opening_plies": 0},
        "network": {"channels": 48, "cell_layers": 1, "land_layers": 4, "head_hidden": 64, "turn_trunk": False},
        "env": {"conquest_shaping": 0.0},
    },
}

#: the game options of the default run (the small map); other options default as in GameOptions
DEFAULT_GAME: dict[str, Any] = {"land_radius": 1, "map_radius": 2, "max_rounds": 150}
#: a config file larger than this is refused unread
MAX_CONFIG_BYTES = 2**20
#: the largest sampling weight of one opponent kind: weights are relative, and nine of these still add up to
#: a finite sum (``1e308 + 1e308`` is infinite, and the league's probabilities would be NaN)
MAX_WEIGHT = 1e6
#: the most environment steps one rollout may hold (env.num_envs * env.num_steps): its buffers are sized by
#: it; 8x the largest shipped config's (configs/standard_gpu.yaml: 1024 x 128)
MAX_ROLLOUT_STEPS = 2**20
WEIGHT_ALLOWED = f"a finite number in 0..{MAX_WEIGHT:,.0f}"
#: a run name: one path component of letters, digits, '.', '_' and '-', starting with a letter or digit
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"


class ConfigError(ValueError):
    """A config value, key or file that is not allowed; the message names it and what is allowed."""


class _Section(BaseModel):
    """A config section: unknown keys refused, types strict, floats finite, defaults validated too."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, validate_default=True)


def _int(default: int, low: int, high: int = 2**62) -> Any:
    return Field(default=default, ge=low, le=high)


def _float(default: float, low: float, high: float) -> Any:
    return Field(default=default, ge=low, le=high)


class RunConfig(_Section):
    """What to run, where to write it and when to stop."""

    #: names the run's folder ``out_dir/name-sSEED-time``: one safe path component
    name: str = Field(
        default="small",
        pattern=NAME_PATTERN,
        json_schema_extra={
            "allowed": "one folder name of "
            "letters, digits, '.', '_' and '-' (at most 100, starting with a letter or digit)"
        },
    )
    seed: int = _int(1, 0, 2**31 - 1)
    out_dir: str = Field(default="runs", min_length=1, max_length=4096, pattern=r"^[^\x00]*$")
    #: stop after this many environment steps (decisions of every seat, both phases) ...
    total_env_steps: int = _int(5_000_000, 1)
    #: ... or after this many minutes of wall-clock time (warm start included), whichever comes first
    #: (0: no time limit); ppo.anneal_until says whether the learning rate's decay follows this limit too
    max_minutes: float = _float(13.0, 0.0, 1e7)
    device: Literal["auto", "cpu", "cuda"] = "auto"
    #: bf16 autocast on CUDA ("auto": on when the device is CUDA; CPUs gain nothing from it here)
    amp: Literal["auto", "on", "off"] = "auto"
    #: the hex convolutions' precision on a CPU ("auto": bfloat16 where the CPU has bf16 matrix units, AMX or
    #: AVX512-BF16, float32 elsewhere): bfloat16 runs them 3-4x faster there; everything else stays float32,
    #: and the weights and their gradients are float32 either way (docs/TRAINING.md). On CUDA run.amp decides
    conv_precision: Literal["auto", "float32", "bfloat16"] = "auto"
    torch_threads: int = _int(1, 0, 256)  # 0: all cores
    env_threads: int = _int(1, 0, 256)  # 0: all cores
    #: threads of the network's passes, the rollout's and the PPO update's (training/ppo/network_threads.py;
    #: 0: one per core; the default 2 suits the default run's 2 cores): rollouts are the same for any count,
    #: updates exact for a given count
    network_threads: int = _int(2, 0, 256)
    #: with network_threads > 1 on a CPU, the update's replicas 2.. run in worker processes, which do not wait
    #: on each other for the GIL (training/ppo/update_processes.py); false: on threads. The same numbers either way
    update_processes: bool = True
    checkpoint_every: int = _int(20, 1)  # updates
    #: end this session after this many updates in total (0: never); the schedule still follows
    #: total_env_steps, so ``--resume`` later continues exactly (for runs split over sessions)
    stop_after_updates: int = _int(0, 0)
    progress: bool = True
    #: rollouts on Ray (training/ppo/rollout_actors.py, docs/SCALING.md): 0 collects them here; N on N Ray actors,
    #: each with a share of the games (1: the local trainer's results); the update stays here (its GPU if any)
    rollout_workers: int = _int(0, 0, 1024)
    #: the Ray cluster of the rollout actors: auto, HOST:PORT or local (None: a fresh one on this machine)
    cluster: str | None = None
    #: the scripted AIs' moves in this many worker processes (training/ppo/scripted_processes.py; 0: on the
    #: trainer's thread): for leagues heavy in AIs on many cores, e.g. a GPU machine's. The same run for any count
    scripted_workers: int = _int(0, 0, 256)
    #: collect rollout k+1 on a thread of its own while the learner updates on rollout k
    #: (training/ppo/overlap.py): the behaviour policy lags the learner by one update (PPO's ratio uses the
    #: stored log-probs, so it stays right); for a GPU learner that the env's threads would otherwise idle.
    #: false (the default): collect, then update, as before
    overlap: bool = False

    @field_validator("cluster")
    @classmethod
    def _cluster_address(cls, value: str | None) -> str | None:
        """Refuse a malformed cluster address here, before anything starts (training/distributed/cluster.py)."""
        from training.distributed.cluster import parse_address

        return None if value is None else str(parse_address(value))

    @field_validator("amp", mode="before")
    @classmethod
    def _yaml_on_off(cls, value: Any) -> Any:
        """YAML 1.1 reads ``on``/``off`` as true/false: take them as the words meant."""
        return {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value


class EnvConfig(_Section):
    """The batched environment: games stepped together and steps per rollout."""

    num_envs: int = _int(128, 3, 65536)
    #: vector steps per rollout; the learner decides in about a third of them (one seat of three)
    num_steps: int = _int(96, 4, 4096)
    #: add the change of (own score - rivals' mean) / total points to every action's reward (zero-sum; it
    #: telescopes to the final score difference over a game); the terminal win/loss reward stays
    score_shaping: bool = True
    #: potential-based shaping (Ng et al. 1999) from the learner's running conquests: the potential is
    #: this weight x sum over lands of points x hold counter / K (rule 6.4) / total points; it guides the
    #: first conquests without changing which policies are optimal (0: off)
    conquest_shaping: float = _float(1.0, 0.0, 100.0)
    #: potential-based shaping from the score: the potential is this weight x (own score - rivals' mean) /
    #: total points, handed back at the game's end, so each point pays when gained but only the result
    #: counts in the end (0: off; use it instead of score_shaping, whose rewards add up to the margin)
    score_potential: float = _float(0.0, 0.0, 100.0)
    #: what every seat receives when a game reaches game.max_rounds (a truncation, A57: no winner); -1, the
    #: default, makes it as bad as a loss, so that a leader learns to end the game; 0 was the default before
    #: (the shipped agents' configs pin it; docs/TRAINING.md "Ending the game"). Domain Wheel only: the
    #: other games' envs keep their own rule for their step limit
    truncation_reward: float = _float(-1.0, -1.0, 1.0)
    #: what the learner is rewarded for: ``win`` (the game's result, rule 9.5) or an exploiter objective of
    #: training/ppo/objectives.py (``lead_at_truncation``, ``centre_denial``) that searches the rules for loopholes
    objective: Literal["win", "lead_at_truncation", "centre_denial"] = "win"
    #: every game of the training env starts with a uniform draw of 0..this many random legal env actions,
    #: nobody's decision and not trained on, so the learner meets varied positions rather than one line
    #: against deterministic opponents (the arena measures from random openings; 0: off); in Domain Wheel
    #: a draw that ends between a move's two env actions (piece, destination) plays the destination too
    opening_plies: int = _int(0, 0, 30)
    #: Domain Wheel: the env hands the trainer its observations with the 0/1 planes as bits (dw_env/envs/packed.py:
    #: 2,936 bytes instead of 18,692 on the standard map), the rollout stores them so and the network's input is
    #: unpacked by torch on the device that runs it; the weights trained are the same either way (docs/TRAINING.md
    #: "Packed observations"). The other games: false only
    packed_observations: bool = False
    #: the share of the env rows that play with fog of war, the others without (None: every row as game.fog
    #: says); a game with a fog option only (Frontera: docs/FRONTERA.md "Learned agent")
    fog_rows: float | None = Field(default=None, ge=0.0, le=1.0)
    #: the fogged rows spread evenly over the env's rows (so every league group, self-play and the scripted seats,
    #: plays its share of games with fog), or (false) the last rows, as in runs saved before this option
    fog_spread: bool = True


class PPOConfig(_Section):
    """PPO's hyperparameters (names as in CleanRL's ppo.py)."""

    learning_rate: float = _float(3e-4, 0.0, 1.0)
    #: decay the learning rate linearly to 0 at the end of the run ...
    anneal_lr: bool = True
    #: ... the end being run.total_env_steps (``steps``: every update's rate is a function of the step count,
    #: so a run repeats exactly), or whichever of total_env_steps and run.max_minutes comes first
    #: (``first_limit``: once a tenth of the session's PPO time has passed, the end is the step count the
    #: session's pace reaches at the deadline when that is fewer, so a run that the clock stops on a slower
    #: machine still ends annealed; where the steps end the run first it is the same as ``steps``)
    anneal_until: Literal["steps", "first_limit"] = "first_limit"
    gamma: float = _float(0.995, 0.0, 1.0)
    gae_lambda: float = _float(0.95, 0.0, 1.0)
    num_minibatches: int = _int(8, 1, 4096)
    update_epochs: int = _int(2, 1, 100)
    norm_adv: bool = True
    clip_coef: float = _float(0.2, 0.0, 10.0)
    clip_vloss: bool = False
    ent_coef: float = _float(0.005, 0.0, 10.0)
    vf_coef: float = _float(0.5, 0.0, 100.0)
    max_grad_norm: float = _float(0.5, 0.0, 1000.0)
    #: stop the epochs of an update early when the approximate KL exceeds this (0: never)
    target_kl: float = _float(0.0, 0.0, 10.0)


class NetworkConfig(_Section):
    """The network's size (Domain Wheel: policies/domain_wheel/network.py; the other games:
    policies/board_network.py, whose residual blocks are ``cell_layers`` and which has no lands); the weights do not
    depend on the map size."""

    channels: int = _int(16, 4, 1024)
    cell_layers: int = _int(1, 0, 64)  # hex convolutions over the cells (board games: residual blocks)
    land_layers: int = _int(3, 0, 64)  # rounds of message passing between lands (board games: 0)
    head_hidden: int = _int(64, 8, 4096)
    #: Domain Wheel: the trunk reads only what stays fixed during a turn, so both decisions of a turn (rule 3.2)
    #: share it and training computes it once a turn (policies/domain_wheel/network.py): the default, 1.1-1.2x the plain
    #: network's training speed on the standard map and 0.87-0.97x on the small map, and ahead of it against
    #: two Balanced on every seed of the default run at 5M and at 3.3M env steps (docs/TRAINING.md); false: every
    #: input in the trunk, the network of the shipped agents (a board game has one decision a turn: false)
    turn_trunk: bool = True
    #: start from the weights of a ``dw train`` checkpoint or policy file (.pt) of the same game and network size,
    #: made on any map or options (no weight depends on them): the next stage of a curriculum over map sizes
    #: (None: fresh weights). Read once when the run starts; ``--resume`` continues from the run's own weights.
    init_from: str | None = Field(
        default=None,
        min_length=1,
        max_length=4096,
        pattern=r"^[^\x00]*$",
        json_schema_extra={"allowed": "the path of a .pt file written by dw train (checkpoint.pt or policy.pt)"},
    )


class LeagueConfig(_Section):
    """Opponents: frozen past selves and scripted AIs, sampled per game with these weights."""

    #: freeze a copy of the learner every this many updates ...
    snapshot_every: int = _int(10, 1)
    #: ... and keep the last this many
    keep: int = _int(5, 1, 1000)
    #: opponent kind -> weight; "latest" is the learner itself, "past" a frozen past self (uniform over the
    #: kept ones), "start" the weights the run started from (network.init_from, never dropped), the others are
    #: scripted AIs. Kinds left out get weight 0.
    weights: dict[str, float] = Field(
        default_factory=lambda: {"latest": 0.4, "past": 0.3, "random": 0.1, "balanced": 0.2}
    )
    #: win rates and the rating use the last this many games against each opponent
    rating_window: int = _int(400, 10, 10**6)
    #: 0: the learner's seat rotates game by game; > 0: drawn per game, the seats it loses in against the game's
    #: opponent kind weighted up by this exponent (training/ppo/league.py, "Seatings")
    seat_focus: float = _float(0.0, 0.0, 10.0)

    def plays_start(self) -> bool:
        """Return whether this league seats the weights its run started from (``start`` weight above 0)."""
        return self.weights.get("start", 0.0) > 0

    @field_validator("weights")
    @classmethod
    def _every_kind(cls, weights: dict[str, float]) -> dict[str, float]:
        """Return a weight for every opponent kind (0 for those left out); refuse unknown kinds, negatives."""
        for kind, weight in weights.items():
            if kind not in OPPONENT_KINDS + OTHER_GAME_SEATS:
                raise ValueError(f"unknown opponent kind {brief(kind)}; allowed: {', '.join(OPPONENT_KINDS)}")
            if not 0 <= weight <= MAX_WEIGHT:
                raise ValueError(f"the weight of {kind} must be {WEIGHT_ALLOWED}, got {brief(weight)}")
        known = OPPONENT_KINDS + tuple(k for k in weights if k in OTHER_GAME_SEATS)
        full = {kind: float(weights.get(kind, 0.0)) for kind in known}
        if sum(full.values()) <= 0:
            raise ValueError("must give at least one opponent kind a positive weight")
        return full


class ImitationConfig(_Section):
    """Optional warm start (training/ppo/imitation.py): clone a scripted AI before PPO ("none": off)."""

    #: a scripted AI of the game ("none": no warm start), or the path of a ``dw train`` checkpoint or policy file
    #: (.pt) of the same game, any network size, whose network plays the demonstrations (sampling from its
    #: policy): a strong one-table policy handed on to a run of several tables (a table's ``teacher`` key)
    teacher: str = Field(default="balanced", min_length=1, max_length=4096, pattern=r"^[^\x00]*$")
    decisions: int = _int(240_000, 1, 100_000_000)  # env steps of demonstrations (both phases)
    epochs: int = _int(8, 1, 1000)
    learning_rate: float = _float(1e-3, 0.0, 1.0)
    batch_size: int = _int(512, 1, 1_000_000)
    workers: int = _int(0, 0, 1024)  # processes collecting demonstrations (0: every core)

    @field_validator("teacher")
    @classmethod
    def _teacher_kind(cls, value: str) -> str:
        if value in get_args(Teacher) or is_network_teacher(value):
            return value
        raise ValueError(
            f"must be a scripted AI ({', '.join(get_args(Teacher))}) or the path of a dw train .pt file, "
            f"got {brief(value)}"
        )


def is_network_teacher(teacher: str) -> bool:
    """Return whether ``imitation.teacher`` names a checkpoint (a .pt file) rather than a scripted AI."""
    return teacher.lower().endswith(".pt")


def _default_opponents() -> list[Scripted]:
    return ["random", "balanced"]


class EvalConfig(_Section):
    """The evaluation printed at the end of a run: the learner as one seat vs two copies of each opponent."""

    final_games: int = _int(150, 0, 1_000_000)
    final_opponents: list[Scripted] = Field(default_factory=lambda: _default_opponents(), max_length=100)
    #: play the most probable action (True) or sample from the policy (False)
    greedy: bool = False
    #: every game starts from this many random plies (the arena's ``--opening-plies``: game ``g`` plays opening
    #: ``g // players`` from seat ``g % players``, the same openings against every opponent); 0: the start position
    opening_plies: int = _int(3, 0, 1000)


class TrainConfig(_Section):
    """Everything a training run needs; ``game`` holds every game option as a plain mapping."""

    run: RunConfig = Field(default_factory=RunConfig)
    game: dict[str, Any] = Field(default_factory=lambda: dict(DEFAULT_GAME))
    env: EnvConfig = Field(default_factory=EnvConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    league: LeagueConfig = Field(default_factory=LeagueConfig)
    imitation: ImitationConfig = Field(default_factory=ImitationConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    #: several tables (option sets) trained by one network in one run (training/ppo/table_config.py); None: one,
    #: the game section's
    tables: list[dict[str, Any]] | None = None
    #: which table each update trains: round_robin, or one whole number per table (its updates a cycle)
    table_schedule: str | list[int] = "round_robin"

    @field_validator("tables", mode="before")
    @classmethod
    def _table_entries(cls, tables: Any) -> Any:
        return table_config.check_entries(tables)

    @field_validator("table_schedule", mode="before")
    @classmethod
    def _table_schedule(cls, schedule: Any) -> Any:
        return table_config.check_schedule(schedule)

    @field_validator("game")
    @classmethod
    def _game_options(cls, game: dict[str, Any]) -> dict[str, Any]:
        """Return every game option: the default run's for keys left out, checked by GameOptions.

        A ``name`` other than Domain Wheel's hands the other keys to that game's adapter.
        """
        name = game.get("name", games.DEFAULT_GAME)
        if name != games.DEFAULT_GAME:
            if name not in games.available():
                raise ValueError(f"name: unknown game {brief(name)}; allowed: {', '.join(games.available())}")
            adapter = games.get(name)
            rest = {k: v for k, v in game.items() if k != "name"}
            try:
                return {"name": name, **adapter.options_to_dict(adapter.options_from_dict(rest))}
            except (TypeError, ValueError) as exc:
                raise ValueError(_cut(str(exc))) from None
        game = {k: v for k, v in game.items() if k != "name"}
        allowed = [f for f in GameOptions().to_dict()]
        for key, value in game.items():
            if key not in allowed:
                raise ValueError(f"unknown option {brief(key)}; allowed: {', '.join(allowed)}")
            if isinstance(value, bool) or (isinstance(value, int) and abs(value) < 2**31):
                continue
            raise ValueError(f"option {key} must be an integer or true/false, got {brief(value)}")
        try:
            return GameOptions.from_dict({**DEFAULT_GAME, **game}).to_dict()
        except (TypeError, ValueError) as exc:
            raise ValueError(_cut(str(exc))) from None

    @model_validator(mode="after")
    def _start_needs_a_start(self) -> TrainConfig:
        """Refuse a ``start`` opponent in a run that starts from fresh weights (there is nothing to freeze)."""
        if self.league.plays_start() and self.network.init_from is None:
            raise ValueError(
                "league.weights.start plays the weights the run started from, and network.init_from is not set; "
                "allowed: a start weight of 0, or network.init_from naming a .pt file"
            )
        return self

    @model_validator(mode="after")
    def _seats_of_the_game(self) -> TrainConfig:
        """Refuse opponents, teachers and evaluation opponents that are not seats of the game."""
        seats = set(games.get(self.game_id).registered_seats())
        named = [("league.weights", k) for k, w in self.league.weights.items() if w > 0 and k not in NETWORK_OPPONENTS]
        named += [("eval.final_opponents", k) for k in self.eval.final_opponents]
        if self.imitation.teacher != "none" and not is_network_teacher(self.imitation.teacher):
            named.append(("imitation.teacher", self.imitation.teacher))
        for where, kind in named:
            if kind not in seats:
                raise ValueError(
                    f"{where}: {kind} is not a seat of {self.game_id}; allowed: {', '.join(sorted(seats))}"
                )
        return self

    @model_validator(mode="after")
    def _scripted_workers_where_they_serve(self) -> TrainConfig:
        if self.run.scripted_workers and self.game_id != games.DEFAULT_GAME:
            raise ValueError(
                f"run.scripted_workers: {self.game_id}'s seats play on the trainer's thread; allowed: 0"
                " (worker processes serve Domain Wheel's AIs)"
            )
        if self.run.overlap and self.run.rollout_workers:
            raise ValueError(
                "run.overlap: rollouts on Ray actors (run.rollout_workers > 0) are collected there; allowed: false"
                " with run.rollout_workers"
            )
        if self.run.scripted_workers and self.run.rollout_workers:
            raise ValueError(
                "run.scripted_workers: rollouts on Ray actors (run.rollout_workers > 0) play their AIs on the"
                " actors; allowed: 0 with run.rollout_workers"
            )
        return self

    @model_validator(mode="after")
    def _fog_rows_of_a_game_with_fog(self) -> TrainConfig:
        if self.env.fog_rows is not None and "fog" not in self.game:
            raise ValueError(
                f"env.fog_rows: {self.game_id} has no fog option; allowed: null (only a game with fog, e.g. frontera)"
            )
        return self

    @model_validator(mode="after")
    def _openings_of_a_game_with_openings(self) -> TrainConfig:
        adapter = games.get(self.game_id)
        if self.eval.opening_plies and adapter.no_openings:  # e.g. Frontera: its games differ by their seeds
            raise ValueError(
                f"eval.opening_plies: {adapter.no_openings}; allowed: 0 (a saved run continues with"
                f" --resume RUN --set eval.opening_plies=0)"
            )
        return self

    @model_validator(mode="after")
    def _turn_trunk_of_domain_wheel(self) -> TrainConfig:
        if self.network.turn_trunk and self.game_id != games.DEFAULT_GAME:
            raise ValueError(
                f"network.turn_trunk: {self.game_id} has one decision a turn, nothing to share; allowed: false"
            )
        return self

    @model_validator(mode="after")
    def _batch_fits_minibatches(self) -> TrainConfig:
        steps = self.env.num_envs * self.env.num_steps
        if steps > MAX_ROLLOUT_STEPS:
            raise ValueError(
                f"env.num_envs * env.num_steps = {steps:,} steps a rollout, more than its buffers may hold; "
                f"allowed: at most {MAX_ROLLOUT_STEPS:,}"
            )
        if steps < 3 * self.ppo.num_minibatches:
            raise ValueError(
                f"env.num_envs * env.num_steps = {steps} is too small for ppo.num_minibatches="
                f"{self.ppo.num_minibatches}; the learner decides in about a third of the steps"
            )
        return self

    @model_validator(mode="after")
    def _tables_the_game_can_mix(self) -> TrainConfig:
        """Refuse tables of a game whose network cannot mix them, options it cannot vary, and runs they do not fit."""
        if self.tables is None:
            if self.table_schedule != "round_robin":
                raise ValueError("table_schedule: a run without tables has one table; allowed: round_robin")
            return self
        mixable = tuple(getattr(games.get(self.game_id), "table_options", ()))
        if not mixable:
            mixers = [g for g in games.available() if getattr(games.get(g), "table_options", ())]
            raise ValueError(
                f"tables: {self.game_id}'s network reads one map and player count, so its runs train one table; "
                f"allowed: no tables (games whose network mixes tables: {', '.join(mixers)})"
            )
        allowed = (*table_config.TABLE_KEYS, *mixable)
        for i, entry in enumerate(self.tables):
            for key in entry:
                if key not in allowed:
                    raise ValueError(
                        f"tables[{i}]: {brief(key)} is not a key a table may set for {self.game_id} (its network "
                        f"must read every table); allowed: {', '.join(allowed)}"
                    )
        if isinstance(self.table_schedule, list) and len(self.table_schedule) != len(self.tables):
            raise ValueError(
                f"table_schedule: {len(self.table_schedule)} shares for {len(self.tables)} tables; allowed: "
                "round_robin or one whole number per table"
            )
        for option, value, allowed_text in (
            ("run.overlap", self.run.overlap, "false"),
            ("run.rollout_workers", self.run.rollout_workers, "0"),
            ("run.scripted_workers", self.run.scripted_workers, "0"),
        ):
            if value and len(self.tables) > 1:
                raise ValueError(
                    f"{option}: a run of several tables collects its rollouts here; allowed: {allowed_text}"
                )
        self.table_configs()  # every table's whole config is valid
        return self

    def table_configs(self) -> list[tuple[str, TrainConfig]]:
        """Return (name, whole config) of each table: the sections with the entry's overrides (tables left out).

        A run without tables has one, this config itself, named ``""``. ValueError naming a table whose
        config is not valid.
        """
        if self.tables is None:
            return [("", self)]
        names = table_config.unique_names(self.tables)
        base = self.model_dump(exclude={"tables", "table_schedule"})
        out = []
        for i, (name, entry) in enumerate(zip(names, self.tables, strict=True)):
            data = copy.deepcopy(base)
            data["game"].update({k: v for k, v in entry.items() if k not in table_config.TABLE_KEYS})
            for key, section in (
                ("num_envs", "env"),
                ("fog_rows", "env"),
                ("weights", "league"),
                ("teacher", "imitation"),
            ):
                if key in entry:
                    data[section][key] = entry[key]
            try:
                out.append((name, TrainConfig.model_validate(data)))
            except ValidationError as exc:
                raise ValueError(f"tables[{i}] ({name}): {_config_error(exc)}") from None
        return out

    @property
    def game_id(self) -> str:
        """Return the id of the game trained on (:mod:`policies.games`)."""
        return str(self.game.get("name", games.DEFAULT_GAME))

    @property
    def scripted_kinds(self) -> tuple[str, ...]:
        """Return the scripted opponent kinds of the league, in the order of its weights."""
        return tuple(k for k in self.league.weights if k not in NETWORK_OPPONENTS)

    @property
    def options(self) -> Any:
        """Return the validated game options (Domain Wheel's GameOptions, or the other game's options object)."""
        if self.game_id != games.DEFAULT_GAME:
            adapter = games.get(self.game_id)
            return adapter.options_from_dict({k: v for k, v in self.game.items() if k != "name"})
        return GameOptions.from_dict(self.game)

    def network_size(self) -> dict[str, int]:
        """Return the network's size keys (policies/domain_wheel/network.py HexPolicyNet's arguments; not
        ``init_from``).

        ``turn_trunk`` is an int (0 or 1) as in checkpoint files; a board game's network has no such key.
        """
        size = self.network.model_dump(exclude={"init_from", "turn_trunk"})
        if self.game_id == games.DEFAULT_GAME:
            size["turn_trunk"] = int(self.network.turn_trunk)
        return size

    def to_dict(self) -> dict[str, Any]:
        """Return the full config as a plain mapping (what is saved with every run; a run without tables
        saves no ``tables`` keys, as before they existed)."""
        return self.model_dump(exclude={"tables", "table_schedule"} if self.tables is None else set())


SECTIONS: dict[str, type[BaseModel]] = {
    "run": RunConfig,
    "env": EnvConfig,
    "ppo": PPOConfig,
    "network": NetworkConfig,
    "league": LeagueConfig,
    "imitation": ImitationConfig,
    "eval": EvalConfig,
}
ALL_SECTIONS: tuple[str, ...] = tuple(TrainConfig.model_fields)


# ---- error messages ---------------------------------------------------------------------------------
def _cut(text: str, limit: int = 300) -> str:
    """Return ``text`` cut to ``limit`` characters (a message from elsewhere, quoted in ours)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) and len(key) <= 60 else brief(key, 60)


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + _key_text(part)
    return out


def _field_of(loc: tuple[Any, ...]) -> Any:
    """Return the pydantic FieldInfo at ``loc`` (section, key), or None."""
    if len(loc) >= 2 and loc[0] in SECTIONS:
        return SECTIONS[loc[0]].model_fields.get(loc[1]) if isinstance(loc[1], str) else None
    return None


def _allowed(field: Any, item: bool) -> str:
    """Return what a field allows, in words ("an integer in 3..65536")."""
    extra = field.json_schema_extra or {}
    if isinstance(extra, dict) and "allowed" in extra:
        return str(extra["allowed"])
    annotation = field.annotation
    if get_origin(annotation) is dict and item:
        return WEIGHT_ALLOWED
    if get_origin(annotation) is list:
        inner = get_args(annotation)[0]
        if item:
            annotation = inner
        else:
            return f"a list of {', '.join(get_args(inner))}"
    if get_origin(annotation) is Literal:
        return "one of " + ", ".join(map(str, get_args(annotation)))
    if annotation is bool:
        return "true or false"
    low = next((m.ge for m in field.metadata if getattr(m, "ge", None) is not None), None)
    high = next((m.le for m in field.metadata if getattr(m, "le", None) is not None), None)
    kind = {int: "an integer", float: "a finite number", str: "a non-empty string"}.get(annotation, "a mapping")
    if annotation is dict or get_origin(annotation) is dict:
        return "a mapping"
    if low is not None and high is not None and high < 2**62:
        return f"{kind} in {low}..{high}"
    if low is not None:
        return f"{kind} >= {low}"
    return kind


def _message(error: Mapping[str, Any]) -> str:
    """Return one readable line for one pydantic error: where, what was received, what is allowed."""
    loc = tuple(error["loc"])
    kind = error["type"]
    where = _path(loc)
    if kind == "extra_forbidden":
        if len(loc) == 1:
            return f"unknown section {brief(loc[0])}; allowed: {', '.join(ALL_SECTIONS)}"
        section = loc[0]
        fields = ", ".join(SECTIONS[section].model_fields) if section in SECTIONS else ""
        return f"unknown key {where}; allowed in {section!r}: {fields}"
    if kind == "value_error":
        reason = str(error.get("ctx", {}).get("error", error["msg"]))
        if where and reason.startswith("["):  # a list's item named by the validator (tables[0].name)
            return f"{where}{reason}"
        return f"{where}: {reason}" if where else reason
    got = brief(error.get("input"))
    if loc and loc[-1] == "[key]":  # a mapping key that is not a string (YAML reads `1:` as a number)
        return f"{_path(loc[:-2])}: keys must be names (strings), got {got}"
    if kind == "invalid_key" and loc[:1] and loc[0] in SECTIONS:
        return f"unknown key {got} in {loc[0]}; allowed in {loc[0]!r}: {', '.join(SECTIONS[loc[0]].model_fields)}"
    if loc == ("game",):
        return f"game: must be a mapping of game options ({', '.join(GameOptions().to_dict())}), got {got}"
    if kind in ("model_type", "model_attributes_type", "dict_type") and len(loc) == 1 and loc[0] in SECTIONS:
        keys = ", ".join(SECTIONS[loc[0]].model_fields)
        return f"{where}: must be a mapping of keys ({keys}), got {got}"
    field = _field_of(loc)
    if field is not None:
        return f"{where}: must be {_allowed(field, item=len(loc) > 2)}, got {got}"
    return f"{where}: {error['msg'].lower()}, got {got}" if where else f"{error['msg']}, got {got}"


def _config_error(exc: ValidationError, limit: int = 3) -> ConfigError:
    errors = exc.errors(include_url=False)
    lines = [_message(e) for e in errors[:limit]]
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return ConfigError("; ".join(lines) + more)


# ---- building a config ------------------------------------------------------------------------------
def from_dict(data: Any) -> TrainConfig:
    """Return the config described by a mapping (a parsed YAML file), strictly validated."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"a config must be a mapping of sections ({', '.join(ALL_SECTIONS)}), got {brief(data)}")
    for key in data:
        if key not in ALL_SECTIONS:
            raise ConfigError(f"unknown section {brief(key)}; allowed: {', '.join(ALL_SECTIONS)}")
    sections = {key: value for key, value in data.items() if value is not None}  # "ppo:" alone: the defaults
    game = sections.get("game")
    if isinstance(game, dict) and game.get("name", games.DEFAULT_GAME) != games.DEFAULT_GAME:
        sections = _with_game_defaults(sections, GAME_DEFAULTS.get(str(game["name"]), GAME_DEFAULTS["*"]))
    try:
        return TrainConfig.model_validate(sections)
    except ValidationError as exc:
        raise _config_error(exc) from None
    except RecursionError:
        raise ConfigError("the config is nested too deeply") from None


def _with_game_defaults(sections: dict[str, Any], defaults: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Return ``sections`` with a game's defaults for the keys they leave out (the user's values win)."""
    out = dict(sections)
    for section, values in defaults.items():
        given = out.get(section)
        if given is None:
            out[section] = copy.deepcopy(values)
        elif isinstance(given, dict):
            out[section] = {**copy.deepcopy(values), **given}
    return out


# ---- YAML -------------------------------------------------------------------------------------------
def read_yaml(text: str, where: str) -> Any:
    """Return the data of YAML ``text`` read strictly (gamecore.loaders.read_yaml); ConfigError naming ``where``."""
    return loaders.read_yaml(text, where, ConfigError, limit=MAX_CONFIG_BYTES)


def parse_override(text: str) -> tuple[list[str], Any]:
    """Return (key path, value) of an override ``section.key=value``; the value is read as YAML."""
    key, sep, raw = text.partition("=")
    path = [part for part in key.strip().split(".")]
    if not sep or not all(path):
        raise ConfigError(
            f"an override must look like section.key=value (e.g. ppo.learning_rate=1e-4), got {brief(text)}"
        )
    value = read_yaml(raw, f"override {brief(text)}") if raw.strip() else ""
    return path, value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Return a copy of the raw mapping ``data`` with each ``section.key=value`` override applied."""
    merged: dict[str, Any] = copy.deepcopy(data)
    for text in overrides:
        path, value = parse_override(text)
        if path[0] not in ALL_SECTIONS:
            raise ConfigError(
                f"override {brief(text)}: unknown section {brief(path[0])}; allowed: {', '.join(ALL_SECTIONS)}"
            )
        if len(path) == 1 and path[0] not in SECTIONS:  # a top-level key that is no section (tables): replaced whole
            merged[path[0]] = value
            continue
        default: Any = TrainConfig().model_dump()[path[0]]
        if merged.get(path[0]) is None:  # a section the file leaves out starts from its defaults
            merged[path[0]] = copy.deepcopy(default)
        node = merged[path[0]]
        if not isinstance(node, dict):
            raise ConfigError(f"override {brief(text)}: section {path[0]} is not a mapping")
        for part in path[1:-1]:
            default = default.get(part, {}) if isinstance(default, dict) else {}
            if part not in node:  # a mapping value (league.weights) starts from its default, then changes
                node[part] = dict(default) if isinstance(default, dict) else {}
            node = node[part]
            if not isinstance(node, dict):
                raise ConfigError(f"override {brief(text)}: {_key_text(part)} is not a mapping")
        if len(path) == 1:
            merged[path[0]] = value
        else:
            node[path[-1]] = value
    return merged


def load(path: str | Path | None, overrides: Sequence[str] = ()) -> TrainConfig:
    """Return the config of a YAML file (None: the defaults) with overrides applied, strictly validated."""
    data: Any = {}
    if path is not None:
        if not Path(path).exists():
            raise FileNotFoundError(f"no such config file: {path}")
        text = loaders.read_text(path, MAX_CONFIG_BYTES, ConfigError)
        data = read_yaml(text, str(path))
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: a config must be a mapping of sections, got {brief(data)}")
    try:
        return from_dict(apply_overrides(data, list(overrides)))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}" if path is not None else str(exc)) from None


def to_yaml(config: TrainConfig) -> str:
    """Return the full config as YAML text."""
    import yaml

    return str(yaml.safe_dump(config.to_dict(), sort_keys=False))
