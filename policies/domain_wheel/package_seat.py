"""Domain Wheel's exported strategy package in a seat: onnxruntime on the CPU, no torch.

:func:`load` is the seat loader for package folders (``dw arena --lineup exports/small-agent,balanced,balanced``,
:func:`policies.files.make_seat_policy`, the Gymnasium wrapper's opponents; reached as
``policies.onnx_policy:load``). The seat reads the package (:mod:`policies.package`), picks the graph made for
the game's map and plays through the game's encoder (:data:`ENCODERS`, keyed by the observation layout: the
two-phase driver of :mod:`policies.domain_wheel.two_phase`). Opening, checking and running the graphs, and
the greedy or seeded sampled decision, are every game's (:mod:`policies.onnx_graph`).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game, Move
from policies.onnx_graph import GraphSeat
from policies.package import PackageError, read_package

#: observation layout -> "module:Class" of the encoder/driver that plays a turn through a graph. The class is
#: built as ``Class(options)`` and provides ``act(game, seat, choose) -> Move``; its module provides
#: ``GAME``, ``RULES_VERSION`` and ``map_key(options) -> dict`` (the options that select a graph).
ENCODERS: Final[dict[str, str]] = {
    "dw-obs-v1": "policies.domain_wheel.two_phase:TwoPhaseDriver",
}


class PackagePolicy(GraphSeat):
    """Plays a Domain Wheel seat with an exported strategy package (greedy by default, or sampling)."""

    def __init__(self, folder: str | Path, seed: int | None = None, greedy: bool = True) -> None:
        super().__init__(read_package(folder), seed, greedy)
        target = ENCODERS.get(self.package.observation_version)
        if target is None:
            raise PackageError(
                f"{self.package.folder}: observation layout {self.package.observation_version!r} has no encoder "
                f"here; this version encodes {', '.join(ENCODERS)} (a package of game {self.package.game!r}: "
                f"seat a board game's package in its own game, dw arena --game ID)"
            )
        module_name, _, cls = target.partition(":")
        self._game_module = importlib.import_module(module_name)
        self._driver_class = getattr(self._game_module, cls)
        game, rules = self._game_module.GAME, self._game_module.RULES_VERSION
        if (self.package.game, self.package.rules_version) != (game, rules):
            raise PackageError(
                f"{self.package.folder}: made for game {self.package.game!r} rules {self.package.rules_version!r}; "
                f"this encoder plays {game!r} rules {rules!r}"
            )
        self._open_graphs()
        self.options: Any = None

    def _setup(self, options: Any) -> None:
        spec = self.package.graph_for(self._game_module.map_key(options))
        self.graph = self._graphs[spec.file]
        self.driver = self._driver_class(options)
        self.options = options

    def choose(self, obs: NDArray[np.int8], mask: NDArray[np.int8]) -> int:
        """Return the action for one encoded observation and its mask; IllegalOutputError if it is not legal."""
        return self._decide(self.graph, obs, mask)

    def act(self, game: Game, seat: int) -> Move:
        if game.options != self.options:
            self._setup(game.options)
        move: Move = self.driver.act(game, seat, self.choose)
        return move

    def __repr__(self) -> str:
        return f"PackagePolicy({self.label!r}, greedy={self.greedy})"


def load(path: str | Path, seed: int | None = None, greedy: bool = True) -> PackagePolicy:
    """Return the seat policy of a strategy package folder; the loader ``dw arena`` uses (greedy)."""
    return PackagePolicy(path, seed=seed, greedy=greedy)
