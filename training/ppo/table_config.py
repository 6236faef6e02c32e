"""The ``tables`` and ``table_schedule`` keys of a training config: several option sets trained in one run.

A config may list **tables** (docs/TRAINING.md "Tables"); each entry is a mapping of

* the game's options it changes (those its adapter lists in ``table_options``: a game whose one network reads
  every map and player count, e.g. Frontera's ``map``, ``players``, ``fog``, ``cards``, ``max_turns``);
* optionally :data:`TABLE_KEYS`: ``name`` (the table's name in logs; default: made of the options it changes),
  ``num_envs`` and ``fog_rows`` (its ``env`` keys), ``weights`` (its ``league.weights``) and ``teacher`` (its
  ``imitation.teacher``: who plays its warm start's demonstrations, "none" for none).

Everything else comes from the config's sections. ``table_schedule`` says which table each PPO update trains:
``round_robin`` (one update each in turn) or one whole number per table, the updates it gets in every cycle,
spread evenly over the cycle (:func:`schedule_cycle`). The table of update ``u`` is ``cycle[u % len(cycle)]``,
a function of the update count alone, so ``--resume`` continues with the same table.

This module checks the entries' form; training/ppo/config.py checks each table's whole config and the game.
"""

from __future__ import annotations

import re
from typing import Any

from gamecore.errors import brief

#: keys of a table entry that are not game options
TABLE_KEYS: tuple[str, ...] = ("name", "num_envs", "fog_rows", "weights", "teacher")
#: the most tables one run may hold (each has its own vector env and rollout buffers)
MAX_TABLES = 16
#: the most updates one table may get in a cycle of ``table_schedule``
MAX_SHARE = 1000
#: a table's name: one TensorBoard path component
TABLE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$")
NAME_ALLOWED = "letters, digits, '.', '_' and '-' (at most 60, starting with a letter or digit)"


def check_entries(tables: Any) -> list[dict[str, Any]] | None:
    """Return the table entries if they have the right form (a list of 1..MAX_TABLES mappings); ValueError if not."""
    if tables is None:
        return None
    if not isinstance(tables, list) or not tables or len(tables) > MAX_TABLES:
        raise ValueError(
            f"must be a list of 1..{MAX_TABLES} tables (mappings of game options and {', '.join(TABLE_KEYS)}), "
            f"got {brief(tables)}"
        )
    for i, entry in enumerate(tables):
        if not isinstance(entry, dict):
            raise ValueError(f"[{i}] must be a mapping of game options and {', '.join(TABLE_KEYS)}, got {brief(entry)}")
        for key in entry:
            if not isinstance(key, str):
                raise ValueError(f"[{i}]: keys must be names (strings), got {brief(key)}")
        name = entry.get("name")
        if name is not None and (not isinstance(name, str) or not TABLE_NAME.match(name)):
            raise ValueError(f"[{i}].name: must be {NAME_ALLOWED}, got {brief(name)}")
    return tables


def table_name(entry: dict[str, Any], index: int) -> str:
    """Return a table's name: its ``name``, else made of the game options it changes (``players6-maplarge``)."""
    if "name" in entry:
        return str(entry["name"])
    parts = []
    for key, value in entry.items():
        if key in TABLE_KEYS:
            continue
        parts.append(key if value is True else f"no{key}" if value is False else f"{key}{value}")
    made = re.sub(r"[^A-Za-z0-9._-]", "_", "-".join(parts))[:60].strip("._-")
    return made if made and TABLE_NAME.match(made) else f"table{index}"


def unique_names(tables: list[dict[str, Any]]) -> list[str]:
    """Return the tables' names; ValueError naming two tables of the same name."""
    names = [table_name(entry, i) for i, entry in enumerate(tables)]
    for i, name in enumerate(names):
        if name in names[:i]:
            first = names.index(name)
            raise ValueError(
                f"tables[{first}] and tables[{i}] are both named {name!r}; allowed: distinct names (set name: ...)"
            )
    return names


def check_schedule(schedule: Any) -> Any:
    """Return ``schedule`` if it is ``round_robin`` or a list of whole numbers 1..MAX_SHARE; ValueError if not."""
    if schedule == "round_robin":
        return schedule
    whole = isinstance(schedule, list) and all(not isinstance(k, bool) and isinstance(k, int) for k in schedule)
    if not whole or not schedule or not all(1 <= k <= MAX_SHARE for k in schedule):
        raise ValueError(
            f"must be round_robin or a list of whole numbers 1..{MAX_SHARE} (one per table: its updates a cycle), "
            f"got {brief(schedule)}"
        )
    return schedule


def schedule_cycle(schedule: Any, tables: int) -> list[int]:
    """Return one cycle of table indices: each table as many times as its share, spread evenly (smooth weighted
    round robin: each turn every table gains its share and the one furthest ahead plays, first on ties)."""
    shares = [1] * tables if schedule == "round_robin" else list(schedule)
    total, credit, cycle = sum(shares), [0] * tables, []
    for _ in range(total):
        credit = [c + s for c, s in zip(credit, shares, strict=True)]
        pick = max(range(tables), key=lambda i: (credit[i], -i))
        credit[pick] -= total
        cycle.append(pick)
    return cycle
