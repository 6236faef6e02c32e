"""The network's passes over the cells, written for a CPU: fewer trips through memory, the same numbers.

On the standard map a chunk of 28 observations holds every cell-level activation in a [28, 1159, 16] float
tensor (2 MB: as large as a core's L2 cache), and the network's time goes to streaming such tensors, not to
arithmetic (docs/TRAINING.md). Each function here computes what the plain torch expression in its docstring
computes, bit for bit, with fewer passes over those tensors:

* **without gradients** (playing: rollouts, the arena, the browser game) the elementwise steps run in place on
  the tensor the pass just made, which stays in cache: the cell embedding took 0.74 ms for a standard-map chunk
  of 28 rows out of place and 0.44 ms in place;
* **with gradients** (the PPO update) autograd's in-place bookkeeping on views costs more than it saves (the
  same embedding's forward and backward took 2.9 ms in place, 1.5 ms out of place), so each step is a
  :class:`torch.autograd.Function` that computes its forward in place and writes its backward by hand:
  the gradients of the per-land and global terms of the embedding are one sum each, and the grid's
  scatter and gather are gathers both ways (every cell has one grid position).

Gradients agree with autograd's up to the order of floating-point sums (the grid's are exact).
``tests/test_cell_passes.py`` checks both against the plain expressions.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor


def _tracked(*tensors: Tensor) -> bool:
    """Return whether autograd records a pass over ``tensors`` (grad mode on, some tensor requires grad)."""
    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


def _by_hand(*tensors: Tensor) -> bool:
    """Return whether a pass over ``tensors`` takes a hand-written backward: autograd records it, and neither
    autocast (``run.amp``: its mixed dtypes are autograd's to follow) nor an exporter is on."""
    autocast = torch.is_autocast_enabled(tensors[0].device.type)
    return _tracked(*tensors) and not autocast and not recording()


def may_overwrite(*tensors: Tensor) -> bool:
    """Return whether a pass over ``tensors`` may run in place: autograd does not record it, nor an exporter."""
    return not _tracked(*tensors) and not recording()


def recording() -> bool:
    """Return whether torch.jit, torch.export/dynamo or the ONNX exporter records this pass.

    Then every function here runs the plain expression its docstring gives, out of place: the TorchScript
    exporter (``dw export --format mlagents``) mis-recorded the in-place steps on views.
    """
    return bool(torch.jit.is_tracing()) or exporting()


def exporting() -> bool:
    """Return whether an ONNX exporter or torch.compile/torch.export records this pass (a TorchScript trace is
    not one: :func:`recording` adds it)."""
    compiling = getattr(torch.compiler, "is_compiling", lambda: False)
    return bool(torch.onnx.is_in_onnx_export() or compiling())


# ---- the cell embedding ---------------------------------------------------------------------------------------
def embed_cells(cells: Tensor, weight: Tensor, bias: Tensor, land_h: Tensor, glob_h: Tensor) -> Tensor:
    """Return ``relu(linear(cells).view(B, L, k, h) + land_h[:, :, None] + glob_h[:, None, None])`` as [B, C, h].

    ``cells`` [B, C, F]: each cell's features, land-major (``k = C / L`` cells per land, land ``l``'s rows
    ``l * k ..``); ``weight`` [h, F] and ``bias`` [h]: the cell embedding; ``land_h`` [B, L, h] and ``glob_h``
    [B, h]: the land's and the global features' embeddings, added to each cell (the land's first, then the
    global one, as written).
    """
    inputs = (cells, weight, bias, land_h, glob_h)
    if _by_hand(*inputs) and not cells.requires_grad:  # the backward gives the features no gradient
        out: Tensor = _EmbedCells.apply(*inputs)
        return out
    if may_overwrite(*inputs):
        return _embed_in_place(*inputs)
    b, c, _ = cells.shape  # the plain expression, autograd's own backward
    x = F.linear(cells, weight, bias).view(b, land_h.shape[1], c // land_h.shape[1], -1) + land_h.unsqueeze(2)
    return F.relu(x + glob_h.view(b, 1, 1, -1)).view(b, c, -1)


def _embed_in_place(cells: Tensor, weight: Tensor, bias: Tensor, land_h: Tensor, glob_h: Tensor) -> Tensor:
    b, c, _ = cells.shape
    n, h = land_h.shape[1], weight.shape[0]
    x = F.linear(cells, weight, bias).view(b, n, c // n, h)
    return x.add_(land_h.unsqueeze(2)).add_(glob_h.view(b, 1, 1, h)).relu_().view(b, c, h)


class _EmbedCells(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, cells: Tensor, weight: Tensor, bias: Tensor, land_h: Tensor, glob_h: Tensor) -> Tensor:
        out = _embed_in_place(cells, weight, bias, land_h, glob_h)
        ctx.save_for_backward(cells, out)
        ctx.lands = land_h.shape[1]
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor | None, Tensor | None, Tensor | None, Tensor | None]:
        cells, out = ctx.saved_tensors
        b, c, h = out.shape
        g = torch.ops.aten.threshold_backward(grad, out, 0)  # relu's own backward
        per_land = g.reshape(b, ctx.lands, c // ctx.lands, h).sum(2)  # [B, L, h]
        per_game = per_land.sum(1)  # [B, h]
        need = ctx.needs_input_grad
        g_weight = g.reshape(-1, h).t().mm(cells.reshape(-1, cells.shape[-1])) if need[1] else None
        return None, g_weight, per_game.sum(0) if need[2] else None, per_land, per_game


# ---- a land's value to its cells --------------------------------------------------------------------------------
def add_lands_relu(x: Tensor, per_land: Tensor, in_place: bool = False) -> Tensor:
    """Return ``relu(x.view(B, L, k, h) + per_land[:, :, None])`` as [B, C, h]: each land's vector to its cells.

    ``in_place``: the caller no longer needs ``x`` (a tensor of its own pass), so without gradients the result
    may overwrite it.
    """
    b, c, h = x.shape
    n = per_land.shape[1]
    if _by_hand(x, per_land):
        out: Tensor = _AddLandsRelu.apply(x, per_land)
        return out
    target = x.view(b, n, c // n, h)
    if not may_overwrite(x, per_land):  # the plain expression, autograd's own backward
        return F.relu(target + per_land.unsqueeze(2)).view(b, c, h)
    if in_place:
        return target.add_(per_land.unsqueeze(2)).relu_().view(b, c, h)
    return torch.add(target, per_land.unsqueeze(2)).relu_().view(b, c, h)


class _AddLandsRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor, per_land: Tensor) -> Tensor:
        b, c, h = x.shape
        n = per_land.shape[1]
        out = torch.add(x.view(b, n, c // n, h), per_land.unsqueeze(2)).relu_().view(b, c, h)
        ctx.save_for_backward(out)
        ctx.lands = n
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        (out,) = ctx.saved_tensors
        b, c, h = out.shape
        g = torch.ops.aten.threshold_backward(grad, out, 0)
        return g, g.reshape(b, ctx.lands, c // ctx.lands, h).sum(2)


# ---- the attention pool ----------------------------------------------------------------------------------------
def attention_pool(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """Return ``bmm(linear(x, weight, bias).softmax(1).transpose(1, 2), x).squeeze(1)``: [B, h] of ``x`` [B, C, h].

    A learned weighting of the cells (``weight`` [1, h], ``bias`` [1]: a score per cell, softmax over the
    cells). Its backward by hand: autograd's takes two products of the cells with a vector that write a
    [B, C, h] gradient each, adds them, and runs the softmax's backward over a strided dimension; here one
    product writes the cells' gradient and the softmax's backward runs on [B, C].
    """
    if _by_hand(x, weight, bias):
        out: Tensor = _AttentionPool.apply(x, weight, bias)
        return out
    return _pool(x, weight, bias)[0]


def _pool(x: Tensor, weight: Tensor, bias: Tensor) -> tuple[Tensor, Tensor]:
    """Return (the attention pool [B, h], the cells' weights [B, C, 1])."""
    weights = F.linear(x, weight, bias).softmax(1)
    return torch.bmm(weights.transpose(1, 2), x).squeeze(1), weights


class _AttentionPool(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
        out, weights = _pool(x, weight, bias)
        ctx.save_for_backward(x, weight, weights)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        x, weight, weights = ctx.saved_tensors
        w = weights.squeeze(-1)  # [B, C]
        g_w = torch.bmm(x, grad.unsqueeze(-1)).squeeze(-1)  # d loss / d weights
        g_score = w * (g_w - (w * g_w).sum(-1, keepdim=True))  # the softmax's backward, [B, C]
        factors = torch.stack([w, g_score], -1)  # the cells' gradient: w * grad + g_score * weight
        vectors = torch.stack([grad, weight.expand(grad.shape[0], -1)], 1)  # [B, 2, h]
        g_x = torch.bmm(factors, vectors)
        g_weight = g_score.reshape(1, -1).mm(x.reshape(-1, x.shape[-1]))
        return g_x, g_weight, g_score.sum().reshape(1)


# ---- the dense grid of the hex convolutions ---------------------------------------------------------------------
def gather_padded(x: Tensor, index: Tensor) -> Tensor:
    """Return rows ``index`` of ``x`` [B, N, h] along dim 1, where row ``N`` is zeros: [B, len(index), h]."""
    return padded(x).index_select(1, index)


def padded(x: Tensor, dtype: torch.dtype | None = None) -> Tensor:
    """Return ``F.pad(x.to(dtype), (0, 0, 0, 1))``: [B, N + 1, h], row ``N`` zeros, converted in the same copy."""
    b, n, h = x.shape
    out = x.new_empty(b, n + 1, h, dtype=dtype or x.dtype)
    out[:, n].zero_()
    out[:, :n].copy_(x)
    return out


def to_grid(x: Tensor, t: dict[str, Tensor], dtype: torch.dtype | None = None) -> Tensor:
    """Return the cells ``x`` [B, C, h] (land-major) on the dense grid [B, S * S, h] in ``dtype`` (None: ``x``'s),
    zeros where no cell is.

    ``t``: the network's index tables (``policies.domain_wheel.network.grid_tables``: ``grid_cell``, ``cell_grid``).
    Autograd's way, a scatter into zeros whose backward is a gather, took 0.39 ms for a standard-map chunk of
    28 rows in bfloat16 against 0.21 ms for this gather.
    """
    if recording():
        return F.pad(x if dtype is None else x.to(dtype), (0, 0, 0, 1)).index_select(1, t["grid_cell"])
    if _tracked(x):  # a gather both ways: any dtype, autocast or not
        out: Tensor = _ToGrid.apply(x, t["grid_cell"], t["cell_grid"], dtype)
        return out
    return padded(x, dtype).index_select(1, t["grid_cell"])


def from_grid(y: Tensor, t: dict[str, Tensor]) -> Tensor:
    """Return the cells [B, C, h] (land-major) of the dense grid ``y`` [B, S * S, h].

    ``index_select``'s own backward is a scatter-add into zeros: 1.4 ms for a standard-map chunk of 28 rows in
    bfloat16 (0.23 ms in float32). Every cell sits at one grid position, so the gradient is a gather too
    (0.18 ms), zeros where no cell is: the same numbers.
    """
    if _tracked(y) and not recording():
        out: Tensor = _FromGrid.apply(y, t["cell_grid"], t["grid_cell"])
        return out
    return y.index_select(1, t["cell_grid"])


class _ToGrid(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor, grid_cell: Tensor, cell_grid: Tensor, dtype: torch.dtype | None) -> Tensor:
        ctx.save_for_backward(cell_grid)
        ctx.input_dtype = x.dtype
        return padded(x, dtype).index_select(1, grid_cell)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (cell_grid,) = ctx.saved_tensors
        return grad.index_select(1, cell_grid).to(ctx.input_dtype), None, None, None


class _FromGrid(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, y: Tensor, cell_grid: Tensor, grid_cell: Tensor) -> Tensor:
        ctx.save_for_backward(grid_cell)
        return y.index_select(1, cell_grid)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (grid_cell,) = ctx.saved_tensors
        return gather_padded(grad, grid_cell), None, None
