"""The max over each territory's incoming messages, as a padded gather: the graph network's ``max_nb`` term.

``torch.scatter_reduce(..., "amax", include_self=False)`` over the edges was the network's costliest op on a CPU
(a third of a PPO update on the medium map, docs/FRONTERA.md "Training speed"). Here each territory's incoming
edges sit in one row of a table padded to the largest in-degree (a shorter row repeats its first edge: the max
of a value with itself is the value), so the forward pass is one ``index_select`` and an ``amax`` over the
padding axis. The backward pass gives the same numbers as scatter_reduce's, bit for bit: each edge whose
message equals its target's max gets the target's gradient divided by the number of such edges, plus one where
the max is 0 (torch counts the zero-initialised ``self`` as a tie there, ``include_self=False`` or not).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import Tensor


def incoming_table(dst: NDArray[np.int64], n: int) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Return ([n, D] the incoming edges of each territory, padded with its first one; [n] territories with none).

    ``D`` is the largest in-degree (at least 1); an isolated territory's row holds edge 0 (its max is set to 0).
    """
    degree = np.bincount(dst, minlength=n)
    table = np.zeros((n, max(1, int(degree.max(initial=0)))), np.int64)
    order = np.argsort(dst, kind="stable")  # edges grouped by target, in edge order within a target
    column = np.arange(len(dst)) - np.repeat(np.cumsum(degree) - degree, degree)
    table[dst[order], column] = order
    has = degree > 0
    table = np.where(np.arange(table.shape[1])[None, :] < degree[:, None], table, table[:, :1])
    return table, ~has


def _top(msg: Tensor, table: Tensor, isolated: Tensor | None) -> Tensor:
    b, _, c = msg.shape
    n, d = table.shape
    top = msg.index_select(1, table.view(-1)).view(b, n, d, c).amax(2)
    return top if isolated is None else top.masked_fill(isolated[None, :, None], 0.0)


class NeighbourMax(torch.autograd.Function):
    """``top[b, t, c] = max over edges e into t of msg[b, e, c]`` (0 for a territory without edges)."""

    @staticmethod
    def forward(ctx: Any, msg: Tensor, table: Tensor, dst: Tensor, isolated: Tensor | None) -> Tensor:  # type: ignore[override]
        top = _top(msg, table, isolated)
        ctx.save_for_backward(msg, top, dst)
        return top

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:  # type: ignore[override]
        msg, top, dst = ctx.saved_tensors
        hits = (msg == top.index_select(1, dst)).to(grad.dtype)  # 1.0 where an edge gave its target's max
        # ties share the gradient evenly, the zero-initialised output counting as one where the max is 0
        count = (top == 0).to(grad.dtype).index_add_(1, dst, hits)
        return hits.mul_((grad / count).index_select(1, dst)), None, None, None


def neighbour_max(msg: Tensor, table: Tensor, dst: Tensor, isolated: Tensor | None) -> Tensor:
    """Return [B, N, C]: each territory's max over its incoming edges' messages ``msg`` [B, E, C] (0: none).

    Without a gradient to keep (the rollout, TorchScript traces, ONNX export) the plain ops run, no Function.
    """
    if not (msg.requires_grad and torch.is_grad_enabled()):
        return _top(msg, table, isolated)
    out: Tensor = NeighbourMax.apply(msg, table, dst, isolated)
    return out
