"""The browser game as a player meets it: a tutorial that frames what it says, one language at a time,
spectators without player controls, and replays with shareable links and autoplay (issue 46, items 4-6).

One server and one Chromium for the module (tests/play_fixtures.py); every wait polls a condition.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from dw_env.engine import Game, Move
from dw_env.record import GameRecord
from tests.play_fixtures import CHROMIUM, TIMEOUT_MS, LiveServer, needs_chromium

pytestmark = needs_chromium
SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("paso_*.json"))
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def write_record(folder: Path, plies: int = 12) -> str:
    """Write an arena-like record of ``plies`` random moves on the small map; return its id."""
    rng = random.Random(3)
    game = Game.new(land_radius=1, map_radius=2)
    record = GameRecord.from_game(game, ["balanced", "random", "human:Ana"])
    for _ in range(plies):
        src = rng.choice(list(game.movable_pieces()))
        dst = rng.choice(sorted(game.destinations(src)))
        game.play(Move(src, dst))
        record.append(Move(src, dst))
    (folder / "2026-01-02_arena_game.json").write_text(json.dumps(record.to_dict()), encoding="utf-8")
    return "0/2026-01-02_arena_game.json"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    records = tmp_path_factory.mktemp("records")
    srv = LiveServer(records).start().warm_up()
    srv.record_id = write_record(records)  # type: ignore[attr-defined]
    yield srv
    srv.stop()


def room_from(server: LiveServer, scenario: str, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """Create a room from a tutorial position over the API; return the server's answer (links and seats)."""
    data = json.loads((Path(__file__).parent / "scenarios" / f"{scenario}.json").read_text(encoding="utf-8"))
    answer = httpx.post(f"{server.url}/api/rooms", json={"position": data["position"], "seats": seats}, timeout=60)
    answer.raise_for_status()
    return dict(answer.json())


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"], headless=True)
        yield b
        b.close()


def new_page(chromium: Any, lang: str = "es", **context: Any) -> Any:
    """Return a page whose stored language is ``lang``; JavaScript errors fail the test that reads them."""
    ctx = chromium.new_context(**({"viewport": {"width": 1440, "height": 900}} | context))
    ctx.set_default_timeout(TIMEOUT_MS)
    ctx.add_init_script(f"localStorage.setItem('dw.lang', {json.dumps(lang)})")
    pg = ctx.new_page()
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    return pg


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def within(box: dict[str, float], width: int, height: int) -> bool:
    """Whether a bounding box lies wholly inside a width x height screen."""
    return box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height


def test_rule_11_11_tutorial_frames_each_situation_on_a_phone(server: LiveServer, chromium: Any) -> None:
    """At 390x844 every step's focus cells lie inside the viewport and under no panel (text, cards, banner)."""
    pg = new_page(chromium, **PHONE)
    pg.goto(f"{server.url}/static/index.html#tutorial")
    for n, path in enumerate(SCENARIOS, start=1):
        focus = json.loads(path.read_text(encoding="utf-8"))["show"]["focus"]
        pg.wait_for_selector(f'[data-testid="tutorial-step"][data-step="{n}"]')
        covers = [
            pg.locator(sel).bounding_box()
            for sel in (".tutorial-text", ".hud-top .cards", ".hud-top .banner")
            if pg.locator(sel).count()
        ]
        cells = [] if focus == "map" else focus
        for q, r in cells:
            box = pg.locator(f'[data-testid="board"] polygon.cell[data-qr="{q},{r}"]').bounding_box()
            assert box is not None, f"step {n}: cell {q},{r} is not drawn"
            inside = within(box, 390, 844)
            assert inside, f"step {n}: cell {q},{r} at {box} is outside the 390x844 screen"
            hidden = [c for c in covers if c and overlaps(box, c)]
            assert not hidden, f"step {n}: cell {q},{r} at {box} lies under a panel {hidden}"
            assert box["width"] >= 8, f"step {n}: cell {q},{r} is drawn {box['width']:.1f} px wide, too small to see"
        body = pg.locator('[data-testid="tutorial-step"]').inner_text()
        assert "A1" not in body.split() and "Reglas" not in body, f"step {n} shows rule codes: {body!r}"
        if n < len(SCENARIOS):
            pg.locator('[data-testid="tutorial-next"]').click()
    assert not pg.errors, pg.errors
    pg.context.close()


# ---- one language at a time -------------------------------------------------------------------------------------
I18N = Path(__file__).resolve().parents[1] / "play" / "static" / "i18n"


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]{2,}", re.sub(r"\{\w+\}", " ", text).lower()))


def _table(code: str) -> dict[str, str]:
    return json.loads((I18N / f"{code}.json").read_text(encoding="utf-8"))


def language_words() -> dict[str, set[str]]:
    """Return, per language, the words of its texts that the other language's texts never use."""
    es = set().union(*map(_words, _table("es").values()))
    en = set().union(*map(_words, _table("en").values()))
    return {"es": es - en, "en": en - es}


WORDS = language_words()
KEYS = set(_table("es"))


def foreign_text(text: str, lang: str) -> list[str]:
    """Return what in a screen's visible text belongs to the other language or is an i18n key shown raw."""
    other = WORDS["en" if lang == "es" else "es"]
    found = sorted((_words(text) - BRANDS) & other)
    found += sorted(k for k in KEYS if re.search(rf"(?<![\w.]){re.escape(k)}(?![\w.])", text))
    return found


#: the games' own names, the same in every language
BRANDS = {"domain", "wheel", "alveole", "conquer"}


def visible_text(pg: Any) -> str:
    """Return the page's visible text, less the language switch (it names the other language on purpose) and the
    names that trained networks and packages bring with them (the menu's advanced list, issue 46 item 3)."""
    return str(
        pg.evaluate(
            """() => {
              const scripted = new Set(["human", "balanced", "expansionist", "center", "raider", "guardian", "random"]);
              const muted = [...document.querySelectorAll('.lang-switch')]
                .concat([...document.querySelectorAll('option')].filter((o) => !scripted.has(o.value)
                  && o.closest('select')?.querySelector('option[value="balanced"]')));
              muted.forEach((b) => (b.dataset.keep = b.textContent, b.textContent = ''));
              const text = document.body.innerText;
              muted.forEach((b) => (b.textContent = b.dataset.keep));
              return text;
            }"""
        )
    )


def test_one_language_word_lists_catch_a_planted_string() -> None:
    """The check can fail: a server message in English on a Spanish page, or a raw key, is found."""
    assert foreign_text("No se pudo entrar a la sala: this token does not open that seat", "es")
    assert foreign_text("Could not join the room: el token no abre ese asiento", "en")
    assert "tutorial.next" in foreign_text("Turno de tutorial.next", "es")
    assert not foreign_text("No se pudo entrar a la sala: este enlace no abre ese asiento de la sala.", "es")


def check_screen(pg: Any, lang: str, screen: str) -> str:
    """Assert the page's visible text is all in ``lang``; return the text."""
    text = visible_text(pg)
    assert not foreign_text(text, lang), f"{screen} in {lang} shows {foreign_text(text, lang)}: {text[:600]!r}"
    return text


@pytest.mark.parametrize("lang", ["es", "en"])
def test_one_language_on_every_screen(server: LiveServer, chromium: Any, lang: str) -> None:
    """Menu, tutorial, a join error, a game (cards, banner, log, chat, seat menu, land panel, end) and the replays
    speak only the chosen language, with plurals, named lands and no raw keys."""
    pg = new_page(chromium, lang)
    pg.goto(f"{server.url}/")
    pg.wait_for_selector("[data-testid=menu]")
    check_screen(pg, lang, "the menu")
    one, two = pg.evaluate(
        "async () => { const m = await import('/static/js/i18n.js'); "
        "return [m.tn('hud.knights', 1), m.tn('hud.knights', 2)]; }"
    )
    assert (one, two) == (("1 caballero", "2 caballeros") if lang == "es" else ("1 knight", "2 knights"))
    refusal = pg.evaluate(
        "() => import('/static/js/i18n.js')"
        ".then((m) => m.errorText({code: 'spectator', message: 'spectators cannot act'}))"
    )
    assert refusal == _table(lang)["error.spectator"], "a server error is shown by its code, in the page's language"
    pg.goto(f"{server.url}/#tutorial")
    for n in range(1, len(SCENARIOS) + 1):
        pg.wait_for_selector(f'[data-testid="tutorial-step"][data-step="{n}"]')
        check_screen(pg, lang, f"tutorial step {n}")
        if n < len(SCENARIOS):
            pg.keyboard.press("ArrowRight")
    pg.goto(f"{server.url}/#room=nosuchroom&seat=0&token=bad")
    pg.wait_for_selector("[data-testid=join-error]")
    check_screen(pg, lang, "a join error")
    room = room_from(
        server,
        "paso_18",
        [
            {"type": "human", "name": "Ana"},
            {"type": "ai", "strategy": "balanced"},
            {"type": "ai", "strategy": "random"},
        ],
    )
    host = [{"room": room["room"], "seat": None, "token": None, "game": None, "host_token": room["host_token"]}]
    pg.evaluate("(seats) => localStorage.setItem('dw.seats', JSON.stringify(seats))", host)
    pg.goto(server.url + room["seats"][0]["link"])
    pg.wait_for_selector("[data-testid=player-card]")
    pg.click("[data-testid=seat-menu-1] summary")
    pg.wait_for_selector("[data-testid=seat-strategy-1]")
    check_screen(pg, lang, "the host's seat menu")
    pg.click("[data-testid=seat-menu-1] summary")
    pg.hover('[data-testid="board"] polygon.cell[data-qr="5,-2"]', force=True)
    # land (1,0), throne (5,-2): 6 points, next to the centre, up and right of it (docs/PLAY.md "Languages")
    title = pg.wait_for_selector("[data-testid=details-title]").inner_text()
    assert title == {"es": "Tierra de 6, anillo 1, 2 h", "en": "6-point land, ring 1, 2 o'clock"}[lang], title
    check_screen(pg, lang, "the game with its land panel")
    pg.click("[data-testid=leave-game]")
    pg.wait_for_selector("[data-testid=leave-cancel]")
    check_screen(pg, lang, "the leave confirmation")
    pg.click("[data-testid=leave-cancel]")
    pg.click("[data-testid=pass]")
    pg.wait_for_selector("[data-testid=game-over]")
    log = pg.locator("[data-testid=log-entry]").first.inner_text()
    assert not re.search(r"-?\d+,-?\d+", log), f"the log shows raw coordinates: {log!r}"
    check_screen(pg, lang, "the game's end")
    pg.goto(f"{server.url}/")
    pg.wait_for_selector("[data-testid=mine-section]:not([hidden]) [data-testid^=mine-turn-]")
    check_screen(pg, lang, "the menu with its list of your games")
    pg.goto(f"{server.url}/#replays")
    pg.wait_for_selector("[data-testid=replay-row]")
    text = check_screen(pg, lang, "the replay list")
    assert ".json" not in text and "balanced" not in text, f"the list shows file names or strategy ids: {text!r}"
    pg.click(f"[data-testid=replay-item][data-id='{server.record_id}']")  # type: ignore[attr-defined]
    pg.wait_for_selector("[data-testid=replay][data-ply='0']")
    pg.click("[data-testid=replay-last]")
    pg.wait_for_selector("[data-testid=replay][data-ply='12'] [data-testid=log-entry]")
    check_screen(pg, lang, "the replay viewer")
    assert pg.evaluate("() => document.title") and not pg.errors, pg.errors
    pg.context.close()


def test_spectators_see_no_player_controls(server: LiveServer, chromium: Any) -> None:
    """A spectator link shows the game without pass, end request, AI speed, "your king" or leave controls."""
    room = room_from(
        server,
        "paso_20",
        [{"type": "human", "name": "Ana"}, {"type": "ai", "strategy": "random"}, {"type": "ai", "strategy": "random"}],
    )
    pg = new_page(chromium, "en")
    pg.goto(server.url + room["spectate"])
    pg.wait_for_selector("[data-testid=spectating]")
    for control in ("pass", "end-request", "ai-speed", "to-king", "leave-game", "seat-menu-0"):
        assert not pg.locator(f"[data-testid={control}]").is_visible(), f"a spectator sees {control}"
    pg.keyboard.press("p")  # the pass key does nothing for a spectator: no refusal toast
    check_screen(pg, "en", "the spectator's game")
    pg.context.close()


def test_rule_11_5_replay_link_autoplay_and_move_kinds(server: LiveServer, chromium: Any) -> None:
    """Opening a record from the list gives its shareable #replay= link; that link alone opens it; autoplay at
    4x runs it to the end, and every log entry names its move kind."""
    pg = new_page(chromium, "en")
    pg.goto(f"{server.url}/#replays")
    rid = server.record_id  # type: ignore[attr-defined]
    pg.click(f"[data-testid=replay-item][data-id='{rid}']")
    pg.wait_for_selector("[data-testid=replay]")
    assert pg.evaluate("() => location.hash") == f"#replay={rid}"
    shared = new_page(chromium, "en")
    shared.goto(f"{server.url}/#replay={rid}")
    shared.wait_for_selector("[data-testid=replay][data-ply='0']")
    shared.select_option("[data-testid=replay-speed]", "4")
    shared.click("[data-testid=replay-play]")
    shared.wait_for_selector("[data-testid=replay][data-ply='12'][data-playing='false']")
    entries = shared.locator("[data-testid=log-entry]").all_inner_texts()
    kinds = [
        shared.evaluate("(k) => import('/static/js/i18n.js').then((m) => m.t(`kind.${k}`))", k)
        for k in ("step", "king_move", "fast_knight", "double_step", "jump", "swap")
    ]
    assert len(entries) == 12 and all(any(k in e for k in kinds) for e in entries), entries
    for p in (pg, shared):
        assert not p.errors, p.errors
        p.context.close()
