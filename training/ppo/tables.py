"""A PPO run over several tables: one network, one optimizer, each table its own games (docs/TRAINING.md "Tables").

A config's ``tables`` (training/ppo/table_config.py) lists option sets, e.g. Frontera with 2, 4 and 6 players on
two maps. Each table is what a one-table run holds (training/ppo/ppo.py's ``Table``): its vector env, its league
(opponent weights and results) and scripted seats, its rollout buffers and its frozen past selves' networks.
The tables share the learner's network, its optimizer, the run's random streams and the league's snapshots of
past selves (their weights fit every table).

**One table per update.** Update ``u`` collects a rollout of table ``cycle[u % len(cycle)]`` (``table_schedule``)
and trains on it, exactly as a one-table run's update: the observation and action sizes differ between maps, so
one rollout and one minibatch hold one table's decisions, the update stays the same code and its batch is one
table's size (each table keeps its own rollout buffers, which carry its open decisions over). The other tables'
games wait where they stopped (their last decisions carried over, trained on once their outcomes arrive).

**Maps.** A network that reads several maps has ``set_map(graph)`` and its current ``graph`` (Frontera's graph
network); before a table's update the learner is pointed at the table's map, when it differs from the one it
reads. The update's worker threads and processes hold copies of the network made on one map, so each map has
its own (:class:`~training.ppo.network_threads.NetworkThreads`, made on the map's first update).

Which table comes next is a function of the update count, so ``--resume`` continues with it; every table's
games, results and open decisions travel in the checkpoint (training/ppo/resume.py, ``tables``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from training.ppo.config import TrainConfig
from training.ppo.network_threads import NetworkThreads, thread_count
from training.ppo.table_config import schedule_cycle


def map_signature(net: nn.Module) -> tuple[Any, ...]:
    """Return what identifies the map a network reads: its non-persistent buffers' shapes and values."""
    persistent = set(net.state_dict())
    return tuple(
        (name, tuple(b.shape), b.detach().cpu().numpy().tobytes())
        for name, b in net.named_buffers()
        if name not in persistent
    )


@dataclass
class TableSet:
    """The tables of a run of several (module doc); the session's ``table``, ``rollout`` and ``frozen`` are the
    current table's."""

    names: list[str]
    configs: list[TrainConfig]
    tables: list[Any]  # training/ppo/ppo.py's Table, one per table
    rollouts: list[Any]
    frozen: list[Any]
    graphs: list[Any]  # each table's map as the network's set_map takes it (None: the network has no set_map)
    signatures: list[tuple[Any, ...]]
    cycle: list[int]
    passes: dict[int, NetworkThreads] = field(default_factory=dict)  # by the first table on each map
    on_map: int = 0  # the current table: the learner reads its map

    def index(self, updates: int) -> int:
        """Return the table that update number ``updates`` (counted from 0) trains."""
        return self.cycle[updates % len(self.cycle)]

    def select(self, s: Any) -> str:
        """Make the table of the session's next update its current one, on the learner's map; return its name."""
        i = self.index(s.counters["updates"])
        s.table, s.rollout, s.frozen = self.tables[i], self.rollouts[i], self.frozen[i]
        s.ctx["threads"] = self.threads_on(s.net, i)
        return self.names[i]

    def threads_on(self, net: nn.Module, i: int) -> NetworkThreads:
        """Point ``net`` at table ``i``'s map and return that map's network passes (made now on its first use:
        their copies of the network read it)."""
        self.point(net, i)
        key = self.signatures.index(self.signatures[i])  # the first table on this map
        if key not in self.passes:
            run = self.configs[0].run
            self.passes[key] = NetworkThreads(net, thread_count(run.network_threads), processes=run.update_processes)
        return self.passes[key]

    def point(self, net: nn.Module, i: int) -> None:
        """Make table ``i`` the current one and point ``net`` at its map (if it reads another)."""
        if self.signatures[i] != self.signatures[self.on_map]:
            net.set_map(self.graphs[i])  # type: ignore[operator]
        self.on_map = i

    def in_use(self) -> set[str]:
        """Return the opponents of every table's running games (the retired snapshots still needed)."""
        return {opp for table in self.tables for opp in table.opponent}

    def more(self) -> list[tuple[str, Any, Any]]:
        """Return (name, table, rollout) of the tables after the first (saved under ``tables`` in a checkpoint)."""
        return list(zip(self.names[1:], self.tables[1:], self.rollouts[1:], strict=True))

    def close(self) -> None:
        """Stop every map's worker threads and processes and every table's scripted seats."""
        for passes in self.passes.values():
            passes.close()
        for table in self.tables:
            table.scripted.close()


def build_tables(
    config: TrainConfig,
    first: tuple[Any, Any, Any],
    net: nn.Module,
    new_table: Callable[[TrainConfig, int], tuple[Any, Any]],
    new_frozen: Callable[[TrainConfig], Any],
) -> TableSet:
    """Return the run's tables: the first (``first``: table, rollout, frozen, built by the caller on ``net``'s map;
    the caller adds its network passes as ``passes[0]``) and the others, built by ``new_table(config, index)``
    and ``new_frozen(config)``. The others' leagues share the first's snapshots.

    ValueError, before any other table is built, if the tables read different maps and the network cannot
    switch between them.
    """
    named = config.table_configs()
    frozen = [first[2], *(new_frozen(table_config) for _, table_config in named[1:])]
    templates = [_template(maker) for maker in frozen]
    signatures = [map_signature(template) for template in templates]
    if len(set(signatures)) > 1 and not hasattr(net, "set_map"):
        raise ValueError(f"tables: {config.game_id}'s network reads one map; allowed: tables on the map of the first")
    tables, rollouts = [first[0]], [first[1]]
    for i, (_, table_config) in enumerate(named[1:], start=1):
        table, rollout = new_table(table_config, i)
        table.league.snapshots, table.league.retired = tables[0].league.snapshots, tables[0].league.retired
        tables.append(table)
        rollouts.append(rollout)
    graphs = [getattr(template, "graph", None) for template in templates]
    cycle = schedule_cycle(config.table_schedule, len(named))
    return TableSet([n for n, _ in named], [c for _, c in named], tables, rollouts, frozen, graphs, signatures, cycle)


def _template(frozen: Any) -> nn.Module:
    """Return a network on a table's map made by its frozen-network maker, without moving the run's RNG stream."""
    with torch.random.fork_rng(devices=[]):
        net: nn.Module = frozen.make()
    return net
