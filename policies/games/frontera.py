"""Frontera (docs/FRONTERA.md) through the shared layers: 2 to 6 players, dice, cards and fog of war.

The number of players is an option (``players``), so the adapter of a run is bound to its options with
:meth:`Frontera.for_options` (seats ``seat1`` .. ``seatP``). Each game's seed (the lot, the deal, the deck and
every die, R-2) comes from the arena (:meth:`Frontera.new_seeded_game`), so game ``j`` of every line-up plays
on the same dice stream (common random numbers). Games end by 70 % of the map (R-10.1), by being the last
player standing (R-10.1, R-6.3), or are truncated at ``max_turns`` (R-8.3, A39).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from frontera_env.actions import (
    Action,
    Attack,
    Blitz,
    Deploy,
    EndAttack,
    EndTurn,
    Occupy,
    Place,
    Ready,
    Regroup,
    TakeBack,
    Trade,
)
from frontera_env.board import SIZES, FronteraMap
from frontera_env.engine import Game
from frontera_env.state import ELIMINATED
from gamecore.errors import brief
from policies.games.base import TRUNCATION, BoardGame, GameRecorder

#: the most turns a game may be given (a typo must not schedule an endless game)
MAX_TURNS = 100_000
#: the learned agent's input layout (checkpoints name it): spec 6.4's observation packed to int8
OBSERVATION_VERSION = "frontera-obs-2-packed-log12"
#: action kinds, in the order of their first integer (:meth:`Frontera.action_ints`)
KINDS = (Place, TakeBack, Ready, Deploy, Trade, Attack, Blitz, Occupy, EndAttack, Regroup, EndTurn)


@dataclasses.dataclass(frozen=True)
class FronteraOptions:
    """A Frontera game's options (spec 0.3): the map, players, fog, cards and the turn limit (0: 250 x players)."""

    map: str = "medium"
    players: int = 4
    fog: bool = False
    cards: bool = True
    max_turns: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.map, str) or not (self.map in SIZES or self.map.endswith(".json")):
            raise ValueError(
                f"option map must be one of {', '.join(SIZES)} or a frontera-map/1 file (.json), got {brief(self.map)}"
            )
        if isinstance(self.players, bool) or not isinstance(self.players, int) or not 2 <= self.players <= 6:
            raise ValueError(f"option players must be an integer 2..6, got {brief(self.players)}")
        for name in ("fog", "cards"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"option {name} must be true or false, got {brief(getattr(self, name))}")
        turns = self.max_turns
        if isinstance(turns, bool) or not isinstance(turns, int) or not 0 <= turns <= MAX_TURNS:
            raise ValueError(
                f"option max_turns must be an integer 0..{MAX_TURNS} (0: 250 x players), got {brief(turns)}"
            )

    @property
    def turn_limit(self) -> int:
        """Return the turns after which a game is truncated: ``max_turns``, or 250 x players (spec 0.3)."""
        return self.max_turns or 250 * self.players

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FronteraOptions:
        """Return options from a mapping (strings as ``--option`` gives them are read); ValueError names a bad key."""
        known = [f.name for f in dataclasses.fields(cls)]
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"unknown Frontera option {brief(key)}; allowed: {', '.join(known)}")
            values[key] = _read(key, value)
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _read(key: str, value: Any) -> Any:
    """Return an option's value, reading the text ``--option KEY=VALUE`` gives for integers and booleans."""
    if not isinstance(value, str) or key == "map":
        return value
    if key in ("fog", "cards"):
        words = {"true": True, "on": True, "1": True, "false": False, "off": False, "0": False}
        if value.lower() not in words:
            raise ValueError(f"option {key} must be one of {', '.join(words)}, got {brief(value)}")
        return words[value.lower()]
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"option {key} must be an integer, got {brief(value)}") from None


@functools.cache
def load_map(name: str) -> FronteraMap:
    """Return a reference map by size, or the map of a frontera-map/1 file (checked, M-1..M-11)."""
    from frontera_env.map_file import read_map, reference_map

    return reference_map(name) if name in SIZES else read_map(Path(name))


class FronteraMatch:
    """One game as the shared layers drive it: ``turn``, ``over``, ``copy()``, ``play(action)``,
    ``legal_actions()``, and its seed."""

    def __init__(self, game: Game, seed: int) -> None:
        self.game, self.seed = game, seed

    @property
    def turn(self) -> int:
        return self.game.current

    @property
    def over(self) -> bool:
        return self.game.over

    def copy(self) -> FronteraMatch:
        return FronteraMatch(self.game.copy(), self.seed)

    def play(self, action: Action) -> None:
        self.game.apply(action)

    def legal_actions(self) -> list[Action]:
        """Return the legal actions of the seat to act, as the board games' matches do (the engine's list)."""
        return self.game.legal_actions(self.turn)


class _Recorder(GameRecorder):
    def __init__(self, match: FronteraMatch) -> None:
        from frontera_env.record import Recorder

        self.record = Recorder(match.game.copy(), match.seed)

    def append(self, action: Any) -> None:
        self.record.apply(action)

    def save(self, path: Any) -> None:
        Path(path).write_text(self.record.dumps())


class Frontera(BoardGame):
    """Frontera for ``players`` seats (default 4); :meth:`for_options` binds it to another number."""

    game_id = "frontera"
    title = "Frontera"
    seat_names = tuple(f"seat{i + 1}" for i in range(4))
    end_reasons = ("seventy_percent", "last_standing", TRUNCATION)
    seat_metrics = {
        "eliminated": "1 if the seat was eliminated (R-6.3), else 0: the mean is its elimination rate",
        "territories_end": "the territories the seat owns at the end",
    }
    row_columns = ("turns", "game_seed")
    conventions = {
        "score": "territories owned at the end (an eliminated seat 0)",
        "fair share": "the win rate an equally strong strategy would have in the same games: "
        "for each seat-game 1/players when the game ended by a rule, 0 when truncated",
        "dice": "game j of every line-up and seating plays from the same game seed (common random numbers)",
    }
    report_fair_share = True
    #: a turn is many decisions of one seat (R-4..R-8): dw train lets the learner act in every step of a rollout
    long_turns = True
    length_limit = "turn limit, R-8.3"
    #: the options a table of a ``dw train`` run may set (training/ppo/table_config.py): the graph network reads
    #: every map, player count, fog and card rule, so one run may train on several of them
    table_options = ("map", "players", "fog", "cards", "max_turns")
    #: no search seat over Frontera's agent yet: the browser's menu offers its checkpoints and packages only
    takes_search = False

    def __init__(self, players: int = 4) -> None:
        self.seat_names = tuple(f"seat{i + 1}" for i in range(players))

    def for_options(self, options: Any) -> Frontera:
        players = options["players"] if isinstance(options, Mapping) else options.players
        return self if players == self.num_players else _bound(int(players))

    # ---- options ---------------------------------------------------------------------------------------
    def default_options(self) -> FronteraOptions:
        return FronteraOptions(players=self.num_players)

    def options_from_dict(self, data: Mapping[str, Any]) -> FronteraOptions:
        return FronteraOptions.from_dict(data)

    def options_to_dict(self, options: Any) -> dict[str, Any]:
        return dict(options.to_dict())

    def describe_options(self, options: Mapping[str, Any]) -> str:
        turns = options["max_turns"] or 250 * options["players"]
        return (
            f"{options['map']} map, {options['players']} players, fog {'on' if options['fog'] else 'off'}, "
            f"cards {'on' if options['cards'] else 'off'}, max {turns} turns"
        )

    no_openings = "Frontera has no random openings: its games differ by their dice and deal (each game's seed)"

    def max_opening_plies(self, options: Any) -> int:
        """Return 0: Frontera's games differ by their dice and deal (each game's seed), not by random openings."""
        return 0

    # ---- one game --------------------------------------------------------------------------------------
    def new_game(self, options: Any) -> FronteraMatch:
        return self.new_seeded_game(options, 0)

    def new_seeded_game(self, options: Any, seed: int) -> FronteraMatch:
        """Return a game whose lot, deal, deck and dice come from ``seed`` (R-2, R-5.2)."""
        board = load_map(options.map)
        game = Game.new(
            board, options.players, seed, fog=options.fog, cards=options.cards, max_turns=options.turn_limit
        )
        return FronteraMatch(game, seed)

    def opening_candidates(self, game: Any) -> list[Any]:
        return list(game.game.legal_actions())

    def fallback_action(self, game: Any) -> Action:
        """What the clock's automatic player would do (R-12): a failing seat plays as if its time ran out."""
        from policies.frontera.automatic import AutomaticSeat

        return AutomaticSeat(seed=0).act(game, game.turn)

    def action_ints(self, action: Any) -> tuple[int, ...]:
        values = [int(v) for f in dataclasses.fields(action) for v in _flat(getattr(action, f.name))]
        return (KINDS.index(type(action)), *values, *[0] * (3 - len(values)))

    def round_of(self, game: Any) -> int:
        return max(0, game.game.state.turn_index - 1) // self.num_players + 1

    def start_metrics(self, game: Any) -> list[int]:
        return [0]  # actions played

    def after_action(self, game: Any, tracker: Any) -> None:
        tracker[0] += 1

    def result_row(self, game: Any, tracker: Any) -> dict[str, Any]:
        st = game.game.state
        counts = [st.territory_count(p) for p in range(st.players)]
        top = max(counts)
        winner = game.game.winner
        if st.truncated or winner is None:
            reason = TRUNCATION
        else:
            reason = "last_standing" if len(st.active_seats()) == 1 else "seventy_percent"
        return {
            "scores": counts,
            "winners": [] if winner is None else [self.seat_names[winner]],
            "leaders": [self.seat_names[p] for p in range(st.players) if counts[p] == top],
            "end_reason": reason,
            "rounds": self.round_of(game),
            "plies": int(tracker[0]) if tracker else 0,
            "turns": int(st.turn_index),
            "game_seed": int(game.seed),
            "eliminated": [int(st.status[p] == ELIMINATED) for p in range(st.players)],
            "territories_end": counts,
        }

    def new_recorder(self, game: Any, players: Sequence[str]) -> GameRecorder:
        return _Recorder(game)

    # ---- seats -----------------------------------------------------------------------------------------
    def registered_seats(self) -> list[str]:
        from policies.registry import game_seats

        return list(game_seats(self.game_id))

    def display_name(self, spec: str) -> str:
        from policies.registry import game_seats

        entry = game_seats(self.game_id).get(spec)
        return entry[1] if entry else spec

    def check_seat_spec(self, spec: str) -> None:
        if self.is_registered(spec):
            return
        if isinstance(spec, str) and Path(spec).is_dir():  # an exported package (dw export): plays without torch
            from policies.frontera.package_seat import check_package

            check_package(spec)
            return
        if isinstance(spec, str) and spec.lower().endswith(".pt"):  # a dw train checkpoint (the learned agent)
            if not Path(spec).is_file():
                raise FileNotFoundError(f"no such policy file: {spec}")
            return
        raise ValueError(
            f"unknown Frontera seat {brief(spec)}; allowed: {', '.join(self.registered_seats())}, "
            "the path of a dw train checkpoint of Frontera (.pt), or a strategy package folder of Frontera (dw export)"
        )

    def make_seat(self, spec: str, seed: int | None = None) -> Any:
        from policies.registry import make_game_seat

        self.check_seat_spec(spec)
        if Path(spec).is_dir():
            from policies.frontera.package_seat import load as load_package

            return load_package(spec, seed=seed)
        if not self.is_registered(spec):
            from policies.frontera.agent_seat import load

            return load(spec, seed=seed)
        return make_game_seat(self.game_id, spec, seed)

    # ---- training (dw train, docs/FRONTERA.md "Learned agent") -----------------------------------------
    def observation_version(self) -> str:
        """Return the layout the learned agent reads: spec 6.4's observation, packed (policies/frontera/inputs.py)."""
        return OBSERVATION_VERSION

    def make_vector_env(
        self,
        num_envs: int,
        options: Any,
        num_threads: int,
        seed: int | None,
        fog_rows: float | None = None,
        fog_spread: bool = True,
    ) -> Any:
        """Return the training env (policies/frontera/train_env.py); ``fog_rows``: the share of rows with fog on,
        spread evenly over the rows (``fog_spread``) or the last ones."""
        from policies.frontera.train_env import FronteraTrainEnv

        return FronteraTrainEnv(num_envs, options, seed=seed or 0, fog_rows=fog_rows, fog_spread=fog_spread)

    def make_network(self, options: Any, size: Mapping[str, int]) -> Any:
        """Return a fresh graph network (policies/frontera/network.py) on the map of ``options``."""
        from policies.frontera.inputs import MapGraph
        from policies.frontera.network import FronteraGraphNet

        return FronteraGraphNet(MapGraph.of_map(load_map(options.map)), observation_version=OBSERVATION_VERSION, **size)

    def training_seats(self, env: Any) -> Any:
        """Return the scripted seats' maker for the training env: this game's seats, answering env indices."""
        from policies.frontera.train_env import TrainingSeats

        return TrainingSeats(self.for_options({"players": env.players}))


def _flat(value: Any) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, tuple) else (value,)


@functools.cache
def _bound(players: int) -> Frontera:
    return Frontera(players)


__all__ = ["Frontera", "FronteraMatch", "FronteraOptions"]
