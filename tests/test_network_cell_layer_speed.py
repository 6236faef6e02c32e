"""The cell layers' passes with fewer copies (issue 50 item 3), the same numbers and gradients, bit for bit:

* the hex convolution's weight in channels-last memory on a CPU (policies/domain_wheel/network.py ``HexConv``):
  oneDNN reordered the contiguous weight to the input's layout on every forward and backward pass;
* ``CellLayer``'s residual sum reads the bfloat16 convolution's output as it adds it, without a float32 copy of it
  first (the copy was a pass over a [B, C, h] tensor in each layer's forward, with gradients and in traces).
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

from dw_env.geometry import build_geometry  # noqa: E402
from policies.domain_wheel.cell_passes import from_grid, to_grid  # noqa: E402
from policies.domain_wheel.network import CellLayer, HexConv, grid_tables  # noqa: E402


def channels_last_input(dtype: Any) -> Any:
    """Return a [4, 6, 9, 9] input laid out as ``CellLayer`` lays out the grid (channels-last memory)."""
    torch.manual_seed(3)
    return torch.randn(4, 9, 9, 6).permute(0, 3, 1, 2).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
def test_hex_conv_channels_last_weight_gives_the_contiguous_weights_numbers_bit_for_bit(dtype: Any) -> None:
    """Output and the gradients of input, weight and bias equal those of the plain ``conv2d`` with the masked
    weight in its own (contiguous) layout."""
    torch.manual_seed(0)
    conv = HexConv(6, 5)
    grid = channels_last_input(dtype)
    upstream = torch.randn(4, 5, 9, 9).to(dtype)

    def run(plain: bool) -> list[Any]:
        conv.zero_grad(set_to_none=True)
        x = grid.clone().requires_grad_(True)
        if plain:
            weight, bias = conv.weight * conv.mask, conv.bias
            if dtype != torch.float32:
                weight, bias = weight.to(dtype), bias.to(dtype)
            y = F.conv2d(x, weight, bias, padding=1)
        else:
            y = conv(x)
        (y * upstream).sum().backward()
        assert x.grad is not None and conv.weight.grad is not None and conv.bias.grad is not None
        return [y.detach(), x.grad, conv.weight.grad, conv.bias.grad]

    new, old = run(plain=False), run(plain=True)
    for a, b in zip(new, old, strict=True):
        assert a.dtype == b.dtype and torch.equal(a, b)


def test_hex_conv_hands_onednn_a_channels_last_weight_on_a_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """The weight reaches ``conv2d`` channels-last (what saves the reorder), still masked at the two corners that are
    not hex neighbours."""
    seen: list[Any] = []
    real = F.conv2d

    def spy(x: Any, weight: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(weight)
        return real(x, weight, *args, **kwargs)

    monkeypatch.setattr(F, "conv2d", spy)
    HexConv(6, 5)(channels_last_input(torch.float32))
    (weight,) = seen
    assert weight.is_contiguous(memory_format=torch.channels_last) and not weight.is_contiguous()
    assert torch.count_nonzero(weight[:, :, 0, 0]) == 0 and torch.count_nonzero(weight[:, :, 2, 2]) == 0


class CopiesOf(TorchDispatchMode):
    """Records the shapes of the conversions from bfloat16 to float32 (``aten._to_copy``) that run while it is on."""

    def __init__(self) -> None:
        super().__init__()
        self.shapes: list[tuple[int, ...]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        to_float = (kwargs or {}).get("dtype") == torch.float32
        if func is torch.ops.aten._to_copy.default and args[0].dtype == torch.bfloat16 and to_float:
            self.shapes.append(tuple(args[0].shape))
        return func(*args, **(kwargs or {}))


@pytest.fixture(scope="module")
def small_map() -> tuple[Any, dict[str, Any], int]:
    """A cell layer of 6 channels, the small map's index tables and grid side."""
    geometry = build_geometry(1, 2)
    torch.manual_seed(2)
    return CellLayer(6), grid_tables(geometry), geometry.grid_size


def test_cell_layer_residual_sum_equals_the_converted_sum_bit_for_bit(small_map) -> None:  # type: ignore[no-untyped-def]
    """With gradients and a bfloat16 convolution: ``x + relu(y)`` (y converted as it is read) gives the numbers and
    the gradients of ``x + relu(y).to(float32)``, the expression it replaces."""
    layer, t, side = small_map
    torch.manual_seed(4)
    cells = torch.randn(3, t["cell_grid"].shape[0], 6)
    upstream = torch.randn_like(cells)

    def run(converted: bool) -> list[Any]:
        layer.zero_grad(set_to_none=True)
        x = cells.clone().requires_grad_(True)
        if converted:
            grid = layer.conv(to_grid(x, t, torch.bfloat16).view(3, side, side, 6).permute(0, 3, 1, 2))
            y = from_grid(grid.permute(0, 2, 3, 1).reshape(3, side * side, 6), t)
            out = x + F.relu(y).to(x.dtype)
        else:
            out = layer(x, t, side, torch.bfloat16)
        (out * upstream).sum().backward()
        return [out.detach(), x.grad, layer.conv.weight.grad, layer.conv.bias.grad]

    new, old = run(converted=False), run(converted=True)
    assert new[0].dtype == torch.float32
    for a, b in zip(new, old, strict=True):
        assert torch.equal(a, b)


@pytest.mark.parametrize("grad", [True, False], ids=["update", "trace"])
def test_cell_layer_adds_the_convolution_without_a_float32_copy(small_map, grad: bool) -> None:  # type: ignore[no-untyped-def]
    """No bfloat16 tensor is converted to float32: the convolution's output is read as it is added (the update's
    pass, and the rollout trace's plain out-of-place expressions)."""
    layer, t, side = small_map
    cells = torch.randn(3, t["cell_grid"].shape[0], 6, requires_grad=grad)

    class Traced(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = layer

        def forward(self, x: Any) -> Any:
            return self.layer(x, t, side, torch.bfloat16)

    with torch.no_grad() if not grad else torch.enable_grad():
        run = Traced() if grad else torch.jit.trace(Traced(), (cells,), check_trace=False)
        with CopiesOf() as seen:
            out = run(cells)
    assert out.dtype == torch.float32
    assert seen.shapes == []
