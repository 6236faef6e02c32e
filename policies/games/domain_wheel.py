"""Domain Wheel through the shared layers' game adapter: three players, the scripted AIs, learned seats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dw_env.engine import PASS_MOVE, Game, Move
from dw_env.info import PLAYER_NAMES
from dw_env.options import GameOptions
from dw_env.rules import layout as lay
from policies.games.base import TRUNCATION, BoardGame, GameRecorder


class _Recorder(GameRecorder):
    def __init__(self, game: Game, players: Sequence[str]) -> None:
        from dw_env.record import GameRecord

        self.record = GameRecord.from_game(game, players=list(players))

    def append(self, action: Any) -> None:
        self.record.append(action)

    def save(self, path: Any) -> None:
        from dw_env.record import result_of

        self.record.result = result_of(self.record.replay())
        self.record.save(path)


def owned_lands(game: Game) -> list[int]:
    """Return the lands each seat owns (its start land included)."""
    owner = game.lands[lay.OWNER]
    n = len(PLAYER_NAMES)
    return [int(x) for x in np.bincount(owner[owner >= 0], minlength=n)[:n]]


class DomainWheel(BoardGame):
    """Domain Wheel (rules: docs/RULES.md): the default game of every command."""

    game_id = "domain_wheel"
    title = "Domain Wheel"
    seat_names = tuple(PLAYER_NAMES)
    #: engine names (dw_env.rules.layout): centre (rule 9.6), countdown (9.4), end request (9.3), round limit
    end_reasons = ("centre", "countdown", "end_request", TRUNCATION)
    seat_metrics = {
        "lands_mid": "owned lands incl. the start land at the start of round ceil(rounds/2)",
        "lands_end": "owned lands incl. the start land at the end",
    }

    row_columns = ("mid_round",)
    conventions = {"lands": "owned lands incl. the start land; mid = at the start of round ceil(rounds/2)"}

    def default_options(self) -> GameOptions:
        return GameOptions()

    def options_from_dict(self, data: Mapping[str, Any]) -> GameOptions:
        return GameOptions.from_dict(dict(data))

    def options_to_dict(self, options: Any) -> dict[str, Any]:
        return dict(options.to_dict())

    def describe_options(self, options: Mapping[str, Any]) -> str:
        return (
            f"n={options['land_radius']} R={options['map_radius']} K={options['turns_to_conquer']}, "
            f"{'fast' if options['fast_knights'] else 'slow'} knights, "
            f"king {'may be alone' if options['king_may_be_alone'] else 'never alone (4.11)'}, "
            f"max {options['max_rounds']} rounds"
        )

    def max_opening_plies(self, options: Any) -> int:
        return int(self.num_players * options.max_rounds - 1)

    def new_game(self, options: Any) -> Game:
        return Game.new(options)

    def opening_candidates(self, game: Any) -> list[Any]:
        """Every distinct piece move (rule 4); a pass only when no piece can move (3.2b); never an end request.

        An end request (rule 9.3) would start the end on a random whim, so openings never draw one.
        """
        return [m for m in game.legal_moves() if not (m.is_pass or m.is_end_request)] or [PASS_MOVE]

    def fallback_action(self, game: Any) -> Move:
        """A pass: always legal (rule 3.2b), and what the browser game's rooms play for a failing AI too."""
        return PASS_MOVE

    def action_ints(self, action: Any) -> tuple[int, ...]:
        return int(action[0]), int(action[1])

    def normalize_action(self, action: Any) -> Move:
        return Move(int(action[0]), int(action[1]))

    def round_of(self, game: Any) -> int:
        return int(game.round)

    def start_metrics(self, game: Any) -> list[list[int]]:
        return [owned_lands(game)]  # owned lands when each round begins

    def after_action(self, game: Any, tracker: Any) -> None:
        if game.round > len(tracker):
            tracker.append(owned_lands(game))

    def result_row(self, game: Any, tracker: Any) -> dict[str, Any]:
        rounds = int(game.round)
        mid_round = (rounds + 1) // 2
        return {
            "scores": game.scores(),
            "winners": [PLAYER_NAMES[p] for p in game.winners],
            "leaders": [PLAYER_NAMES[p] for p in game.leaders()],
            "end_reason": game.end_reason,
            "rounds": rounds,
            "plies": int(game.scalars[lay.PLY]),
            "mid_round": mid_round,
            "lands_mid": tracker[mid_round - 1],
            "lands_end": owned_lands(game),
        }

    def new_recorder(self, game: Any, players: Sequence[str]) -> GameRecorder:
        return _Recorder(game, players)

    def registered_seats(self) -> list[str]:
        from policies.registry import available

        return available()

    def display_name(self, spec: str) -> str:
        from policies.registry import display_name

        return display_name(spec) if self.is_registered(spec) else spec

    def check_seat_spec(self, spec: str) -> None:
        from policies.files import check_seat_spec

        check_seat_spec(spec)

    def make_seat(self, spec: str, seed: int | None = None) -> Any:
        from policies.files import make_seat_policy

        return make_seat_policy(spec, seed)
