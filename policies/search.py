"""Where the search seat has always been imported from: its spec (every game's) and Domain Wheel's search.

The code lives in :mod:`policies.search_spec` (``search:PATH[?...]``, :class:`SearchParams`, shared by every
game) and :mod:`policies.domain_wheel.search` (Domain Wheel's :class:`SearchPolicy`, its evaluators and
:func:`load`, which ``policies.files.PREFIXED`` names as ``policies.search:load``); the board games' search
is :mod:`policies.board_search`. This module re-exports them so that every import path keeps working.
"""

from __future__ import annotations

from policies.domain_wheel.search import (
    Evaluator,
    Node,
    OnnxEvaluator,
    SearchPolicy,
    TorchEvaluator,
    load,
    result_values,
)
from policies.search_spec import PREFIX, SearchParams, check_spec, sample_by_visits, split_spec

__all__ = [
    "PREFIX",
    "Evaluator",
    "Node",
    "OnnxEvaluator",
    "SearchParams",
    "SearchPolicy",
    "TorchEvaluator",
    "check_spec",
    "load",
    "result_values",
    "sample_by_visits",
    "split_spec",
]
