"""The menu's difficulty levels and its "advanced" list, per game.

* levels: every ladder of the game (policies/ladders), each level offered as the strategy id ``level:L:k``
  named "Nivel k" / "Level k", with its one-line description in both languages and the rating ``dw ladder``
  committed next to the ladder (None until it is calibrated). A ladder whose levels need torch (a network or a
  search over a checkpoint) is offered only where torch is installed.
* advanced: the checkpoints, packages and search seats, one entry per way of playing an agent: a package and
  the checkpoint it was exported from are the same network, so only one of them is listed (the package, which
  needs no torch), and every entry gets a clean name in both languages and a plain-text summary (no Markdown,
  cut at a word). Summaries are English, the language of model cards and manifests: the page shows them to
  English readers only, so a Spanish page stays in one language.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Sequence
from typing import Protocol

from play.games import JSON
from policies import ladders


class Strategy(Protocol):
    """What this module reads of a menu entry (play.strategies.Strategy, which imports this module)."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def spec(self) -> str: ...
    @property
    def card(self) -> JSON | None: ...


LEVEL_NAMES = {"es": "Nivel {n}", "en": "Level {n}"}
SEARCH_NAMES = {"es": "{name} + búsqueda ({n})", "en": "{name} + search ({n})"}
SUMMARY_LIMIT = 160
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"\*+|`+|^#+\s*|\|")
_UNDERLINE = re.compile(r"(?<!\w)_([^_]+)_(?!\w)")
_PLAYOUTS = re.compile(r"playouts=(\d+)")


def ladders_of(game_id: str, torch: bool | None = None) -> list[ladders.Ladder]:
    """Return the game's ladders this install can play (one needing torch only where torch is installed; ``torch``
    None asks Python whether it is)."""
    if torch is None:
        torch = importlib.util.find_spec("torch") is not None
    return [lad for lad in ladders.for_game(game_id) if torch or all(lv.kind == "scripted" for lv in lad.levels)]


def levels_json(game_id: str) -> list[JSON]:
    """Return the game's levels for ``GET /api/menu``, ladder by ladder, easiest first."""
    out: list[JSON] = []
    for lad in ladders_of(game_id):
        rated = ladders.ratings(lad.name)
        for lv in lad.levels:
            out.append(
                {
                    "id": ladders.level_id(lad.name, lv.number),
                    "ladder": lad.name,
                    "ladder_label": lad.label,
                    "level": lv.number,
                    "names": {lang: text.format(n=lv.number) for lang, text in LEVEL_NAMES.items()},
                    "description": lv.description,
                    "rating": rated.get(lv.number),
                }
            )
    return out


def plain(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """Return Markdown ``text`` as one plain line (links as their text, no emphasis or code marks), cut at a word."""
    line = " ".join(_MARKUP.sub("", _UNDERLINE.sub(r"\1", _LINK.sub(r"\1", text))).split())
    if len(line) <= limit:
        return line
    return line[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _agent(s: Strategy) -> str:
    """Return the agent a checkpoint, package or search entry plays (its file's or folder's name)."""
    return s.id.partition(":")[2].removesuffix(".pt")


def _clean_names(s: Strategy, packages: dict[str, Strategy]) -> dict[str, str]:
    agent = _agent(s)
    own = (packages.get(agent) or s).card or {}
    found = own.get("display_names")
    names: dict[str, object] = found if isinstance(found, dict) else {}
    if all(isinstance(names.get(k), str) and agent not in str(names[k]) for k in ("es", "en")):
        base = {"es": str(names["es"]), "en": str(names["en"])}
    else:  # a file name: "conquer-agent" reads "Agente Conquer" / "Conquer agent"
        words = agent.removesuffix("-agent").replace("-", " ").replace("_", " ").strip() or agent
        base = {"es": f"Agente {words.title()}", "en": f"{words.title()} agent"}
    if s.kind != "search":
        return base
    found = _PLAYOUTS.search(s.spec)
    n = found.group(1) if found else "?"
    return {lang: SEARCH_NAMES[lang].format(name=base[lang], n=n) for lang in base}


def advanced_json(entries: Sequence[Strategy]) -> list[JSON]:
    """Return the advanced list: one entry per agent and way of playing, with clean names in both languages."""
    packages = {_agent(s): s for s in entries if s.kind == "package"}
    out: list[JSON] = []
    seen: set[str] = set()
    for s in entries:
        if s.kind not in ("checkpoint", "package", "search"):
            continue
        if s.kind == "checkpoint" and _agent(s) in packages:
            continue  # the package exported from it plays the same network
        names = _clean_names(s, packages)
        if names["es"] in seen or names["en"] in seen:
            continue
        seen.update(names.values())
        card = s.card or {}
        summary = card.get("summary") or card.get("description") or ""
        out.append({"id": s.id, "kind": s.kind, "names": names, "summary": plain(str(summary))})
    return out
