"""Frontera's PPO update on a CPU runs in cache-sized chunks (docs/FRONTERA.md, "Training speed")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from frontera_env.map_file import reference_map  # noqa: E402
from frontera_env.observation import GLOBALS  # noqa: E402
from policies.frontera.inputs import MapGraph  # noqa: E402
from policies.frontera.network import CPU_CHUNK_TERRITORIES, FronteraGraphNet  # noqa: E402
from training.ppo.game_setup import update_chunk_rows  # noqa: E402


@pytest.fixture(scope="module")
def medium() -> FronteraGraphNet:
    torch.manual_seed(0)
    return FronteraGraphNet(MapGraph.of_map(reference_map("medium")), channels=8, land_layers=2, head_hidden=8)


def test_the_update_s_chunks_hold_about_2000_territories_on_a_cpu_only(medium: FronteraGraphNet) -> None:
    assert update_chunk_rows(medium, torch.device("cpu"), 1 << 30) == CPU_CHUNK_TERRITORIES // 55 == 37
    assert update_chunk_rows(medium, torch.device("cuda"), 1 << 30) == 1 << 30  # a GPU takes the whole minibatch
    assert update_chunk_rows(torch.nn.Linear(2, 2), torch.device("cpu"), 28) == 28  # a network without its own


def test_chunked_backward_passes_add_up_to_the_one_pass_gradient(medium: FronteraGraphNet) -> None:
    """No term of the network mixes rows, so the chunks' gradients sum to the minibatch's (to rounding)."""
    obs = torch.randint(0, 30, (20, medium.n * medium.row + GLOBALS), dtype=torch.int8)

    def grads(rows: int) -> list[torch.Tensor]:
        medium.zero_grad()
        for s in range(0, len(obs), rows):
            logits, value = medium(obs[s : s + rows])
            (logits.square().sum() / len(obs) + value.sum()).backward()
        return [p.grad.clone() for p in medium.parameters() if p.grad is not None]

    whole, chunked = grads(len(obs)), grads(medium.cpu_chunk_rows() // 5)
    assert len(whole) == len(list(medium.parameters()))
    for a, b in zip(whole, chunked, strict=True):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)


def _heads_on_the_concatenation(net: FronteraGraphNet, h: torch.Tensor, pooled: torch.Tensor) -> torch.Tensor:
    """The territory and edge heads as written before their first layers were split: on concatenated inputs."""
    graph = net._graph()
    b, n = h.shape[0], h.shape[1]
    per_t = net.territory_head(torch.cat([h, net.pool_to_territory(pooled)[:, None].expand(-1, n, -1)], -1))
    hs, hd = h.index_select(1, graph["src"]), h.index_select(1, graph["dst"])
    per_e = net.edge_head(torch.cat([hs, hd, graph["sea"][None, :, None].expand(b, -1, 1)], -1))
    return torch.cat([per_t.reshape(b, -1), per_e.reshape(b, -1)], 1)


@pytest.mark.parametrize("size", ["small", "large"])
def test_the_split_first_layers_give_the_concatenation_s_logits_and_gradients(size: str) -> None:
    """Territory and edge heads run their first layer per territory and gather it (docs/FRONTERA.md)."""
    torch.manual_seed(1)
    net = FronteraGraphNet(MapGraph.of_map(reference_map(size)), channels=8, land_layers=1, head_hidden=6)
    for p in net.parameters():  # the zero-initialised value layer and biases would hide a missing term
        torch.nn.init.normal_(p)
    h = torch.randn(3, net.n, 8, requires_grad=True)
    pooled = torch.randn(3, 24, requires_grad=True)
    b = h.shape[0]

    def run(split: bool) -> tuple[torch.Tensor, list[torch.Tensor]]:
        net.zero_grad()
        h.grad = pooled.grad = None
        if split:
            out = torch.cat(
                [net._territory_logits(h, pooled).reshape(b, -1), net._edge_logits(h, net._graph()).reshape(b, -1)], 1
            )
        else:
            out = _heads_on_the_concatenation(net, h, pooled)
        (out * torch.linspace(-1, 1, out.shape[1])).square().sum().backward()
        grads = [h.grad, pooled.grad] + [p.grad for p in net.parameters() if p.grad is not None]
        return out.detach(), [g.clone() for g in grads]

    (split, split_grads), (whole, whole_grads) = run(True), run(False)
    assert split.shape == (b, net.n * 7 + net.edges * 2)
    torch.testing.assert_close(split, whole, rtol=1e-5, atol=1e-5)
    assert len(split_grads) == len(whole_grads) > 2
    for a, c in zip(split_grads, whole_grads, strict=True):
        torch.testing.assert_close(a, c, rtol=1e-4, atol=1e-4)
