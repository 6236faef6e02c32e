"""policies/domain_wheel/cell_passes.py: each pass computes its plain torch expression, bit for bit, and its gradient.

The network's forward must not change when the passes change: a rollout's log-probabilities are the update's
first ones, and the shipped agents' cards are reproduced by replaying their arena runs. So every forward here
is compared with ``torch.equal`` (with and without gradients, in place or not) and every gradient with
autograd's gradient of the plain expression (the same up to the order of sums), and with ``gradcheck``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

from dw_env.geometry import build_geometry  # noqa: E402
from policies.domain_wheel.cell_passes import add_lands_relu, attention_pool, embed_cells, from_grid, to_grid  # noqa: E402
from policies.domain_wheel.network import grid_tables  # noqa: E402

B, LANDS, PER_LAND, H, F_IN = 5, 7, 7, 6, 4  # the small map: 7 lands of 7 cells
SEEDS = {"embed": 1, "lands": 2, "pool": 3}


def _plain_embed(cells, weight, bias, land_h, glob_h):  # type: ignore[no-untyped-def]
    b, c, _ = cells.shape
    x = F.linear(cells, weight, bias).view(b, LANDS, PER_LAND, -1) + land_h.unsqueeze(2)
    return F.relu(x + glob_h.view(b, 1, 1, -1)).view(b, c, -1)


def _plain_lands(x, per_land):  # type: ignore[no-untyped-def]
    b, c, h = x.shape
    return F.relu(x.view(b, LANDS, PER_LAND, h) + per_land.unsqueeze(2)).view(b, c, h)


def _plain_pool(x, weight, bias):  # type: ignore[no-untyped-def]
    return torch.bmm(F.linear(x, weight, bias).softmax(1).transpose(1, 2), x).squeeze(1)


def _inputs(kind: str, dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
    """Random inputs of each pass (the first one is the cells' tensor)."""
    g = torch.Generator().manual_seed(SEEDS[kind] + (1000 if dtype == torch.float64 else 0))
    c = LANDS * PER_LAND

    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=dtype)

    if kind == "embed":
        return [torch.randint(0, 3, (B, c, F_IN), generator=g).to(dtype), r(H, F_IN), r(H), r(B, LANDS, H), r(B, H)]
    if kind == "lands":
        return [r(B, c, H), r(B, LANDS, H)]
    return [r(B, c, H), r(1, H), r(1)]


PASSES: dict[str, tuple[Callable[..., torch.Tensor], Callable[..., torch.Tensor]]] = {
    "embed": (embed_cells, _plain_embed),
    "lands": (add_lands_relu, _plain_lands),
    "pool": (attention_pool, _plain_pool),
}


@pytest.mark.parametrize("kind", list(PASSES))
def test_a_pass_computes_its_plain_expression_bit_for_bit_and_its_gradient(kind: str) -> None:
    mine, plain = PASSES[kind]
    inputs = _inputs(kind)
    with torch.inference_mode():
        expected = plain(*inputs)
        assert torch.equal(mine(*inputs), expected)
    # the embedding's cell features take no gradient (observations); every other input does
    leaves = [t.clone().requires_grad_(not (kind == "embed" and i == 0)) for i, t in enumerate(inputs)]
    ours = mine(*leaves)
    assert torch.equal(ours.detach(), expected)
    upstream = torch.randn(ours.shape, generator=torch.Generator().manual_seed(1))
    grads = torch.autograd.grad(ours, [t for t in leaves if t.requires_grad], upstream)
    ref_leaves = [t.detach().clone().requires_grad_(t.requires_grad) for t in leaves]
    ref = torch.autograd.grad(plain(*ref_leaves), [t for t in ref_leaves if t.requires_grad], upstream)
    assert len(grads) == len(ref) >= 2
    scale = max(float(want.abs().max()) for want in ref)  # float32 sums in another order: relative to the scale
    for i, (got, want) in enumerate(zip(grads, ref, strict=True)):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5 * scale)
        if kind == "pool" and i == 2:  # the score's bias: a softmax ignores a shift, so its gradient is 0
            assert float(got.abs().max()) < 1e-5 * scale
        else:
            assert got.abs().sum() > 0  # every other gradient is exercised


@pytest.mark.parametrize("kind", list(PASSES))
def test_a_passs_hand_written_backward_passes_gradcheck(kind: str) -> None:
    mine, _ = PASSES[kind]
    inputs = _inputs(kind, torch.float64)
    leaves = [t.clone().requires_grad_(not (kind == "embed" and i == 0)) for i, t in enumerate(inputs)]
    assert torch.autograd.gradcheck(lambda *xs: mine(*xs), leaves, eps=1e-6, atol=1e-5)


def test_the_embedding_gives_the_features_a_gradient_when_they_ask_for_one() -> None:
    """Observations take no gradient in training, but a caller (saliency, an attack) may ask for one."""
    inputs = _inputs("embed")
    cells = inputs[0].clone().requires_grad_()
    (grad,) = torch.autograd.grad(embed_cells(cells, *inputs[1:]).sum(), [cells])
    ref_cells = inputs[0].clone().requires_grad_()
    (ref,) = torch.autograd.grad(_plain_embed(ref_cells, *inputs[1:]).sum(), [ref_cells])
    assert torch.equal(grad, ref) and grad.abs().sum() > 0


def test_only_an_in_place_pass_without_gradients_overwrites_its_input() -> None:
    x, per_land = _inputs("lands")
    kept = x.clone()
    with torch.no_grad():
        add_lands_relu(x, per_land)
        assert torch.equal(x, kept)
        out = add_lands_relu(x, per_land, in_place=True)
    assert out.data_ptr() == x.data_ptr() and not torch.equal(x, kept)
    x = kept.clone().requires_grad_()
    add_lands_relu(x, per_land, in_place=True).sum().backward()  # tracked: never in place
    assert torch.equal(x.detach(), kept)
    inputs = _inputs("embed")
    copies = [t.clone() for t in inputs]
    with torch.inference_mode():
        embed_cells(*inputs)
        attention_pool(*_inputs("pool"))
    assert all(torch.equal(a, b) for a, b in zip(inputs, copies, strict=True))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("radii", [(1, 2), (2, 4)])
def test_the_grid_round_trip_is_a_gather_both_ways(radii: tuple[int, int], dtype: torch.dtype) -> None:
    """Cells to the dense axial grid (zeros where no cell is) and back, and the gradients of both: exact."""
    geometry = build_geometry(*radii)
    t = grid_tables(geometry)
    s, c = geometry.grid_size, geometry.num_cells
    x = torch.randn(3, c, 4).to(dtype).requires_grad_()
    grid = to_grid(x, t)
    expected = torch.zeros(3, s * s, 4, dtype=dtype)
    expected[:, t["cell_grid"]] = x.detach()
    assert torch.equal(grid.detach(), expected)
    with torch.no_grad():
        assert torch.equal(to_grid(x, t), expected)
    y = torch.randn(3, s * s, 4).to(dtype).requires_grad_()
    back = from_grid(y, t)
    assert torch.equal(back.detach(), y.detach()[:, t["cell_grid"]])
    upstream = torch.randn(3, c, 4).to(dtype)
    (g_y,) = torch.autograd.grad(back, [y], upstream)
    ref = torch.zeros(3, s * s, 4, dtype=dtype)
    ref[:, t["cell_grid"]] = upstream
    assert torch.equal(g_y, ref)
    (g_x,) = torch.autograd.grad(grid, [x], ref)
    assert torch.equal(g_x, upstream)


def test_the_grid_converts_float32_cells_to_the_convolutions_dtype_in_its_one_copy() -> None:
    """``run.conv_precision: bfloat16``: the cells go to the grid in bfloat16, their gradient comes back float32."""
    t = grid_tables(build_geometry(1, 2))
    x = torch.randn(2, 133, 4, requires_grad=True)
    grid = to_grid(x, t, torch.bfloat16)
    assert grid.dtype == torch.bfloat16
    with torch.no_grad():
        assert torch.equal(grid, to_grid(x.to(torch.bfloat16), t))
        assert torch.equal(to_grid(x, t, torch.bfloat16), grid)
    upstream = torch.randn(grid.shape).to(torch.bfloat16)
    (g_x,) = torch.autograd.grad(grid, [x], upstream)
    assert g_x.dtype == torch.float32 and torch.equal(g_x, upstream[:, t["cell_grid"]].float())


@pytest.mark.parametrize("kind", list(PASSES))
def test_under_autocast_a_pass_is_its_plain_expression(kind: str) -> None:
    """``run.amp``: autocast mixes bfloat16 and float32, so the passes leave the backward to autograd."""
    mine, plain = PASSES[kind]
    inputs = _inputs(kind)
    results = []
    for fn in (mine, plain):
        leaves = [t.clone().requires_grad_(not (kind == "embed" and i == 0)) for i, t in enumerate(inputs)]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = fn(*leaves)
        grads = torch.autograd.grad(out.float().square().sum(), [t for t in leaves if t.requires_grad])
        results.append((out.detach(), grads))
    (out, grads), (ref_out, ref_grads) = results
    assert out.dtype == ref_out.dtype and torch.equal(out, ref_out)
    assert all(torch.equal(a, b) for a, b in zip(grads, ref_grads, strict=True))
