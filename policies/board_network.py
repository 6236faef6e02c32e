"""The policy/value network of the board games (Alveole, Conquer): a residual convolution tower over the grid.

Every such game encodes its position the same way (the contract each engine's ``encoding.py`` follows): the
board embedded in an ``H x W`` grid, ``C`` int8 planes in the acting player's frame (its own pieces first, the
opponent's second, an "on board" plane of ones last), and actions laid out as ``K`` planes over the same grid
(action ``a < K*H*W`` is plane ``a // (H*W)`` at cell ``a % (H*W)``) plus ``E`` extra actions (a pass).

So one shape plays them all:

* a 3x3 stem convolution to ``channels`` feature planes, then ``cell_layers`` residual blocks of two 3x3
  convolutions (a 3x3 kernel covers the six hex neighbours of an axial grid, and the eight of a square one);
  the "on board" plane is multiplied back after every block, so the grid's padding around a hex board never
  leaks in as board;
* the **policy**: a 1x1 convolution to ``K`` logit planes, flattened plane-major (one logit per action of the
  grid), and ``E`` extra logits from the pooled features;
* the **value**: the mean and max of the features over the board's cells, a hidden layer, one number.

No weight depends on ``H`` or ``W`` (convolutions and pooling only), so the same weights run on any grid size
of a game (Conquer's 9x9 and 15x15): :meth:`BoardPolicyNet.set_grid` changes the shape the observations are
read with. Output: ``(logits [B, K*H*W + E], value [B])``; the caller masks illegal actions.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class ResidualBlock(nn.Module):
    """Two 3x3 convolutions with a skip connection, the board mask re-applied."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: Tensor, board: Tensor) -> Tensor:
        y = F.relu(self.conv1(x))
        return F.relu(x + self.conv2(y)) * board


class BoardPolicyNet(nn.Module):
    """Policy over ``K*H*W + E`` actions and a value for a board game's planes ``(C, H, W)``."""

    def __init__(
        self,
        planes: tuple[int, int, int],
        action_planes: int,
        extra_actions: int,
        channels: int = 32,
        cell_layers: int = 4,
        land_layers: int = 0,
        head_hidden: int = 64,
        observation_version: str = "",
    ) -> None:
        super().__init__()
        c, h, w = planes
        # the size keys of every network of the project (policies/checkpoint.py); a board has no lands
        self.hparams = {
            "channels": channels,
            "cell_layers": cell_layers,
            "land_layers": land_layers,
            "head_hidden": head_hidden,
        }
        self.observation_version = observation_version
        self.in_planes, self.action_planes, self.extra_actions = c, action_planes, extra_actions
        self.stem = nn.Conv2d(c, channels, 3, padding=1)
        self.blocks = nn.ModuleList(ResidualBlock(channels) for _ in range(cell_layers))
        self.policy = nn.Conv2d(channels, action_planes, 1)
        self.extra = (
            nn.Sequential(nn.Linear(2 * channels, head_hidden), nn.ReLU(), nn.Linear(head_hidden, extra_actions))
            if extra_actions
            else None
        )
        self.value_head = nn.Sequential(nn.Linear(2 * channels, head_hidden), nn.ReLU(), nn.Linear(head_hidden, 1))
        nn.init.zeros_(self.value_head[-1].weight)
        self.set_grid(h, w)

    def set_grid(self, height: int, width: int) -> None:
        """Read observations as ``height x width`` grids (the weights stay)."""
        self.height, self.width = int(height), int(width)

    @property
    def num_actions(self) -> int:
        return self.action_planes * self.height * self.width + self.extra_actions

    def forward(self, obs: Tensor) -> tuple[Tensor, Tensor]:
        """Return (logits [B, A], value [B]) of flat observations [B, C*H*W] (int8 or float)."""
        b, c, h, w = obs.shape[0], self.in_planes, self.height, self.width
        if obs.shape[1] != c * h * w:
            raise ValueError(f"observation size {obs.shape[1]} does not fit this network's grid ({c} x {h} x {w})")
        x = obs.reshape(b, c, h, w).float()
        board = x[:, -1:]  # the "on board" plane
        x = F.relu(self.stem(x)) * board
        for block in self.blocks:
            x = block(x, board)
        cells = board.sum((2, 3)).clamp_min(1.0)  # [B, 1]
        mean = x.sum((2, 3)) / cells
        peak = (x - (1.0 - board) * 1e4).amax((2, 3))
        summary = torch.cat([mean, peak], 1)
        grid_logits = self.policy(x).reshape(b, -1)
        logits = grid_logits if self.extra is None else torch.cat([grid_logits, self.extra(summary)], 1)
        return logits.float(), self.value_head(summary).squeeze(1).float()
