"""The ML-Agents / Sentis flavour of an exported graph (``dw export --flavour ml-agents``).

Game engines that run Unity ML-Agents models (through Sentis, formerly Barracuda) load a graph by tensor
names, following ML-Agents' own exporter (``mlagents/trainers/torch_entities/model_serialization.py``, model
API version 3, "MLAgents2_0"):

==================================  ===============  ===========================================================
``obs_0``                           float32 [B, D]   the observation (the same values as the int8 one)
``action_masks``                    float32 [B, A]   1 = allowed, 0 = masked
``version_number``                  float32 [1]      3 (constant)
``memory_size``                     float32 [1]      0 (constant: no recurrent memory)
``discrete_actions``                int64 [B, 1]     an action sampled from the masked policy (one branch)
``discrete_action_output_shape``    float32 [1, 1]   A, the size of the one action branch (constant)
``deterministic_discrete_actions``  int64 [B, 1]     the greedy action (argmax)
==================================  ===============  ===========================================================

Masked actions get the finite logit :data:`MASK_PENALTY` (like ML-Agents' ``1e8`` penalty), so an all-zero
mask gives action 0, never NaN. Sampling is Gumbel-max over the masked logits with ``RandomUniformLike``
(a standard ONNX operator). The graph is written at opset :data:`OPSET` with the TorchScript exporter,
as ML-Agents does, so that Sentis versions before 2.6 (opsets 7-15) import it; the constants are
``Constant`` nodes feeding the outputs, which is where the loader reads them.
"""

from __future__ import annotations

from typing import Any, Final

#: the ML-Agents model API version (ModelApiVersion.MLAgents2_0)
MODEL_API_VERSION: Final = 3
MASK_PENALTY: Final = -1e8
#: opset 15, the newest that Sentis before 2.6 imports (2.6 reads up to 25); ML-Agents' own exporter uses the
#: TorchScript exporter too, which writes it natively
OPSET: Final = 15
EXPORTER: Final = "torch.onnx.export(dynamo=False) (TorchScript exporter, opset 15, for Sentis)"
INPUTS: Final = ("obs_0", "action_masks")
OUTPUTS: Final = (
    "version_number",
    "memory_size",
    "discrete_actions",
    "discrete_action_output_shape",
    "deterministic_discrete_actions",
)
BATCH_OUTPUTS: Final = ("discrete_actions", "deterministic_discrete_actions")


def module(net: Any, num_actions: int) -> Any:
    """Return the torch module: (float observation, float mask) -> the ML-Agents outputs above."""
    import torch

    class MLAgentsGraph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.register_buffer("version_number", torch.tensor([float(MODEL_API_VERSION)]))
            self.register_buffer("memory_size", torch.tensor([0.0]))
            self.register_buffer("discrete_action_output_shape", torch.tensor([[float(num_actions)]]))

        def forward(self, obs_0: torch.Tensor, action_masks: torch.Tensor) -> tuple[torch.Tensor, ...]:
            logits, _ = self.net(obs_0)
            masked = torch.where(action_masks > 0.5, logits, torch.full_like(logits, MASK_PENALTY))
            u = torch.rand_like(masked).clamp(1e-9, 1.0 - 1e-7)
            sampled = (masked - torch.log(-torch.log(u))).argmax(-1, keepdim=True)
            constants: dict[str, torch.Tensor] = dict(self.named_buffers())
            return (
                constants["version_number"],
                constants["memory_size"],
                sampled,
                constants["discrete_action_output_shape"],
                masked.argmax(-1, keepdim=True),
            )

    return MLAgentsGraph().eval()


def tensors(d: int, a: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str | None]]:
    """Return the flavour's (inputs, outputs, roles) manifest entries for observation size d and a actions."""
    inputs: list[dict[str, Any]] = [
        {"name": "obs_0", "dtype": "float32", "shape": ["batch", d]},
        {"name": "action_masks", "dtype": "float32", "shape": ["batch", a]},
    ]
    outputs: list[dict[str, Any]] = [
        {"name": "version_number", "dtype": "float32", "shape": [1]},
        {"name": "memory_size", "dtype": "float32", "shape": [1]},
        {"name": "discrete_actions", "dtype": "int64", "shape": ["batch", 1]},
        {"name": "discrete_action_output_shape", "dtype": "float32", "shape": [1, 1]},
        {"name": "deterministic_discrete_actions", "dtype": "int64", "shape": ["batch", 1]},
    ]
    roles: dict[str, str | None] = {
        "observation": "obs_0",
        "mask": "action_masks",
        "logits": None,
        "action": "deterministic_discrete_actions",
    }
    return inputs, outputs, roles
