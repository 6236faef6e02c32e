"""Where a strategy package's seat has always been imported from: every game's graph plumbing and Domain Wheel's seat.

The code lives in :mod:`policies.onnx_graph` (what every game shares: :class:`OnnxGraph`, the greedy or
sampled decision) and :mod:`policies.domain_wheel.package_seat` (Domain Wheel's :class:`PackagePolicy` and
:func:`load`, the loader ``policies.files.PACKAGE_LOADER`` names); the board games' seat is
:mod:`policies.board_onnx_policy`. This module re-exports them so that every import path keeps working.
"""

from __future__ import annotations

from policies.domain_wheel.package_seat import ENCODERS, PackagePolicy, load
from policies.onnx_graph import GraphSeat, OnnxGraph, checked_action, sample_legal

__all__ = ["ENCODERS", "GraphSeat", "OnnxGraph", "PackagePolicy", "checked_action", "load", "sample_legal"]
