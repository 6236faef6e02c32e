"""The graph network's neighbour max (policies/frontera/neighbour_max.py) gives scatter_reduce's numbers, bit for bit.

The padded gather replaced ``scatter_reduce(..., "amax", include_self=False)`` for speed (docs/FRONTERA.md,
"Training speed"); a run trained before the change must continue with the same numbers, so forward values and
every gradient are compared with ``torch.equal``, ties included (ReLU zeros and repeated values).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from frontera_env.map_file import reference_map  # noqa: E402
from frontera_env.observation import GLOBALS  # noqa: E402
from policies.frontera import network  # noqa: E402
from policies.frontera.inputs import MapGraph  # noqa: E402
from policies.frontera.neighbour_max import incoming_table, neighbour_max  # noqa: E402
from tests.frontera_helpers import make_map  # noqa: E402


def scatter_max(msg: torch.Tensor, dst: torch.Tensor, n: int) -> torch.Tensor:
    """Return the max over incoming edges as the network computed it before the padded gather."""
    b, _, c = msg.shape
    zeros = torch.zeros(b, n, c, dtype=msg.dtype)
    return zeros.scatter_reduce(1, dst.view(1, -1, 1).expand(b, -1, c), msg, reduce="amax", include_self=False)


def tied_messages(edges: int, seed: int) -> torch.Tensor:
    """Return [16, E, 8] messages with many exact ties: ReLU zeros and values drawn from a handful."""
    g = torch.Generator().manual_seed(seed)
    return torch.relu(torch.randint(-2, 3, (16, edges, 8), generator=g).float() * 0.5)


def both_ways(msg: torch.Tensor, dst: torch.Tensor, n: int) -> tuple[torch.Tensor, ...]:
    table, isolated = incoming_table(dst.numpy(), n)
    lone = torch.tensor(isolated) if isolated.any() else None
    weight = torch.randn(msg.shape[0], n, msg.shape[2], generator=torch.Generator().manual_seed(1))
    out = []
    for f in (lambda m: scatter_max(m, dst, n), lambda m: neighbour_max(m, torch.tensor(table), dst, lone)):
        m = msg.clone().requires_grad_()
        top = f(m)
        (top * weight).sum().backward()
        assert m.grad is not None
        out += [top.detach(), m.grad]
    return tuple(out)


def test_neighbour_max_matches_scatter_reduce_bit_for_bit_with_ties_on_the_medium_map() -> None:
    graph = MapGraph.of_map(reference_map("medium"))
    dst = torch.tensor(graph.edge_index[1])
    msg = tied_messages(len(dst), 3)
    old_top, old_grad, new_top, new_grad = both_ways(msg, dst, graph.n)
    assert torch.equal(new_top, old_top) and torch.equal(new_grad, old_grad)
    # the check can fail: ties share a gradient (a third of the tied edges' share), zeros count the output once
    shares = old_grad[old_grad != 0].abs().unique()
    assert len(shares) > 10 and (old_top == 0).any()


def test_neighbour_max_gives_0_to_a_territory_without_neighbours() -> None:
    board = make_map([[0, 1, 2], [3]], [(0, 1), (1, 2)])  # territory 3 touches nothing
    graph = MapGraph.of_map(board)
    dst = torch.tensor(graph.edge_index[1])
    old_top, old_grad, new_top, new_grad = both_ways(tied_messages(len(dst), 4) - 1.0, dst, graph.n)
    assert torch.equal(new_top, old_top) and torch.equal(new_grad, old_grad)
    assert torch.equal(new_top[:, 3], torch.zeros(16, 8)) and (new_top[:, :3] < 0).any()  # negative maxima stay


def test_incoming_table_lists_each_territory_s_edges_in_edge_order_padded_with_the_first() -> None:
    table, isolated = incoming_table(np.array([2, 0, 2, 1, 2]), 4)
    assert table.tolist() == [[1, 1, 1], [3, 3, 3], [0, 2, 4], [0, 0, 0]]
    assert isolated.tolist() == [False, False, False, True]


def old_message_forward(self: network.MessageLayer, h: torch.Tensor, graph: dict[str, torch.Tensor]) -> torch.Tensor:
    """The message round as it was before the padded gather (the reference of the whole-network check)."""
    src, dst, region = graph["src"], graph["dst"], graph["region"]
    b, n, c = h.shape
    msg = h.index_select(1, src)
    mean = torch.zeros_like(h).index_add_(1, dst, msg) * graph["inv_degree"][None, :, None]
    top = scatter_max(msg, dst, n)
    k = graph["region_size"].shape[0]
    regional = torch.zeros(b, k, c, dtype=h.dtype).index_add_(1, region, h)
    regional = (regional / graph["region_size"][None, :, None]).index_select(1, region)
    return h + torch.relu(self.mix(torch.cat([h, mean, top, regional], -1)))


def test_the_graph_network_s_logits_values_and_gradients_are_unchanged_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    graph = MapGraph.of_map(reference_map("small"))
    torch.manual_seed(0)
    net = network.FronteraGraphNet(graph, channels=8, land_layers=2, head_hidden=8)
    obs = torch.randint(0, 30, (12, graph.n * graph.row + GLOBALS), dtype=torch.int8)
    runs = []
    for old in (False, True):
        if old:
            monkeypatch.setattr(network.MessageLayer, "forward", old_message_forward)
        net.zero_grad()
        logits, value = net(obs)
        (logits.square().mean() + value.sum()).backward()
        runs.append([logits, value] + [p.grad.clone() for p in net.parameters() if p.grad is not None])
    assert len(runs[0]) == len(list(net.parameters())) + 2
    assert all(torch.equal(a, b) for a, b in zip(runs[0], runs[1], strict=True))
