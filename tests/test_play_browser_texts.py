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
