"""The policy/value network: a hex convolution over the axial grid, then message passing between lands.

Why this shape. The board is a hex map of lands, and the rules are mostly about lands: a conquest or a
liberation counts the pieces *in a land* (rules 6.1, 7.1), points and territory are per land, and a plan is
"take that land". What happens cell by cell is local: a step, a jump over an own knight, who stands next to a
throne. So the network works at two scales, and spends its depth where it is cheap:

* **cells** (``C`` of them): each cell's features plus its land's and the global features are embedded, then
  ``cell_layers`` hex convolutions add local context. A hex convolution is a 3x3 convolution over the dense
  axial grid (cell ``(q, r)`` at column ``q``, row ``r``) whose two corners that are not hex neighbours are
  masked to zero::

        row r-1:    .    (0,-1) (+1,-1)          kernel mask   0 1 1
        row r  :  (-1,0)  (0,0)  (+1,0)                        1 1 1
        row r+1: (-1,+1) (0,+1)    .                           1 1 0

* **lands** (``L``, 7-19x fewer): each land's cells are averaged into a land token, and ``land_layers``
  rounds of message passing mix every land with its neighbouring lands and a global summary; the result
  goes back to every cell of the land. Long-range plans (a chain of lands to the centre) travel here.
* **global**: a learned attention pool over the cells (it lets phase 2 find the selected piece wherever it
  is), the mean of the lands and the global features feed the pass/end-request logits and the value.

The convolutions run on the dense grid, which is what CPUs and GPUs convolve fastest (channels-last);
everything else runs on the ``C`` cells or ``L`` lands only. Every weight acts per cell, per land or per
feature, never per position, so the same weights run on any map size: the map only fixes the index tables
built from the :class:`dw_env.geometry.Geometry` (:meth:`HexPolicyNet.set_geometry`).

Output: one logit per cell (phase 1: which piece; phase 2: which destination), then the pass and
end-request logits, and the value. The caller masks illegal actions.

**One trunk per turn** (``turn_trunk=1``: ``network.turn_trunk: true``, the training config's default for
Domain Wheel; ``turn_trunk=0``, this class's default, is the network of the shipped agents; docs/TRAINING.md).
A turn is two decisions (rule 3.2: choose a piece, then its destination) whose observations differ only in the
*phase inputs*: the ``selected``, ``dest_*`` and ``movable`` cell planes and the ``phase`` and
``end_request_legal`` globals. With ``turn_trunk`` the trunk (:meth:`HexPolicyNet.trunk`: the cell
embedding, the hex convolutions, the land tokens and the attention pool) reads everything else, so both
decisions of a turn have the same trunk, bit for bit, and a trainer computes it once for the two
(:class:`TrunkCache` while playing, training/ppo/ppo.py ``turn_groups`` in the update). The heads
(:meth:`HexPolicyNet.heads`) take the phase inputs: the land layers run there (on the land tokens, cheap),
with each land's share of every phase plane; the phase globals and the selected piece's features join the
global features of the value and of the pass/end-request logits; and the cell head scores only the cells that
have a phase plane set (every legal cell is one: a movable piece in phase 1, a destination in phase 2).
Files written before this option (``turn_trunk=0``) read every input in the trunk, as before.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from numpy.typing import NDArray
from torch import Tensor, nn

from dw_env.envs.observation import CELL_FEATURES, GLOBAL_FEATURES, LAND_FEATURES, OBSERVATION_VERSION
from dw_env.geometry import Geometry
from policies.domain_wheel.cell_passes import (
    add_lands_relu,
    attention_pool,
    embed_cells,
    exporting,
    from_grid,
    may_overwrite,
    to_grid,
)
from policies.traced_forward import traced_forward, traced_turn

#: the cell planes and global features that change between the two decisions of one turn (rule 3.2)
PHASE_CELL_FEATURES = ("selected", *(f for f in CELL_FEATURES if f.startswith("dest_")), "movable")
PHASE_GLOBAL_FEATURES = ("phase", "end_request_legal")


def _split_names(names: tuple[str, ...], phase: tuple[str, ...]) -> tuple[list[int], list[int]]:
    """Return (indices of the turn-invariant features, indices of the phase features) of ``names``."""
    missing = [f for f in phase if f not in names]
    if missing:
        raise ValueError(f"the observation lacks the phase features {missing}")
    return [i for i, f in enumerate(names) if f not in phase], [names.index(f) for f in phase]


CELL_FIXED, CELL_PHASE = _split_names(CELL_FEATURES, PHASE_CELL_FEATURES)
GLOBAL_FIXED, GLOBAL_PHASE = _split_names(GLOBAL_FEATURES, PHASE_GLOBAL_FEATURES)
if list(range(CELL_PHASE[0], CELL_PHASE[-1] + 1)) != CELL_PHASE or list(range(CELL_PHASE[0])) != CELL_FIXED:
    raise ImportError("the network slices the cell planes: the phase planes must come last, in one block")


def same_turn_inputs(a: NDArray[np.int8], b: NDArray[np.int8], num_cells: int) -> NDArray[np.bool_]:
    """Return, row by row, whether flat observations ``a`` and ``b`` [B, D] agree on every turn-fixed input.

    Those are what a ``turn_trunk`` trunk reads: every input but the phase planes and the phase globals. The
    rows are compared byte for byte in one pass, the phase inputs' bytes masked out (:func:`turn_fixed_bytes`).
    """
    differ = np.bitwise_xor(a.view(np.uint8), b.view(np.uint8))
    differ &= turn_fixed_bytes(num_cells, a.shape[1])
    return np.asarray(~differ.any(1))


@functools.lru_cache(maxsize=16)
def turn_fixed_bytes(num_cells: int, width: int) -> NDArray[np.uint8]:
    """Return a byte mask of flat observations of ``width`` on a map of ``num_cells`` cells: 0xFF at every
    turn-fixed input, 0 at the phase inputs (:data:`CELL_PHASE` of each cell, :data:`GLOBAL_PHASE`). Read-only."""
    fc, fg = len(CELL_FEATURES), len(GLOBAL_FEATURES)
    keep = np.full(width, 0xFF, dtype=np.uint8)
    keep[: num_cells * fc].reshape(num_cells, fc)[:, CELL_PHASE] = 0
    keep[width - fg + np.asarray(GLOBAL_PHASE)] = 0
    keep.flags.writeable = False
    return keep


class Trunk(NamedTuple):
    """What the trunk computes once per turn: cells [B, C, h] (land-major), lands [B, L, h], global [B, h] and the
    attention pool [B, h]. ``lands``: after the land layers (``turn_trunk=0``), or the land tokens before them
    (``turn_trunk=1``: the land layers run in the heads)."""

    cells: Tensor
    lands: Tensor
    glob: Tensor
    pool: Tensor  # [B, h]: the attention pool over the cells

    def take(self, rows: Tensor) -> Trunk:
        """Return the trunk of the observations ``rows`` (an index into this batch; gradients flow back)."""
        return Trunk(*(part.index_select(0, rows) for part in self))


#: divisor of each observation feature (by name) so that inputs are about 0..1; unnamed features use 1
FEATURE_SCALE: dict[str, float] = {
    "points": 13.0,
    "ring": 5.0,
    **{f"hold_{r}": 8.0 for r in ("me", "next", "after")},
    **{f"lib_{r}": 2.0 for r in ("me", "next", "after")},
    **{f"distance_{r}": 10.0 for r in ("me", "next", "after")},
    **{f"score_{r}_lo": 100.0 for r in ("me", "next", "after")},
    "end_request_points": 100.0,
    "centre_min_points": 100.0,
    "turns_to_conquer": 8.0,
    "round_lo": 100.0,
    "rounds_left_lo": 100.0,
    "countdown_left": 10.0,
}


def _scales(names: tuple[str, ...]) -> Tensor:
    return torch.tensor([1.0 / FEATURE_SCALE.get(name, 1.0) for name in names], dtype=torch.float32)


def grid_tables(geometry: Geometry) -> dict[str, Tensor]:
    """Return the index tables that move features between cells, lands and the dense axial grid.

    Inside the network the cells are held *land-major*: land ``l``'s cells are rows ``l * k .. l * k + k - 1``
    (``k`` cells per land), in :attr:`Geometry.land_cells` order, so a land's cells are a view (pooling is a
    mean over a reshaped axis, a land's value reaches its cells by broadcasting) and no per-cell gather runs
    between the scales. With ``S`` the grid side, ``C`` cells and ``L`` lands (index ``L`` doubles as a
    padding land):

    * ``land_cells`` [C]: the observation's cell index of each land-major row (input order);
    * ``cell_row`` [C]: the land-major row of each observation cell (output order, the inverse);
    * ``cell_grid`` [C]: flat grid index ``(r - r_min) * S + (q - q_min)`` of each land-major row;
    * ``grid_cell`` [S * S]: the land-major row of each grid position's cell, ``C`` where no cell is (the
      inverse of ``cell_grid``);
    * ``land_neighbors`` [L * 6]: the neighbouring lands of each land, ``L`` off the map;
    * ``neighbor_count`` [L, 1]: how many neighbouring lands each land has.
    """
    s, n = geometry.grid_size, geometry.num_lands
    q0, r0 = int(geometry.cell_grid[0]), int(geometry.cell_grid[1])
    land_cells = geometry.land_cells.reshape(-1).astype(np.int64)
    if sorted(land_cells.tolist()) != list(range(geometry.num_cells)):
        raise ValueError("the lands' cells must partition the map's cells")
    cell_row = np.empty_like(land_cells)
    cell_row[land_cells] = np.arange(len(land_cells))
    cell_grid = ((geometry.cell_r - r0) * s + (geometry.cell_q - q0))[land_cells]
    grid_cell = np.full(s * s, len(land_cells), dtype=np.int64)
    grid_cell[cell_grid] = np.arange(len(land_cells))
    neighbors = np.where(geometry.land_neighbors < 0, n, geometry.land_neighbors)
    return {
        "land_cells": torch.from_numpy(land_cells),
        "cell_row": torch.from_numpy(cell_row),
        "cell_grid": torch.from_numpy(cell_grid.astype(np.int64)),
        "grid_cell": torch.from_numpy(grid_cell),
        "land_neighbors": torch.from_numpy(neighbors.reshape(-1).astype(np.int64)),
        "neighbor_count": torch.as_tensor((geometry.land_neighbors >= 0).sum(1, keepdims=True), dtype=torch.float32),
    }


TABLES = ("land_cells", "cell_row", "cell_grid", "grid_cell", "land_neighbors", "neighbor_count")


class HexConv(nn.Module):
    """A 3x3 convolution over the axial grid restricted to a cell and its six hex neighbours."""

    def __init__(self, channels_in: int, channels_out: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(channels_out, channels_in, 3, 3))
        self.bias = nn.Parameter(torch.zeros(channels_out))
        nn.init.kaiming_uniform_(self.weight, a=5**0.5)
        mask = torch.ones(1, 1, 3, 3)
        mask[0, 0, 0, 0] = 0.0  # (dq, dr) = (-1, -1): not a neighbour
        mask[0, 0, 2, 2] = 0.0  # (dq, dr) = (+1, +1): not a neighbour
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x: Tensor) -> Tensor:
        weight, bias = self.weight * self.mask, self.bias
        if weight.dtype != x.dtype and not torch.is_autocast_enabled(x.device.type):
            weight, bias = weight.to(x.dtype), bias.to(x.dtype)
        return F.conv2d(x, weight, bias, padding=1)


class CellLayer(nn.Module):
    """A residual hex convolution over the cells: scatter to the grid, convolve, gather back."""

    def __init__(self, h: int) -> None:
        super().__init__()
        self.conv = HexConv(h, h)

    def forward(
        self, x: Tensor, t: dict[str, Tensor], side: int, dtype: torch.dtype | None = None, in_place: bool = False
    ) -> Tensor:
        """``dtype``: the convolution's (None: ``x``'s); the residual stream keeps ``x``'s. ``in_place``: without
        gradients the result may overwrite ``x`` (the caller's own tensor; policies/domain_wheel/cell_passes.py)."""
        b, _, h = x.shape
        grid = to_grid(x, t, dtype)
        y = self.conv(grid.view(b, side, side, h).permute(0, 3, 1, 2))  # channels-last memory in and out
        y = from_grid(y.permute(0, 2, 3, 1).reshape(b, side * side, h), t)
        if in_place and may_overwrite(x, y):
            return x.add_(y.relu_())  # the same sum: y's bfloat16 values convert to float32 exactly
        return x + F.relu(y).to(x.dtype)


class LandLayer(nn.Module):
    """A residual round of message passing: each land, its neighbouring lands' mean and the lands' mean."""

    def __init__(self, h: int) -> None:
        super().__init__()
        self.mix = nn.Linear(3 * h, h)

    def forward(self, z: Tensor, t: dict[str, Tensor]) -> Tensor:
        b, n, h = z.shape
        nb = F.pad(z, (0, 0, 0, 1)).index_select(1, t["land_neighbors"]).view(b, n, 6, h).sum(2)
        g = z.mean(1, keepdim=True).expand(b, n, h)
        return z + F.relu(self.mix(torch.cat([z, nb / t["neighbor_count"], g], -1)))


class HexPolicyNet(nn.Module):
    """Policy over ``C + 2`` actions (cells, pass, end request) and a value, for one map's geometry."""

    #: the observation layout these weights were made for (dw_env.envs.observation)
    observation_version = OBSERVATION_VERSION

    def __init__(
        self,
        geometry: Geometry,
        channels: int = 24,
        cell_layers: int = 2,
        land_layers: int = 3,
        head_hidden: int = 64,
        turn_trunk: int = 0,
    ) -> None:
        super().__init__()
        if turn_trunk not in (0, 1):
            raise ValueError(f"turn_trunk must be 0 or 1, got {turn_trunk!r}")
        self.hparams = {
            "channels": channels,
            "cell_layers": cell_layers,
            "land_layers": land_layers,
            "head_hidden": head_hidden,
            "turn_trunk": turn_trunk,
        }
        self.turn_trunk = bool(turn_trunk)
        #: the hex convolutions' dtype (None: the input's): a trainer on a CPU with bf16 matrix units sets
        #: torch.bfloat16 (``run.conv_precision``), 3-4x faster convolutions; not a weight, not saved
        self.conv_dtype: torch.dtype | None = None
        h = channels
        cell_names = tuple(CELL_FEATURES[i] for i in CELL_FIXED) if turn_trunk else CELL_FEATURES
        glob_names = tuple(GLOBAL_FEATURES[i] for i in GLOBAL_FIXED) if turn_trunk else GLOBAL_FEATURES
        self.cell_in = nn.Linear(len(cell_names), h)
        self.land_in = nn.Linear(len(LAND_FEATURES), h)
        self.glob_in = nn.Linear(len(glob_names), h)
        cell_scale = _scales(cell_names)
        self.register_buffer("cell_scale", cell_scale, persistent=False)
        self.register_buffer("land_scale", _scales(LAND_FEATURES), persistent=False)
        self.register_buffer("glob_scale", _scales(glob_names), persistent=False)
        self.register_buffer("glob_fixed", torch.tensor(GLOBAL_FIXED), persistent=False)
        self.register_buffer("glob_phase", torch.tensor(GLOBAL_PHASE), persistent=False)
        self._unit_cell_scale = bool((cell_scale == 1).all())
        self.cell_layers = nn.ModuleList(CellLayer(h) for _ in range(cell_layers))
        self.land_token = nn.Linear(2 * h, h)  # [mean of the land's cells, land features] -> land token
        self.land_layers = nn.ModuleList(LandLayer(h) for _ in range(land_layers))
        self.land_out = nn.Linear(h, h)
        if turn_trunk:  # the phase inputs, added to every cell in the heads
            self.phase_cell = nn.Linear(len(CELL_PHASE), h)
            self.phase_glob = nn.Linear(len(GLOBAL_PHASE), h)
            self.selected_in = nn.Linear(h, h, bias=False)
            self.pair_in = nn.Linear(h + 1, h, bias=False)  # a candidate with the selected piece
            self.phase_land = nn.Linear(len(CELL_PHASE), h, bias=False)  # a land's share of each phase plane
        self.cell_head = nn.Sequential(nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))
        self.attend = nn.Linear(h, 1)
        self.pass_end_head = nn.Sequential(nn.Linear(3 * h, head_hidden), nn.ReLU(), nn.Linear(head_hidden, 2))
        self.value_head = nn.Sequential(nn.Linear(3 * h, head_hidden), nn.ReLU(), nn.Linear(head_hidden, 1))
        nn.init.zeros_(self.pass_end_head[-1].weight)
        nn.init.zeros_(self.value_head[-1].weight)
        self.set_geometry(geometry)

    def set_geometry(self, geometry: Geometry) -> None:
        """Point the network at a map (the weights stay; only the index tables change)."""
        self.geometry = geometry
        device = self.cell_in.weight.device
        for name, table in grid_tables(geometry).items():
            self.register_buffer(name, table.to(device), persistent=False)

    def split(self, obs: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Return scaled float features (cells [B, C, Fc], lands [B, L, Fl], global [B, G]) of observations [B, D].

        The cells come land-major (see :func:`grid_tables`); each block is converted to float on its own,
        the cells (the bulk, all of scale 1) without a multiply. With ``turn_trunk`` only the features the
        trunk reads (not the phase inputs, :meth:`phase_inputs`).
        """
        b, c, n = obs.shape[0], self.geometry.num_cells, self.geometry.num_lands
        fc, fl, fg = len(CELL_FEATURES), len(LAND_FEATURES), len(GLOBAL_FEATURES)
        if obs.shape[1] != c * fc + n * fl + fg:
            raise ValueError(f"observation size {obs.shape[1]} does not fit this network's map ({c} cells, {n} lands)")
        cells = obs[:, : c * fc].reshape(b, c, fc)
        glob = obs[:, c * fc + n * fl :]
        if self.turn_trunk:
            cells, glob = cells[:, :, CELL_FIXED[0] : CELL_FIXED[-1] + 1], glob.index_select(1, self.glob_fixed)
        cells = cells.index_select(1, self.land_cells).float()
        if not self._unit_cell_scale:
            cells = cells * self.cell_scale
        lands = obs[:, c * fc : c * fc + n * fl].reshape(b, n, fl).float() * self.land_scale
        return cells, lands, glob.float() * self.glob_scale

    def phase_inputs(self, obs: Tensor) -> tuple[Tensor, Tensor]:
        """Return the phase inputs of observations [B, D]: cell planes [B, C, 8] (observation order), globals [B, 2]."""
        b, c, n = obs.shape[0], self.geometry.num_cells, self.geometry.num_lands
        fc, fl = len(CELL_FEATURES), len(LAND_FEATURES)
        cells = obs[:, : c * fc].reshape(b, c, fc)[:, :, CELL_PHASE[0] : CELL_PHASE[-1] + 1]
        return cells, obs[:, c * fc + n * fl :].index_select(1, self.glob_phase).float()

    def trunk(self, obs: Tensor) -> Trunk:
        """Return the trunk (:class:`Trunk`) of flat observations [B, D] (int8 or float).

        The cell embedding and hex convolutions, the land tokens and the attention pool; the land layers too
        unless ``turn_trunk`` (then they run in :meth:`heads`).
        """
        cells, lands, glob = self.split(obs)
        t = {name: getattr(self, name) for name in TABLES}
        b, c, n, h = cells.shape[0], cells.shape[1], lands.shape[1], self.cell_in.out_features
        land_h, glob_h = self.land_in(lands), self.glob_in(glob)
        # relu(cell_in(cells) + the land's + the global embedding): a land's cells are a view (cell_passes.py)
        x = embed_cells(cells, self.cell_in.weight, self.cell_in.bias, land_h, glob_h)
        for layer in self.cell_layers:
            x = layer(x, t, self.geometry.grid_size, self.conv_dtype, in_place=True)
        pooled = x.view(b, n, c // n, h).mean(2)
        if self.turn_trunk:  # the land layers run in the heads, with the phase planes (cheap: L lands)
            attended = attention_pool(x, self.attend.weight, self.attend.bias)
            return Trunk(x, self.land_token(torch.cat([pooled, land_h], -1)), glob_h, attended)
        z = F.relu(self.land_token(torch.cat([pooled, land_h], -1)))
        for layer in self.land_layers:
            z = layer(z, t)
        x = add_lands_relu(x, self.land_out(z), in_place=True)  # relu(x + each land's output on its cells)
        attended = attention_pool(x, self.attend.weight, self.attend.bias)  # softmax(attend(x)) over the cells
        return Trunk(x, z, glob_h, attended)

    def heads(self, trunk: Trunk, obs: Tensor, member: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Return (logits [B, C+2], value [B]) from the trunk of observations [B, D] and their phase inputs.

        ``member`` [B]: the row of ``trunk`` that holds each observation's trunk (None: row ``i`` for observation
        ``i``), so that decisions sharing a trunk (a turn's two, ``turn_trunk``) read it without a copy per
        decision: the heads gather the few cells they score, never a whole [B, C, h] trunk.

        The cell head scores only the cells with a phase plane set (the movable pieces, the selected piece and
        its destinations: every legal cell); the other cells' logits are 0, and the caller masks them. With
        ``turn_trunk`` the trunk stops before the land layers: those run here (on ``L`` land tokens, cheap)
        with each land's share of every phase plane, so the lands know where the selected piece and its
        destinations are. A candidate also sees the selected piece: the product of their features and whether
        it lies in the selected piece's land (leaving a land can break its conquest, rule 6.4).
        """
        x, z, glob_h, attended = trunk
        if member is not None:  # the small per-decision parts are copied; the cells are gathered where read
            z, glob_h, attended = (part.index_select(0, member) for part in (z, glob_h, attended))
        cells, glob = self.phase_inputs(obs)
        b, c = cells.shape[0], x.shape[1]
        # the cells scored: those with a phase plane set, every legal cell (the rest are masked), observation order
        rows, where = (cells.amax(-1) > 0).nonzero(as_tuple=True)
        source = trunk_rows(rows, member)  # their trunk rows
        if not self.turn_trunk:
            scores = self.cell_head(x[source, self.cell_row[where]]).squeeze(-1)
        else:
            n = z.shape[1]
            at = self.cell_row[where]
            if exporting():  # an exporter records the dense planes (scored_cells' product)
                chosen, share = self.phase_planes(cells, n)
                land = chosen.view(b, n, c // n).sum(2) > 0
            else:  # the same numbers from the scored cells alone: no pass over every cell's planes
                share, land, picks = self.candidate_planes(cells[rows, where], rows, at, b, n)
            z = F.relu(z + self.phase_land(share.to(x.dtype)))
            t = {name: getattr(self, name) for name in TABLES}
            for layer in self.land_layers:
                z = layer(z, t)
            if exporting():
                mine, selected = self.scored_cells(x, chosen, member, source, at)
            else:
                mine, selected = self.scored_picks(x, picks, member, source, at, b)
            land = land.to(x.dtype)  # [B, L]: the selected piece's land
            glob_h = glob_h + self.phase_glob(glob) + self.selected_in(selected)
            context = (mine, self.land_out(z), selected, land, glob_h, cells)
            scores = self.candidate_scores(context, rows, where)
        cell_logits = scores.new_zeros(b, c).index_put((rows, where), scores)
        summary = torch.cat([z.mean(1), attended, glob_h], 1)
        logits = torch.cat([cell_logits, self.pass_end_head(summary)], 1)
        return logits.float(), self.value_head(summary).squeeze(1).float()

    def phase_planes(self, cells: Tensor, n: int) -> tuple[Tensor, Tensor]:
        """Return what the ``turn_trunk`` heads read of the phase planes ``cells`` [B, C, 8] (observation order)
        besides the scored cells: the ``selected`` plane [B, C] land-major, and each land's share of every plane
        [B, n, 8] (the planes' mean over its cells)."""
        b, c, k = cells.shape
        planes = cells.index_select(1, self.land_cells).float()
        return planes[:, :, 0], planes.view(b, n, c // n, k).mean(2)

    def candidate_planes(
        self, planes: Tensor, rows: Tensor, at: Tensor, b: int, n: int
    ) -> tuple[Tensor, Tensor, tuple[Tensor, Tensor, Tensor]]:
        """Return what :meth:`phase_planes` gives the heads, from the scored cells' phase planes alone.

        ``planes`` [K, 8]: the phase planes of the scored cells (``rows``, land-major rows ``at``), every cell
        with a plane set; the planes are 0/1 (dw_env/envs/observation.py), so the cells left out add nothing.
        Returns each land's share of every plane [B, n, 8] (a sum of 0/1 values is exact in any order, and
        ``sum / k`` is ``mean``'s number), whether the selected piece is in each land [B, n], and the selected
        cells (observation row, land-major row, plane value): one a row at most (rule 3.2), in row order, as
        ``nonzero`` of the dense plane lists them. A pass over [B, C, 8] planes cost more than the heads'
        other work on a standard-map chunk of 112 decisions (the planes' gather, float copy and mean).
        """
        per_land = self.geometry.num_cells // n
        values = planes.float()
        sums = values.new_zeros(b, n, values.shape[1]).index_put_((rows, at // per_land), values, accumulate=True)
        share = sums / per_land
        pick = (planes[:, 0] != 0).nonzero(as_tuple=True)[0]
        return share, share[:, :, 0] > 0, (rows[pick], at[pick], values[pick, 0])

    @staticmethod
    def scored_picks(
        x: Tensor, picks: tuple[Tensor, Tensor, Tensor], member: Tensor | None, source: Tensor, at: Tensor, b: int
    ) -> tuple[Tensor, Tensor]:
        """Return :meth:`scored_cells`' two results from the selected cells ``picks`` (observation row, land-major
        row, plane value; :meth:`candidate_planes`) instead of the dense ``selected`` plane: the same gathers
        in the same order, so the same numbers and the same gradient of ``x``."""
        rows, cell, value = picks
        picked = x[torch.cat([source, trunk_rows(rows, member)]), torch.cat([at, cell])]
        mine, sel = picked.split([source.shape[0], rows.shape[0]])
        sel = sel * value.to(x.dtype).unsqueeze(1)
        return mine, x.new_zeros(b, x.shape[2]).index_add(0, rows, sel)

    @staticmethod
    def scored_cells(
        x: Tensor, chosen: Tensor, member: Tensor | None, source: Tensor, at: Tensor
    ) -> tuple[Tensor, Tensor]:
        """Return (the trunk's features of the scored cells [K, h], each observation's selected cells' [B, h]).

        ``x`` [G, C, h]: the trunk's cells; ``source`` and ``at``: the trunk row and cell of each scored cell;
        ``chosen`` [B, C]: the ``selected`` plane, land-major (one cell in phase 2, none in phase 1); ``member``:
        each observation's trunk row (None: row ``i``). The selected features are ``bmm(chosen[:, None],
        x[member])[:, 0]``, computed from the selected cells alone (every other term is 0 times a finite feature:
        the same numbers), gathered together with the scored cells, so the backward pass writes one gradient
        of ``x``; an ONNX exporter records the product.
        """
        if exporting():  # a TorchScript trace records the gathers below as they run
            full = x if member is None else x.index_select(0, member)
            selected = torch.bmm(chosen.to(x.dtype).unsqueeze(1), full).squeeze(1)
            return x[source, at], selected
        rows, cell = chosen.nonzero(as_tuple=True)
        picked = x[torch.cat([source, trunk_rows(rows, member)]), torch.cat([at, cell])]
        mine, sel = picked.split([source.shape[0], rows.shape[0]])
        sel = sel * chosen[rows, cell].to(x.dtype).unsqueeze(1)
        return mine, x.new_zeros(chosen.shape[0], x.shape[2]).index_add(0, rows, sel)

    def candidate_scores(self, context: tuple[Tensor, ...], rows: Tensor, where: Tensor) -> Tensor:
        """Return the cell logits of the cells ``where`` (observation order) of the observations ``rows``.

        ``context``: the trunk's features of those cells [K, h], the lands' output, the selected piece's
        features, its land [B, L], the global features and the phase planes (observation order), as
        :meth:`heads` computes them.
        """
        cell_x, land_out, selected, land, glob_h, cells = context
        at = self.cell_row[where]
        per_land = cells.shape[1] // land.shape[1]
        mine = F.relu(cell_x + land_out[rows, at // per_land])
        pair = torch.cat([mine * selected[rows], land[rows, at // per_land].unsqueeze(1)], 1)
        y = mine + self.phase_cell(cells[rows, where].float()) + glob_h[rows] + self.pair_in(pair)
        return self.cell_head(F.relu(y)).squeeze(-1)

    def forward(self, obs: Tensor) -> tuple[Tensor, Tensor]:
        """Return (logits [B, C+2], value [B]) of flat observations [B, D] (int8 or float)."""
        return self.heads(self.trunk(obs), obs)


def trunk_rows(rows: Tensor, member: Tensor | None) -> Tensor:
    """Return the trunk row of each observation ``rows`` (:meth:`HexPolicyNet.heads`' ``member``; None: its own)."""
    return rows if member is None else member.index_select(0, rows)


def masked_logits(logits: Tensor, mask: Tensor) -> Tensor:
    """Return logits with illegal actions (mask 0) pushed to a large negative value."""
    return logits.masked_fill(mask == 0, -1e9)


def legal_probabilities(logp: Tensor, mask: Tensor) -> Tensor:
    """Return ``logp.exp()`` of masked log-probabilities ``logp``: exactly the same numbers, 5x faster on a CPU.

    An illegal action's log-probability is about -1e9, and ``exp`` of an argument that far below the float
    range's end takes a slow path on a CPU (0.36 ms for a standard-map chunk of 28 x 1,161 actions, 60x a
    normal one), so the illegal entries are exponentiated as 0 and set to 0 afterwards, which ``exp`` gave
    them anyway. Gradients are the same: ``exp``'s is 0 there as well.
    """
    legal = mask != 0
    return torch.where(legal, torch.where(legal, logp, 0.0).exp(), 0.0)


def sample_actions(logits: Tensor, mask: Tensor, greedy: bool = False) -> tuple[Tensor, Tensor]:
    """Return (actions, log-probabilities) drawn from the masked policy (or its argmax when greedy)."""
    logp = masked_logits(logits, mask).log_softmax(-1)
    actions = logp.argmax(-1) if greedy else torch.multinomial(legal_probabilities(logp, mask), 1).squeeze(1)
    return actions, logp.gather(1, actions[:, None]).squeeze(1)


def draw_actions(logits: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
    """Return (actions, log-probabilities) drawn from the masked policy by inverting its cumulative sum.

    The same distribution as :func:`sample_actions` with one uniform number a row instead of one per action
    (``torch.multinomial`` draws an exponential for each of the standard map's 1,161 actions): the trainer's
    rollouts use it. A zero-probability (illegal) action is never drawn: ``u`` lies in ``(0, total]`` and
    the first index whose cumulative sum reaches it is where the sum last rose.
    """
    logp = masked_logits(logits, mask).log_softmax(-1)
    cdf = legal_probabilities(logp, mask).cumsum(-1)
    u = (1.0 - torch.rand(cdf.shape[0], 1, device=cdf.device, dtype=cdf.dtype)) * cdf[:, -1:]
    actions = torch.searchsorted(cdf, u).squeeze(1).clamp_(max=cdf.shape[1] - 1)
    return actions, logp.gather(1, actions[:, None]).squeeze(1)


def evaluate_actions(logits: Tensor, mask: Tensor, actions: Tensor) -> tuple[Tensor, Tensor]:
    """Return (log-probabilities of ``actions``, entropy) under the masked policy."""
    logp = masked_logits(logits, mask).log_softmax(-1)
    p = legal_probabilities(logp, mask)
    entropy = -(p * logp).sum(-1)
    return logp.gather(1, actions[:, None]).squeeze(1), entropy


def cpu_has_bf16_units() -> bool:
    """Return whether this CPU computes bfloat16 matrix products natively (AMX tiles or AVX512-BF16).

    Where it does, the hex convolutions in bfloat16 run 3-4x faster than in float32 (``conv_dtype``); elsewhere
    oneDNN would emulate bfloat16 with float32 arithmetic plus conversions, so ``auto`` keeps float32 there (no
    such CPU was at hand to measure it).
    """
    return bf16_units() != "none"


def bf16_units() -> str:
    """Return which bfloat16 matrix units torch's oneDNN may use on this CPU: "AMX", "AVX512-BF16" or "none".

    What the CPU has (torch's checks), capped by oneDNN's ``ONEDNN_MAX_CPU_ISA`` (or ``DNNL_MAX_CPU_ISA``)
    where one is set: ``AVX512_CORE_BF16`` keeps oneDNN from AMX on a CPU that has it (the stand-in for a CPU
    without AMX, docs/TRAINING.md), ``AVX2`` or ``AVX512_CORE`` from bfloat16 products altogether.
    """
    cpu = getattr(torch, "cpu", None)

    def has(name: str) -> bool:
        check = getattr(cpu, name, None)
        return bool(check()) if callable(check) else False

    found = "AMX" if has("_is_amx_tile_supported") else "AVX512-BF16" if has("_is_avx512_bf16_supported") else "none"
    cap = onednn_isa_cap()
    if cap is None or found == "none" or "AMX" in cap:
        return found
    return "AVX512-BF16" if cap.startswith(ONEDNN_BF16_ISAS) else "none"


#: the ``ONEDNN_MAX_CPU_ISA`` values (a cap starting with one of them) that still let oneDNN use bfloat16 dot products
ONEDNN_BF16_ISAS = ("AVX512_CORE_BF16", "AVX512_CORE_FP16", "AVX10_1_512", "AVX10_2_512")


def onednn_isa_cap() -> str | None:
    """Return the instruction set oneDNN is capped at (``ONEDNN_MAX_CPU_ISA``, or its older name
    ``DNNL_MAX_CPU_ISA``), upper case; None where neither is set or it is ``ALL`` or ``DEFAULT``."""
    for name in ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"):
        value = os.environ.get(name, "").strip().upper()
        if value:
            return None if value in ("ALL", "DEFAULT") else value
    return None


#: cells (batch rows x map cells) per forward chunk on a CPU: a chunk's activations (about 64 KB per 1,000
#: cells at 16 channels, 2 MB at this size) stay in the core's cache. Measured on the standard map (1,159 cells,
#: 28 rows a chunk at this size), bf16 convolutions, freed memory kept (policies/allocator.py): on one core, ms
#: per observation forward / forward+backward, 7 rows 0.21 / 0.64, 14 rows 0.17 / 0.52, 28 rows 0.17 / 0.51,
#: 56 rows 0.16 / 0.56; training on both cores (``run.network_threads: 0``, 45 s each), env steps/s with 7, 14,
#: 28, 42 and 56 rows: 1,610, 2,277, 2,411-2,588, 2,336, 2,305 (larger chunks: fewer ops, less time holding
#: the GIL between them). With glibc's defaults one large batch also paid a page fault per fresh 4 KB. Again
#: with the in-place and hand-written passes (policies/domain_wheel/cell_passes.py), run against run: 17 rows
#: 2,502 and 2,574, 28 rows 2,850 and 3,102; 40 rows 2,967 and 2,784, 28 rows 3,063 and 2,758
CPU_CHUNK_CELLS = 32768


def chunk_rows(net: nn.Module, device: torch.device) -> int:
    """Return how many observations to push through ``net`` at once: cache-sized on a CPU, all on a GPU."""
    geometry = getattr(net, "geometry", None)
    if device.type != "cpu" or geometry is None:
        return 1 << 30
    return max(1, CPU_CHUNK_CELLS // int(geometry.num_cells))


def map_here(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    """Return ``[fn(x) for x in items]``: the :data:`ChunkMap` that runs every chunk on the calling thread."""
    return [fn(x) for x in items]


#: how a batch's chunks are computed: ``chunk_map(fn, items)`` returns ``[fn(x) for x in items]`` in order, on
#: any threads (training/ppo/network_threads.py); :func:`map_here` runs them on the calling thread
ChunkMap = Callable[[Callable[[Any], Any], Sequence[Any]], list[Any]]


def forward_chunked(net: nn.Module, obs: Tensor, rows: int, chunk_map: ChunkMap = map_here) -> tuple[Tensor, Tensor]:
    """Return ``net(obs)`` computed ``rows`` observations at a time (the same numbers, in less memory)."""
    return forward_batches([Batch(net, obs, rows)], chunk_map)[0]


def _traceable(b: Batch) -> bool:
    """Return whether ``b``'s plain chunks may run through a trace (:func:`forward_batches`)."""
    return (
        isinstance(b.net, HexPolicyNet)
        and b.obs.device.type == "cpu"
        and len(b.obs) > 0
        and not torch.is_grad_enabled()
        and not torch.is_autocast_enabled("cpu")
    )


class Batch(NamedTuple):
    """One network's observations for :func:`forward_batches`: ``obs`` [B, D] on the network's device, pushed
    through ``chunk`` rows at a time; with a :class:`TrunkCache`, the env ``rows`` of the observations and
    ``flat`` (``obs`` as a numpy array), only the trunks the cache lacks are computed (a ``turn_trunk`` net;
    any other takes the plain pass)."""

    net: nn.Module
    obs: Tensor
    chunk: int
    cache: TrunkCache | None = None
    rows: NDArray[np.int64] | None = None
    flat: NDArray[np.int8] | None = None


def forward_batches(
    batches: Sequence[Batch], chunk_map: ChunkMap = map_here, traced: bool = False
) -> list[tuple[Tensor, Tensor]]:
    """Return ``(logits, values)`` of each batch: every batch's chunks go to ``chunk_map`` together, in one call.

    A plain batch is cut into chunks of ``chunk`` rows. A cached batch (a ``turn_trunk`` network with a
    :class:`TrunkCache`) into chunks of :data:`HEAD_CHUNK_FACTOR` times as many rows (the heads are light per
    row and cost mostly per op): each chunk computes the trunks its rows lack (a turn's first decisions), at most
    ``chunk`` rows at a time, stores them in the cache (its own rows only) and then runs the heads of all its
    rows from the cache. So the chunks of several networks (the learner and its frozen opponents) share the
    threads, and all of them can run beside the caller's other work (``NetworkThreads.map_beside``), with no
    second call for the heads after the trunks. The chunks depend on nothing but the batch and its cache, so a
    batch's numbers are those of a call of its own, on any threads.

    ``traced``: the plain chunks of a :class:`HexPolicyNet` on a CPU, without gradients or autocast, run
    through its TorchScript trace (policies/traced_forward.py: the same numbers without holding the GIL,
    for a ``chunk_map`` that spreads them over threads), and a cached batch's trunks and heads through the
    traces of those two methods (``traced_turn``); the traces are made here, on the calling thread.
    """
    cached = [
        b.cache is not None
        and b.rows is not None
        and b.flat is not None
        and len(b.rows) > 0
        and getattr(b.net, "turn_trunk", False)
        for b in batches
    ]
    tasks: list[tuple[int, Any]] = []  # (batch, rows): a chunk, a slice of the batch's rows
    for i, b in enumerate(batches):
        step = b.chunk * HEAD_CHUNK_FACTOR if cached[i] else b.chunk
        if b.obs.shape[0] <= step:
            tasks.append((i, slice(None)))
        else:
            tasks += [(i, slice(s, s + step)) for s in range(0, b.obs.shape[0], step)]
    plain_pass: list[Callable[[Tensor], Any]] = [
        traced_forward(b.net, b.obs[: b.chunk]) if traced and not cached[i] and _traceable(b) else b.net
        for i, b in enumerate(batches)
    ]
    # a cached batch's trunk and heads: the network's own methods, or their traces (the same numbers, no GIL)
    turn = [
        traced_turn(b.net, b.obs[: b.chunk]) if traced and cached[i] and _traceable(b) else None
        for i, b in enumerate(batches)
    ]
    missing: list[NDArray[np.bool_] | None] = [None] * len(batches)
    for i, b in enumerate(batches):
        if cached[i]:
            missing[i] = ~b.cache.lookup(b.flat, b.rows)  # type: ignore[union-attr, arg-type]
            if b.cache.trunk is None:  # allocated here, so that the chunks only write rows of their own
                net = b.net if turn[i] is None else turn[i]
                b.cache.reserve(Trunk(*net.trunk(b.obs[:1])), b.flat.shape[1])  # type: ignore[union-attr]

    def chunk(task: tuple[int, slice]) -> tuple[Tensor, Tensor]:
        i, part = task
        b = batches[i]
        if not cached[i]:
            out: tuple[Tensor, Tensor] = plain_pass[i](b.obs[part])
            return out
        net = b.net if turn[i] is None else turn[i]
        obs, flat, rows, cache = b.obs[part], b.flat[part], b.rows[part], b.cache  # type: ignore[index]
        miss = np.flatnonzero(missing[i][part])  # type: ignore[index]
        for s in range(0, len(miss), b.chunk):  # the trunks of a turn's first decisions, stored for its second
            new = miss[s : s + b.chunk]
            trunk = Trunk(*net.trunk(obs[torch.from_numpy(new).to(obs.device)]))  # type: ignore[union-attr]
            cache.store(rows[new], flat[new], trunk)  # type: ignore[union-attr]
        stored: Trunk = cache.trunk  # type: ignore[union-attr, assignment]
        out = net.heads(tuple(stored), obs, torch.from_numpy(rows).to(obs.device))  # type: ignore[union-attr]
        return out

    done = chunk_map(chunk, tasks)
    results: list[list[tuple[Tensor, Tensor]]] = [[] for _ in batches]
    for (i, _), out in zip(tasks, done, strict=True):
        results[i].append(out)
    return [
        parts[0] if len(parts) == 1 else (torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts]))
        for parts in results
    ]


class TrunkCache:
    """The trunk of each env row's last decision, so that a turn's second decision reuses its first's.

    Only for a ``turn_trunk`` network, whose trunk reads what stays fixed during a turn: a row's stored trunk
    is used again when the row's new observation has the same turn-fixed inputs, byte for byte (then the trunk
    is the same), and computed otherwise. The weights must not change while a cache is in use: the trainer
    makes a new one for every rollout (or :meth:`clear` it after an update).
    """

    def __init__(self, net: HexPolicyNet, num_rows: int) -> None:
        self.num_cells = net.geometry.num_cells
        self.num_rows = num_rows
        self.obs: NDArray[np.int8] | None = None  # each row's observation whose trunk is stored
        self.valid = np.zeros(num_rows, dtype=np.bool_)
        self.trunk: Trunk | None = None  # allocated by the first store, on the network's device and dtype

    def clear(self) -> None:
        self.valid[:] = False

    def lookup(self, obs: NDArray[np.int8], rows: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Return which ``rows`` hold the trunk of their observations ``obs`` already."""
        if self.obs is None:
            return np.zeros(len(rows), dtype=np.bool_)
        hit = self.valid[rows]
        hit[hit] = same_turn_inputs(self.obs[rows[hit]], obs[hit], self.num_cells)
        return hit

    def reserve(self, example: Trunk, width: int) -> None:
        """Allocate the stored trunks, like ``example``'s rows (device, dtype, shape), and observations of ``width``."""
        self.trunk = Trunk(*(t.new_empty((self.num_rows, *t.shape[1:])) for t in example))
        self.obs = np.zeros((self.num_rows, width), dtype=np.int8)

    def store(self, rows: NDArray[np.int64], obs: NDArray[np.int8], trunk: Trunk) -> None:
        """Keep ``trunk`` as the trunk of the env ``rows``, whose observations are ``obs``.

        Only the given rows are written (the first store allocates, :meth:`reserve`), so chunks of one batch on
        several threads may store their own rows at once.
        """
        if self.trunk is None or self.obs is None:
            self.reserve(trunk, obs.shape[1])
        assert self.trunk is not None and self.obs is not None
        index = torch.from_numpy(rows).to(trunk.cells.device)
        for mine, new in zip(self.trunk, trunk, strict=True):
            mine.index_copy_(0, index, new.to(mine.dtype))
        self.obs[rows], self.valid[rows] = obs, True


#: how many times a trunk chunk's rows a cached batch's chunk takes (:func:`forward_batches`: its heads run on all
#: of them at once, its trunks on the turns' first decisions among them, a trunk chunk at a time). Measured when a
#: standard-map chunk was 14 rows (now 28, :data:`CPU_CHUNK_CELLS`), the heads of 96 rows took 10-16 ms in chunks
#: of 14 against 5-8 ms in chunks of 56 (one core, inference), so the factor was 4; since the heads gather only
#: the cells they read from a shared trunk it is 2: a rollout step's 60-120 learner rows are then two chunks,
#: one per core, where with 4 they were one, on one thread (the heads of a standard-map rollout on both cores:
#: 0.73-0.83 s with 4, 0.44-0.46 s with 2). Threads or not, the same chunks, so the same numbers.
HEAD_CHUNK_FACTOR = 2


def forward_cached(
    net: HexPolicyNet,
    obs: Tensor,
    chunk: int,
    cache: TrunkCache,
    rows: NDArray[np.int64],
    flat: NDArray[np.int8],
    chunk_map: ChunkMap = map_here,
) -> tuple[Tensor, Tensor]:
    """Return ``net(obs)`` for the env ``rows``, computing the trunk only of rows that ``cache`` lacks.

    ``flat`` is ``obs`` as a numpy array (what the cache compares). The trunk runs ``chunk`` rows at a time;
    the heads, light per row and dominated by the cost of each op, :data:`HEAD_CHUNK_FACTOR` times as many
    (:func:`forward_batches`). The chunks are computed by ``chunk_map``.
    """
    return forward_batches([Batch(net, obs, chunk, cache, rows, flat)], chunk_map)[0]


def forward_grouped(net: nn.Module, obs: Tensor, starts: NDArray[np.bool_]) -> tuple[Tensor, Tensor]:
    """Return ``net(obs)`` with the trunk computed once per group of rows that share it.

    Groups are contiguous; ``starts`` marks each group's first row (training/ppo/ppo.py ``turn_groups`` makes
    them: the decisions of one turn). A network without ``turn_trunk``, or groups of one, take the plain pass.
    """
    if not getattr(net, "turn_trunk", False) or starts.all():
        out: tuple[Tensor, Tensor] = net(obs)
        return out
    first = torch.from_numpy(np.flatnonzero(starts)).to(obs.device)
    member = torch.from_numpy(np.cumsum(starts) - 1).to(obs.device)
    trunk: Trunk = net.trunk(obs.index_select(0, first))  # type: ignore[operator]
    out = net.heads(trunk, obs, member)  # type: ignore[operator]
    return out


class StepBatch(NamedTuple):
    """One network's decisions for :func:`policy_steps`: observations and action masks (numpy), and for a
    ``turn_trunk`` network the :class:`TrunkCache` and env ``rows`` that let a turn reuse its trunk."""

    net: nn.Module
    obs: NDArray[np.int8]
    masks: NDArray[np.int8]
    cache: TrunkCache | None = None
    rows: NDArray[np.int64] | None = None


def policy_step(
    net: nn.Module,
    obs: NDArray[np.int8],
    masks: NDArray[np.int8],
    device: torch.device,
    amp: bool,
    greedy: bool,
    cache: TrunkCache | None = None,
    rows: NDArray[np.int64] | None = None,
    draw: bool = False,
    chunk_map: ChunkMap = map_here,
) -> tuple[NDArray[np.int64], NDArray[np.float32], NDArray[np.float32]]:
    """Return (actions, log-probabilities, values) of ``net`` for a batch of observations.

    The forward pass runs in cache-sized chunks (:func:`chunk_rows`); the actions are drawn for the whole
    batch at once, so the random stream is consumed as by one forward pass. With a :class:`TrunkCache` and
    the env ``rows`` of the observations, a turn's second decision reuses the trunk of its first. ``draw``:
    sample with :func:`draw_actions` (the same distribution, fewer random numbers) instead of
    :func:`sample_actions`, whose random stream the arena's and the browser game's seats keep. ``chunk_map``
    computes the chunks (on other threads, training/ppo/network_threads.py: the same numbers).
    """
    return policy_steps([StepBatch(net, obs, masks, cache, rows)], device, amp, greedy, draw, chunk_map)[0]


def policy_steps(
    batches: Sequence[StepBatch],
    device: torch.device,
    amp: bool,
    greedy: bool,
    draw: bool = False,
    chunk_map: ChunkMap = map_here,
    traced: bool = False,
) -> list[tuple[NDArray[np.int64], NDArray[np.float32], NDArray[np.float32]]]:
    """Return :func:`policy_step` of each batch, the forward chunks of all of them computed together.

    Every batch's chunks go to ``chunk_map`` at once (:func:`forward_batches`), so a rollout's learner and
    frozen opponents, each a few chunks, keep all the threads busy; then the actions are drawn batch after
    batch, in order. Each batch's result, and the random numbers drawn, are those of calling
    :func:`policy_step` on the batches one after the other. ``traced``: see :func:`forward_batches`.
    """

    def in_mode(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:  # torch's modes are per thread
        def run(item: Any) -> Any:
            with torch.inference_mode(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
                return fn(item)

        return run

    def spread(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return chunk_map(fn if chunk_map is map_here else in_mode(fn), items)  # the caller is in the modes

    results = []
    with torch.inference_mode(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
        passes = [
            Batch(b.net, torch.from_numpy(b.obs).to(device), chunk_rows(b.net, device), b.cache, b.rows, b.obs)
            for b in batches
        ]
        for b, (logits, values) in zip(batches, forward_batches(passes, spread, traced), strict=True):
            mask = torch.from_numpy(b.masks).to(device)
            if draw and not greedy:
                actions, logp = draw_actions(logits, mask)
            else:
                actions, logp = sample_actions(logits, mask, greedy)
            results.append((actions.cpu().numpy(), logp.cpu().numpy(), values.float().cpu().numpy()))
    return results
