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
