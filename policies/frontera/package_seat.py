"""Frontera's exported strategy package in a seat: the learned agent on onnxruntime's CPU provider, no torch.

``dw export`` writes one graph per map (docs/FRONTERA.md, "Export"): the network's weights play every map and
2 to 6 players, but each graph bakes in one map's tables (edges in action order, regions, bonuses) and the
observation's and action's sizes there. :func:`map_key` is what a graph ``accepts``: the map's territory and
edge counts and a digest of the tables the graph holds, so a package never plays a map it was not made for.

The seat decides exactly as :class:`policies.frontera.agent_seat.FronteraAgentSeat` does: it builds its own
observation from ``frontera_env.view.view`` of its seat only (R-13), packs it, masks with the env's action
mask and decodes the graph's index to an engine action (a regroup is three decisions). Only the decision
differs: the graph's greedy action (checked against the mask) or a draw from its masked logits with the
seat's seed. :func:`check_package` refuses another game's package, another observation layout or rules
version, and a damaged one, before any game is played.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Final

import numpy as np

from frontera_env.board import SIZES, FronteraMap
from frontera_env.encoding import Layout
from frontera_env.engine import Game
from frontera_env.observation import ObservationLayout
from policies.frontera.agent_seat import FronteraAgentSeat
from policies.frontera.inputs import BUCKETS, MapGraph
from policies.onnx_graph import GraphSeat, OnnxGraph
from policies.package import MANIFEST, GraphSpec, Package, PackageError, is_package, read_package

#: the game id a Frontera package names (the adapter's, policies.games.frontera)
GAME: Final = "frontera"
#: the rules a package's agent was trained under (docs/FRONTERA.md; bumped when a rule changes what it plays)
RULES_VERSION: Final = "frontera-rules-1"
#: the action space the graphs score: spec 6.2 with BUCKETS amount buckets
ACTION_VERSION: Final = f"frontera-actions-6.2-b{BUCKETS}"
#: the observation layout the graphs read (policies.games.frontera.OBSERVATION_VERSION, kept equal by a test)
OBSERVATION_VERSION: Final = "frontera-obs-2-packed-log12"


def map_key(board: FronteraMap) -> dict[str, int]:
    """Return the ``accepts`` entry of a graph made for ``board``: territories, edges and a digest of its graph.

    The digest covers what a graph bakes in (edges in action order, sea links, regions, bonuses, the region
    one-hot's width): two maps with the same counts but another adjacency get different keys.
    """
    graph = MapGraph.of_map(board)
    digest = hashlib.sha256()
    for table in (graph.edge_index, graph.edge_sea, graph.region, graph.bonus):
        digest.update(np.ascontiguousarray(table).tobytes())
    digest.update(str(graph.regions).encode())
    return {
        "territories": graph.n,
        "edges": int(graph.edge_index.shape[1]),
        "map_digest": int(digest.hexdigest()[:12], 16),  # 48 bits: an exact JSON integer
    }


def map_text(key: dict[str, int]) -> str:
    """Return a map key as a reader knows it: the reference map's name, else its counts."""
    from frontera_env.map_file import reference_map

    for name in SIZES:
        if map_key(reference_map(name)) == key:
            return f"the {name} map"
    return f"a map of {key['territories']} territories and {key['edges']} edges (digest {key['map_digest']:x})"


def check_package(folder: str | Path) -> Package:
    """Return the intact Frontera package in ``folder``; PackageError naming what is wrong otherwise.

    FileNotFoundError for a missing folder; PackageError for a folder without a manifest, a damaged package
    (:func:`policies.package.read_package`), or one made for another game, observation layout or rules version.
    """
    root = Path(folder)
    if root.is_dir() and not is_package(root):
        raise PackageError(f"{root}: a folder, but not a strategy package ({MANIFEST} is missing)")
    package = read_package(root)
    if package.game != GAME:
        other = {"domain-wheel": "domain_wheel"}.get(package.game, package.game)
        raise PackageError(
            f"{root}: a strategy package of {package.game!r}, not of {GAME!r}; "
            f"seat it in a game of {other} (dw arena --game {other})"
        )
    found = (package.observation_version, package.rules_version)
    if found != (OBSERVATION_VERSION, RULES_VERSION):
        raise PackageError(
            f"{root}: made for observation layout {found[0]!r} and rules {found[1]!r}; this Frontera encodes "
            f"{OBSERVATION_VERSION!r} with rules {RULES_VERSION!r} (export the agent again with this version)"
        )
    return package


class FronteraPackageSeat(FronteraAgentSeat, GraphSeat):
    """Plays a Frontera seat with an exported package: the agent seat's inputs, the package's graph for the map."""

    name = "package"

    def __init__(self, folder: str | Path, seed: int | None = None, greedy: bool = True) -> None:
        GraphSeat.__init__(self, check_package(folder), seed, greedy)  # not the agent seat's: it imports torch
        self._open_graphs()
        self._board: Any = None
        self.graph: OnnxGraph | None = None

    def maps(self) -> list[str]:
        """Return the maps this package has a graph for, as a reader knows them ("the small map", or the counts)."""
        return [map_text(g.accepts) for g in self.package.graphs]

    def check_fits(self, game: Any) -> None:
        """Raise PackageError naming the package, ``game``'s map and the maps it has when it has no graph for the map.

        The arena calls it before any game (training.evaluation.arena.check_file_seats): without it, every decision
        of the seat faults and the report counts the faults only.
        """
        self.graph_for(getattr(game, "game", game).ctx.map)

    def graph_for(self, board: FronteraMap) -> GraphSpec:
        """Return the package's graph for ``board``; PackageError naming the map and the ones it accepts."""
        key = map_key(board)
        try:
            return self.package.graph_for(key)
        except PackageError:
            accepted = "; ".join(self.maps())
            raise PackageError(
                f"{self.package.folder}: this package has no graph for {map_text(key)}; it accepts {accepted} "
                f"(export the agent again with --map for that map to play there)"
            ) from None

    def _fit(self, game: Game) -> tuple[Layout, ObservationLayout]:
        """Pick the graph of ``game``'s map (PackageError if there is none) and return the map's layouts."""
        board = game.ctx.map
        # the map object itself is kept (not its id): a freed map's id may come back as another map's
        if self._board is None or self._board[0] is not board or self._board[1] != game.ctx.max_turns:
            self.graph = self._graphs[self.graph_for(board).file]
            self._layout = Layout.for_map(board, BUCKETS)
            self._obs_layout = ObservationLayout.for_map(board, game.ctx.max_turns)
            self._board = (board, game.ctx.max_turns)
        return self._layout, self._obs_layout

    def _draw(self, obs: np.ndarray, mask: np.ndarray) -> int:
        assert self.graph is not None  # _fit ran first (act, inputs)
        if not mask.any():
            raise ValueError(f"{self.label}: no legal action to choose from")
        return self._decide(self.graph, obs, mask)

    def __repr__(self) -> str:
        return f"FronteraPackageSeat({self.label!r}, greedy={self.greedy})"


def load(path: str | Path, seed: int | None = None, greedy: bool = True) -> FronteraPackageSeat:
    """Return the seat of a Frontera strategy package folder (greedy by default, as every package seat)."""
    return FronteraPackageSeat(path, seed=seed, greedy=greedy)
