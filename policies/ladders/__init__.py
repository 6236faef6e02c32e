"""The difficulty ladders of the browser game's menu: per game, levels "Nivel 1" (easiest) up to the strongest seat.

A ladder is one small YAML file in this folder (its name, without ``.yaml``, is the ladder's id), read strictly
with :func:`gamecore.loaders.read_yaml`::

    game: conquer                 # a game id of policies.games
    options: {}                   # the game's options the ladder was calibrated on (the game's defaults: {})
    label: {es: "...", en: "..."} # what tells this ladder from the game's others (a map), one line each
    levels:                       # easiest first; each level is exactly one of
      - scripted: random          #   a registered scripted AI of the game
        description: {es: "...", en: "..."}
      - network: conquer-agent.pt #   a shipped checkpoint (checkpoints/), sampling its policy (temperature 1)
        description: {...}
      - search: conquer-agent.pt  #   tree search over a shipped checkpoint with a budget of playouts a move
        playouts: 64
        options: {backup: paranoid}  # optional: the search seat's other options (policies/search_spec.py)
        description: {...}

A search level's ``options`` are checked as the seat spec checks them (an unknown name or a bad value is an
error naming it and what is allowed); ``time`` is refused, since a time budget makes a level's strength
depend on the machine, and ``playouts`` is the level's own key.

Descriptions are one line for a player, in Spanish and English, without Markdown. Level ``k`` of ladder ``L``
is offered to clients as the strategy id ``level:L:k`` (:func:`level_id`). ``dw ladder L`` calibrates a ladder
and writes its ratings next to it (``L.ratings.json``, read by :func:`ratings`) and its table to docs/LADDERS.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gamecore.errors import brief
from gamecore.loaders import load_json, read_text, read_yaml

#: this folder: the shipped ladders and their ratings
FOLDER = Path(__file__).resolve().parent
#: the shipped checkpoints a level's ``network`` or ``search`` names
CHECKPOINTS = FOLDER.parents[1] / "checkpoints"
LANGUAGES = ("es", "en")
KINDS = ("scripted", "network", "search")
MAX_DESCRIPTION = 140
MAX_PLAYOUTS = 100_000
_LIMIT = 64 << 10
#: characters that would show as Markdown or markup in a player's text
_MARKUP = re.compile(r"[*`_#<>\[\]|\n]")
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
#: a search option's value as a spec writes it (no & = ? that would change the spec's other options)
_OPTION_TEXT = re.compile(r"^[A-Za-z0-9_.+-]{1,40}$")


class LadderError(ValueError):
    """A ladder file that breaks the schema above; the message names the file, the key and the value."""


@dataclass(frozen=True)
class Level:
    """One rung: its number (1 = easiest), the seat it is, its budget and its player description per language."""

    number: int
    kind: str
    strategy: str
    description: dict[str, str]
    playouts: int | None = None
    search_options: tuple[tuple[str, str], ...] = ()  # (name, value as written in a spec), sorted by name

    def spec(self) -> str:
        """Return the seat spec the arena and the rooms load (a registered name, a checkpoint path or a search)."""
        if self.kind == "scripted":
            return self.strategy
        path = str(CHECKPOINTS / self.strategy)
        if self.kind == "network":
            return path
        return f"search:{path}?playouts={self.playouts}" + "".join(f"&{k}={v}" for k, v in self.search_options)

    def what(self) -> str:
        """Return what the level is, for the docs' table (``search conquer-agent.pt, 64 playouts``)."""
        if self.kind == "search":
            options = "".join(f", {k} {v}" for k, v in self.search_options)
            return f"search over {self.strategy}, {self.playouts} playouts a move{options}"
        return (
            f"network {self.strategy} (samples its policy)"
            if self.kind == "network"
            else f"scripted AI {self.strategy}"
        )


@dataclass(frozen=True)
class Ladder:
    """A game's ladder: its id, game, calibration options, label per language and levels (easiest first)."""

    name: str
    game: str
    options: dict[str, Any]
    label: dict[str, str]
    levels: tuple[Level, ...]


def level_id(ladder: str, number: int) -> str:
    """Return the strategy id clients send for level ``number`` of ``ladder`` (``level:conquer:2``)."""
    return f"level:{ladder}:{number}"


def _texts(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or set(value) != set(LANGUAGES):
        raise LadderError(f"{where}: needs exactly the languages {', '.join(LANGUAGES)}, got {brief(value)}")
    for lang, text in value.items():
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_DESCRIPTION or _MARKUP.search(text):
            raise LadderError(
                f"{where}.{lang}: one line of 1..{MAX_DESCRIPTION} characters without Markdown "
                f"(no * ` _ # < > [ ] |), got {brief(text)}"
            )
    return dict(value)


def _level(entry: Any, number: int, where: str) -> Level:
    where = f"{where}: levels[{number - 1}]"
    if not isinstance(entry, dict):
        raise LadderError(f"{where}: a level is a mapping, got {brief(entry)}")
    kinds = [k for k in KINDS if k in entry]
    allowed = {*KINDS, "playouts", "options", "description"}
    unknown = sorted(str(k) for k in entry if k not in allowed)
    if unknown:
        raise LadderError(f"{where}: unknown key {brief(unknown[0])}; allowed: {', '.join(sorted(allowed))}")
    if len(kinds) != 1:
        raise LadderError(f"{where}: needs exactly one of {', '.join(KINDS)}, got {brief(kinds)}")
    kind = kinds[0]
    strategy = entry[kind]
    if not isinstance(strategy, str) or not strategy or "/" in strategy or "\\" in strategy or strategy.startswith("."):
        raise LadderError(f"{where}.{kind}: a strategy name or a checkpoint file name, got {brief(strategy)}")
    playouts = entry.get("playouts")
    if kind == "search":
        if isinstance(playouts, bool) or not isinstance(playouts, int) or not 1 <= playouts <= MAX_PLAYOUTS:
            raise LadderError(f"{where}.playouts: an integer in [1, {MAX_PLAYOUTS}], got {brief(playouts)}")
    elif playouts is not None:
        raise LadderError(f"{where}.playouts: only a search level has playouts, got {brief(playouts)}")
    options = _search_options(entry["options"], kind, f"{where}.options") if "options" in entry else ()
    if kind != "scripted" and not (CHECKPOINTS / strategy).is_file():
        raise LadderError(f"{where}.{kind}: no shipped checkpoint {brief(strategy)} in {CHECKPOINTS}")
    texts = _texts(entry.get("description"), f"{where}.description")
    return Level(number, kind, strategy, texts, playouts, options)


def _search_options(value: Any, kind: str, where: str) -> tuple[tuple[str, str], ...]:
    """Return a search level's ``options`` as sorted (name, spec text) pairs, checked as the seat spec checks them."""
    from policies.search_spec import SearchParams

    allowed = [name for name in SearchParams.FIELDS if name not in ("playouts", "time")]
    if kind != "search":
        raise LadderError(f"{where}: only a search level has options, got {brief(value)}")
    if not isinstance(value, dict) or not value:
        raise LadderError(f"{where}: a mapping of search options ({', '.join(allowed)}), got {brief(value)}")
    pairs = []
    for name, v in value.items():
        if name not in allowed:
            raise LadderError(f"{where}: unknown search option {brief(name)}; allowed: {', '.join(allowed)}")
        if isinstance(v, bool):
            text = "1" if v else "0"
        elif isinstance(v, (int, float, str)):
            text = str(v)
        else:
            text = ""
        if not _OPTION_TEXT.match(text):
            raise LadderError(f"{where}.{name}: a number, 0/1 or a word, got {brief(v)}")
        pairs.append((name, text))
    try:
        SearchParams.from_query("&".join(f"{k}={t}" for k, t in pairs))
    except ValueError as exc:
        raise LadderError(f"{where}: {exc}") from None
    return tuple(sorted(pairs))


def parse(text: str, name: str, where: str | None = None) -> Ladder:
    """Return the ladder ``name`` written in YAML ``text``; LadderError naming what is wrong (nothing is loaded)."""
    where = where or f"ladder {name}"
    if not _NAME.match(name):
        raise LadderError(f"{where}: a ladder id is lower-case letters, digits, - and _, got {brief(name)}")
    data = read_yaml(text, where, LadderError, limit=_LIMIT)
    keys = {"game", "options", "label", "levels"}
    if not isinstance(data, dict) or set(data) != keys:
        got = sorted(map(str, data)) if isinstance(data, dict) else type(data).__name__
        raise LadderError(f"{where}: needs exactly the keys {', '.join(sorted(keys))}, got {brief(got)}")
    from policies import games

    game = data["game"]
    if game not in games.available():
        raise LadderError(f"{where}.game: one of {', '.join(games.available())}, got {brief(game)}")
    if not isinstance(data["options"], dict):
        raise LadderError(f"{where}.options: a mapping of the game's options, got {brief(data['options'])}")
    try:
        games.get(game).options_from_dict(data["options"])
    except (ValueError, TypeError) as exc:
        raise LadderError(f"{where}.options: {exc}") from None
    levels = data["levels"]
    if not isinstance(levels, list) or len(levels) < 2:
        raise LadderError(f"{where}.levels: a list of at least 2 levels, got {brief(levels)}")
    parsed = tuple(_level(entry, k, where) for k, entry in enumerate(levels, start=1))
    specs = [lv.spec() for lv in parsed]
    if len(set(specs)) != len(specs):
        raise LadderError(f"{where}.levels: a seat appears twice, got {brief([lv.what() for lv in parsed])}")
    adapter = games.get(game)
    for lv in parsed:
        if lv.kind == "scripted" and not adapter.is_registered(lv.strategy):
            raise LadderError(
                f"{where}: levels[{lv.number - 1}].scripted: one of {', '.join(adapter.registered_seats())}, "
                f"got {brief(lv.strategy)}"
            )
    return Ladder(name, game, dict(data["options"]), _texts(data["label"], f"{where}.label"), parsed)


def load(name: str, folder: Path = FOLDER) -> Ladder:
    """Return the ladder ``folder/NAME.yaml``; LadderError naming an unknown ladder and the ones there are."""
    if not isinstance(name, str) or not _NAME.match(name) or not (folder / f"{name}.yaml").is_file():
        raise LadderError(f"unknown ladder {brief(name)}; allowed: {', '.join(names(folder))}")
    path = folder / f"{name}.yaml"
    return parse(read_text(path, _LIMIT, LadderError), name, str(path))


def names(folder: Path = FOLDER) -> list[str]:
    """Return the ids of the ladders in ``folder``, sorted."""
    return sorted(p.stem for p in folder.glob("*.yaml"))


def for_game(game: str, folder: Path = FOLDER) -> list[Ladder]:
    """Return every ladder of a game, in id order (Domain Wheel: standard map, then small)."""
    return [ladder for ladder in map(lambda n: load(n, folder), names(folder)) if ladder.game == game]


def ratings_path(name: str, folder: Path = FOLDER) -> Path:
    """Return where ``dw ladder`` writes a ladder's calibrated ratings."""
    return folder / f"{name}.ratings.json"


def ratings(name: str, folder: Path = FOLDER) -> dict[int, dict[str, Any]]:
    """Return a ladder's calibrated ratings by level number (``{"rating", "low", "high", "games"}``), {} if none.

    Written by ``dw ladder``; a missing or unreadable file means "not calibrated yet" (the menu shows no rating),
    and so does a row whose level is no longer what was rated (its ``what`` differs from the ladder's level now).
    """
    path = ratings_path(name, folder)
    try:
        levels = {lv.number: lv.what() for lv in load(name, folder).levels}
        data = load_json(path, _LIMIT, LadderError)
        return {
            int(r["level"]): {k: r[k] for k in ("rating", "low", "high")} | {"games": int(data["games"])}
            for r in data["levels"]
            if levels.get(int(r["level"])) == r["what"]
        }
    except (OSError, LadderError, KeyError, TypeError, ValueError):
        return {}
