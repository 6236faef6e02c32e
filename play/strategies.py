"""The strategies a seat can take in the menu, per game: the scripted AIs, checkpoints and exported packages.

Every list is one game's (``game_id``, Domain Wheel by default): its own seats, and only the checkpoints and
packages made for it (a checkpoint names its game, policies/checkpoint.py; a package's manifest too).

* level: every level of the game's difficulty ladders (policies/ladders, play/levels.py), id ``level:L:k``,
  named "Nivel k", its spec the level's seat (a scripted AI, a shipped checkpoint or a search over one);
* scripted: the game's registered seats (Domain Wheel: every name of :mod:`policies.registry`, rule 10.1's
  six, in the original menu's order; the board games: ``random``, ``heuristic``), id = the registered name;
* checkpoint: every ``*.pt`` file in the searched folders, id ``checkpoint:NAME.pt``; its card is the
  model card ``NAME.md`` next to it (its first paragraph and its "Game" row are extracted);
* package: every folder holding ``strategy.json`` (an exported strategy, policies/package.py), id
  ``package:NAME``; its card is the manifest's description, game (trained and accepted options),
  strength and provenance;
* search: every checkpoint again, played by tree search over its network (policies/search.py) with the
  game's menu budget of playouts a move (its adapter's ``menu_search_playouts``: 64, Alveole 800), id
  ``search:NAME.pt``; its card is the checkpoint's. A package whose graphs have a value output
  (policies/package_evaluator.py) gets one too, id ``search:NAME``, unless its checkpoint ``NAME.pt`` is
  listed with its own search seat (one search entry per agent). A game whose adapter has no search seat
  (``takes_search`` false: Frontera) gets no search entries.

Checkpoints and their search seats are listed only where torch is installed (the ``train`` extra); an
install with the ``play`` extra alone offers the scripted AIs, the exported packages and the search over
the packages that have a value output (onnxruntime only).

Clients only ever send ids; ``Catalogue.get(id).spec`` maps an id back to the registered name or the file
the server found, which :func:`policies.files.make_seat_policy` loads. No client-given path is loaded.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gamecore.loaders import load_json
from play.games import JSON, InputError
from policies import games, ladders, registry

log = logging.getLogger("play.strategies")

#: the repository's shipped checkpoints, searched after the folders given on the command line
DEFAULT_DIRS: tuple[Path, ...] = (Path(__file__).resolve().parents[1] / "checkpoints",)
_CARD_LIMIT = 20_000
#: the largest ``strategy.json`` the menu reads (a manifest is a few KB; its graphs are separate files)
MANIFEST_LIMIT = 1 << 20
_GAME_ROW = re.compile(r"^\|\s*Game\s*\|\s*(.+?)\s*\|\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Strategy:
    """One menu entry: the id clients send, its kind, display name, card and what loads it."""

    id: str
    kind: str
    display_name: str
    spec: str
    card: JSON | None = None

    def to_json(self) -> JSON:
        return {"id": self.id, "kind": self.kind, "display_name": self.display_name, "card": self.card}


def _model_card(pt: Path) -> JSON | None:
    md = pt.with_suffix(".md")
    if not md.is_file():
        return None
    text = md.read_text(encoding="utf-8", errors="replace")[:_CARD_LIMIT]
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip() and not p.lstrip().startswith(("#", "|"))]
    game = _GAME_ROW.search(text)
    card: JSON = {
        "markdown": text,
        "summary": " ".join(paragraphs[0].split()) if paragraphs else None,
        "game": game.group(1) if game else None,
    }
    results = arena_results(text)
    if results:
        card["strength"] = {"source": "model card", "results": results}
    return card


def arena_results(markdown: str) -> list[JSON]:
    """Return the first arena table of a model card as ``[{"opponents", "games", "win_rate"}]`` (rates 0..1).

    A table qualifies when its header has an ``opponents`` and a ``win rate`` column; the columns are found
    by name, so cards may add others (confidence intervals, seats) in any order.
    """
    lines = markdown.splitlines()
    for i, line in enumerate(lines):
        header = [c.lower() for c in _cells(line)]
        if "opponents" not in header or "win rate" not in header or i + 1 >= len(lines):
            continue
        col_opp, col_rate = header.index("opponents"), header.index("win rate")
        col_games = header.index("games") if "games" in header else None
        results: list[JSON] = []
        for row_line in lines[i + 2 :]:
            row = _cells(row_line)
            if not row or len(row) != len(header):
                break
            rate = re.match(r"^\**\s*([\d.]+)\s*%", row[col_rate])
            if rate is None:
                continue
            games = row[col_games].replace(",", "") if col_games is not None else ""
            results.append(
                {
                    "opponents": row[col_opp],
                    "games": int(games) if games.isdigit() else None,
                    "win_rate": round(float(rate.group(1)) / 100, 4),
                }
            )
        if results:
            return results
    return []


def _cells(line: str) -> list[str]:
    line = line.strip()
    if not (line.startswith("|") and line.endswith("|")):
        return []
    return [c.strip() for c in line[1:-1].split("|")]


class ManifestError(ValueError):
    """A package folder whose ``strategy.json`` cannot be read: too big, nested too deeply, not JSON."""


#: path -> ((modification time, size), the manifest read there or None where it could not be read)
_MANIFESTS: dict[str, tuple[tuple[int, int], dict[str, Any] | None]] = {}


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """Return a package folder's ``strategy.json`` as a dict, or None (with one warning naming it and why).

    Read with the bounded loader (:data:`MANIFEST_LIMIT` bytes, nesting depth 64) and cached by modification
    time, so a bad package found at start-up or later is skipped with one warning, never a failed request.
    """
    path = folder / "strategy.json"
    try:
        stat = path.stat()
    except OSError:
        return None
    key, stamp = str(path.resolve()), (stat.st_mtime_ns, stat.st_size)
    cached = _MANIFESTS.get(key)
    if cached is None or cached[0] != stamp:
        data: dict[str, Any] | None = None
        try:
            found = load_json(path, MANIFEST_LIMIT, ManifestError)
            if not isinstance(found, dict):
                raise ManifestError(f"{path}: a manifest is a JSON object, found {type(found).__name__}")
            data = found
        except (OSError, ManifestError) as exc:
            log.warning("skipping the strategy package %s: %s", folder, exc)
        cached = _MANIFESTS[key] = (stamp, data)
    return cached[1]


def _package_card(folder: Path) -> tuple[str, JSON | None]:
    data = read_manifest(folder)
    if data is None:
        return folder.name, None
    name = str(data["name"]) if isinstance(data.get("name"), str) else folder.name
    card: JSON = data["card"] if isinstance(data.get("card"), dict) else {}
    if not card:  # a policies/package.py manifest: what it was trained on and how strong it is
        keys = ("description", "display_names", "game", "strength", "provenance", "flavour")
        card = {k: data[k] for k in keys if k in data}
    text = json.dumps(card)
    if len(text) > _CARD_LIMIT:
        card = {"summary": text[:_CARD_LIMIT]}
    return name, card


#: (path, modification time, size) -> the game id a checkpoint file names (None: unreadable)
_CHECKPOINT_GAMES: dict[tuple[str, int, int], str | None] = {}


def checkpoint_game(path: Path) -> str | None:
    """Return the game a ``.pt`` checkpoint was made for (Domain Wheel when it names none), None if unreadable.

    Read with ``torch.load(weights_only=True)`` (data only, never code) and cached by modification time.
    """
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _CHECKPOINT_GAMES:
        try:
            import torch

            payload = torch.load(path, map_location="cpu", weights_only=True)
            game = payload.get("game", games.DEFAULT_GAME) if isinstance(payload, dict) else None
            _CHECKPOINT_GAMES[key] = game if isinstance(game, str) else None
        except Exception:  # noqa: BLE001 - an unreadable file is simply not offered
            _CHECKPOINT_GAMES[key] = None
    return _CHECKPOINT_GAMES[key]


def package_game(folder: Path) -> str | None:
    """Return the game id an exported package's manifest names (``domain-wheel`` is Domain Wheel), or None.

    A manifest that names no game at all (written before packages had other games, or by hand) is Domain
    Wheel's; one whose ``game`` entry is malformed, or that cannot be read, is offered nowhere.
    """
    data = read_manifest(folder)
    if data is None:
        return None
    try:
        if "game" not in data:
            return games.DEFAULT_GAME
        name = data["game"]["name"]
    except (KeyError, TypeError):
        return None
    return games.DEFAULT_GAME if name == "domain-wheel" else name if isinstance(name, str) else None


def _torch_installed() -> bool:
    """Checkpoints (and search over them) need torch; a play-only install offers packages instead."""
    return importlib.util.find_spec("torch") is not None


def _scripted(game_id: str) -> list[Strategy]:
    if game_id == games.DEFAULT_GAME:
        return [Strategy(name, "scripted", registry.display_name(name), name) for name in registry.available()]
    adapter = games.get(game_id)
    return [Strategy(name, "scripted", adapter.display_name(name), name) for name in adapter.registered_seats()]


def _levels(game_id: str) -> list[Strategy]:
    """Return the game's ladder levels as strategies (play/levels.py): id ``level:L:k``, named "Nivel k"."""
    from play import levels

    out = []
    for lad in levels.ladders_of(game_id, torch=_torch_installed()):
        for lv in lad.levels:
            card: JSON = {
                "display_names": {lang: text.format(n=lv.number) for lang, text in levels.LEVEL_NAMES.items()},
                "level": {"ladder": lad.name, "number": lv.number, "description": lv.description},
            }
            name = levels.LEVEL_NAMES["es"].format(n=lv.number)
            out.append(Strategy(ladders.level_id(lad.name, lv.number), "level", name, lv.spec(), card))
    return out


def discover(dirs: list[Path] | tuple[Path, ...], game_id: str = games.DEFAULT_GAME) -> list[Strategy]:
    """Return every strategy of a game: its own AIs, its levels, then the checkpoints and packages in ``dirs``."""
    found = _scripted(game_id) + _levels(game_id)
    seen: set[str] = {s.id for s in found}
    searched: list[Strategy] = []  # search seats over packages, listed last
    playouts = search_playouts(game_id)
    searchable = games.get(game_id).takes_search  # a game without a search seat gets no search entries
    for directory in dirs:
        if not directory.is_dir():
            continue
        for path in sorted(directory.iterdir()):
            entries = []
            if path.is_file() and path.suffix.lower() == ".pt" and _torch_installed():
                if checkpoint_game(path) != game_id:
                    continue
                card = _model_card(path)
                entries.append(Strategy(f"checkpoint:{path.name}", "checkpoint", path.stem, str(path.resolve()), card))
                if searchable:
                    spec = f"search:{path.resolve()}?playouts={playouts}"
                    name = f"{path.stem} + búsqueda ({playouts})"
                    entries.append(Strategy(f"search:{path.name}", "search", name, spec, card))
            elif path.is_dir() and (path / "strategy.json").is_file() and package_game(path) == game_id:
                name, card = _package_card(path)
                entries.append(Strategy(f"package:{path.name}", "package", name, str(path.resolve()), card))
                if searchable and _package_has_value(path):
                    spec = f"search:{path.resolve()}?playouts={playouts}"
                    label = f"{name} + búsqueda ({playouts})"
                    searched.append(Strategy(f"search:{path.name}", "search", label, spec, card))
            for entry in entries:
                if entry.id not in seen:  # the first folder wins a name clash (command-line folders come first)
                    seen.add(entry.id)
                    found.append(entry)
    for entry in searched:  # after every checkpoint: an agent listed with its checkpoint's search keeps that one
        if entry.id not in seen and f"{entry.id}.pt" not in seen:
            seen.add(entry.id)
            found.append(entry)
    return found


def search_playouts(game_id: str) -> int:
    """Return the playouts a move of the menu's search seats in a game (its adapter's ``menu_search_playouts``)."""
    return int(games.get(game_id).menu_search_playouts)


def _package_has_value(folder: Path) -> bool:
    """Return True if every graph of the package's manifest names a value output (what its search reads)."""
    data = read_manifest(folder)
    if data is None:
        return False
    try:
        graphs = data["graphs"]
        return bool(graphs) and all(isinstance(g["roles"].get("value"), str) for g in graphs)
    except (KeyError, TypeError, AttributeError):
        return False


class Catalogue:
    """The strategies a server offers per game, rediscovered on every listing (folders may change while it runs)."""

    def __init__(self, dirs: list[Path] | None = None) -> None:
        self.dirs = [Path(d) for d in (dirs or [])] + list(DEFAULT_DIRS)
        self._last: dict[str, list[Strategy]] = {games.DEFAULT_GAME: discover(self.dirs)}

    def entries(self, game_id: str = games.DEFAULT_GAME) -> list[Strategy]:
        self._last[game_id] = discover(self.dirs, game_id)
        return self._last[game_id]

    def get(self, sid: Any, game_id: str = games.DEFAULT_GAME) -> Strategy:
        """Return the strategy of an id in a game's list; InputError ``unknown_strategy`` listing the ids."""
        for strategies in (self._last.get(game_id), None):
            for s in strategies if strategies is not None else self.entries(game_id):
                if s.id == sid:
                    return s
        allowed = [s.id for s in self._last.get(game_id, [])]
        raise InputError("unknown_strategy", f"unknown strategy {protocol_brief(sid)}", allowed=allowed)


def protocol_brief(value: Any) -> str:
    """Return a client-given value quoted and bounded (ids are short; a long one is cut)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
