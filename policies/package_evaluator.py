"""A strategy package as a search seat's network: priors and values from its graphs, onnxruntime only, no torch.

The search seats (``search:PATH``, :mod:`policies.search` for Domain Wheel and :mod:`policies.board_search`
for the board games) ask a network for two things per position: the logits of the legal actions and the value
of the position for the player to act. A package exported by this version carries both (the plain flavour's
``masked_logits`` and ``value`` outputs, :mod:`training.export.export`), so ``search:FOLDER`` plays the same search
as ``search:CHECKPOINT.pt`` where only the play extra (onnxruntime) is installed.

A package without a value output (exported before it existed, or the ML-Agents flavour) is refused when the
seat is made, naming the graph and what to do; so is one with no graph for the game's map or grid (listing
the ones it has). Every graph is opened and checked against its manifest (:class:`policies.onnx_graph.
OnnxGraph`) before the first move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policies.onnx_graph import OnnxGraph
from policies.package import Package


class PackageEvaluator:
    """The logits and values of a package's graphs; :meth:`select` picks the graph of a map or grid."""

    def __init__(self, package: Package) -> None:
        self.package = package
        self._graphs: dict[str, OnnxGraph] = {}
        for spec in package.graphs:
            graph = OnnxGraph(package, spec)
            graph.check_evaluate()  # refused now, not at the first move
            self._graphs[spec.file] = graph
        self.graph: OnnxGraph = self._graphs[package.graphs[0].file]
        self._key: dict[str, int] | None = None

    def select(self, key: Mapping[str, int]) -> None:
        """Use the graph made for ``key`` (a map or grid key); PackageError listing the package's ones."""
        if self._key == dict(key):
            return
        self.graph = self._graphs[self.package.graph_for(key).file]
        self._key = dict(key)

    def __call__(
        self, obs: NDArray[np.int8], mask: NDArray[np.int8]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Return (masked logits [B, A], values of the acting player [B]) of a batch on the selected graph."""
        logits, values = self.graph.evaluate(obs, mask)
        return logits, values


def log_softmax(logits: NDArray[Any]) -> NDArray[np.float64]:
    """Return the row-wise log-softmax of masked logits (illegal actions stay far below every legal one)."""
    z = np.asarray(logits, np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    out: NDArray[np.float64] = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return out
