"""The adapter shared by the board games whose engines follow the board-game contract (Alveole, Conquer).

Such an engine (``alveole_env``, ``conquer_env``) has an engine object with ``new(options)``, ``copy()``,
``turn``, ``over``, ``truncated``, ``end_reason``, ``winners``, ``scores()``, ``leaders()``, ``ply``,
``legal_actions()``, ``play(action)`` and ``observe()``; actions are plain ints in the absolute frame, the same in
the engine, the envs, the seats and the network; observations are int8 planes ``(C, H, W)`` in the acting
player's frame with the "on board" plane last, and actions ``K`` planes over the same grid plus ``E`` extra
ones (docs/GAMES.md). So one class answers the shared layers for all of them; a game's subclass names its
engine, options, encoding, vector env, seats and record format, nothing more.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policies.games.base import TRUNCATION, BoardGame, GameRecorder


class _Recorder(GameRecorder):
    def __init__(self, game: BoardGrid, start: Any, players: Sequence[str]) -> None:
        self.game, self.start, self.players = game, start, list(players)
        self.actions: list[int] = []

    def append(self, action: Any) -> None:
        self.actions.append(int(action))

    def save(self, path: Any) -> None:
        end = self.start.copy()
        for action in self.actions:
            end.play(action)
        record = self.game.make_record(self.start, end, self.actions, self.players)
        Path(path).write_text(json.dumps(record, indent=1) + "\n")


class BoardGrid(BoardGame):
    """A two-player board game whose engine follows the board-game contract (see the module docstring)."""

    #: "module:attribute" of the engine class, the options class, the vector env class and the seats' dict
    engine_class = ""
    options_class = ""
    vector_env_class = ""
    seats_dict = ""
    #: the engine package's encoding module (PLANES or planes(options), ACTION_PLANES, EXTRA_ACTIONS,
    #: OBSERVATION_VERSION)
    encoding_module = ""
    #: the engine's end reason for a game stopped at its ply limit (reported as :data:`TRUNCATION`)
    engine_truncation = "truncated"
    seat_metrics = {"pieces_end": "the seat's pieces on the board at the end"}

    # ---- what the subclass's modules hold ------------------------------------------------------------
    @staticmethod
    def _load(target: str) -> Any:
        module, _, name = target.partition(":")
        return getattr(importlib.import_module(module), name)

    @property
    def encoding(self) -> Any:
        return importlib.import_module(self.encoding_module)

    def seats(self) -> dict[str, Any]:
        seats: dict[str, Any] = self._load(self.seats_dict)
        return seats

    # ---- options -------------------------------------------------------------------------------------
    def default_options(self) -> Any:
        return self._load(self.options_class)()

    def options_from_dict(self, data: Mapping[str, Any]) -> Any:
        return self._load(self.options_class).from_dict(dict(data))

    def options_to_dict(self, options: Any) -> dict[str, Any]:
        return dict(options.to_dict())

    def describe_options(self, options: Mapping[str, Any]) -> str:
        return ", ".join(f"{k} {v}" for k, v in options.items())

    def ply_limit(self, options: Any) -> int:
        """Return the ply at which a game of these options stops as truncated."""
        return int(options.max_plies)

    def max_opening_plies(self, options: Any) -> int:
        return self.ply_limit(options) - 1

    # ---- one game ------------------------------------------------------------------------------------
    def new_game(self, options: Any) -> Any:
        return self._load(self.engine_class).new(options)

    def opening_candidates(self, game: Any) -> list[Any]:
        return list(game.legal_actions())

    def action_ints(self, action: Any) -> tuple[int, ...]:
        return (int(action),)

    def round_of(self, game: Any) -> int:
        return int(game.ply) // self.num_players + 1

    def piece_counts(self, game: Any) -> list[int]:
        """Return each seat's pieces on the board (the ``pieces_end`` metric)."""
        return [len(game.pieces(s)) for s in range(self.num_players)]

    def end_reason(self, game: Any) -> str:
        reason = str(game.end_reason)
        return TRUNCATION if game.truncated or reason == self.engine_truncation else reason

    def result_row(self, game: Any, tracker: Any) -> dict[str, Any]:
        plies = int(game.ply)
        return {
            "scores": [int(s) for s in game.scores()],
            "winners": [self.seat_names[p] for p in game.winners],
            "leaders": [self.seat_names[p] for p in game.leaders()],
            "end_reason": self.end_reason(game),
            "rounds": (plies + self.num_players - 1) // self.num_players,
            "plies": plies,
            "pieces_end": self.piece_counts(game),
        }

    def make_record(self, start: Any, end: Any, actions: Sequence[int], players: Sequence[str]) -> dict[str, Any]:
        """Return the game's own record (JSON-ready) of ``actions`` played from ``start`` to ``end``."""
        raise NotImplementedError

    def new_recorder(self, game: Any, players: Sequence[str]) -> GameRecorder:
        return _Recorder(self, game.copy(), players)

    # ---- seats ---------------------------------------------------------------------------------------
    def registered_seats(self) -> list[str]:
        return list(self.seats())

    def display_name(self, spec: str) -> str:
        seat = self.seats().get(spec)
        return str(getattr(seat, "display_name", spec)) if seat is not None else spec

    def check_seat_spec(self, spec: str) -> None:
        if not isinstance(spec, str) or not spec:
            raise ValueError(f"a seat must be a strategy name or a policy file path, got {spec!r}")
        if self.is_registered(spec):
            return
        if spec.startswith("search:"):  # tree search over a checkpoint (policies/board_search.py)
            from policies.board_search import check_spec as check_search

            check_search(spec, self)
            return
        if Path(spec).is_dir():  # an exported strategy package (dw export): no torch needed to play it
            from policies.board_onnx_policy import check_package

            check_package(spec, self)
            return
        from policies.board_network_policy import check_spec

        check_spec(spec, self)

    def make_seat(self, spec: str, seed: int | None = None) -> Any:
        seats = self.seats()
        if spec in seats:
            return seats[spec](seed=seed)
        self.check_seat_spec(spec)
        if spec.startswith("search:"):
            from policies.board_search import load as load_search

            return load_search(spec, self, seed)
        if Path(spec).is_dir():
            from policies.board_onnx_policy import load as load_package

            return load_package(spec, self, seed)
        from policies.board_network_policy import load

        return load(spec, self, seed)

    # ---- training ------------------------------------------------------------------------------------
    def planes(self, options: Any) -> tuple[int, int, int]:
        """Return the observation planes ``(C, H, W)`` of these options."""
        enc = self.encoding
        return tuple(enc.planes(options)) if hasattr(enc, "planes") else tuple(enc.PLANES)  # type: ignore[return-value]

    def observation_version(self) -> str:
        return str(self.encoding.OBSERVATION_VERSION)

    def rules_version(self) -> str:
        """Return the rules version strategy packages name (the encoding's RULES_VERSION, else ``<id>-rules-1``)."""
        return str(getattr(self.encoding, "RULES_VERSION", f"{self.game_id}-rules-1"))

    def make_network(self, options: Any, size: Mapping[str, int]) -> Any:
        """Return a fresh :class:`policies.board_network.BoardPolicyNet` for these options and network size."""
        from policies.board_network import BoardPolicyNet

        enc = self.encoding
        return BoardPolicyNet(
            self.planes(options),
            int(enc.ACTION_PLANES),
            int(enc.EXTRA_ACTIONS),
            observation_version=self.observation_version(),
            **dict(size),
        )

    def symmetries(self, options: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Return the board's symmetries as gather indices ``(observation [S, D], action [S, A])``, identity first.

        Row ``k`` turns a position's flat observation ``obs`` into its image ``obs[observation[k]]`` (and a
        mask or policy over actions likewise): the training targets of one position count for ``S``. The
        default is the identity alone; a game whose rules look the same under a turn or a mirror says so.
        """
        c, h, w = self.planes(options)
        actions = int(self.encoding.ACTION_PLANES) * h * w + int(self.encoding.EXTRA_ACTIONS)
        return np.arange(c * h * w)[None], np.arange(actions)[None]

    def make_vector_env(self, num_envs: int, options: Any, num_threads: int, seed: int | None) -> Any:
        """Return the game's batched vector env (the same API as Domain Wheel's)."""
        return self._load(self.vector_env_class)(num_envs, options, num_threads=num_threads, seed=seed, copy=False)
