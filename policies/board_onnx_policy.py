"""An exported strategy package of a board game (Alveole, Conquer) in a seat: onnxruntime on the CPU, no torch.

``dw export`` writes a board game's package like Domain Wheel's (:mod:`policies.package`): one graph per
accepted grid, each reading the game's own observation (``game.observe()``: int8 planes ``(C, H, W)``, the
same encoder as the envs and the torch seat) and its action mask. The seat picks the graph whose ``accepts``
is the game's grid (:func:`grid_key`), runs it and plays the greedy action (the graph's argmax) or samples
from the masked logits with the seat's seeded rng. Actions are the engine's own ints: nothing is mapped.

The adapter (:class:`policies.games.board.BoardGrid`) reaches this module for any seat spec that is a folder:
:func:`check_package` refuses a package of another game (naming both), of another observation layout or
rules version, and a damaged one (the checks of :func:`policies.package.read_package` and
:class:`policies.onnx_graph.OnnxGraph`), before any game is played.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from policies.onnx_graph import GraphSeat, OnnxGraph
from policies.package import MANIFEST, GraphSpec, Package, PackageError, is_package, read_package

#: the game id a Domain Wheel package names (policies.domain_wheel.two_phase.GAME) -> its id in policies.games
_GAME_IDS = {"domain-wheel": "domain_wheel"}


def grid_key(planes: tuple[int, int, int]) -> dict[str, int]:
    """Return the ``accepts`` entry of a graph for observation planes ``(C, H, W)``: the grid's width and height."""
    _, height, width = planes
    return {"width": int(width), "height": int(height)}


def grid_text(key: dict[str, int]) -> str:
    """Return a grid key as text, ``WIDTHxHEIGHT`` (``9x9``)."""
    return f"{key['width']}x{key['height']}"


def check_package(folder: str | Path, game: Any) -> Package:
    """Return the package in ``folder`` if it is an intact package of ``game`` (a :class:`BoardGrid` adapter).

    FileNotFoundError for a missing folder; :class:`PackageError` for a folder without a manifest, a damaged
    package, or one made for another game (both named), observation layout or rules version.
    """
    root = Path(folder)
    if root.is_dir() and not is_package(root):
        raise PackageError(f"{root}: a folder, but not a strategy package ({MANIFEST} is missing)")
    package = read_package(root)
    if package.game != game.game_id:
        other = _GAME_IDS.get(package.game, package.game)
        raise PackageError(
            f"{root}: a strategy package of {package.game!r}, not of {game.game_id!r}; "
            f"seat it in a game of {other} (dw arena --game {other})"
        )
    expected = (game.observation_version(), game.rules_version())
    found = (package.observation_version, package.rules_version)
    if found != expected:
        raise PackageError(
            f"{root}: made for observation layout {found[0]!r} and rules {found[1]!r}; this {game.title} "
            f"encodes {expected[0]!r} with rules {expected[1]!r} (export the agent again with this version)"
        )
    return package


class BoardPackagePolicy(GraphSeat):
    """Plays a seat of a board game with an exported strategy package (greedy by default, or sampling)."""

    def __init__(self, folder: str | Path, game: Any, seed: int | None = None, greedy: bool = True) -> None:
        super().__init__(check_package(folder, game), seed, greedy)
        self.game = game
        self._open_graphs()
        self._options: Any = None
        self.graph: OnnxGraph | None = None

    def graph_for(self, options: Any) -> GraphSpec:
        """Return the package's graph for the grid of these options; PackageError listing the accepted grids."""
        key = grid_key(self.game.planes(options))
        try:
            return self.package.graph_for(key)
        except PackageError:
            accepted = ", ".join(grid_text(g.accepts) for g in self.package.graphs)
            raise PackageError(
                f"{self.package.folder}: this package has no graph for the {grid_text(key)} grid; it accepts "
                f"{accepted} (export it again with --grid {grid_text(key)} to play there)"
            ) from None

    def act(self, game: Any, seat: int) -> int:  # type: ignore[override]
        if self.graph is None or game.options != self._options:
            self.graph = self._graphs[self.graph_for(game.options).file]
            self._options = game.options
        obs, mask = game.observe()
        if not mask.any():
            raise ValueError(f"{self.label}: no legal action to choose from")
        return self._decide(self.graph, obs, mask)

    def __repr__(self) -> str:
        return f"BoardPackagePolicy({self.label!r}, game={self.game.game_id}, greedy={self.greedy})"


def load(folder: str | Path, game: Any, seed: int | None = None, greedy: bool = True) -> BoardPackagePolicy:
    """Return the seat of a board game's strategy package folder (greedy): what ``BoardGrid.make_seat`` builds."""
    return BoardPackagePolicy(folder, game, seed=seed, greedy=greedy)
