"""Saved games: writing a finished room's record, listing record folders and replaying any ply.

A record id is ``"SOURCE/RELATIVE/PATH.json"``: the index of a records folder (0 = the folder new games
are saved in, then every ``--replays`` folder) and the file's path inside it. Ids are checked part by
part and the resolved file must stay inside its folder (no ``..``, no symlink escape), so a client can
only read records the server lists. Replays keep a few snapshots per record (the adapter's cursor) in a
small LRU cache, never every position of a long game.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from play import games
from play.games import JSON, GameAdapter, InputError

#: most records listed, newest first
MAX_LISTED = 500
#: folders below a records folder that are searched
MAX_DEPTH = 4
#: largest record file read (bytes)
MAX_RECORD_BYTES = 8 * 1024 * 1024
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
            "sources": [{"source": i, "path": str(p)} for i, p in enumerate(self.sources)],
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
            data = self._read(path, stat.st_size)
            adapter = games.for_record(data)
            self._summaries[key] = adapter.record_summary(data) if data is not None and adapter else None
        return self._summaries[key]

    @staticmethod
    def _read(path: Path, size: int) -> JSON | None:
        if size > MAX_RECORD_BYTES:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if games.for_record(data) is None:  # not a record of a hosted game
            return None
        result: JSON = data
        return result

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
        data = self._read(path, stat.st_size)
        adapter = games.for_record(data)
        if data is None or adapter is None:
            raise InputError("bad_record", f"record {rid!r} is not a readable game record")
        key = (str(path), stat.st_mtime)
        cursor = self._cursors.get(key)
        if cursor is None:
            cursor = adapter.replay_start(data)
            self._cursors[key] = cursor
            while len(self._cursors) > CACHE_SIZE:
                self._cursors.popitem(last=False)
        else:
            self._cursors.move_to_end(key)
        summary = {"id": rid, **adapter.record_summary(data), "moves": data.get("moves", [])}
        return adapter, summary, cursor
