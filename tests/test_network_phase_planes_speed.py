"""The heads' phase planes from the scored cells alone (policies/domain_wheel/network.py ``candidate_planes`` and
``scored_picks``): the same numbers, bit for bit, as the pass over every cell's planes that they replace (issue
50 item 3: that pass was the largest part of the heads' cost on a standard-map update chunk)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dw_env.envs.vector import DomainWheelVectorEnv  # noqa: E402
from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies.domain_wheel.network import HexPolicyNet, trunk_rows  # noqa: E402

STANDARD = GameOptions(max_rounds=60)


@pytest.fixture(scope="module")
def planes() -> tuple[HexPolicyNet, torch.Tensor]:
    """A standard-map network and the phase planes of 48 random games' observations, phase 1 and phase 2."""
    torch.manual_seed(0)
    geometry = build_geometry(STANDARD.land_radius, STANDARD.map_radius)
    net = HexPolicyNet(geometry, channels=8, cell_layers=1, land_layers=1, head_hidden=8, turn_trunk=1)
    env = DomainWheelVectorEnv(24, STANDARD, seed=4)
    obs, _, _ = env.reset(seed=4)
    frames = [obs.copy()]
    for _ in range(9):
        obs, *_ = env.step(env.sample_actions())
        frames.append(obs.copy())
    cells, _ = net.phase_inputs(torch.from_numpy(np.concatenate(frames[-2:])))  # a piece's choice and its move
    return net, cells


def scored(net: HexPolicyNet, cells: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Return the scored cells (rows, observation cells, land-major rows), as the heads find them."""
    rows, where = (cells.amax(-1) > 0).nonzero(as_tuple=True)
    return rows, where, net.cell_row[where]


def test_rule_3_2_candidate_planes_give_the_dense_planes_bit_for_bit(planes) -> None:  # type: ignore[no-untyped-def]
    """Each land's share of every phase plane, the selected piece's land and the selected cells, as the dense
    pass over every cell's planes gives them (rule 3.2: phase 2 has one selected piece, phase 1 none)."""
    net, cells = planes
    b, n = cells.shape[0], net.geometry.num_lands
    rows, where, at = scored(net, cells)
    share, land, (sel_rows, sel_cells, values) = net.candidate_planes(cells[rows, where], rows, at, b, n)
    chosen, dense_share = net.phase_planes(cells, n)
    assert torch.equal(share, dense_share)
    assert torch.equal(land, chosen.view(b, n, -1).sum(2) > 0)
    dense_rows, dense_cells = chosen.nonzero(as_tuple=True)
    assert torch.equal(sel_rows, dense_rows) and torch.equal(sel_cells, dense_cells)
    assert torch.equal(values, chosen[dense_rows, dense_cells])
    assert 0 < len(dense_rows) < b and len(dense_rows) == len(set(dense_rows.tolist()))  # both phases, one a row


@pytest.mark.parametrize("shared", [False, True], ids=["own trunk", "a turn's shared trunk"])
def test_scored_picks_give_scored_cells_features_and_gradient_bit_for_bit(planes, shared: bool) -> None:  # type: ignore[no-untyped-def]
    net, cells = planes
    b, n, c = cells.shape[0], net.geometry.num_lands, net.geometry.num_cells
    rows, where, at = scored(net, cells)
    member = torch.arange(b) // 2 if shared else None
    source = trunk_rows(rows, member)
    _, _, picks = net.candidate_planes(cells[rows, where], rows, at, b, n)
    chosen, _ = net.phase_planes(cells, n)
    torch.manual_seed(1)
    trunk = torch.randn(b // 2 if shared else b, c, 8)
    weights = torch.randn(len(rows), 8), torch.randn(b, 8)

    def run(sparse: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x = trunk.clone().requires_grad_(True)
        if sparse:
            mine, selected = net.scored_picks(x, picks, member, source, at, b)
        else:
            mine, selected = net.scored_cells(x, chosen, member, source, at)
        ((mine * weights[0]).sum() + (selected * weights[1]).sum()).backward()
        assert x.grad is not None
        return mine.detach(), selected.detach(), x.grad

    for new, old in zip(run(True), run(False), strict=True):
        assert torch.equal(new, old)
