"""``dw show FILE``: print a position, or step through a game record, as a text board.

A record is replayed, never held as a list of positions: stepping forward plays the next
move, stepping back (``--interactive``, ``b``) restarts from the nearest snapshot kept every
:data:`SNAPSHOT_EVERY` moves, so memory stays bounded on the longest records.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dw_env.engine import Game
    from dw_env.record import GameRecord

#: moves between two snapshots of a record's replay (stepping back replays at most this many)
SNAPSHOT_EVERY = 256


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("show", help="print a position or step through a game record")
    p.add_argument("file", type=Path, help="a position (.json) or a game record (.json) file")
    p.add_argument("--step", type=int, default=None, help="show the position after this many moves of a record")
    p.add_argument("--all", action="store_true", help="show every position of a record, one after another")
    p.add_argument("--interactive", action="store_true", help="step through a record: Enter next, b back, q quit")
    p.add_argument("--color", action="store_true", help="colour lands by owner with ANSI escapes")
    p.set_defaults(func=run)


class RecordCursor:
    """The positions of a record by index (0 = initial), replayed on demand with periodic snapshots."""

    def __init__(self, record: GameRecord, every: int = SNAPSHOT_EVERY) -> None:
        self.record = record
        self.every = every
        self.game = record.start()
        self.index = 0
        self._snapshots: dict[int, Game] = {0: self.game.copy()}

    def __len__(self) -> int:
        return len(self.record.moves) + 1

    def seek(self, index: int) -> Game:
        """Return the game after ``index`` moves (a live view, valid until the next call)."""
        if not 0 <= index < len(self):
            raise ValueError(f"position {index} is out of range; allowed: 0..{len(self) - 1}")
        if index < self.index:
            base = index - index % self.every
            self.game, self.index = self._snapshots[base].copy(), base
        while self.index < index:
            self.game.play(self.record.moves[self.index])
            self.index += 1
            if self.index % self.every == 0 and self.index not in self._snapshots:
                self._snapshots[self.index] = self.game.copy()
        return self.game


def _load(path: Path) -> tuple[Any, Any]:
    """Return (format, JSON data) of a file; ValueError naming the file if it cannot be one of ours."""
    from dw_env.record import MAX_RECORD_BYTES
    from gamecore import loaders

    try:
        exists, is_file, is_dir = path.exists(), path.is_file(), path.is_dir()
    except OSError as exc:  # e.g. a folder on the way that may not be read
        raise ValueError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not exists:
        raise FileNotFoundError(f"no such file: {path}")
    if not is_file:
        kind = "a directory" if is_dir else "not a regular file"
        raise ValueError(f"{path} is {kind}; give a position or game record JSON file")
    text = loaders.read_text(path, MAX_RECORD_BYTES, ValueError)
    try:
        data = loaders.parse_json(text, MAX_RECORD_BYTES, ValueError)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return (data.get("format") if isinstance(data, dict) else None), data


def run(args: argparse.Namespace) -> int:
    from dw_env import position
    from dw_env.errors import brief
    from dw_env.record import GameRecord, RecordError, format_move
    from dw_env.render_text import render

    path: Path = args.file
    kind, data = _load(path)
    if kind == position.FORMAT:
        try:
            game = position.from_dict(data)
        except position.PositionError as exc:
            raise position.PositionError(f"{path}: {exc}") from None
        print(render(game, color=args.color))
        return 0
    if kind != GameRecord.FORMAT:
        formats = f"{position.FORMAT!r} nor {GameRecord.FORMAT!r}"
        raise ValueError(f"{path}: format {brief(kind)} is neither {formats}")
    try:
        record = GameRecord.from_dict(data)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    cursor = RecordCursor(record)
    last = len(cursor) - 1
    if args.step is not None:
        if not 0 <= args.step <= last:
            raise ValueError(f"--step {args.step} is out of range; allowed: 0..{last}")
        first, stop = args.step, args.step
    elif args.all or args.interactive:
        first, stop = 0, last
    else:
        first = stop = last
    n = first
    while first <= n <= stop:
        game = cursor.seek(n)
        what = f"after move {n}: {format_move(record.geometry, record.moves[n - 1])}" if n > 0 else "initial position"
        print(f"[{n}/{last}] {what}")
        print(render(game, color=args.color))
        if not args.interactive:
            n += 1
            continue
        answer = sys.stdin.readline()
        if not answer or answer.strip().lower() == "q":  # end of input or quit
            break
        n = max(first, n - 1) if answer.strip().lower() == "b" else n + 1
    return 0
