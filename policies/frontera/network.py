"""The learned agent's network: message passing over Frontera's territory graph, one head per action block.

Input: the packed observation (:mod:`policies.frontera.inputs`, int8 ``[B, N*(19 + R) + 78]``) of the seat to
act, and the map's public graph (:meth:`FronteraGraphNet.set_map`: land and sea edges in action order, regions
and their bonuses). Nothing else: no weight depends on ``N``, ``E``, ``K`` or the number of players, so one set
of weights plays every map and 2 to 6 players (the observation always has 6 seat slots, spec 6.4).

::

    territory t: 19 features (visible, owner slot, armies, card symbol, hand/paid, regroup and window marks)
                 + its region's owned shares and bonus, its degree          -> embed -> h_t   [C]
    globals:     78 values (decision state, counters, seat slots, ...)      -> MLP   -> g     [C], added to every h_t
    land_layers rounds:  h_t += relu(W [h_t, mean_nb h, max_nb h, mean_region h])     (neighbours: land and sea)
    pooled p = [mean_t h, max_t h, g]
    heads:  DEPLOY(t, b), REGROUP_FROM(t), REGROUP_TO(t)  from [h_t, W p]           (per territory)
            ATTACK(e), BLITZ(e)                           from [h_src, h_dst, sea]  (per directed edge)
            TRADE(p), OCCUPY(b), END_ATTACK, REGROUP_AMOUNT(b), END_TURN, value   from p

Per-territory and per-edge logits are equivariant under a relabelling of the territories (mean and max
aggregation, shared weights): the region one-hot of the observation is not read, since region ids carry no
meaning across maps; regions enter through aggregation instead. Output ``(logits [B, A], value [B])`` in the
action order of spec 6.2 (``frontera_env.encoding``); the caller masks illegal actions. The value is the
acting seat's (ego-centric, as the PPO loop trains one seat's decisions).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from frontera_env.observation import GLOBALS
from policies.frontera.inputs import BUCKETS, SCALE, MapGraph
from policies.frontera.neighbour_max import incoming_table, neighbour_max

#: observation columns of a territory row the network reads (all but the region one-hot), R = regions width
_OWN, _OTHERS, _UNKNOWN = 1, slice(2, 7), 8
#: features per territory: 19 from the row, 5 from its region (own, others, unknown shares, size, bonus), degree
TERRITORY_FEATURES = 19 + 5 + 1
#: pooled heads: TRADE 13, OCCUPY B+1, END_ATTACK, REGROUP_AMOUNT B, END_TURN
_TRADES = 13
#: territories (rows x map territories) per chunk of a PPO update's forward and backward pass on a CPU: each
#: chunk's activations stay in the core's cache. Measured at 48 channels and 4 rounds, one core, forward and
#: backward with the loss, ms per row of 864: medium map, 16 rows a chunk 0.62, 32 0.59, 48 0.60, 64 0.64,
#: 144 0.86, 864 (one pass) 1.21; large map, 16 rows 0.94, 32 0.88, 48 1.02
CPU_CHUNK_TERRITORIES = 2048


def _mlp(inp: int, hidden: int, out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inp, hidden), nn.ReLU(), nn.Linear(hidden, out))


class MessageLayer(nn.Module):
    """One round of message passing: mean and max over neighbours and the mean over the region, residual."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.mix = nn.Linear(4 * channels, channels)

    def forward(self, h: Tensor, graph: dict[str, Tensor]) -> Tensor:
        src, dst, region = graph["src"], graph["dst"], graph["region"]
        b, n, c = h.shape
        msg = h.index_select(1, src)  # [B, E, C]
        mean = torch.zeros_like(h).index_add_(1, dst, msg) * graph["inv_degree"][None, :, None]
        top = neighbour_max(msg, graph["incoming"], dst, graph.get("isolated"))
        k = graph["region_size"].shape[0]
        regional = torch.zeros(b, k, c, dtype=h.dtype, device=h.device).index_add_(1, region, h)
        regional = (regional / graph["region_size"][None, :, None]).index_select(1, region)
        return h + F.relu(self.mix(torch.cat([h, mean, top, regional], -1)))


class FronteraGraphNet(nn.Module):
    """Policy over spec 6.2's action space and a value, for any Frontera map and 2 to 6 players."""

    def __init__(
        self,
        graph: MapGraph,
        channels: int = 64,
        cell_layers: int = 1,
        land_layers: int = 4,
        head_hidden: int = 64,
        observation_version: str = "frontera-obs-2",
    ) -> None:
        super().__init__()
        # the project's network size keys (policies/checkpoint.py): land_layers are the message-passing rounds,
        # cell_layers the per-territory layers of the input embedding
        self.hparams = {
            "channels": channels,
            "cell_layers": cell_layers,
            "land_layers": land_layers,
            "head_hidden": head_hidden,
        }
        self.observation_version = observation_version
        c = channels
        embed: list[nn.Module] = [nn.Linear(TERRITORY_FEATURES, c), nn.ReLU()]
        for _ in range(max(0, cell_layers - 1)):
            embed += [nn.Linear(c, c), nn.ReLU()]
        self.embed = nn.Sequential(*embed)
        self.globals = _mlp(GLOBALS + 1, head_hidden, c)
        self.layers = nn.ModuleList(MessageLayer(c) for _ in range(land_layers))
        self.pool_to_territory = nn.Linear(3 * c, c)
        self.territory_head = _mlp(2 * c, head_hidden, BUCKETS + 2)  # DEPLOY buckets, REGROUP_FROM, REGROUP_TO
        self.edge_head = _mlp(2 * c + 1, head_hidden, 2)  # ATTACK, BLITZ
        self.pooled_head = _mlp(3 * c, head_hidden, _TRADES + (BUCKETS + 1) + 1 + BUCKETS + 1)
        self.value_head = _mlp(3 * c, head_hidden, 1)
        nn.init.zeros_(self.value_head[-1].weight)
        self.set_map(graph)

    def set_map(self, graph: MapGraph) -> None:
        """Read observations of ``graph``'s map from now on (the weights stay; buffers follow the device)."""
        device = next(self.parameters()).device
        if device.type == "meta":  # policies.checkpoint sizes a network on meta: the tables stay real
            device = torch.device("cpu")
        n, k = graph.n, int(graph.bonus.shape[0])
        # numpy, then torch.tensor: real tables even where torch's factories make meta tensors
        degree = np.bincount(graph.edge_index[1], minlength=n).astype(np.float32)
        incoming, isolated = incoming_table(graph.edge_index[1], n)
        tables = {
            "src": torch.tensor(graph.edge_index[0], dtype=torch.int64),
            "dst": torch.tensor(graph.edge_index[1], dtype=torch.int64),
            "region": torch.tensor(graph.region, dtype=torch.int64),
            "sea": torch.tensor(graph.edge_sea, dtype=torch.float32),
            "inv_degree": torch.tensor(1.0 / np.maximum(degree, 1.0)),
            "degree": torch.tensor(degree),
            "region_size": torch.tensor(np.bincount(graph.region, minlength=k).astype(np.float32)),
            "bonus": torch.tensor(graph.bonus, dtype=torch.float32),
            "incoming": torch.tensor(incoming),  # each territory's incoming edges (policies/frontera/neighbour_max.py)
        }
        if isolated.any():  # a one-territory map: its max over no neighbour is 0
            tables["isolated"] = torch.tensor(isolated)
        elif hasattr(self, "graph_isolated"):
            del self.graph_isolated
        for name, value in tables.items():
            self.register_buffer(f"graph_{name}", value.to(device), persistent=False)
        self.graph = graph
        self.n, self.row, self.edges = n, graph.row, int(graph.edge_index.shape[1])
        self.num_actions = n * (BUCKETS + 2) + 2 * self.edges + 2 * BUCKETS + 16

    def cpu_chunk_rows(self) -> int:
        """Return the observations a PPO update pushes through at once on a CPU (:data:`CPU_CHUNK_TERRITORIES`)."""
        return max(1, CPU_CHUNK_TERRITORIES // self.n)

    def _graph(self) -> dict[str, Tensor]:
        return {k[6:]: v for k, v in self.named_buffers() if k.startswith("graph_")}

    def _territory_inputs(self, rows: Tensor, graph: dict[str, Tensor]) -> Tensor:
        """Return [B, N, TERRITORY_FEATURES]: the row's features (region one-hot left out) and its region's."""
        r = self.graph.regions
        own = torch.cat([rows[..., :10], rows[..., 10 + r : 19 + r]], -1)
        b, k = rows.shape[0], graph["region_size"].shape[0]
        marks = torch.stack([rows[..., _OWN], rows[..., _OTHERS].sum(-1), rows[..., _UNKNOWN]], -1)
        shares = torch.zeros(b, k, 3, dtype=rows.dtype, device=rows.device).index_add_(1, graph["region"], marks)
        shares = (shares / graph["region_size"][None, :, None]).index_select(1, graph["region"])
        size = (graph["region_size"] / 8.0).index_select(0, graph["region"])
        bonus = (graph["bonus"] / 5.0).index_select(0, graph["region"])
        statics = torch.stack([size, bonus, graph["degree"] / 6.0], -1).expand(b, -1, -1)
        return torch.cat([own, shares, statics], -1)

    def _territory_logits(self, h: Tensor, pooled: Tensor) -> Tensor:
        """Return the territory head on ``[h_t, W p]`` ([B, N, BUCKETS + 2]), its first layer split by input.

        ``W1 [h_t, q] = W1_h h_t + W1_q q``: the pooled part is computed once per row, not once per territory.
        """
        first, c = self.territory_head[0], h.shape[-1]
        w = first.weight
        q = F.linear(self.pool_to_territory(pooled), w[:, c:])  # [B, H]
        return self.territory_head[2](F.relu(F.linear(h, w[:, :c], first.bias) + q[:, None]))

    def _edge_logits(self, h: Tensor, graph: dict[str, Tensor]) -> Tensor:
        """Return the edge head on ``[h_src, h_dst, sea]`` ([B, E, 2]), its first layer split by input.

        ``W1 [h_s, h_d, sea] = (W1_s h)_s + (W1_d h)_d + sea w1``: the two products run per territory (N rows)
        and are gathered per edge (E rows, about four per territory), where the concatenation would run the
        whole product per edge. The weights are ``edge_head``'s, so checkpoints and packages are unchanged.
        """
        first, c = self.edge_head[0], h.shape[-1]
        w = first.weight
        out = F.linear(h, w[:, :c], first.bias).index_select(1, graph["src"])
        out = out + F.linear(h, w[:, c : 2 * c]).index_select(1, graph["dst"])
        out = out + graph["sea"][None, :, None] * w[:, 2 * c]
        return self.edge_head[2](F.relu(out))

    def forward(self, obs: Tensor) -> tuple[Tensor, Tensor]:
        """Return (logits [B, A], value [B]) of packed observations [B, N*(19 + R) + 78] (int8 or float)."""
        b, n, row = obs.shape[0], self.n, self.row
        if obs.shape[1] != n * row + GLOBALS:
            raise ValueError(
                f"observation size {obs.shape[1]} does not fit this network's map ({n} territories x {row} + "
                f"{GLOBALS} = {n * row + GLOBALS}); call set_map with the game's map"
            )
        graph = self._graph()
        x = obs.float() / SCALE  # log2(1 + v) of every observed value
        rows, glob = x[:, : n * row].reshape(b, n, row), x[:, n * row :]
        scale = torch.full((b, 1), n / 100.0, device=x.device)
        g = self.globals(torch.cat([glob, scale], -1))
        h = self.embed(self._territory_inputs(rows, graph)) + g[:, None]
        for layer in self.layers:
            h = layer(h, graph)
        pooled = torch.cat([h.mean(1), h.amax(1), g], -1)
        per_t = self._territory_logits(h, pooled)
        per_e = self._edge_logits(h, graph)
        heads = self.pooled_head(pooled)
        t, o = _TRADES, BUCKETS + 1
        logits = torch.cat(
            [
                per_t[..., :BUCKETS].reshape(b, n * BUCKETS),  # DEPLOY(t, b) at t*B + b
                heads[:, :t],  # TRADE
                per_e[..., 0],  # ATTACK
                per_e[..., 1],  # BLITZ
                heads[:, t : t + o],  # OCCUPY and KEEP
                heads[:, t + o : t + o + 1],  # END_ATTACK
                per_t[..., BUCKETS],  # REGROUP_FROM
                per_t[..., BUCKETS + 1],  # REGROUP_TO
                heads[:, t + o + 1 : t + o + 1 + BUCKETS],  # REGROUP_AMOUNT
                heads[:, -1:],  # END_TURN
            ],
            1,
        )
        return logits.float(), self.value_head(pooled).squeeze(1).float()
