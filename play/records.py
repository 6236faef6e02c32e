"""Saved games: writing a finished room's record, listing record folders and replaying any ply.

A record id is ``"SOURCE/RELATIVE/PATH.json"``: the index of a records folder (0 = the folder new games
are saved in, then every ``--replays`` folder) and the file's path inside it. Ids are checked part by
part and the resolved file must stay inside its folder (no ``..``, no symlink escape), so a client can
only read records the server lists. Replays keep a few snapshots per record (the adapter's cursor) in a
small LRU cache, never every position of a long game.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from gamecore.loaders import load_json
from play import games
from play.games import JSON, GameAdapter, InputError

log = logging.getLogger("play.records")

#: most records listed, newest first
MAX_LISTED = 500
#: folders below a records folder that are searched
MAX_DEPTH = 4
#: largest record file read (bytes)
MAX_RECORD_BYTES = 8 * 1024 * 1024
#: deepest nesting of a record file's JSON (a record nests about 4 levels)
MAX_RECORD_DEPTH = 32
#: replay cursors kept
CACHE_SIZE = 8
_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ +=,-]{0,127}$")


def default_records_dir() -> Path:
    """Return the per-user records folder: ``$XDG_DATA_HOME/domain-wheel/records`` (``~/.local/share``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "domain-wheel" / "records"


class RecordStore:
    """The records folder new games go to, plus read-only folders of other records (an arena's games)."""

    def __init__(self, save_dir: Path, extra: list[Path] | None = None) -> None:
        self.sources = [Path(save_dir)] + [Path(p) for p in (extra or [])]
        self._summaries: dict[tuple[str, float, int], JSON | None] = {}
        self._cursors: OrderedDict[tuple[str, float], Any] = OrderedDict()

    # ---- saving --------------------------------------------------------------------------
    def save(self, record: JSON, room_id: str) -> str:
        """Write a finished game's record to the save folder (atomically); return its id."""
        folder = self.sources[0]
        folder.mkdir(parents=True, exist_ok=True)
        name = time.strftime("%Y-%m-%d_%H%M%S", time.localtime()) + f"_{room_id}.json"
        tmp = folder / (name + ".tmp")
        tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        tmp.replace(folder / name)
        return f"0/{name}"

    # ---- listing -------------------------------------------------------------------------
    def listing(self) -> JSON:
        """Return the sources and the records found, newest first."""
        entries: list[tuple[float, str, Path, int]] = []
        for index, root in enumerate(self.sources):
            if not root.is_dir():
                continue
            for path in self._walk(root.resolve(), 0):
                try:
                    mtime = path.stat().st_mtime
                except OSError:
                    continue
                entries.append((mtime, f"{index}/{path.relative_to(root.resolve()).as_posix()}", path, index))
        entries.sort(key=lambda e: -e[0])
        records = []
        for mtime, rid, path, index in entries[:MAX_LISTED]:
            summary = self._summary(path)
            if summary is None:
                continue
            records.append({"id": rid, "source": index, "name": path.name, "modified": mtime, **summary})
        return {
            "sources": [{"source": i, "name": p.name} for i, p in enumerate(self.sources)],
            "records": records,
        }

    def _walk(self, folder: Path, depth: int) -> list[Path]:
        out: list[Path] = []
        try:
            children = sorted(folder.iterdir())
        except OSError:
            return out
        for child in children:
            if child.is_symlink():
                continue
            if child.is_file() and child.suffix == ".json" and _PART.match(child.name):
                out.append(child)
            elif child.is_dir() and depth < MAX_DEPTH and _PART.match(child.name):
                out.extend(self._walk(child, depth + 1))
        return out

    def _summary(self, path: Path) -> JSON | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        key = (str(path), stat.st_mtime, stat.st_size)
        if key not in self._summaries:
            self._summaries[key] = _summary_or_none(path)
        return self._summaries[key]

    # ---- reading -------------------------------------------------------------------------
    def resolve(self, rid: str) -> Path:
        """Return the file of a record id; InputError ``not_found`` unless it is a listed record's file."""
        source, _, rel = rid.partition("/")
        parts = rel.split("/") if rel else []
        if (
            not source.isdigit()
            or int(source) >= len(self.sources)
            or not parts
            or len(parts) > MAX_DEPTH + 1
            or not all(_PART.match(p) for p in parts)
            or not parts[-1].endswith(".json")
        ):
            raise InputError("not_found", f"no record {rid!r}; ids look like '0/NAME.json' (see GET /api/records)")
        root = self.sources[int(source)].resolve()
        path = root.joinpath(*parts)
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise InputError("not_found", f"no record {rid!r}") from None
        if not real.is_relative_to(root) or not real.is_file() or path.is_symlink():
            raise InputError("not_found", f"no record {rid!r}")
        return real

    def open(self, rid: str) -> tuple[GameAdapter, JSON, Any]:
        """Return (its game's adapter, record summary with moves, replay cursor) of a record id (LRU cache)."""
        path = self.resolve(rid)
        stat = path.stat()
        data = read_record(path)
        adapter = games.for_record(data)
        if data is None or adapter is None:
            raise InputError("bad_record", f"record {rid!r} is not a readable game record of a hosted game")
        key = (str(path), stat.st_mtime)
        cursor = self._cursors.get(key)
        if cursor is None:
            try:
                cursor = adapter.replay_start(data)
            except (ValueError, KeyError, TypeError, IndexError) as exc:  # a record that lies about its moves
                log.warning("record %s cannot be replayed: %s", rid, exc)
                raise InputError("bad_record", f"record {rid!r} cannot be replayed ({_brief_error(exc)})") from None
            self._cursors[key] = cursor
            while len(self._cursors) > CACHE_SIZE:
                self._cursors.popitem(last=False)
        else:
            self._cursors.move_to_end(key)
        try:
            summary = {
                "id": rid,
                **adapter.record_summary(data),
                "moves": data.get("moves", []),
                **adapter.replay_log(cursor),
            }
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise InputError("bad_record", f"record {rid!r} cannot be read ({_brief_error(exc)})") from None
        return adapter, summary, cursor


class RecordError(ValueError):
    """A record file that is too large, nested too deeply or not JSON."""


def read_record(path: Path) -> JSON | None:
    """Return a record file's JSON object (size and depth limits); None if unreadable or not a hosted game's."""
    try:
        data = load_json(path, MAX_RECORD_BYTES, RecordError, max_depth=MAX_RECORD_DEPTH)
    except (OSError, RecordError) as exc:
        log.warning("skipped record %s: %s", path.name, _brief_error(exc))
        return None
    if not isinstance(data, dict) or games.for_record(data) is None:  # not a record of a hosted game
        return None
    return data


def _summary_or_none(path: Path) -> JSON | None:
    """Return the listing summary of a record file; None (logged) for a file its game cannot summarise."""
    data = read_record(path)
    adapter = games.for_record(data) if data is not None else None
    if data is None or adapter is None:
        return None
    try:
        return adapter.record_summary(data)
    except Exception as exc:  # noqa: BLE001 - one bad file must not cost the whole listing
        log.warning("skipped record %s: %s", path.name, _brief_error(exc))
        return None


def _brief_error(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) <= 200 else text[:197] + "..."
