"""The browser game's texts (play/static/i18n): Spanish and English carry the same keys, the tutorial explains
each of its 20 situations (rule 11.11) in both languages, and in our own words: no run of eight words is taken
from the original manual (../shared/seeds/domain-wheel.txt, when present) or from the scenarios' captions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
I18N = ROOT / "play" / "static" / "i18n"
SEED = ROOT.parent / "shared" / "seeds" / "domain-wheel.txt"
SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("paso_*.json"))


def table(code: str) -> dict[str, str]:
    return json.loads((I18N / f"{code}.json").read_text(encoding="utf-8"))


def shingles(text: str, n: int = 8) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_spanish_and_english_have_the_same_keys() -> None:
    es, en = table("es"), table("en")
    assert set(es) == set(en)
    assert all(isinstance(v, str) and v.strip() for v in [*es.values(), *en.values()])


@pytest.mark.parametrize("code", ["es", "en"])
def test_every_tutorial_situation_is_explained(code: str) -> None:
    texts = table(code)
    assert len(SCENARIOS) == 20
    for n in range(1, len(SCENARIOS) + 1):
        assert texts[f"tutorial.{n:02d}.title"].strip()
        assert len(texts[f"tutorial.{n:02d}.text"].split()) >= 15


def test_tutorial_texts_are_our_own_words() -> None:
    original = " ".join(json.loads(p.read_text(encoding="utf-8"))["tutorial"] for p in SCENARIOS)
    if SEED.exists():
        original += " " + SEED.read_text(encoding="utf-8")
    copied = shingles(original)
    for key, text in table("es").items():
        if key.startswith("tutorial."):
            assert not shingles(text) & copied, f"{key} repeats the manual's wording"


STATIC_JS = ROOT / "play" / "static" / "js"
#: a literal key given to t() or tn(), or named by a data-i18n attribute
LITERAL_KEY = re.compile(r'\b(?:t|tn)\(\s*"([A-Za-z0-9_.]+)"|"data-i18n(?:-[a-z]+)?":\s*"([A-Za-z0-9_.]+)"')


def test_every_key_the_pages_name_has_a_text_in_both_languages() -> None:
    """A key the page asks for and the tables lack is shown raw (i18n.js t() falls back to the key itself)."""
    es, en = table("es"), table("en")
    named = {
        (m.group(1) or m.group(2), path.name)
        for path in STATIC_JS.rglob("*.js")
        for m in LITERAL_KEY.finditer(path.read_text(encoding="utf-8"))
    }
    assert len(named) > 200  # the scan still finds the page's keys
    plural = {k.rsplit(".", 1)[0] for k in es if k.endswith((".one", ".other"))}
    missing = sorted((key, name) for key, name in named if key not in plural and (key not in es or key not in en))
    assert not missing, f"keys without a text: {missing}"


@pytest.mark.parametrize("game", ["alveole", "conquer", "frontera"])
def test_every_board_game_screen_has_its_keyboard_and_touch_hints(game: str) -> None:
    """ui/board_game.js shows `${game}.keys_hint` and `${game}.touch_hint` under every board game's panels."""
    for code in ("es", "en"):
        texts = table(code)
        assert texts[f"{game}.keys_hint"].strip() and texts[f"{game}.touch_hint"].strip()


def test_every_kind_of_frontera_log_entry_has_its_text() -> None:
    """ui/frontera.js writes each log entry as `frontera.log.${kind}`: every input, clock event and abandonment."""
    from play.games.frontera import _CLOCK_EVENTS, INPUTS

    for code in ("es", "en"):
        texts = table(code)
        for kind in (*INPUTS, *_CLOCK_EVENTS, "abandon", "deployment"):
            assert "{who}" in texts[f"frontera.log.{kind}"] or kind.endswith("timeout"), (code, kind)
